"""Beyond the geometric-mechanics paper: vertex weights from ground contact, so the planar
predictor forecasts sidewinding.

A sidewinder lifts part of its body with the vertical wave; a lifted module dissipates nothing, so
its weight w_k is ~0. With time-varying weights the same Alg. 1 moves the body even with isotropic
friction (eps = 1): the grounded modules stay put on average while the lifted ones are carried
forward, which is sidewinding to first order.

Inputs are 3-D module points (T, K, 3) in any frame per sample (e.g. the head frame from forward
kinematics of the commanded joint angles), their masses (K,), or measured normal forces (T, K).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from cobra_description.robot_model import RobotModel

from cobra_gaits.predictor.curve import PredictorError, center_of_mass
from cobra_gaits.predictor.integrator import PredictedMotion, integrate_motion

DEFAULT_CONTACT_BAND_M = 0.01  # a module within this height of the support plane carries weight
FLATNESS_RATIO = 0.05  # lower modules spanning less than this width/length ratio count as collinear
LIFTED_WEIGHT_FRACTION = 1e-3  # a lifted module keeps this share of its weight (air drag, cable): keeps
# the step solve well posed when only one or two modules touch (a single contact cannot fix a rotation)


def _least_axis(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(normal, principal axis, singular values) of the best plane through each sample's points."""
    centred = points - points.mean(axis=1, keepdims=True)
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    normal = vt[:, 2, :] * np.where(vt[:, 2, 2] < 0.0, -1.0, 1.0)[:, None]
    return normal, vt[:, 0, :], singular


def support_frames(points_m: np.ndarray) -> np.ndarray:
    """Per-sample orthonormal frames (T, 3, 3), rows (e1, e2, n), n the support-plane normal.

    n: the best plane through the lower half of the modules (those below the median height over
    the best plane through all of them), the part of the body that rests on flat ground; the
    all-module plane where the lower half is nearly collinear. Signed to agree with the points'
    frame +z, so the projection keeps the body's handedness (no mirrored shapes).
    """
    points = np.asarray(points_m, dtype=float)
    if points.ndim != 3 or points.shape[2] != 3 or points.shape[1] < 6:
        raise PredictorError(f'points must be (T, K >= 6, 3), got {points.shape}')
    normal_all, axis, _ = _least_axis(points)
    heights = np.einsum('tkd,td->tk', points, normal_all)
    lower_count = points.shape[1] // 2 + 1
    lower = np.take_along_axis(points, np.argsort(heights, axis=1)[:, :lower_count, None], axis=1)
    normal_low, _, singular = _least_axis(lower)
    flat_enough = singular[:, 1] > FLATNESS_RATIO * singular[:, 0]
    normal = np.where(flat_enough[:, None], normal_low, normal_all)
    axis = axis - np.sum(axis * normal, axis=1, keepdims=True) * normal
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    return np.stack((axis, np.cross(normal, axis), normal), axis=1)


def support_heights_m(points_m: np.ndarray, frames: np.ndarray | None = None) -> np.ndarray:
    """Height (T, K) of every module above the lowest one, along the support normal.

    The body rests on its lowest modules: this is the first-order contact geometry when the
    ground is flat and the body's own plane is close to horizontal.
    """
    frames = support_frames(points_m) if frames is None else frames
    heights = np.einsum('tkd,td->tk', points_m, frames[:, 2, :])
    return heights - heights.min(axis=1, keepdims=True)


def contact_weights(points_m: np.ndarray, masses_kg: Sequence[float], band_m: float = DEFAULT_CONTACT_BAND_M,
                    frames: np.ndarray | None = None, lifted_fraction: float = LIFTED_WEIGHT_FRACTION) -> np.ndarray:
    """w_k = m_k for modules within `band_m` of the support plane, ~0 (lifted_fraction m_k) for lifted ones (T, K)."""
    masses = np.asarray(masses_kg, dtype=float)
    points = np.asarray(points_m, dtype=float)
    if masses.shape != points.shape[1:2] or np.any(masses <= 0.0):
        raise PredictorError(f'masses_kg must be {points.shape[1]} values > 0, got shape {masses.shape}')
    if band_m <= 0.0:
        raise PredictorError(f'band_m must be > 0, got {band_m}')
    if not 0.0 <= lifted_fraction < 1.0:
        raise PredictorError(f'lifted_fraction must be in [0, 1), got {lifted_fraction}')
    return np.where(support_heights_m(points, frames) <= band_m, masses, lifted_fraction * masses)


