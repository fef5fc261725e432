"""Reading the few fields a hot path needs straight from serialized messages (CDR); no rclpy.

Deserialising a message in rclpy costs tens of microseconds; at 500-1000 Hz that is a good part
of a core on a 2-core machine. A node that only needs the stamp (a clock tick, a bag's log time,
a rate throttle) or the joint-name set of a joint_states reads them here and deserialises only
the messages it keeps. Layout: 4-byte encapsulation header (byte 1 = 1: little-endian CDR, what
rmw writes here), then the message with alignment counted from after that header.
"""

from __future__ import annotations

import struct

CDR_LITTLE_ENDIAN = 1
ENCAPSULATION_BYTES = 4
STAMP_END = ENCAPSULATION_BYTES + 8  # int32 sec + uint32 nanosec


def leading_stamp_ns(data: bytes | memoryview) -> int | None:
    """The builtin_interfaces/Time that opens a message (rosgraph_msgs/Clock, or any message whose
    first field is a std_msgs/Header) in integer nanoseconds; None if unreadable."""
    if len(data) < STAMP_END or data[1] != CDR_LITTLE_ENDIAN:
        return None
    sec, nanosec = struct.unpack_from('<iI', data, ENCAPSULATION_BYTES)
    return sec * 1_000_000_000 + nanosec


def _skip_string(data: bytes | memoryview, offset: int) -> int:
    """Offset just past the CDR string at `offset` (uint32 length counting its NUL, then the bytes)."""
    (length,) = struct.unpack_from('<I', data, offset)
    end = offset + 4 + length
    if end > len(data):
        raise struct.error('string runs past the end')
    return end


def _align4(offset: int) -> int:
    return ENCAPSULATION_BYTES + (offset - ENCAPSULATION_BYTES + 3) // 4 * 4


def joint_state_names(data: bytes | memoryview) -> bytes | None:
    """The `name` list of a serialized sensor_msgs/JointState as bytes (each name with its NUL,
    without the alignment padding, which rmw leaves uninitialised): equal bytes for equal name
    lists, so a key for "this publisher's joint set"; None if unreadable."""
    if len(data) < STAMP_END or data[1] != CDR_LITTLE_ENDIAN:
        return None
    try:
        offset = _align4(_skip_string(data, STAMP_END))  # past header.frame_id
        (count,) = struct.unpack_from('<I', data, offset)
        offset += 4
        names = []
        for _ in range(count):
            end = _skip_string(data, offset)
            names.append(data[offset + 4:end])
            offset = _align4(end)
    except struct.error:
        return None
    return b''.join(names)
