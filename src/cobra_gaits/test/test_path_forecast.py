"""The gait's predicted path (pure): a forecast in the robot's frame, moved by the odom pose."""

from __future__ import annotations

import math

import numpy as np
import pytest
from cobra_description.robot_model import default_urdf_path, load_robot_model

from cobra_gaits.predictor.contact import forecast_gait, module_points_m
from cobra_common.rotations import yaw_from_quaternion
from cobra_gaits.predictor.gait_path import BodyModel, forecast_body_path, place_body_path
from cobra_gaits.sidewinding import SidewindingParams, sample_sidewinding

GAIT1 = SidewindingParams(0.4, 0.35, 0.7)  # config/gait.yaml gait1


@pytest.fixture(scope='module')
def robot():
    return load_robot_model(default_urdf_path('cobra'))


@pytest.fixture(scope='module')
def body(robot) -> BodyModel:
    return BodyModel.from_robot(robot)


def yaw_quaternion(yaw_rad: float) -> tuple[float, float, float, float]:
    return (0.0, 0.0, math.sin(yaw_rad / 2), math.cos(yaw_rad / 2))


def test_the_path_is_the_robot_frame_forecast_moved_by_the_odom_pose(robot, body) -> None:
    path = forecast_body_path(robot, body, GAIT1, cycles=2, steps_per_cycle=40)
    assert len(path.times_s) == 81 and path.times_s[-1] == pytest.approx(2 / 0.4)
    np.testing.assert_allclose(path.xy_m[0], 0.0, atol=1e-12)
    at_origin = place_body_path(path, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))
    np.testing.assert_allclose(at_origin.positions_m[:, :2], path.xy_m, atol=1e-12)
    placed = place_body_path(path, (1.0, 2.0, 0.1), yaw_quaternion(math.pi / 2))
    # turned 90 deg left: the robot's x is odom's y, its y is odom's -x
    np.testing.assert_allclose(placed.positions_m[:, 0], 1.0 - path.xy_m[:, 1], atol=1e-12)
    np.testing.assert_allclose(placed.positions_m[:, 1], 2.0 + path.xy_m[:, 0], atol=1e-12)
    np.testing.assert_allclose(placed.positions_m[:, 2], 0.1)
    yaws = [yaw_from_quaternion(q) for q in placed.quaternions_xyzw]
    np.testing.assert_allclose(np.unwrap(yaws), math.pi / 2 + path.yaw_rad, atol=1e-9)


def test_the_path_is_the_contact_forecast_of_the_commanded_gait(robot, body) -> None:
    """Same stride as contact.forecast_gait on per-row FK (the batched FK and frames change nothing)."""
    path = forecast_body_path(robot, body, GAIT1, cycles=2, steps_per_cycle=50)
    _, rows = sample_sidewinding(body.joint_kinds, GAIT1, 2 / 0.4, 50 * 0.4, ramp_in=False)
    reference = forecast_gait(module_points_m(robot, body.joint_names, rows, body.links), body.masses_kg)
    stride_m, _ = reference.travel(cycles=2)
    assert np.linalg.norm(path.xy_m[-1]) / 2 == pytest.approx(stride_m, rel=1e-9)
    assert stride_m > 0.1


def test_direction_flips_the_side_the_path_goes_to(robot, body) -> None:
    left = forecast_body_path(robot, body, GAIT1, cycles=2, steps_per_cycle=40)
    right = forecast_body_path(robot, body, SidewindingParams(0.4, 0.35, 0.7, direction='right'),
                               cycles=2, steps_per_cycle=40)
    assert abs(left.xy_m[-1, 1]) > 2.0 * abs(left.xy_m[-1, 0])  # sidewinding: mostly sideways to the head
    assert left.xy_m[-1, 1] * right.xy_m[-1, 1] < 0.0
    assert right.xy_m[-1, 1] == pytest.approx(-left.xy_m[-1, 1], rel=0.05)
    assert right.xy_m[-1, 0] == pytest.approx(left.xy_m[-1, 0], abs=0.02)


def test_larger_horizontal_amplitude_goes_further(robot, body) -> None:
    small = forecast_body_path(robot, body, SidewindingParams(0.4, 0.35, 0.4), cycles=2, steps_per_cycle=40)
    large = forecast_body_path(robot, body, GAIT1, cycles=2, steps_per_cycle=40)
    assert np.linalg.norm(large.xy_m[-1]) > 1.2 * np.linalg.norm(small.xy_m[-1])


@pytest.mark.parametrize('params', [SidewindingParams(0.0, 0.35, 0.7), SidewindingParams(0.4, 0.0, 0.0)])
def test_a_gait_that_stands_still_is_one_pose_at_the_robot(robot, body, params) -> None:
    path = forecast_body_path(robot, body, params, cycles=3, steps_per_cycle=50)
    placed = place_body_path(path, (0.5, -0.5, 0.0), yaw_quaternion(0.3))
    np.testing.assert_allclose(placed.positions_m, [[0.5, -0.5, 0.0]])
    assert yaw_from_quaternion(placed.quaternions_xyzw[0]) == pytest.approx(0.3)
