"""LTS math (the LTS paper §III): frames, twist, joint angles against the backbone curve, presets."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cobra_description.robot_model import load_robot_model
from cobra_gaits.lts import (PRESET_NAMES, BackboneCurve, BackboneCurveParams, LinearTwistParams, LtsGait,
                             LtsJointGenerator, RollingVectorParams, TSnakeGeometry, chain_points_m,
                             complete_curvatures_1_m, complete_frames, lts_preset, shape_error_m, solve_bending_rad,
                             steering,
                             twisting_sidewinding)
from cobra_gaits.sidewinding import GaitError

TSNAKE_URDF = Path(__file__).resolve().parents[3] / 'urdf' / 'tsnake.urdf'
GEOMETRY = TSnakeGeometry()
LENGTH_M = GEOMETRY.body_length_m
ARC_M = np.linspace(0.0, LENGTH_M, 2001)


def local_rates(frames: np.ndarray, arc_m: np.ndarray) -> np.ndarray:
    """Darboux vector (tau, kappa_a, kappa_b) in each frame's own basis, by central differences."""
    step = arc_m[1] - arc_m[0]
    derivative = (frames[2:] - frames[:-2]) / (2 * step)
    skew = np.swapaxes(frames[1:-1], -1, -2) @ derivative
    return np.stack([skew[:, 2, 1], skew[:, 0, 2], skew[:, 1, 0]], -1)  # about e1, e_a, e_b


@pytest.mark.parametrize('omega_t', [0.0, 0.5])
@pytest.mark.parametrize('time_s', [0.0, 1.7, 13.0])
def test_frenet_and_bellows_frames_are_orthonormal_and_bellows_has_no_torsion(omega_t, time_s):
    curve = BackboneCurve(BackboneCurveParams(temporal_frequency_rad_s=omega_t))
    sample = curve.sample(ARC_M, time_s)
    for frames in (sample.frenet_frames, sample.bellows_frames):
        np.testing.assert_allclose(np.swapaxes(frames, -1, -2) @ frames, np.broadcast_to(np.eye(3), frames.shape),
                                   atol=1e-12)
        np.testing.assert_allclose(np.linalg.det(frames), 1.0, atol=1e-12)
    # e1 is the unit tangent of the arc-length-parametrised curve (Eq. (4))
    tangent = np.gradient(sample.position_m, ARC_M, axis=0)
    np.testing.assert_allclose(np.linalg.norm(tangent[1:-1], axis=-1), 1.0, atol=2e-4)
    np.testing.assert_allclose(tangent[1:-1], sample.frenet_frames[1:-1, :, 0], atol=2e-4)
    scale = np.abs(sample.torsion_1_m).max()
    assert scale > 1.0  # the Frenet frame twists strongly, so the torsion-free check means something
    tolerance = 2e-3 * scale  # central differences on a 0.6 mm grid
    frenet = local_rates(sample.frenet_frames, ARC_M)
    np.testing.assert_allclose(frenet[:, 0], sample.torsion_1_m[1:-1], atol=tolerance)  # tau^F, Eq. (6b)
    np.testing.assert_allclose(frenet[:, 2], sample.curvature_1_m[1:-1], atol=tolerance)  # kappa_b^F = kappa^F
    np.testing.assert_allclose(frenet[:, 1], 0.0, atol=tolerance)
    bellows = local_rates(sample.bellows_frames, ARC_M)
    assert np.abs(bellows[:, 0]).max() < tolerance  # tau^B = 0, Eq. (7)
    kappa_a, kappa_b = sample.bellows_curvatures_1_m  # Eq. (8)
    np.testing.assert_allclose(bellows[:, 1], kappa_a[1:-1], atol=tolerance)
    np.testing.assert_allclose(bellows[:, 2], kappa_b[1:-1], atol=tolerance)


