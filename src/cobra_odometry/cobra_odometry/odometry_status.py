"""What the odometry node reports, built without rclpy: stream rates, the event log (counts and
the last text of each kind, for diagnostics and the throttled log) and the diagnostics statuses.
The node only converts a `StatusReport` into diagnostic_msgs/DiagnosticStatus.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from cobra_odometry.camera_link import ERROR, OK, WARN, CameraLink
from cobra_odometry.pose_tracking import OdometryEvent

STREAMS = ('imu', 'color', 'depth', 'odom')
CAMERA_STATUS_NAME = 'odometry: camera'
SLAM_STATUS_NAME = 'odometry: slam'
HARDWARE_ID = 'd435i'
MESSAGE_LENGTH = 500  # diagnostics messages are cut here (an event's text can be long)
LEVELS = (OK, WARN, ERROR)


@dataclass(frozen=True)
class StatusReport:
    """One diagnostics status: level is camera_link's OK | WARN | ERROR."""

    name: str
    level: str
    message: str
    values: dict[str, str]


class StreamRates:
    """Messages published per stream since the last `take` (the 1 Hz diagnostics' rates)."""

    def __init__(self, now_s: float) -> None:
        self._counts = dict.fromkeys(STREAMS, 0)
        self._since_s = now_s

    def count(self, stream: str) -> None:
        self._counts[stream] += 1

    def take(self, now_s: float) -> dict[str, float]:
        """Each stream's rate [Hz] since the last take, and a fresh count."""
        elapsed_s = max(now_s - self._since_s, 1e-6)
        rates = {stream: count / elapsed_s for stream, count in self._counts.items()}
        self._counts = dict.fromkeys(STREAMS, 0)
        self._since_s = now_s
        return rates


class EventLog:
    """Every event counted per kind with its last text: diagnostics name the repeated ones."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.last: dict[str, str] = {}

    def record(self, event: OdometryEvent) -> str:
        """Count the event; the log line ('... (3 so far)' from the second one of a kind on)."""
        count = self.counts[event.kind] = self.counts.get(event.kind, 0) + 1
        self.last[event.kind] = event.message
        return f'{event.message} ({count} so far)' if count > 1 else event.message


def camera_report(camera: CameraLink, rates: Mapping[str, float], device: str) -> StatusReport:
    """The camera's status, rates and (while a device streams) its IMU and clock counters."""
    level, message = camera.status
    values = {'imu_rate_hz': f"{rates['imu']:.1f}", 'color_rate_hz': f"{rates['color']:.1f}",
              'depth_rate_hz': f"{rates['depth']:.1f}", 'device': device or 'first found'}
    if camera.source is not None:
        counters = camera.uniter.counters
        values.update({f'imu_{f.name}': str(getattr(counters, f.name)) for f in fields(counters)})
        values['clock_reanchors'] = str(camera.device_clock.reanchors)
    return StatusReport(CAMERA_STATUS_NAME, level, message[:MESSAGE_LENGTH], values)


def slam_report(problems: list[str], values: Mapping[str, str], odom_rate_hz: float) -> StatusReport:
    """SLAM tracking: WARN with the problems joined, else OK 'tracking'."""
    message = ('; '.join(problems) or 'tracking')[:MESSAGE_LENGTH]
    return StatusReport(SLAM_STATUS_NAME, WARN if problems else OK, message,
                        {**values, 'odom_rate_hz': f'{odom_rate_hz:.1f}'})


def imu_covariances(gyro_stddev_rad_s: float, accel_stddev_m_s2: float) -> tuple[list[float], list[float]]:
    """Row-major 3x3 diagonal covariances of imu/data's angular velocity and linear acceleration."""
    def diagonal(variance: float) -> list[float]:
        return [variance, 0.0, 0.0, 0.0, variance, 0.0, 0.0, 0.0, variance]
    return diagonal(gyro_stddev_rad_s ** 2), diagonal(accel_stddev_m_s2 ** 2)


def camera_matrices(intrinsics: Any) -> dict[str, list[float]]:
    """CameraInfo's d, k, r, p of an unrectified pinhole stream (librealsense intrinsics)."""
    fx, fy, cx, cy = intrinsics.fx, intrinsics.fy, intrinsics.ppx, intrinsics.ppy
    return {'d': [float(c) for c in intrinsics.coefficients],
            'k': [fx, 0.0, cx, 0.0, fy, cy, 0.0, 0.0, 1.0],
            'r': [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            'p': [fx, 0.0, cx, 0.0, 0.0, fy, cy, 0.0, 0.0, 0.0, 1.0, 0.0]}


def wrong_type_problem(topic: str, expected_type: str, publisher_types: set[str]) -> str | None:
    """The fix when the pose topic has publishers of another type (they never match: no poses)."""
    wrong = sorted(publisher_types - {expected_type})
    if not wrong:
        return None
    return (f'{topic} has publishers of {", ".join(wrong)} but this node subscribes '
            f'{expected_type}: set pose_topic_type to match (PoseStamped | Odometry)')
