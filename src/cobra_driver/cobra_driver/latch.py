"""The latch state machine (no ROS): released -> engaging -> engaged -> releasing -> released, or failed.

The latch servo runs in current-based position mode: it is sent to the engaged or released
angle, and counts as there once within the tolerance, or, when engaging, once it has stopped
near the target at the grip current (it holds something). A motion that does not finish in
`latch_timeout_s` fails, and the latch then holds where it stopped instead of pushing on.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import Any

from cobra_driver.driver_config import DriverConfig
from cobra_driver.joint_map import JointServo

_MOVING = ('engaging', 'releasing')
LATCH_STOPPED_RAD_S = 0.05  # the latch pushes against something when this slow at high current


@dataclass(frozen=True)
class LatchStatus:
    """Replaced, never changed in place: another thread may hold the one it was handed."""

    state: str = 'released'  # released | engaging | engaged | releasing | failed
    position_rad: float = math.nan
    current_a: float = math.nan
    message: str = ''

    @property
    def latched(self) -> bool:
        return self.state == 'engaged'


class LatchController:
    """The latch's target and state; fed with its feedback by the loop, once per cycle."""

    def __init__(self, config: DriverConfig, log: Callable[..., None]) -> None:
        self.config = config
        self.servo: JointServo | None = config.latch
        self.log = log
        self.status = LatchStatus()
        self.target_rad: float | None = None
        self._started_s = 0.0
        self._future: Future[tuple[bool, str]] | None = None
        self._record: Any = None

    def engaged_rad(self) -> float:
        assert self.servo is not None
        return self.servo.upper_rad if self.config.latch_engaged_rad is None else self.config.latch_engaged_rad

    def released_rad(self) -> float:
        assert self.servo is not None
        return self.servo.lower_rad if self.config.latch_released_rad is None else self.config.latch_released_rad

    def goal_tick(self) -> int | None:
        """Goal Position to send, None before any target is known."""
        if self.servo is None or self.target_rad is None:
            return None
        return self.servo.ticks_from_rad(self.target_rad)

    def hold_at(self, position_rad: float) -> None:
        """Hold where it stands (start-up, torque on, reconnect); its state follows from where that is."""
        assert self.servo is not None
        self.target_rad = self.servo.clamp(position_rad)
        engaged = abs(position_rad - self.engaged_rad()) < self.config.latch_tolerance_rad
        self.status = replace(self.status, state='engaged' if engaged else 'released')

    def begin(self, engage: bool, future: Future[tuple[bool, str]], now_s: float) -> None:
        """Start engaging or releasing; `future` resolves once confirmed, or failed after the timeout."""
        self.finish(False, 'superseded by a new latch request')
        self.target_rad = self.engaged_rad() if engage else self.released_rad()
        self.status = replace(self.status, state='engaging' if engage else 'releasing')
        self._started_s = now_s
        self._future = future

    def finish(self, ok: bool, message: str) -> None:
        if self._future is not None and not self._future.done():
            self._future.set_result((ok, message))
        self._future = None

    def refresh(self) -> LatchStatus:
        """The status with position and current from the latest feedback (converted only when asked)."""
        record = self._record
        if record is not None and self.servo is not None:
            self.status = replace(self.status, position_rad=self.servo.rad_from_ticks(int(record['present_position'])),
                                  current_a=self.servo.current_a_from_raw(int(record['present_current'])))
        return self.status

    def advance(self, now_s: float, record: Any) -> None:
        """Feedback of this cycle (a record with present position, velocity and current): confirm,
        keep going, or fail after the timeout. Holding still, it only keeps the record."""
        self._record = record
        if self.status.state not in _MOVING:
            return
        latch = self.servo
        assert latch is not None
        status = self.refresh()
        velocity_raw = int(record['present_velocity'])
        engaging = status.state == 'engaging'
        target = self.engaged_rad() if engaging else self.released_rad()
        error = abs(status.position_rad - target)
        stopped = abs(latch.rad_s_from_raw(velocity_raw)) < LATCH_STOPPED_RAD_S
        gripping = engaging and stopped and abs(status.current_a) >= self.config.latch_grip_current_a \
            and error < self.config.latch_grip_window_rad
        if error < self.config.latch_tolerance_rad or gripping:
            state = 'engaged' if engaging else 'released'
            self.status = status = replace(status, state=state, message=(
                f'latch {state} at {status.position_rad:.3f} rad, {status.current_a:.2f} A'))
            self.finish(True, status.message)
        elif now_s - self._started_s > self.config.latch_timeout_s:
            self.target_rad = status.position_rad  # stop pushing against the obstruction
            self.status = status = replace(status, state='failed', message=(
                f'latch did not {"engage" if engaging else "release"} within '
                f'{self.config.latch_timeout_s:.1f} s: at {status.position_rad:.3f} rad (target '
                f'{target:.3f}), {status.current_a:.2f} A; jammed or obstructed, it now holds '
                f'where it stopped'))
            self.log('error', status.message)
            self.finish(False, status.message)
