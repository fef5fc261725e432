"""Joint command intake: contract safety rules and the target the 500 Hz loop sends (no ROS).

Rules (docs contract): a message with an unknown name or a non-finite value is ignored as a
whole; no fresh command for `stale_after_s` -> hold; targets clamped to the URDF limits.
Between ~100 Hz arrivals the target is either held, or interpolated from the previous to the
newest command over the measured arrival interval (one interval of added latency, no overshoot),
or extrapolated with the command's velocity feed-forward (capped at one interval).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MODES = ('hold', 'interpolate')


@dataclass(frozen=True)
class Rejection:
    cause: str  # 'unknown_name' | 'non_finite' | 'malformed'
    detail: str


class CommandTracker:
    """Latest accepted joint command and the position target derived from it."""

    def __init__(self, joint_names: Sequence[str], lower_rad: Sequence[float], upper_rad: Sequence[float], *,
                 stale_after_s: float = 0.2, mode: str = 'interpolate', max_interval_s: float = 0.05) -> None:
        if mode not in MODES:
            raise ValueError(f"command mode '{mode}' unknown; use one of {MODES}")
        self.joint_names = list(joint_names)
        self._index = {name: i for i, name in enumerate(self.joint_names)}
        self.lower = np.asarray(lower_rad, dtype=float)
        self.upper = np.asarray(upper_rad, dtype=float)
        self.stale_after_s = stale_after_s
        self.mode = mode
        self.max_interval_s = max_interval_s
        self._latest: np.ndarray | None = None
        self._previous: np.ndarray | None = None
        self._velocity: np.ndarray | None = None
        self._received_at = -math.inf
        self._interval_s = max_interval_s
        self._hold: np.ndarray | None = None
        self.accepted = 0
        self.rejected: dict[str, int] = {}

    def hold(self, positions_rad: np.ndarray) -> None:
        """Forget commands and hold these positions (start-up, torque re-enabled, reconnect)."""
        self._hold = np.clip(np.asarray(positions_rad, dtype=float), self.lower, self.upper)
        self._latest = self._previous = self._velocity = None
        self._received_at = -math.inf

    def submit(self, names: Sequence[str], positions: Sequence[float], velocities: Sequence[float],
               received_at: float) -> Rejection | None:
        unknown = [n for n in names if n not in self._index]
        if unknown:
            return self._reject('unknown_name', f'unknown joint name(s) {unknown}; known: {self.joint_names}')
        if len(positions) != len(names) or (len(velocities) not in (0, len(names))):
            return self._reject('malformed', f'{len(names)} names but {len(positions)} positions and '
                                             f'{len(velocities)} velocities')
        values = list(positions) + list(velocities)
        if not all(math.isfinite(v) for v in values):
            return self._reject('non_finite', 'non-finite position or velocity')
        base = self._latest if self._latest is not None else self._current_hold()
        if base is None:
            return self._reject('malformed', 'no hold position known yet')
        target = base.copy()
        velocity = np.zeros(len(self.joint_names))
        for i, name in enumerate(names):
            target[self._index[name]] = positions[i]
            if velocities:
                velocity[self._index[name]] = velocities[i]
        target = np.clip(target, self.lower, self.upper)
        if self._latest is not None and math.isfinite(self._received_at):
            self._interval_s = min(self.max_interval_s, max(1e-3, received_at - self._received_at))
            self._previous = self._latest
        else:
            self._previous = self._current_hold()
        self._latest = target
        self._velocity = velocity if velocities else None
        self._received_at = received_at
        self.accepted += 1
        return None

    def _reject(self, cause: str, detail: str) -> Rejection:
        self.rejected[cause] = self.rejected.get(cause, 0) + 1
        return Rejection(cause, detail)

    def _current_hold(self) -> np.ndarray | None:
        return None if self._hold is None else self._hold.copy()

    def is_stale(self, now: float) -> bool:
        return now - self._received_at > self.stale_after_s

    def target(self, now: float) -> np.ndarray | None:
        """Position target for the cycle at `now` (None before any hold position is known).

        A stale command holds the last target sent, so going stale never causes a jump."""
        if self._latest is None or self.is_stale(now):
            return self._current_hold()
        self._hold = self._interpolated(now)
        return self._hold.copy()

    def _interpolated(self, now: float) -> np.ndarray:
        assert self._latest is not None
        elapsed = min(max(0.0, now - self._received_at), self._interval_s)
        if self._velocity is not None:
            target = self._latest + self._velocity * elapsed
        elif self.mode == 'interpolate' and self._previous is not None:
            target = self._previous + (self._latest - self._previous) * (elapsed / self._interval_s)
        else:
            target = self._latest
        return np.clip(target, self.lower, self.upper)