@pytest.mark.parametrize('time_s', [0.0, 2.0, 9.5])
def test_head_bellows_frame_points_its_dorsal_axis_up(time_s):
    """§III-C1: e_a^B(0, t) is world z projected into the normal plane, normalised."""
    sample = BackboneCurve(BackboneCurveParams(temporal_frequency_rad_s=0.5)).sample(np.array([0.0]), time_s)
    frame = sample.bellows_frames[0]
    tangent = frame[:, 0]
    expected = np.array([0.0, 0.0, 1.0]) - tangent[2] * tangent
    np.testing.assert_allclose(frame[:, 1], expected / np.linalg.norm(expected), atol=1e-12)
    assert abs(frame[2, 2]) < 1e-12  # e_b horizontal


def test_complete_frames_carry_the_linear_twist_and_its_curvatures():
    """§III-C3: C = B rolled by (a1 s + a0) t; tau^C = a1 t; kappa^C of Eq. (13)."""
    twist = LinearTwistParams(a0_rad_s=-1.0, a1_rad_m_s=1.5)
    time_s = 0.8
    sample = BackboneCurve(BackboneCurveParams()).sample(ARC_M, time_s)
    phi = twist.rolling_speed_rad_s(ARC_M) * time_s
    rates = local_rates(complete_frames(sample, phi), ARC_M)
    kappa_a, kappa_b, tau = complete_curvatures_1_m(sample, phi, twist.a1_rad_m_s * time_s)
    np.testing.assert_allclose(rates[:, 0], 1.5 * time_s, atol=2e-3)
    np.testing.assert_allclose(tau, 1.5 * time_s)
    np.testing.assert_allclose(rates[:, 1], kappa_a[1:-1], atol=3e-3)
    np.testing.assert_allclose(rates[:, 2], kappa_b[1:-1], atol=3e-3)
    # the backbone does not move: rolling about the tangent keeps e1
    np.testing.assert_allclose(complete_frames(sample, phi)[:, :, 0], sample.frenet_frames[:, :, 0], atol=1e-12)


def test_twist_joints_take_the_piecewise_constant_twist():
    gait = lts_preset('twisting')
    generator = LtsJointGenerator(gait)
    time_s = 7.3
    angles = generator.angles_rad(time_s)
    np.testing.assert_allclose(angles[:, 1], 1.5 * GEOMETRY.module_length_m * time_s)
    np.testing.assert_allclose(generator.piece_twists_rad(time_s),
                               (1.5 * np.arange(7) * GEOMETRY.module_length_m - 1.0) * time_s)
    # rolling-vector baseline: all twist sits in the buffer, i.e. in twist joints 3 and 4 (§IV-B2)
    baseline = LtsJointGenerator(lts_preset('rolling_vector')).angles_rad(time_s)[:, 1]
    np.testing.assert_allclose(baseline[[0, 1, 4, 5]], 0.0, atol=1e-12)
    np.testing.assert_allclose(baseline[2] + baseline[3], -0.8 * time_s)
    # rolling sidewinding rolls the whole body: no relative twist, every piece at a0 t
    rolling = LtsJointGenerator(lts_preset('rolling'))
    np.testing.assert_allclose(rolling.angles_rad(time_s)[:, 1], 0.0)
    np.testing.assert_allclose(rolling.piece_twists_rad(time_s), -0.8 * time_s)


@pytest.mark.parametrize('name', ['conventional', 'rolling'])
def test_joint_angles_reproduce_the_backbone_shape_without_twisting(name):
    generator = LtsJointGenerator(lts_preset(name))
    errors = [shape_error_m(generator, generator.angles_rad(t), t) for t in np.arange(0.0, 13.0, 0.29)]
    assert max(errors) < 0.012  # chord discretisation of a 1.23 m body with 6 modules
    # and a wrong angle set does not (the check can fail): flip the lateral joints
    flipped = generator.angles_rad(1.0) * np.array([1.0, 1.0, -1.0])
    assert shape_error_m(generator, flipped, 1.0) > 0.03


