"""The odometry node's parameters: one typed table (cobra_common.config_check, as the driver's and
the sim's) and the checks that the values alone can judge; no rclpy (odometry_node declares it).

The node's `declare_parameters` turns the first problem found into its StartupError (exit 2);
the bringup's pre-start validator gets the same verdict before any node starts, and run-time
updates get the same text as their refusal reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

import numpy as np

from cobra_common.config_check import Setting, by_name
from cobra_common.errors import StartupError
from cobra_common.frames import frame_prefix_problem
from cobra_description.robot_model import RobotModelError, load_robot_model
from cobra_odometry.camera_reconnect import ReconnectPolicy
from cobra_odometry.pose_tracking import OdometryConfig
from cobra_odometry.realsense_source import ACCEL_RATES_HZ, GYRO_RATES_HZ, StreamConfig, is_recording
from cobra_odometry.trajectory_formats import FORMATS, TrajectoryReadResult, read_trajectory
from cobra_odometry.transforms import optical_frame_of

POSE_SOURCES = ('topic', 'file', 'none')
POSE_TOPIC_TYPES = ('PoseStamped', 'Odometry')
TRAJECTORY_MODES = ('follow', 'replay')
ESTIMATOR_PARAMETERS = tuple(f.name for f in fields(OdometryConfig))
# the estimator's gaps must be > 0 (a zero gap would never differentiate); the rest may be 0
_OPEN_AT_ZERO = frozenset({'max_twist_gap_s'})

CAMERA_PARAMETERS: tuple[Setting, ...] = (
    Setting('camera_enabled', True, 'run the RealSense side (imu/data, images)'),
    Setting('device', '', "'' = first RealSense, a serial number, or a recording file (.db3 from librealsense "
            '2.59, older .bag)'),
    Setting('wait_for_device', False, 'no camera at startup: false = exit with code 2, true = keep retrying'),
    Setting('retry_initial_s', 1.0, 'first reconnect delay [s] (doubles each try)', 0.1, 60.0),
    Setting('retry_max_s', 30.0, 'longest reconnect delay [s]', 0.1, 600.0),
    Setting('frame_timeout_s', 2.0, 'no IMU frame for this long = camera lost [s]', 0.1, 60.0),
    Setting('gyro_fps', 200, f'gyro rate [Hz], D435i {GYRO_RATES_HZ}', choices=tuple(GYRO_RATES_HZ), note='D435i'),
    Setting('accel_fps', 63, f'accel rate [Hz], D435i {ACCEL_RATES_HZ}', choices=tuple(ACCEL_RATES_HZ),
            note='D435i'),
    Setting('enable_color', True, 'publish camera/color/image_raw'),
    Setting('color_width', 640, 'color width [px]'),
    Setting('color_height', 480, 'color height [px]'),
    Setting('color_fps', 30, 'color rate [Hz]'),
    Setting('enable_depth', True, 'publish camera/depth/image_rect_raw'),
    Setting('depth_width', 640, 'depth width [px]'),
    Setting('depth_height', 480, 'depth height [px]'),
    Setting('depth_fps', 30, 'depth rate [Hz]'),
    Setting('global_time', True, 'RealSense global time (device clock synced to host)'),
    Setting('playback_real_time', True, 'play recordings at recorded speed'),
    Setting('camera_name', 'camera', 'frame prefix (camera_link, camera_*_optical_frame)'),
    Setting('max_accel_gap_s', 0.1, 'no interpolation across a longer accel gap [s]', 0.005, 1.0),
    Setting('imu_gyro_stddev_rad_s', 0.005, 'gyro noise std for imu/data covariance [rad/s]', 0.0, 10.0),
    Setting('imu_accel_stddev_m_s2', 0.05, 'accel noise std for imu/data covariance [m/s^2]', 0.0, 100.0),
)
SLAM_PARAMETERS: tuple[Setting, ...] = (
    Setting('pose_source', 'topic', f'{" | ".join(POSE_SOURCES)}', choices=POSE_SOURCES),
    Setting('pose_topic', 'slam/pose', 'SLAM pose topic'),
    Setting('pose_topic_type', 'PoseStamped', 'PoseStamped | Odometry', choices=POSE_TOPIC_TYPES),
    Setting('tracking_state_topic', 'slam/tracking_state',
            'std_msgs/Int32 ORB-SLAM3 tracking state (-1..5); empty = none'),
    Setting('trajectory_file', '', 'ORB-SLAM3 trajectory file for pose_source:=file'),
    Setting('trajectory_format', 'tum', 'tum | euroc (never guessed)', choices=tuple(FORMATS)),
    Setting('trajectory_mode', 'follow', 'follow (tail as it grows) | replay (paced)', choices=TRAJECTORY_MODES),
    Setting('replay_wait_for_subscriber', True, 'trajectory_mode replay: start once odom has a subscriber'),
    Setting('trajectory_poll_s', 0.02, 'file poll period [s]', 0.001, 1.0),
    Setting('pose_frame', 'camera_link', 'URDF frame whose pose SLAM reports'),
    Setting('pose_frame_optical', True,
            'SLAM axes are the optical convention (z forward, x right, y down) at pose_frame'),
    Setting('urdf_path', '', 'robot URDF; empty = installed cobra_description'),
    Setting('odom_frame', 'odom', 'odom frame id (URDF name, without frame_prefix)'),
    Setting('base_frame', 'base_link', 'child frame id (URDF name, without frame_prefix)'),
    Setting('frame_prefix', '', "prefix of every frame id this node stamps ('cobra/' -> cobra/odom, "
            "cobra/base_link, cobra/camera_imu_optical_frame), so two robots can share one graph; '' = none"),
)
ESTIMATOR_SETTINGS: tuple[Setting, ...] = tuple(
    Setting(name, float(getattr(OdometryConfig(), name)), f'odom estimator: {name} (see README)', 0.0, 1e6,
            minimum_open=name in _OPEN_AT_ZERO)
    for name in ESTIMATOR_PARAMETERS)
PARAMETERS: tuple[Setting, ...] = CAMERA_PARAMETERS + SLAM_PARAMETERS + ESTIMATOR_SETTINGS
PARAMETER_BY_NAME = by_name(PARAMETERS)
RUNTIME_PARAMETERS = frozenset({'retry_initial_s', 'retry_max_s', 'frame_timeout_s', 'imu_gyro_stddev_rad_s',
                                'imu_accel_stddev_m_s2', *ESTIMATOR_PARAMETERS})  # the rest: read-only
DYNAMIC_TYPING = frozenset({'device'})  # a numeric serial arrives as an integer
CAMERA_RATES = frozenset({'gyro_fps', 'accel_fps'})  # fixed by a live D435i; a recording has its own


def _value_problem(setting: Setting, value: Any) -> str | None:
    return setting.problem(value, fix=f'set {setting.name}:=<{setting.allowed}>')


def retry_problem(retry_initial_s: float, retry_max_s: float) -> str | None:
    """The reconnect back-off must grow towards its maximum, not start above it."""
    if retry_max_s >= retry_initial_s:
        return None
    return f'retry_max_s ({retry_max_s}) must be >= retry_initial_s ({retry_initial_s})'


def parameter_problem(p: Mapping[str, Any]) -> str | None:
    """The first invalid value or combination, as a message naming parameter, value and fix."""
    live_camera = p['camera_enabled'] and not is_recording(str(p['device']))
    problems = [_value_problem(setting, p[setting.name]) for setting in PARAMETERS
                if setting.name in p and (live_camera or setting.name not in CAMERA_RATES)]
    problems += [
        None if p['pose_source'] != 'file' or p['trajectory_file']
        else 'pose_source:=file needs trajectory_file:=<ORB-SLAM3 trajectory>',
        retry_problem(p['retry_initial_s'], p['retry_max_s']),
        frame_prefix_problem(p['frame_prefix']),
    ]
    return next((problem for problem in problems if problem), None)


def update_problem(current: Mapping[str, Any], changes: Mapping[str, Any]) -> str | None:
    """What a run-time update breaks across keys (each value alone: node_runtime.validate_update)."""
    merged = {**current, **changes}
    return retry_problem(merged['retry_initial_s'], merged['retry_max_s'])


def estimator_config(p: Mapping[str, Any]) -> OdometryConfig:
    return OdometryConfig(**{name: p[name] for name in ESTIMATOR_PARAMETERS})


def stream_config(p: Mapping[str, Any]) -> StreamConfig:
    return StreamConfig(**{f.name: p[f.name] for f in fields(StreamConfig)})


def reconnect_policy(p: Mapping[str, Any]) -> ReconnectPolicy:
    return ReconnectPolicy(p['retry_initial_s'], p['retry_max_s'], p['frame_timeout_s'])


def base_to_pose_frame(p: Mapping[str, Any]) -> np.ndarray:
    """base_frame -> the frame whose pose SLAM reports (optical axes when pose_frame_optical), 4x4."""
    try:
        base_to_pose = load_robot_model(p['urdf_path'] or None).transform(p['base_frame'], p['pose_frame'])
    except RobotModelError as error:
        raise StartupError(f'{error} (check pose_frame / base_frame / urdf_path)') from error
    return optical_frame_of(base_to_pose) if p['pose_frame_optical'] else base_to_pose


def read_replay_trajectory(p: Mapping[str, Any]) -> TrajectoryReadResult:
    """trajectory_file read whole for trajectory_mode:=replay; StartupError when it does not read."""
    try:
        return read_trajectory(p['trajectory_file'], p['trajectory_format'])
    except OSError as error:
        raise StartupError(f'cannot read trajectory_file: {error}') from error


def pose_source_text(p: Mapping[str, Any]) -> str:
    """The start-up log line: where odom comes from and in which frame SLAM reports."""
    source = {'topic': f" {p['pose_topic']} ({p['pose_topic_type']})",
              'file': f" {p['trajectory_file']} ({p['trajectory_format']}, {p['trajectory_mode']})"}
    optical = ' (optical axes)' if p['pose_frame_optical'] else ''
    return (f"odom from {p['pose_source']}{source.get(p['pose_source'], '')}; "
            f"SLAM pose frame {p['pose_frame']}{optical}")
