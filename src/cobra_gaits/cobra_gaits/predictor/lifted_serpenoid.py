"""The geometric-mechanics paper's elliptic serpenoid gaits played by COBRA, and their contact-weighted prediction.

COBRA slides with isotropic friction, so a planar serpenoid would not move it: the family is *lifted*
(the pitch joints follow the yaw joints' wave times `lift_ratio`; gait1 is a member). The family,
the joint mapping and the predicted CoT: the package README, "cobra_gaits.predictor.lifted_serpenoid".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from cobra_description.robot_model import RobotModel
from scipy.optimize import minimize

from cobra_gaits.predictor.contact import DEFAULT_CONTACT_BAND_M, SidewindingForecast, forecast_gait
from cobra_gaits.predictor.curve import PredictorError
from cobra_gaits.predictor.gait_path import BodyModel, batched_link_points_m
from cobra_gaits.predictor.serpenoid import GAIT_BOUNDS, EllipticGait

RIGID_FRICTION = 0.5  # the sim's rigid ground (MuJoCo uses friction_static of config: 0.5)
LIMIT_FRACTION = 0.95  # commands stay within this share of each joint's limit
GAIT1_AS_SERPENOID = EllipticGait(sigma=1.0, x_c=0.0, y_c=0.0, theta_rad=0.0, a=4.2, xi=1.0)  # 0.70 rad yaw
GAIT1_LIFT_RATIO = 0.5  # gait1: 0.35 rad pitch / 0.70 rad yaw


def ellipse_coefficients(gait: EllipticGait, phase_cycles: np.ndarray) -> np.ndarray:
    """(w1, w2) (T, 2) on the gait ellipse at cycle phases t (any real, 1 = one cycle)."""
    angle = 2.0 * np.pi * np.asarray(phase_cycles, dtype=float)
    local = np.stack((gait.a * np.cos(angle), gait.a * gait.sigma * np.sin(angle)), axis=-1)
    c, s = np.cos(gait.theta_rad), np.sin(gait.theta_rad)
    return local @ np.array([[c, -s], [s, c]]).T + np.array([gait.x_c, gait.y_c])


def lifted_joint_rows_rad(gait: EllipticGait, joint_kinds: Sequence[str], phase_cycles: np.ndarray,
                          lift_ratio: float, limits_rad: Sequence[float] | None = None) -> np.ndarray:
    """Joint positions (T, n) of the lifted serpenoid at cycle phases t (see the module text)."""
    gait.validated()
    kinds = list(joint_kinds)
    unknown = sorted(set(kinds) - {'pitch', 'yaw'})
    if unknown:
        raise PredictorError(f'the lifted serpenoid drives pitch and yaw joints only, got {unknown}')
    if lift_ratio < 0.0:
        raise PredictorError(f'lift_ratio must be >= 0, got {lift_ratio}')
    count = len(kinds)
    s = (np.arange(count) + 1.0) / (count + 1.0)
    wave = 2.0 * np.pi * gait.xi * s
    w = ellipse_coefficients(gait, np.atleast_1d(phase_cycles))
    curvature = w[:, :1] * np.sin(wave) + w[:, 1:2] * np.cos(wave)
    scale = np.where(np.array(kinds) == 'pitch', lift_ratio, 1.0) * 2.0 / (count + 1.0)
    rows = curvature * scale
    if limits_rad is not None:
        bound = LIMIT_FRACTION * np.asarray(limits_rad, dtype=float)
        rows = np.clip(rows, -bound, bound)
    return rows


def joint_limits_rad(robot: RobotModel, body: BodyModel) -> np.ndarray:
    """The smaller of |lower|, |upper| of each gait joint (inf where the URDF gives none)."""
    by_name = {joint.name: joint for joint in robot.gait_joints()}
    limits = []
    for name in body.joint_names:
        limit = by_name[name].limits
        limits.append(min(abs(limit.lower_rad), abs(limit.upper_rad)) if limit is not None and
                      limit.upper_rad > limit.lower_rad else np.inf)
    return np.array(limits)


@dataclass(frozen=True)
class LiftedPrediction:
    """One predicted cycle of a lifted serpenoid on COBRA."""

    stride_m: float  # body COM displacement over the cycle
    energy: float  # E of Eq. 4 over the cycle (kg m^2, masses as weights)
    cost_of_transport: float  # Coulomb estimate (module text), inf when it does not move
    forecast: SidewindingForecast


def predict_lifted_cycle(robot: RobotModel, body: BodyModel, gait: EllipticGait, lift_ratio: float = GAIT1_LIFT_RATIO,
                         n_steps: int = 50, epsilon: float = 1.0, friction: float = RIGID_FRICTION,
                         band_m: float = DEFAULT_CONTACT_BAND_M) -> LiftedPrediction:
    """Alg. 1 with contact weights over one cycle of the gait, n_steps shapes."""
    if n_steps < 4:
        raise PredictorError(f'n_steps must be >= 4, got {n_steps}')
    phases = np.arange(n_steps + 1) / n_steps
    rows = lifted_joint_rows_rad(gait, body.joint_kinds, phases, lift_ratio, joint_limits_rad(robot, body))
    points = batched_link_points_m(robot, body.joint_names, rows, body.links)
    forecast = forecast_gait(points, body.masses_kg, epsilon, band_m)
    com = forecast.body_com_m
    stride_m = float(np.linalg.norm(com[-1] - com[0]))
    weights = forecast.motion.weights
    share = 0.5 * (weights[1:] + weights[:-1])
    share = share / share.sum(axis=1, keepdims=True)
    slide_m = np.linalg.norm(np.diff(forecast.motion.shapes_m, axis=0), axis=2)
    sliding = float(friction * np.sum(share * slide_m))
    cost = sliding / stride_m if stride_m > 1e-9 else float('inf')
    return LiftedPrediction(stride_m, forecast.motion.energy, cost, forecast)


@dataclass(frozen=True)
class LiftedOptimum:
    gait: EllipticGait
    objective: float
    prediction: LiftedPrediction
    evaluations: int


def optimise_lifted_gait(robot: RobotModel, start: EllipticGait, lift_ratio: float = GAIT1_LIFT_RATIO,
                         dissipation_coefficient: float = 0.0, n_steps: int = 50, epsilon: float = 1.0,
                         max_evaluations: int = 600, bounds: dict[str, tuple[float, float]] | None = None
                         ) -> LiftedOptimum:
    """Minimise -stride + c E (the geometric-mechanics paper §V-B) over the six ellipse parameters (Powell, bounded)."""
    if dissipation_coefficient < 0.0:
        raise PredictorError(f'dissipation_coefficient c must be >= 0, got {dissipation_coefficient}')
    body = BodyModel.from_robot(robot)
    box = list((bounds or GAIT_BOUNDS).values())
    low, high = np.array([b[0] for b in box]), np.array([b[1] for b in box])

    def objective(vector: np.ndarray) -> float:
        try:
            prediction = predict_lifted_cycle(robot, body, EllipticGait.from_vector(np.clip(vector, low, high)),
                                              lift_ratio, n_steps, epsilon)
        except PredictorError:
            return float('inf')
        return -prediction.stride_m + dissipation_coefficient * prediction.energy

    start_vector = np.clip(start.validated().as_vector(), low, high)
    start_value = objective(start_vector)
    result = minimize(objective, start_vector, method='Powell', bounds=box,
                      options={'maxfev': max_evaluations, 'xtol': 1e-3, 'ftol': 1e-5})
    best = np.clip(result.x, low, high) if result.fun <= start_value else start_vector
    gait = EllipticGait.from_vector(best)
    return LiftedOptimum(gait, float(min(result.fun, start_value)),
                         predict_lifted_cycle(robot, body, gait, lift_ratio, n_steps, epsilon), int(result.nfev))