def test_without_twist_ours_equals_the_classic_integration():
    generator = LtsJointGenerator(lts_preset('conventional'))
    for time_s in (0.0, 3.1, 8.0):
        np.testing.assert_allclose(generator.angles_rad(time_s),
                                   generator.continuous_angles_rad(time_s, samples_per_module=64), atol=2e-4)


def test_urdf_chain_matches_the_library_kinematics():
    """urdf/tsnake.urdf: 18 gait joints in dorsal-twist-lateral order whose axes and offsets give
    the same backbone as `chain_points_m` (x = -e1, y = e_b, z = e_a)."""
    robot = load_robot_model(TSNAKE_URDF)
    joints = robot.gait_joints()
    assert [j.name for j in joints] == GEOMETRY.joint_names()
    assert [j.type for j in joints] == ['revolute', 'continuous', 'revolute'] * 6
    assert all(j.limits is not None and j.limits.effort_nm > 0 and j.limits.velocity_rad_s > 0 for j in joints)
    generator = LtsJointGenerator(lts_preset('in_place'))
    angles = generator.angles_rad(11.0)
    positions = dict(zip(GEOMETRY.joint_names(), angles.ravel()))
    points, frames = chain_points_m(angles, np.zeros(3), np.eye(3), GEOMETRY)
    link_to_curve = np.array([[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]])  # columns: x, y, z
    for module in range(1, 7):
        transform = robot.transform('base_link', f'm{module}_link', positions)
        np.testing.assert_allclose(link_to_curve @ transform[:3, 3], points[module], atol=1e-9)
        np.testing.assert_allclose(link_to_curve @ transform[:3, :3] @ link_to_curve.T, frames[module], atol=1e-9)
    assert robot.chain_length_m() == pytest.approx(LENGTH_M, abs=1e-6)


def test_conventional_and_rolling_sidewinding_are_periodic():
    conventional = LtsJointGenerator(lts_preset('conventional'))
    period_s = 2 * math.pi / 0.5
    for time_s in (0.0, 1.3, 5.0):
        np.testing.assert_allclose(conventional.angles_rad(time_s + period_s), conventional.angles_rad(time_s),
                                   atol=1e-9)
    rolling = LtsJointGenerator(lts_preset('rolling'))
    common_period_s = 2 * math.pi / 0.1  # 5 curve periods (omega_t = 0.5) = 8 roll periods (a0 = 0.8)
    bending = [0, 2]
    for time_s in (0.0, 2.2):
        np.testing.assert_allclose(rolling.angles_rad(time_s + common_period_s)[:, bending],
                                   rolling.angles_rad(time_s)[:, bending], atol=1e-8)
    assert not np.allclose(rolling.angles_rad(2.2 + period_s)[:, bending], rolling.angles_rad(2.2)[:, bending],
                           atol=1e-3)  # the roll is part of the period


def test_head_anchored_steering_is_periodic_in_its_bending_joints():
    """a0 = 0: every piece rolls at a multiple of a1 L0, so the bending joints repeat after 2 pi / |a1 L0|."""
    generator = LtsJointGenerator(steering('head_anchored'))
    period_s = 2 * math.pi / abs(generator.gait.twist.a1_rad_m_s * GEOMETRY.module_length_m)
    for time_s in (0.4, 17.0):
        np.testing.assert_allclose(generator.angles_rad(time_s + period_s)[:, [0, 2]],
                                   generator.angles_rad(time_s)[:, [0, 2]], atol=1e-8)


