"""Joint speed limits for gaits: never command a joint faster than its URDF velocity limit.

The sidewinding wave q = e(t) A(t) sin(phi(t) + k * phase_step) moves a joint at
    dq/dt = e' A sin + e A' sin + e A omega cos,
with the smoothstep start/stop envelope e(x) = 3x^2 - 2x^3, x = t / ramp_duration_s
(e' = 6x(1 - x) / ramp_duration_s, largest 1.5 / ramp_duration_s), omega = 2 pi f, and
|A'| <= amplitude_slew_rad_s while a retune slews the amplitude. Its peak over the phase is
A sqrt(e'^2 + (omega e)^2) + |A'|: after the ramp that is the steady 2 pi f A; during the ramp
the envelope's own rate adds to it. The check below takes the largest value over the ramp.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from cobra_gaits.sidewinding import GaitError, SidewindingParams

MAX_FREQUENCY_HZ = 2.0  # the frequency_hz range the gait node declares
_RAMP_PROGRESS = np.linspace(0.0, 1.0, 2001)
_ENVELOPE = _RAMP_PROGRESS ** 2 * (3.0 - 2.0 * _RAMP_PROGRESS)
_ENVELOPE_RATE_PER_S = 6.0 * _RAMP_PROGRESS * (1.0 - _RAMP_PROGRESS)  # times 1 / ramp_duration_s


class _JointLimits(Protocol):
    velocity_rad_s: float


class SpeedLimitedJoint(Protocol):
    """What the check reads of a cobra_description.robot_model.Joint."""

    name: str

    @property
    def axis_kind(self) -> str: ...

    @property
    def limits(self) -> _JointLimits | None: ...


def wave_speed_per_rad(frequency_hz: float, ramp_duration_s: float) -> float:
    """Peak joint speed [rad/s] per radian of amplitude, over the ramp and the steady wave."""
    omega = 2.0 * math.pi * frequency_hz
    return float(np.max(np.hypot(_ENVELOPE_RATE_PER_S / ramp_duration_s, omega * _ENVELOPE)))


def peak_wave_speed_rad_s(amplitude_rad: float, frequency_hz: float, ramp_duration_s: float,
                          slew_rad_s: float = 0.0) -> float:
    """Largest |dq/dt| of one joint: amplitude `amplitude_rad` (the larger end while slewing)."""
    return abs(amplitude_rad) * wave_speed_per_rad(frequency_hz, ramp_duration_s) + slew_rad_s


def _max_frequency_hz(amplitude_rad: float, ramp_duration_s: float, speed_budget_rad_s: float) -> float:
    """Largest frequency whose peak speed at this amplitude stays within the budget (bisection)."""
    if amplitude_rad * wave_speed_per_rad(0.0, ramp_duration_s) > speed_budget_rad_s:
        return 0.0
    low, high = 0.0, MAX_FREQUENCY_HZ
    if amplitude_rad * wave_speed_per_rad(high, ramp_duration_s) <= speed_budget_rad_s:
        return high
    for _ in range(50):
        middle = 0.5 * (low + high)
        if amplitude_rad * wave_speed_per_rad(middle, ramp_duration_s) <= speed_budget_rad_s:
            low = middle
        else:
            high = middle
    return low


def _min_ramp_duration_s(amplitude_rad: float, frequency_hz: float, speed_budget_rad_s: float) -> float | None:
    """Shortest ramp that keeps the peak within the budget; None when the steady wave alone is over."""
    if amplitude_rad * 2.0 * math.pi * frequency_hz >= speed_budget_rad_s:
        return None
    short, long = 1e-3, 1e3
    for _ in range(60):
        middle = math.sqrt(short * long)
        if amplitude_rad * wave_speed_per_rad(frequency_hz, middle) <= speed_budget_rad_s:
            long = middle
        else:
            short = middle
    return long


def check_sidewinding_speed(joints: Sequence[SpeedLimitedJoint], params: SidewindingParams,
                            current_amplitudes_rad: tuple[float, float] | None = None) -> None:
    """Raise GaitError naming the joint, the parameters and what is allowed, if too fast.

    `current_amplitudes_rad` (vertical, signed horizontal) are the running generator's: a
    retune slews from them to the new targets at amplitude_slew_rad_s while the new frequency
    applies at once, so the larger of both ends counts, plus the slew rate.
    """
    targets = {'pitch': params.amplitude_vertical_rad,
               'yaw': (1.0 if params.direction == 'left' else -1.0) * params.amplitude_horizontal_rad}
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
        budget_rad_s = limit_rad_s - slew_rad_s
        max_amplitude_rad = max(0.0, budget_rad_s) / wave_speed_per_rad(params.frequency_hz,
                                                                           params.ramp_duration_s)
        max_frequency_hz = _max_frequency_hz(amplitude_rad, params.ramp_duration_s, budget_rad_s)
        amplitude_text = (f'{name} {amplitude_rad:.3g} rad' if not slewing else
                          f'{name} slewing from {currents[kind]:+.3g} to {targets[kind]:+.3g} rad '
                          f'at amplitude_slew_rad_s {params.amplitude_slew_rad_s:g} rad/s')
        fixes = [f'{name} <= {max_amplitude_rad:.3f} rad at {params.frequency_hz:g} Hz']
        if max_frequency_hz > 0.0:
            fixes.append(f'frequency_hz <= {max_frequency_hz:.3f} Hz at {amplitude_rad:.3g} rad')
        min_ramp_s = _min_ramp_duration_s(amplitude_rad, params.frequency_hz, budget_rad_s)
        if min_ramp_s is not None:
            fixes.append(f'ramp_duration_s >= {min_ramp_s:.2f} s')
        if slewing:
            fixes.append('change the amplitude first and the frequency once it has settled')
        raise GaitError(
            f'gait too fast for the servos: {joint.name} ({kind}) would move at up to '
            f'{peak_rad_s:.2f} rad/s with frequency_hz {params.frequency_hz:g} Hz, {amplitude_text}, '
            f'ramp_duration_s {params.ramp_duration_s:g} s; its URDF velocity limit is '
            f'{limit_rad_s:g} rad/s. Use {" or ".join(fixes)}')
