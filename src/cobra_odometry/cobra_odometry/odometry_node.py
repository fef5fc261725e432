"""Odometry node: RealSense D435i -> `imu/data` (+ images), ORB-SLAM3 poses -> `odom`.

ROS glue only: frames and poses are converted at the edge and handed to the libraries
(camera_link: the camera's open/reconnect worker and its frames as records; slam_input: SLAM
poses into the estimator, events and estimates out; trajectory_formats, transforms, replay_pacing).
"""

from __future__ import annotations

import time
from dataclasses import fields
from typing import Any

import numpy as np
import rclpy.logging
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.clock import Clock, ClockType
from rclpy.impl.rcutils_logger import RcutilsLogger
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from sensor_msgs.msg import CameraInfo, Image, Imu
from std_msgs.msg import Int32, String

from cobra_common.rotations import quaternion_from_matrix
from cobra_common.node_runtime import run_node, spin_node
from cobra_common.ros_entry import StartupError, declare, describe, set_stamp, stamp_seconds
from cobra_description.robot_model import RobotModelError, load_robot_model
from cobra_odometry.camera_link import ERROR, OK, WARN, CameraLink, ImageRecord, ImuRecord
from cobra_odometry.camera_reconnect import ReconnectPolicy
from cobra_odometry.pose_tracking import (OdometryConfig, OdometryEstimate, OdometryEstimator,
                                          OdometryEvent)
from cobra_odometry.parameter_checks import POSE_SOURCES, parameter_problem
from cobra_odometry.realsense_source import (ACCEL_RATES_HZ, GYRO_RATES_HZ, DeviceNotFoundError, ImageFrame,
                                             StreamConfig, StreamSelectionError)
from cobra_odometry.replay_pacing import ReplayPacer
from cobra_odometry.slam_input import SlamInput
from cobra_odometry.trajectory_formats import TrajectoryFollower, read_trajectory
from cobra_odometry.transforms import CameraToBase, optical_frame_of, pose_matrix

POSE_TYPES = {'PoseStamped': PoseStamped, 'Odometry': Odometry}
# latched: a logger or test that subscribes late still gets the last 100 events
EVENT_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                       durability=DurabilityPolicy.TRANSIENT_LOCAL)
# best effort matches both reliable and best-effort SLAM wrappers; deep enough for bursts
POSE_QOS = QoSProfile(depth=50, reliability=ReliabilityPolicy.BEST_EFFORT)
ODOM_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
LOG_INTERVAL_S = 1.0  # the same kind of event is logged at most this often (all are counted)
ESTIMATOR_PARAMETERS = tuple(f.name for f in fields(OdometryConfig))
CAMERA_WATCHDOG_PERIOD_S = 0.2
CAMERA_LEVELS = {OK: DiagnosticStatus.OK, WARN: DiagnosticStatus.WARN, ERROR: DiagnosticStatus.ERROR}


def _any_type(descriptor: ParameterDescriptor) -> ParameterDescriptor:
    descriptor.dynamic_typing = True
    return descriptor


