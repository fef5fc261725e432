"""Rigid-transform helpers and the camera-to-base frame conversion.

Quaternions are (x, y, z, w) (cobra_common.rotations), as in ORB-SLAM3's trajectory files.
Poses are 4x4 homogeneous matrices `T_a_b` = pose of frame b expressed in frame a.
"""

from __future__ import annotations

import numpy as np
from cobra_common.rotations import matrix_from_quaternion

# Rotation from a REP 103 body frame (x forward, y left, z up) to the camera optical frame
# (x right, y down, z forward) at the same origin: URDF rpy (-pi/2, 0, -pi/2).
BODY_TO_OPTICAL = np.array([
    [0.0, 0.0, 1.0],
    [-1.0, 0.0, 0.0],
    [0.0, -1.0, 0.0],
])


def pose_matrix(position: np.ndarray, quaternion_xyzw: np.ndarray) -> np.ndarray:
    """4x4 pose of a position and an (x, y, z, w) quaternion."""
    transform = np.eye(4)
    transform[:3, :3] = matrix_from_quaternion(quaternion_xyzw)
    transform[:3, 3] = position
    return transform


def invert(transform: np.ndarray) -> np.ndarray:
    """Inverse of a rigid transform without a general matrix inversion."""
    inverse = np.eye(4)
    rotation_t = transform[:3, :3].T
    inverse[:3, :3] = rotation_t
    inverse[:3, 3] = -rotation_t @ transform[:3, 3]
    return inverse


def optical_frame_of(body_frame_pose: np.ndarray) -> np.ndarray:
    """Pose of the optical frame sharing the origin of a REP 103 camera body frame."""
    optical = np.eye(4)
    optical[:3, :3] = BODY_TO_OPTICAL
    return body_frame_pose @ optical


class CameraToBase:
    """Maps poses of a camera frame P (in the SLAM world W) to poses of base_link in odom.

    T_odom_base(t) = A · T_W_P(t) · T_P_B, with T_P_B the URDF extrinsic. The anchor A is set at
    the first pose (so that odom starts at `initial_pose`) and re-set after a relocalisation jump
    so that odom stays continuous instead of teleporting (REP 105).
    """

    def __init__(self, base_to_pose_frame: np.ndarray) -> None:
        self.base_to_pose_frame = np.asarray(base_to_pose_frame, dtype=float)
        self.pose_frame_to_base = invert(self.base_to_pose_frame)
        self.anchor: np.ndarray | None = None

    def base_in_slam_world(self, slam_pose: np.ndarray) -> np.ndarray:
        return slam_pose @ self.pose_frame_to_base

    def anchor_at(self, slam_pose: np.ndarray, odom_pose_of_base: np.ndarray) -> None:
        """Choose A so that this SLAM pose maps exactly to the given base pose in odom."""
        self.anchor = odom_pose_of_base @ invert(self.base_in_slam_world(slam_pose))

    def __call__(self, slam_pose: np.ndarray) -> np.ndarray:
        if self.anchor is None:
            raise RuntimeError('CameraToBase used before anchor_at(): no reference pose yet')
        return self.anchor @ self.base_in_slam_world(slam_pose)
