"""JointCommandGuard: the joint_commands safety rules (reject, clamp, staleness)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pytest

from cobra_common.command_guard import JointCommandGuard
from cobra_description.robot_model import Joint, JointLimits, Pose


def _joint(name: str, lower: float = -1.0, upper: float = 1.0) -> Joint:
    return Joint(name, 'revolute', 'p', name + '_link', Pose(), (0.0, 0.0, 1.0),
                 JointLimits(lower, upper, 10.0, 5.0))


@pytest.fixture
def guard() -> JointCommandGuard:
    return JointCommandGuard([_joint('a'), _joint('b', -0.5, 2.0)], timeout_s=0.2)


def test_accepts_positions_within_limits_unchanged(guard):
    verdict = guard.check(['a', 'b'], [0.25, -0.5], now_s=1.0)
    assert verdict.positions_rad == {'a': 0.25, 'b': -0.5}
    assert verdict.cause is None
    assert guard.clamped == 0
    assert not guard.rejections


def test_accepts_a_subset_of_joints(guard):
    assert guard.check(['b'], [1.5], now_s=0.0).positions_rad == {'b': 1.5}


def test_clamps_to_limits_and_counts_each_clamped_joint(guard):
    verdict = guard.check(['a', 'b'], [3.0, -1.0], now_s=0.0)
    assert verdict.positions_rad == {'a': 1.0, 'b': -0.5}
    assert guard.clamped == 2
    guard.check(['a'], [-7.0], now_s=0.1)
    assert guard.clamped == 3


@pytest.mark.parametrize('names, positions, cause', [
    (['a', 'x'], [0.0, 0.0], 'unknown_joint'),
    (['a'], [math.nan], 'non_finite'),
    (['a', 'b'], [0.0, math.inf], 'non_finite'),
    (['b'], [-math.inf], 'non_finite'),
    (['a', 'b'], [0.0], 'length_mismatch'),
    (['a'], [0.0, 1.0], 'length_mismatch'),
])
def test_rejects_whole_message_with_cause(guard, names, positions, cause):
    verdict = guard.check(names, positions, now_s=0.0)
    assert verdict.positions_rad is None
    assert verdict.cause == cause
    assert verdict.detail
    assert guard.rejections == {cause: 1}
    assert guard.clamped == 0


def test_rejection_detail_names_the_offending_joint(guard):
    assert "'x'" in guard.check(['a', 'x'], [0.0, 0.0], now_s=0.0).detail
    assert "'b'" in guard.check(['a', 'b'], [0.0, math.nan], now_s=0.0).detail
    assert '2 names but 1 positions' in guard.check(['a', 'b'], [0.0], now_s=0.0).detail


def test_rejections_are_counted_per_cause(guard):
    guard.check(['x'], [0.0], now_s=0.0)
    guard.check(['x'], [0.0], now_s=0.0)
    guard.check(['a'], [math.nan], now_s=0.0)
    assert guard.rejections == {'unknown_joint': 2, 'non_finite': 1}


def test_stale_before_the_first_command(guard):
    assert guard.is_stale(0.0)
    assert guard.is_stale(100.0)


def test_rejected_command_does_not_mark_fresh(guard):
    guard.check(['a'], [math.nan], now_s=1.0)
    guard.check(['x'], [0.0], now_s=1.0)
    assert guard.is_stale(1.0)


def test_fresh_within_timeout_stale_after(guard):
    guard.check(['a'], [0.0], now_s=1.0)
    assert not guard.is_stale(1.0)
    assert not guard.is_stale(1.2)
    assert guard.is_stale(1.21)


def test_rejection_after_accept_does_not_extend_freshness(guard):
    guard.check(['a'], [0.0], now_s=1.0)
    guard.check(['a'], [math.inf], now_s=1.15)
    assert guard.is_stale(1.25)


def test_clamped_command_marks_fresh(guard):
    guard.check(['a'], [9.0], now_s=2.0)
    assert not guard.is_stale(2.1)


def test_velocity_feed_forward_is_checked_and_passed_on(guard):
    accepted = guard.check(['a', 'b'], [0.1, 0.2], 0.0, velocities=[0.5, -0.5])
    assert accepted.velocities_rad_s == {'a': 0.5, 'b': -0.5}
    assert guard.check(['a'], [0.1], 0.0).velocities_rad_s is None
    assert guard.check(['a'], [0.1], 0.0, velocities=[float('nan')]).cause == 'non_finite'
    assert guard.check(['a', 'b'], [0.1, 0.2], 0.0, velocities=[0.5]).cause == 'length_mismatch'


@dataclass
class _Message:
    """The JointState fields the guard reads (sensor_msgs/JointState has the same names)."""
    name: list[str]
    position: list[float]
    velocity: list[float] = field(default_factory=list)
    effort: list[float] = field(default_factory=list)


@pytest.mark.parametrize('message, cause', [
    (_Message([], []), 'empty'),
    (_Message([], [0.5]), 'empty'),
    (_Message(['a', 'a'], [0.1, 0.2]), 'duplicate_joint'),
    (_Message(['a', 'b', 'a'], [0.1, 0.2, 0.1]), 'duplicate_joint'),
    (_Message(['a'], [0.1], [math.nan]), 'non_finite'),
    (_Message(['a', 'b'], [0.1, 0.2], [0.0, math.inf]), 'non_finite'),
    (_Message(['a'], [0.1], [], [-math.inf]), 'non_finite'),
    (_Message(['a'], [0.1], [], [1.0, 2.0]), 'length_mismatch'),
])
def test_whole_message_is_rejected_with_cause(guard, message, cause):
    verdict = guard.check_message(message, now_s=0.0)
    assert verdict.positions_rad is None
    assert verdict.cause == cause
    assert guard.rejections == {cause: 1}


def test_empty_command_is_not_a_heartbeat(guard):
    guard.check(['a'], [0.0], now_s=1.0)
    assert guard.check([], [], now_s=1.15).cause == 'empty'
    assert guard.is_stale(1.25)  # only the command at 1.0 counted


def test_duplicate_detail_names_the_joint(guard):
    detail = guard.check(['a', 'b', 'a'], [0.0, 0.0, 0.0], now_s=0.0).detail
    assert "['a']" in detail and 'more than once' in detail


def test_message_with_finite_feed_forward_and_effort_is_accepted(guard):
    verdict = guard.check_message(_Message(['a', 'b'], [0.1, 0.2], [0.5, -0.5], [0.0, 1.0]), now_s=0.0)
    assert verdict.positions_rad == {'a': 0.1, 'b': 0.2}
    assert verdict.velocities_rad_s == {'a': 0.5, 'b': -0.5}
    assert not guard.is_stale(0.0)


def test_a_real_joint_state_is_judged_whole(guard):
    """check_message reads every field of sensor_msgs/JointState: a NaN feed-forward is refused."""
    from sensor_msgs.msg import JointState
    message = JointState(name=['a', 'b'], position=[0.1, 0.2], velocity=[math.nan, 0.0])
    assert guard.check_message(message, now_s=0.0).cause == 'non_finite'
    message.velocity = [0.3, 0.0]
    assert guard.check_message(message, now_s=0.0).velocities_rad_s == {'a': 0.3, 'b': 0.0}


def test_a_name_tuple_judged_once_still_gets_every_value_checked(guard):
    """The names of a tuple found known and unique are not judged again (a command reader hands out
    one tuple per name set); lengths, values and limits still are, and other names still fail."""
    names = ('a', 'b')
    assert guard.check(names, [0.1, 0.2], 0.0).positions_rad == {'a': 0.1, 'b': 0.2}
    assert guard.check(names, [0.3, math.nan], 0.01).cause == 'non_finite'
    assert guard.check(names, [0.3], 0.02).cause == 'length_mismatch'
    assert guard.check(names, [0.3, 99.0], 0.03).positions_rad['b'] == 2.0  # clamped
    assert guard.check(('a', 'nope'), [0.1, 0.2], 0.04).cause == 'unknown_joint'
    assert guard.check(('a', 'a'), [0.1, 0.2], 0.05).cause == 'duplicate_joint'
    assert guard.check(names, [0.5, 0.6], 0.06).positions_rad == {'a': 0.5, 'b': 0.6}
