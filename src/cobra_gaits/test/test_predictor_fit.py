"""Gait optimisation (-Delta_CoM + c E, cost of transport) and eps calibration of the geometric-mechanics paper."""

from __future__ import annotations

import numpy as np
import pytest

from cobra_gaits.predictor.calibrate import calibrate_epsilon
from cobra_gaits.predictor.curve import PredictorError
from cobra_gaits.predictor.integrator import integrate_motion
from cobra_gaits.predictor.optimise import (GaitModel, cost_of_transport, cycle_energy_j, gait_objective,
                                            optimise_gait, predict_cycle)
from cobra_gaits.predictor.serpenoid import GAIT_BOUNDS, EllipticGait, gait_shapes

START = EllipticGait(sigma=0.6, x_c=0.5, y_c=-0.3, theta_rad=0.4, a=3.0, xi=1.0)


@pytest.mark.parametrize('coefficient', [0.0, 1.7])
def test_optimisation_improves_the_objective_over_its_start(coefficient: float) -> None:
    model = GaitModel(n_steps=30)
    result = optimise_gait(START, model, coefficient, max_evaluations=150)
    assert result.objective < result.start_objective - 0.05
    assert gait_objective(result.gait, model, coefficient) == pytest.approx(result.objective, abs=1e-12)
    for value, (low, high) in zip(result.gait.as_vector(), GAIT_BOUNDS.values()):
        assert low <= value <= high


def test_fixed_spatial_frequency_is_kept() -> None:
    result = optimise_gait(START, GaitModel(n_steps=30), 0.0, fixed_xi=0.75, max_evaluations=60)
    assert result.gait.xi == 0.75
    assert result.objective <= result.start_objective


def test_dissipation_penalty_trades_distance_for_energy() -> None:
    model = GaitModel(n_steps=30)
    free = optimise_gait(START, model, 0.0, max_evaluations=150)
    penalised = optimise_gait(START, model, 50.0, max_evaluations=150)
    assert penalised.energy < free.energy


def test_cost_of_transport_of_a_predicted_cycle() -> None:
    motion = predict_cycle(START, GaitModel(weights=np.full(12, 2.0)))
    energy_j = cycle_energy_j(motion, cycle_period_s=5.0)
    assert energy_j == pytest.approx(2.0 * motion.energy / 0.1)  # 50 steps of 0.1 s
    assert cost_of_transport(energy_j, 1.38, motion.com_displacement_m) == pytest.approx(
        energy_j / (1.38 * 9.81 * motion.com_displacement_m))
    assert cost_of_transport(1.0, 1.0, 0.0) == float('inf')
    with pytest.raises(PredictorError, match='mass_kg'):
        cost_of_transport(1.0, 0.0, 1.0)


TRUE_EPSILON = 0.27


def recorded_cycles(track: str) -> tuple[np.ndarray, np.ndarray]:
    shapes = gait_shapes(EllipticGait(0.8, 0.3, 0.0, 0.2, 4.0, 1.0), n_steps=40)
    motion = integrate_motion(shapes, TRUE_EPSILON)
    return shapes, motion.com_m if track == 'com' else motion.head_m


def test_calibration_recovers_the_epsilon_that_made_the_track() -> None:
    shapes, track = recorded_cycles('com')
    fit = calibrate_epsilon(shapes, track)
    assert fit.epsilon == pytest.approx(TRUE_EPSILON, abs=1e-4)
    assert fit.rms_error_m < 1e-5


def test_calibration_from_a_head_track_in_an_unknown_frame_with_noise() -> None:
    shapes, track = recorded_cycles('head')
    c, s = np.cos(1.2), np.sin(1.2)
    recorded = track @ np.array([[c, -s], [s, c]]).T + np.array([4.0, -1.0])
    recorded += np.random.default_rng(6).normal(0.0, 0.003, recorded.shape)
    fit = calibrate_epsilon(shapes, recorded, track='head', align='rigid')
    assert fit.epsilon == pytest.approx(TRUE_EPSILON, abs=0.02)
    assert 0.001 < fit.rms_error_m < 0.006  # about the noise


def test_calibration_refuses_a_track_of_the_wrong_length() -> None:
    shapes, track = recorded_cycles('com')
    with pytest.raises(PredictorError, match='one point per shape'):
        calibrate_epsilon(shapes, track[:-1])
    with pytest.raises(PredictorError, match='track must be one of'):
        calibrate_epsilon(shapes, track, track='tail')
