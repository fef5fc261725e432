"""The curl pose closes COBRA's loop (latch frames meet), inside the limits, in the vertical plane."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cobra_description.robot_model import default_urdf_path, load_robot_model, parse_urdf
from cobra_gaits.curl_pose import (CLOSURE_TOLERANCE_M, HEAD_LATCH_FRAME, LIMIT_MARGIN_RAD,
                                   TAIL_LATCH_FRAME, CurlPoseError, curl_pose, latch_frame_pose,
                                   latch_gap, solve_curl_pose)

CHAIN_LINKS = ['head_link'] + [f'link_{i}' for i in range(1, 12)]


@pytest.fixture(scope='module')
def model():
    return load_robot_model(default_urdf_path('cobra'))


def test_latch_frames_meet_with_the_tail_continuing_into_the_head(model) -> None:
    pose = solve_curl_pose(model, model.gait_joints())
    head = latch_frame_pose(model, HEAD_LATCH_FRAME, pose.as_dict())
    tail = latch_frame_pose(model, TAIL_LATCH_FRAME, pose.as_dict())
    assert np.linalg.norm(tail[:3, 3] - head[:3, 3]) < CLOSURE_TOLERANCE_M
    assert np.allclose(head[:3, :3], tail[:3, :3], atol=1e-3)  # tail's x axis = head's x axis
    assert pose.closure_error_m < 1e-4
    straight_distance_m, _ = latch_gap(model, {})
    assert straight_distance_m == pytest.approx(1.7, abs=1e-3)  # the straight chain is 1.7 m long


def test_targets_stay_inside_the_urdf_limits_with_margin(model) -> None:
    joints = model.gait_joints()
    pose = solve_curl_pose(model, joints)
    for joint, angle in zip(joints, pose.positions_rad):
        assert joint.limits.lower_rad + LIMIT_MARGIN_RAD - 1e-9 <= angle
        assert angle <= joint.limits.upper_rad - LIMIT_MARGIN_RAD + 1e-9


def test_the_loop_stands_up_in_the_vertical_plane_over_the_head(model) -> None:
    pose = solve_curl_pose(model, model.gait_joints())
    origins = np.array([model.transform('head_link', link, pose.as_dict())[:3, 3] for link in CHAIN_LINKS])
    assert np.allclose(origins[:, 1], 0.0, atol=1e-9)  # the head's x-z plane: vertical when it lies flat
    assert origins[:, 2].min() >= -1e-9  # nothing below the head
    assert origins[:, 2].max() > 0.4  # a loop of 1.7 m perimeter stands ~0.5 m high
    yaw = [a for j, a in zip(model.gait_joints(), pose.positions_rad) if j.axis_kind == 'yaw']
    assert np.allclose(yaw, 0.0, atol=1e-6)
    pitch = [abs(a) for j, a in zip(model.gait_joints(), pose.positions_rad) if j.axis_kind == 'pitch']
    assert sum(pitch) == pytest.approx(2 * math.pi, abs=1e-4)  # one full turn


def test_deterministic_and_cached(model) -> None:
    joints = model.gait_joints()
    first, second = solve_curl_pose(model, joints), solve_curl_pose(model, joints)
    assert np.array_equal(first.positions_rad, second.positions_rad)
    assert curl_pose(model, joints) is curl_pose(model, joints)


def test_a_yaw_splay_still_closes_the_loop(model) -> None:
    pose = solve_curl_pose(model, model.gait_joints(), yaw_splay_rad=0.3)
    yaw = [a for j, a in zip(model.gait_joints(), pose.positions_rad) if j.axis_kind == 'yaw']
    assert max(abs(a) for a in yaw) > 0.1
    assert latch_gap(model, pose.as_dict())[0] < CLOSURE_TOLERANCE_M


def test_limits_too_narrow_to_close_are_refused_with_the_reason(model) -> None:
    text = model.source.read_text().replace('lower="-1.5708" upper="1.5708"', 'lower="-0.6" upper="0.6"')
    narrow = parse_urdf(text, model.source)
    with pytest.raises(CurlPoseError, match='no closed loop within the joint limits'):
        solve_curl_pose(narrow, narrow.gait_joints())