def test_twisting_sidewinding_200_s_ours_stays_bounded_and_periodic_the_continuous_method_drifts():
    """§IV-A / Fig. 6: omega_t = 0, a1 = 1.5 rad/(m s), a0 = -1 rad/s for 200 s at dt = 0.02 s."""
    generator = LtsJointGenerator(lts_preset('twisting'))
    times, ours = generator.trajectory_rad(200.0)
    _, existing = generator.trajectory_rad(200.0, continuous=True)
    assert len(times) == 10001 and times[-1] == pytest.approx(200.0)
    np.testing.assert_allclose(ours[0], existing[0], atol=5e-3)  # both start from the same shape
    lateral_ours, lateral_existing = ours[:, :, 2], existing[:, :, 2]
    assert np.abs(ours[:, :, [0, 2]]).max() < math.pi / 2  # inside the URDF's bending range
    first, last = slice(0, 2000), slice(-2000, None)  # first and last 40 s
    amplitude_ours = np.abs(lateral_ours[first]).max(0), np.abs(lateral_ours[last]).max(0)
    amplitude_existing = np.abs(lateral_existing[first]).max(), np.abs(lateral_existing[last]).max()
    np.testing.assert_allclose(amplitude_ours[1], amplitude_ours[0], rtol=0.1)  # same envelope: no drift
    assert amplitude_existing[1] < 0.3 * amplitude_existing[0]  # the existing method collapses
    # the shape: ours stays within a few cm of the curve at the end; the existing method does not
    ticks = range(len(times) - 2500, len(times), 25)
    error_ours = np.median([shape_error_m(generator, ours[k], times[k]) for k in ticks])
    error_existing = np.median([shape_error_m(generator, existing[k], times[k]) for k in ticks])
    assert error_ours < 0.02
    assert error_existing > 3 * error_ours


@pytest.mark.parametrize('name,turning_centre_m', [
    ('twisting', 1.0 / 1.5), ('in_place', LENGTH_M / 2), ('in_place_load', LENGTH_M / 2),
    ('tail_anchored', LENGTH_M), ('head_anchored', 0.0)])
def test_turning_centre_is_where_the_body_does_not_roll(name, turning_centre_m):
    gait = lts_preset(name)
    assert gait.twist.turning_centre_m == pytest.approx(turning_centre_m, abs=1e-12)
    assert float(gait.twist.rolling_speed_rad_s(np.array([turning_centre_m]))[0]) == pytest.approx(0.0, abs=1e-12)
    assert gait.twist.kind == 'twisting'


def test_steering_modes_use_the_papers_coefficients():
    """§IV-C2: tail-anchored a0 = 0.4, a1 = -a0/L; in-place a0 = -0.4, a1 = -2 a0/L; head-anchored a0 = 0, a1 = -0.8/L."""
    expected = {'tail_anchored': (0.4, -0.4 / LENGTH_M), 'in_place': (-0.4, 0.8 / LENGTH_M),
                'head_anchored': (0.0, -0.8 / LENGTH_M)}
    for mode, (a0, a1) in expected.items():
        twist = steering(mode).twist
        assert (twist.a0_rad_s, twist.a1_rad_m_s) == pytest.approx((a0, a1))
    assert lts_preset('conventional').twist.kind == 'conventional'
    assert lts_preset('rolling').twist.kind == 'rolling'
    assert lts_preset('rolling').curve.temporal_frequency_rad_s == 0.5


