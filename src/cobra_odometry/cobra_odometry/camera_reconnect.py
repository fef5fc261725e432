"""When to (re)open the RealSense: back-off after failures, frame timeout while streaming.

No rclpy and no librealsense here: the node feeds in what happened (opened, failed, a frame
arrived, playback finished) with monotonic times and asks `poll` what to do next; opening and
closing the device stay with the node.

States: WAITING (closed, a reopen attempt is scheduled) -> STREAMING (opened) -> WAITING again
when no IMU frame arrived for `frame_timeout_s` (unplugged, USB reset) or a reopen failed;
STREAMING -> FINISHED when a recording played to its end (nothing to reconnect, never times out).
The delay before the next attempt starts at `retry_initial_s`, doubles after each failure up to
`retry_max_s`, and starts again at `retry_initial_s` once the camera streams.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass


class CameraState(enum.Enum):
    WAITING = 'waiting'
    STREAMING = 'streaming'
    FINISHED = 'finished'


class CameraAction(enum.Enum):
    NONE = 'none'
    REOPEN = 'reopen'  # a scheduled attempt is due: try to open the camera
    CLOSE_LOST = 'close_lost'  # streaming but silent for frame_timeout_s: close it, then call lost()


@dataclass(frozen=True)
class ReconnectPolicy:
    retry_initial_s: float = 1.0
    retry_max_s: float = 30.0
    frame_timeout_s: float = 2.0


class CameraReconnect:
    """The camera's connection state machine and its back-off schedule."""

    def __init__(self, policy: ReconnectPolicy) -> None:
        self.policy = policy  # replaceable at run time (parameter updates)
        self.state = CameraState.WAITING
        self._delay_s = policy.retry_initial_s
        self._next_attempt_s = -math.inf  # the first attempt is due at once
        self._last_frame_s = -math.inf

    @property
    def next_attempt_s(self) -> float:
        return self._next_attempt_s

    def opened(self, now_s: float) -> None:
        """The camera streams: the timeout counts from now, the back-off starts over."""
        self.state = CameraState.STREAMING
        self._last_frame_s = now_s
        self._delay_s = self.policy.retry_initial_s

    def failed(self, now_s: float) -> float:
        """An open failed or the camera was lost: schedule the next attempt; returns its delay [s]."""
        delay_s = self._delay_s
        self.state = CameraState.WAITING
        self._next_attempt_s = now_s + delay_s
        self._delay_s = min(delay_s * 2.0, self.policy.retry_max_s)
        return delay_s

    def frame_received(self, now_s: float) -> None:
        self._last_frame_s = now_s

    def silence_s(self, now_s: float) -> float:
        """How long no IMU frame has arrived [s]."""
        return now_s - self._last_frame_s

    def playback_finished(self) -> bool:
        """A recording reached its end; True only on the transition (report it once)."""
        if self.state is not CameraState.STREAMING:
            return False
        self.state = CameraState.FINISHED
        return True

    def poll(self, now_s: float) -> CameraAction:
        if self.state is CameraState.WAITING and now_s >= self._next_attempt_s:
            return CameraAction.REOPEN
        if self.state is CameraState.STREAMING and self.silence_s(now_s) > self.policy.frame_timeout_s:
            return CameraAction.CLOSE_LOST
        return CameraAction.NONE
