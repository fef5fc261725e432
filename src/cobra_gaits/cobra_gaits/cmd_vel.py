"""`cmd_vel` gait mode: a geometry_msgs/Twist (linear.y, angular.z in base_link) -> gait (no ROS).

COBRA sidewinds (speed from the frequency, turns by conical sidewinding); the T-Snake runs the LTS
curve (speed from omega_t, turns by the LTS paper's steering modes). How each twist component maps
to the gait, the servo-speed cap and how twists are judged: the package README, "Driving with
cmd_vel".
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from cobra_description.robot_model import Joint
from cobra_gaits.speed_limit import TWIST_JOINT_SUFFIX, check_lts_gait, has_twist_joints
from cobra_gaits.lts import (STEERING_MODES, BackboneCurve, LinearTwistParams,
                             LtsGait, LtsJointGenerator, TSnakeGeometry, solve_bending_rad, steering)
from cobra_gaits.sidewinding import GaitError, SidewindingGenerator, SidewindingParams, StartStopRamp
from cobra_gaits.speed_limit import peak_wave_speed_rad_s

DEAD_BAND_FRACTION = 0.02  # a |twist| under 2 % of its limit counts as zero (joystick rest noise)

# --- calibration: measured in CobraSim with scripts/bench/cmd_vel_bench.py (README "Driving with
# cmd_vel"), gait1's amplitudes (0.35 / 0.70 rad). Stride: 0.21-0.22 m/cycle on rigid ground and
# 0.19 on SCM loose sand at 0.2-0.4 Hz; it drops above 0.5 Hz (0.17 at 0.6 Hz), hence the cap.
# Turn per cycle against taper (rigid and SCM alike): 0.25 -> 0.07-0.08, 0.5 -> 0.15-0.17,
# 0.7 -> 0.22 rad, sign opposite for left and right: a line through 0 of slope 0.32.
COBRA_STRIDE_M_PER_CYCLE = 0.20
COBRA_TURN_RAD_PER_CYCLE_PER_TAPER = {'left': -0.32, 'right': 0.32}
COBRA_MAX_TAPER = 0.7
COBRA_MAX_FREQUENCY_HZ = 0.5
# T-Snake (rigid ground): omega_t 0.5 rad/s -> 0.0297 m/s; yaw rate per unit scale of the steering
# mode's twist profile (the LTS paper's a0, a1), omega_t = 0, scale 2-4: in_place -0.027,
# head_anchored +0.027, tail_anchored +0.0105 rad/s (signed: the mode's turning sense here)
TSNAKE_STRIDE_M_PER_RAD = 0.059
TSNAKE_TURN_RAD_S_PER_SCALE = {'in_place': -0.027, 'head_anchored': 0.027, 'tail_anchored': 0.0105}
TSNAKE_MAX_TWIST_SCALE = 3.0  # head_anchored at scale > ~3.5 with omega_t 1 rad/s exceeds the servo limit


@dataclass(frozen=True)
class Twist2D:
    """What a snake follows of a Twist: lateral speed (linear.y) and yaw rate (angular.z)."""

    lateral_m_s: float = 0.0
    angular_rad_s: float = 0.0

    @property
    def is_zero(self) -> bool:
        return self.lateral_m_s == 0.0 and self.angular_rad_s == 0.0


@dataclass(frozen=True)
class TwistVerdict:
    command: Twist2D | None  # None: rejected, nothing changes
    cause: str | None = None  # 'non_finite' when rejected
    detail: str = ''
    clamped: tuple[str, ...] = ()  # components clamped to the limits
    unused: tuple[str, ...] = ()  # non-zero components the robot cannot follow


@dataclass(frozen=True)
class TwistLimits:
    max_lateral_m_s: float
    max_angular_rad_s: float


class TwistGuard:
    """The command guard's verdicts for twists: reject non-finite, clamp beyond the limits."""

    COMPONENTS = ('linear.x', 'linear.y', 'linear.z', 'angular.x', 'angular.y', 'angular.z')

    def __init__(self, limits: TwistLimits) -> None:
        self.limits = limits
        self.rejections: Counter[str] = Counter()
        self.clamped = 0
        self.unused = 0

    def check(self, linear: Sequence[float], angular: Sequence[float]) -> TwistVerdict:
        values = dict(zip(self.COMPONENTS, [*linear, *angular]))
        bad = [name for name, value in values.items() if not math.isfinite(value)]
        if bad:
            self.rejections['non_finite'] += 1
            return TwistVerdict(None, 'non_finite', f'non-finite {", ".join(bad)}: twist ignored')
        clamped = []
        lateral = values['linear.y']
        angular_z = values['angular.z']
        if abs(lateral) > self.limits.max_lateral_m_s:
            lateral = math.copysign(self.limits.max_lateral_m_s, lateral)
            clamped.append('linear.y')
        if abs(angular_z) > self.limits.max_angular_rad_s:
            angular_z = math.copysign(self.limits.max_angular_rad_s, angular_z)
            clamped.append('angular.z')
        unused = tuple(name for name in ('linear.x', 'linear.z', 'angular.x', 'angular.y') if values[name] != 0.0)
        self.clamped += bool(clamped)
        self.unused += bool(unused)
        detail = ''
        if clamped:
            detail = (f'{" and ".join(clamped)} beyond the limits (|linear.y| <= '
                      f'{self.limits.max_lateral_m_s:.3g} m/s, |angular.z| <= {self.limits.max_angular_rad_s:.3g} '
                      'rad/s): clamped')
        return TwistVerdict(Twist2D(lateral, angular_z), None, detail, tuple(clamped), unused)


