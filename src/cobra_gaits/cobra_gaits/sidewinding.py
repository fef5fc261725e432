"""Sidewinding joint trajectories (the thesis §11/§12.3) with smooth start, stop and retuning.

q_k(t) = A_k sin(phi(t) + phase_step * k), k = 0 .. n-1 head to tail, where A_k is the vertical
amplitude on pitch joints and the horizontal amplitude on yaw joints. The alternating sign of
neighbouring same-axis joints is not applied here: it comes from the URDF axes (+y, +z, -y, -z).

The generator integrates its phase and slews its amplitudes, so changing frequency, amplitude or
direction while running never steps the commanded position.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

PHASE_STEP_RAD = math.pi / 6  # the thesis §11: phase offset per joint index

DIRECTIONS = {'left': 1.0, 'right': -1.0}


class GaitError(ValueError):
    """Gait parameters or inputs that cannot produce a trajectory."""


@dataclass(frozen=True)
class SidewindingParams:
    frequency_hz: float
    amplitude_vertical_rad: float
    amplitude_horizontal_rad: float
    direction: str = 'left'
    phase_step_rad: float = PHASE_STEP_RAD
    ramp_duration_s: float = 2.0
    amplitude_slew_rad_s: float = 0.5

    def validated(self) -> SidewindingParams:
        if self.direction not in DIRECTIONS:
            raise GaitError(f"direction must be one of {sorted(DIRECTIONS)}, got '{self.direction}'")
        if not 0.0 <= self.frequency_hz <= 2.0:
            raise GaitError(f'frequency_hz must be within [0, 2] Hz, got {self.frequency_hz}')
        for name in ('amplitude_vertical_rad', 'amplitude_horizontal_rad'):
            if not 0.0 <= getattr(self, name) <= math.pi / 2:
                raise GaitError(f'{name} must be within [0, pi/2] rad, got {getattr(self, name)}')
        if self.ramp_duration_s <= 0.0 or self.amplitude_slew_rad_s <= 0.0:
            raise GaitError('ramp_duration_s and amplitude_slew_rad_s must be positive')
        return self


def smoothstep(progress: float) -> float:
    """C1 blend 0 -> 1 so the ramp starts and ends with zero slope."""
    x = min(max(progress, 0.0), 1.0)
    return x * x * (3.0 - 2.0 * x)


class StartStopRamp:
    """Envelope 0 -> 1 after start and 1 -> 0 after stop, over one ramp duration each."""

    def __init__(self, duration_s: float) -> None:
        if duration_s <= 0.0:
            raise GaitError('ramp duration must be positive')
        self.duration_s = duration_s
        self._progress = 0.0
        self.running = False

    def start(self) -> None:
        self.running = True

    def stop(self) -> None:
        self.running = False

    def advance(self, dt_s: float) -> None:
        step = dt_s / self.duration_s
        self._progress = min(1.0, self._progress + step) if self.running \
            else max(0.0, self._progress - step)

    @property
    def envelope(self) -> float:
        return smoothstep(self._progress)

    @property
    def is_idle(self) -> bool:
        """Stopped and fully ramped down."""
        return not self.running and self._progress == 0.0


class SidewindingGenerator:
    """Stateful sidewinding source: call `advance(dt)` each control tick, read `positions()`."""

    def __init__(self, joint_kinds: Sequence[str], params: SidewindingParams) -> None:
        unknown = sorted(set(joint_kinds) - {'pitch', 'yaw'})
        if unknown:
            raise GaitError(f'sidewinding drives pitch and yaw joints only, got {unknown}')
        self._is_pitch = np.array([kind == 'pitch' for kind in joint_kinds])
        self._joint_index = np.arange(len(joint_kinds), dtype=float)
        self.params = params.validated()
        self._phase_rad = 0.0
        self.ramp = StartStopRamp(params.ramp_duration_s)
        self._amplitude_vertical_rad = params.amplitude_vertical_rad
        self._amplitude_horizontal_signed_rad = self._target_horizontal()

    def _target_horizontal(self) -> float:
        return DIRECTIONS[self.params.direction] * self.params.amplitude_horizontal_rad

    def retune(self, **changes: float | str) -> None:
        """Change parameters while running; phase and amplitudes stay continuous."""
        self.params = replace(self.params, **changes).validated()
        self.ramp.duration_s = self.params.ramp_duration_s

    def advance(self, dt_s: float) -> None:
        if dt_s < 0.0:
            raise GaitError('time step must not be negative')
        p = self.params
        self._phase_rad = (self._phase_rad + 2.0 * math.pi * p.frequency_hz * dt_s) % (2.0 * math.pi)
        self.ramp.advance(dt_s)
        max_change = p.amplitude_slew_rad_s * dt_s
        self._amplitude_vertical_rad += float(np.clip(
            p.amplitude_vertical_rad - self._amplitude_vertical_rad, -max_change, max_change))
        self._amplitude_horizontal_signed_rad += float(np.clip(
            self._target_horizontal() - self._amplitude_horizontal_signed_rad, -max_change, max_change))

    def current_amplitudes_rad(self) -> tuple[float, float]:
        """(vertical, signed horizontal) amplitude now; a retune slews them to the new targets."""
        return self._amplitude_vertical_rad, self._amplitude_horizontal_signed_rad

    def target_amplitudes_rad(self, params: SidewindingParams) -> tuple[float, float]:
        """(vertical, signed horizontal) amplitude that `params` make the slew head for."""
        return params.amplitude_vertical_rad, DIRECTIONS[params.direction] * params.amplitude_horizontal_rad

    def positions(self) -> np.ndarray:
        """Joint positions [rad], head to tail."""
        amplitudes = np.where(self._is_pitch, self._amplitude_vertical_rad,
                              self._amplitude_horizontal_signed_rad)
        wave = np.sin(self._phase_rad + self.params.phase_step_rad * self._joint_index)
        return self.ramp.envelope * amplitudes * wave


def sample_sidewinding(joint_kinds: Sequence[str], params: SidewindingParams,
                       duration_s: float, rate_hz: float,
                       ramp_in: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Trajectory of a generator started at t = 0: (times [s], positions [n_samples, n_joints]).

    ramp_in=False gives the steady wave from t = 0 (full amplitude, same phase): what a CSV
    export holds, because the replay applies the start ramp itself.
    """
    if rate_hz <= 0.0 or duration_s <= 0.0:
        raise GaitError('duration and rate must be positive')
    generator = SidewindingGenerator(joint_kinds, params)
    generator.ramp.start()
    if not ramp_in:
        generator.ramp.advance(generator.ramp.duration_s)  # envelope 1; the phase stays at 0
    count = int(round(duration_s * rate_hz)) + 1
    times = np.arange(count) / rate_hz
    rows = np.empty((count, len(joint_kinds)))
    for index in range(count):
        if index:
            generator.advance(1.0 / rate_hz)
        rows[index] = generator.positions()
    return times, rows
