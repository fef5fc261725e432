"""CDR, ROS 2's wire format, in one place (no rclpy): read a few fields straight from serialized
bytes, decode a topic's messages in bulk, and lay out preserialized messages for hot publishers,
because rclpy's and rosbags' per-message conversions cost 10-30 us each. Layout and why: README, "CDR".
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

CDR_LITTLE_ENDIAN = 1
ENCAPSULATION_BYTES = 4
STAMP_END = ENCAPSULATION_BYTES + 8  # int32 sec + uint32 nanosec
CDR_LE_HEADER = b'\x00\x01\x00\x00'  # encapsulation: CDR, little endian
CHUNK_ROWS = 20_000  # rows stacked at once by decode_bulk (bounds the memory of the byte matrix)


# --- reading fields ------------------------------------------------------------------------

def leading_stamp_ns(data: bytes | memoryview) -> int | None:
    """The builtin_interfaces/Time that opens a message (rosgraph_msgs/Clock, or any message whose
    first field is a std_msgs/Header) in integer nanoseconds; None if unreadable."""
    if len(data) < STAMP_END or data[1] != CDR_LITTLE_ENDIAN:
        return None
    sec, nanosec = struct.unpack_from('<iI', data, ENCAPSULATION_BYTES)
    return sec * 1_000_000_000 + nanosec


def header_stamp_s(data: bytes | memoryview) -> float:
    """The builtin_interfaces/Time that opens a message (any endianness), in seconds."""
    little_endian = data[1] & 1
    sec, nanosec = struct.unpack_from('<iI' if little_endian else '>iI', data, ENCAPSULATION_BYTES)
    return sec + nanosec * 1e-9


def _skip_string(data: bytes | memoryview, offset: int) -> int:
    """Offset just past the CDR string at `offset` (uint32 length counting its NUL, then the bytes)."""
    (length,) = struct.unpack_from('<I', data, offset)
    end = offset + 4 + length
    if end > len(data):
        raise struct.error('string runs past the end')
    return end


def _align(offset: int, size: int) -> int:
    """CDR alignment counts from the end of the encapsulation header."""
    return ENCAPSULATION_BYTES + (offset - ENCAPSULATION_BYTES + size - 1) // size * size


def _joint_state_name_fields(data: bytes | memoryview) -> tuple[list[bytes | memoryview], int]:
    """The `name` list of a little-endian serialized sensor_msgs/JointState, each name's bytes with
    its NUL, and the offset just past the last; struct.error when cut."""
    offset = _align(_skip_string(data, STAMP_END), 4)  # past header.frame_id
    (count,) = struct.unpack_from('<I', data, offset)
    offset += 4
    names = []
    for _ in range(count):
        offset = _align(offset, 4)
        end = _skip_string(data, offset)
        names.append(data[offset + 4:end])
        offset = end
    return names, offset


def joint_state_names(data: bytes | memoryview) -> bytes | None:
    """The `name` list of a serialized sensor_msgs/JointState as bytes (each name with its NUL,
    without the alignment padding, which rmw leaves uninitialised): equal bytes for equal name
    lists, so a key for "this publisher's joint set"; None if unreadable."""
    if len(data) < STAMP_END or data[1] != CDR_LITTLE_ENDIAN:
        return None
    try:
        return b''.join(_joint_state_name_fields(data)[0])
    except struct.error:
        return None


# --- bulk decoding ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Layout:
    """float64 blocks of one message: name -> (byte offset in the raw message, element count)."""
    blocks: dict[str, tuple[int, int]]


class _Cursor:
    """Walks a little-endian CDR message's fields to find where its float64 blocks lie."""

    def __init__(self, raw: bytes) -> None:
        self.raw, self.offset = raw, 0  # offset from the end of the encapsulation header

    def align(self, size: int) -> None:
        self.offset = (self.offset + size - 1) // size * size

    def uint32(self) -> int:
        self.align(4)
        value = struct.unpack_from('<I', self.raw, ENCAPSULATION_BYTES + self.offset)[0]
        self.offset += 4
        return value

    def string(self) -> None:
        length = self.uint32()  # (not `offset += uint32()`: that would add to the offset before the read)
        self.offset += length

    def doubles(self, count: int) -> tuple[int, int]:
        if count:
            self.align(8)
        block = (ENCAPSULATION_BYTES + self.offset, count)
        self.offset += 8 * count
        return block

    def header(self) -> None:
        self.offset = 8  # builtin_interfaces/Time
        self.string()    # frame_id


