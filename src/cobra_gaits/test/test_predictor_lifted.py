"""The geometric-mechanics paper's elliptic serpenoid family played by COBRA (lifted_serpenoid): the family holds
COBRA's sidewinding, its prediction moves the body, and the optimiser improves on its start."""

from __future__ import annotations

import math

import numpy as np
import pytest
from cobra_description.robot_model import default_urdf_path, load_robot_model

from cobra_gaits.predictor.curve import PredictorError
from cobra_gaits.predictor.gait_path import BodyModel
from cobra_gaits.predictor.lifted_serpenoid import (GAIT1_AS_SERPENOID, GAIT1_LIFT_RATIO, lifted_joint_rows_rad,
                                                    optimise_lifted_gait, predict_lifted_cycle)
from cobra_gaits.predictor.serpenoid import EllipticGait
from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams


@pytest.fixture(scope='module')
def robot():
    return load_robot_model(default_urdf_path('cobra'))


def test_circle_gait_is_cobras_sidewinding_gait1(robot) -> None:
    """sigma = 1, centre 0, xi = 1, a = 4.2, lift 0.5 plays q_i = A sin(2 pi f t + pi/6 (i + 1))."""
    kinds = [joint.axis_kind for joint in robot.gait_joints()]
    generator = SidewindingGenerator(kinds, SidewindingParams(0.4, 0.35, 0.7, ramp_duration_s=1e-6))
    generator.ramp.start()
    generator.advance(1e-6)  # ramp done (envelope 1), phase ~0
    generator.advance(1.0 / 0.4 / 12.0)  # + pi/6: the serpenoid's joint i sits at s = (i + 1) / 12
    phases = np.array([0.0])
    rows = lifted_joint_rows_rad(GAIT1_AS_SERPENOID, kinds, phases, GAIT1_LIFT_RATIO)
    np.testing.assert_allclose(rows[0], generator.positions(), atol=1e-5)


def test_gait1_prediction_moves_the_body_and_dissipates(robot) -> None:
    prediction = predict_lifted_cycle(robot, BodyModel.from_robot(robot), GAIT1_AS_SERPENOID, GAIT1_LIFT_RATIO)
    # the sim's gait1 strides 0.21 m per cycle on rigid ground (README); first order here
    assert 0.1 < prediction.stride_m < 0.4
    assert prediction.energy > 0.0
    assert 0.0 < prediction.cost_of_transport < 1.0


def test_without_lift_isotropic_ground_gives_no_stride(robot) -> None:
    """lift_ratio 0 is the paper's planar gait on COBRA; with eps = 1 it cannot move (the geometric-mechanics paper)."""
    prediction = predict_lifted_cycle(robot, BodyModel.from_robot(robot), GAIT1_AS_SERPENOID, 0.0)
    assert prediction.stride_m < 1e-6
    assert math.isinf(prediction.cost_of_transport)


def test_commands_stay_inside_the_joint_limits(robot) -> None:
    kinds = [joint.axis_kind for joint in robot.gait_joints()]
    wild = EllipticGait(0.5, 3.0, -3.0, 0.3, 7.0, 1.5)
    rows = lifted_joint_rows_rad(wild, kinds, np.linspace(0, 1, 21), 1.0, np.full(len(kinds), 1.5708))
    assert np.abs(rows).max() <= 0.95 * 1.5708 + 1e-12
    with pytest.raises(PredictorError, match='lift_ratio'):
        lifted_joint_rows_rad(wild, kinds, np.zeros(1), -0.1)


def test_optimiser_improves_on_gait1(robot) -> None:
    optimum = optimise_lifted_gait(robot, GAIT1_AS_SERPENOID, max_evaluations=200)
    start = predict_lifted_cycle(robot, BodyModel.from_robot(robot), GAIT1_AS_SERPENOID)
    assert optimum.prediction.stride_m > start.stride_m
    assert optimum.objective == pytest.approx(-optimum.prediction.stride_m)
