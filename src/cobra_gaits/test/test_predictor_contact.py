"""Beyond the geometric-mechanics paper: contact weights make the predictor forecast COBRA's sidewinding."""

from __future__ import annotations

import numpy as np
import pytest
from cobra_description.robot_model import default_urdf_path, load_robot_model

from cobra_gaits.predictor.contact import (contact_weights, forecast_gait, module_points_m, planar_shapes_m,
                                           support_frames, support_heights_m)
from cobra_gaits.predictor.curve import PredictorError
from cobra_gaits.predictor.integrator import integrate_motion
from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams, sample_sidewinding

LINKS = ['head_link'] + [f'link_{index}' for index in range(1, 12)]
GAIT1 = SidewindingParams(0.4, 0.35, 0.7)  # config/gait.yaml gait1
STEPS_PER_CYCLE = 50


@pytest.fixture(scope='module')
def robot():
    return load_robot_model(default_urdf_path('cobra'))


def masses(robot) -> np.ndarray:
    return np.array([robot.links[link].inertial.mass_kg for link in LINKS])


def commanded_points(robot, params: SidewindingParams, cycles: int = 2) -> np.ndarray:
    joints = robot.gait_joints()
    _, rows = sample_sidewinding([j.axis_kind for j in joints], params, cycles / params.frequency_hz,
                                 STEPS_PER_CYCLE * params.frequency_hz, ramp_in=False)
    return module_points_m(robot, [j.name for j in joints], rows, LINKS)


def test_lifted_modules_get_no_weight_and_the_projection_keeps_handedness() -> None:
    body = np.zeros((1, 6, 3))
    body[0, :, 0] = np.arange(6) * 0.1
    body[0, :, 1] = [0.0, 0.05, 0.0, -0.05, 0.0, 0.05]
    body[0, [1, 4], 2] = 0.04  # two modules lifted 4 cm
    frames = support_frames(body)
    assert frames[0, 2, 2] > 0.9  # normal up, as the body frame's +z
    np.testing.assert_allclose(np.cross(frames[0, 0], frames[0, 1]), frames[0, 2], atol=1e-12)
    heights = support_heights_m(body, frames)
    weights = contact_weights(body, np.ones(6), band_m=0.01, frames=frames)
    assert list(weights[0] > 0.5) == [True, False, True, True, False, True]
    assert np.max(np.abs(heights[0, [0, 2, 3, 5]])) < 0.01
    planar = planar_shapes_m(body, frames)[0]
    turn = np.cross(np.append(planar[1] - planar[0], 0), np.append(planar[2] - planar[1], 0))[2]
    assert turn < 0.0  # the original chain turns clockwise seen from +z at vertex 1; so does the projection
    with pytest.raises(PredictorError, match='masses_kg'):
        contact_weights(body, np.ones(5))


def test_sidewinding_moves_only_because_of_contact(robot) -> None:
    points = commanded_points(robot, GAIT1)
    shapes = planar_shapes_m(points, support_frames(points))
    everyone_down = integrate_motion(shapes, 1.0, masses(robot))
    assert everyone_down.com_displacement_m < 1e-9  # isotropic friction, all grounded: no net motion
    stride_m, _ = forecast_gait(points, masses(robot)).travel(cycles=2)
    assert stride_m > 0.1  # contact switching alone: more than 10 cm per cycle


def test_mirrored_wave_sidewinds_to_the_other_side(robot) -> None:
    left = forecast_gait(commanded_points(robot, GAIT1), masses(robot))
    right_params = SidewindingParams(0.4, 0.35, 0.7, direction='right')
    right = forecast_gait(commanded_points(robot, right_params), masses(robot))
    stride_left, heading_left = left.travel(2)
    stride_right, heading_right = right.travel(2)
    assert stride_right == pytest.approx(stride_left, rel=0.05)
    assert np.sin(heading_left) * np.sin(heading_right) < 0.0  # lateral components of opposite sign
    assert abs(np.sin(heading_left)) > 0.5  # mostly sideways to the head's first axis


def simulate_gait1(robot, cycles: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rigid-ground sim: commanded joint rows, link origins (world) and COM (world) per sample."""
    engine = pytest.importorskip('cobra_sim.engine')
    terrain = pytest.importorskip('cobra_sim.terrain')
    sim = engine.CobraSim(robot, terrain.RigidGround(), engine.SimParams(), np.random.default_rng(0))
    sim.settle()
    joints = robot.gait_joints()
    generator = SidewindingGenerator([j.axis_kind for j in joints], GAIT1)
    generator.ramp.start()
    period_s = 1.0 / GAIT1.frequency_hz
    control_s = sim.params.control_period_s
    every = round(period_s / STEPS_PER_CYCLE / control_s)
    start = round((generator.ramp.duration_s + period_s) / control_s)
    rows, origins, com = [], [], []
    for index in range(start + cycles * STEPS_PER_CYCLE * every + 1):
        generator.advance(control_s)
        sim.set_targets(dict(zip([j.name for j in joints], generator.positions())))
        sim.step_control_period()
        if index >= start and (index - start) % every == 0:
            rows.append(generator.positions())
            origins.append(sim.body_state().position_m[:, :2].copy())
            com.append(sim.center_of_mass()[:2])
    return np.array(rows), np.array(origins), np.array(com)


def cross2(a: np.ndarray, b: np.ndarray) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def test_forecast_matches_the_rigid_ground_sim_to_first_order(robot) -> None:
    """gait1 on rigid ground (cobra_sim.engine, no ROS): stride 0.22 m/cycle; the forecast from the
    commanded shapes alone (eps = 1, geometric contact) gives 0.18 m and a heading 10 deg off."""
    cycles = 2
    rows, origins, sim_com = simulate_gait1(robot, cycles)
    points = module_points_m(robot, [j.name for j in robot.gait_joints()], rows, LINKS)
    forecast = forecast_gait(points, masses(robot))
    stride_m, heading_rad = forecast.travel(cycles)
    sim_travel = sim_com[-1] - sim_com[0]
    assert stride_m == pytest.approx(np.linalg.norm(sim_travel) / cycles, rel=0.35)
    # direction of travel relative to the head->tail chord of the first shape, in each own frame
    chord_sim = origins[0, -1] - origins[0, 0]
    chord_forecast = forecast.motion.shapes_m[0, -1] - forecast.motion.shapes_m[0, 0]
    travel = np.array([np.cos(heading_rad), np.sin(heading_rad)])
    angle_sim = np.arctan2(cross2(chord_sim, sim_travel), chord_sim @ sim_travel)
    angle_forecast = np.arctan2(cross2(chord_forecast, travel), chord_forecast @ travel)
    assert abs(np.degrees(np.angle(np.exp(1j * (angle_forecast - angle_sim))))) < 25.0