@dataclass(frozen=True)
class CmdVelSettings:
    """The node's cmd_vel parameters (config/gait.yaml, `cmd_vel.*`)."""

    timeout_s: float = 0.5
    max_frequency_hz: float = COBRA_MAX_FREQUENCY_HZ
    stride_m_per_cycle: float = COBRA_STRIDE_M_PER_CYCLE
    turn_left_rad_per_cycle_per_taper: float = COBRA_TURN_RAD_PER_CYCLE_PER_TAPER['left']
    turn_right_rad_per_cycle_per_taper: float = COBRA_TURN_RAD_PER_CYCLE_PER_TAPER['right']
    max_taper: float = COBRA_MAX_TAPER
    taper_slew_per_s: float = 0.5
    tsnake_steering: str = 'in_place'
    tsnake_max_omega_t_rad_s: float = 1.0
    tsnake_stride_m_per_rad: float = TSNAKE_STRIDE_M_PER_RAD
    tsnake_max_twist_scale: float = TSNAKE_MAX_TWIST_SCALE
    tsnake_turn_rad_s_per_scale: float = 0.0  # 0: the calibrated value of the steering mode
    tsnake_rate_slew_per_s: float = 1.0  # omega_t [rad/s^2] and twist scale [1/s] change at most this fast

    def validated(self) -> CmdVelSettings:
        positive = ('timeout_s', 'max_frequency_hz', 'stride_m_per_cycle', 'taper_slew_per_s',
                    'tsnake_max_omega_t_rad_s', 'tsnake_stride_m_per_rad', 'tsnake_max_twist_scale',
                    'tsnake_rate_slew_per_s')
        for name in positive:
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0.0):
                raise GaitError(f'cmd_vel.{name} must be a positive number, got {value}')
        if not 0.0 <= self.max_taper < 1.0:
            raise GaitError('cmd_vel.max_taper must be within [0, 1) (1 flattens an end of the body), '
                            f'got {self.max_taper}')
        for name in ('turn_left_rad_per_cycle_per_taper', 'turn_right_rad_per_cycle_per_taper'):
            if not (math.isfinite(getattr(self, name)) and getattr(self, name) != 0.0):
                raise GaitError(f'cmd_vel.{name} must be a non-zero number (the sim calibration), '
                                f'got {getattr(self, name)}')
        if not math.isfinite(self.tsnake_turn_rad_s_per_scale):
            raise GaitError(f'cmd_vel.tsnake_turn_rad_s_per_scale must be finite (0 = the calibration), got '
                            f'{self.tsnake_turn_rad_s_per_scale}')
        if self.tsnake_steering not in STEERING_MODES:
            raise GaitError(f"cmd_vel.tsnake_steering '{self.tsnake_steering}' is not an LTS steering mode: "
                            f"choose one of {', '.join(STEERING_MODES)}")
        return self

    def tsnake_turn_gain(self) -> float:
        """Yaw rate [rad/s] at twist scale 1 of the chosen steering mode."""
        if self.tsnake_turn_rad_s_per_scale != 0.0:
            return self.tsnake_turn_rad_s_per_scale
        return TSNAKE_TURN_RAD_S_PER_SCALE[self.tsnake_steering]


def _slew(current: float, target: float, max_change: float) -> float:
    return current + min(max(target - current, -max_change), max_change)


