"""Time-indexed joint trajectory CSV files (seed 000 §12.3), shared by export and replay.

Format: a header `time_s,<joint>,<joint>,...` then one row per sample, times strictly
increasing, positions in radians. Replay interpolates linearly and holds the last row.
"""

from __future__ import annotations

import csv
import math
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cobra_gaits.sidewinding import GaitError, StartStopRamp

TIME_COLUMN = 'time_s'


@dataclass(frozen=True)
class JointTrajectory:
    joint_names: tuple[str, ...]
    times_s: np.ndarray
    positions_rad: np.ndarray  # [n_samples, n_joints]

    @property
    def duration_s(self) -> float:
        return float(self.times_s[-1] - self.times_s[0])

    def sample(self, t_s: float) -> np.ndarray:
        """Positions at time t (relative to the first row), clamped to the ends."""
        t = self.times_s[0] + t_s
        return np.array([np.interp(t, self.times_s, column) for column in self.positions_rad.T])


def write_trajectory_csv(path: str | Path, joint_names: Sequence[str], times_s: np.ndarray,
                         positions_rad: np.ndarray) -> None:
    """Write atomically: a crash never leaves a half-written trajectory behind."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile('w', newline='', dir=path.parent, suffix='.tmp', delete=False)
    try:
        with handle:
            writer = csv.writer(handle)
            writer.writerow([TIME_COLUMN, *joint_names])
            for t, row in zip(times_s, positions_rad):
                writer.writerow([f'{t:.6f}', *(f'{q:.9f}' for q in row)])
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def read_trajectory_csv(path: str | Path, known_joints: Sequence[str]) -> JointTrajectory:
    """Parse and validate; every error names the file, the line and what to fix."""
    path = Path(path)
    if not path.is_file():
        raise GaitError(f'trajectory CSV not found: {path}')
    with path.open(newline='') as handle:
        rows = list(csv.reader(handle))
    rows = [(number, row) for number, row in enumerate(rows, start=1)
            if row and not row[0].lstrip().startswith('#')]
    if not rows:
        raise GaitError(f'{path}: empty file; expected a header "{TIME_COLUMN},joint_1,..."')
    header_line, header = rows[0]
    header = [cell.strip() for cell in header]
    if header[0] != TIME_COLUMN:
        raise GaitError(f'{path}:{header_line}: first column must be "{TIME_COLUMN}", got "{header[0]}"')
    joints = header[1:]
    unknown = [name for name in joints if name not in known_joints]
    if unknown:
        raise GaitError(f'{path}:{header_line}: unknown joint column(s) {unknown}; '
                        f'known joints are {list(known_joints)}')
    if not joints or len(set(joints)) != len(joints):
        raise GaitError(f'{path}:{header_line}: need at least one joint column and no duplicates')
    if len(rows) < 2:
        raise GaitError(f'{path}: no samples after the header')
    values = np.empty((len(rows) - 1, len(header)))
    for index, (number, row) in enumerate(rows[1:]):
        if len(row) != len(header):
            raise GaitError(f'{path}:{number}: {len(row)} fields, the header has {len(header)}')
        try:
            values[index] = [float(cell) for cell in row]
        except ValueError as error:
            raise GaitError(f'{path}:{number}: non-numeric value ({error})') from error
        if not all(math.isfinite(v) for v in values[index]):
            raise GaitError(f'{path}:{number}: non-finite value')
    times = values[:, 0]
    if np.any(np.diff(times) <= 0.0):
        bad = int(np.argmax(np.diff(times) <= 0.0)) + 1
        raise GaitError(f'{path}:{rows[bad + 1][0]}: time does not increase ({times[bad]} after {times[bad - 1]})')
    return JointTrajectory(tuple(joints), times, values[:, 1:])


class TrajectoryReplay:
    """Plays a JointTrajectory from its first row; the ramp blends it in from and out to zero."""

    def __init__(self, trajectory: JointTrajectory, ramp_duration_s: float = 2.0,
                 loop: bool = False) -> None:
        self.trajectory = trajectory
        self.ramp = StartStopRamp(ramp_duration_s)
        self.loop = loop
        self._time_s = 0.0

    def advance(self, dt_s: float) -> None:
        self.ramp.advance(dt_s)
        if self.ramp.running:
            self._time_s += dt_s
            if self.loop and self.trajectory.duration_s > 0.0:
                self._time_s %= self.trajectory.duration_s

    def positions(self) -> np.ndarray:
        return self.ramp.envelope * self.trajectory.sample(self._time_s)
