"""gait:=cmd_vel core (cobra_gaits.cmd_vel): the twist guard, COBRA's conical-sidewinding mapping,
the T-Snake's LTS mapping, staleness, start/stop and the servo speed limit (no ROS, no sim)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from cobra_description.robot_model import default_urdf_path, load_robot_model
from cobra_gaits.cmd_vel import (CmdVelSettings, CmdVelSource, ConicalSidewinding, TSnakeCmdVel, Twist2D,
                                 TwistGuard, TwistLimits, make_cmd_vel_source)
from cobra_gaits.sidewinding import GaitError, SidewindingParams

GAIT1 = SidewindingParams(0.0, 0.35, 0.70, 'left', ramp_duration_s=2.0)
DT = 0.01


@pytest.fixture(scope='module')
def cobra_joints():
    return load_robot_model(default_urdf_path()).gait_joints()


@pytest.fixture(scope='module')
def tsnake_joints():
    return load_robot_model(default_urdf_path('tsnake')).gait_joints()


def twist(lateral: float = 0.0, angular: float = 0.0) -> tuple[tuple[float, ...], tuple[float, ...]]:
    return (0.0, lateral, 0.0), (0.0, 0.0, angular)


def play(source: CmdVelSource, seconds: float, lateral: float | None = None, angular: float = 0.0) -> np.ndarray:
    """Advance at 100 Hz, re-sending the twist each tick (None: send nothing); the positions."""
    rows = []
    for _ in range(round(seconds / DT)):
        if lateral is not None:
            source.on_twist(*twist(lateral, angular))
        source.advance(DT)
        rows.append(source.positions())
    return np.array(rows)


# --- guard ------------------------------------------------------------------------------------

def test_guard_rejects_non_finite_and_counts_it():
    guard = TwistGuard(TwistLimits(0.1, 0.1))
    verdict = guard.check((0.0, math.nan, 0.0), (0.0, 0.0, 0.0))
    assert verdict.command is None and verdict.cause == 'non_finite' and 'linear.y' in verdict.detail
    assert guard.check((math.inf, 0.0, 0.0), (0.0, 0.0, 0.0)).command is None
    assert guard.rejections['non_finite'] == 2


def test_guard_clamps_beyond_the_limits_and_counts_unused_axes():
    guard = TwistGuard(TwistLimits(0.1, 0.05))
    verdict = guard.check((0.3, -0.5, 0.0), (0.0, 0.0, 0.2))
    assert verdict.command == Twist2D(-0.1, 0.05)
    assert verdict.clamped == ('linear.y', 'angular.z') and 'clamped' in verdict.detail
    assert verdict.unused == ('linear.x',)
    assert guard.clamped == 1 and guard.unused == 1
    assert guard.check((0.0, 0.05, 0.0), (0.0, 0.0, -0.01)).clamped == ()


# --- COBRA --------------------------------------------------------------------------------------

def test_lateral_speed_sets_frequency_and_direction(cobra_joints):
    robot = ConicalSidewinding(cobra_joints, GAIT1, CmdVelSettings())
    assert robot.plan(Twist2D(0.08, 0.0)) == pytest.approx((0.08 / 0.2, 'left', 0.0))
    frequency, direction, taper = robot.plan(Twist2D(-0.04, 0.0))
    assert (frequency, direction, taper) == pytest.approx((0.2, 'right', 0.0))


def test_turn_sets_a_taper_whose_predicted_turn_per_cycle_is_the_command(cobra_joints):
    settings = CmdVelSettings()
    robot = ConicalSidewinding(cobra_joints, GAIT1, settings)
    for lateral, direction in ((0.08, 'left'), (-0.08, 'right')):
        frequency, _, taper = robot.plan(Twist2D(lateral, 0.05))
        slope = robot.turn_rad_per_cycle_per_taper(direction)
        assert taper * slope * frequency == pytest.approx(0.05)  # yaw rate = turn per cycle x f
        assert abs(taper) <= settings.max_taper


def test_a_pure_turn_raises_the_frequency_to_what_the_taper_needs(cobra_joints):
    settings = CmdVelSettings()
    robot = ConicalSidewinding(cobra_joints, GAIT1, settings)
    frequency, direction, taper = robot.plan(Twist2D(0.0, 0.06))
    assert taper == pytest.approx(-settings.max_taper)  # left: negative taper turns counter-clockwise
    assert frequency == pytest.approx(0.06 / (settings.max_taper * abs(settings.turn_left_rad_per_cycle_per_taper)))
    assert direction == 'left'


def test_the_servo_limit_caps_the_frequency_and_the_twist_limits(cobra_joints):
    slow = [replace(j, limits=replace(j.limits, velocity_rad_s=2.5)) for j in cobra_joints]
    robot = ConicalSidewinding(slow, GAIT1, CmdVelSettings())
    assert 0.0 < robot.max_frequency_hz < 0.5
    assert robot.limits.max_lateral_m_s == pytest.approx(robot.max_frequency_hz * 0.2)
    with pytest.raises(GaitError, match='URDF range'):
        ConicalSidewinding(cobra_joints, replace(GAIT1, amplitude_horizontal_rad=1.2), CmdVelSettings())


def test_commanded_joint_speeds_stay_within_the_urdf_limit_through_any_twists(cobra_joints):
    """Full speed both ways, hard turns and stops, also with a 2x slower servo (lower max frequency)."""
    for scale in (1.0, 0.5):
        joints = [replace(j, limits=replace(j.limits, velocity_rad_s=j.limits.velocity_rad_s * scale))
                  for j in cobra_joints]
        source = CmdVelSource(joints, GAIT1, CmdVelSettings())
        source.ramp.start()
        limit = source.robot.limits
        rows = [play(source, 3.0, limit.max_lateral_m_s, limit.max_angular_rad_s),
                play(source, 3.0, -limit.max_lateral_m_s, -limit.max_angular_rad_s),
                play(source, 3.0, 0.0, limit.max_angular_rad_s), play(source, 3.0, None),
                play(source, 3.0, 1.0, -1.0)]
        speeds = np.abs(np.diff(np.concatenate(rows), axis=0)) / DT
        assert speeds.max() <= joints[0].limits.velocity_rad_s
        assert speeds.max() > 0.5 * joints[0].limits.velocity_rad_s  # the check is near the limit, not idle


def test_zero_twist_and_stale_cmd_vel_ramp_down_to_straight(cobra_joints):
    source = CmdVelSource(cobra_joints, GAIT1, CmdVelSettings(timeout_s=0.5))
    source.ramp.start()
    moving = play(source, 3.0, 0.08)
    assert np.abs(moving[-1]).max() > 0.2
    silent = play(source, 0.45, None)  # within the timeout: still following the last twist
    assert source.stale is False and source.robot.ramp.running
    silent = play(source, 3.0, None)
    assert source.stale is True
    assert np.abs(silent[-1]).max() == 0.0  # ramp 2 s after the 0.5 s timeout: straight
    play(source, 3.0, 0.08)
    zero = play(source, 2.5, 0.0, 0.0)
    assert np.abs(zero[-1]).max() == 0.0


def test_gait_stop_holds_straight_whatever_arrives_until_gait_start(cobra_joints):
    source = CmdVelSource(cobra_joints, GAIT1, CmdVelSettings())
    assert np.abs(play(source, 1.0, 0.08)).max() == 0.0  # not started: nothing moves
    source.ramp.start()
    assert np.abs(play(source, 2.0, 0.08)[-1]).max() > 0.1
    source.ramp.stop()
    assert np.abs(play(source, 2.5, 0.08)[-1]).max() == 0.0
    source.ramp.start()
    assert np.abs(play(source, 2.0, 0.08)[-1]).max() > 0.1


def test_bad_twists_change_nothing(cobra_joints):
    def run(bad: bool) -> np.ndarray:
        source = CmdVelSource(cobra_joints, GAIT1, CmdVelSettings())
        source.ramp.start()
        rows = []
        for tick in range(400):
            if tick % 10 == 0:
                source.on_twist(*twist(0.06, 0.03))
            if bad and tick % 10 == 5:
                assert source.on_twist((0.0, math.nan, 0.0), (0.0, 0.0, 0.0)).command is None
                assert source.on_twist((0.0, 0.05, 0.0), (0.0, 0.0, math.inf)).command is None
            source.advance(DT)
            rows.append(source.positions())
        assert source.guard.rejections['non_finite'] == (80 if bad else 0)
        return np.array(rows)
    np.testing.assert_array_equal(run(True), run(False))


def test_small_twists_within_the_dead_band_count_as_zero(cobra_joints):
    source = CmdVelSource(cobra_joints, GAIT1, CmdVelSettings())
    source.ramp.start()
    assert np.abs(play(source, 3.0, 0.001, 0.001)).max() == 0.0


def test_settings_refuse_bad_values():
    with pytest.raises(GaitError, match='max_taper'):
        CmdVelSettings(max_taper=1.0).validated()
    with pytest.raises(GaitError, match='timeout_s'):
        CmdVelSettings(timeout_s=0.0).validated()
    with pytest.raises(GaitError, match='tsnake_steering'):
        CmdVelSettings(tsnake_steering='sideways').validated()


# --- T-Snake ------------------------------------------------------------------------------------

def test_tsnake_lateral_speed_and_turn_map_to_omega_t_and_twist_scale(tsnake_joints):
    settings = CmdVelSettings()
    robot = TSnakeCmdVel(tsnake_joints, 2.0, settings)
    robot.set_target(Twist2D(0.03, 0.04))
    assert robot.target_omega_t_rad_s == pytest.approx(-0.03 / settings.tsnake_stride_m_per_rad)
    assert robot._target[1] == pytest.approx(0.04 / settings.tsnake_turn_gain())
    robot.set_target(Twist2D(1.0, 1.0))  # beyond: the largest
    assert abs(robot.target_omega_t_rad_s) == settings.tsnake_max_omega_t_rad_s
    assert abs(robot._target[1]) == settings.tsnake_max_twist_scale


def test_tsnake_commands_are_continuous_within_the_servo_limit_and_stop_at_whole_turns(tsnake_joints):
    source = CmdVelSource(tsnake_joints, GAIT1, CmdVelSettings())
    source.ramp.start()
    limit = source.robot.limits
    rows = np.concatenate([play(source, 4.0, limit.max_lateral_m_s, limit.max_angular_rad_s),
                           play(source, 4.0, -limit.max_lateral_m_s, -limit.max_angular_rad_s),
                           play(source, 4.0, None)])
    speeds = np.abs(np.diff(rows, axis=0)) / DT
    assert speeds.max() <= 4.8  # the T-Snake URDF's velocity limit
    twist_columns = [i for i, j in enumerate(tsnake_joints) if j.name.endswith('_twist')]
    final = rows[-1]
    assert np.allclose(np.delete(final, twist_columns), 0.0)
    assert np.allclose(np.mod(final[twist_columns] + 1e-9, 2 * math.pi), 0.0, atol=1e-6)


def test_tsnake_speed_check_refuses_a_steering_scale_beyond_the_servos(tsnake_joints):
    with pytest.raises(GaitError, match='too fast'):
        TSnakeCmdVel(tsnake_joints, 2.0, CmdVelSettings(tsnake_steering='head_anchored', tsnake_max_twist_scale=6.0))


# --- from the node's values --------------------------------------------------------------------

def test_make_cmd_vel_source_builds_from_declared_values(cobra_joints, tsnake_joints):
    values = {'amplitude_vertical_rad': 0.35, 'amplitude_horizontal_rad': 0.7, 'direction': 'left',
              'ramp_duration_s': 2.0, 'amplitude_slew_rad_s': 0.5,
              'cmd_vel': {**vars(CmdVelSettings()), 'sidewinding_preset': 'gait1'}}
    names, source = make_cmd_vel_source(values, cobra_joints)
    assert names == [j.name for j in cobra_joints] and isinstance(source.robot, ConicalSidewinding)
    names, source = make_cmd_vel_source(values, tsnake_joints)
    assert names[:3] == ['m1_dorsal', 'm1_twist', 'm1_lateral'] and isinstance(source.robot, TSnakeCmdVel)
    with pytest.raises(GaitError, match='max_taper'):
        make_cmd_vel_source({**values, 'cmd_vel': {**values['cmd_vel'], 'max_taper': 1.5}}, cobra_joints)
