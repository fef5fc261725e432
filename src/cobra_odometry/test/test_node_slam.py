"""SLAM side end to end: poses in (topic or file), continuous odom out, events and diagnostics."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import rclpy
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import Log
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import Int32, String

from cobra_common.ros_testing import call_idempotent
from cobra_description.robot_model import load_robot_model
from cobra_odometry.odometry_node import EVENT_QOS as EVENTS_QOS
from cobra_odometry.accuracy import compare
from cobra_odometry.pose_tracking import TrackingState
from cobra_odometry.synthetic import SlamScenario, slam_samples
from cobra_odometry.trajectory_formats import PoseSample, format_tum_line, write_trajectory
from cobra_common.rotations import quaternion_from_matrix
from cobra_odometry.transforms import optical_frame_of, pose_matrix

# what rcl's /rosout publisher offers (reliable, transient local, depth 1000)
ROSOUT_QOS = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE,
                        durability=DurabilityPolicy.TRANSIENT_LOCAL)
JUMP = pose_matrix(np.array([0.8, 0.3, -0.2]), np.array([0.0, 0.0, math.sin(0.4), math.cos(0.4)]))


def _extrinsic() -> np.ndarray:
    return optical_frame_of(load_robot_model().transform('base_link', 'camera_link'))


def _stamp_s(message) -> float:
    return message.header.stamp.sec + message.header.stamp.nanosec * 1e-9


def _odom_sample(message: Odometry) -> PoseSample:
    p, q = message.pose.pose.position, message.pose.pose.orientation
    return PoseSample(_stamp_s(message), np.array([p.x, p.y, p.z]), np.array([q.x, q.y, q.z, q.w]))


def _pose_stamped(sample: PoseSample) -> PoseStamped:
    message = PoseStamped()
    ns = int(round(sample.stamp_s * 1e9))
    message.header.stamp.sec, message.header.stamp.nanosec = ns // 10**9, ns % 10**9
    message.header.frame_id = 'slam_world'
    message.pose.position.x, message.pose.position.y, message.pose.position.z = (float(v) for v in sample.position)
    q = message.pose.orientation
    q.x, q.y, q.z, q.w = (float(v) for v in sample.quaternion_xyzw)
    return message


class Collector:
    def __init__(self, node) -> None:
        self.odom: list[Odometry] = []
        self.events: list[str] = []
        self.diagnostics: list[DiagnosticStatus] = []
        self.rosout: list[Log] = []
        node.create_subscription(Odometry, 'odom', self.odom.append, 1000)
        node.create_subscription(Log, '/rosout', lambda m: self.rosout.append(m) if m.name == 'odometry' else None,
                                 ROSOUT_QOS)
        node.create_subscription(String, 'odometry/events', lambda m: self.events.append(m.data), EVENTS_QOS)
        node.create_subscription(DiagnosticArray, 'diagnostics',
                                 lambda m: self.diagnostics.extend(s for s in m.status if s.name == 'odometry: slam'), 10)


def test_topic_with_noise_loss_and_jump(start_node, test_node, spin) -> None:
    collector = Collector(test_node)
    pose_pub = test_node.create_publisher(PoseStamped, 'slam/pose', 10)
    state_pub = test_node.create_publisher(Int32, 'slam/tracking_state', 10)
    # degraded_hold_s spans the rest of the run, so the 1 Hz diagnostics must catch the re-anchor
    node = start_node('camera_enabled:=false', 'stale_timeout_s:=0.5', 'degraded_hold_s:=3.0')
    assert spin(test_node, lambda: pose_pub.get_subscription_count() > 0 and state_pub.get_subscription_count() > 0
                and collector.diagnostics, 30.0), node.output()
    assert collector.diagnostics[-1].level == DiagnosticStatus.WARN  # no pose yet
    spin(test_node, lambda: False, 1.0)  # matching is not symmetric: let the node side match too
    scenario = SlamScenario(duration_s=8.0, position_noise_m=0.003, loss_start_s=4.0, loss_end_s=5.0,
                            jump_at_s=5.0, jump_offset=JUMP, start_s=1000.0)
    samples, truth = slam_samples(scenario, _extrinsic())
    state_pub.publish(Int32(data=int(TrackingState.OK)))
    lost_sent = False
    for sample in samples:
        if sample.stamp_s >= 1005.0 and not lost_sent:
            lost_sent = True
            state_pub.publish(Int32(data=int(TrackingState.LOST)))
            stale_before = sum(e.startswith('stale') for e in collector.events)
            assert spin(test_node, lambda: sum(e.startswith('stale') for e in collector.events) > stale_before
                        and any('LOST' in e for e in collector.events), 10.0), node.output()
            # the loss lasts until OK is sent: the 1 Hz diagnostics report it meanwhile
            assert spin(test_node, lambda: any(
                d.level == DiagnosticStatus.WARN and 'stale' in d.message.lower() and 'LOST' in d.message
                for d in collector.diagnostics), 5.0), [d.message for d in collector.diagnostics]
            state_pub.publish(Int32(data=int(TrackingState.OK)))
        pose_pub.publish(_pose_stamped(sample))
        spin(test_node, lambda: False, 0.01)  # ~100 poses/s: a loaded machine keeps up
    # best-effort input may drop a few poses on a loaded machine; the checks below do not need all
    assert spin(test_node, lambda: len(collector.odom) >= 0.9 * len(samples), 10.0), node.output()
    assert spin(test_node, lambda: any(d.level == DiagnosticStatus.WARN and 're-anchored' in d.message
                                       for d in collector.diagnostics), 5.0), \
        ([d.message for d in collector.diagnostics], node.output())
    # the jump is logged as a warning: judged by the level /rosout carries, not by the text
    assert spin(test_node, lambda: any('pose jump' in m.msg for m in collector.rosout), 10.0), node.output()
    jump_logs = [m for m in collector.rosout if 'pose jump' in m.msg]
    assert [m.level for m in jump_logs] == [Log.WARN] * len(jump_logs), [(m.level, m.msg) for m in jump_logs]
    assert 're-anchored' in jump_logs[0].msg

    kinds = [e.split(':')[0] for e in collector.events]
    assert {'stale', 'jump', 'recovered', 'tracking_state'} <= set(kinds), collector.events
    assert any('LOST' in e for e in collector.events)
    odom = collector.odom
    assert odom[0].header.frame_id == 'odom' and odom[0].child_frame_id == 'base_link'
    positions = np.array([[m.pose.pose.position.x, m.pose.pose.position.y, m.pose.pose.position.z] for m in odom])
    assert np.max(np.linalg.norm(np.diff(positions, axis=0), axis=1)) < 0.05  # continuous: no 1 m teleport
    stamps = np.array([_stamp_s(m) for m in odom])
    assert np.all(np.diff(stamps) > 0)
    assert max(m.pose.covariance[0] for m in odom if _stamp_s(m) >= 1005.0) > odom[0].pose.covariance[0]
    # accuracy tool on the clean segment (before the loss)
    clean = [_odom_sample(m) for m in odom if _stamp_s(m) < 1004.0]
    reference = [PoseSample(t, pose[:3, 3].copy(), quaternion_from_matrix(pose[:3, :3])) for t, pose in truth if t < 1004.0]
    result = compare(clean, reference, 'se3', rpe_delta=0.1)
    assert result.ate_rmse_m < 0.01, result.report()
    # twist of the clean segment: ~0.1 m/s forward
    assert np.median([m.twist.twist.linear.x for m in odom if 1001.0 < _stamp_s(m) < 1004.0]) == pytest.approx(0.1, abs=0.03)


def test_wrong_pose_type_and_bad_values_reported_node_keeps_running(start_node, test_node, spin) -> None:
    collector = Collector(test_node)
    node = start_node('camera_enabled:=false')
    # a second ROS context = a separate participant, so the wrong type does not clash in-process
    other = rclpy.Context()
    rclpy.init(context=other)
    wrong_node = rclpy.create_node('wrong_type_publisher', context=other)
    try:
        wrong_pub = wrong_node.create_publisher(Odometry, 'slam/pose', 10)
        assert spin(test_node, lambda: any(e.startswith('wrong_type') for e in collector.events), 30.0), node.output()
        event = next(e for e in collector.events if e.startswith('wrong_type'))
        assert 'nav_msgs/msg/Odometry' in event and 'pose_topic_type' in event
        del wrong_pub
    finally:
        wrong_node.destroy_node()
        rclpy.try_shutdown(context=other)
    pose_pub = test_node.create_publisher(PoseStamped, 'slam/pose', 10)
    assert spin(test_node, lambda: pose_pub.get_subscription_count() > 0, 20.0)
    spin(test_node, lambda: False, 1.0)  # matching is not symmetric: let the node side match too
    bad = _pose_stamped(PoseSample(10.0, np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0])))
    bad.pose.orientation.w = 3.0
    pose_pub.publish(bad)
    nan = _pose_stamped(PoseSample(10.1, np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0])))
    nan.pose.position.x = float('nan')
    pose_pub.publish(nan)
    for stamp in (11.0, 11.1, 10.5, 11.2):  # 10.5 goes backwards
        pose_pub.publish(_pose_stamped(PoseSample(stamp, np.array([0.0, 0.0, stamp * 0.01]), np.array([0, 0, 0, 1.0]))))
        spin(test_node, lambda: False, 0.05)
    assert spin(test_node, lambda: len(collector.odom) == 3
                and sum(e.startswith('bad_pose') for e in collector.events) == 2
                and any(e.startswith('backwards') for e in collector.events), 10.0), (collector.events, node.output())
    assert [round(_stamp_s(m), 3) for m in collector.odom] == [11.0, 11.1, 11.2]
    assert any('quaternion norm 3.0000' in e for e in collector.events)
    assert node.process.poll() is None


def test_trajectory_file_followed_live_with_bad_lines(start_node, test_node, spin, tmp_path: Path) -> None:
    collector = Collector(test_node)
    trajectory = tmp_path / 'CameraTrajectory.txt'
    node = start_node('camera_enabled:=false', 'pose_source:=file', f'trajectory_file:={trajectory}',
                      'trajectory_format:=tum', 'stale_timeout_s:=100.0')
    assert spin(test_node, lambda: collector.diagnostics, 30.0), node.output()
    samples, _ = slam_samples(SlamScenario(duration_s=1.0, start_s=500.0), _extrinsic())
    lines = [format_tum_line(s) for s in samples]
    lines.insert(5, 'this is not a pose\n')
    lines.insert(9, '500.2 0 0 0 0 0 0 0\n')  # zero quaternion
    lines.insert(12, lines[3])  # stamp going backwards
    with open(trajectory, 'w') as stream:
        stream.writelines(lines[:15])
        stream.flush()
        assert spin(test_node, lambda: len(collector.odom) >= 11, 10.0), node.output()
        stream.writelines(lines[15:])
    assert spin(test_node, lambda: len(collector.odom) == len(samples), 10.0), (len(collector.odom), node.output())
    bad = [e for e in collector.events if e.startswith('bad_line')]
    assert len(bad) == 2
    assert f'{trajectory}:6: ' in bad[0] and 'expected 8 numbers' in bad[0]
    assert f'{trajectory}:10: ' in bad[1] and 'norm' in bad[1]
    assert any(e.startswith('backwards') for e in collector.events)
    assert spin(test_node, lambda: any(dict((k.key, k.value) for k in d.values)['malformed_lines'] == '2'
                                       for d in collector.diagnostics), 5.0)
    last = collector.diagnostics[-1]
    assert last.level == DiagnosticStatus.WARN and 'bad_line' in last.message


def test_euroc_file_replayed_as_imu_body_pose(start_node, test_node, spin, tmp_path: Path) -> None:
    """EuRoC (ns stamps, inertial mode: IMU body pose) replayed; odom is the base motion; SIGINT exits 0."""
    collector = Collector(test_node)
    imu_frame = load_robot_model().transform('base_link', 'camera_imu_optical_frame')
    samples, truth = slam_samples(SlamScenario(duration_s=1.5, start_s=1_700_000_000.0), imu_frame)
    trajectory = tmp_path / 'f_dataset-MH01_monoi.txt'
    write_trajectory(trajectory, samples, 'euroc')
    assert trajectory.read_text().split()[0].isdigit()  # nanoseconds
    node = start_node('camera_enabled:=false', 'pose_source:=file', f'trajectory_file:={trajectory}',
                      'trajectory_format:=euroc', 'trajectory_mode:=replay', 'stale_timeout_s:=100.0',
                      'pose_frame:=camera_imu_optical_frame', 'pose_frame_optical:=false')
    assert spin(test_node, lambda: any(e.startswith('replay_done') for e in collector.events), 30.0), node.output()
    assert spin(test_node, lambda: len(collector.odom) == len(samples), 5.0), node.output()
    truth_by_stamp = dict(truth)
    for message in collector.odom[::10]:
        stamp = min(truth_by_stamp, key=lambda t: abs(t - _stamp_s(message)))
        assert abs(stamp - _stamp_s(message)) < 1e-6
        p = message.pose.pose.position
        np.testing.assert_allclose([p.x, p.y, p.z], truth_by_stamp[stamp][:3, 3], atol=1e-6)
    assert node.stop() == 0


def test_parameter_updates_validated(start_node, test_node, spin) -> None:
    from rcl_interfaces.msg import Parameter as ParameterMsg, ParameterType, ParameterValue
    from rcl_interfaces.srv import SetParameters
    node = start_node('camera_enabled:=false')
    client = test_node.create_client(SetParameters, '/odometry/set_parameters')
    assert spin(test_node, lambda: client.service_is_ready(), 30.0), node.output()

    def set_double(name: str, value: float):
        request = SetParameters.Request(parameters=[ParameterMsg(name=name, value=ParameterValue(
            type=ParameterType.PARAMETER_DOUBLE, double_value=value))])
        answer = call_idempotent(test_node, client, request)
        assert answer is not None, node.output()
        return answer.results[0]

    assert set_double('stale_timeout_s', 2.0).successful
    rejected = set_double('retry_max_s', 0.5)  # below retry_initial_s (1.0)
    assert not rejected.successful and 'retry_max_s (0.5) must be >= retry_initial_s (1.0)' in rejected.reason
    rejected = set_double('max_twist_gap_s', 0.0)  # in the declared range, refused by the table's open end
    assert not rejected.successful and "'max_twist_gap_s' = 0.0 is invalid: must be a number in (0.0" in rejected.reason
    assert not set_double('max_linear_speed_m_s', -1.0).successful  # outside the declared range
    assert spin(test_node, lambda: 'odom estimator retuned' in node.output(), 5.0)


@pytest.mark.parametrize('stop_signal', ['SIGTERM', 'SIGINT'])
def test_stops_on_signal_with_sim_time_and_no_clock(start_node, test_node, spin, stop_signal: str) -> None:
    """use_sim_time with /clock silent: no timer ever fires, yet a signal stops the node (exit 0)."""
    import os
    import signal
    events: list[str] = []
    test_node.create_subscription(String, 'odometry/events', lambda m: events.append(m.data), EVENTS_QOS)
    pose_pub = test_node.create_publisher(PoseStamped, 'slam/pose', 10)
    node = start_node('camera_enabled:=false', 'use_sim_time:=true')
    assert spin(test_node, lambda: pose_pub.get_subscription_count() > 0, 30.0), node.output()
    assert spin(test_node, lambda: 'odom from topic' in node.output(), 30.0), node.output()  # built, spinning
    os.killpg(node.process.pid, getattr(signal, stop_signal))
    assert node.process.wait(timeout=30) == 0, node.output()
    # nothing ran against the destroyed node (a callback left on a pool thread printed
    # 'The following exception was never retrieved: cannot use Destroyable ...')
    assert 'Traceback' not in node.output() and 'never retrieved' not in node.output()


def test_declare_parameters_on_a_bare_node(ros_env) -> None:
    """What the bringup's pre-start validator calls: every parameter declared, bad combinations refused."""
    from cobra_common.ros_entry import StartupError
    from cobra_odometry.odometry_node import ESTIMATOR_PARAMETERS, declare_parameters

    def declared(*overrides: str) -> dict:
        args = ['--ros-args'] + [arg for value in overrides for arg in ('-p', value)]
        context = rclpy.Context()
        rclpy.init(args=args, context=context)
        try:
            bare = rclpy.create_node('odometry', context=context)
            try:
                return declare_parameters(bare)
            finally:
                bare.destroy_node()
        finally:
            rclpy.try_shutdown(context=context)

    values = declared('frame_prefix:=cobra/')
    assert values['frame_prefix'] == 'cobra/' and values['odom_frame'] == 'odom'
    assert set(ESTIMATOR_PARAMETERS) <= set(values) and 'retry_max_s' in values
    for overrides, expected in [(('retry_initial_s:=5.0', 'retry_max_s:=2.0'), 'retry_max_s (2.0) must be >= retry_initial_s'),
                                (('frame_prefix:=cobra',), "frame_prefix:='cobra' is not a frame prefix"),
                                (('pose_source:=bag',), "'pose_source' = 'bag' is invalid: must be one of"),
                                (('max_twist_gap_s:=0.0',),
                                 "'max_twist_gap_s' = 0.0 is invalid: must be a number in (0.0, 1000000.0]"),
                                (('gyro_fps:=100',), "'gyro_fps' = 100 is invalid: must be one of [200, 400]")]:
        with pytest.raises(StartupError, match=re.escape(expected)):
            declared(*overrides)
