"""Rotations for the whole project, on scipy.spatial.transform.Rotation.

Convention, stated once: quaternions are (x, y, z, w), scalar last, as geometry_msgs and scipy
store them; rotation matrices map body coordinates into the parent (world) frame. Libraries that
store w first (MuJoCo, evo) are converted where their arrays are read or written, and only there,
with `xyzw_from_wxyz` / `wxyz_from_xyzw`. Every function takes one value or a stack ([..., 4],
[..., 3, 3], [..., 3]) and returns the same stacking.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.spatial.transform import Rotation

QUATERNION_NORM_TOLERANCE = 0.01
"""|‖q‖ − 1| up to this is rounding (normalised silently); beyond it a quaternion is rejected."""

IDENTITY_XYZW = (0.0, 0.0, 0.0, 1.0)


class QuaternionError(ValueError):
    """A quaternion that is not a rotation (zero, non-finite or far from unit length)."""


def matrix_from_quaternion(quaternion_xyzw: Sequence[float] | np.ndarray) -> np.ndarray:
    """Rotation matrices [..., 3, 3] of quaternions [..., 4] (x, y, z, w), normalised first."""
    q = np.asarray(quaternion_xyzw, dtype=float)
    return Rotation.from_quat(q.reshape(-1, 4)).as_matrix().reshape(q.shape[:-1] + (3, 3))


def quaternion_from_matrix(rotation: np.ndarray) -> np.ndarray:
    """Unit quaternions [..., 4] (x, y, z, w) with w >= 0 of rotation matrices [..., 3, 3]."""
    m = np.asarray(rotation, dtype=float)
    quaternion = Rotation.from_matrix(m.reshape(-1, 3, 3)).as_quat(canonical=True)
    return quaternion.reshape(m.shape[:-2] + (4,))


def xyzw_from_wxyz(quaternion_wxyz: Sequence[float] | np.ndarray) -> np.ndarray:
    """The MuJoCo (and evo) edge: a w-first quaternion [..., 4] in this project's x, y, z, w order."""
    return np.asarray(quaternion_wxyz, dtype=float)[..., [1, 2, 3, 0]]


def wxyz_from_xyzw(quaternion_xyzw: Sequence[float] | np.ndarray) -> np.ndarray:
    """The MuJoCo (and evo) edge: an x, y, z, w quaternion [..., 4] as the w-first array they store."""
    return np.asarray(quaternion_xyzw, dtype=float)[..., [3, 0, 1, 2]]


def checked_unit_quaternion(quaternion_xyzw: Sequence[float] | np.ndarray,
                            tolerance: float = QUATERNION_NORM_TOLERANCE) -> np.ndarray:
    """Normalise a nearly-unit quaternion (x, y, z, w); reject one whose norm says it is corrupt."""
    q = np.asarray(quaternion_xyzw, dtype=float)
    if q.shape != (4,) or not np.all(np.isfinite(q)):
        raise QuaternionError(f'quaternion {q.tolist()} is not 4 finite numbers')
    norm = float(np.linalg.norm(q))
    if abs(norm - 1.0) > tolerance:
        raise QuaternionError(
            f'quaternion norm {norm:.4f} differs from 1 by more than {tolerance}: '
            f'the pose is corrupt (write unit quaternions x y z w)')
    return q / norm


def matrix_from_rotation_vector(rotation_vector: np.ndarray) -> np.ndarray:
    """Rotation matrices [..., 3, 3] of rotation vectors [..., 3] (axis times angle, rad)."""
    v = np.asarray(rotation_vector, dtype=float)
    return Rotation.from_rotvec(v.reshape(-1, 3)).as_matrix().reshape(v.shape[:-1] + (3, 3))


def rotation_vector_from_matrix(rotation: np.ndarray) -> np.ndarray:
    """Rotation vectors [..., 3] (axis times angle, rad, angle <= pi) of rotation matrices [..., 3, 3]."""
    m = np.asarray(rotation, dtype=float)
    return Rotation.from_matrix(m.reshape(-1, 3, 3)).as_rotvec().reshape(m.shape[:-2] + (3,))


def rotation_angle_rad(rotation: np.ndarray) -> float:
    """Angle [rad] of one rotation matrix, in [0, pi]."""
    return float(np.linalg.norm(rotation_vector_from_matrix(rotation)))


def matrix_about_axis(axis: Sequence[float] | np.ndarray, angle_rad: float | np.ndarray) -> np.ndarray:
    """Rotation matrices [..., 3, 3] about one axis (any length but zero) by each angle [...].
    One angle takes Rodrigues' formula directly: forward kinematics asks for it per joint and
    per call, where scipy's per-call cost would double the time."""
    unit = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    if np.ndim(angle_rad) == 0:
        x, y, z = unit
        skew = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
        angle = float(angle_rad)
        return np.eye(3) + math.sin(angle) * skew + (1.0 - math.cos(angle)) * (skew @ skew)
    angles = np.asarray(angle_rad, dtype=float)
    return matrix_from_rotation_vector(angles[..., None] * unit)


def matrix_from_rpy(roll_rad: float, pitch_rad: float, yaw_rad: float) -> np.ndarray:
    """URDF's rpy: roll about x, then pitch about y, then yaw about z, all about fixed axes."""
    return Rotation.from_euler('xyz', (roll_rad, pitch_rad, yaw_rad)).as_matrix()


def yaw_from_quaternion(quaternion_xyzw: Sequence[float] | np.ndarray) -> np.ndarray | float:
    """Heading [rad] of the body x axis about world z, in (-pi, pi]; a float for one quaternion."""
    q = np.asarray(quaternion_xyzw, dtype=float)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    yaw = np.arctan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    return float(yaw) if q.ndim == 1 else yaw


def quaternion_about_z(yaw_rad: float | np.ndarray) -> np.ndarray:
    """Quaternions [..., 4] (x, y, z, w) of turns by each yaw [...] about z."""
    half = 0.5 * np.asarray(yaw_rad, dtype=float)
    zero = np.zeros_like(half)
    return np.stack((zero, zero, np.sin(half), np.cos(half)), axis=-1)


def random_quaternions(count: int, rng: np.random.Generator) -> np.ndarray:
    """Uniformly random unit quaternions [count, 4] (x, y, z, w): normalised 4-d normal draws."""
    q = rng.normal(size=(count, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def slope_rotation(slope_deg: float) -> np.ndarray:
    """Rotation about world y by the slope: the tilted ground's frame (its z = the surface normal,
    its x = straight downhill along world +x), also the robot's start orientation on it."""
    return Rotation.from_euler('y', slope_deg, degrees=True).as_matrix()
