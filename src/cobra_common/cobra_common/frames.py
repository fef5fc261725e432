"""The frame-prefix rule shared by every node that stamps frames (sim, odometry); no rclpy."""

from __future__ import annotations

import re

# words each followed by '/', no leading slash (tf2 frame ids have none): 'cobra/' -> 'cobra/odom'
FRAME_PREFIX_PATTERN = re.compile(r'([A-Za-z_][A-Za-z0-9_]*/)*')


def frame_prefix_problem(prefix: str) -> str | None:
    """None for a valid prefix ('' = none), else the message naming the value and the fix."""
    if FRAME_PREFIX_PATTERN.fullmatch(prefix) is not None:
        return None
    return (f"frame_prefix:={prefix!r} is not a frame prefix: use words of letters, digits and '_' "
            "each followed by '/', e.g. frame_prefix:=cobra/ ('' = none)")
