"""Gait optimisation on the predictor (the geometric-mechanics paper §III-A, §V-B): minimise
-Delta_CoM + c E, and cost of transport.

Delta_CoM is the net centre-of-mass translation over one cycle predicted by Alg. 1, E the cycle's
dissipation (Eq. 4). c = 0 is the paper's naive loss; c in [1, 2] gave its best cost of transport.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from cobra_gaits.predictor.curve import PredictorError
from cobra_gaits.predictor.integrator import PredictedMotion, integrate_motion
from cobra_gaits.predictor.serpenoid import GAIT_BOUNDS, EllipticGait, gait_shapes

GRAVITY_M_S2 = 9.81


@dataclass(frozen=True)
class GaitModel:
    """What a cycle prediction needs besides the gait: body, sampling and the dissipation model."""

    epsilon: float = 0.1865  # the geometric-mechanics paper's fitted anisotropy ratio
    n_steps: int = 50
    n_vertices: int = 12
    length_m: float = 1.0
    weights: np.ndarray | None = None  # (N,) or None = uniform, sum 1


@dataclass(frozen=True)
class OptimisedGait:
    gait: EllipticGait
    objective: float
    start_objective: float
    com_displacement_m: float
    energy: float
    evaluations: int


def predict_cycle(gait: EllipticGait, model: GaitModel) -> PredictedMotion:
    """One gait cycle forward with Alg. 1."""
    shapes = gait_shapes(gait, model.n_steps, model.n_vertices, model.length_m)
    return integrate_motion(shapes, model.epsilon, model.weights)


def gait_objective(gait: EllipticGait, model: GaitModel, dissipation_coefficient: float) -> float:
    """-Delta_CoM + c E over one cycle (the geometric-mechanics paper §V-B)."""
    motion = predict_cycle(gait, model)
    return -motion.com_displacement_m + dissipation_coefficient * motion.energy


def cost_of_transport(dissipated_energy_j: float, mass_kg: float, distance_m: float,
                      gravity_m_s2: float = GRAVITY_M_S2) -> float:
    """CoT = P / (m g v) = E / (m g d) over the same interval (the geometric-mechanics paper §V-B);
    inf when it does not move."""
    if mass_kg <= 0.0:
        raise PredictorError(f'mass_kg must be > 0, got {mass_kg}')
    if distance_m <= 0.0:
        return float('inf')
    return dissipated_energy_j / (mass_kg * gravity_m_s2 * distance_m)


def cycle_energy_j(motion: PredictedMotion, cycle_period_s: float) -> float:
    """Dissipated energy [J] of a predicted cycle when the weights are viscous coefficients [N s/m].

    A step of duration dt dissipates dp^T D dp / dt = 2 E_t / dt.
    """
    if cycle_period_s <= 0.0:
        raise PredictorError(f'cycle_period_s must be > 0, got {cycle_period_s}')
    step_s = cycle_period_s / len(motion.step_energies)
    return float(2.0 * motion.step_energies.sum() / step_s)


def optimise_gait(start: EllipticGait, model: GaitModel, dissipation_coefficient: float = 0.0,
                  fixed_xi: float | None = None, max_evaluations: int = 600) -> OptimisedGait:
    """Minimise -Delta_CoM + c E over (sigma, x_c, y_c, theta, a, xi) inside GAIT_BOUNDS (Powell).

    fixed_xi prescribes the wavelength (the paper's spatial-frequency constraint).
    """
    if dissipation_coefficient < 0.0:
        raise PredictorError(f'dissipation_coefficient c must be >= 0, got {dissipation_coefficient}')
    start = start.validated()
    if fixed_xi is not None:
        start = EllipticGait(start.sigma, start.x_c, start.y_c, start.theta_rad, start.a, float(fixed_xi)).validated()
    bounds = list(GAIT_BOUNDS.values())
    free = slice(0, 5) if fixed_xi is not None else slice(0, 6)
    start_vector = np.clip(start.as_vector(), [b[0] for b in bounds], [b[1] for b in bounds])

    def full(vector: np.ndarray) -> EllipticGait:
        values = start_vector.copy()
        values[free] = vector
        return EllipticGait.from_vector(values)

    def objective(vector: np.ndarray) -> float:
        try:
            return gait_objective(full(vector), model, dissipation_coefficient)
        except PredictorError:
            return float('inf')  # a gait whose step solve fails is not a candidate

    start_objective = gait_objective(full(start_vector[free]), model, dissipation_coefficient)
    result = minimize(objective, start_vector[free], method='Powell', bounds=bounds[free],
                      options={'maxfev': max_evaluations, 'xtol': 1e-4, 'ftol': 1e-6})
    best = full(result.x) if result.fun <= start_objective else full(start_vector[free])
    motion = predict_cycle(best, model)
    return OptimisedGait(best, float(min(result.fun, start_objective)), float(start_objective),
                         motion.com_displacement_m, motion.energy, int(result.nfev))
