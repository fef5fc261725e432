"""The sim applies joint_commands at their stamps: ahead ones wait, past ones apply at once."""

from __future__ import annotations

from cobra_sim.lockstep import MAX_COMMAND_LEAD_S, CommandQueue


def test_a_command_computed_ahead_applies_at_its_stamp_not_on_arrival():
    queue = CommandQueue()
    queue.push(0.02, {'joint_1': 0.2}, now_s=0.01)   # the gait's command for the next boundary
    assert queue.due(0.01) == [] and queue.due(0.015) == []
    assert queue.due(0.02) == [{'joint_1': 0.2}] and len(queue) == 0


def test_commands_stamped_now_or_before_apply_at_once_in_stamp_then_arrival_order():
    queue = CommandQueue()
    queue.push(0.5, {'joint_1': 1.0}, now_s=0.5)
    queue.push(0.0, {'joint_2': 2.0}, now_s=0.5)     # e.g. 'ros2 topic pub' with a zero stamp
    queue.push(0.5, {'joint_1': 3.0}, now_s=0.5)
    assert queue.due(0.5) == [{'joint_2': 2.0}, {'joint_1': 1.0}, {'joint_1': 3.0}]


def test_a_command_stamped_far_ahead_applies_on_arrival():
    """A publisher on wall time (stamps ~1.8e9 s) against a sim at t = 3 s: not held for 57 years."""
    queue = CommandQueue()
    queue.push(1.8e9, {'joint_1': 0.4}, now_s=3.0)
    queue.push(3.0 + MAX_COMMAND_LEAD_S / 2, {'joint_1': 0.5}, now_s=3.0)
    assert queue.due(3.0) == [{'joint_1': 0.4}]
    assert queue.due(3.0 + MAX_COMMAND_LEAD_S / 2) == [{'joint_1': 0.5}]


def test_a_sim_that_stopped_stepping_keeps_only_the_newest_commands():
    queue = CommandQueue(max_pending=3)
    for k in range(10):
        queue.push(0.0, {'joint_1': float(k)}, now_s=1.0)
    assert queue.due(1.0) == [{'joint_1': 7.0}, {'joint_1': 8.0}, {'joint_1': 9.0}]
