"""The contract's safety rules for `joint_commands`, kept by every consumer (driver and sim).

A message with an unknown joint name or a non-finite value is rejected whole (never moved on);
accepted positions are clamped to the URDF limits; no accepted command for `timeout_s` means
the consumer holds its last position.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from cobra_description.robot_model import Joint


@dataclass(frozen=True)
class CommandVerdict:
    positions_rad: dict[str, float] | None  # None: rejected
    cause: str | None = None  # short key of the rejection cause
    detail: str = ''
    velocities_rad_s: dict[str, float] | None = None  # the optional feed-forward, when given


class JointCommandGuard:
    def __init__(self, joints: Sequence[Joint], timeout_s: float = 0.2) -> None:
        self._limits = {j.name: (j.limits.lower_rad, j.limits.upper_rad) for j in joints}
        self.timeout_s = timeout_s
        self.rejections: Counter[str] = Counter()
        self.clamped = 0
        self._last_accepted_s: float | None = None

    def check(self, names: Sequence[str], positions: Sequence[float], now_s: float,
              velocities: Sequence[float] = ()) -> CommandVerdict:
        verdict = self._judge(names, positions, velocities)
        if verdict.positions_rad is None:
            self.rejections[verdict.cause] += 1
        else:
            self._last_accepted_s = now_s
        return verdict

    def _judge(self, names: Sequence[str], positions: Sequence[float],
               velocities: Sequence[float]) -> CommandVerdict:
        if len(names) != len(positions) or len(velocities) not in (0, len(names)):
            return CommandVerdict(None, 'length_mismatch', f'{len(names)} names but {len(positions)} '
                                  f'positions and {len(velocities)} velocities')
        unknown = [name for name in names if name not in self._limits]
        if unknown:
            return CommandVerdict(None, 'unknown_joint', f'unknown joint name(s) {unknown}; '
                                  f'known: {list(self._limits)}')
        bad = [name for name, *values in zip(names, positions, *([velocities] if velocities else []))
               if not all(math.isfinite(v) for v in values)]
        if bad:
            return CommandVerdict(None, 'non_finite', f'non-finite position or velocity for {bad}')
        accepted = {}
        for name, value in zip(names, positions):
            lower, upper = self._limits[name]
            accepted[name] = min(max(value, lower), upper)
            self.clamped += accepted[name] != value
        return CommandVerdict(accepted, velocities_rad_s=dict(zip(names, velocities)) if velocities else None)

    def is_stale(self, now_s: float) -> bool:
        """True until the first command and after `timeout_s` without an accepted one."""
        return self._last_accepted_s is None or now_s - self._last_accepted_s > self.timeout_s
