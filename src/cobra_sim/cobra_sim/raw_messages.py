"""Preserialized CDR messages for the sim's hot publishers: fill numbers in place, publish bytes.

rclpy converts a Python message field by field into C before serializing it (~12 µs for an
11-joint JointState); publishing ready CDR bytes skips that (~2 µs). Each message here is laid
out once in ROS 2's CDR (XCDR1, little endian, as rmw_fastrtps writes it): the variable parts
(frame ids, joint names) are fixed at construction, and the numbers are numpy views into the
buffer, so a publish is `view[:] = values; publisher.publish(message.to_bytes())`.

No rclpy import: tests check the bytes against rosbags' independent CDR deserializer.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np

CDR_LE_HEADER = b'\x00\x01\x00\x00'  # encapsulation: CDR, little endian


class CdrLayout:
    """Appends CDR fields with XCDR1 alignment (relative to the end of the encapsulation header)."""

    def __init__(self) -> None:
        self.payload = bytearray()

    def _align(self, size: int) -> None:
        self.payload += b'\x00' * (-len(self.payload) % size)

    def uint32(self, value: int) -> int:
        self._align(4)
        offset = len(self.payload)
        self.payload += struct.pack('<I', value)
        return offset

    def string(self, text: str) -> None:
        encoded = text.encode() + b'\x00'
        self.uint32(len(encoded))
        self.payload += encoded

    def stamp(self) -> int:
        """builtin_interfaces/Time: int32 sec, uint32 nanosec; returns the offset of sec."""
        offset = self.uint32(0)
        self.uint32(0)
        return offset

    def float64s(self, count: int) -> int:
        """`count` consecutive float64 (a fixed array or consecutive fields); returns the offset."""
        self._align(8)
        offset = len(self.payload)
        self.payload += b'\x00' * (8 * count)
        return offset

    def float64_sequence(self, count: int) -> int:
        self.uint32(count)
        return self.float64s(count)

    def header(self, frame_id: str) -> int:
        """std_msgs/Header; returns the stamp's offset."""
        offset = self.stamp()
        self.string(frame_id)
        return offset


class RawMessage:
    """A CDR message buffer with the stamp and numeric fields exposed as writable views."""

    def __init__(self, layout: CdrLayout, stamp_offset: int) -> None:
        self.buffer = bytearray(CDR_LE_HEADER) + layout.payload
        self._stamp_offset = len(CDR_LE_HEADER) + stamp_offset

    def view(self, offset: int, count: int) -> np.ndarray:
        """float64[count] at a payload offset, sharing memory with the buffer."""
        return np.frombuffer(self.buffer, dtype='<f8', count=count, offset=len(CDR_LE_HEADER) + offset)

    def set_stamp_ns(self, stamp_ns: int) -> None:
        struct.pack_into('<iI', self.buffer, self._stamp_offset, *divmod(stamp_ns, 1_000_000_000))

    def to_bytes(self) -> bytes:
        return bytes(self.buffer)


class RawClock(RawMessage):
    """rosgraph_msgs/Clock."""

    def __init__(self) -> None:
        layout = CdrLayout()
        super().__init__(layout, layout.stamp())


class RawJointState(RawMessage):
    """sensor_msgs/JointState with fixed names and position, velocity and effort for each."""

    def __init__(self, names: Sequence[str], frame_id: str = '') -> None:
        layout = CdrLayout()
        stamp = layout.header(frame_id)
        layout.uint32(len(names))
        for name in names:
            layout.string(name)
        offsets = [layout.float64_sequence(len(names)) for _ in range(3)]
        super().__init__(layout, stamp)
        self.position, self.velocity, self.effort = (self.view(o, len(names)) for o in offsets)


class RawImu(RawMessage):
    """sensor_msgs/Imu."""

    def __init__(self, frame_id: str) -> None:
        layout = CdrLayout()
        stamp = layout.header(frame_id)
        orientation = layout.float64s(4 + 9)
        angular = layout.float64s(3 + 9)
        linear = layout.float64s(3 + 9)
        super().__init__(layout, stamp)
        self.orientation_xyzw = self.view(orientation, 4)
        self.orientation_covariance = self.view(orientation + 32, 9)
        self.angular_velocity = self.view(angular, 3)
        self.angular_velocity_covariance = self.view(angular + 24, 9)
        self.linear_acceleration = self.view(linear, 3)
        self.linear_acceleration_covariance = self.view(linear + 24, 9)


class RawOdometry(RawMessage):
    """nav_msgs/Odometry."""

    def __init__(self, frame_id: str, child_frame_id: str) -> None:
        layout = CdrLayout()
        stamp = layout.header(frame_id)
        layout.string(child_frame_id)
        pose = layout.float64s(3 + 4 + 36)
        twist = layout.float64s(6 + 36)
        super().__init__(layout, stamp)
        self.position = self.view(pose, 3)
        self.orientation_xyzw = self.view(pose + 24, 4)
        self.pose_covariance = self.view(pose + 56, 36)
        self.linear = self.view(twist, 3)
        self.angular = self.view(twist + 24, 3)
        self.twist_covariance = self.view(twist + 48, 36)


class RawWrenchStamped(RawMessage):
    """geometry_msgs/WrenchStamped; `wrench` is force xyz then torque xyz."""

    def __init__(self, frame_id: str) -> None:
        layout = CdrLayout()
        stamp = layout.header(frame_id)
        wrench = layout.float64s(6)
        super().__init__(layout, stamp)
        self.wrench = self.view(wrench, 6)


class RawContactWrenches(RawMessage):
    """cobra_interfaces/ContactWrenches for a fixed list of links; `wrenches` is (links, 6): per
    link force xyz then torque xyz, as consecutive float64 (a Wrench is two Vector3)."""

    def __init__(self, link_names: Sequence[str], frame_id: str = '') -> None:
        layout = CdrLayout()
        stamp = layout.header(frame_id)
        layout.uint32(len(link_names))
        for name in link_names:
            layout.string(name)
        layout.uint32(len(link_names))
        # no padding after an empty sequence: CDR aligns a float64 only where one follows
        wrenches = layout.float64s(6 * len(link_names)) if link_names else len(layout.payload)
        super().__init__(layout, stamp)
        self.wrenches = self.view(wrenches, 6 * len(link_names)).reshape(len(link_names), 6)
