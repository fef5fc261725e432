"""cdr.JointCommandReader reads joint_commands from CDR bytes exactly as rclpy deserializes them."""

from __future__ import annotations

import math

import pytest
from rclpy.serialization import serialize_message
from sensor_msgs.msg import JointState

from cobra_common.cdr import JointCommand, JointCommandReader


def _command(names: list[str], position: list[float], velocity: list[float] = (), effort: list[float] = (),
             frame_id: str = '') -> JointState:
    message = JointState(name=names, position=position, velocity=list(velocity), effort=list(effort))
    message.header.frame_id = frame_id
    message.header.stamp.sec, message.header.stamp.nanosec = 12, 345
    return message


@pytest.mark.parametrize('message', [
    _command([f'joint_{i}' for i in range(1, 12)], [0.1 * i for i in range(11)]),
    _command(['a', 'joint_10', 'latch'], [1.0, -2.5, math.inf], [0.5, 0.0, 1.0], [0.1, 0.2, 0.3], frame_id='odd'),
    _command(['joint_1'], [0.25], frame_id='base_link_x'),
    _command(['joint_1', 'joint_2'], [0.25], [1.0, 2.0, 3.0]),  # lengths differ: the guard judges that
    _command([], []),
])
def test_reads_the_fields_the_guard_judges_as_rclpy_deserializes_them(message: JointState) -> None:
    command = JointCommandReader().read(serialize_message(message))
    assert command is not None
    assert command.name == list(message.name)
    assert list(command.position) == list(message.position)
    assert list(command.velocity) == list(message.velocity)
    assert list(command.effort) == list(message.effort)
    assert command.stamp_ns == 12 * 1_000_000_000 + 345
    assert command == JointCommand.of(message)  # what a consumer falls back to for bytes it cannot read


def test_names_are_decoded_once_per_name_set_and_values_every_message() -> None:
    reader = JointCommandReader()
    first = reader.read(serialize_message(_command(['joint_1', 'joint_2'], [0.1, 0.2])))
    second = reader.read(serialize_message(_command(['joint_1', 'joint_2'], [0.3, -0.4], [1.0, 1.0])))
    other = reader.read(serialize_message(_command(['joint_2'], [0.5])))
    assert second.name is first.name and second.position == (0.3, -0.4) and second.velocity == (1.0, 1.0)
    assert other.name == ['joint_2'] and other.position == (0.5,)


def test_a_cut_message_is_unreadable_not_misread() -> None:
    data = serialize_message(_command(['joint_1', 'joint_2'], [0.1, 0.2], [0.0, 0.0]))
    reader = JointCommandReader()
    assert reader.read(data[:-8]) is None  # the velocity values run past the end
    assert reader.read(data[:20]) is None
