"""Absolute-deadline scheduling and timing statistics for the control loop (no ROS).

Deadlines are t0 + k * period, never "now + period", so sleep overshoot does not accumulate
into drift. A cycle that overruns by whole periods skips those deadlines (counted as missed)
instead of bursting to catch up.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

SPIN_S = 0.0
"""Final stretch before a deadline spent polling the clock instead of sleeping. time.sleep
overshoots by ~0.05-0.1 ms on Linux, well inside the loop's +-0.5 ms budget, while polling the
last 0.3 ms cost up to 0.3 ms of CPU per 2 ms cycle (as much as the whole bus exchange): off."""


ORDINARY_SCHEDULING = 'SCHED_OTHER'


@dataclass(frozen=True)
class LoopScheduling:
    """What the loop thread runs under: `policy` as the diagnostics show it, and why a
    real-time request was refused ('' when it was granted or not asked for)."""

    policy: str
    refused: str = ''

    @property
    def description(self) -> str:
        """As the diagnostics show it: 'SCHED_FIFO 50', or 'SCHED_OTHER (why it was refused)'."""
        return f'{self.policy} ({self.refused})' if self.refused else self.policy


def request_realtime(priority: int,
                     set_scheduler: Callable[[int, int, os.sched_param], None] | None = None) -> LoopScheduling:
    """Put the calling thread under SCHED_FIFO at `priority` (1-99; 0 asks for nothing).

    On the robot the loop shares the computer with the camera and ORB-SLAM3; under the ordinary
    scheduler a busy neighbour delays its wake-ups by milliseconds (scripts/bench/driver_bench.py
    --busy 2, 15 s: 202 missed deadlines, window p99 period 4.1 ms; under SCHED_FIFO 50: 15 and
    2.1 ms). ros2_control's controller manager does the same. A refusal (no root, no
    CAP_SYS_NICE, RLIMIT_RTPRIO too low) leaves the ordinary scheduler and says why.
    """
    if priority <= 0:
        return LoopScheduling(ORDINARY_SCHEDULING)
    setter = set_scheduler if set_scheduler is not None else getattr(os, 'sched_setscheduler', None)
    if setter is None or not hasattr(os, 'SCHED_FIFO'):
        return LoopScheduling(ORDINARY_SCHEDULING, 'this OS has no SCHED_FIFO')
    try:
        setter(0, os.SCHED_FIFO, os.sched_param(priority))  # 0: the calling thread (Linux)
    except OSError as error:
        return LoopScheduling(ORDINARY_SCHEDULING, f'{error.strerror or error} (needs root, CAP_SYS_NICE or an '
                                                   f'rtprio limit of at least {priority})')
    return LoopScheduling(f'SCHED_FIFO {priority}')


EXECUTOR_PRIORITY = 1
"""SCHED_FIFO priority of the node's executor thread while the loop is real-time: the lowest, below
the loop and above every ordinary process. The two threads share the GIL; an executor thread
preempted by a busy neighbour while it holds the GIL would keep the real-time loop waiting for
it (priority inversion; see the driver README, Control loop)."""


def executor_priority(loop_priority: int) -> int:
    """The executor thread's SCHED_FIFO priority for a loop at `loop_priority` (0: ordinary)."""
    return EXECUTOR_PRIORITY if loop_priority > EXECUTOR_PRIORITY else 0


class DeadlineScheduler:
    def __init__(self, period_s: float, *, clock=time.perf_counter, sleep=time.sleep) -> None:
        self.period_s = period_s
        self._clock = clock
        self._sleep = sleep
        self._next = clock() + period_s
        self.missed_deadlines = 0

    @property
    def next_deadline(self) -> float:
        return self._next

    def wait(self) -> float:
        """Sleep until the next deadline; return the wake-up time and advance the deadline."""
        now = self._clock()
        if now > self._next + self.period_s:
            skipped = int((now - self._next) / self.period_s)
            self.missed_deadlines += skipped
            self._next += skipped * self.period_s
        remaining = self._next - now
        if remaining > SPIN_S:
            self._sleep(remaining - SPIN_S)
        while SPIN_S and self._clock() < self._next:
            pass
        woke = self._clock()
        self._next += self.period_s
        return woke


@dataclass(frozen=True)
class TimingSummary:
    cycles: int
    rate_hz: float
    period_p50_ms: float
    period_p99_ms: float
    period_max_ms: float
    jitter_ms: float  # standard deviation of the period
    bus_p50_ms: float
    bus_p99_ms: float
    bus_max_ms: float


class TimingWindow:
    """Cycle periods and bus times of the last `size` cycles."""

    def __init__(self, size: int = 2500) -> None:
        self.periods_s: deque[float] = deque(maxlen=size)
        self.bus_s: deque[float] = deque(maxlen=size)
        self._last_start: float | None = None

    def record(self, cycle_start: float, bus_time_s: float) -> None:
        if self._last_start is not None:
            self.periods_s.append(cycle_start - self._last_start)
        self._last_start = cycle_start
        self.bus_s.append(bus_time_s)


def summarize_timing(periods_s: tuple[float, ...], bus_s: tuple[float, ...]) -> TimingSummary | None:
    """Rate, period percentiles and jitter, bus-time percentiles of recorded cycles (None if none)."""
    if not periods_s:
        return None
    periods = np.asarray(periods_s) * 1e3
    bus = np.asarray(bus_s) * 1e3
    return TimingSummary(
        cycles=len(periods), rate_hz=1e3 / float(np.mean(periods)),
        period_p50_ms=float(np.percentile(periods, 50)), period_p99_ms=float(np.percentile(periods, 99)),
        period_max_ms=float(np.max(periods)), jitter_ms=float(np.std(periods)),
        bus_p50_ms=float(np.percentile(bus, 50)), bus_p99_ms=float(np.percentile(bus, 99)),
        bus_max_ms=float(np.max(bus)))