def declare_parameters(node: Node) -> dict[str, Any]:
    """Declare every parameter of the odometry node and check what parameters alone can judge.

    No side effects beyond the declarations (no device, no file read, no timer), so the bringup
    can run it on a bare node to refuse a bad params_file before any node starts.
    """
    p = declare(node, {
        'camera_enabled': (True, describe('run the RealSense side (imu/data, images)', read_only=True)),
        'device': ('', _any_type(describe(
            "'' = first RealSense, a serial number, or a recording file (.db3 from librealsense "
            '2.59, older .bag)', read_only=True))),
        'wait_for_device': (False, describe(
            'no camera at startup: false = exit with code 2, true = keep retrying', read_only=True)),
        'retry_initial_s': (1.0, describe('first reconnect delay [s] (doubles each try)',
                                          float_range=(0.1, 60.0))),
        'retry_max_s': (30.0, describe('longest reconnect delay [s]', float_range=(0.1, 600.0))),
        'frame_timeout_s': (2.0, describe('no IMU frame for this long = camera lost [s]',
                                          float_range=(0.1, 60.0))),
        'gyro_fps': (200, describe(f'gyro rate [Hz], D435i {GYRO_RATES_HZ}', read_only=True)),
        'accel_fps': (63, describe(f'accel rate [Hz], D435i {ACCEL_RATES_HZ}', read_only=True)),
        'enable_color': (True, describe('publish camera/color/image_raw', read_only=True)),
        'color_width': (640, describe('color width [px]', read_only=True)),
        'color_height': (480, describe('color height [px]', read_only=True)),
        'color_fps': (30, describe('color rate [Hz]', read_only=True)),
        'enable_depth': (True, describe('publish camera/depth/image_rect_raw', read_only=True)),
        'depth_width': (640, describe('depth width [px]', read_only=True)),
        'depth_height': (480, describe('depth height [px]', read_only=True)),
        'depth_fps': (30, describe('depth rate [Hz]', read_only=True)),
        'global_time': (True, describe('RealSense global time (device clock synced to host)',
                                       read_only=True)),
        'playback_real_time': (True, describe('play recordings at recorded speed', read_only=True)),
        'camera_name': ('camera', describe('frame prefix (camera_link, camera_*_optical_frame)',
                                           read_only=True)),
        'max_accel_gap_s': (0.1, describe('no interpolation across a longer accel gap [s]',
                                          read_only=True, float_range=(0.005, 1.0))),
        'imu_gyro_stddev_rad_s': (0.005, describe(
            'gyro noise std for imu/data covariance [rad/s]', float_range=(0.0, 10.0))),
        'imu_accel_stddev_m_s2': (0.05, describe(
            'accel noise std for imu/data covariance [m/s^2]', float_range=(0.0, 100.0))),
        'pose_source': ('topic', describe(f'{" | ".join(POSE_SOURCES)}', read_only=True)),
        'pose_topic': ('slam/pose', describe('SLAM pose topic', read_only=True)),
        'pose_topic_type': ('PoseStamped', describe('PoseStamped | Odometry', read_only=True)),
        'tracking_state_topic': ('slam/tracking_state', describe(
            'std_msgs/Int32 ORB-SLAM3 tracking state (-1..5); empty = none', read_only=True)),
        'trajectory_file': ('', describe('ORB-SLAM3 trajectory file for pose_source:=file',
                                         read_only=True)),
        'trajectory_format': ('tum', describe('tum | euroc (never guessed)', read_only=True)),
        'trajectory_mode': ('follow', describe('follow (tail as it grows) | replay (paced)',
                                               read_only=True)),
        'replay_wait_for_subscriber': (True, describe(
            'trajectory_mode replay: start once odom has a subscriber', read_only=True)),
        'trajectory_poll_s': (0.02, describe('file poll period [s]', read_only=True,
                                             float_range=(0.001, 1.0))),
        'pose_frame': ('camera_link', describe('URDF frame whose pose SLAM reports', read_only=True)),
        'pose_frame_optical': (True, describe(
            'SLAM axes are the optical convention (z forward, x right, y down) at pose_frame',
            read_only=True)),
        'urdf_path': ('', describe('robot URDF; empty = installed cobra_description', read_only=True)),
        'odom_frame': ('odom', describe('odom frame id (URDF name, without frame_prefix)', read_only=True)),
        'base_frame': ('base_link', describe('child frame id (URDF name, without frame_prefix)',
                                             read_only=True)),
        'frame_prefix': ('', describe(
            "prefix of every frame id this node stamps ('cobra/' -> cobra/odom, cobra/base_link, "
            "cobra/camera_imu_optical_frame), so two robots can share one graph; '' = none",
            read_only=True)),
    })
    defaults = OdometryConfig()
    p.update(declare(node, {
        name: (float(getattr(defaults, name)), describe(
            f'odom estimator: {name} (see README)', float_range=(0.0, 1e6)))
        for name in ESTIMATOR_PARAMETERS}))
    p['device'] = str(p['device'])  # a numeric serial arrives as an integer
    problem = parameter_problem(p)
    if problem is not None:
        raise StartupError(problem)
    return p


