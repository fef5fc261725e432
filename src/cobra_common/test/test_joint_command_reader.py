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
    assert command.name == tuple(message.name)
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
    assert other.name == ('joint_2',) and other.position == (0.5,)


def test_a_cut_message_is_unreadable_not_misread() -> None:
    data = serialize_message(_command(['joint_1', 'joint_2'], [0.1, 0.2], [0.0, 0.0]))
    reader = JointCommandReader()
    assert reader.read(data[:-8]) is None  # the velocity values run past the end
    assert reader.read(data[:20]) is None


def test_a_repeated_name_set_is_known_by_its_bytes_and_anything_else_is_decoded_again() -> None:
    """The fast path (the last message's frame_id and names, padding included, compared as bytes)
    never mistakes a message for the last one: other names, another frame_id, other padding bytes."""
    from cobra_common.cdr import RawJointState
    reader = JointCommandReader()

    def raw(names: list[str], positions: list[float], frame_id: str = '') -> bytes:
        message = RawJointState(names, frame_id, positions_only=True)
        message.position[:] = positions
        return message.to_bytes()

    first = reader.read(raw(['joint_1', 'joint_2'], [0.1, 0.2]))
    again = reader.read(raw(['joint_1', 'joint_2'], [0.3, 0.4]))
    assert again.name is first.name and again.position == (0.3, 0.4)
    assert reader.read(raw(['joint_1', 'joint_3'], [0.5, 0.6])).name == ('joint_1', 'joint_3')
    assert reader.read(raw(['joint_1', 'joint_3'], [0.5, 0.6], frame_id='x')).name == ('joint_1', 'joint_3')
    padded = bytearray(raw(['joint_1', 'joint_2'], [0.7, 0.8]))
    padded[17:20] = b'\xf0\xf0\xf0'  # frame_id's padding, which rmw leaves unset
    back = reader.read(bytes(padded))
    assert back.name == ('joint_1', 'joint_2') and back.position == (0.7, 0.8)
    assert reader.read(raw(['joint_1'], [0.9])).name == ('joint_1',) and reader.read(raw(['joint_1'], [1.0])).position == (1.0,)


def test_the_same_names_under_another_frame_id_are_read_at_their_own_offsets() -> None:
    """The name set is cached by its names, but where the arrays start depends on the frame_id
    before them: a longer frame_id moves them (the cached offset misread them)."""
    reader = JointCommandReader()
    first = reader.read(serialize_message(_command(['joint_1', 'joint_2'], [0.1, 0.2])))
    moved = reader.read(serialize_message(_command(['joint_1', 'joint_2'], [0.3, 0.4], [1.0, 2.0],
                                                   frame_id='a_much_longer_frame_id')))
    assert first.position == (0.1, 0.2)
    assert moved is not None and moved.position == (0.3, 0.4) and moved.velocity == (1.0, 2.0)
