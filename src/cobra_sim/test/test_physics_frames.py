"""Frames of the sim's read-outs: the odometry twist and the per-link contact wrenches.

REP 103/105: an odometry twist is expressed in its child frame (base_link); a WrenchStamped with
frame_id = <link> holds force and torque about that link's origin in that link's axes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from cobra_description.robot_model import load_robot_model, parse_urdf
from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams
from cobra_sim.engine import CobraSim, SimParams
from cobra_sim.terrain import RigidGround

URDF = Path(__file__).resolve().parents[3] / 'urdf' / 'cobra.urdf'


@pytest.fixture(scope='module')
def robot():
    return load_robot_model(URDF)


def record_head(sim: CobraSim, steps: int, before_step: Callable[[int], None] | None = None
                ) -> tuple[np.ndarray, list[Rotation], np.ndarray, np.ndarray]:
    """Head pose and twist after each physics step."""
    positions, rotations, linear, angular = [], [], [], []
    for step in range(steps):
        if before_step is not None:
            before_step(step)
        sim.step_physics(1)
        position, quaternion = sim.head_pose()
        velocity, rate = sim.head_velocity_local()
        positions.append(position)
        rotations.append(Rotation.from_quat(quaternion))
        linear.append(velocity)
        angular.append(rate)
    return np.array(positions), rotations, np.array(linear), np.array(angular)


def assert_twist_is_the_pose_derivative_in_base_link(sim: CobraSim, steps: int,
                                                     before_step: Callable[[int], None] | None = None,
                                                     tolerance: float = 0.01) -> None:
    """Differences of the published poses over the step that ends at each sample, rotated into
    base_link, equal the twist (MuJoCo's semi-implicit Euler moves the pose with the new velocity,
    so the backward difference is the velocity the sample reports)."""
    positions, rotations, linear, angular = record_head(sim, steps, before_step)
    dt = sim.params.timestep_s
    for i in range(1, steps):
        expected_linear = rotations[i].inv().apply((positions[i] - positions[i - 1]) / dt)
        expected_angular = (rotations[i - 1].inv() * rotations[i]).as_rotvec() / dt
        assert np.linalg.norm(linear[i] - expected_linear) <= tolerance + 0.01 * np.linalg.norm(expected_linear), i
        assert np.linalg.norm(angular[i] - expected_angular) <= tolerance + 0.01 * np.linalg.norm(expected_angular), i
    assert np.abs(linear).max() > 20 * tolerance and np.abs(angular).max() > 20 * tolerance


def test_twist_of_a_tumbling_robot_is_in_base_link(robot):
    sim = CobraSim(robot, RigidGround(), SimParams(initial_height_m=2.0), np.random.default_rng(0))
    # thrown: moving along x, y and z and turning about all three axes, in flight
    root_dof = sim.model.jnt_dofadr[sim.model.body_jntadr[sim.root_body_id]]
    sim.data.qvel[root_dof:root_dof + 6] = [0.8, -0.5, 0.3, 0.7, -0.4, 1.5]
    assert_twist_is_the_pose_derivative_in_base_link(sim, 300)


def test_twist_of_a_sidewinding_robot_is_in_base_link(robot):
    joints = robot.gait_joints()
    generator = SidewindingGenerator([j.axis_kind for j in joints], SidewindingParams(0.4, 0.35, 0.70, 'left'))
    generator.ramp.start()
    names = [j.name for j in joints]
    sim = CobraSim(robot, RigidGround(), SimParams(), np.random.default_rng(0))
    sim.settle()

    def gait(_t: float) -> dict[str, float]:
        generator.advance(sim.params.control_period_s)
        return dict(zip(names, generator.positions()))

    sim.run(3.0, gait)  # past the start ramp: the robot winds and its head rolls and yaws

    def command(step: int) -> None:
        if step % sim.steps_per_control == 0:
            sim.set_targets(gait(sim.time_s))
            sim.begin_control_period()

    assert_twist_is_the_pose_derivative_in_base_link(sim, 400, command)


def test_module_wrench_is_about_its_origin_in_its_own_axes():
    """One module whose origin is at its front end, rolled and yawed: the ground reaction is its
    weight through the cylinder's centre, 0.068 m behind the origin along the module's x axis."""
    offset_m, mass_kg, radius_m = 0.068182, 0.463636, 0.045
    urdf = f'''<robot name="module"><link name="module">
      <inertial><origin xyz="{-offset_m} 0 0"/><mass value="{mass_kg}"/>
        <inertia ixx="0.00047" ixy="0" ixz="0" iyy="0.00095" iyz="0" izz="0.00095"/></inertial>
      <collision><origin xyz="{-offset_m} 0 0" rpy="0 1.5707963267948966 0"/>
        <geometry><cylinder radius="{radius_m}" length="0.136364"/></geometry></collision>
    </link></robot>'''
    sim = CobraSim(parse_urdf(urdf), RigidGround(), SimParams(initial_height_m=radius_m, imu_frame='module',
                                                              settle_duration_s=1.0), np.random.default_rng(0))
    attitude = Rotation.from_euler('xz', [0.9, 0.6])  # roll about the cylinder axis, then yaw
    sim.data.qpos[3:7] = attitude.as_quat(scalar_first=True)
    sim.settle()
    force_link, torque_link = sim.contact_wrenches()[0, :3], sim.contact_wrenches()[0, 3:]
    to_link = Rotation.from_quat(sim.head_pose()[1]).inv()
    weight_in_link = to_link.apply([0.0, 0.0, mass_kg * 9.81])
    np.testing.assert_allclose(force_link, weight_in_link, atol=0.01 * mass_kg * 9.81)
    expected_torque = np.cross([-offset_m, 0.0, 0.0], weight_in_link)
    np.testing.assert_allclose(torque_link, expected_torque, atol=0.01 * mass_kg * 9.81 * offset_m)
    assert np.linalg.norm(expected_torque) > 0.25  # N·m: a torque the test can tell from zero
