"""Checks on the odometry node's parameters that the values alone can judge (no rclpy).

The node's `declare_parameters` turns the first problem found into its StartupError (exit 2);
the bringup's pre-start validator gets the same verdict before any node starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cobra_common.frames import frame_prefix_problem
from cobra_odometry.realsense_source import ACCEL_RATES_HZ, GYRO_RATES_HZ, is_recording
from cobra_odometry.trajectory_formats import FORMATS

POSE_SOURCES = ('topic', 'file', 'none')
POSE_TOPIC_TYPES = ('PoseStamped', 'Odometry')
TRAJECTORY_MODES = ('follow', 'replay')


def parameter_problem(p: Mapping[str, Any]) -> str | None:
    """The first invalid value or combination, as a message naming parameter, value and fix."""
    checks = [
        (p['pose_source'] in POSE_SOURCES, f"pose_source must be one of {POSE_SOURCES}; got {p['pose_source']!r}"),
        (p['pose_topic_type'] in POSE_TOPIC_TYPES,
         f"pose_topic_type must be one of {POSE_TOPIC_TYPES}; got {p['pose_topic_type']!r}"),
        (p['trajectory_format'] in FORMATS,
         f"trajectory_format must be one of {FORMATS}; got {p['trajectory_format']!r}"),
        (p['trajectory_mode'] in TRAJECTORY_MODES,
         f"trajectory_mode must be one of {TRAJECTORY_MODES}; got {p['trajectory_mode']!r}"),
        (p['pose_source'] != 'file' or p['trajectory_file'],
         'pose_source:=file needs trajectory_file:=<ORB-SLAM3 trajectory>'),
        (p['retry_max_s'] >= p['retry_initial_s'],
         f"retry_max_s ({p['retry_max_s']}) must be >= retry_initial_s ({p['retry_initial_s']})"),
        (p['max_twist_gap_s'] > 0.0, f"max_twist_gap_s must be > 0; got {p['max_twist_gap_s']}"),
        (frame_prefix_problem(p['frame_prefix']) is None, frame_prefix_problem(p['frame_prefix'])),
    ]
    if p['camera_enabled'] and not is_recording(p['device']):
        checks += [(p['gyro_fps'] in GYRO_RATES_HZ,
                    f"gyro_fps must be one of {GYRO_RATES_HZ} (D435i); got {p['gyro_fps']}"),
                   (p['accel_fps'] in ACCEL_RATES_HZ,
                    f"accel_fps must be one of {ACCEL_RATES_HZ} (D435i); got {p['accel_fps']}")]
    return next((message for ok, message in checks if not ok), None)
