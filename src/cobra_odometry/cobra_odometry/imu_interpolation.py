"""Combines the D435i's separate gyro and accel streams into one IMU stream on the gyro stamps.

Same rule as realsense-ros `unite_imu_method: 2` (linear_interpolation): every gyro sample is
paired with the accel linearly interpolated to the gyro's timestamp from the accel samples just
before and just after it. A gyro sample therefore waits for the next accel sample (up to one
accel period, 16 ms at 63 Hz, 4 ms at 250 Hz). Gyro samples older than the first accel sample,
(or arriving after the accel that brackets them), or inside an accel gap longer than `max_accel_gap_s`, cannot be interpolated and are dropped
and counted; a sample whose stamp does not increase is dropped and counted as out of order.
The output rate is the gyro rate (200 Hz is what ORB-SLAM3's D435i configuration expects).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

Vector3 = tuple[float, float, float]


@dataclass(frozen=True)
class ImuSample:
    stamp_s: float  # device clock
    angular_velocity: Vector3  # rad/s
    linear_acceleration: Vector3  # m/s^2


@dataclass
class ImuUniterCounters:
    emitted: int = 0
    dropped_unbracketed: int = 0
    dropped_accel_gap: int = 0
    out_of_order_gyro: int = 0
    out_of_order_accel: int = 0
    pending_overflow: int = 0


@dataclass
class ImuUniter:
    """Stateful gyro + accel -> ImuSample combiner; push samples in arrival order."""

    max_accel_gap_s: float = 0.1
    max_pending_gyro: int = 400
    counters: ImuUniterCounters = field(default_factory=ImuUniterCounters)
    _pending_gyro: deque = field(default_factory=deque)
    _accel_before: tuple[float, Vector3] | None = None
    _accel_after: tuple[float, Vector3] | None = None
    _last_gyro_stamp_s: float = float('-inf')

    def push_gyro(self, stamp_s: float, angular_velocity: Vector3) -> list[ImuSample]:
        if stamp_s <= self._last_gyro_stamp_s:
            self.counters.out_of_order_gyro += 1
            return []
        self._last_gyro_stamp_s = stamp_s
        if self._accel_after is None:
            self.counters.dropped_unbracketed += 1
            return []
        if len(self._pending_gyro) >= self.max_pending_gyro:
            # accel has stopped: do not hold on to an unbounded backlog
            self._pending_gyro.popleft()
            self.counters.pending_overflow += 1
        self._pending_gyro.append((stamp_s, angular_velocity))
        return self._drain()

    def push_accel(self, stamp_s: float, linear_acceleration: Vector3) -> list[ImuSample]:
        if self._accel_after is not None and stamp_s <= self._accel_after[0]:
            self.counters.out_of_order_accel += 1
            return []
        self._accel_before, self._accel_after = self._accel_after, (stamp_s, linear_acceleration)
        return self._drain()

    def _drain(self) -> list[ImuSample]:
        out: list[ImuSample] = []
        before, after = self._accel_before, self._accel_after
        while self._pending_gyro:
            stamp_s, gyro = self._pending_gyro[0]
            if stamp_s > after[0]:
                break  # needs a later accel sample
            self._pending_gyro.popleft()
            if stamp_s == after[0]:
                out.append(ImuSample(stamp_s, gyro, after[1]))
                continue
            if before is None or stamp_s < before[0]:
                self.counters.dropped_unbracketed += 1
                continue
            span = after[0] - before[0]
            if span > self.max_accel_gap_s:
                self.counters.dropped_accel_gap += 1
                continue
            weight = (stamp_s - before[0]) / span
            a0, a1 = before[1], after[1]
            accel = (a0[0] + weight * (a1[0] - a0[0]), a0[1] + weight * (a1[1] - a0[1]),
                     a0[2] + weight * (a1[2] - a0[2]))
            out.append(ImuSample(stamp_s, gyro, accel))
        self.counters.emitted += len(out)
        return out
