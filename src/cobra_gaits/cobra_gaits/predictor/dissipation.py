"""Local dissipation tensors, the discrete dissipation energy and the geometric momentum (the
geometric-mechanics paper §II-B).

D_k = w_k (I + (eps - 1) T_k (x) T_k)                               (Eq. 3)
E   = 1/2 sum_t <D^(t,t+1) dp, dp>,  D^(t,t+1) = 1/2 (D^t + D^(t+1))  (Eq. 4)
mu  = -1/2 sum_k ( p^(t+1)_k x (D^t dp)_k + p^t_k x (D^(t+1) dp)_k ;  (D^(t,t+1) dp)_k )   (Eq. 6)

eps in (0, 1]: eps -> 0 makes tangential sliding free, eps = 1 is isotropic (no net displacement).
Derivation check (ours, since the paper states mu without proof): moving p^(t+1) by a rigid
variation (omega x p + v) rotates the tangents of gamma^(t+1) too; the derivative of E_t is
omega . [sum p^(t+1) x D^(t,t+1) dp + 1/2 sum D^(t+1) dp x dp] + v . sum D^(t,t+1) dp, and with
D^(t,t+1) = (D^t + D^(t+1))/2 the rotational part equals 1/2 sum (p^(t+1) x D^t dp + p^t x D^(t+1) dp).
So mu = 0 is exactly the stationarity of E_t under rigid motions of the next shape:
mu_rot = -dE_t/d(omega) and mu_tran = -1/2 dE_t/dv (the paper's -1/2 scales both parts alike; the
roots are the same). Checked by finite differences in test_predictor_integrator.py.
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
