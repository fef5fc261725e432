"""Local dissipation tensors, the discrete dissipation energy and the geometric momentum (the
geometric-mechanics paper §II-B, Eqs. 3, 4 and 6).

eps in (0, 1]: eps -> 0 makes tangential sliding free, eps = 1 is isotropic (no net displacement).
The equations and our derivation check of mu: the package README, "cobra_gaits.predictor.dissipation".
"""

from __future__ import annotations

import numpy as np

from cobra_gaits.predictor.curve import PredictorError, vertex_tangents


def check_anisotropy(epsilon: float) -> float:
    """The anisotropy ratio as a float; > 0 keeps every D_k positive definite."""
    value = float(epsilon)
    if not np.isfinite(value) or value <= 0.0:
        raise PredictorError(f'anisotropy ratio epsilon must be > 0 (paper: 0 < eps <= 1), got {epsilon}')
    return value


def dissipation_tensors(shapes_m: np.ndarray, weights: np.ndarray, epsilon: float) -> np.ndarray:
    """Blocks D_k (..., N, d, d) of Eq. (3) for shapes (..., N, d) and weights (..., N)."""
    eps = check_anisotropy(epsilon)
    tangents = vertex_tangents(shapes_m)
    dim = tangents.shape[-1]
    outer = tangents[..., :, None] * tangents[..., None, :]
    return np.asarray(weights, dtype=float)[..., None, None] * (np.eye(dim) + (eps - 1.0) * outer)


def step_energies(shapes_m: np.ndarray, weights: np.ndarray, epsilon: float) -> np.ndarray:
    """Dissipation of every step t -> t + 1 (T,), the summands of Eq. (4); sum them for E."""
    tensors = dissipation_tensors(shapes_m, weights, epsilon)
    mean_tensors = 0.5 * (tensors[:-1] + tensors[1:])
    displacement = np.diff(shapes_m, axis=0)
    return 0.5 * np.einsum('tki,tkij,tkj->t', displacement, mean_tensors, displacement)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product; the z component (shape (..., 1)) for planar vectors."""
    if a.shape[-1] == 2:
        return (a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0])[..., None]
    return np.cross(a, b)


def geometric_momentum(shape_now_m: np.ndarray, shape_next_m: np.ndarray, weights_now: np.ndarray,
                       weights_next: np.ndarray, epsilon: float) -> np.ndarray:
    """mu(gamma^t, gamma^(t+1)) of Eq. (6): (rot; tran) = 6 values in 3-D, 3 (z-rot, x, y) in 2-D.

    Batched over leading axes: shapes (..., N, d), weights (..., N).
    """
    tensors_now = dissipation_tensors(shape_now_m, weights_now, epsilon)
    tensors_next = dissipation_tensors(shape_next_m, weights_next, epsilon)
    displacement = shape_next_m - shape_now_m
    force_now = np.einsum('...kij,...kj->...ki', tensors_now, displacement)
    force_next = np.einsum('...kij,...kj->...ki', tensors_next, displacement)
    rotational = _cross(shape_next_m, force_now) + _cross(shape_now_m, force_next)
    translational = 0.5 * (force_now + force_next)
    return -0.5 * np.concatenate((rotational.sum(axis=-2), translational.sum(axis=-2)), axis=-1)


__all__ = ['PredictorError', 'check_anisotropy', 'dissipation_tensors', 'geometric_momentum', 'step_energies']
