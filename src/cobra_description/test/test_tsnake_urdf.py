"""urdf/tsnake.urdf (the LTS paper §III-D1): the parser reads it and the sim's URDF->MJCF path builds it."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cobra_description.robot_model import load_robot_model

TSNAKE_URDF = Path(__file__).resolve().parents[3] / 'urdf' / 'tsnake.urdf'
JOINT_NAMES = [f'm{i}_{kind}' for i in range(1, 7) for kind in ('dorsal', 'twist', 'lateral')]


def test_tsnake_urdf_has_six_dorsal_twist_lateral_modules():
    robot = load_robot_model(TSNAKE_URDF)
    joints = robot.gait_joints()
    assert robot.root == 'base_link'
    assert [j.name for j in joints] == JOINT_NAMES
    assert [j.axis_kind for j in joints] == ['pitch', 'roll', 'yaw'] * 6
    assert all(j.type == 'continuous' for j in joints if j.name.endswith('_twist'))
    assert all(j.limits.effort_nm > 0 and j.limits.velocity_rad_s > 0 for j in joints)
    assert robot.chain_length_m() == pytest.approx(6 * 0.2055, abs=1e-6)
    # the three joints of a module share one point, the module's middle (i - 1/2) L0 from the head
    for module in range(1, 7):
        origin = robot.transform('base_link', f'm{module}_dorsal_link')[:3, 3]
        np.testing.assert_allclose(origin, [-(module - 0.5) * 0.2055, 0.0, 0.0], atol=1e-9)


def test_tsnake_builds_in_the_sim_and_its_twist_joints_turn_past_pi():
    engine = pytest.importorskip('cobra_sim.engine')
    terrain = pytest.importorskip('cobra_sim.terrain')
    robot = load_robot_model(TSNAKE_URDF)
    sim = engine.CobraSim(robot, terrain.RigidGround(),
                          engine.SimParams(imu_frame='imu_link', initial_height_m=0.036, settle_duration_s=0.5),
                          np.random.default_rng(0))
    assert sim.joint_names == JOINT_NAMES
    sim.settle()
    assert sim.head_pose()[0][2] == pytest.approx(0.035, abs=0.005)  # resting on its 0.035 m radius
    target_rad = 1.5 * math.pi  # beyond any revolute range: only a continuous joint gets there
    joint = sim.model.joint('m3_twist')
    for step in range(1, 601):
        sim.set_targets({'m3_twist': min(step / 200.0, 1.0) * target_rad})
        sim.step_control_period()
    assert sim.data.qpos[sim.model.jnt_qposadr[joint.id]] == pytest.approx(target_rad, abs=0.05)


def test_each_robot_names_its_imu_frame_and_start_height() -> None:
    """The sim places either robot from its URDF alone: IMU frame and lowest collision point."""
    from cobra_description.robot_model import default_urdf_path, load_robot_model
    cobra = load_robot_model(default_urdf_path('cobra'))
    tsnake = load_robot_model(default_urdf_path('tsnake'))
    assert cobra.imu_frame == 'camera_imu_optical_frame'
    assert tsnake.imu_frame == 'imu_link'
    assert abs(cobra.lowest_point_m() + 0.045) < 1e-6   # 0.045 m module radius below the axis
    assert abs(tsnake.lowest_point_m() + 0.035) < 1e-6  # 0.035 m (chosen) T-Snake radius
