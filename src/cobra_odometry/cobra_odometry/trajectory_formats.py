"""ORB-SLAM3 trajectory files: TUM and EuRoC, parsed strictly apart, read whole or followed live.

TUM  (SaveTrajectoryTUM / SaveKeyFrameTrajectoryTUM): `t[s] tx ty tz qx qy qz qw`, whitespace
     separated, pose of the camera (optical frame) in the SLAM world.
EuRoC (SaveTrajectoryEuRoC): `t[ns] tx ty tz qx qy qz qw`; ORB-SLAM3 separates with spaces,
     EuRoC-style CSV with commas is accepted too. In inertial modes the pose is the IMU body's.
     A `#timestamp,...,q_RS_w,...` header (EuRoC dataset ground truth) switches the quaternion
     order to w x y z for the rest of that file.
The two are never guessed from each other: a TUM line with a nanosecond stamp or an EuRoC line
with a seconds stamp is reported as "wrong format" and skipped, so a file given with the wrong
`trajectory_format` fails loudly instead of producing poses 1e9 times off.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from cobra_common.rotations import QuaternionError, checked_unit_quaternion

FORMATS = ('tum', 'euroc')
# Stamps above this many seconds (year 2286) can only be nanoseconds, below 1e12 only seconds.
_MAX_PLAUSIBLE_SECONDS = 1e10
_MIN_PLAUSIBLE_NANOSECONDS = 1e12


@dataclass(frozen=True)
class PoseSample:
    stamp_s: float
    position: np.ndarray  # (3,) metres
    quaternion_xyzw: np.ndarray  # (4,) unit


@dataclass(frozen=True)
class LineIssue:
    path: str
    line_number: int
    reason: str

    def __str__(self) -> str:
        return f'{self.path}:{self.line_number}: {self.reason}'


class TrajectoryLineError(ValueError):
    """One line that is not a valid pose in the expected format."""


@dataclass
class LineParser:
    """Parses lines of one format; remembers per-file state (EuRoC quaternion order)."""

    trajectory_format: str
    quaternion_w_first: bool = False

    def __post_init__(self) -> None:
        if self.trajectory_format not in FORMATS:
            raise ValueError(f"trajectory format '{self.trajectory_format}' is unknown: "
                             f"use one of {', '.join(FORMATS)}")

    def parse(self, line: str) -> PoseSample | None:
        """The pose on this line, None for blank/comment lines; TrajectoryLineError if bad."""
        text = line.strip()
        if not text:
            return None
        if text.startswith('#'):
            if self.trajectory_format == 'euroc' and 'q_RS_w' in text:
                self.quaternion_w_first = True
            return None
        if self.trajectory_format == 'tum':
            if ',' in text:
                raise TrajectoryLineError('commas in a TUM line: is this an EuRoC file? '
                                          '(set trajectory_format: euroc)')
            fields = text.split()
        else:
            fields = [f for f in text.replace(',', ' ').split()]
        if len(fields) < 8:
            raise TrajectoryLineError(f'expected 8 numbers (t x y z + quaternion), got {len(fields)}')
        if self.trajectory_format == 'tum' and len(fields) != 8:
            raise TrajectoryLineError(f'TUM lines have exactly 8 numbers, got {len(fields)}')
        try:
            values = [float(v) for v in fields[:8]]
        except ValueError as error:
            raise TrajectoryLineError(f'not a number: {error}') from error
        if not all(math.isfinite(v) for v in values):
            raise TrajectoryLineError('non-finite number (nan/inf)')
        stamp = values[0]
        if self.trajectory_format == 'tum':
            if stamp > _MAX_PLAUSIBLE_SECONDS:
                raise TrajectoryLineError(f'stamp {fields[0]} looks like nanoseconds: wrong format, '
                                          'this is an EuRoC file (set trajectory_format: euroc)')
            stamp_s = stamp
        else:
            if stamp < _MIN_PLAUSIBLE_NANOSECONDS:
                raise TrajectoryLineError(f'stamp {fields[0]} looks like seconds: wrong format, '
                                          'this is a TUM file (set trajectory_format: tum)')
            stamp_s = _nanoseconds_text_to_seconds(fields[0])
        if self.quaternion_w_first:
            quaternion = np.array([values[5], values[6], values[7], values[4]])
        else:
            quaternion = np.array(values[4:8])
        try:
            quaternion = checked_unit_quaternion(quaternion)
        except QuaternionError as error:
            raise TrajectoryLineError(str(error)) from error
        return PoseSample(stamp_s, np.array(values[1:4]), quaternion)


def _nanoseconds_text_to_seconds(text: str) -> float:
    """Seconds from a ns stamp, split at the integer part so 19-digit stamps keep their µs."""
    if 'e' in text.lower():
        return float(text) * 1e-9
    integer, _, fraction = text.partition('.')
    nanoseconds = int(integer)
    return nanoseconds // 1_000_000_000 + (nanoseconds % 1_000_000_000 + float('0.' + (fraction or '0'))) * 1e-9


@dataclass
class TrajectoryReadResult:
    samples: list[PoseSample] = field(default_factory=list)
    issues: list[LineIssue] = field(default_factory=list)


def read_trajectory(path: str | Path, trajectory_format: str) -> TrajectoryReadResult:
    """All valid poses of a file; bad lines are skipped and listed with file:line and reason."""
    result = TrajectoryReadResult()
    parser = LineParser(trajectory_format)
    with open(path, encoding='utf-8', errors='replace') as stream:
        for line_number, line in enumerate(stream, start=1):
            try:
                sample = parser.parse(line)
            except TrajectoryLineError as error:
                result.issues.append(LineIssue(str(path), line_number, str(error)))
                continue
            if sample is not None:
                result.samples.append(sample)
    return result


def format_tum_line(sample: PoseSample) -> str:
    p, q = sample.position, sample.quaternion_xyzw
    return (f'{sample.stamp_s:.9f} {p[0]:.9f} {p[1]:.9f} {p[2]:.9f} '
            f'{q[0]:.9f} {q[1]:.9f} {q[2]:.9f} {q[3]:.9f}\n')


def format_euroc_line(sample: PoseSample) -> str:
    """One line as ORB-SLAM3's SaveTrajectoryEuRoC writes it (space separated, x y z w)."""
    p, q = sample.position, sample.quaternion_xyzw
    return (f'{round(sample.stamp_s * 1e9)} {p[0]:.9f} {p[1]:.9f} {p[2]:.9f} '
            f'{q[0]:.9f} {q[1]:.9f} {q[2]:.9f} {q[3]:.9f}\n')


