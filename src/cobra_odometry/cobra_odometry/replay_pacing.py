"""Replay of a recorded SLAM trajectory paced by its own stamps (no rclpy: testable alone).

`trajectory_mode: replay` publishes a whole trajectory file as if SLAM were running now: a pose
is due once the time elapsed since the replay started reaches the pose's offset from the first
stamp. Poses not yet due are held back, and nothing is interpolated between two poses: the
replay hands out exactly the file's poses, with the file's stamps, each no earlier than its time.
Poses are handed out in file order (a stamp going backwards in the file is the estimator's to
reject, as it would be live).
"""

from __future__ import annotations

from collections.abc import Sequence

from cobra_odometry.trajectory_formats import PoseSample


class ReplayPacer:
    """Which poses of a trajectory are due at a given (monotonic) time."""

    def __init__(self, samples: Sequence[PoseSample]) -> None:
        if not samples:
            raise ValueError('a replay needs at least one pose')
        self._samples = list(samples)
        self._first_stamp_s = self._samples[0].stamp_s
        self._next_index = 0
        self._start_s: float | None = None

    @property
    def pose_count(self) -> int:
        return len(self._samples)

    @property
    def started(self) -> bool:
        return self._start_s is not None

    @property
    def finished(self) -> bool:
        return self._next_index >= len(self._samples)

    def start(self, now_s: float) -> None:
        """Start the replay clock at `now_s` (the first pose is due at once); once only."""
        if self._start_s is not None:
            raise RuntimeError('replay already started')
        self._start_s = now_s

    def due(self, now_s: float) -> list[PoseSample]:
        """The poses that became due up to `now_s` and were not handed out yet, in file order."""
        if self._start_s is None:
            return []
        elapsed_s = now_s - self._start_s
        begin = self._next_index
        while (self._next_index < len(self._samples)
               and self._samples[self._next_index].stamp_s - self._first_stamp_s <= elapsed_s):
            self._next_index += 1
        return self._samples[begin:self._next_index]
