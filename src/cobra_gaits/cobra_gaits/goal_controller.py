"""Go-to-goal and heading loop on odometry for a sidewinding snake (no ROS): odom -> cmd_vel.

A sidewinding snake moves sideways and cannot turn on the spot, so this is a unicycle controller
whose "forward" is the travel direction of left or right sidewinding, with a three-point turn for
goals inside its turning circle. The estimates, cruise, turn, stop and heading rules: the package
README, "The controller".
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from enum import Enum

from cobra_gaits.cmd_vel import TSNAKE_STRIDE_M_PER_RAD, Twist2D

BACK_OFF_MARGIN = 1.3  # back off until the goal lies this far beyond the turning circle's reach
PASS_FRACTION = 0.7  # the travel line passing the goal within this share of the tolerance needs no more turning
TAPER_SETTLE_S = 1.5  # the gait's taper slews to 0 within this (0.7 at 0.5 /s)
STILL_S, STILL_M = 1.0, 0.01  # at rest: the pose stayed within STILL_M over the last STILL_S of odometry
HEADING_HOLD_HYSTERESIS = 1.5  # a held heading counts as within until its error exceeds this x the tolerance
WHOLE_CYCLE_FRACTION = 0.95  # a heading is judged on an average over at least this share of a cycle
SIDE_SWITCH_RAD = math.radians(110.0)  # keep the side until its travel is this far off the bearing
# travel direction in the body frame (atan2(left, along)) of left / right sidewinding, measured
# in CobraSim at gait1's amplitudes (rigid: along -0.012, lateral +-0.086 m/s at 0.4 Hz)
COBRA_TRAVEL_ANGLE_RAD = {'left': math.radians(98.0), 'right': math.radians(-98.0)}


def wrap_rad(angle_rad: float) -> float:
    return math.atan2(math.sin(angle_rad), math.cos(angle_rad))


class GoalMode(Enum):
    POSITION = 0  # reach the position; heading free
    HEADING = 1  # turn the body to the goal yaw; position free
    POSE = 2  # position, then heading


class Phase(Enum):
    DRIVING = 'driving'
    STOPPING = 'stopping'  # zero twist sent, gait ramping down
    DONE = 'done'


@dataclass(frozen=True)
class GoalSettings:
    cruise_m_s: float = 0.06
    max_angular_rad_s: float = 0.067  # max taper 0.7 x 0.32 rad/cycle x 0.3 Hz (the cruise)
    heading_gain_per_s: float = 0.3
    position_tolerance_m: float = 0.06
    heading_tolerance_rad: float = math.radians(3.0)
    gait_period_s: float = 1.0 / 0.3  # the cruise's gait cycle (stride 0.2 m, cmd_vel's calibration)
    coast_m: float = 0.10  # travel while the gait ramps down from cruise (sim: 0.11 m on rigid ground)
    settle_s: float = 3.0  # ramp-down and rest before the result
    travel_angle_left_rad: float = COBRA_TRAVEL_ANGLE_RAD['left']
    travel_angle_right_rad: float = COBRA_TRAVEL_ANGLE_RAD['right']

    def validated(self) -> GoalSettings:
        for name, value in vars(self).items():
            if not math.isfinite(value):
                raise ValueError(f'goal controller setting {name} must be finite, got {value}')
        for name in ('cruise_m_s', 'max_angular_rad_s', 'heading_gain_per_s', 'position_tolerance_m',
                     'heading_tolerance_rad', 'gait_period_s', 'settle_s'):
            if getattr(self, name) <= 0.0:
                raise ValueError(f'goal controller setting {name} must be positive, got {getattr(self, name)}')
        return self


# T-Snake (cobra_gaits.cmd_vel's LTS mapping, rigid ground): omega_t 0.5 rad/s sidewinds at 0.030 m/s
# at 85 deg (left) / -89 deg (right) of its body axis and coasts 0.068 m after a stop; in_place
# steering turns up to 0.08 rad/s
TSNAKE_TRAVEL_ANGLE_RAD = {'left': math.radians(85.0), 'right': math.radians(-89.0)}


def robot_goal_settings(robot: str) -> GoalSettings:
    """The controller defaults of a robot (cobra | tsnake): its cruise, turn and calibration."""
    if robot == 'cobra':
        return GoalSettings()
    if robot == 'tsnake':
        cruise_m_s = 0.03
        # heading gain 0.05 /s: its lag-corrected average spans two 12 s curve periods, and 0.3 /s
        # (COBRA's) made the loop swing +-15 deg; the sim: goals 1 m away missed by 0.02-0.08 m
        return GoalSettings(cruise_m_s=cruise_m_s, max_angular_rad_s=0.06, heading_gain_per_s=0.05,
                            gait_period_s=2.0 * math.pi * TSNAKE_STRIDE_M_PER_RAD / cruise_m_s, coast_m=0.07,
                            travel_angle_left_rad=TSNAKE_TRAVEL_ANGLE_RAD['left'],
                            travel_angle_right_rad=TSNAKE_TRAVEL_ANGLE_RAD['right'])
    raise ValueError(f"robot '{robot}': choose cobra or tsnake")


class CycleAverage:
    """Lag-corrected average of (x, y, unwrapped yaw) over the last gait cycle (see module doc).

    est = m1 + (m1 - m0) / 2, with m1 the mean over the last `window_s` and m0 the mean over the
    cycle before: whole-cycle means cancel the head's swing even while its amplitude changes (a
    new taper), and their difference is the last cycle's displacement, half of which is the lag
    of m1. Until two cycles are in, the mean of what there is (the robot starts at rest, straight).
    """

    def __init__(self, window_s: float) -> None:
        self.window_s = window_s
        self._samples: deque[tuple[float, float, float, float]] = deque()
        self._last_yaw: float | None = None

    def add(self, time_s: float, x_m: float, y_m: float, yaw_rad: float) -> None:
        if self._samples and time_s <= self._samples[-1][0]:
            return  # a repeated or older stamp adds nothing
        if self._last_yaw is not None:
            yaw_rad = self._last_yaw + wrap_rad(yaw_rad - self._last_yaw)
        self._last_yaw = yaw_rad
        self._samples.append((time_s, x_m, y_m, yaw_rad))
        while self._samples and self._samples[0][0] < time_s - 2.0 * self.window_s:
            self._samples.popleft()

    def moved_m(self, last_s: float) -> float:
        """How far (x, y) the samples of the last `last_s` lie from the newest; inf until they span it."""
        if self.span_s < last_s:
            return math.inf
        t_now, x_now, y_now, _ = self._samples[-1]
        return max(math.hypot(x - x_now, y - y_now) for t, x, y, _ in self._samples if t >= t_now - last_s)

    @property
    def span_s(self) -> float:
        return self._samples[-1][0] - self._samples[0][0] if self._samples else 0.0

    def estimate(self) -> tuple[float, float, float] | None:
        """(x, y, yaw) now; None before a sample."""
        if not self._samples:
            return None
        split = self._samples[-1][0] - self.window_s
        recent = [sample for sample in self._samples if sample[0] > split]
        before = [sample for sample in self._samples if sample[0] <= split]
        last_cycle = [sum(sample[i] for sample in recent) / len(recent) for i in (1, 2, 3)]
        if self.span_s < 2.0 * self.window_s * WHOLE_CYCLE_FRACTION or not before:
            return tuple(last_cycle)
        cycle_before = [sum(sample[i] for sample in before) / len(before) for i in (1, 2, 3)]
        return tuple(m1 + 0.5 * (m1 - m0) for m1, m0 in zip(last_cycle, cycle_before))


@dataclass(frozen=True)
class GoalStatus:
    twist: Twist2D
    phase: Phase
    distance_m: float  # estimated distance to the goal position (0 for a heading goal)
    heading_error_rad: float  # travel direction vs bearing (position), or heading vs goal yaw


class GoalController:
    """One goal: feed odometry with `update(time_s, x, y, yaw)`, publish the returned twist."""

    def __init__(self, goal_x_m: float, goal_y_m: float, goal_yaw_rad: float, mode: GoalMode,
                 settings: GoalSettings = GoalSettings()) -> None:
        for name, value in (('x', goal_x_m), ('y', goal_y_m), ('yaw', goal_yaw_rad)):
            if not math.isfinite(value):
                raise ValueError(f'goal {name} must be finite, got {value}')
        self.settings = settings.validated()
        self.goal = (goal_x_m, goal_y_m, goal_yaw_rad)
        self.mode = mode
        self.stage = GoalMode.HEADING if mode == GoalMode.HEADING else GoalMode.POSITION
        self.filter = CycleAverage(settings.gait_period_s)
        self.phase = Phase.DRIVING
        self.side: str | None = None
        self._stop_time_s: float | None = None
        self._holding_since_s: float | None = None  # heading within tolerance since
        self.approaches = 1  # drives towards the position (more when a stop ended too far off)
        self.backing = False  # driving away on the other side to bring the goal out of the turning circle
        self.turning_radius_m = settings.cruise_m_s / settings.max_angular_rad_s
        self.last = GoalStatus(Twist2D(), Phase.DRIVING, math.nan, math.nan)

    def travel_angle_rad(self, side: str) -> float:
        return self.settings.travel_angle_left_rad if side == 'left' else self.settings.travel_angle_right_rad

    def errors(self) -> tuple[float, float]:
        """(distance [m], heading error [rad]) of the current stage from the estimate."""
        estimate = self.filter.estimate()
        if estimate is None:
            return math.nan, math.nan
        x, y, yaw = estimate
        if self.stage == GoalMode.HEADING:
            return 0.0, wrap_rad(self.goal[2] - yaw)
        dx, dy = self.goal[0] - x, self.goal[1] - y
        bearing = math.atan2(dy, dx)
        if self.side is None or abs(wrap_rad(bearing - yaw - self.travel_angle_rad(self.side))) > SIDE_SWITCH_RAD:
            self.side = min(('left', 'right'),
                            key=lambda side: abs(wrap_rad(bearing - yaw - self.travel_angle_rad(side))))
        return math.hypot(dx, dy), wrap_rad(bearing - yaw - self.travel_angle_rad(self.side))

    def update(self, time_s: float, x_m: float, y_m: float, yaw_rad: float) -> GoalStatus:
        self.filter.add(time_s, x_m, y_m, yaw_rad)
        s = self.settings
        distance, error = self.errors()
        if self.phase == Phase.STOPPING:
            # settled: settle_s after the stop, and still in the odometry (a controller that lags an
            # unpaced sim sees its stop take effect only later)
            if time_s - self._stop_time_s >= s.settle_s and self.filter.moved_m(STILL_S) <= STILL_M:
                at_rest_m = math.hypot(self.goal[0] - x_m, self.goal[1] - y_m)  # straight at rest: the pose is the body's
                if self.stage == GoalMode.POSITION and at_rest_m > s.coast_m + s.position_tolerance_m:
                    # further off than a stop can miss by (a controller lagging an unpaced sim, a coast
                    # unlike coast_m): drive again from rest rather than report a goal not reached
                    self.phase, self.approaches, self.backing = Phase.DRIVING, self.approaches + 1, False
                    self.filter = CycleAverage(s.gait_period_s)
                    self.filter.add(time_s, x_m, y_m, yaw_rad)
                    distance, error = self.errors()
                elif self.mode == GoalMode.POSE and self.stage == GoalMode.POSITION:
                    self.stage, self.phase = GoalMode.HEADING, Phase.DRIVING
                    self.filter = CycleAverage(s.gait_period_s)
                    self.filter.add(time_s, x_m, y_m, yaw_rad)
                    distance, error = self.errors()
                else:
                    self.phase = Phase.DONE
            if self.phase != Phase.DRIVING:
                self.last = GoalStatus(Twist2D(), self.phase, distance, error)
                return self.last
        if self.stage == GoalMode.HEADING:
            # a heading that looks reached is held (the small error's gentle turn) for two whole
            # cycles after the large taper is gone; still within the tolerance all along -> done
            limit = (HEADING_HOLD_HYSTERESIS if self._holding_since_s is not None else 1.0) * s.heading_tolerance_rad
            at_rest = self.filter.span_s == 0.0  # the stage starts straight and still: the head's yaw is the heading
            twist = Twist2D(s.cruise_m_s, _clamp(s.heading_gain_per_s * error, s.max_angular_rad_s))
            if abs(error) <= limit and not at_rest:
                if self._holding_since_s is None:
                    self._holding_since_s = time_s
                done = time_s - self._holding_since_s >= 2.0 * s.gait_period_s + TAPER_SETTLE_S
            else:
                self._holding_since_s = None
                done = at_rest and abs(error) <= s.heading_tolerance_rad
        else:
            along = distance * math.cos(error)
            cross = abs(distance * math.sin(error))
            passes = cross <= PASS_FRACTION * s.position_tolerance_m  # the travel line passes within tolerance
            # stop where the ramp-down's coast ends at the goal: it travels on along the line
            done = along <= s.coast_m and (passes or distance <= s.position_tolerance_m)
            # a goal inside the turning circle on the travel side cannot be met by turning on:
            # back away on the other side (still turning the same way), as a car's three-point turn
            reach_m = 2.0 * self.turning_radius_m * abs(math.sin(error)) if abs(error) < math.pi / 2 \
                else 2.0 * self.turning_radius_m
            if self.backing:
                self.backing = distance < BACK_OFF_MARGIN * reach_m
            else:
                self.backing = distance < reach_m and not passes
            forward = s.cruise_m_s if self.side == 'left' else -s.cruise_m_s
            twist = Twist2D(-forward if self.backing else forward,
                            _clamp(s.heading_gain_per_s * error, s.max_angular_rad_s))
        if done:
            self.phase, self._stop_time_s = Phase.STOPPING, time_s
            twist = Twist2D()
        self.last = GoalStatus(twist, self.phase, distance, error)
        return self.last


def _clamp(value: float, limit: float) -> float:
    return min(max(value, -limit), limit)
