"""Time-indexed joint trajectory CSV files (the thesis §12.3), shared by export and replay.

Format: UTF-8 text (no byte-order mark), a header `time_s,<joint>,<joint>,...` then one row per
sample, times strictly increasing, positions in radians; lines starting with `#` are comments.
Replay starts at the first row, interpolates linearly and holds the last row; it always blends
in from the straight pose (and out to it on gait/stop) with its own start/stop ramp, so a file
holds the motion itself, without a ramp (the exporter writes the steady wave from t = 0).

Speed: no joint may move faster than its URDF velocity limit between two rows, nor with the
replay's ramp added (positions up to |q| scaled in over ramp_duration_s). In loop mode the last
row is the first row of the next cycle (the exporter writes whole gait cycles): it must equal the
first row within what the joint's limit allows in one tick at the highest rate (1 kHz).
"""

from __future__ import annotations

import codecs
import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cobra_common.atomic_file import write_atomically
from cobra_gaits.sidewinding import GaitError, StartStopRamp

TIME_COLUMN = 'time_s'
MAX_RATE_HZ = 1000.0  # the gait node's highest rate_hz: a loop-wrap step lands within one tick
ENVELOPE_RATE_MAX = 1.5  # max d(smoothstep)/dx: the ramp scales positions in at up to 1.5 |q| / T


@dataclass(frozen=True)
class JointTrajectory:
    joint_names: tuple[str, ...]
    times_s: np.ndarray
    positions_rad: np.ndarray  # [n_samples, n_joints]
    source: str = ''  # file the rows came from, for messages
    line_numbers: tuple[int, ...] = ()  # file line of each row, for messages

    @property
    def duration_s(self) -> float:
        return float(self.times_s[-1] - self.times_s[0])

    def sample(self, t_s: float) -> np.ndarray:
        """Positions at time t (relative to the first row), clamped to the ends."""
        t = self.times_s[0] + t_s
        return np.array([np.interp(t, self.times_s, column) for column in self.positions_rad.T])

    def where(self, row: int) -> str:
        """'file:line' of a row (or a row number when the trajectory was not read from a file)."""
        line = self.line_numbers[row] if self.line_numbers else None
        return f'{self.source or "trajectory"}:{line}' if line else f'{self.source or "trajectory"} row {row + 1}'


