"""Holding a node's start until its peers are present, for at most a timeout; no rclpy.

The sim (its recorder and gait), the DEM node (its subscribers) and the gait (its command
subscribers) each hold their first output until the nodes that must not miss it have matched:
on a loaded machine one of them can start seconds late. The node says what is missing (DDS
counts); this decides whether to keep waiting, start, or give up and start without them.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass


class PeerState(enum.Enum):
    WAITING = 'waiting'    # something is missing and the timeout has not passed
    READY = 'ready'        # nothing is missing
    GAVE_UP = 'gave up'    # the timeout passed with something still missing: start without it


@dataclass
class PeerWait:
    """A wait that ends when `poll` finds nothing missing or at `deadline_s` (any monotonic clock)."""

    deadline_s: float
    settled: PeerState | None = None  # READY or GAVE_UP once the wait ended; it never reopens

    @classmethod
    def starting(cls, now_s: float, timeout_s: float) -> PeerWait:
        return cls(now_s + timeout_s)

    @property
    def waiting(self) -> bool:
        return self.settled is None

    def poll(self, missing: Sequence[str], now_s: float) -> PeerState:
        """The state given what is missing now; the first READY or GAVE_UP ends the wait."""
        if self.settled is not None:
            return self.settled
        if missing and now_s < self.deadline_s:
            return PeerState.WAITING
        self.settled = PeerState.GAVE_UP if missing else PeerState.READY
        return self.settled
