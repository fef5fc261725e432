"""odometry_status: the odometry node's diagnostics and event bookkeeping without rclpy."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from cobra_odometry.camera_link import ERROR, OK, WARN, CameraLink
from cobra_odometry.camera_reconnect import ReconnectPolicy
from cobra_odometry.odometry_status import (CAMERA_STATUS_NAME, MESSAGE_LENGTH, SLAM_STATUS_NAME, EventLog,
                                            StreamRates, camera_matrices, camera_report, imu_covariances,
                                            slam_report, wrong_type_problem)
from cobra_odometry.pose_tracking import OdometryEvent
from cobra_odometry.realsense_source import StreamConfig


def test_stream_rates_count_per_stream_and_start_over_after_each_take() -> None:
    rates = StreamRates(now_s=10.0)
    for _ in range(200):
        rates.count('imu')
    rates.count('odom')
    assert rates.take(now_s=12.0) == {'imu': 100.0, 'color': 0.0, 'depth': 0.0, 'odom': 0.5}
    rates.count('color')
    assert rates.take(now_s=13.0)['color'] == 1.0 and rates.take(now_s=14.0)['imu'] == 0.0


def test_stream_rates_survive_a_take_at_the_same_instant() -> None:
    rates = StreamRates(now_s=5.0)
    rates.count('depth')
    assert rates.take(now_s=5.0)['depth'] > 0.0  # no division by zero


def test_event_log_counts_each_kind_and_keeps_its_last_text() -> None:
    log = EventLog()
    assert log.record(OdometryEvent(1.0, 'jump', 'warn', 'jump of 0.4 m')) == 'jump of 0.4 m'
    assert log.record(OdometryEvent(2.0, 'jump', 'warn', 'jump of 0.6 m')) == 'jump of 0.6 m (2 so far)'
    log.record(OdometryEvent(3.0, 'stale', 'warn', 'no pose for 0.5 s'))
    assert log.counts == {'jump': 2, 'stale': 1}
    assert log.last == {'jump': 'jump of 0.6 m', 'stale': 'no pose for 0.5 s'}


def camera(source: object = None) -> CameraLink:
    link = CameraLink('', StreamConfig(), ReconnectPolicy(), playback_real_time=True, max_accel_gap_s=0.1,
                      image_streams=set(), now_s=time.monotonic, on_imu=lambda record: None,
                      on_image=lambda record: None, on_event=lambda *event: None, log=lambda text: None)
    link.source = source
    return link


def test_camera_report_without_a_device_has_rates_and_no_counters() -> None:
    report = camera_report(camera(), {'imu': 199.96, 'color': 30.0, 'depth': 0.0, 'odom': 0.0}, '')
    assert (report.name, report.level, report.message) == (CAMERA_STATUS_NAME, ERROR, 'not opened yet')
    assert report.values == {'imu_rate_hz': '200.0', 'color_rate_hz': '30.0', 'depth_rate_hz': '0.0',
                             'device': 'first found'}


def test_camera_report_while_streaming_adds_the_imu_and_clock_counters() -> None:
    link = camera(source=SimpleNamespace())
    link.status = (OK, 'x' * 600)
    link.uniter.counters.dropped_unbracketed = 3
    report = camera_report(link, dict.fromkeys(('imu', 'color', 'depth', 'odom'), 0.0), '123456789012')
    assert report.level == OK and len(report.message) == MESSAGE_LENGTH
    assert report.values['device'] == '123456789012' and report.values['imu_dropped_unbracketed'] == '3'
    assert report.values['clock_reanchors'] == '0'


@pytest.mark.parametrize('problems, level, message', [
    ([], OK, 'tracking'),
    (['SLAM poses stale', 'tracking LOST'], WARN, 'SLAM poses stale; tracking LOST'),
])
def test_slam_report_warns_with_its_problems(problems: list[str], level: str, message: str) -> None:
    report = slam_report(problems, {'poses_in': '7'}, 29.96)
    assert (report.name, report.level, report.message) == (SLAM_STATUS_NAME, level, message)
    assert report.values == {'poses_in': '7', 'odom_rate_hz': '30.0'}


def test_imu_covariances_are_diagonal_variances() -> None:
    gyro, accel = imu_covariances(0.1, 2.0)
    assert gyro[0] == gyro[4] == gyro[8] == pytest.approx(0.01) and sum(gyro) == pytest.approx(0.03)
    assert accel[0] == accel[4] == accel[8] == 4.0 and sum(accel) == 12.0


def test_camera_matrices_place_focal_lengths_and_principal_point() -> None:
    intrinsics = SimpleNamespace(fx=600.0, fy=601.0, ppx=320.0, ppy=240.0, coefficients=[0.1, 0, 0, 0, 0])
    matrices = camera_matrices(intrinsics)
    assert matrices['k'] == [600.0, 0.0, 320.0, 0.0, 601.0, 240.0, 0.0, 0.0, 1.0]
    assert matrices['p'][:4] == [600.0, 0.0, 320.0, 0.0] and matrices['p'][4:8] == [0.0, 601.0, 240.0, 0.0]
    assert matrices['d'] == [0.1, 0.0, 0.0, 0.0, 0.0]


def test_wrong_pose_topic_type_names_both_types_and_the_fix() -> None:
    expected = 'geometry_msgs/msg/PoseStamped'
    assert wrong_type_problem('slam/pose', expected, {expected}) is None
    assert wrong_type_problem('slam/pose', expected, set()) is None
    problem = wrong_type_problem('slam/pose', expected, {expected, 'nav_msgs/msg/Odometry'})
    assert problem == ('slam/pose has publishers of nav_msgs/msg/Odometry but this node subscribes '
                       'geometry_msgs/msg/PoseStamped: set pose_topic_type to match (PoseStamped | Odometry)')
