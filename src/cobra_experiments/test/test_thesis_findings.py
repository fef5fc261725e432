"""The pieces of the thesis-findings commands (tumble_compare, loop_friction,
sidewind_terrain_compare, stride_gap): each analysis on inputs with a known answer, and the
compliant-ground tumble of the thesis's wheel (engine-level, ~1 s)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from cobra_dem.scenario import default_scenario_file, load_scenario
from cobra_experiments import loop_friction, sidewind_terrain_compare as swc, tumble_compare
from cobra_experiments.stride_gap import mean_vector_stride

G = 9.8


@pytest.fixture(scope='module')
def free_wheel():
    return load_scenario(default_scenario_file(), **{'body.motion': 'free'})


def test_wheel_on_the_sims_compliant_ground_rolls_like_rigid(free_wheel) -> None:
    """The law acts at the lowest rim point, which does not move while the wheel rolls: no loss
    (measured 0.4106 vs rigid 0.4104 m in 0.6 s)."""
    from cobra_dem.rigid_reference import rigid_body_trace

    rigid = rigid_body_trace(free_wheel, 0.3, 0.01)
    compliant = tumble_compare.compliant_body_trace(free_wheel, 0.3, 0.01)
    assert compliant['position_m'][-1, 0] == pytest.approx(rigid['position_m'][-1, 0], rel=0.01)
    # rolling without slip, carried at its weight (normal part 53.7 N)
    figures = tumble_compare.terrain_figures(free_wheel, compliant)
    assert figures['rolling_share'] == pytest.approx(1.0, abs=0.02)
    assert figures['mean_normal_force_n'] == pytest.approx(6.0 * G * math.cos(math.radians(24.0)), rel=0.02)


def test_wheel_on_the_per_area_compliant_ground_rolls_as_the_foundation_law_predicts(free_wheel) -> None:
    """Over the sampled rim the ground entering the contact is damped: the wheel loses to rolling
    resistance what the closed form of a cylinder on a Kelvin–Voigt foundation says (0.6 s: 0.3416 m
    simulated, 0.3431 m closed form, rigid 0.410 m), whatever the sampling (the per-point law
    without areas went 0.371 → 0.398 m from 90 to 1440 points)."""
    distances = [float(tumble_compare.compliant_body_trace(free_wheel, 0.3, 0.01, rim_points=n)['position_m'][-1, 0])
                 for n in (90, 360)]
    assert distances[0] == pytest.approx(distances[1], rel=0.005)
    predicted = tumble_compare.foundation_prediction(free_wheel, 0.3)
    assert distances[1] == pytest.approx(predicted['distance_m'], rel=0.02)
    frictionless_rolling_m = 0.5 * G * math.sin(math.radians(24.0)) / 1.75 * 0.3 ** 2
    assert distances[1] < 0.97 * frictionless_rolling_m          # the damping costs distance


def test_terrain_figures_find_distance_speed_peak_and_lift_off(free_wheel) -> None:
    t = np.arange(0.0, 0.5, 0.01)
    normal = np.full(len(t), 50.0)
    normal[10:13] = 0.0         # 0.10-0.13 s in the air
    normal[20] = 150.0
    trace = {'time_s': t, 'position_m': np.column_stack([0.5 * 2.0 * t ** 2, 0 * t, 0 * t]),
             'velocity_m_s': np.column_stack([2.0 * t, 0 * t, 0 * t]),
             'angular_velocity_rad_s': np.column_stack([0 * t, 2.0 * t / 0.2 * 0.5, 0 * t]),
             'contact_force_n': np.column_stack([0 * t, 0 * t, normal])}
    f = tumble_compare.terrain_figures(free_wheel, trace)
    assert f['distance_m'] == pytest.approx(0.49 ** 2)
    assert f['final_speed_m_s'] == pytest.approx(0.98)
    assert f['peak_normal_force_n'] == 150.0
    # from the momentum: no velocity along the normal, so the ground carries m g cos θ in every interval
    assert f['peak_interval_mean_normal_force_n'] == pytest.approx(f['weight_normal_n'])
    assert f['lift_off_intervals_s'] == [[pytest.approx(0.10), pytest.approx(0.13)]]
    assert f['rolling_share'] == pytest.approx(0.5)


def test_sliding_friction_from_force_and_motion() -> None:
    """A block sliding on 24° with μ 0.3: a = g (sin θ − μ cos θ); both reads give 0.3; half rolling."""
    theta = math.radians(24.0)
    a = G * (math.sin(theta) - 0.3 * math.cos(theta))
    t = np.arange(0.0, 0.5, 0.01)
    fz = np.full(len(t), 6.0 * G * math.cos(theta))
    trace = {'time_s': t, 'position_m': np.column_stack([0.5 * a * t ** 2, 0 * t, 0 * t]),
             'velocity_m_s': np.column_stack([a * t, 0 * t, 0 * t]),
             'angular_velocity_rad_s': np.column_stack([0 * t, 0.5 * a * t / 0.316, 0 * t]),
             'contact_force_n': np.column_stack([-0.3 * fz, 0 * t, fz])}
    f = loop_friction.sliding_friction(trace, 24.0, 0.316)
    assert f['friction_from_force'] == pytest.approx(0.3)
    assert f['friction_early'] == pytest.approx(0.3) and f['friction_late'] == pytest.approx(0.3)
    assert f['friction_from_motion'] == pytest.approx(0.3, abs=1e-6)
    assert f['rolling_share'] == pytest.approx(0.5)
    assert not f['holds']
    still = dict(trace, position_m=0 * trace['position_m'], velocity_m_s=0 * trace['velocity_m_s'])
    assert loop_friction.sliding_friction(still, 24.0, 0.316)['holds']


def figures(gait: str, terrain: str, run: int, stride: float, share: float, peak: float) -> swc.RunFigures:
    return swc.RunFigures(gait, terrain, run, swc.START_POSES[run], 6, stride, 0.001, stride, 0.0, share, peak, 5.0)


def test_a_finding_holds_only_beyond_the_run_to_run_spread() -> None:
    runs = [figures('gait1', 'rigid', 0, 0.20, 0.40, 90.0), figures('gait1', 'rigid', 1, 0.20, 0.40, 90.0),
            figures('gait1', 'scm', 0, 0.19, 0.55, 25.0), figures('gait1', 'scm', 1, 0.16, 0.56, 24.0)]
    row = swc.summarise(runs)[0]
    # stride ratio 0.875 but the SCM runs spread by 0.03 / 0.20 = 0.15: not beyond the spread
    assert row['stride_m']['ratio_scm_to_rigid'] == pytest.approx(0.875)
    assert row['stride_m']['relative_spread'] == pytest.approx(0.15)
    assert not row['stride_m']['holds']
    assert row['contact_share']['holds'] and row['peak_force_n']['holds']


def test_body_centroid_steps_with_a_translating_straight_robot() -> None:
    """A straight robot sliding 0.2 m along y per 2.5 s cycle, joints at 0: the body centroid moves
    the same 0.2 m per cycle and does not turn."""
    from cobra_description.robot_model import load_robot_model

    names = tuple(joint.name for joint in load_robot_model(None).gait_joints())
    t = np.linspace(0.0, 10.0, 101)
    bag = SimpleNamespace(
        head=SimpleNamespace(times_s=t, position_m=np.column_stack([0 * t, 0.08 * t, 0 * t]), yaw_rad=0 * t),
        joint_states=SimpleNamespace(times_s=t, names=names, position_rad=np.zeros((len(t), len(names)))))
    poses = swc.body_poses(bag, np.array([0.0, 2.5, 5.0, 7.5]))
    np.testing.assert_allclose(np.diff(poses[:, 1]), 0.2, atol=1e-9)
    np.testing.assert_allclose(np.diff(poses[:, 2]), 0.0, atol=1e-9)


def test_stride_is_the_length_of_the_mean_step() -> None:
    assert mean_vector_stride(np.array([[0.1, 0.2], [-0.1, 0.2]])) == pytest.approx(0.2)


def test_bad_input_exits_2(tmp_path) -> None:
    assert tumble_compare.main(['--duration', '0', '--out', str(tmp_path / 'a')]) == 2
    assert tumble_compare.main(['--dem-run', str(tmp_path / 'none'), '--out', str(tmp_path / 'b')]) == 2
    assert tumble_compare.main(['--seeds', '0', '--out', str(tmp_path / 'f')]) == 2
    assert tumble_compare.main(['--seeds', '2', '--dem-run', str(tmp_path / 'g'), '--out', str(tmp_path / 'g')]) == 2
    assert not (tmp_path / 'f').exists() and not (tmp_path / 'g').exists()
    assert loop_friction.main(['--edge-height', '0', '--out', str(tmp_path / 'c')]) == 2
    assert swc.main(['--gaits', 'gait9', '--out', str(tmp_path / 'd')]) == 2
    assert loop_friction.main(['--edge-height', '0.015', '--bed-width', '0.16', '--out', str(tmp_path / 'e')]) == 2
    assert not any((tmp_path / name).exists() for name in 'abcde')


def test_seed_spread_gives_the_range_over_bed_fills_per_case() -> None:
    rows = [{'shell': 'smooth', 'motion': 'free', 'distance_m': d, 'friction_from_force': mu, 'rolling_share': r,
             'holds': d < 0.005} for d, mu, r in ((0.145, 0.40, 0.14), (0.120, 0.42, 0.20), (0.003, 0.50, 0.0))]
    rows.append({'shell': 'edges', 'motion': 'free', 'distance_m': 0.1, 'friction_from_force': 0.45,
                 'rolling_share': 0.5, 'holds': False})
    spread = {(c['shell'], c['motion']): c for c in loop_friction.seed_spread(rows)}
    smooth = spread[('smooth', 'free')]
    assert smooth['seeds'] == 3 and smooth['holds'] == 1
    assert smooth['distance_m'] == (0.003, 0.145)
    assert smooth['friction_from_force'] == (0.40, 0.50) and smooth['rolling_share'] == (0.0, 0.20)
    assert spread[('edges', 'free')]['distance_m'] == (0.1, 0.1)


def test_cause_lines_set_the_mobile_bed_against_the_same_fills_frozen() -> None:
    def row(shell: str, motion: str, seed: int, distance: float, share: float) -> dict:
        return {'shell': shell, 'motion': motion, 'bed_seed': seed, 'distance_m': distance, 'rolling_share': share,
                'rigid_distance_m': 0.114 if motion == 'prescribed' else 0.0, 'friction_from_force': 0.4,
                'holds': False}
    rows = [row('smooth', 'prescribed', 1, 0.173, 0.70), row('smooth', 'prescribed', 2, 0.25, 0.46),
            row('frozen', 'prescribed', 1, 0.118, 1.09), row('frozen', 'prescribed', 2, 0.12, 1.02),
            row('edges', 'prescribed', 1, 0.2, 0.5), row('smooth', 'free', 1, 0.145, 0.14)]
    lines = loop_friction.cause_lines(rows)
    assert len(lines) == 1          # free has no frozen run: no line
    assert lines[0] == ('cause (spin held): smooth shell ωr/v 0.46-0.70 on the mobile bed, 1.02-1.09 on the same '
                        'fills frozen; distance 0.17-0.25 m against 0.12-0.12 m frozen and 0.114 m rigid')


def test_loop_friction_refuses_no_seeds(tmp_path) -> None:
    assert loop_friction.main(['--seeds', '0', '--out', str(tmp_path / 'lf')]) == 2
    assert not (tmp_path / 'lf').exists()
