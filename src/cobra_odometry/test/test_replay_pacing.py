"""Replay pacing: poses are handed out at their own time, never early, never invented."""

import numpy as np
import pytest

from cobra_odometry.replay_pacing import ReplayPacer
from cobra_odometry.trajectory_formats import PoseSample


def _samples(*stamps_s: float) -> list[PoseSample]:
    return [PoseSample(t, np.array([t, 0.0, 0.0]), np.array([0.0, 0.0, 0.0, 1.0])) for t in stamps_s]


def test_nothing_is_due_before_start() -> None:
    pacer = ReplayPacer(_samples(100.0, 100.1))
    assert not pacer.started and pacer.due(1e9) == []


def test_poses_due_by_offset_from_first_stamp_future_held_back() -> None:
    samples = _samples(100.0, 100.1, 100.2, 100.5)
    pacer = ReplayPacer(samples)
    pacer.start(now_s=50.0)
    assert pacer.due(50.0) == samples[:1]  # the first pose at once
    assert pacer.due(50.05) == []  # between two poses: nothing interpolated, the next one held back
    assert pacer.due(50.2) == samples[1:3]  # both that became due since, in order, with their stamps
    assert not pacer.finished
    assert pacer.due(50.49) == []
    assert pacer.due(50.5) == samples[3:] and pacer.finished
    assert pacer.due(60.0) == []  # each pose once


def test_late_tick_catches_up_with_every_pose_unchanged() -> None:
    samples = _samples(10.0, 10.033, 10.066, 10.1)
    pacer = ReplayPacer(samples)
    pacer.start(0.0)
    out = pacer.due(5.0)
    assert out == samples and [s.stamp_s for s in out] == [10.0, 10.033, 10.066, 10.1]


def test_file_order_kept_when_a_stamp_goes_backwards() -> None:
    samples = _samples(1.0, 1.2, 1.1, 1.3)  # the estimator rejects 1.1 as it would live
    pacer = ReplayPacer(samples)
    pacer.start(0.0)
    assert pacer.due(0.15) == samples[:1]  # 1.1 is held behind 1.2 in file order
    assert pacer.due(0.25) == samples[1:3]


def test_empty_trajectory_and_second_start_refused() -> None:
    with pytest.raises(ValueError):
        ReplayPacer([])
    pacer = ReplayPacer(_samples(1.0))
    pacer.start(0.0)
    with pytest.raises(RuntimeError):
        pacer.start(1.0)
