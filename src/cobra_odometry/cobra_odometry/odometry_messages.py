"""The odometry node's edge: its records (estimates, IMU samples, frames, status reports) as ROS
messages and the SLAM pose messages as arrays. Field filling only; what goes in is decided by the
ROS-free libraries (pose_tracking, camera_link, odometry_status)."""

from __future__ import annotations

import numpy as np
from diagnostic_msgs.msg import DiagnosticStatus, KeyValue
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Odometry
from sensor_msgs.msg import CameraInfo, Image, Imu

from cobra_common.ros_entry import set_stamp, stamp_seconds
from cobra_common.rotations import quaternion_from_matrix
from cobra_odometry.camera_link import ERROR, OK, WARN, ImageRecord, ImuRecord
from cobra_odometry.odometry_status import HARDWARE_ID, StatusReport, camera_matrices
from cobra_odometry.pose_tracking import OdometryEstimate
from cobra_odometry.realsense_source import ImageFrame

POSE_TYPES = {'PoseStamped': PoseStamped, 'Odometry': Odometry}
LEVELS = {OK: DiagnosticStatus.OK, WARN: DiagnosticStatus.WARN, ERROR: DiagnosticStatus.ERROR}


def type_name(message_type: type) -> str:
    """'geometry_msgs/msg/PoseStamped', as the graph reports a topic's type."""
    return f'{message_type.__module__.split(".")[0]}/msg/{message_type.__name__}'


def pose_of(message: PoseStamped | Odometry) -> tuple[float, np.ndarray, np.ndarray]:
    """A SLAM pose: stamp [s], position [m] and quaternion (x, y, z, w)."""
    pose = message.pose.pose if isinstance(message, Odometry) else message.pose
    return (stamp_seconds(message.header.stamp),
            np.array([pose.position.x, pose.position.y, pose.position.z]),
            np.array([pose.orientation.x, pose.orientation.y, pose.orientation.z, pose.orientation.w]))


def odometry_message(estimate: OdometryEstimate, odom_frame_id: str, base_frame_id: str) -> Odometry:
    message = Odometry(child_frame_id=base_frame_id)
    set_stamp(message.header.stamp, estimate.stamp_s)
    message.header.frame_id = odom_frame_id
    pose = message.pose.pose
    pose.position.x, pose.position.y, pose.position.z = (float(v) for v in estimate.pose[:3, 3])
    pose.orientation.x, pose.orientation.y, pose.orientation.z, pose.orientation.w = (
        float(v) for v in quaternion_from_matrix(estimate.pose[:3, :3]))
    message.pose.covariance = estimate.pose_covariance.ravel().tolist()
    twist = message.twist.twist
    twist.linear.x, twist.linear.y, twist.linear.z = (float(v) for v in estimate.linear_velocity)
    twist.angular.x, twist.angular.y, twist.angular.z = (float(v) for v in estimate.angular_velocity)
    message.twist.covariance = estimate.twist_covariance.ravel().tolist()
    return message


def imu_message(record: ImuRecord, frame_id: str, covariances: tuple[list[float], list[float]]) -> Imu:
    message = Imu()
    set_stamp(message.header.stamp, record.stamp_s)
    message.header.frame_id = frame_id
    message.orientation_covariance[0] = -1.0  # no orientation estimate (REP 145)
    w, a = message.angular_velocity, message.linear_acceleration
    w.x, w.y, w.z = record.angular_velocity
    a.x, a.y, a.z = record.linear_acceleration
    message.angular_velocity_covariance, message.linear_acceleration_covariance = covariances
    return message


def image_message(record: ImageRecord, frame_id: str) -> Image:
    frame = record.frame
    message = Image(height=frame.height, width=frame.width, step=frame.step, encoding=frame.encoding,
                    is_bigendian=0, data=frame.data)
    set_stamp(message.header.stamp, record.stamp_s)
    message.header.frame_id = frame_id
    return message


def camera_info_message(frame: ImageFrame, frame_id: str) -> CameraInfo:
    info = CameraInfo(width=frame.width, height=frame.height, distortion_model=frame.intrinsics.distortion_model,
                      **camera_matrices(frame.intrinsics))
    info.header.frame_id = frame_id
    return info


def status_message(report: StatusReport) -> DiagnosticStatus:
    return DiagnosticStatus(level=LEVELS[report.level], name=report.name, message=report.message,
                            hardware_id=HARDWARE_ID,
                            values=[KeyValue(key=key, value=value) for key, value in report.values.items()])
