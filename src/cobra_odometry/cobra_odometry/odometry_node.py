"""Odometry node: RealSense D435i -> `imu/data` (+ images), ORB-SLAM3 poses -> `odom`.

A thin shell: parameters from odometry_config's table, camera and SLAM work in camera_link and
slam_input, reports in odometry_status, message fields in odometry_messages.
"""

from __future__ import annotations

import time
from typing import Any

import rclpy.logging
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import SetParametersResult
from rclpy.clock import Clock, ClockType
from rclpy.impl.rcutils_logger import RcutilsLogger
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from sensor_msgs.msg import CameraInfo, Image, Imu
from std_msgs.msg import Int32, String

from cobra_common.node_runtime import declare_table, run_node, spin_node, validate_update
from cobra_common.ros_entry import StartupError
from cobra_odometry.camera_link import CameraLink, ImageRecord, ImuRecord
from cobra_odometry.odometry_config import (DYNAMIC_TYPING, ESTIMATOR_PARAMETERS, PARAMETER_BY_NAME, PARAMETERS,
                                            RUNTIME_PARAMETERS, base_to_pose_frame, estimator_config,
                                            parameter_problem, pose_source_text, read_replay_trajectory,
                                            reconnect_policy, stream_config, update_problem)
from cobra_odometry.odometry_messages import (POSE_TYPES, camera_info_message, image_message, imu_message,
                                              odometry_message, pose_of, status_message, type_name)
from cobra_odometry.odometry_status import (EventLog, StreamRates, camera_report, imu_covariances, slam_report,
                                            wrong_type_problem)
from cobra_odometry.pose_tracking import OdometryConfig, OdometryEstimate, OdometryEstimator, OdometryEvent
from cobra_odometry.realsense_source import DeviceNotFoundError, StreamSelectionError
from cobra_odometry.replay_pacing import ReplayPacer
from cobra_odometry.slam_input import SlamInput
from cobra_odometry.trajectory_formats import TrajectoryFollower
from cobra_odometry.transforms import CameraToBase

# latched: a logger or test that subscribes late still gets the last 100 events
EVENT_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                       durability=DurabilityPolicy.TRANSIENT_LOCAL)
# best effort matches both reliable and best-effort SLAM wrappers; deep enough for bursts
POSE_QOS = QoSProfile(depth=50, reliability=ReliabilityPolicy.BEST_EFFORT)
ODOM_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
LOG_INTERVAL_S = 1.0  # the same kind of event is logged at most this often (all are counted)
CAMERA_WATCHDOG_PERIOD_S = 0.2


def declare_parameters(node: Node) -> dict[str, Any]:
    """Declare every odometry parameter (odometry_config.PARAMETERS); StartupError for the first bad
    value or combination. No device, no file read, no timer: the bringup runs it on a bare node to
    refuse a bad params_file before any node starts."""
    p = declare_table(node, PARAMETERS, RUNTIME_PARAMETERS, dynamic=DYNAMIC_TYPING)
    p['device'] = str(p['device'])  # a numeric serial arrives as an integer
    if (problem := parameter_problem(p)) is not None:
        raise StartupError(problem)
    return p


