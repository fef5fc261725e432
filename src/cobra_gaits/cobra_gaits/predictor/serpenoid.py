"""Serpenoid shape space and elliptic gaits (the geometric-mechanics paper §III).

kappa(s, t) = w1(t) sin(2 pi xi s) + w2(t) cos(2 pi xi s), s in [0, 1] the arc length in body
lengths, kappa in rad per body length. A gait is an ellipse in the (w1, w2) plane:
(w1, w2)(t) = R_theta (a cos 2 pi t, a sigma sin 2 pi t) + (x_c, y_c), t in [0, 1] one cycle.
Shapes follow from the curvature by the fundamental theorem of plane curves: the edge direction
psi(s) = integral of kappa, taken exactly at each edge's mid arc length.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass

import numpy as np

from cobra_gaits.predictor.curve import PredictorError, shapes_from_turning_angles

# Bounds of the gait family used by the tests and the optimiser ("reasonable" bounds, the
# geometric-mechanics paper §III-A).
GAIT_BOUNDS = {
    'sigma': (0.0, 1.0),
    'x_c': (-3.0, 3.0),
    'y_c': (-3.0, 3.0),
    'theta_rad': (-np.pi, np.pi),
    'a': (0.5, 7.0),
    'xi': (0.5, 1.5),
}


@dataclass(frozen=True)
class EllipticGait:
    """One closed gait loop in the serpenoid shape space: (sigma, x_c, y_c, theta, a, xi)."""

    sigma: float  # flatness of the ellipse, 0 = a line (standing wave), 1 = a circle (travelling wave)
    x_c: float  # centre w1 [rad per body length]
    y_c: float  # centre w2 [rad per body length]
    theta_rad: float  # rotation of the ellipse in the shape plane
    a: float  # larger principal semi-axis [rad per body length]
    xi: float  # spatial frequency [waves per body length]

    def validated(self) -> EllipticGait:
        values = astuple(self)
        if not all(np.isfinite(values)):
            raise PredictorError(f'gait parameters must be finite, got {self}')
        if not 0.0 <= self.sigma <= 1.0:
            raise PredictorError(f'sigma (ellipse flatness) must be in [0, 1], got {self.sigma}')
        if self.a < 0.0:
            raise PredictorError(f'a (semi-axis) must be >= 0, got {self.a}')
        if self.xi <= 0.0:
            raise PredictorError(f'xi (spatial frequency) must be > 0, got {self.xi}')
        return self

    def as_vector(self) -> np.ndarray:
        """(sigma, x_c, y_c, theta, a, xi) as an array, the optimiser's variables."""
        return np.array(astuple(self), dtype=float)

    @classmethod
    def from_vector(cls, values: np.ndarray) -> EllipticGait:
        """Inverse of as_vector."""
        return cls(*(float(v) for v in values))


def gait_coefficients(gait: EllipticGait, n_steps: int) -> np.ndarray:
    """(w1, w2) at t = i / n_steps, i = 0 .. n_steps: (n_steps + 1, 2), first = last (closed)."""
    gait.validated()
    if n_steps < 2:
        raise PredictorError(f'n_steps must be >= 2 shapes per cycle, got {n_steps}')
    phase = 2.0 * np.pi * np.arange(n_steps + 1) / n_steps
    local = np.stack((gait.a * np.cos(phase), gait.a * gait.sigma * np.sin(phase)), axis=-1)
    c, s = np.cos(gait.theta_rad), np.sin(gait.theta_rad)
    rotation = np.array([[c, -s], [s, c]])
    coefficients = local @ rotation.T + np.array([gait.x_c, gait.y_c])
    coefficients[-1] = coefficients[0]  # exactly closed
    return coefficients


def edge_angles_rad(coefficients: np.ndarray, xi: float, n_vertices: int) -> np.ndarray:
    """Edge directions psi (T, N - 1) of the curves with curvature coefficients (T, 2) [(w1, w2)]."""
    if n_vertices < 3:
        raise PredictorError(f'n_vertices must be >= 3, got {n_vertices}')
    if xi <= 0.0:
        raise PredictorError(f'xi must be > 0, got {xi}')
    w = np.atleast_2d(np.asarray(coefficients, dtype=float))
    s_mid = (np.arange(n_vertices - 1) + 0.5) / (n_vertices - 1)
    k = 2.0 * np.pi * xi
    sine_integral = (1.0 - np.cos(k * s_mid)) / k  # integral of sin(k s) from 0
    cosine_integral = np.sin(k * s_mid) / k  # integral of cos(k s) from 0
    return w[:, 0:1] * sine_integral + w[:, 1:2] * cosine_integral


def serpenoid_shapes(coefficients: np.ndarray, xi: float, n_vertices: int, length_m: float = 1.0) -> np.ndarray:
    """Planar shapes (T, N, 2) of N vertices spanning `length_m` from curvature coefficients (T, 2)."""
    if length_m <= 0.0:
        raise PredictorError(f'length_m must be > 0, got {length_m}')
    return shapes_from_turning_angles(edge_angles_rad(coefficients, xi, n_vertices), length_m / (n_vertices - 1))


def serpenoid_joint_angles_rad(coefficients: np.ndarray, xi: float, n_joints: int) -> np.ndarray:
    """Relative joint angles (T, n_joints) of an (n_joints + 1)-link chain following the serpenoid."""
    return np.diff(edge_angles_rad(coefficients, xi, n_joints + 2), axis=-1)


def gait_shapes(gait: EllipticGait, n_steps: int = 50, n_vertices: int = 12, length_m: float = 1.0) -> np.ndarray:
    """The shape sequence of one gait cycle: (n_steps + 1, n_vertices, 2), closed."""
    return serpenoid_shapes(gait_coefficients(gait, n_steps), gait.xi, n_vertices, length_m)


def random_gaits(count: int, seed: int = 0) -> list[EllipticGait]:
    """Uniform draws from GAIT_BOUNDS (the paper's sampled gait family)."""
    rng = np.random.default_rng(seed)
    low = np.array([b[0] for b in GAIT_BOUNDS.values()])
    high = np.array([b[1] for b in GAIT_BOUNDS.values()])
    return [EllipticGait.from_vector(rng.uniform(low, high)) for _ in range(count)]
