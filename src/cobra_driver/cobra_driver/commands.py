"""Joint command intake: the contract's safety rules, then the target the 500 Hz loop sends (no ROS).

The rules themselves (empty / duplicate or unknown name / non-finite position, velocity or effort /
length mismatch -> ignore the whole message, which is then no heartbeat either; clamp to the URDF
limits; stale after `timeout_s` -> hold) are the shared
`cobra_common.command_guard.JointCommandGuard`; this module adds what a 500 Hz consumer of
~100 Hz commands needs. Between arrivals the target is either held, or interpolated from the
previous to the newest command over the measured arrival interval (one interval of added
latency, no overshoot), or extrapolated with the command's velocity feed-forward (capped at one
interval). A stale command holds the last target sent, so going stale never causes a jump.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from cobra_common.command_guard import CommandVerdict, JointCommandGuard, JointCommandMessage
from cobra_description.robot_model import Joint

MODES = ('hold', 'interpolate')


@dataclass(frozen=True)
class Rejection:
    cause: str  # JointCommandGuard's cause keys ('empty', 'duplicate_joint', 'unknown_joint', ...) or 'no_hold'
    detail: str


class CommandTracker:
    """Latest accepted joint command and the position target derived from it."""

    def __init__(self, joints: Sequence[Joint], *, timeout_s: float = 0.2, mode: str = 'interpolate',
                 max_interval_s: float = 0.05) -> None:
        if mode not in MODES:
            raise ValueError(f"command mode '{mode}' unknown; use one of {MODES}")
        self.guard = JointCommandGuard(joints, timeout_s=timeout_s)
        self.joint_names = [joint.name for joint in joints]
        self._index = {name: i for i, name in enumerate(self.joint_names)}
        self.lower = np.array([joint.limits.lower_rad for joint in joints])
        self.upper = np.array([joint.limits.upper_rad for joint in joints])
        self.mode = mode
        self.max_interval_s = max_interval_s
        self._latest: np.ndarray | None = None
        self._previous: np.ndarray | None = None
        self._velocity: np.ndarray | None = None
        self._received_at = -math.inf
        self._interval_s = max_interval_s
        self._hold: np.ndarray | None = None
        self.accepted = 0
        self.live = False  # the last target() followed a fresh command
        self._lock = threading.Lock()  # commands arrive on an executor thread, targets are taken by the loop

    @property
    def timeout_s(self) -> float:
        return self.guard.timeout_s

    @timeout_s.setter
    def timeout_s(self, value: float) -> None:
        self.guard.timeout_s = value

    @property
    def rejected(self) -> dict[str, int]:
        return dict(self.guard.rejections)

    def hold(self, positions_rad: np.ndarray) -> None:
        """Forget commands and hold these positions (start-up, torque re-enabled, reconnect)."""
        with self._lock:
            self._hold_unlocked(positions_rad)

    def _hold_unlocked(self, positions_rad: np.ndarray) -> None:
        self._hold = np.clip(np.asarray(positions_rad, dtype=float), self.lower, self.upper)
        self._latest = self._previous = self._velocity = None
        self._received_at = -math.inf

    def submit_message(self, message: JointCommandMessage, received_at: float) -> Rejection | None:
        """Judge a whole joint_commands message with the shared guard (the sim's verdicts), then track it."""
        with self._lock:
            return self._track(self.guard.check_message(message, received_at), received_at)

    def submit(self, names: Sequence[str], positions: Sequence[float], velocities: Sequence[float],
               received_at: float) -> Rejection | None:
        with self._lock:
            return self._track(self.guard.check(names, positions, received_at, velocities), received_at)

    def _track(self, verdict: CommandVerdict, received_at: float) -> Rejection | None:
        """Every rule is the guard's; this only turns an accepted verdict into the target stream."""
        if verdict.positions_rad is None:
            return Rejection(verdict.cause or 'rejected', verdict.detail)
        base = self._latest if self._latest is not None else self._hold
        if base is None:
            return Rejection('no_hold', 'no hold position known yet')
        target = base.copy()
        velocity = np.zeros(len(self.joint_names))
        for name, position in verdict.positions_rad.items():
            target[self._index[name]] = position
        for name, value in (verdict.velocities_rad_s or {}).items():
            velocity[self._index[name]] = value
        if self._latest is not None and math.isfinite(self._received_at):
            self._interval_s = min(self.max_interval_s, max(1e-3, received_at - self._received_at))
            self._previous = self._latest
        else:
            self._previous = None if self._hold is None else self._hold.copy()
        self._latest = target
        self._velocity = velocity if verdict.velocities_rad_s else None
        self._received_at = received_at
        self.accepted += 1
        return None

    def is_stale(self, now: float) -> bool:
        return self.guard.is_stale(now)

    def target(self, now: float) -> np.ndarray | None:
        """Position target for the cycle at `now` (None before any hold position is known).

        Sets `live`: True when the target follows a fresh command, False when it holds.
        """
        with self._lock:
            if self._latest is None or self.is_stale(now):
                self.live = False
                return None if self._hold is None else self._hold.copy()
            self.live = True
            self._hold = self._interpolated(now)  # a new array each cycle: safe to hand out
            return self._hold

    def _interpolated(self, now: float) -> np.ndarray:
        assert self._latest is not None
        elapsed = min(max(0.0, now - self._received_at), self._interval_s)
        if self._velocity is not None:
            target = self._latest + self._velocity * elapsed
        elif self.mode == 'interpolate' and self._previous is not None:
            target = self._previous + (self._latest - self._previous) * (elapsed / self._interval_s)
        else:
            target = self._latest
        return np.minimum(np.maximum(target, self.lower), self.upper)  # np.clip's Python wrapper costs more
