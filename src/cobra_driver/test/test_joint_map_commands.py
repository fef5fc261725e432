"""Unit conversion, command safety rules and deadline scheduling (plain unit tests)."""

import math

import numpy as np
import pytest

from cobra_description.robot_model import Joint, JointLimits, Pose

from cobra_driver import control_table as ct
from cobra_driver.commands import CommandTracker
from cobra_driver.joint_map import JointServo
from cobra_driver.loop_timing import DeadlineScheduler


def joint(offset: float = 0.0, direction: int = 1) -> JointServo:
    return JointServo('joint_1', 1, ct.XH540_W270, offset, direction, -1.5708, 1.5708)


@pytest.mark.parametrize('offset,direction', [(0.0, 1), (0.3, 1), (-0.2, -1)])
def test_position_round_trip_within_one_tick(offset: float, direction: int) -> None:
    servo = joint(offset, direction)
    for angle in np.linspace(-1.5, 1.5, 13):
        assert abs(servo.rad_from_ticks(servo.ticks_from_rad(angle)) - angle) <= math.pi / 4096


def test_centre_tick_is_zero_and_direction_flips() -> None:
    assert joint().ticks_from_rad(0.0) == 2048
    assert joint().ticks_from_rad(math.pi / 2) == 3072
    assert joint(direction=-1).ticks_from_rad(math.pi / 2) == 1024
    assert joint(offset=0.5).rad_from_ticks(2048 + round(0.5 / (2 * math.pi / 4096))) == pytest.approx(0.0, abs=1e-3)


def test_velocity_and_effort_units() -> None:
    servo = joint(direction=-1)
    assert servo.rad_s_from_raw(100) == pytest.approx(-100 * 0.229 * 2 * math.pi / 60)
    # 1000 raw = 2.69 A on the XH540; 10.6 N·m / 4.4 A data-sheet torque constant
    assert servo.effort_nm_from_raw(1000) == pytest.approx(-2.69 * 10.6 / 4.4)


def test_limits_outside_the_turn_are_rejected() -> None:
    with pytest.raises(ValueError, match='outside the servo turn'):
        JointServo('joint_1', 1, ct.XH540_W270, 3.0, 1, -1.5708, 1.5708)


def urdf_joint(name: str) -> Joint:
    return Joint(name, 'revolute', 'parent', 'child', Pose(), (0.0, 0.0, 1.0), JointLimits(-1.0, 1.0, 1.0, 1.0))


def tracker(**kwargs) -> CommandTracker:
    t = CommandTracker([urdf_joint('a'), urdf_joint('b')], **kwargs)
    t.hold(np.array([0.1, 0.2]))
    return t


def test_unknown_name_and_non_finite_are_ignored_and_counted() -> None:
    t = tracker()
    assert t.submit(['a', 'zz'], [0.5, 0.5], [], 0.0).cause == 'unknown_joint'
    assert t.submit(['a'], [math.nan], [], 0.0).cause == 'non_finite'
    assert t.submit(['a'], [0.5], [math.inf], 0.0).cause == 'non_finite'
    assert t.submit(['a', 'b'], [0.5], [], 0.0).cause == 'length_mismatch'
    assert t.rejected == {'unknown_joint': 1, 'non_finite': 2, 'length_mismatch': 1}
    assert np.allclose(t.target(0.01), [0.1, 0.2])


def test_whole_messages_get_the_guards_verdicts_and_only_accepted_ones_are_heartbeats() -> None:
    from types import SimpleNamespace

    def message(names, positions, velocities=(), efforts=()):  # type: ignore[no-untyped-def]
        return SimpleNamespace(name=list(names), position=list(positions), velocity=list(velocities),
                               effort=list(efforts))
    t = tracker(timeout_s=0.2)
    assert t.submit_message(message(['a'], [0.5]), 0.0) is None
    assert t.submit_message(message([], []), 0.15).cause == 'empty'
    assert t.submit_message(message(['a', 'a'], [0.5, 0.6]), 0.16).cause == 'duplicate_joint'
    assert t.submit_message(message(['a'], [0.5], [math.nan]), 0.17).cause == 'non_finite'
    assert t.submit_message(message(['a'], [0.5], [], [math.inf]), 0.18).cause == 'non_finite'
    assert t.is_stale(0.25)  # none of the rejected ones counted as a heartbeat


def test_clamp_to_limits_and_partial_commands_keep_other_joints() -> None:
    t = tracker(mode='hold')
    assert t.submit(['a'], [5.0], [], 0.0) is None
    assert np.allclose(t.target(0.01), [1.0, 0.2])


def test_stale_command_holds_last_target() -> None:
    t = tracker(mode='hold', timeout_s=0.2)
    t.submit(['a', 'b'], [0.5, -0.5], [0.0, 0.0], 0.0)
    assert np.allclose(t.target(0.1), [0.5, -0.5])
    assert t.is_stale(0.3)
    assert np.allclose(t.target(0.3), [0.5, -0.5])


def test_stale_velocity_command_does_not_keep_moving() -> None:
    t = tracker(timeout_s=0.2, max_interval_s=0.05)
    t.submit(['a', 'b'], [0.0, 0.0], [1.0, 1.0], 0.0)
    moving = t.target(0.01)
    assert np.allclose(moving, [0.01, 0.01])
    held = t.target(0.5)
    assert np.allclose(held, moving)


def test_interpolation_between_arrivals() -> None:
    t = tracker(mode='interpolate')
    t.submit(['a', 'b'], [0.0, 0.0], [], 0.0)
    t.submit(['a', 'b'], [0.4, 0.0], [], 0.01)
    assert t.target(0.015)[0] == pytest.approx(0.2)
    assert t.target(0.02)[0] == pytest.approx(0.4)
    assert t.target(0.03)[0] == pytest.approx(0.4)


def test_scheduler_keeps_absolute_deadlines_and_counts_skips() -> None:
    now = [0.0]

    def clock() -> float:
        now[0] += 1e-6  # reading the clock takes time, so the final spin ends
        return now[0]

    def sleep(seconds: float) -> None:
        now[0] += seconds + 0.0001  # sleep overshoots

    scheduler = DeadlineScheduler(0.002, clock=clock, sleep=sleep)
    wakes = [scheduler.wait() for _ in range(100)]
    assert wakes[-1] == pytest.approx(0.2, abs=0.0005)  # no drift after 100 periods
    now[0] += 0.0101  # a cycle overran by five periods
    scheduler.wait()
    assert scheduler.missed_deadlines == 4
