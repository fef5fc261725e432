"""The driver node's per-cycle ROS pieces, run on the loop thread: joint_states published as
ready CDR bytes, joint_commands taken raw and read straight from their CDR bytes, and a callback
group that keeps joint_commands out of the executor so the loop takes them itself (an executor
round per 100 Hz command cost more CPU than the bus cycle it fed).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from rclpy.callback_groups import CallbackGroup
from rclpy.publisher import Publisher
from sensor_msgs.msg import JointState

from cobra_common.cdr import STAMP_END, RawJointState, joint_state_names
from cobra_driver.driver_core import JointSample


class JointStateWriter:
    """joint_states as ready CDR bytes (cobra_common.cdr.RawJointState), published raw: 1.7 µs a
    cycle where filling and publishing a JointState through rclpy took 6.6 µs (12 joints, no
    subscriber). The layout is rebuilt only when the set of servos in the loop changes (the
    driver hands out one names list per set)."""

    def __init__(self, publisher: Publisher) -> None:
        self._publisher = publisher
        self._publish_raw = publisher.handle.publish_raw
        self._names: list[str] | None = None
        self._message: RawJointState | None = None

    def publish(self, sample: JointSample) -> None:
        if not sample.names:  # no servo answered: an empty message (CDR pads no empty sequence)
            empty = JointState()
            empty.header.stamp.sec, empty.header.stamp.nanosec = divmod(sample.stamp_ns, 1_000_000_000)
            self._publisher.publish(empty)
            return
        if sample.names is not self._names or self._message is None:
            self._names, self._message = sample.names, RawJointState(sample.names)
        message = self._message
        message.set_stamp_ns(sample.stamp_ns)
        message.position[:], message.velocity[:], message.effort[:] = \
            sample.position_rad, sample.velocity_rad_s, sample.effort_nm
        self._publish_raw(message.to_bytes())


class TakenByTheLoop(CallbackGroup):
    """Entities the control loop takes from itself (rcl take on its own thread): the executor
    never puts them in its wait set."""

    def can_execute(self, entity: object) -> bool:
        return False

    def beginning_execution(self, entity: object) -> bool:
        return False

    def ending_execution(self, entity: object) -> None:
        pass


@dataclass(frozen=True)
class JointCommand:
    """The fields of a joint_commands JointState the command guard reads (JointCommandMessage)."""

    name: list[str]
    position: tuple[float, ...]
    velocity: tuple[float, ...]
    effort: tuple[float, ...]


class JointCommandReader:
    """joint_commands from their CDR bytes: rclpy's take into a JointState cost ~4x this (the
    name strings and three arrays become Python objects every message, at 100 Hz on the loop
    thread). A publisher sends the same names every time, so they are decoded once per name set."""

    def __init__(self) -> None:
        self._names: dict[bytes, tuple[list[str], int]] = {}  # names bytes -> (names, offset after them)

    def read(self, data: bytes) -> JointCommand | None:
        """The command in `data` (a serialized sensor_msgs/JointState), or None if it cannot be read."""
        key = joint_state_names(data)
        if key is None:
            return None
        known = self._names.get(key)
        try:
            if known is None:
                known = self._names[key] = _names_and_end(data)
            names, offset = known
            arrays = []
            for _ in range(3):  # position, velocity, effort: uint32 count, then float64s aligned to 8
                offset = _align(offset, 4)
                (count,) = struct.unpack_from('<I', data, offset)
                offset += 4
                if count:
                    offset = _align(offset, 8)
                arrays.append(struct.unpack_from(f'<{count}d', data, offset))
                offset += 8 * count
        except struct.error:
            return None
        return JointCommand(names, *arrays)


def _align(offset: int, size: int) -> int:
    """CDR alignment counts from the end of the 4-byte encapsulation header."""
    return 4 + (offset - 4 + size - 1) // size * size


def _names_and_end(data: bytes) -> tuple[list[str], int]:
    (length,) = struct.unpack_from('<I', data, STAMP_END)  # header.frame_id
    offset = _align(STAMP_END + 4 + length, 4)
    (count,) = struct.unpack_from('<I', data, offset)
    offset += 4
    names = []
    for _ in range(count):
        offset = _align(offset, 4)
        (length,) = struct.unpack_from('<I', data, offset)
        if offset + 4 + length > len(data):
            raise struct.error('name runs past the end')
        names.append(bytes(data[offset + 4:offset + 3 + length]).decode('utf-8', 'replace'))
        offset += 4 + length
    return names, offset