def _largest_frequency(within: callable, high: float) -> float:
    """Largest f in [0, high] with within(f) (monotone), by bisection; 0 when even 0 fails."""
    if within(high):
        return high
    if not within(0.0):
        return 0.0
    low = 0.0
    for _ in range(50):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if within(middle) else (low, middle)
    return low


class ConicalSidewinding:
    """COBRA's cmd_vel source: sidewinding with a linear amplitude taper (conical sidewinding).

    `set_target(Twist2D)` chooses frequency, direction and taper; `advance(dt)` moves phase,
    amplitudes (slewed) and taper (slewed); `positions()` in joint order.
    """

    def __init__(self, joints: Sequence[Joint], preset: SidewindingParams, settings: CmdVelSettings) -> None:
        self.settings = settings.validated()
        kinds = [joint.axis_kind for joint in joints]
        self.generator = SidewindingGenerator(kinds, replace(preset, frequency_hz=0.0))
        self.ramp = self.generator.ramp
        count = len(kinds)
        self.body_position = np.linspace(-1.0, 1.0, count) if count > 1 else np.zeros(count)  # xi_k
        self.taper = 0.0
        self._target_taper = 0.0
        self._preset = preset
        widest = max(preset.amplitude_vertical_rad, preset.amplitude_horizontal_rad) * (1.0 + settings.max_taper)
        for joint in joints:
            if joint.limits is not None and widest > max(-joint.limits.lower_rad, joint.limits.upper_rad):
                raise GaitError(f'cmd_vel: the widest conical wave ({widest:.3f} rad = amplitude x (1 + '
                                f'max_taper {settings.max_taper:g})) leaves the URDF range of {joint.name}: '
                                'use a smaller cmd_vel.max_taper or smaller amplitudes')
        self.max_frequency_hz = self._servo_frequency_limit(joints, widest)
        if self.max_frequency_hz <= 0.0:
            raise GaitError('cmd_vel: no frequency keeps the conical wave within the servo speed limit '
                            f'(amplitude up to {widest:.3f} rad): use smaller amplitudes or a longer ramp_duration_s')
        self.limits = TwistLimits(
            self.max_frequency_hz * settings.stride_m_per_cycle,
            self.max_frequency_hz * settings.max_taper * min(abs(settings.turn_left_rad_per_cycle_per_taper),
                                                             abs(settings.turn_right_rad_per_cycle_per_taper)))

    def _servo_frequency_limit(self, joints: Sequence[Joint], widest_rad: float) -> float:
        """Largest frequency at which amplitude `widest_rad`, with the ramp and both slews, stays
        under every joint's URDF velocity limit (capped by max_frequency_hz)."""
        limits = [joint.limits.velocity_rad_s for joint in joints if joint.limits is not None]
        if not limits:
            return self.settings.max_frequency_hz
        slew_rad_s = self._preset.amplitude_slew_rad_s + widest_rad * self.settings.taper_slew_per_s
        return _largest_frequency(
            lambda f: peak_wave_speed_rad_s(widest_rad, f, self._preset.ramp_duration_s, slew_rad_s) <= min(limits),
            self.settings.max_frequency_hz)

    def turn_rad_per_cycle_per_taper(self, direction: str) -> float:
        return (self.settings.turn_left_rad_per_cycle_per_taper if direction == 'left'
                else self.settings.turn_right_rad_per_cycle_per_taper)

    def plan(self, command: Twist2D) -> tuple[float, str, float]:
        """(frequency [Hz], direction, taper) for a non-zero command within the limits."""
        s = self.settings
        direction = self.generator.params.direction
        if command.lateral_m_s != 0.0:
            direction = 'left' if command.lateral_m_s > 0.0 else 'right'
        frequency = abs(command.lateral_m_s) / s.stride_m_per_cycle
        slope = self.turn_rad_per_cycle_per_taper(direction)
        if command.angular_rad_s != 0.0 and s.max_taper > 0.0:
            frequency = max(frequency, abs(command.angular_rad_s) / (s.max_taper * abs(slope)))
        frequency = min(frequency, self.max_frequency_hz)
        taper = 0.0
        if frequency > 0.0 and s.max_taper > 0.0:
            taper = min(max(command.angular_rad_s / (frequency * slope), -s.max_taper), s.max_taper)
        return frequency, direction, taper

    def set_target(self, command: Twist2D | None) -> None:
        """Follow `command`; None or a zero twist: ramp down to straight (phase and frequency kept)."""
        if command is None or command.is_zero:
            self.ramp.stop()
            self._target_taper = 0.0
            return
        frequency, direction, taper = self.plan(command)
        self.generator.retune(frequency_hz=frequency, direction=direction)
        self._target_taper = taper
        self.ramp.start()

    @property
    def frequency_hz(self) -> float:
        return self.generator.params.frequency_hz

    def advance(self, dt_s: float) -> None:
        self.generator.advance(dt_s)
        self.taper = _slew(self.taper, self._target_taper, self.settings.taper_slew_per_s * dt_s)

    def positions(self) -> np.ndarray:
        return self.generator.positions() * (1.0 + self.taper * self.body_position)


