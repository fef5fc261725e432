"""latch/set on the simulated robot, without rclpy: weld or release, and the reply the service gives.

true welds head to tail if their latch frames are within latch_capture_distance_m; false
releases. The latch servo moves as on the robot (the XC330 fin gear, cosmetic in the sim).
A LatchSchedule sets the latch at given sim times instead (a twin replaying a recorded run's
latching at the same sim time in every run, which a service call landing between steps is not).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from cobra_common.config_check import Setting
from cobra_common.errors import StartupError
from cobra_description.robot_model import LATCH_JOINT, JointLimits
from cobra_sim.engine import CobraSim


LATCH_SCHEDULE = Setting(
    'latch_schedule_s', [], 'sim times [s, from t = 0] at which the latch is set as latch/set would set it: '
    'engage at the 1st, 3rd, ... and release at the 2nd, 4th, ...; increasing; empty = none (a twin replays '
    "the recorded run's latching with it)")


class LatchSchedule:
    """The latch changes of `latch_schedule_s`, handed out once each as sim time passes them."""

    def __init__(self, times_s: Sequence[float]) -> None:
        times = [float(t) for t in times_s]
        bad = [t for t in times if not (math.isfinite(t) and t >= 0.0)]
        if bad or any(b <= a for a, b in zip(times, times[1:])):
            raise StartupError(f'latch_schedule_s:={times} must be increasing sim times >= 0 [s] (engage, release, '
                               'engage, ...), e.g. latch_schedule_s:=[5.2, 15.0]')
        self._changes = [(round(t * 1e9), index % 2 == 0) for index, t in enumerate(times)]
        self._next = 0

    def due(self, time_ns: int) -> list[tuple[float, bool]]:
        """(scheduled time [s], engage) of every change at or before `time_ns` not handed out yet."""
        due = []
        while self._next < len(self._changes) and self._changes[self._next][0] <= time_ns:
            at_ns, engage = self._changes[self._next]
            due.append((at_ns * 1e-9, engage))
            self._next += 1
        return due


@dataclass(frozen=True)
class LatchReply:
    success: bool
    message: str
    changed: bool  # latched state changed: latch/state follows at once


def latch_request(sim: CobraSim, engage: bool, latch_limits: JointLimits | None) -> LatchReply:
    if not sim.has_latch:
        return LatchReply(not engage, 'the robot model has no head_latch_link/tail_latch_link: nothing to latch'
                          if engage else 'no latch: nothing to release', False)
    was_latched = sim.latched
    distance_m = sim.latch_frames_distance_m()
    success = sim.set_latched(engage)
    if engage and not success:
        message = (f'latch frames are {distance_m:.3f} m apart, more than latch_capture_distance_m = '
                   f'{sim.latch_capture_distance_m:g} m: curl the robot to bring the head onto the tail first')
    elif engage:
        message = f'latched with the latch frames {distance_m * 1000:.1f} mm apart' + (
            ' (it already was)' if was_latched else '')
    else:
        message = 'latch released' if was_latched else 'latch was not engaged'
    if success and latch_limits is not None:
        sim.set_targets({LATCH_JOINT: latch_limits.upper_rad if engage else latch_limits.lower_rad})
    return LatchReply(success, message, sim.latched != was_latched)
