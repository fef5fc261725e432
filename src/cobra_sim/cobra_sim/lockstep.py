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