class OdometryNode(Node):
    def __init__(self) -> None:
        super().__init__('odometry')
        p = declare_parameters(self)
        self._p = p
        self._frame_prefix: str = p['frame_prefix']
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)

        self._event_counts: dict[str, int] = {}
        self._last_event: dict[str, str] = {}
        # one logger object per event kind: rclpy throttles per logger and call site, and each
        # kind gets its own one-line-per-LOG_INTERVAL_S budget (same logger name: /rosout 'odometry')
        self._event_loggers: dict[str, RcutilsLogger] = {}
        self._events_pub = self.create_publisher(String, 'odometry/events', EVENT_QOS)
        self._diag_pub = self.create_publisher(DiagnosticArray, 'diagnostics', 10)
        self._diag_counts = {'imu': 0, 'color': 0, 'depth': 0, 'odom': 0}
        self._diag_last_s = time.monotonic()
        self.create_timer(1.0, self._publish_diagnostics)

        self._setup_slam(p, OdometryConfig(**{name: p[name] for name in ESTIMATOR_PARAMETERS}))
        self.camera: CameraLink | None = None
        if p['camera_enabled']:
            self._setup_camera(p)

    def frame_id(self, name: str) -> str:
        """The frame id this node stamps for a URDF frame name (frame_prefix applied)."""
        return f'{self._frame_prefix}{name}'

    # ------------------------------------------------------------------ parameters
    def _validate_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        new = {parameter.name: parameter.value for parameter in parameters}
        retry_initial_s = new.get('retry_initial_s', self._p['retry_initial_s'])
        if new.get('retry_max_s', self._p['retry_max_s']) < retry_initial_s:
            return SetParametersResult(successful=False, reason='retry_max_s must be >= retry_initial_s')
        if new.get('max_twist_gap_s', 1.0) <= 0.0:
            return SetParametersResult(successful=False, reason='max_twist_gap_s must be > 0')
        return SetParametersResult(successful=True)

    def _apply_parameters(self, parameters: list[Parameter]) -> None:
        changes = {p.name: p.value for p in parameters if p.name in ESTIMATOR_PARAMETERS}
        for parameter in parameters:
            self._p[parameter.name] = parameter.value
        if changes:
            self.slam.retune(changes)
        if self.camera is not None:
            self.camera.reconnect.policy = ReconnectPolicy(self._p['retry_initial_s'], self._p['retry_max_s'],
                                                           self._p['frame_timeout_s'])
        if changes:
            self.get_logger().info(f'odom estimator retuned: {changes}')

    # ------------------------------------------------------------------ events
    def _emit(self, events: list[OdometryEvent]) -> None:
        for event in events:
            self._event_counts[event.kind] = self._event_counts.get(event.kind, 0) + 1
            self._last_event[event.kind] = event.message
            self._events_pub.publish(String(data=f'{event.kind}: {event.message}'))
            count = self._event_counts[event.kind]
            text = f'{event.message} ({count} so far)' if count > 1 else event.message
            logger = self._event_loggers.get(event.kind)
            if logger is None:
                logger = self._event_loggers[event.kind] = rclpy.logging.get_logger(self.get_logger().name)
            # rclpy fixes the severity per call site, hence one call per level
            if event.level == 'error':
                logger.error(text, throttle_duration_sec=LOG_INTERVAL_S)
            elif event.level == 'warn':
                logger.warning(text, throttle_duration_sec=LOG_INTERVAL_S)
            else:
                logger.info(text, throttle_duration_sec=LOG_INTERVAL_S)

    def _event(self, kind: str, level: str, message: str) -> None:
        self._emit([OdometryEvent(self._now_s(), kind, level, message)])

    def _now_s(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    # ------------------------------------------------------------------ SLAM side
    def _setup_slam(self, p: dict, config: OdometryConfig) -> None:
        try:
            model = load_robot_model(p['urdf_path'] or None)
            base_to_pose = model.transform(p['base_frame'], p['pose_frame'])
        except RobotModelError as error:
            raise StartupError(f'{error} (check pose_frame / base_frame / urdf_path)') from error
        if p['pose_frame_optical']:
            base_to_pose = optical_frame_of(base_to_pose)
        self.slam = SlamInput(OdometryEstimator(CameraToBase(base_to_pose), config), self._now_s,
                              self._publish_odom, self._emit)
        self._odom_frame_id = self.frame_id(p['odom_frame'])
        self._base_frame_id = self.frame_id(p['base_frame'])
        self._odom_pub = self.create_publisher(Odometry, 'odom', ODOM_QOS)
        self._pose_sub = None
        self._type_warned = False
        if p['tracking_state_topic']:
            self.create_subscription(Int32, p['tracking_state_topic'],
                                     lambda message: self.slam.tracking_state(message.data), 10)
        if p['pose_source'] == 'topic':
            self._pose_sub = self.create_subscription(
                POSE_TYPES[p['pose_topic_type']], p['pose_topic'], self._on_pose_message, POSE_QOS)
        elif p['pose_source'] == 'file':
            if p['trajectory_mode'] == 'follow':
                follower = TrajectoryFollower(p['trajectory_file'], p['trajectory_format'])
                self.create_timer(p['trajectory_poll_s'], lambda: self.slam.poll_file(follower))
            else:
                try:
                    result = read_trajectory(p['trajectory_file'], p['trajectory_format'])
                except OSError as error:
                    raise StartupError(f"cannot read trajectory_file: {error}") from error
                self.slam.report_line_issues(result.issues)
                if not result.samples:
                    raise StartupError(f"{p['trajectory_file']}: no valid {p['trajectory_format']} "
                                       'poses (wrong trajectory_format?)')
                self._replay = ReplayPacer(result.samples)
                self.create_timer(p['trajectory_poll_s'], self._replay_tick)
        self.create_timer(0.05, self.slam.check_stale)
        self.get_logger().info(
            f"odom from {p['pose_source']}"
            + (f" {p['pose_topic']} ({p['pose_topic_type']})" if p['pose_source'] == 'topic' else '')
            + (f" {p['trajectory_file']} ({p['trajectory_format']}, {p['trajectory_mode']})"
               if p['pose_source'] == 'file' else '')
            + f"; SLAM pose frame {p['pose_frame']}{' (optical axes)' if p['pose_frame_optical'] else ''}")

    def _on_pose_message(self, message) -> None:  # type: ignore[no-untyped-def]  (PoseStamped | Odometry)
        pose = message.pose.pose if isinstance(message, Odometry) else message.pose
        self.slam.pose(stamp_seconds(message.header.stamp),
                       np.array([pose.position.x, pose.position.y, pose.position.z]),
                       np.array([pose.orientation.x, pose.orientation.y, pose.orientation.z, pose.orientation.w]),
                       self._p['pose_topic'])

    def _replay_tick(self) -> None:
        # an offline replay is only useful to someone listening: start when odom is subscribed
        may_start = not self._p['replay_wait_for_subscriber'] or self._odom_pub.get_subscription_count() > 0
        if self.slam.replay_tick(self._replay, may_start, time.monotonic()):
            self.get_logger().info(f'trajectory replay started ({self._replay.pose_count} poses)')

    def _publish_odom(self, estimate: OdometryEstimate) -> None:
        message = Odometry()
        set_stamp(message.header.stamp, estimate.stamp_s)
        message.header.frame_id = self._odom_frame_id
        message.child_frame_id = self._base_frame_id
        position = estimate.pose[:3, 3]
        quaternion = quaternion_from_matrix(estimate.pose[:3, :3])
        pose = message.pose.pose
        pose.position.x, pose.position.y, pose.position.z = (float(v) for v in position)
        pose.orientation.x, pose.orientation.y, pose.orientation.z, pose.orientation.w = (float(v) for v in quaternion)
        message.pose.covariance = estimate.pose_covariance.ravel().tolist()
        twist = message.twist.twist
        twist.linear.x, twist.linear.y, twist.linear.z = (float(v) for v in estimate.linear_velocity)
        twist.angular.x, twist.angular.y, twist.angular.z = (float(v) for v in estimate.angular_velocity)
        message.twist.covariance = estimate.twist_covariance.ravel().tolist()
        self._odom_pub.publish(message)
        self._diag_counts['odom'] += 1

    # ------------------------------------------------------------------ camera side
    def _setup_camera(self, p: dict[str, Any]) -> None:
        name = p['camera_name']
        self._imu_frame = self.frame_id(f'{name}_imu_optical_frame')
        self._imu_pub = self.create_publisher(Imu, 'imu/data', qos_profile_sensor_data)
        self._image_pubs: dict[str, tuple] = {}
        for stream, enabled, topic in (('color', p['enable_color'], 'camera/color/image_raw'),
                                       ('depth', p['enable_depth'], 'camera/depth/image_rect_raw')):
            if enabled:
                self._image_pubs[stream] = (
                    self.create_publisher(Image, topic, qos_profile_sensor_data),
                    self.create_publisher(CameraInfo, f'camera/{stream}/camera_info', qos_profile_sensor_data),
                    self.frame_id(f'{name}_{stream}_optical_frame'))
        stream_config = StreamConfig(
            gyro_fps=p['gyro_fps'], accel_fps=p['accel_fps'], enable_color=p['enable_color'],
            color_width=p['color_width'], color_height=p['color_height'], color_fps=p['color_fps'],
            enable_depth=p['enable_depth'], depth_width=p['depth_width'], depth_height=p['depth_height'],
            depth_fps=p['depth_fps'], global_time=p['global_time'],
            playback_real_time=p['playback_real_time'])
        self._camera_info_cache: dict[tuple[int, str], CameraInfo] = {}
        self.camera = CameraLink(
            p['device'], stream_config, ReconnectPolicy(p['retry_initial_s'], p['retry_max_s'], p['frame_timeout_s']),
            playback_real_time=p['playback_real_time'], max_accel_gap_s=p['max_accel_gap_s'],
            image_streams=set(self._image_pubs), now_s=self._now_s, on_imu=self._publish_imu,
            on_image=self._publish_image, on_event=self._event, log=self.get_logger().info)
        try:
            self.camera.open_now()
        except DeviceNotFoundError as error:
            if not p['wait_for_device']:
                raise StartupError(f'{error} (or start with wait_for_device:=true to keep retrying)') from error
            self.camera.failed(str(error))
        except (StreamSelectionError, RuntimeError) as error:
            raise StartupError(f'RealSense: {error}') from error
        # steady time: the watchdog judges the device's silence, whatever clock the node runs on
        self.create_timer(CAMERA_WATCHDOG_PERIOD_S, self.camera.watchdog,
                          clock=Clock(clock_type=ClockType.STEADY_TIME))

    def stop_camera(self) -> None:
        if self.camera is not None:
            self.camera.stop()

    def _publish_imu(self, record: ImuRecord) -> None:
        message = Imu()
        set_stamp(message.header.stamp, record.stamp_s)
        message.header.frame_id = self._imu_frame
        message.orientation_covariance[0] = -1.0  # no orientation estimate (REP 145)
        w, a = message.angular_velocity, message.linear_acceleration
        w.x, w.y, w.z = record.angular_velocity
        a.x, a.y, a.z = record.linear_acceleration
        gyro_var = self._p['imu_gyro_stddev_rad_s'] ** 2
        accel_var = self._p['imu_accel_stddev_m_s2'] ** 2
        message.angular_velocity_covariance = [gyro_var, 0.0, 0.0, 0.0, gyro_var, 0.0, 0.0, 0.0, gyro_var]
        message.linear_acceleration_covariance = [accel_var, 0.0, 0.0, 0.0, accel_var, 0.0, 0.0, 0.0, accel_var]
        self._imu_pub.publish(message)
        self._diag_counts['imu'] += 1

    def _publish_image(self, record: ImageRecord) -> None:
        frame = record.frame
        image_pub, info_pub, frame_id = self._image_pubs[frame.stream]
        message = Image()
        set_stamp(message.header.stamp, record.stamp_s)
        message.header.frame_id = frame_id
        message.height, message.width, message.step = frame.height, frame.width, frame.step
        message.encoding = frame.encoding
        message.is_bigendian = 0
        message.data = frame.data
        info = self._camera_info(frame, frame_id, record.opening)
        info.header.stamp = message.header.stamp
        image_pub.publish(message)
        info_pub.publish(info)
        self._diag_counts[frame.stream] += 1

    def _camera_info(self, frame: ImageFrame, frame_id: str, opening: int) -> CameraInfo:
        info = self._camera_info_cache.get((opening, frame.stream))
        if info is None:
            intr = frame.intrinsics
            info = CameraInfo()
            info.header.frame_id = frame_id
            info.width, info.height = frame.width, frame.height
            info.distortion_model = intr.distortion_model
            info.d = [float(c) for c in intr.coefficients]
            info.k = [intr.fx, 0.0, intr.ppx, 0.0, intr.fy, intr.ppy, 0.0, 0.0, 1.0]
            info.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
            info.p = [intr.fx, 0.0, intr.ppx, 0.0, 0.0, intr.fy, intr.ppy, 0.0, 0.0, 0.0, 1.0, 0.0]
            self._camera_info_cache[(opening, frame.stream)] = info
        return info

    # ------------------------------------------------------------------ diagnostics
    def _publish_diagnostics(self) -> None:
        now = time.monotonic()
        elapsed = max(now - self._diag_last_s, 1e-6)
        rates = {k: v / elapsed for k, v in self._diag_counts.items()}
        self._diag_counts = dict.fromkeys(self._diag_counts, 0)
        self._diag_last_s = now
        self._check_pose_topic_type()
        array = DiagnosticArray()
        array.header.stamp = self.get_clock().now().to_msg()
        if self.camera is not None:
            level, message = self.camera.status
            values = {'imu_rate_hz': f"{rates['imu']:.1f}", 'color_rate_hz': f"{rates['color']:.1f}",
                      'depth_rate_hz': f"{rates['depth']:.1f}", 'device': self._p['device'] or 'first found'}
            if self.camera.source is not None:
                counters = self.camera.uniter.counters
                values.update({f'imu_{f.name}': str(getattr(counters, f.name)) for f in fields(counters)})
                values['clock_reanchors'] = str(self.camera.device_clock.reanchors)
            array.status.append(self._status('odometry: camera', CAMERA_LEVELS[level], message, values))
        array.status.append(self._slam_status(rates['odom']))
        self._diag_pub.publish(array)

    def _slam_status(self, odom_rate_hz: float) -> DiagnosticStatus:
        problems, values = self.slam.status(self._p['pose_source'] != 'none', self._event_counts, self._last_event)
        values = {**values, 'odom_rate_hz': f'{odom_rate_hz:.1f}'}
        level = DiagnosticStatus.WARN if problems else DiagnosticStatus.OK
        return self._status('odometry: slam', level, '; '.join(problems) or 'tracking', values)

    @staticmethod
    def _status(name: str, level: bytes, message: str, values: dict[str, str]) -> DiagnosticStatus:
        status = DiagnosticStatus(level=level, name=name, message=message[:500], hardware_id='d435i')
        status.values = [KeyValue(key=k, value=v) for k, v in values.items()]
        return status

    def _check_pose_topic_type(self) -> None:
        if self._pose_sub is None or self._type_warned:
            return
        expected = POSE_TYPES[self._p['pose_topic_type']]
        expected_name = f'{expected.__module__.split(".")[0]}/msg/{expected.__name__}'
        topic = self._pose_sub.topic_name
        wrong = sorted({info.topic_type for info in self.get_publishers_info_by_topic(topic)} - {expected_name})
        if wrong:
            self._type_warned = True
            self._event('wrong_type', 'error',
                        f'{topic} has publishers of {", ".join(wrong)} but this node subscribes '
                        f'{expected_name}: set pose_topic_type to match (PoseStamped | Odometry)')


def spin_then_close_camera(node: OdometryNode) -> None:
    """Spin until SIGINT/SIGTERM (ros_entry.spin_node), then close the camera before the node goes.

    One thread is enough: every callback is short (frames come on librealsense's threads, device
    open/close on a daemon worker), and a single-threaded executor leaves no callback running on
    a pool thread after the spin, against a node being destroyed.
    """
    try:
        spin_node(node)
    finally:
        node.stop_camera()


def main(args: list[str] | None = None) -> int:
    return run_node(OdometryNode, args, spin=spin_then_close_camera)


if __name__ == '__main__':
    raise SystemExit(main())
