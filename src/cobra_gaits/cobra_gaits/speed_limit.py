"""Joint speed limits for gaits: never command a joint faster than its URDF velocity limit.

The sidewinding wave q = e(t) A(t) sin(phi(t) + k * phase_step) moves a joint at
    dq/dt = (e' A + e A') sin + e A omega cos,
with the smoothstep start/stop envelope e(x) = 3x^2 - 2x^3, x = t / ramp_duration_s
(e' = 6x(1 - x) / ramp_duration_s), omega = 2 pi f, and |A'| <= amplitude_slew_rad_s while a
retune slews the amplitude (the new frequency applies at once). Sine and cosine are in
quadrature, so the peak over the phase is hypot(e' A + e |A'|, e A omega); the check takes its
largest value over the ramp progress x, with A the larger end of a slew. After the ramp and
without a slew that is the steady 2 pi f A.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
from cobra_description.robot_model import Joint

from cobra_gaits.lts import LinearTwistParams, LtsGait, LtsJointGenerator
from cobra_gaits.sidewinding import DIRECTIONS, GaitError, SidewindingParams

MAX_FREQUENCY_HZ = 2.0  # the frequency_hz range the gait node declares
MAX_RAMP_DURATION_S = 30.0  # the ramp_duration_s range the gait node declares
_RAMP_PROGRESS = np.linspace(0.0, 1.0, 2001)
_ENVELOPE = _RAMP_PROGRESS ** 2 * (3.0 - 2.0 * _RAMP_PROGRESS)
_ENVELOPE_RATE_PER_S = 6.0 * _RAMP_PROGRESS * (1.0 - _RAMP_PROGRESS)  # times 1 / ramp_duration_s

TWIST_JOINT_SUFFIX = '_twist'  # m{i}_twist, the contract's T-Snake names
MAX_SPEED_WINDOW_S = 60.0  # the LTS speed check samples one period of the gait, at most this long
SMOOTHSTEP_MAX_SLOPE = 1.5  # max of d/dx (3x^2 - 2x^3): the ramp envelope's steepest rate x ramp_duration_s


class _JointLimits(Protocol):
    velocity_rad_s: float


class SpeedLimitedJoint(Protocol):
    """What the check reads of a cobra_description.robot_model.Joint."""

    name: str

    @property
    def axis_kind(self) -> str: ...

    @property
    def limits(self) -> _JointLimits | None: ...


def peak_wave_speed_rad_s(amplitude_rad: float, frequency_hz: float, ramp_duration_s: float,
                          slew_rad_s: float = 0.0) -> float:
    """Largest |dq/dt| [rad/s] of one joint over the ramp and the steady wave (see module doc)."""
    omega = 2.0 * math.pi * frequency_hz
    amplitude = abs(amplitude_rad)
    in_phase = amplitude * _ENVELOPE_RATE_PER_S / ramp_duration_s + _ENVELOPE * slew_rad_s
    return float(np.max(np.hypot(in_phase, amplitude * omega * _ENVELOPE)))


def _largest(within: Callable[[float], bool], low: float, high: float) -> float:
    """Largest x in [low, high] with within(x), for within true at low and monotone (bisection)."""
    if within(high):
        return high
    for _ in range(60):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if within(middle) else (low, middle)
    return low


def check_sidewinding_speed(joints: Sequence[SpeedLimitedJoint], params: SidewindingParams,
                            current_amplitudes_rad: tuple[float, float] | None = None) -> None:
    """Raise GaitError naming the joint, the parameters and what is allowed, if too fast.

    `current_amplitudes_rad` (vertical, signed horizontal) are the running generator's: a
    retune slews from them to the new targets at amplitude_slew_rad_s while the new frequency
    applies at once, so the larger of both ends counts, and the slew rate adds to the speed.
    """
    targets = {'pitch': params.amplitude_vertical_rad,
               'yaw': DIRECTIONS[params.direction] * params.amplitude_horizontal_rad}
    parameter_names = {'pitch': 'amplitude_vertical_rad', 'yaw': 'amplitude_horizontal_rad'}
    currents = dict(zip(('pitch', 'yaw'), current_amplitudes_rad)) if current_amplitudes_rad else targets
    for joint in joints:
        if joint.limits is None or joint.axis_kind not in targets:
            continue
        kind = joint.axis_kind
        slewing = not math.isclose(currents[kind], targets[kind], abs_tol=1e-12)
        slew_rad_s = params.amplitude_slew_rad_s if slewing else 0.0
        amplitude_rad = max(abs(currents[kind]), abs(targets[kind]))
        limit_rad_s = joint.limits.velocity_rad_s
        peak_rad_s = peak_wave_speed_rad_s(amplitude_rad, params.frequency_hz,
                                           params.ramp_duration_s, slew_rad_s)
        if peak_rad_s <= limit_rad_s:
            continue
        name = parameter_names[kind]
        f_hz, ramp_s = params.frequency_hz, params.ramp_duration_s

        def fits(amplitude: float, frequency: float, ramp: float) -> bool:
            return peak_wave_speed_rad_s(amplitude, frequency, ramp, slew_rad_s) <= limit_rad_s

        max_amplitude_rad = _largest(lambda a: fits(a, f_hz, ramp_s), 0.0, math.pi / 2) \
            if fits(0.0, f_hz, ramp_s) else 0.0
        fixes = [f'{name} <= {max_amplitude_rad:.3f} rad at {f_hz:g} Hz']
        if fits(amplitude_rad, 0.0, ramp_s):
            max_frequency_hz = _largest(lambda f: fits(amplitude_rad, f, ramp_s), 0.0, MAX_FREQUENCY_HZ)
            fixes.append(f'frequency_hz <= {max_frequency_hz:.3f} Hz at {amplitude_rad:.3g} rad')
        if fits(amplitude_rad, f_hz, MAX_RAMP_DURATION_S):
            min_ramp_s = -_largest(lambda r: fits(amplitude_rad, f_hz, -r), -MAX_RAMP_DURATION_S, -ramp_s)
            fixes.append(f'ramp_duration_s >= {min_ramp_s:.2f} s')
        amplitude_text = (f'{name} {amplitude_rad:.3g} rad' if not slewing else
                          f'{name} slewing from {currents[kind]:+.3g} to {targets[kind]:+.3g} rad '
                          f'at amplitude_slew_rad_s {params.amplitude_slew_rad_s:g} rad/s')
        if slewing:
            fixes.append('change the amplitude first and the frequency once it has settled')
        raise GaitError(
            f'gait too fast for the servos: {joint.name} ({kind}) would move at up to '
            f'{peak_rad_s:.2f} rad/s with frequency_hz {params.frequency_hz:g} Hz, {amplitude_text}, '
            f'ramp_duration_s {params.ramp_duration_s:g} s; its URDF velocity limit is '
            f'{limit_rad_s:g} rad/s. Use {" or ".join(fixes)}')


# --- LTS gaits (the T-Snake) ---------------------------------------------------------------

def has_twist_joints(joints: Sequence[Joint]) -> bool:
    """True for a robot that can roll its body (the T-Snake); COBRA has pitch and yaw joints only."""
    return any(joint.name.endswith(TWIST_JOINT_SUFFIX) for joint in joints)


def lts_speed_window_s(gait: LtsGait) -> float:
    """One period of the slowest motion in the gait (curve wave, piece roll speeds), capped at
    MAX_SPEED_WINDOW_S; at least one time step."""
    rates = [abs(gait.curve.temporal_frequency_rad_s),
             *np.abs(gait.twist.rolling_speed_rad_s(gait.geometry.piece_centres_m))]
    periods = [2.0 * math.pi / rate for rate in rates if rate > 1e-9]
    return min(max(periods, default=gait.time_step_s), MAX_SPEED_WINDOW_S)


def lts_motion_bounds(gait: LtsGait, ramp_duration_s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(steady peak speed [rad/s], peak speed with a start/stop ramp [rad/s], largest |angle| [rad])
    per joint, sampled from the generator at the gait's time step over `lts_speed_window_s`.

    The steady speed is the commands' own: the change between consecutive commands over the
    node period. A ramp adds envelope' x (gait - straight) <= 1.5 / ramp_duration_s x D, with D the
    largest |angle| for a bending joint; for a twist joint the largest |angle| but at most pi (a
    stop unwinds to the nearest full turn), plus what the joint twists during one ramp.
    """
    generator = LtsJointGenerator(gait)
    step_s = gait.time_step_s
    times = np.arange(int(math.ceil(lts_speed_window_s(gait) / step_s)) + 1) * step_s
    angles = np.stack([generator.positions_rad(float(t)) for t in times])
    steady = np.max(np.abs(np.diff(angles, axis=0)), axis=0) / step_s if len(times) > 1 else np.zeros(angles.shape[1])
    largest = np.max(np.abs(angles), axis=0)
    is_twist = np.array([name.endswith(TWIST_JOINT_SUFFIX) for name in generator.joint_names])
    blend = np.where(is_twist, np.minimum(largest, math.pi) + steady * ramp_duration_s, largest)
    return steady, steady + SMOOTHSTEP_MAX_SLOPE / ramp_duration_s * blend, largest


