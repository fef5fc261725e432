"""Rigid-transform helpers and the camera-to-base frame conversion.

Quaternions are (x, y, z, w) everywhere, as in geometry_msgs and ORB-SLAM3's trajectory files.
Poses are 4x4 homogeneous matrices `T_a_b` = pose of frame b expressed in frame a.
"""

from __future__ import annotations

import math

import numpy as np

# Rotation from a REP 103 body frame (x forward, y left, z up) to the camera optical frame
# (x right, y down, z forward) at the same origin: URDF rpy (-pi/2, 0, -pi/2).
BODY_TO_OPTICAL = np.array([
    [0.0, 0.0, 1.0],
    [-1.0, 0.0, 0.0],
    [0.0, -1.0, 0.0],
])

QUATERNION_NORM_TOLERANCE = 0.01
"""|‖q‖ − 1| up to this is rounding (normalised silently); beyond it a quaternion is rejected."""


class QuaternionError(ValueError):
    """A quaternion that is not a rotation (zero, non-finite or far from unit length)."""


def checked_unit_quaternion(quaternion_xyzw: np.ndarray,
                            tolerance: float = QUATERNION_NORM_TOLERANCE) -> np.ndarray:
    """Normalise a nearly-unit quaternion; reject one whose norm says it is corrupt."""
    q = np.asarray(quaternion_xyzw, dtype=float)
    if q.shape != (4,) or not np.all(np.isfinite(q)):
        raise QuaternionError(f'quaternion {q.tolist()} is not 4 finite numbers')
    norm = float(np.linalg.norm(q))
    if abs(norm - 1.0) > tolerance:
        raise QuaternionError(
            f'quaternion norm {norm:.4f} differs from 1 by more than {tolerance}: '
            f'the pose is corrupt (write unit quaternions x y z w)')
    return q / norm


def quaternion_to_matrix(quaternion_xyzw: np.ndarray) -> np.ndarray:
    x, y, z, w = quaternion_xyzw
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def matrix_to_quaternion(rotation: np.ndarray) -> np.ndarray:
    """Unit quaternion (x, y, z, w) with w >= 0 (Shepperd's method, stable near 180 deg)."""
    m = rotation
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0:
        s = 2.0 * math.sqrt(trace + 1.0)
        q = np.array([(m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s,
                      (m[1, 0] - m[0, 1]) / s, 0.25 * s])
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = np.array([0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s,
                      (m[2, 1] - m[1, 2]) / s])
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = np.array([(m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s,
                      (m[0, 2] - m[2, 0]) / s])
    else:
        s = 2.0 * math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = np.array([(m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s,
                      (m[1, 0] - m[0, 1]) / s])
    q /= np.linalg.norm(q)
    return -q if q[3] < 0 else q


def pose_matrix(position: np.ndarray, quaternion_xyzw: np.ndarray) -> np.ndarray:
    transform = np.eye(4)
    transform[:3, :3] = quaternion_to_matrix(quaternion_xyzw)
    transform[:3, 3] = position
    return transform


def invert(transform: np.ndarray) -> np.ndarray:
    """Inverse of a rigid transform without a general matrix inversion."""
    inverse = np.eye(4)
    rotation_t = transform[:3, :3].T
    inverse[:3, :3] = rotation_t
    inverse[:3, 3] = -rotation_t @ transform[:3, 3]
    return inverse


def rotation_log(rotation: np.ndarray) -> np.ndarray:
    """Rotation vector (axis * angle, rad) of a rotation matrix."""
    cos_angle = max(-1.0, min(1.0, (np.trace(rotation) - 1.0) / 2.0))
    angle = math.acos(cos_angle)
    vee = np.array([rotation[2, 1] - rotation[1, 2], rotation[0, 2] - rotation[2, 0],
                    rotation[1, 0] - rotation[0, 1]])
    if angle < 1e-6:
        return 0.5 * vee
    if math.pi - angle < 1e-4:
        # near pi the antisymmetric part vanishes: take the axis from the symmetric part
        axis = np.sqrt(np.maximum(np.diag(rotation) + 1.0, 0.0) / 2.0)
        index = int(np.argmax(axis))
        signs = np.sign(rotation[index] + rotation[:, index])
        signs[index] = 1.0
        return angle * axis * signs
    return angle / (2.0 * math.sin(angle)) * vee


def rotation_angle(rotation: np.ndarray) -> float:
    return float(np.linalg.norm(rotation_log(rotation)))


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
