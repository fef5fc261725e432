"""slam_input: SLAM poses into the estimator without rclpy: estimates out, bad input as events,
a replay that waits for its listener, the diagnostics' problems."""

from __future__ import annotations

import numpy as np

from cobra_odometry.pose_tracking import OdometryEstimator, OdometryEvent
from cobra_odometry.replay_pacing import ReplayPacer
from cobra_odometry.slam_input import SlamInput
from cobra_odometry.trajectory_formats import PoseSample
from cobra_odometry.transforms import CameraToBase

IDENTITY_XYZW = np.array([0.0, 0.0, 0.0, 1.0])


def slam(clock: list[float]) -> tuple[SlamInput, list, list[OdometryEvent]]:
    estimates: list = []
    events: list[OdometryEvent] = []
    core = SlamInput(OdometryEstimator(CameraToBase(np.eye(4))), lambda: clock[0], estimates.append, events.extend)
    return core, estimates, events


def test_poses_become_estimates_and_bad_ones_events():
    clock = [10.0]
    core, estimates, events = slam(clock)
    core.pose(1.0, np.zeros(3), IDENTITY_XYZW, '/slam/pose')
    clock[0] = 10.1
    core.pose(1.1, np.array([0.01, 0.0, 0.0]), IDENTITY_XYZW, '/slam/pose')
    assert len(estimates) == 2 and estimates[-1].stamp_s == 1.1
    core.pose(1.2, np.array([np.nan, 0.0, 0.0]), IDENTITY_XYZW, '/slam/pose')
    core.pose(1.3, np.zeros(3), np.array([0.0, 0.0, 0.0, 2.0]), '/slam/pose')
    assert [(e.kind, e.level) for e in events] == [('bad_pose', 'warn'), ('bad_pose', 'warn')]
    assert events[0].message == 'non-finite position on /slam/pose: pose ignored'
    assert len(estimates) == 2
    problems, values = core.status(True, {'bad_pose': 2}, {'bad_pose': events[-1].message})
    assert problems == [f'2x bad_pose: {events[-1].message}'] and values['poses_in'] == '2'


def test_a_replay_waits_until_it_may_start_then_paces_its_poses():
    clock = [0.0]
    core, estimates, events = slam(clock)
    replay = ReplayPacer([PoseSample(t, np.array([0.01 * t, 0.0, 0.0]), IDENTITY_XYZW) for t in (0.0, 0.1, 0.2)])
    assert core.replay_tick(replay, may_start=False, now_s=5.0) is False and not replay.started
    assert core.replay_tick(replay, may_start=True, now_s=5.0) is True
    assert len(estimates) == 1
    core.replay_tick(replay, may_start=True, now_s=5.25)
    assert len(estimates) == 3 and replay.finished
    assert events[-1].kind == 'replay_done' and events[-1].message == 'trajectory replay finished (3 poses)'


def test_no_pose_yet_is_a_problem_only_when_poses_are_expected():
    core, _, _ = slam([0.0])
    assert core.status(True, {}, {})[0] == ['no SLAM pose received yet']
    assert core.status(False, {}, {})[0] == []