class TSnakeCmdVel:
    """The T-Snake's cmd_vel source: the LTS curve with integrated head phase and piece twists.

    omega_t (translation) and the twist scale (turning, times the steering mode's a1 s + a0)
    slew at tsnake_rate_slew_per_s; a stop blends out to straight with twists at their nearest
    full turn (the envelope logic of cobra_gaits.gait_source.LtsSource).
    """

    def __init__(self, joints: Sequence[Joint], ramp_duration_s: float, settings: CmdVelSettings,
                 geometry: TSnakeGeometry = TSnakeGeometry()) -> None:
        self.settings = settings.validated()
        mode = steering(settings.tsnake_steering, geometry)
        self.mode_twist: LinearTwistParams = mode.twist
        self.curve = BackboneCurve(replace(mode.curve, temporal_frequency_rad_s=1.0))  # time = head phase
        self.generator = LtsJointGenerator(LtsGait(self.curve.params, LinearTwistParams(), geometry))
        names = geometry.joint_names()
        robot_names = [joint.name for joint in joints]
        if robot_names != names:
            raise GaitError(f'gait:=cmd_vel on a robot with twist joints drives the T-Snake joints '
                            f'{names[0]} .. {names[-1]}; the URDF has {robot_names}: use the T-Snake URDF')
        worst = LtsGait(replace(mode.curve, temporal_frequency_rad_s=settings.tsnake_max_omega_t_rad_s),
                        LinearTwistParams(mode.twist.a0_rad_s * settings.tsnake_max_twist_scale,
                                          mode.twist.a1_rad_m_s * settings.tsnake_max_twist_scale), geometry)
        check_lts_gait(joints, worst.validated(), ramp_duration_s,
                       f'cmd_vel ({settings.tsnake_steering}, at its limits)')
        self.joint_names = names
        self.ramp = StartStopRamp(ramp_duration_s)
        self.piece_rates_per_scale = mode.twist.rolling_speed_rad_s(geometry.piece_centres_m)
        self.head_phase_rad = 0.0
        self.piece_twists_rad = np.zeros(geometry.module_count + 1)
        self.omega_t_rad_s = 0.0
        self.twist_scale = 0.0
        self._target = (0.0, 0.0)
        self.is_twist = np.array([name.endswith(TWIST_JOINT_SUFFIX) for name in names])
        self._straight_rad = np.zeros(len(names))
        gain = settings.tsnake_turn_gain()
        self.limits = TwistLimits(settings.tsnake_max_omega_t_rad_s * settings.tsnake_stride_m_per_rad,
                                  settings.tsnake_max_twist_scale * abs(gain))

    @property
    def target_omega_t_rad_s(self) -> float:
        return self._target[0]

    def set_target(self, command: Twist2D | None) -> None:
        if command is None or command.is_zero:
            self.ramp.stop()
            return
        s = self.settings
        omega_t = -command.lateral_m_s / s.tsnake_stride_m_per_rad  # omega_t > 0 sidewinds towards -y
        scale = command.angular_rad_s / s.tsnake_turn_gain()
        self._target = (min(max(omega_t, -s.tsnake_max_omega_t_rad_s), s.tsnake_max_omega_t_rad_s),
                        min(max(scale, -s.tsnake_max_twist_scale), s.tsnake_max_twist_scale))
        self.ramp.start()

    def advance(self, dt_s: float) -> None:
        if dt_s < 0.0:
            raise GaitError('time step must not be negative')
        self.ramp.advance(dt_s)
        if not self.ramp.running:
            return  # the shape freezes and shrinks to straight (as LtsSource)
        step = self.settings.tsnake_rate_slew_per_s * dt_s
        self.omega_t_rad_s = _slew(self.omega_t_rad_s, self._target[0], step)
        self.twist_scale = _slew(self.twist_scale, self._target[1], step)
        self.head_phase_rad += self.omega_t_rad_s * dt_s
        self.piece_twists_rad = self.piece_twists_rad + self.twist_scale * self.piece_rates_per_scale * dt_s

    def gait_positions(self) -> np.ndarray:
        integral_a, integral_b = self.generator.bellows_module_integrals(self.head_phase_rad)
        before, after = self.piece_twists_rad[:-1], self.piece_twists_rad[1:]
        dorsal, lateral = solve_bending_rad(integral_a, integral_b, before, after)
        return np.stack([dorsal, after - before, lateral], -1).ravel()

    def positions(self) -> np.ndarray:
        gait_rad = self.gait_positions()
        envelope = self.ramp.envelope
        if envelope == 1.0:
            self._straight_rad = np.where(self.is_twist, 2.0 * math.pi * np.round(gait_rad / (2.0 * math.pi)), 0.0)
            return gait_rad
        return self._straight_rad + envelope * (gait_rad - self._straight_rad)