def joint_state_layout(raw: bytes) -> Layout:
    cursor = _Cursor(raw)
    cursor.header()
    for _ in range(cursor.uint32()):
        cursor.string()
    blocks = {}
    for name in ('position', 'velocity', 'effort'):
        blocks[name] = cursor.doubles(cursor.uint32())
    return Layout(blocks)


def odometry_layout(raw: bytes) -> Layout:
    cursor = _Cursor(raw)
    cursor.header()
    cursor.string()  # child_frame_id
    return Layout({'pose': cursor.doubles(7), 'pose_covariance': cursor.doubles(36), 'twist': cursor.doubles(6),
                   'twist_covariance': cursor.doubles(36)})


def wrench_layout(raw: bytes) -> Layout:
    cursor = _Cursor(raw)
    cursor.header()
    return Layout({'wrench': cursor.doubles(6)})


def contact_wrenches_layout(raw: bytes) -> Layout:
    """cobra_interfaces/ContactWrenches: header, link names, then the wrenches as one block of
    6 float64 per link (force xyz, torque xyz)."""
    cursor = _Cursor(raw)
    cursor.header()
    for _ in range(cursor.uint32()):
        cursor.string()
    return Layout({'wrenches': cursor.doubles(6 * cursor.uint32())})


@dataclass
class BulkResult:
    stamps_s: np.ndarray                 # per decoded row
    values: dict[str, np.ndarray]        # block -> (rows, count)
    rows: np.ndarray                     # indices (into the input list) of the decoded rows
    template: bytes                      # the first row (its strings, e.g. joint names, hold for all)


def decode_bulk(raws: list[bytes], layout_of: Callable[[bytes], Layout],
                reference: Callable[[bytes], dict[str, np.ndarray]]) -> tuple[list[BulkResult], list[int]]:
    """Decode the rows that share a layout; returns (one result per layout, indices left over).
    `reference(raw)` gives the blocks as rosbags decodes them, to check the layout on one row."""
    by_length: dict[int, list[int]] = {}
    for index, raw in enumerate(raws):
        if len(raw) > ENCAPSULATION_BYTES and raw[1] == CDR_LITTLE_ENDIAN:
            by_length.setdefault(len(raw), []).append(index)
    leftover = sorted(set(range(len(raws))) - {i for rows in by_length.values() for i in rows})
    results = []
    for length, indices in by_length.items():
        first = raws[indices[0]]
        try:
            layout = layout_of(first)
            expected = reference(first)
            ok = all(np.array_equal(np.frombuffer(first, '<f8', count, offset), expected[name])
                     for name, (offset, count) in layout.blocks.items())
        except Exception:  # noqa: BLE001 - any failure here only means: decode these one by one
            ok = False
        if not ok:
            leftover += indices
            continue
        structure = np.ones(length, dtype=bool)
        structure[ENCAPSULATION_BYTES:ENCAPSULATION_BYTES + 8] = False  # the stamp
        for offset, count in layout.blocks.values():
            structure[offset:offset + 8 * count] = False
        template_bytes = np.frombuffer(first, np.uint8)[structure]
        kept, stamps, values = [], [], {name: [] for name in layout.blocks}
        for begin in range(0, len(indices), CHUNK_ROWS):
            chunk = indices[begin:begin + CHUNK_ROWS]
            matrix = np.frombuffer(b''.join(raws[i] for i in chunk), np.uint8).reshape(len(chunk), length)
            same = (matrix[:, structure] == template_bytes).all(axis=1)
            rows = matrix[same]
            chunk_array = np.asarray(chunk)
            kept.append(chunk_array[same])
            leftover += chunk_array[~same].tolist()
            sec = rows[:, ENCAPSULATION_BYTES:ENCAPSULATION_BYTES + 4].copy().view('<i4')[:, 0]
            nanosec = rows[:, ENCAPSULATION_BYTES + 4:ENCAPSULATION_BYTES + 8].copy().view('<u4')[:, 0]
            stamps.append(sec + nanosec * 1e-9)
            for name, (offset, count) in layout.blocks.items():
                values[name].append(rows[:, offset:offset + 8 * count].copy().view('<f8').reshape(len(rows), count))
        results.append(BulkResult(np.concatenate(stamps), {n: np.concatenate(v) for n, v in values.items()},
                                  np.concatenate(kept), first))
    return results, sorted(leftover)


# --- preserialized messages -------------------------------------------------------------------

class CdrWriter:
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
        """sequence<float64>: its length, then the values (aligned to 8 only when there are any, as
        Fast CDR writes it)."""
        self.uint32(count)
        return self.float64s(count) if count else len(self.payload)

    def header(self, frame_id: str) -> int:
        """std_msgs/Header; returns the stamp's offset."""
        offset = self.stamp()
        self.string(frame_id)
        return offset