def write_trajectory(path: str | Path, samples: list[PoseSample], trajectory_format: str) -> None:
    formatter = format_tum_line if trajectory_format == 'tum' else format_euroc_line
    LineParser(trajectory_format)  # validates the format name
    with open(path, 'w', encoding='utf-8') as stream:
        stream.writelines(formatter(s) for s in samples)


class TrajectoryFollower:
    """Follows a trajectory file as ORB-SLAM3 (or a wrapper) appends to it, like `tail -f`.

    Only complete lines (ending in a newline) are parsed, so a line being written is read once
    it is whole. A file that shrinks or is replaced (new inode) is read again from the start:
    ORB-SLAM3 rewrites its files on save, which the caller sees as new poses.
    """

    def __init__(self, path: str | Path, trajectory_format: str) -> None:
        self.path = Path(path)
        self.trajectory_format = trajectory_format
        self._parser = LineParser(trajectory_format)
        self._offset = 0
        self._line_number = 0
        self._inode: int | None = None
        self._pending = b''
        self.restarts = 0

    def poll(self) -> tuple[list[PoseSample], list[LineIssue]]:
        """New complete lines since the last poll (empty if the file does not exist yet)."""
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return [], []
        if self._inode is not None and (stat.st_ino != self._inode or stat.st_size < self._offset):
            self._offset, self._line_number, self._pending = 0, 0, b''
            self._parser = LineParser(self.trajectory_format)
            self.restarts += 1
        self._inode = stat.st_ino
        if stat.st_size == self._offset:
            return [], []
        with open(self.path, 'rb') as stream:
            stream.seek(self._offset)
            chunk = stream.read()
        self._offset += len(chunk)
        data = self._pending + chunk
        complete, _, self._pending = data.rpartition(b'\n')
        samples: list[PoseSample] = []
        issues: list[LineIssue] = []
        if b'\n' not in data:
            return samples, issues
        for raw in complete.split(b'\n'):
            self._line_number += 1
            try:
                sample = self._parser.parse(raw.decode('utf-8', errors='replace'))
            except TrajectoryLineError as error:
                issues.append(LineIssue(str(self.path), self._line_number, str(error)))
                continue
            if sample is not None:
                samples.append(sample)
        return samples, issues
