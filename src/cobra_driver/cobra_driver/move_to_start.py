"""Move-to-start: joints reach the first commanded pose at a bounded speed (no ROS).

After start-up, torque on or a reconnect the driver holds the pose it reads; the gait's first
command may be far from it (a curled robot, a straight-line gait). Sent as is, with no
Profile Velocity, every servo would close that gap at full speed. Here each joint that has
not yet joined the command stream is rate-limited from where it stood towards the target;
it joins (and from then on follows the target unlimited) once it has caught up with a live
command, or the command has crossed it (a trajectory faster than the bound is joined where it
turns back towards the joint). A servo that rejoins after a fault restarts this phase for itself alone.
"""

from __future__ import annotations

import numpy as np

JOIN_TOLERANCE_RAD = 1e-9
"""Reached: the bounded step landed on the command (up to rounding), so joining adds no jump."""
MAX_STEP_S = 0.02
"""Longest time step credited at once: after a stalled cycle the joint does not jump ahead."""


class MoveToStart:
    def __init__(self, joint_count: int, speed_rad_s: float) -> None:
        self.speed_rad_s = speed_rad_s
        self._output = np.zeros(joint_count)
        self._limited = np.zeros(joint_count, dtype=bool)
        self._any_limited = False  # mirrors _limited.any(): checked every cycle
        self._last_s: float | None = None

    @property
    def active(self) -> bool:
        """True while any joint is still moving to the command stream at the bounded speed."""
        return self._any_limited

    @property
    def limited(self) -> np.ndarray:
        return self._limited.copy()

    def start(self, positions_rad: np.ndarray) -> None:
        """Every joint stands at `positions_rad` and moves to the next commands at the bounded speed."""
        self._output = np.array(positions_rad, dtype=float)
        self._limited[:] = True
        self._any_limited = True
        self._last_s = None

    def restart(self) -> None:
        """Every joint moves on from the position last sent at the bounded speed (commands resume)."""
        self._limited[:] = True
        self._any_limited = True

    def start_joint(self, index: int, position_rad: float) -> None:
        """One joint (a servo rejoining the loop) stands here and moves to the target at the bounded speed."""
        self._output[index] = position_rad
        self._limited[index] = True
        self._any_limited = True

    def limit(self, target_rad: np.ndarray, now_s: float, commanded: bool) -> np.ndarray:
        """The position to send this cycle. `commanded`: the target follows live commands (not a hold)."""
        if self._last_s is None:
            dt = 0.0
        else:
            dt = min(MAX_STEP_S, max(0.0, now_s - self._last_s))
        self._last_s = now_s
        if not self._any_limited:
            self._output = target_rad
            return target_rad
        step = self.speed_rad_s * dt
        limited = self._limited
        error = target_rad - self._output
        output = np.where(limited, self._output + np.minimum(np.maximum(error, -step), step), target_rad)
        if commanded:
            # Caught up with a live command (reached it this step, or it crossed the joint: a
            # trajectory faster than the bound is met where it turns back): follows it from now on.
            remaining = target_rad - output
            self._limited = limited & (np.abs(remaining) > JOIN_TOLERANCE_RAD) & (remaining * error > 0.0)
            self._any_limited = bool(self._limited.any())
        self._output = output
        return output
