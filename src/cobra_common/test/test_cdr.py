"""Stamps and joint-name sets read from serialized messages agree with rclpy's own serializer."""

from __future__ import annotations

import struct

import pytest
from rclpy.serialization import serialize_message
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState

from cobra_common.cdr import header_stamp_s, joint_state_names, leading_stamp_ns


def joint_state(names: list[str], frame_id: str = '', sec: int = 3, nanosec: int = 250) -> bytes:
    message = JointState(name=names, position=[0.1 * k for k in range(len(names))])
    message.header.frame_id = frame_id
    message.header.stamp.sec, message.header.stamp.nanosec = sec, nanosec
    return serialize_message(message)


def test_the_leading_stamp_of_a_clock_and_of_a_header():
    clock = Clock()
    clock.clock.sec, clock.clock.nanosec = 1_796_307_416, 7_000_000
    assert leading_stamp_ns(serialize_message(clock)) == 1_796_307_416_007_000_000
    assert leading_stamp_ns(joint_state(['a'], sec=5, nanosec=9)) == 5_000_000_009


def test_unreadable_data_gives_none():
    data = joint_state(['joint_1'])
    assert leading_stamp_ns(data[:8]) is None
    assert leading_stamp_ns(b'\x00\x00' + data[2:]) is None  # big endian: not what rmw writes here
    assert joint_state_names(data[:20]) is None


def test_equal_name_lists_give_equal_keys_whatever_the_frame_stamp_and_values():
    names = [f'joint_{k}' for k in range(1, 12)]
    key = joint_state_names(joint_state(names))
    assert key is not None
    # a frame_id of each length mod 4 moves the names: the key is the same bytes
    for frame_id in ('', 'b', 'ba', 'bas', 'base'):
        assert joint_state_names(joint_state(names, frame_id, sec=9, nanosec=1)) == key
    assert joint_state_names(joint_state(names[:-1])) != key
    assert joint_state_names(joint_state(['joint_1', 'joint_x'])) != joint_state_names(joint_state(['joint_1', 'joint_y']))
    assert joint_state_names(joint_state([])) == b''


@pytest.mark.parametrize('endianness', ['little', 'big'])
def test_header_stamp_in_seconds_in_either_byte_order(endianness: str) -> None:
    order = '<' if endianness == 'little' else '>'
    data = bytes([0, 1 if endianness == 'little' else 0, 0, 0]) + struct.pack(f'{order}iI', 12, 250_000_000)
    assert header_stamp_s(data) == 12.25
