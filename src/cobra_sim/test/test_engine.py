"""Physics of the generated COBRA model on rigid ground: sidewinding moves it sideways."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest

from cobra_description.robot_model import load_robot_model
from cobra_gaits.curl_pose import curl_pose
from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams
from cobra_sim.engine import CobraSim, SimConfigError, SimParams
from cobra_sim.terrain import RigidGround

URDF = Path(__file__).resolve().parents[3] / 'urdf' / 'cobra.urdf'
FREQUENCY_HZ = 0.4
CYCLES = 4


@pytest.fixture(scope='module')
def robot():
    return load_robot_model(URDF)


def make_sim(robot, seed: int = 0, **params) -> CobraSim:
    sim = CobraSim(robot, RigidGround(), SimParams(**params), np.random.default_rng(seed))
    sim.settle()
    return sim


def sidewind(robot, direction: str = 'left', amplitude_scale: float = 1.0) -> np.ndarray:
    """COM displacement [m] over the 2 s ramp plus CYCLES gait cycles."""
    joints = robot.gait_joints()
    generator = SidewindingGenerator([j.axis_kind for j in joints], SidewindingParams(
        FREQUENCY_HZ, 0.35 * amplitude_scale, 0.70 * amplitude_scale, direction))
    generator.ramp.start()
    names = [j.name for j in joints]
    sim = make_sim(robot)
    start = sim.center_of_mass()

    def command(t: float) -> dict[str, float]:
        generator.advance(sim.params.control_period_s)
        return dict(zip(names, generator.positions()))

    sim.run(2.0 + CYCLES / FREQUENCY_HZ, command)
    return sim.center_of_mass() - start


@pytest.fixture(scope='module')
def left(robot) -> np.ndarray:
    return sidewind(robot, 'left')


def test_sidewinding_moves_the_com_sideways_each_cycle(left):
    lateral_per_cycle = left[1] / CYCLES
    assert lateral_per_cycle > 0.08
    assert abs(left[0]) < 0.5 * abs(left[1])  # mostly sideways, not along the body


def test_opposite_direction_moves_the_other_way(robot, left):
    right = sidewind(robot, 'right')
    assert right[1] < -0.08 * CYCLES
    assert right[1] == pytest.approx(-left[1], rel=0.2)


def test_zero_amplitude_barely_moves(robot):
    still = sidewind(robot, 'left', amplitude_scale=0.0)
    assert np.linalg.norm(still[:2]) < 0.02


def test_same_seed_and_inputs_give_the_same_trajectory(robot):
    runs = []
    for _ in range(2):
        sim = make_sim(robot, seed=7)
        sim.run(0.5, lambda t: {'joint_2': 0.6 * np.sin(4.0 * t), 'joint_5': 0.3})
        runs.append(np.concatenate([sim.data.qpos, sim.data.qvel]))
    np.testing.assert_array_equal(runs[0], runs[1])


def test_control_period_must_be_whole_physics_steps(robot):
    with pytest.raises(SimConfigError, match='whole multiple'):
        CobraSim(robot, RigidGround(), SimParams(control_period_s=0.0025), np.random.default_rng())


def test_model_is_generated_from_the_urdf(robot):
    sim = CobraSim(robot, RigidGround(), SimParams(), np.random.default_rng())
    hinge_names = [sim.model.joint(i).name for i in range(sim.model.njnt)
                   if sim.model.jnt_type[i] == mujoco.mjtJoint.mjJNT_HINGE]
    assert hinge_names == [j.name for j in robot.actuated_joints]
    assert sim.model.nu == len(robot.actuated_joints)
    assert float(sim.model.body_mass.sum()) == pytest.approx(robot.total_mass_kg, rel=1e-6)
    for name in ('joint_1', 'joint_2', 'joint_3'):
        axis = sim.model.jnt_axis[sim.model.joint(name).id]
        np.testing.assert_allclose(axis, robot.joint(name).axis)


def test_servo_tracks_and_respects_the_speed_limit(robot):
    sim = make_sim(robot)
    sim.set_targets({'joint_2': 1.0})
    peak_speed = 0.0
    for _ in range(500):
        sim.step_control_period()
        peak_speed = max(peak_speed, abs(sim.joint_velocities()[1]))
    assert sim.joint_position('joint_2') == pytest.approx(1.0, abs=0.05)
    # the setpoint moves at the servo speed limit; PD overshoot may briefly exceed it a little
    assert peak_speed <= robot.joint("joint_2").limits.velocity_rad_s * 1.25


def test_torque_off_leaves_the_joints_limp(robot):
    sim = make_sim(robot)
    sim.set_torque_enabled(False)
    sim.set_targets({'joint_2': 1.0})
    sim.run(1.0)
    assert abs(sim.joint_position('joint_2')) < 0.1
    sim.set_torque_enabled(True)
    sim.run(1.0)
    assert abs(sim.joint_position('joint_2')) < 0.1  # torque on holds; the goal sent while limp is dropped
    sim.set_targets({'joint_2': 1.0})  # a new command moves it
    sim.run(1.0)
    assert sim.joint_position('joint_2') == pytest.approx(1.0, abs=0.05)


def test_torque_on_holds_the_present_pose_instead_of_snapping_to_the_goal(robot):
    """As the driver does: re-read the present positions and hold them; no jump to a far goal."""
    sim = make_sim(robot)
    sim.set_torque_enabled(False)
    sim.set_targets({name: 1.0 if i % 2 else -1.0 for i, name in enumerate(sim.joint_names)})
    sim.run(0.5)
    limp_rad = sim.joint_positions()
    sim.set_torque_enabled(True)
    peak_speed = np.zeros(len(sim.joint_names))
    for _ in range(250):
        sim.step_control_period()
        peak_speed = np.maximum(peak_speed, np.abs(sim.joint_velocities()))
    limits = np.array([robot.joint(name).limits.velocity_rad_s for name in sim.joint_names])
    assert np.all(peak_speed <= limits)
    np.testing.assert_allclose(sim.joint_positions(), limp_rad, atol=0.05)
    np.testing.assert_allclose(sim.targets_rad, sim.joint_positions(), atol=0.05)


def test_imu_at_rest_measures_gravity_and_no_rotation(robot):
    sim = make_sim(robot)
    gyro, accel = sim.imu()
    assert np.linalg.norm(accel) == pytest.approx(9.81, rel=0.02)
    assert np.linalg.norm(gyro) < 0.01
    # optical frame: y points down, so gravity's reaction reads as -y
    assert accel[1] == pytest.approx(-9.81, rel=0.05)


def test_ground_reaction_per_link_carries_the_weight_at_rest(robot):
    sim = make_sim(robot)
    world = sim.contact_wrenches_world()
    assert sim.robot_body_names == ['base_link'] + [f'link_{i}' for i in range(1, 12)]
    assert world[:, 2].sum() == pytest.approx(robot.total_mass_kg * 9.81, rel=0.01)
    assert np.all(world[:, 2] > 0.0)  # the straight robot lies on every module
    assert np.abs(world[:, :2]).max() < 0.5  # no sideways load at rest


def test_link_frame_wrenches_rotated_to_world_balance_the_weight_about_the_com(robot):
    """Each wrench is at its link's origin in the link's axes: rotated back to world and moved to
    the robot's COM, the ground reaction cancels gravity, forces and moments (robot at rest)."""
    sim = make_sim(robot)
    local = sim.contact_wrenches()
    ids = [sim.model.body(name).id for name in sim.robot_body_names]
    to_world = sim.data.xmat[ids].reshape(-1, 3, 3)
    force = np.einsum('nij,nj->ni', to_world, local[:, :3])
    torque = np.einsum('nij,nj->ni', to_world, local[:, 3:])
    weight_n = robot.total_mass_kg * 9.81
    np.testing.assert_allclose(force.sum(axis=0), [0.0, 0.0, weight_n], atol=0.01 * weight_n)
    np.testing.assert_allclose(force, sim.contact_wrenches_world()[:, :3], atol=1e-9)
    arms = sim.data.xpos[ids] - sim.center_of_mass()
    moment_about_com = (np.cross(arms, force) + torque).sum(axis=0)
    np.testing.assert_allclose(moment_about_com, 0.0, atol=0.01 * weight_n * 0.01)  # < 1 % of W·1 cm


