"""Bodies through or off the ground (issue 17): the ground plane a bag names, forward kinematics of
every link from the head pose and joint_states, the PROBLEM lines, and the report's exit code."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from cobra_analysis.ground_check import (HEAD_ONLY_SIZE_M, BodyTrack, GroundPlane, body_sizes_m,
                                        ground_from_custom_data, robot_body_tracks, sunk_body_problems)
from cobra_analysis.report import main
from cobra_analysis.synthetic import SyntheticRun, write_bag
from cobra_description.robot_model import load_robot_model

REPO = Path(__file__).resolve().parents[3]
COBRA = load_robot_model(REPO / 'urdf' / 'cobra.urdf')


def test_the_ground_is_the_plane_of_the_bags_terrain(tmp_path):
    assert ground_from_custom_data({}) == GroundPlane(0.0, 0.0, '')
    rigid = ground_from_custom_data({'cobra.terrain': 'rigid 24 deg', 'cobra.slope_deg': '24.0'})
    assert rigid.terrain == 'rigid' and rigid.height_m(np.array([1.0]))[0] == pytest.approx(-math.tan(math.radians(24)))
    sand = tmp_path / 'sand.yaml'
    sand.write_text((REPO / 'config' / 'soil' / 'loose_sand.yaml').read_text().replace(
        'reference_level_m: 0.0', 'reference_level_m: -0.5'))
    assert ground_from_custom_data({'cobra.terrain': 'scm', 'cobra.terrain_file': str(sand)}).level_m == -0.5
    ground = tmp_path / 'ground.yaml'
    ground.write_text('terrain: compliant\ncompliant:\n  ground_level_m: 0.25\n')
    assert ground_from_custom_data({'cobra.terrain': 'compliant', 'cobra.terrain_file': str(ground)}).level_m == 0.25
    # recorded elsewhere: the file is gone, the shipped level (0) is assumed
    assert ground_from_custom_data({'cobra.terrain': 'scm', 'cobra.terrain_file': '/gone/sand.yaml'}).level_m == 0.0


def test_links_are_placed_by_forward_kinematics_from_the_head_pose_and_joint_states():
    joints = [joint.name for joint in COBRA.actuated_joints]
    angles = {name: 0.3 * ((-1) ** k) * (k + 1) / len(joints) for k, name in enumerate(joints)}
    head_rotation = Rotation.from_euler('xyz', [0.2, -0.4, 1.1])
    head_position = np.array([[1.0, -2.0, 0.3]])
    joint_rows = np.array([[angles[name] for name in joints], np.zeros(len(joints))])   # at 4.9 s and 5.1 s
    tracks = robot_body_tracks(COBRA, np.array([5.0]), head_position, head_rotation.as_quat()[None],
                               np.array([4.9, 5.1]), joints, joint_rows)
    sizes = body_sizes_m(COBRA)
    assert {track.name for track in tracks} == set(sizes) and 'head_link' in sizes
    head = np.eye(4)
    head[:3, :3], head[:3, 3] = head_rotation.as_matrix(), head_position[0]
    for track in tracks:
        centre, size = sizes[track.name]
        expected = (head @ COBRA.transform(COBRA.root, track.name, angles) @ np.append(centre, 1.0))[:3]
        np.testing.assert_allclose(track.position_m[0], expected, atol=1e-9)
        assert track.size_m == size
    link = COBRA.links['link_3'].collisions[0]
    assert sizes['link_3'][1] == pytest.approx(2 * math.hypot(link.size[0], link.size[1] / 2))   # 0.163 m


def test_links_are_placed_only_where_joint_states_were_sampled_with_the_nearest_head_pose():
    # the run summary decodes joint_states every 0.1 s while the head moves at 100 Hz: pairing the
    # head's every sample with the last joint sample before it misplaced a tumbling tail by 0.2 m
    # (tumble.launch.py: a false PROBLEM "link_11 went through the ground")
    joints = [joint.name for joint in COBRA.actuated_joints]
    head_times = np.round(np.arange(0.0, 1.001, 0.01), 6)
    head_position = np.column_stack([head_times, np.zeros_like(head_times), np.full_like(head_times, 0.05)])
    head_quaternion = np.tile([0.0, 0.0, 0.0, 1.0], (len(head_times), 1))
    tracks = robot_body_tracks(COBRA, head_times, head_position, head_quaternion,
                               np.array([0.497, 0.9]), joints, np.zeros((2, len(joints))))
    link = next(track for track in tracks if track.name == 'link_1')
    np.testing.assert_allclose(link.times_s, [0.5, 0.9])
    head_at = {track.name: track for track in tracks}['head_link'].position_m[:, 0]
    centre = body_sizes_m(COBRA)['head_link'][0]
    np.testing.assert_allclose(head_at - centre[0], [0.5, 0.9], atol=1e-9)


def test_a_body_deeper_than_its_size_is_one_problem_line_naming_it_time_and_place():
    times = np.array([0.0, 1.0, 2.0, 3.0])
    falling = BodyTrack('link_7', 0.16, times, np.array([[0, 4.0, 0.04], [0, 4.1, -0.1], [0, 4.2, -0.2],
                                                           [0, 4.3, -77000.0]]))
    sunk_in_sand = BodyTrack('link_2', 0.16, times, np.array([[0.0, 0.0, -0.15]] * 4))
    lost = BodyTrack('link_9', 0.16, times[:1], np.array([[np.nan, 0.0, 0.0]]))
    problems = sunk_body_problems([falling, sunk_in_sand, lost], GroundPlane(terrain='scm'))
    assert len(problems) == 2
    assert problems[0].startswith('PROBLEM link_7 went through or off the ground (scm): at t = 2.00 s it was '
                                  '0.200 m below the ground level at (x, y) = (0.00, 4.20) m')
    assert 'deepest 77.0 km at t = 3.00 s' in problems[0]
    assert problems[1].startswith('PROBLEM link_9') and 'not finite' in problems[1]
    # on a slope the same depth is measured from the sloped plane
    downhill = BodyTrack('head_link', 0.2, times, np.array([[x, 0.0, -x * math.tan(math.radians(24)) + 0.04]
                                                            for x in times]))
    assert sunk_body_problems([downhill], GroundPlane(slope_deg=24.0)) == []
    assert len(sunk_body_problems([downhill], GroundPlane())) == 1


def test_the_report_prints_the_problem_and_exits_non_zero_for_a_run_that_fell(tmp_path, capsys):
    """A synthetic sim run whose head goes 1 m down while rolling 5 m along +x: on level ground it
    fell through (exit 1, the page is still written); the same run recorded on a slope that falls
    0.2 m per metre (11.3 deg) is fine. Before: exit 0, nothing said."""
    run = dict(duration_s=14.0, tumble_interval_s=(2.0, 12.0), tumble_speed_m_s=0.5)
    fell = write_bag(tmp_path / 'fell', SyntheticRun(**run, custom_data={'cobra.terrain': 'rigid'}))
    assert main([str(fell), '--out', str(tmp_path / 'out_fell')]) == 1
    err = capsys.readouterr().err
    assert 'fell: PROBLEM head (odometry track) went through or off the ground (rigid)' in err
    assert f'more than its own size ({HEAD_ONLY_SIZE_M:.2f} m)' in err
    assert (tmp_path / 'out_fell' / 'index.html').exists()
    slope_deg = math.degrees(math.atan(0.2))
    sloped = write_bag(tmp_path / 'sloped', SyntheticRun(**run, custom_data={
        'cobra.terrain': f'rigid {slope_deg:g} deg', 'cobra.slope_deg': repr(slope_deg)}))
    assert main([str(sloped), '--out', str(tmp_path / 'out_sloped')]) == 0