class CmdVelSource:
    """What the gait node plays for gait:=cmd_vel: guard, staleness and the robot's mapping.

    `on_twist(linear, angular)` judges a Twist at the gait time of the last `advance`; every
    `advance(dt)` applies the newest accepted twist, or a zero twist once none arrived for
    `timeout_s`. `ramp.start()` / `ramp.stop()` (gait/start, gait/stop) enable and disable
    following: a stopped gait ramps down and holds whatever arrives.
    """

    def __init__(self, joints: Sequence[Joint], preset: SidewindingParams, settings: CmdVelSettings) -> None:
        self.settings = settings.validated()
        if has_twist_joints(joints):
            self.robot: ConicalSidewinding | TSnakeCmdVel = TSnakeCmdVel(joints, preset.ramp_duration_s, settings)
        else:
            self.robot = ConicalSidewinding(joints, preset, settings)
        self.joint_names = [joint.name for joint in joints]
        self.guard = TwistGuard(self.robot.limits)
        self.ramp = _FollowSwitch(self)
        self.enabled = False
        self.time_s = 0.0
        self.command: Twist2D | None = None
        self._command_time_s: float | None = None
        self.stale = True

    def on_twist(self, linear: Sequence[float], angular: Sequence[float]) -> TwistVerdict:
        verdict = self.guard.check(linear, angular)
        if verdict.command is not None:
            self.command, self._command_time_s = verdict.command, self.time_s
            self.stale = False
            self._apply()
        return verdict

    def _apply(self) -> None:
        if not self.enabled or self.stale:
            self.robot.set_target(None)
            return
        threshold = DEAD_BAND_FRACTION
        command = self.command
        limits = self.robot.limits
        if abs(command.lateral_m_s) < threshold * limits.max_lateral_m_s:
            command = replace(command, lateral_m_s=0.0)
        if abs(command.angular_rad_s) < threshold * limits.max_angular_rad_s:
            command = replace(command, angular_rad_s=0.0)
        self.robot.set_target(command)

    def advance(self, dt_s: float) -> None:
        self.time_s += dt_s
        stale = self._command_time_s is None or self.time_s - self._command_time_s > self.settings.timeout_s
        if stale != self.stale:
            self.stale = stale
            self._apply()
        self.robot.advance(dt_s)

    def positions(self) -> np.ndarray:
        return self.robot.positions()


class _FollowSwitch:
    """gait/start and gait/stop for the cmd_vel source (the node calls source.ramp.start/stop)."""

    def __init__(self, source: CmdVelSource) -> None:
        self._source = source

    def start(self) -> None:
        self._source.enabled = True
        self._source._apply()

    def stop(self) -> None:
        self._source.enabled = False
        self._source._apply()

    @property
    def running(self) -> bool:
        return self._source.robot.ramp.running

    @property
    def envelope(self) -> float:
        return self._source.robot.ramp.envelope


def make_cmd_vel_source(values: Mapping[str, Any], joints: Sequence[Joint]) -> tuple[list[str], CmdVelSource]:
    """The gait node's source for gait:=cmd_vel from its declared values: the `cmd_vel` block
    (cobra_gaits.cmd_vel_input) and the amplitudes, direction and ramps of the tuning block (whose
    defaults are the cmd_vel_sidewinding_preset's); GaitError when the robot cannot follow."""
    block = values['cmd_vel']
    settings = CmdVelSettings(**{field.name: block[field.name] for field in fields(CmdVelSettings)})
    preset = SidewindingParams(0.0, float(values['amplitude_vertical_rad']), float(values['amplitude_horizontal_rad']),
                               str(values['direction']), ramp_duration_s=float(values['ramp_duration_s']),
                               amplitude_slew_rad_s=float(values['amplitude_slew_rad_s'])).validated()
    source = CmdVelSource(joints, preset, settings)
    return source.joint_names, source
