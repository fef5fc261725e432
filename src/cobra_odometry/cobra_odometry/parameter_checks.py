"""Checks on the odometry node's parameters that the values alone can judge (no rclpy).

The node's `declare_parameters` turns the first problem found into its StartupError (exit 2);
the bringup's pre-start validator gets the same verdict before any node starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cobra_common.config_check import Setting, by_name
from cobra_common.frames import frame_prefix_problem
from cobra_odometry.realsense_source import ACCEL_RATES_HZ, GYRO_RATES_HZ, is_recording
from cobra_odometry.trajectory_formats import FORMATS

POSE_SOURCES = ('topic', 'file', 'none')
POSE_TOPIC_TYPES = ('PoseStamped', 'Odometry')
TRAJECTORY_MODES = ('follow', 'replay')
SETTINGS = by_name((
    Setting('pose_source', choices=POSE_SOURCES),
    Setting('pose_topic_type', choices=POSE_TOPIC_TYPES),
    Setting('trajectory_format', choices=tuple(FORMATS)),
    Setting('trajectory_mode', choices=TRAJECTORY_MODES),
    Setting('max_twist_gap_s', minimum=0.0, minimum_open=True),
))
CAMERA_SETTINGS = by_name((
    Setting('gyro_fps', choices=tuple(GYRO_RATES_HZ), note='D435i'),
    Setting('accel_fps', choices=tuple(ACCEL_RATES_HZ), note='D435i'),
))


def parameter_problem(p: Mapping[str, Any]) -> str | None:
    """The first invalid value or combination, as a message naming parameter, value and fix."""
    problems = [setting.problem(p[name], fix=f'set {name}:=<{setting.allowed}>') for name, setting in SETTINGS.items()]
    problems += [
        None if p['pose_source'] != 'file' or p['trajectory_file']
        else 'pose_source:=file needs trajectory_file:=<ORB-SLAM3 trajectory>',
        None if p['retry_max_s'] >= p['retry_initial_s']
        else f"retry_max_s ({p['retry_max_s']}) must be >= retry_initial_s ({p['retry_initial_s']})",
        frame_prefix_problem(p['frame_prefix']),
    ]
    if p['camera_enabled'] and not is_recording(p['device']):
        problems += [setting.problem(p[name], fix=f'set {name}:=<{setting.allowed}>')
                     for name, setting in CAMERA_SETTINGS.items()]
    return next((problem for problem in problems if problem), None)