@pytest.mark.parametrize('make,words', [
    (lambda: LtsJointGenerator(LtsGait(BackboneCurveParams(vertical_amplitude_m=0.0))), 'k_a'),
    (lambda: LtsJointGenerator(LtsGait(BackboneCurveParams(horizontal_amplitude_m=0.0))), 'k_b'),
    (lambda: LtsJointGenerator(LtsGait(BackboneCurveParams(pitch_m_per_rad=-0.1))), 'k_theta'),
    (lambda: LtsJointGenerator(LtsGait(BackboneCurveParams(temporal_frequency_rad_s=math.nan))), 'finite'),
    (lambda: LtsJointGenerator(LtsGait(geometry=TSnakeGeometry(module_count=0))), 'module_count'),
    (lambda: LtsJointGenerator(LtsGait(geometry=TSnakeGeometry(module_length_m=0.0))), 'module_length_m'),
    (lambda: LtsJointGenerator(LtsGait(time_step_s=0.0)), 'time_step_s'),
    (lambda: LtsJointGenerator(LtsGait(twist=LinearTwistParams(math.inf, 0.0))), 'finite'),
    (lambda: LtsJointGenerator(LtsGait(twist=RollingVectorParams(buffer_start_m=0.9, buffer_end_m=0.5))),
     'buffer'),
    (lambda: twisting_sidewinding(1.5, LENGTH_M + 0.1), 'outside the body'),
    (lambda: twisting_sidewinding(1.5, -0.2), 'outside the body'),
    (lambda: twisting_sidewinding(0.0, 0.5), 'a1_rad_m_s'),
    (lambda: lts_preset('moonwalk'), 'unknown LTS preset'),
    (lambda: steering('sideways'), 'unknown steering mode'),
    (lambda: LtsJointGenerator(lts_preset('twisting')).trajectory_rad(-1.0), 'duration_s'),
])
def test_bad_input_is_refused_with_a_clear_message(make, words):
    with pytest.raises(GaitError, match=words):
        make()


def test_every_preset_builds_and_names_its_joints():
    for name in PRESET_NAMES:
        generator = LtsJointGenerator(lts_preset(name))
        assert generator.positions_rad(1.0).shape == (18,)
        assert generator.joint_names[:3] == ['m1_dorsal', 'm1_twist', 'm1_lateral']


def test_bending_solve_is_exact_away_from_the_twist_singularity_and_bounded_at_it():
    """Dorsal axis e_b(before), lateral axis e_a(after): exact while they are not parallel; at a
    twist of pi/2 (parallel axes) the reachable part is kept, split evenly, and nothing blows up."""
    bending = np.array([0.3, -0.2])  # (a, b) to realise
    before = 0.7
    for relative in np.linspace(-2 * math.pi, 2 * math.pi, 4001):
        after = before + relative
        dorsal, lateral = solve_bending_rad(np.array(bending[0]), np.array(bending[1]), np.array(before),
                                            np.array(after))
        axis_dorsal = np.array([-math.sin(before), math.cos(before)])
        axis_lateral = np.array([math.cos(after), math.sin(after)])
        realised = dorsal * axis_dorsal + lateral * axis_lateral
        assert math.hypot(dorsal, lateral) < 2.0 * np.linalg.norm(bending)
        if 1.0 - abs(math.sin(relative)) > 0.3 ** 2:
            np.testing.assert_allclose(realised, bending, atol=1e-12)
    dorsal, lateral = solve_bending_rad(np.array(bending[0]), np.array(bending[1]), np.array(before),
                                        np.array(before + math.pi / 2))
    reachable = bending @ np.array([-math.sin(before), math.cos(before)])
    assert dorsal == pytest.approx(reachable / 2) and lateral == pytest.approx(reachable / 2)


@pytest.mark.parametrize('name', PRESET_NAMES)
def test_every_preset_stays_inside_the_urdf_limits(name):
    """Through the twist singularity too: bending inside +-pi/2 and every joint slower than its
    servo's velocity limit (read from urdf/tsnake.urdf) at the paper's 0.02 s command step."""
    robot = load_robot_model(TSNAKE_URDF)
    velocity_limit = np.array([j.limits.velocity_rad_s for j in robot.gait_joints()]).reshape(6, 3)
    upper = np.array([j.limits.upper_rad for j in robot.gait_joints()]).reshape(6, 3)[:, [0, 2]]
    generator = LtsJointGenerator(lts_preset(name))
    _, angles = generator.trajectory_rad(60.0)
    assert np.all(np.abs(angles[:, :, [0, 2]]) < upper)
    speed = np.abs(np.diff(angles, axis=0)) / generator.gait.time_step_s
    assert np.all(speed < velocity_limit)