class OdometryNode(Node):
    def __init__(self) -> None:
        super().__init__('odometry')
        self._p = p = declare_parameters(self)
        self._frame_prefix: str = p['frame_prefix']
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)

        self.events = EventLog()
        # one logger object per event kind: rclpy throttles per logger and call site, and each
        # kind gets its own one-line-per-LOG_INTERVAL_S budget (same logger name: /rosout 'odometry')
        self._event_loggers: dict[str, RcutilsLogger] = {}
        self._events_pub = self.create_publisher(String, 'odometry/events', EVENT_QOS)
        self._diag_pub = self.create_publisher(DiagnosticArray, 'diagnostics', 10)
        self._rates = StreamRates(time.monotonic())
        self.create_timer(1.0, self._publish_diagnostics)

        self._setup_slam(p, estimator_config(p))
        self.camera: CameraLink | None = None
        if p['camera_enabled']:
            self._setup_camera(p)

    def frame_id(self, name: str) -> str:
        """The frame id this node stamps for a URDF frame name (frame_prefix applied)."""
        return f'{self._frame_prefix}{name}'

    # ------------------------------------------------------------------ parameters
    def _validate_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        result = validate_update(PARAMETER_BY_NAME, parameters)
        if result.successful and (problem := update_problem(self._p, {p.name: p.value for p in parameters})):
            return SetParametersResult(successful=False, reason=problem)
        return result

    def _apply_parameters(self, parameters: list[Parameter]) -> None:
        changes = {p.name: p.value for p in parameters if p.name in ESTIMATOR_PARAMETERS}
        self._p.update({p.name: p.value for p in parameters})
        if self.camera is not None:
            self.camera.reconnect.policy = reconnect_policy(self._p)
        if changes:
            self.slam.retune(changes)
            self.get_logger().info(f'odom estimator retuned: {changes}')

    # ------------------------------------------------------------------ events
    def _emit(self, events: list[OdometryEvent]) -> None:
        for event in events:
            text = self.events.record(event)
            self._events_pub.publish(String(data=f'{event.kind}: {event.message}'))
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
    def _setup_slam(self, p: dict[str, Any], config: OdometryConfig) -> None:
        self.slam = SlamInput(OdometryEstimator(CameraToBase(base_to_pose_frame(p)), config), self._now_s,
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
        elif p['pose_source'] == 'file' and p['trajectory_mode'] == 'follow':
            follower = TrajectoryFollower(p['trajectory_file'], p['trajectory_format'])
            self.create_timer(p['trajectory_poll_s'], lambda: self.slam.poll_file(follower))
        elif p['pose_source'] == 'file':
            result = read_replay_trajectory(p)
            self.slam.report_line_issues(result.issues)
            if not result.samples:
                raise StartupError(f"{p['trajectory_file']}: no valid {p['trajectory_format']} "
                                   'poses (wrong trajectory_format?)')
            self._replay = ReplayPacer(result.samples)
            self.create_timer(p['trajectory_poll_s'], self._replay_tick)
        self.create_timer(0.05, self.slam.check_stale)
        self.get_logger().info(pose_source_text(p))

    def _on_pose_message(self, message: PoseStamped | Odometry) -> None:
        self.slam.pose(*pose_of(message), self._p['pose_topic'])

    def _replay_tick(self) -> None:
        # an offline replay is only useful to someone listening: start when odom is subscribed
        may_start = not self._p['replay_wait_for_subscriber'] or self._odom_pub.get_subscription_count() > 0
        if self.slam.replay_tick(self._replay, may_start, time.monotonic()):
            self.get_logger().info(f'trajectory replay started ({self._replay.pose_count} poses)')

    def _publish_odom(self, estimate: OdometryEstimate) -> None:
        self._odom_pub.publish(odometry_message(estimate, self._odom_frame_id, self._base_frame_id))
        self._rates.count('odom')

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
        self._camera_info_cache: dict[tuple[int, str], CameraInfo] = {}
        self.camera = CameraLink(
            p['device'], stream_config(p), reconnect_policy(p),
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
        self._imu_pub.publish(imu_message(record, self._imu_frame, imu_covariances(
            self._p['imu_gyro_stddev_rad_s'], self._p['imu_accel_stddev_m_s2'])))
        self._rates.count('imu')

    def _publish_image(self, record: ImageRecord) -> None:
        stream = record.frame.stream
        image_pub, info_pub, frame_id = self._image_pubs[stream]
        message = image_message(record, frame_id)
        info = self._camera_info_cache.get((record.opening, stream))  # one per stream and device opening
        if info is None:
            info = self._camera_info_cache[(record.opening, stream)] = camera_info_message(record.frame, frame_id)
        info.header.stamp = message.header.stamp
        image_pub.publish(message)
        info_pub.publish(info)
        self._rates.count(stream)

    # ------------------------------------------------------------------ diagnostics
    def _publish_diagnostics(self) -> None:
        rates = self._rates.take(time.monotonic())
        self._check_pose_topic_type()
        reports = [] if self.camera is None else [camera_report(self.camera, rates, self._p['device'])]
        problems, values = self.slam.status(self._p['pose_source'] != 'none', self.events.counts, self.events.last)
        reports.append(slam_report(problems, values, rates['odom']))
        array = DiagnosticArray(status=[status_message(report) for report in reports])
        array.header.stamp = self.get_clock().now().to_msg()
        self._diag_pub.publish(array)

    def _check_pose_topic_type(self) -> None:
        if self._pose_sub is None or self._type_warned:
            return
        expected = POSE_TYPES[self._p['pose_topic_type']]
        topic = self._pose_sub.topic_name
        problem = wrong_type_problem(topic, type_name(expected),
                                     {info.topic_type for info in self.get_publishers_info_by_topic(topic)})
        if problem is not None:
            self._type_warned = True
            self._event('wrong_type', 'error', problem)


def spin_then_close_camera(node: OdometryNode) -> None:
    """Spin until SIGINT/SIGTERM, then close the camera before the node goes. One thread: every
    callback is short, and none is left on a pool thread after the spin (README)."""
    try:
        spin_node(node)
    finally:
        node.stop_camera()


def main(args: list[str] | None = None) -> int:
    return run_node(OdometryNode, args, spin=spin_then_close_camera)


if __name__ == '__main__':
    raise SystemExit(main())
