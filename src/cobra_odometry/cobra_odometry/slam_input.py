"""SLAM poses into the odom estimator, without rclpy: from a topic, a followed file or a paced replay.

The node hands over what arrived (a pose's numbers, a tracking state, a file poll) and gets back
estimates to publish (`on_estimate`) and events to report (`emit`). Bad input is an event, never
an exception: a non-finite position or a non-unit quaternion is ignored with a `bad_pose`
event, a malformed file line with a `bad_line` event. Every estimator call holds `lock`
(parameter updates retune the estimator from the executor thread).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import fields, replace

import numpy as np

from cobra_common.rotations import QuaternionError, checked_unit_quaternion
from cobra_odometry.pose_tracking import OdometryEstimate, OdometryEstimator, OdometryEvent
from cobra_odometry.replay_pacing import ReplayPacer
from cobra_odometry.trajectory_formats import LineIssue, PoseSample, TrajectoryFollower
from cobra_odometry.transforms import pose_matrix

REPORTED_KINDS = ('wrong_type', 'bad_pose', 'bad_line', 'backwards')  # named in the SLAM diagnostics


class SlamInput:
    def __init__(self, estimator: OdometryEstimator, now_s: Callable[[], float],
                 on_estimate: Callable[[OdometryEstimate], None],
                 emit: Callable[[list[OdometryEvent]], None]) -> None:
        self.estimator = estimator
        self.lock = threading.Lock()
        self._now_s, self._on_estimate, self._emit = now_s, on_estimate, emit
        self.file_issues = 0

    def _event(self, kind: str, level: str, message: str) -> None:
        self._emit([OdometryEvent(self._now_s(), kind, level, message)])

    def retune(self, changes: Mapping[str, float]) -> None:
        with self.lock:
            self.estimator.config = replace(self.estimator.config, **{k: float(v) for k, v in changes.items()})

    def tracking_state(self, value: int) -> None:
        with self.lock:
            events = self.estimator.update_tracking_state(value, self._now_s())
        self._emit(events)

    def pose(self, stamp_s: float, position: np.ndarray, quaternion_xyzw: np.ndarray, topic: str) -> None:
        """A pose message's numbers; ignored (with a bad_pose event) when not finite or not a rotation."""
        if not np.all(np.isfinite(position)):
            self._event('bad_pose', 'warn', f'non-finite position on {topic}: pose ignored')
            return
        try:
            quaternion_xyzw = checked_unit_quaternion(quaternion_xyzw)
        except QuaternionError as error:
            self._event('bad_pose', 'warn', f'{topic}: {error}; pose ignored')
            return
        self.ingest(PoseSample(stamp_s, position, quaternion_xyzw))

    def ingest(self, sample: PoseSample) -> None:
        with self.lock:
            estimate, events = self.estimator.update_pose(
                sample.stamp_s, pose_matrix(sample.position, sample.quaternion_xyzw), self._now_s())
        if estimate is not None:
            self._on_estimate(estimate)
        self._emit(events)

    def poll_file(self, follower: TrajectoryFollower) -> None:
        samples, issues = follower.poll()
        self.report_line_issues(issues)
        for sample in samples:
            self.ingest(sample)

    def replay_tick(self, replay: ReplayPacer, may_start: bool, now_s: float) -> bool:
        """Ingest the replay's poses now due; it starts when `may_start`. True when it started now."""
        if replay.finished:
            return False
        started = False
        if not replay.started:
            if not may_start:
                return False
            replay.start(now_s)
            started = True
        for sample in replay.due(now_s):
            self.ingest(sample)
        if replay.finished:
            self._event('replay_done', 'info', f'trajectory replay finished ({replay.pose_count} poses)')
        return started

    def report_line_issues(self, issues: list[LineIssue]) -> None:
        for issue in issues:
            self.file_issues += 1
            self._event('bad_line', 'warn', f'skipped malformed trajectory line {issue}')

    def check_stale(self) -> None:
        with self.lock:
            events = self.estimator.check_stale(self._now_s())
        self._emit(events)

    def status(self, expects_poses: bool, event_counts: Mapping[str, int],
               last_event: Mapping[str, str]) -> tuple[list[str], dict[str, str]]:
        """The SLAM diagnostics: the problems (empty = tracking) and the counters."""
        with self.lock:
            estimator = self.estimator
            stale, never = estimator.is_stale, estimator.counters.poses_in == 0
            state, counters, reanchored = estimator.tracking_state, estimator.counters, estimator.reanchored_recently
        problems = []
        if never and expects_poses:
            problems.append('no SLAM pose received yet')
        if stale:
            problems.append('SLAM poses stale')
        if state is not None and not state.is_tracking:
            problems.append(f'tracking {state.name}')
        if reanchored and not stale and (state is None or state.is_tracking):
            problems.append('re-anchored recently (jump/reset)')
        problems += [f'{event_counts[kind]}x {kind}: {last_event[kind]}' for kind in REPORTED_KINDS
                     if kind in last_event]
        values = {f.name: str(getattr(counters, f.name)) for f in fields(counters)}
        values.update({'malformed_lines': str(self.file_issues),
                       'tracking_state': state.name if state is not None else 'unknown'})
        return problems, values
