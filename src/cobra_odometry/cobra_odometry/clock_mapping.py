"""Maps the camera's device clock to ROS time without jumps or reordering.

The offset is the smallest r − d over a recent window (the frame that came through fastest), applied
with a bounded slew; a large disagreement re-anchors at once and is reported. Design notes: the
package README, "Clock mapping".
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass
class DeviceClockMapper:
    window_s: float = 2.0
    max_slew: float = 1e-3
    settle_slew: float = 0.1
    settle_s: float = 3.0
    reanchor_threshold_s: float = 0.5
    reanchors: int = 0
    _offset_s: float | None = None
    _anchor_device_s: float = 0.0
    _last_device_s: float | None = None
    _samples: deque = field(default_factory=deque)  # (device_s, r - d), r - d increasing

    @property
    def offset_s(self) -> float | None:
        return self._offset_s

    def observe(self, device_s: float, received_ros_s: float) -> bool:
        """Feed one (device stamp, reception time) pair; True if the mapping re-anchored."""
        candidate = received_ros_s - device_s
        if self._last_device_s is not None and device_s < self._last_device_s - self.reanchor_threshold_s:
            return self._reanchor(device_s, candidate)
        # monotonic deque: keeps the window minimum at the front in O(1) amortised
        while self._samples and self._samples[-1][1] >= candidate:
            self._samples.pop()
        self._samples.append((device_s, candidate))
        while self._samples[0][0] < device_s - self.window_s:
            self._samples.popleft()
        target = self._samples[0][1]
        if self._offset_s is None:
            self._offset_s = target
            self._anchor_device_s = device_s
        elif abs(target - self._offset_s) > self.reanchor_threshold_s:
            return self._reanchor(device_s, candidate)
        else:
            # the first frames may all be late: converge faster (still < 1, so still ordered)
            settling = device_s - self._anchor_device_s < self.settle_s
            step = (self.settle_slew if settling else self.max_slew) * max(0.0, device_s - (self._last_device_s or device_s))
            self._offset_s += max(-step, min(step, target - self._offset_s))
        self._last_device_s = max(device_s, self._last_device_s or device_s)
        return False

    def _reanchor(self, device_s: float, candidate: float) -> bool:
        self._samples.clear()
        self._samples.append((device_s, candidate))
        self._offset_s = candidate
        self._anchor_device_s = device_s
        self._last_device_s = device_s
        self.reanchors += 1
        return True

    def to_ros(self, device_s: float) -> float:
        if self._offset_s is None:
            raise RuntimeError('DeviceClockMapper.to_ros() before any observe()')
        return device_s + self._offset_s


@dataclass
class MonotonicGate:
    """Per-stream guard: passes a stamp only if it is later than the last one passed."""

    last_s: float = float('-inf')
    rejected: int = 0

    def accept(self, stamp_s: float) -> bool:
        if stamp_s <= self.last_s:
            self.rejected += 1
            return False
        self.last_s = stamp_s
        return True
