"""The contract's safety rules for `joint_commands`, kept by every consumer (driver and sim).

A message is rejected whole (never moved on, never counted as a heartbeat) when it names no
joint, names a joint twice or a joint the consumer does not know, has position / velocity /
effort lists whose lengths do not match the names, or holds a non-finite value in any of them.
Accepted positions are clamped to the URDF limits (continuous joints have none); no accepted command for `timeout_s` means the
consumer holds its last position. Every consumer (driver and sim) passes the whole message
(`check_message`) so both sides give the same verdict for the same message.

Rejection causes (diagnostics keys `commands_rejected_<cause>`): 'empty', 'length_mismatch',
'duplicate_joint', 'unknown_joint', 'non_finite'.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class CommandVerdict:
    positions_rad: dict[str, float] | None  # None: rejected
    cause: str | None = None  # short key of the rejection cause
    detail: str = ''
    velocities_rad_s: dict[str, float] | None = None  # the optional feed-forward, when given


class JointLimits(Protocol):
    @property
    def lower_rad(self) -> float: ...

    @property
    def upper_rad(self) -> float: ...


class Joint(Protocol):
    """What the guard reads of a URDF joint (cobra_description.robot_model.Joint has it; cobra_common
    sits below cobra_description and does not import it)."""

    @property
    def name(self) -> str: ...

    @property
    def type(self) -> str: ...

    @property
    def limits(self) -> JointLimits | None: ...


class JointCommandMessage(Protocol):
    """The fields of sensor_msgs/JointState the guard reads (no rclpy import here)."""

    name: Sequence[str]
    position: Sequence[float]
    velocity: Sequence[float]
    effort: Sequence[float]


def joint_position_limits_rad(joint: Joint) -> tuple[float, float]:
    """(lower, upper) a command is clamped to: a continuous joint (the T-Snake's twist joints)
    has none, whatever its <limit> says (the URDF parser reads its absent lower/upper as 0)."""
    if joint.type == 'continuous' or joint.limits is None:
        return -math.inf, math.inf
    return joint.limits.lower_rad, joint.limits.upper_rad


class JointCommandGuard:
    def __init__(self, joints: Sequence[Joint], timeout_s: float = 0.2) -> None:
        self._limits = {j.name: joint_position_limits_rad(j) for j in joints}
        self.timeout_s = timeout_s
        self.rejections: Counter[str] = Counter()
        self.clamped = 0
        self._last_accepted_s: float | None = None
        self._judged_names: tuple[str, ...] | None = None  # the last name tuple found known and unique

    def check_message(self, message: JointCommandMessage, now_s: float) -> CommandVerdict:
        """Judge a whole joint_commands message: what both consumers call."""
        return self.check(message.name, message.position, now_s, message.velocity, message.effort)

    def check(self, names: Sequence[str], positions: Sequence[float], now_s: float,
              velocities: Sequence[float] = (), efforts: Sequence[float] = ()) -> CommandVerdict:
        """Verdict on one command; only an accepted one counts as a heartbeat (see is_stale)."""
        verdict = self._judge(names, positions, velocities, efforts)
        if verdict.positions_rad is None:
            self.rejections[verdict.cause] += 1
        else:
            self._last_accepted_s = now_s
        return verdict

    def _judge(self, names: Sequence[str], positions: Sequence[float],
               velocities: Sequence[float], efforts: Sequence[float]) -> CommandVerdict:
        if not names:
            return CommandVerdict(None, 'empty', f'no joint names ({len(positions)} positions): '
                                  'an empty command is not a heartbeat; name the joints to move')
        if (len(names) != len(positions) or len(velocities) not in (0, len(names))
                or len(efforts) not in (0, len(names))):
            return CommandVerdict(None, 'length_mismatch', f'{len(names)} names but {len(positions)} '
                                  f'positions, {len(velocities)} velocities and {len(efforts)} efforts')
        if names is not self._judged_names:  # a command reader hands out one tuple per name set
            duplicates = sorted(name for name, count in Counter(names).items() if count > 1)
            if duplicates:
                return CommandVerdict(None, 'duplicate_joint', f'joint name(s) {duplicates} given more '
                                      'than once; name each joint once per message')
            unknown = [name for name in names if name not in self._limits]
            if unknown:
                return CommandVerdict(None, 'unknown_joint', f'unknown joint name(s) {unknown}; '
                                      f'known: {list(self._limits)}')
            if isinstance(names, tuple):  # immutable: judged once
                self._judged_names = names
        columns = [positions, *(values for values in (velocities, efforts) if len(values))]
        bad = [name for name, *values in zip(names, *columns)
               if not all(math.isfinite(v) for v in values)]
        if bad:
            return CommandVerdict(None, 'non_finite', f'non-finite position, velocity or effort for {bad}')
        accepted = {}
        for name, value in zip(names, positions):
            lower, upper = self._limits[name]
            accepted[name] = min(max(value, lower), upper)
            self.clamped += accepted[name] != value
        return CommandVerdict(accepted, velocities_rad_s=dict(zip(names, velocities)) if velocities else None)

    def is_stale(self, now_s: float) -> bool:
        """True until the first command and after `timeout_s` without an accepted one."""
        return self._last_accepted_s is None or now_s - self._last_accepted_s > self.timeout_s