def write_trajectory_csv(path: str | Path, joint_names: Sequence[str], times_s: np.ndarray,
                         positions_rad: np.ndarray, comments: Sequence[str] = ()) -> None:
    """Write atomically: a crash never leaves a half-written trajectory behind."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)

    def write(temporary: Path) -> None:
        with temporary.open('w', newline='', encoding='utf-8') as handle:
            for comment in comments:
                handle.write(f'# {comment}\n')
            writer = csv.writer(handle)
            writer.writerow([TIME_COLUMN, *joint_names])
            for t, row in zip(times_s, positions_rad):
                writer.writerow([f'{t:.6f}', *(f'{q:.9f}' for q in row)])
    write_atomically(path, write)


def _read_text(path: Path) -> str:
    """The file as text, or one GaitError saying what is wrong with it and how to fix it."""
    if path.is_dir():
        examples = sorted(p.name for p in path.glob('*.csv'))[:5]
        hint = f' (it holds {", ".join(examples)})' if examples else ''
        raise GaitError(f'trajectory CSV {path} is a directory{hint}: give the path of a CSV file')
    if not path.exists():
        raise GaitError(f'trajectory CSV not found: {path}')
    if not path.is_file():
        raise GaitError(f'trajectory CSV {path} is not a regular file: give the path of a CSV file')
    try:
        data = path.read_bytes()
    except OSError as error:
        raise GaitError(f'trajectory CSV {path} cannot be read: {error.strerror}') from error
    if data.startswith(codecs.BOM_UTF8):
        raise GaitError(f'{path}:1: starts with a UTF-8 byte-order mark (BOM, as "CSV UTF-8" in '
                        'spreadsheet programs writes): save it as plain CSV without a BOM, or '
                        "remove the first 3 bytes (sed -i '1s/^\\xEF\\xBB\\xBF//' FILE)")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise GaitError(f'{path}:1: UTF-16 text ("Unicode text" export): save the CSV as UTF-8')
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError as error:
        line = data.count(b'\n', 0, error.start) + 1
        raise GaitError(f'{path}:{line}: not UTF-8 text (byte 0x{data[error.start]:02x} at offset '
                        f'{error.start}): save the file as UTF-8; a trajectory CSV needs only '
                        'ASCII numbers and joint names') from error


def read_trajectory_csv(path: str | Path, known_joints: Sequence[str]) -> JointTrajectory:
    """Parse and validate; every error names the file, the line and what to fix."""
    path = Path(path)
    rows = list(csv.reader(io.StringIO(_read_text(path), newline='')))
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
    return JointTrajectory(tuple(joints), times, values[:, 1:], str(path),
                           tuple(number for number, _ in rows[1:]))


def check_trajectory_speed(trajectory: JointTrajectory, velocity_limits_rad_s: Mapping[str, float],
                           ramp_duration_s: float, loop: bool = False) -> None:
    """Refuse a trajectory the replay would play faster than the joints' velocity limits.

    Three rules, each naming the joint and what to change: between consecutive rows; with the
    start/stop ramp's scaling added; and (loop) across the wrap from the last row to the first.
    """
    times, positions = trajectory.times_s, trajectory.positions_rad
    limits = np.array([velocity_limits_rad_s.get(name, math.inf) for name in trajectory.joint_names])
    row_speeds = np.abs(np.diff(positions, axis=0)) / np.diff(times)[:, None]
    too_fast = row_speeds > limits
    if np.any(too_fast):
        row, column = (int(i) for i in np.argwhere(too_fast)[0])
        name = trajectory.joint_names[column]
        raise GaitError(
            f'{trajectory.where(row + 1)}: {name} moves {positions[row + 1, column] - positions[row, column]:+.4f} '
            f'rad in {times[row + 1] - times[row]:.4g} s since the previous row ({row_speeds[row, column]:.2f} '
            f'rad/s), over its URDF velocity limit {limits[column]:g} rad/s: spread the motion over more time')
    peak_row_speeds = row_speeds.max(axis=0) if len(row_speeds) else np.zeros(len(limits))
    largest_rad = np.abs(positions).max(axis=0)
    with_ramp = peak_row_speeds + ENVELOPE_RATE_MAX * largest_rad / ramp_duration_s
    over = np.flatnonzero(with_ramp > limits)
    if len(over):
        column = int(over[0])
        name = trajectory.joint_names[column]
        needed_s = ENVELOPE_RATE_MAX * largest_rad[column] / max(limits[column] - peak_row_speeds[column], 1e-9)
        raise GaitError(
            f'{trajectory.source or "trajectory"}: {name} reaches {largest_rad[column]:.3f} rad and moves at up '
            f'to {peak_row_speeds[column]:.2f} rad/s; the replay ramp (ramp_duration_s {ramp_duration_s:g} s) '
            f'scales it in and out on top of that, up to {with_ramp[column]:.2f} rad/s, over its URDF '
            f'velocity limit {limits[column]:g} rad/s: use ramp_duration_s >= {needed_s:.2f} s or slow the file down')
    if loop:
        gaps = np.abs(positions[-1] - positions[0])
        allowed = limits / MAX_RATE_HZ
        over = np.flatnonzero(gaps > allowed)
        if len(over):
            column = int(over[0])
            raise GaitError(
                f'{trajectory.where(len(times) - 1)}: csv_loop wraps from this last row straight to the first '
                f'row, but {trajectory.joint_names[column]} is {gaps[column]:.4f} rad away from it (at most '
                f'{allowed[column]:.4f} rad: its {limits[column]:g} rad/s limit over one 1 kHz tick). End the file '
                'with a copy of the first row where the cycle closes (export a whole number of gait cycles), '
                'or set csv_loop:=false')


class TrajectoryReplay:
    """Plays a JointTrajectory from its first row; the ramp blends it in from and out to zero.

    The file holds no ramp of its own (see the module docstring): replay scales it by one
    start/stop envelope, so an exported gait replays exactly as the generator produced it.
    In loop mode the time wraps at the last row, which stands for the first row of the next cycle.
    """

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


def load_replay(path: str | Path, velocity_limits_rad_s: Mapping[str, float], ramp_duration_s: float,
                loop: bool) -> TrajectoryReplay:
    """Read, validate and speed-check a trajectory CSV for the gait node (or a pre-start check).

    `velocity_limits_rad_s` maps every joint the CSV may name to its URDF velocity limit.
    """
    trajectory = read_trajectory_csv(path, list(velocity_limits_rad_s))
    check_trajectory_speed(trajectory, velocity_limits_rad_s, ramp_duration_s, loop)
    return TrajectoryReplay(trajectory, ramp_duration_s, loop)
