"""Lockstep: the sim steps past a command boundary only once its peers have caught up.

Unpaced, the sim outruns a gait and a logger that share its CPU: commands arrive late (so the
closed loop depends on load) and best-effort samples overflow the recorder. In lockstep the sim
stops at every command-period boundary t_k until (1) the gait's command stamped t_k has arrived
(the gait runs on sim time, so at /clock = t_k its timer publishes stamp t_k) and (2) the
logger's progress (the newest joint_states stamp it has written) is within `max_logger_lag_s`
of t_k. The command is applied before the step past t_k, so a run is the same every time.

A peer without a publisher is not waited for (a sim without a gait or a logger still runs);
the node warns about that and about a peer that is present but silent. No rclpy here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

LOCKSTEP_MODES = ('auto', 'on', 'off')
COMMANDS_PEER = 'commands'
LOGGER_PEER = 'logger'


class LockstepConfigError(ValueError):
    """Lockstep parameters that cannot work together."""


def lockstep_active(mode: str, real_time_factor: float) -> bool:
    """'auto' is lockstep exactly when unpaced (real_time_factor 0)."""
    if mode not in LOCKSTEP_MODES:
        raise LockstepConfigError(f"lockstep:={mode} is not one of {', '.join(LOCKSTEP_MODES)}")
    return mode == 'on' or (mode == 'auto' and real_time_factor == 0.0)


def control_periods_per_command(command_period_s: float, control_period_s: float) -> int:
    periods = round(command_period_s / control_period_s)
    if periods < 1 or abs(periods * control_period_s - command_period_s) > 1e-9 * max(1.0, command_period_s):
        raise LockstepConfigError(
            f'command_period_s ({command_period_s} s) must be a whole multiple of control_period_s '
            f'({control_period_s} s): set command_period_s to the gait period (1 / rate_hz)')
    return periods


@dataclass
class LockstepGate:
    """What the sim must wait for before stepping past sim time `t_s` (a command boundary)."""

    max_logger_lag_s: float
    tolerance_s: float = 1e-6  # stamps are whole nanoseconds of a whole number of physics steps
    latest_command_stamp_s: float = -math.inf
    logger_progress_s: float = -math.inf

    def command_arrived(self, stamp_s: float) -> None:
        self.latest_command_stamp_s = max(self.latest_command_stamp_s, stamp_s)

    def logger_progressed(self, stamp_s: float) -> None:
        self.logger_progress_s = max(self.logger_progress_s, stamp_s)

    def missing_command(self, t_s: float) -> bool:
        return self.latest_command_stamp_s < t_s - self.tolerance_s

    def logger_lags(self, t_s: float, max_lag_s: float | None = None) -> bool:
        lag_s = self.max_logger_lag_s if max_lag_s is None else max_lag_s
        return self.logger_progress_s < t_s - lag_s - self.tolerance_s

    def blocking_peer(self, t_s: float, gait_present: bool, logger_present: bool) -> str | None:
        """The peer to wait for at boundary t_s (t_s > 0), or None: step on."""
        if gait_present and self.missing_command(t_s):
            return COMMANDS_PEER
        if logger_present and self.logger_lags(t_s):
            return LOGGER_PEER
        return None


MAX_COMMAND_LEAD_S = 1.0
"""A command stamped up to this far ahead of sim time waits for its time (a gait on sim time
publishes command_lead_periods ahead); one stamped further ahead, e.g. by a publisher on wall
time, is applied on arrival, as is one stamped at or before the present."""


class CommandQueue:
    """Joint targets by the sim time they apply at: the sim takes what is due before each control
    period, so a command computed ahead of its boundary changes the physics exactly there."""

    def __init__(self, tolerance_s: float = 1e-6, max_pending: int = 1000) -> None:
        self.tolerance_s = tolerance_s
        self.max_pending = max_pending  # a sim that stopped stepping keeps only the newest
        self._pending: list[tuple[float, int, Any]] = []  # (apply at [s], arrival order, targets)
        self._arrivals = 0

    def __len__(self) -> int:
        return len(self._pending)

    def push(self, stamp_s: float, targets: Any, now_s: float) -> None:
        """Queue `targets` for `stamp_s` (sim time since t = 0); `now_s` is the sim time now."""
        apply_at_s = now_s if stamp_s - now_s > MAX_COMMAND_LEAD_S else stamp_s
        self._arrivals += 1
        self._pending.append((apply_at_s, self._arrivals, targets))
        if len(self._pending) > self.max_pending:
            del self._pending[0]

    def due(self, now_s: float) -> list[Any]:
        """The targets to apply at sim time `now_s`, in the order they apply (stamp, then arrival;
        a command may name only some joints); they are taken out."""
        if not self._pending:  # the common case, every control period: nothing queued
            return []
        limit_s = now_s + self.tolerance_s
        due = sorted((entry for entry in self._pending if entry[0] <= limit_s), key=lambda entry: entry[:2])
        if due:
            self._pending = [entry for entry in self._pending if entry[0] > limit_s]
        return [entry[2] for entry in due]
