"""The sim's start pose (start_x_m, start_y_m, start_yaw_rad): the robot starts there, and on level
rigid ground moving and turning the start moves and turns the whole run with it (a twin of a
recorded run starts where the run did, cobra_bringup.twin)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cobra_description.robot_model import load_robot_model
from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams
from cobra_sim.engine import CobraSim, SimParams
from cobra_sim.sim_config import PARAMETERS, check_parameters
from cobra_sim.terrain import RigidGround

URDF = Path(__file__).resolve().parents[3] / 'urdf' / 'cobra.urdf'
START = (1.25, -0.5, 2.0)  # x [m], y [m], yaw [rad]


def head_track(start_xy_yaw: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Head positions over a short sidewind [m] and the head's final yaw [rad]."""
    robot = load_robot_model(URDF)
    joints = robot.gait_joints()
    generator = SidewindingGenerator([j.axis_kind for j in joints], SidewindingParams(0.4, 0.35, 0.7, 'left',
                                                                                         ramp_duration_s=0.5))
    generator.ramp.start()
    names = [j.name for j in joints]
    sim = CobraSim(robot, RigidGround(), SimParams(settle_duration_s=0.3, start_xy_yaw=start_xy_yaw),
                   np.random.default_rng(0))
    sim.settle()
    positions = []
    for _ in range(150):  # 1.5 s in 10 ms commands
        generator.advance(0.01)
        sim.run(0.01, lambda t, q=generator.positions(): dict(zip(names, q)))
        positions.append(sim.head_pose()[0].copy())
    quaternion_xyzw = sim.head_pose()[1]
    x, y, z, w = quaternion_xyzw
    return np.array(positions), math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def test_a_moved_and_turned_start_moves_and_turns_the_run() -> None:
    origin_track, origin_yaw = head_track((0.0, 0.0, 0.0))
    moved_track, moved_yaw = head_track(START)
    x, y, yaw = START
    turn = np.array([[math.cos(yaw), -math.sin(yaw)], [math.sin(yaw), math.cos(yaw)]])
    expected_xy = origin_track[:, :2] @ turn.T + np.array([x, y])
    assert np.ptp(origin_track[:, 1]) > 0.02  # it moved: the comparison below is about motion
    np.testing.assert_allclose(moved_track[:, :2], expected_xy, atol=1e-6)
    np.testing.assert_allclose(moved_track[:, 2], origin_track[:, 2], atol=1e-6)
    assert math.remainder(moved_yaw - origin_yaw - yaw, 2 * math.pi) == pytest.approx(0.0, abs=1e-6)


def test_the_start_pose_is_a_checked_parameter() -> None:
    values = {setting.name: setting.default for setting in PARAMETERS}
    by_name = {setting.name: setting for setting in PARAMETERS}
    assert values['start_x_m'] == values['start_y_m'] == values['start_yaw_rad'] == 0.0
    assert by_name['start_yaw_rad'].maximum == pytest.approx(math.pi)
    assert (by_name['start_x_m'].minimum, by_name['start_x_m'].maximum) == (-1e4, 1e4)
    for terrain in ('rigid', 'scm', 'compliant'):  # every terrain hosts a moved start (the soil has no edge)
        check_parameters({**values, 'terrain': terrain, 'start_x_m': 30.0, 'start_y_m': -4.0, 'start_yaw_rad': -1.0})
