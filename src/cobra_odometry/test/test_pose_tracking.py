"""SLAM poses -> odom: continuity through loss and jumps, events, twist, covariance."""

import math

import numpy as np
import pytest

from cobra_odometry.pose_tracking import OdometryConfig, OdometryEstimator, TrackingState
from cobra_odometry.synthetic import SlamScenario, base_pose_at, slam_samples
from cobra_common.rotations import rotation_vector_from_matrix
from cobra_odometry.transforms import CameraToBase, invert, optical_frame_of, pose_matrix

EXTRINSIC = optical_frame_of(pose_matrix(np.array([0.1, 0.0, 0.07]), np.array([0, 0, 0, 1.0])))
JUMP = pose_matrix(np.array([0.8, 0.3, -0.2]), np.array([0.0, 0.0, math.sin(0.4), math.cos(0.4)]))


def _run(scenario: SlamScenario, estimator: OdometryEstimator | None = None):
    estimator = estimator or OdometryEstimator(CameraToBase(EXTRINSIC))
    samples, truth = slam_samples(scenario, EXTRINSIC)
    outputs, events = [], []
    for sample in samples:
        estimate, new_events = estimator.update_pose(
            sample.stamp_s, pose_matrix(sample.position, sample.quaternion_xyzw))
        events += new_events
        if estimate is not None:
            outputs.append(estimate)
    return estimator, outputs, events, dict(truth)


def test_clean_trajectory_reproduces_base_motion_and_twist() -> None:
    _, outputs, events, truth = _run(SlamScenario())
    assert not events
    for estimate in outputs:
        np.testing.assert_allclose(estimate.pose, truth[estimate.stamp_s], atol=1e-9)
    # after the filter settled the twist is the base's body velocity (~0.1 m/s forward)
    late = outputs[150]
    t = late.stamp_s - 100.0
    dt = 1e-4
    body = invert(base_pose_at(t - dt)) @ base_pose_at(t + dt)
    assert late.linear_velocity == pytest.approx(body[:3, 3] / (2 * dt), abs=0.01)
    assert late.angular_velocity == pytest.approx(rotation_vector_from_matrix(body[:3, :3]) / (2 * dt), abs=0.02)
    assert late.pose_covariance[0, 0] == pytest.approx(0.01 ** 2)


def test_loss_and_relocalisation_jump_keep_odom_continuous() -> None:
    scenario = SlamScenario(position_noise_m=0.002, loss_start_s=3.0, loss_end_s=4.0,
                            jump_at_s=4.0, jump_offset=JUMP)
    estimator = OdometryEstimator(CameraToBase(EXTRINSIC), OdometryConfig(max_linear_speed_m_s=0.5))
    estimator, outputs, events, truth = _run(scenario, estimator)
    kinds = [e.kind for e in events]
    assert kinds.count('jump') == 1 and estimator.counters.jumps == 1
    steps = [np.linalg.norm(b.pose[:3, 3] - a.pose[:3, 3]) for a, b in zip(outputs, outputs[1:])]
    assert max(steps) < 0.06  # no teleport: the 1 m map jump never shows up in odom
    clean = [o for o in outputs if o.stamp_s < 103.0]
    errors = [np.linalg.norm(o.pose[:3, 3] - truth[o.stamp_s][:3, 3]) for o in clean]
    assert max(errors) < 0.02
    after = [o for o in outputs if o.stamp_s >= 104.0]
    assert after[0].degraded and after[0].pose_covariance[0, 0] > clean[-1].pose_covariance[0, 0]
    # after re-anchoring, relative motion is right again
    a, b = after[5], after[-1]
    np.testing.assert_allclose(invert(a.pose) @ b.pose, invert(truth[a.stamp_s]) @ truth[b.stamp_s], atol=0.02)


def test_stale_then_recovered_without_jump_keeps_anchor() -> None:
    estimator = OdometryEstimator(CameraToBase(EXTRINSIC))
    samples, truth = slam_samples(SlamScenario(loss_start_s=2.0, loss_end_s=3.0), EXTRINSIC)
    events = []
    for sample in samples:
        events += estimator.check_stale(sample.stamp_s - 0.01 if sample.stamp_s >= 103.0 else sample.stamp_s)
        estimate, new = estimator.update_pose(sample.stamp_s, pose_matrix(sample.position, sample.quaternion_xyzw))
        events += new
    assert [e.kind for e in events] == ['stale', 'recovered']
    np.testing.assert_allclose(estimate.pose, dict(truth)[estimate.stamp_s], atol=1e-9)


def test_reset_state_reanchors_next_pose() -> None:
    estimator = OdometryEstimator(CameraToBase(EXTRINSIC))
    assert estimator.update_tracking_state(TrackingState.OK, 0.0)[0].level == 'info'
    estimator.update_pose(1.0, np.eye(4))
    estimator.update_pose(1.1, pose_matrix(np.array([0, 0, 0.01]), np.array([0, 0, 0, 1.0])))
    events = estimator.update_tracking_state(TrackingState.LOST, 1.2)
    assert events[0].level == 'warn' and 'LOST' in events[0].message
    estimator.update_tracking_state(TrackingState.NOT_INITIALIZED, 1.3)
    estimator.update_tracking_state(TrackingState.OK, 1.5)
    previous = estimator._last_odom_base.copy()
    estimate, events = estimator.update_pose(1.6, np.eye(4))  # new map: origin again
    assert [e.kind for e in events] == ['reset']
    np.testing.assert_allclose(estimate.pose, previous)
    assert estimator.update_tracking_state(42, 2.0)[0].message.startswith('unknown ORB-SLAM3 tracking state 42')


def test_backwards_and_duplicate_stamps_rejected() -> None:
    estimator = OdometryEstimator(CameraToBase(EXTRINSIC))
    estimator.update_pose(2.0, np.eye(4))
    estimate, events = estimator.update_pose(1.0, np.eye(4))
    assert estimate is None and events[0].kind == 'backwards' and 'went backwards' in events[0].message
    estimate, events = estimator.update_pose(2.0, np.eye(4))
    assert estimate is None and events[0].kind == 'duplicate'
    estimate, _ = estimator.update_pose(2.1, np.eye(4))
    assert estimate is not None
    assert estimator.counters.backwards == 1 and estimator.counters.duplicates == 1


def test_reanchored_recently_judged_in_pose_time() -> None:
    """Stamps far from the host clock (replay, sim) still show the hold after a jump."""
    estimator = OdometryEstimator(CameraToBase(EXTRINSIC), OdometryConfig(degraded_hold_s=1.0))
    assert not estimator.reanchored_recently
    estimator.update_pose(1000.0, np.eye(4))
    estimator.update_pose(1000.1, np.eye(4))
    assert not estimator.reanchored_recently
    _, events = estimator.update_pose(1000.2, JUMP)
    assert [e.kind for e in events] == ['jump'] and estimator.reanchored_recently
    estimator.update_pose(1001.1, JUMP)
    assert estimator.reanchored_recently
    estimator.update_pose(1001.3, JUMP)  # hold over
    assert not estimator.reanchored_recently