class RawMessage:
    """A CDR message buffer with the stamp and numeric fields exposed as writable views."""

    def __init__(self, layout: CdrWriter, stamp_offset: int) -> None:
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
        layout = CdrWriter()
        super().__init__(layout, layout.stamp())


class RawJointState(RawMessage):
    """sensor_msgs/JointState with fixed names and position, velocity and effort for each (or
    position alone, `positions_only`: a command without feed-forward, velocity and effort empty)."""

    def __init__(self, names: Sequence[str], frame_id: str = '', positions_only: bool = False) -> None:
        layout = CdrWriter()
        stamp = layout.header(frame_id)
        layout.uint32(len(names))
        for name in names:
            layout.string(name)
        counts = (len(names), 0, 0) if positions_only else (len(names),) * 3
        offsets = [layout.float64_sequence(count) for count in counts]
        super().__init__(layout, stamp)
        self.position, self.velocity, self.effort = (self.view(o, n) for o, n in zip(offsets, counts))


class RawImu(RawMessage):
    """sensor_msgs/Imu."""

    def __init__(self, frame_id: str) -> None:
        layout = CdrWriter()
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
        layout = CdrWriter()
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
        layout = CdrWriter()
        stamp = layout.header(frame_id)
        wrench = layout.float64s(6)
        super().__init__(layout, stamp)
        self.wrench = self.view(wrench, 6)


class RawContactWrenches(RawMessage):
    """cobra_interfaces/ContactWrenches for a fixed list of links; `wrenches` is (links, 6): per
    link force xyz then torque xyz, as consecutive float64 (a Wrench is two Vector3)."""

    def __init__(self, link_names: Sequence[str], frame_id: str = '') -> None:
        layout = CdrWriter()
        stamp = layout.header(frame_id)
        layout.uint32(len(link_names))
        for name in link_names:
            layout.string(name)
        layout.uint32(len(link_names))
        # no padding after an empty sequence: CDR aligns a float64 only where one follows
        wrenches = layout.float64s(6 * len(link_names)) if link_names else len(layout.payload)
        super().__init__(layout, stamp)
        self.wrenches = self.view(wrenches, 6 * len(link_names)).reshape(len(link_names), 6)


# --- joint_commands -------------------------------------------------------------------------

@dataclass(frozen=True)
class JointCommand:
    """The fields of a joint_commands JointState the command guard reads (JointCommandMessage)."""

    name: tuple[str, ...]  # the same tuple for every message of a name set (the guard skips re-judging it)
    position: tuple[float, ...]
    velocity: tuple[float, ...]
    effort: tuple[float, ...]
    stamp_ns: int  # header.stamp

    @classmethod
    def of(cls, message: Any) -> JointCommand:
        """From a deserialized sensor_msgs/JointState (what a reader falls back to)."""
        stamp = message.header.stamp
        return cls(tuple(message.name), tuple(message.position), tuple(message.velocity), tuple(message.effort),
                   stamp.sec * 1_000_000_000 + stamp.nanosec)


class JointCommandReader:
    """joint_commands from their CDR bytes: rclpy's take into a JointState cost ~4x this (the
    name strings and three arrays become Python objects every message, at 100 Hz in the driver's
    loop and the sim's). A publisher sends the same names every time, so they are decoded once per
    name set. None for bytes it cannot read (big endian, cut): deserialize those with rclpy."""

    def __init__(self) -> None:
        self._names: dict[bytes, tuple[str, ...]] = {}  # names bytes -> the names
        # the last message's bytes from its frame_id to the end of its names, padding included: a
        # publisher that writes its padding alike every time (ours zero it) is known by one compare
        self._last_region = b''
        self._last_known: tuple[tuple[str, ...], int] | None = None  # (names, offset after them)

    def read(self, data: bytes) -> JointCommand | None:
        """The command in `data` (a serialized sensor_msgs/JointState), or None if it cannot be read."""
        stamp_ns, known = leading_stamp_ns(data), self._last_known
        if stamp_ns is None:
            return None
        try:
            if known is None or data[STAMP_END:known[1]] != self._last_region:
                fields, end = _joint_state_name_fields(data)
                key = b''.join(fields)
                names = self._names.get(key)
                if names is None:
                    names = self._names[key] = tuple(bytes(f[:-1]).decode('utf-8', 'replace') for f in fields)
                known = self._last_known = names, end  # the end moves with the frame_id's length
                self._last_region = bytes(data[STAMP_END:end])
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
        return JointCommand(names, *arrays, stamp_ns)