def check_lts_gait(joints: Sequence[Joint], gait: LtsGait, ramp_duration_s: float, preset: str) -> None:
    """GaitError naming the joint, the figure and the fix when the gait leaves a joint's URDF
    range or moves it faster than its URDF velocity limit (ramps included)."""
    by_name = {joint.name: joint for joint in joints}
    names = gait.geometry.joint_names()
    steady, ramped, largest = lts_motion_bounds(gait, ramp_duration_s)
    what = (f"lts_preset '{preset}' (omega_t {gait.curve.temporal_frequency_rad_s:g} rad/s, "
            + (f'a0 {gait.twist.a0_rad_s:g} rad/s, a1 {gait.twist.a1_rad_m_s:g} rad/(m s))'
               if isinstance(gait.twist, LinearTwistParams) else 'rolling-vector baseline)'))
    for index, name in enumerate(names):
        limits = by_name[name].limits
        if limits is None:
            continue
        if not name.endswith(TWIST_JOINT_SUFFIX) and largest[index] > max(-limits.lower_rad, limits.upper_rad):
            raise GaitError(f'{what} bends {name} to {largest[index]:.3f} rad, outside its URDF range '
                            f'[{limits.lower_rad:g}, {limits.upper_rad:g}] rad: choose another preset')
        if steady[index] > limits.velocity_rad_s:
            raise GaitError(
                f'gait too fast for the servos: {what} moves {name} at up to {steady[index]:.2f} rad/s; '
                f'its URDF velocity limit is {limits.velocity_rad_s:g} rad/s. Use smaller |lts_a0_rad_s|, '
                '|lts_a1_rad_m_s| or |lts_omega_t_rad_s|')
        if ramped[index] > limits.velocity_rad_s:
            min_ramp_s = SMOOTHSTEP_MAX_SLOPE * (ramped[index] - steady[index]) * ramp_duration_s \
                / (limits.velocity_rad_s - steady[index])
            raise GaitError(
                f'gait too fast for the servos: the start/stop ramp of {what} moves {name} at up to '
                f'{ramped[index]:.2f} rad/s with ramp_duration_s {ramp_duration_s:g} s; its URDF velocity '
                f'limit is {limits.velocity_rad_s:g} rad/s. Use ramp_duration_s >= {min_ramp_s:.2f} s')
