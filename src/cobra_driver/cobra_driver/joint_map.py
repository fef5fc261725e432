"""Joint <-> servo mapping and SI unit conversion (no ROS).

joint angle = direction * (servo angle - zero_offset), servo angle measured from tick 2048
(the centre of the 4096-tick turn). Velocity and effort follow the same direction sign.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cobra_driver import control_table as ct

RAD_PER_TICK = 2.0 * math.pi / ct.POSITION_TICKS_PER_REV
RAD_S_PER_VELOCITY_UNIT = ct.VELOCITY_UNIT_RPM * 2.0 * math.pi / 60.0


@dataclass(frozen=True)
class JointServo:
    joint_name: str
    servo_id: int
    model: ct.ServoModel
    zero_offset_rad: float
    direction: int  # +1 or -1
    lower_rad: float  # URDF limits
    upper_rad: float

    def __post_init__(self) -> None:
        if self.direction not in (1, -1):
            raise ValueError(f'{self.joint_name}: direction must be +1 or -1, got {self.direction}')
        if not self.lower_rad < self.upper_rad:
            raise ValueError(f'{self.joint_name}: lower limit {self.lower_rad} must be below upper {self.upper_rad}')
        for limit in (self.lower_rad, self.upper_rad):
            tick = self.ticks_from_rad(limit)
            if not 0 <= tick < ct.POSITION_TICKS_PER_REV:
                raise ValueError(f'{self.joint_name}: joint limit {limit:.3f} rad with zero offset '
                                 f'{self.zero_offset_rad:.3f} rad falls outside the servo turn (tick {tick})')

    def ticks_from_rad(self, joint_rad: float) -> int:
        servo_rad = self.direction * joint_rad + self.zero_offset_rad
        return ct.POSITION_CENTRE_TICK + round(servo_rad / RAD_PER_TICK)

    def rad_from_ticks(self, ticks: int) -> float:
        servo_rad = (ticks - ct.POSITION_CENTRE_TICK) * RAD_PER_TICK
        return self.direction * (servo_rad - self.zero_offset_rad)

    def rad_s_from_raw(self, raw_velocity: int) -> float:
        return self.direction * raw_velocity * RAD_S_PER_VELOCITY_UNIT

    def current_a_from_raw(self, raw_current: int) -> float:
        return raw_current * self.model.current_unit_a

    def effort_nm_from_raw(self, raw_current: int) -> float:
        return self.direction * self.current_a_from_raw(raw_current) * self.model.torque_constant_nm_per_a

    def position_limit_ticks(self) -> tuple[int, int]:
        """(min, max) Position Limit register values equivalent to the URDF limits."""
        ticks = sorted((self.ticks_from_rad(self.lower_rad), self.ticks_from_rad(self.upper_rad)))
        return ticks[0], ticks[1]

    def clamp(self, joint_rad: float) -> float:
        return min(self.upper_rad, max(self.lower_rad, joint_rad))