def test_summed_external_forces_are_the_environment_contacts_one_by_one(robot):
    """While sidewinding (contacts come and go), MuJoCo's summed external forces (cfrc_ext, the
    fast path) give each link the wrench of its environment contacts summed one by one from the
    contact list (mj_contactForce's frames); over-curled until the robot touches itself, the
    robot-robot contacts are left out, which cfrc_ext alone would count."""
    joints = robot.gait_joints()
    generator = SidewindingGenerator([j.axis_kind for j in joints], SidewindingParams(FREQUENCY_HZ, 0.35, 0.70))
    generator.ramp.start()
    names = [j.name for j in joints]
    sim = make_sim(robot)
    contacts_seen = 0
    for _ in range(30):
        sim.run(0.1, lambda t: (generator.advance(sim.params.control_period_s), dict(zip(names, generator.positions())))[1])
        assert not sim.latched and not sim._robot_touches_itself()
        contacts_seen += sim.data.ncon
        np.testing.assert_allclose(sim.contact_wrenches_world(), sim._contact_wrenches_world_by_contact(), atol=1e-9)
    assert contacts_seen > 30

    over_curled = {name: 1.6 * value for name, value in curl_pose(robot, joints).as_dict().items()}  # head past tail
    sim.run(4.0, lambda t: {name: min(1.0, t / 3.0) * value for name, value in over_curled.items()})
    assert sim._robot_touches_itself()
    reported = sim.contact_wrenches_world()
    np.testing.assert_allclose(reported, sim._contact_wrenches_world_by_contact(), atol=1e-12)
    mujoco.mj_rnePostConstraint(sim.model, sim.data)
    assert np.abs(sim.data.cfrc_ext[sim.root_body_id:, 3:]).sum() > np.abs(reported[:, :3]).sum() + 0.1