def force_weights(normal_forces_n: np.ndarray) -> np.ndarray:
    """Weights (T, K) from measured normal forces (e.g. contact/forces): w_k = max(F_n, 0)."""
    forces = np.asarray(normal_forces_n, dtype=float)
    if forces.ndim != 2 or not np.all(np.isfinite(forces)):
        raise PredictorError(f'normal forces must be a finite (T, K) array, got shape {forces.shape}')
    weights = np.clip(forces, 0.0, None)
    if np.any(weights.sum(axis=1) <= 0.0):
        raise PredictorError('some samples have no positive normal force: the body is airborne there')
    return weights + LIFTED_WEIGHT_FRACTION * weights.max(axis=1, keepdims=True) / forces.shape[1]


def planar_shapes_m(points_m: np.ndarray, frames: np.ndarray | None = None) -> np.ndarray:
    """Projection (T, K, 2) of the module points onto their support plane (e1, e2 coordinates)."""
    frames = support_frames(points_m) if frames is None else frames
    return np.einsum('tkd,tjd->tkj', points_m, frames[:, :2, :])


def module_points_m(robot: RobotModel, joint_names: Sequence[str], joint_rows_rad: np.ndarray,
                    links: Sequence[str]) -> np.ndarray:
    """Centres of mass (T, K, 3) of `links` in the robot's root frame, by forward kinematics of the URDF."""
    rows = np.atleast_2d(np.asarray(joint_rows_rad, dtype=float))
    if rows.shape[1] != len(joint_names):
        raise PredictorError(f'joint rows have {rows.shape[1]} columns for {len(joint_names)} joint names')
    offsets = []
    for link in links:
        inertial = robot.links[link].inertial
        if inertial is None:
            raise PredictorError(f"link '{link}' has no inertial in the URDF: give links with a mass")
        offsets.append(np.array(inertial.origin.xyz))
    points = np.empty((len(rows), len(links), 3))
    for index, row in enumerate(rows):
        positions = dict(zip(joint_names, row))
        for k, link in enumerate(links):
            transform = robot.transform(robot.root, link, positions)
            points[index, k] = transform[:3, :3] @ offsets[k] + transform[:3, 3]
    return points


@dataclass(frozen=True)
class SidewindingForecast:
    """Contact-weighted prediction of a 3-D gait, in the support-plane frame of the first sample."""

    motion: PredictedMotion  # placed planar shapes, weights = contact weights
    masses_kg: np.ndarray  # (K,)

    @property
    def body_com_m(self) -> np.ndarray:
        """Mass-weighted centre of mass of the placed shapes (T, 2) (not the contact-weighted one)."""
        return center_of_mass(self.motion.shapes_m, self.masses_kg)

    def travel(self, cycles: float) -> tuple[float, float]:
        """(stride per cycle [m], direction of travel [rad] in the first shape's support frame)."""
        com = self.body_com_m
        displacement = com[-1] - com[0]
        return float(np.linalg.norm(displacement) / cycles), float(np.arctan2(displacement[1], displacement[0]))


def forecast_gait(points_m: np.ndarray, masses_kg: Sequence[float], epsilon: float = 1.0,
                  band_m: float = DEFAULT_CONTACT_BAND_M, weights: np.ndarray | None = None) -> SidewindingForecast:
    """Alg. 1 on the support-plane projection of 3-D module points with contact weights.

    eps = 1 (isotropic friction, rigid ground) by default: the motion then comes from contact
    switching alone. `weights` (T, K) overrides the geometric contact (e.g. force_weights).
    """
    frames = support_frames(points_m)
    masses = np.asarray(masses_kg, dtype=float)
    table = contact_weights(points_m, masses, band_m, frames) if weights is None else weights
    motion = integrate_motion(planar_shapes_m(points_m, frames), epsilon, table)
    return SidewindingForecast(motion, masses)
