"""Deformable and compliant terrains in the engine: the robot on SCM loose sand and on the
compliant ground, physics against the rigid ground (thesis §25–27), and the wrench plumbing
(what the terrain applied is what contact_wrenches reports, at the right point and frame)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np
import pytest

from cobra_description.robot_model import RobotModel, load_robot_model
from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams
from cobra_sim.engine import CobraSim, SimParams
from cobra_sim.terrain import BodyState, TerrainModel, make_terrain

REPO = Path(__file__).resolve().parents[3]
URDF = REPO / 'urdf' / 'cobra.urdf'
SOIL_FILES = {'rigid': None, 'scm': REPO / 'config' / 'soil' / 'loose_sand.yaml',
              'compliant': REPO / 'config' / 'soil' / 'compliant_ground.yaml'}
FREQUENCY_HZ = 0.4   # gait1 (thesis §15.3), amplitudes of config/gait.yaml
CYCLES = 4


@pytest.fixture(scope='module')
def robot() -> RobotModel:
    return load_robot_model(URDF)


def make_sim(robot: RobotModel, terrain: str | TerrainModel) -> CobraSim:
    model = make_terrain(terrain, SOIL_FILES[terrain]) if isinstance(terrain, str) else terrain
    sim = CobraSim(robot, model, SimParams(), np.random.default_rng(0))
    sim.settle()
    return sim


@dataclass(frozen=True)
class GaitRecord:
    displacement_per_cycle_m: np.ndarray   # [CYCLES, 2] COM x, y per gait cycle
    peak_normal_force_n: np.ndarray        # [n_links] largest vertical ground reaction
    contact_fraction: np.ndarray           # [n_links] share of control periods in contact


def sidewind_gait1(robot: RobotModel, terrain: str) -> GaitRecord:
    """2 s ramp, then CYCLES cycles of gait1 sidewinding to the left; the vertical ground
    reaction per link is sampled every control period (what contact/forces reports)."""
    joints = robot.gait_joints()
    names = [joint.name for joint in joints]
    generator = SidewindingGenerator([joint.axis_kind for joint in joints],
                                     SidewindingParams(FREQUENCY_HZ, 0.35, 0.70, 'left'))
    generator.ramp.start()
    sim = make_sim(robot, terrain)
    period = sim.params.control_period_s

    def command(t_s: float) -> dict[str, float]:
        generator.advance(period)
        return dict(zip(names, generator.positions()))

    sim.run(2.0, command)
    link_weight_n = np.array([sim.model.body(name).mass[0] for name in sim.robot_body_names]) * 9.81
    centres = [sim.center_of_mass()[:2]]
    normal = []
    for _ in range(CYCLES):
        for _ in range(round(1.0 / FREQUENCY_HZ / period)):
            sim.set_targets(command(sim.time_s))
            sim.step_control_period()
            normal.append(sim.contact_wrenches_world()[:, 2])
        centres.append(sim.center_of_mass()[:2])
    normal_n = np.array(normal)
    return GaitRecord(np.diff(np.array(centres), axis=0), normal_n.max(axis=0),
                      (normal_n > 0.05 * link_weight_n).mean(axis=0))


@pytest.fixture(scope='module')
def rigid_gait(robot) -> GaitRecord:
    return sidewind_gait1(robot, 'rigid')


@pytest.fixture(scope='module')
def scm_gait(robot) -> GaitRecord:
    return sidewind_gait1(robot, 'scm')


def test_sand_slows_sidewinding_but_keeps_its_direction(rigid_gait, scm_gait):
    """Measured: rigid 0.212–0.225 m per cycle, SCM loose sand 0.188–0.192 m (ratio ≈ 0.88),
    both to +y with a small −x drift."""
    rigid, sand = rigid_gait.displacement_per_cycle_m, scm_gait.displacement_per_cycle_m
    assert np.all(rigid[:, 1] > 0.15)
    assert np.all(sand[:, 1] > 0.5 * rigid[:, 1].mean())          # still sidewinds, every cycle
    assert sand[:, 1].mean() < 0.95 * rigid[:, 1].mean()           # but slower
    rigid_mean, sand_mean = rigid.mean(axis=0), sand.mean(axis=0)
    cosine = rigid_mean @ sand_mean / (np.linalg.norm(rigid_mean) * np.linalg.norm(sand_mean))
    assert cosine > 0.95                                           # same direction (measured 0.99)


def test_sand_lowers_the_peak_normal_force_of_every_link(rigid_gait, scm_gait):
    """Measured: SCM peaks 11–24 N per link, rigid 33–91 N (ratio 0.24–0.58)."""
    assert np.all(scm_gait.peak_normal_force_n < 0.8 * rigid_gait.peak_normal_force_n)


def test_links_stay_in_contact_longer_on_sand(rigid_gait, scm_gait):
    """Measured: mean contact share 0.55 on sand vs 0.41 on rigid ground; no link less."""
    assert scm_gait.contact_fraction.mean() > 1.15 * rigid_gait.contact_fraction.mean()
    assert np.all(scm_gait.contact_fraction >= rigid_gait.contact_fraction - 0.02)


def test_compliant_ground_sidewinds_like_the_rigid_ground(robot, rigid_gait):
    """Both carry the §7 numbers (k, b, μ); the compliant law adds μ_d and the tangential spring.
    Measured: 0.230–0.240 m per cycle vs rigid 0.212–0.225 m, same direction."""
    compliant = sidewind_gait1(robot, 'compliant').displacement_per_cycle_m
    rigid = rigid_gait.displacement_per_cycle_m
    assert compliant[:, 1].mean() == pytest.approx(rigid[:, 1].mean(), rel=0.2)
    assert np.all(compliant[:, 1] > 0.15)


class RecordingTerrain(TerrainModel):
    """Wraps a wrench terrain and keeps a copy of what it returned each step."""

    applies_wrenches = True

    def __init__(self, inner: TerrainModel) -> None:
        self.inner = inner
        self.name = inner.name
        self.returned: list[tuple[np.ndarray, np.ndarray]] = []
        self.states: list[BodyState] = []

    def option_attributes(self) -> dict[str, str]:
        return self.inner.option_attributes()

    def robot_geom_attributes(self, link_mass_kg: float, timestep_s: float) -> dict[str, str]:
        return self.inner.robot_geom_attributes(link_mass_kg, timestep_s)

    def robot_contact_parameters(self, *args):
        return self.inner.robot_contact_parameters(*args)

    def setup(self, bodies, initial_state, timestep_s) -> None:
        self.bodies = bodies
        self.inner.setup(bodies, initial_state, timestep_s)

    def wrenches(self, state: BodyState, dt_s: float) -> tuple[np.ndarray, np.ndarray]:
        force, torque = self.inner.wrenches(state, dt_s)
        self.returned.append((force.copy(), torque.copy()))
        self.states.append(BodyState(*(np.array(a, copy=True) for a in (
            state.position_m, state.rotation, state.linear_velocity_m_s, state.angular_velocity_rad_s))))
        return force, torque


@pytest.mark.parametrize('terrain', ['scm', 'compliant'])
def test_reported_wrenches_are_the_applied_ones_and_balance_the_weight(robot, terrain):
    """At rest the soil alone carries the robot: the reported per-link wrenches (link origin,
    link axes) rotated to world and moved to the COM cancel gravity, forces and moments; and
    they are exactly what the terrain returned for the last step, applied at the COM."""
    recorder = RecordingTerrain(make_terrain(terrain, SOIL_FILES[terrain]))
    sim = make_sim(robot, recorder)
    assert [body.name for body in recorder.bodies] == sim.robot_body_names
    force, torque = recorder.returned[-1]
    world = sim.contact_wrenches_world()
    np.testing.assert_allclose(world[:, :3], force, atol=1e-12)
    np.testing.assert_allclose(world[:, 3:], torque, atol=1e-12)
    ids = [sim.model.body(name).id for name in sim.robot_body_names]
    arm = sim.data.xipos[ids] - sim.data.xpos[ids]
    np.testing.assert_allclose(sim.data.xfrc_applied[ids, :3], force, atol=1e-12)
    np.testing.assert_allclose(sim.data.xfrc_applied[ids, 3:], torque - np.cross(arm, force), atol=1e-12)
    local = sim.contact_wrenches()
    to_world = sim.data.xmat[ids].reshape(-1, 3, 3)
    np.testing.assert_allclose(np.einsum('nij,nj->ni', to_world, local[:, :3]), force, atol=1e-9)
    weight_n = robot.total_mass_kg * 9.81
    np.testing.assert_allclose(force.sum(axis=0), [0.0, 0.0, weight_n], atol=0.01 * weight_n)
    assert np.all(force[:, 2] > 0.0)
    moment_about_com = (np.cross(sim.data.xpos[ids] - sim.center_of_mass(), force) + torque).sum(axis=0)
    np.testing.assert_allclose(moment_about_com, 0.0, atol=0.01 * weight_n * 0.01)


def test_terrain_gets_origin_velocities_of_the_step_start(robot):
    """The state handed to the terrain is that of mj_step1: origins (xpos), and the velocity of
    each origin, checked against a finite difference of MuJoCo's kinematics along qvel while the
    robot moves. (MuJoCo 4.0's mj_objectVelocity for a body gives the velocity of its centre of
    mass, xipos, not of its origin: 0.2 m/s off here; with it this test fails.)"""
    recorder = RecordingTerrain(make_terrain('compliant', SOIL_FILES['compliant']))
    sim = make_sim(robot, recorder)
    sim.set_targets({'joint_2': 0.8, 'joint_3': 0.5})
    sim.run(0.2)
    ids = [sim.model.body(name).id for name in sim.robot_body_names]
    start = mujoco.MjData(sim.model)
    start.qpos[:], start.qvel[:] = sim.data.qpos, sim.data.qvel
    mujoco.mj_kinematics(sim.model, start)   # the poses the next step's terrain call sees
    moved = mujoco.MjData(sim.model)
    moved.qpos[:] = sim.data.qpos
    epsilon_s = 1e-7
    mujoco.mj_integratePos(sim.model, moved.qpos, sim.data.qvel, epsilon_s)
    mujoco.mj_kinematics(sim.model, moved)
    sim.step_physics(1)
    state = recorder.states[-1]
    np.testing.assert_allclose(state.position_m, start.xpos[ids], atol=1e-12)
    expected_linear = (moved.xpos[ids] - start.xpos[ids]) / epsilon_s
    rotation_change = np.einsum('nji,njk->nik', start.xmat[ids].reshape(-1, 3, 3),
                                moved.xmat[ids].reshape(-1, 3, 3)) - np.eye(3)
    expected_angular_body = np.stack([rotation_change[:, 2, 1], rotation_change[:, 0, 2],
                                      rotation_change[:, 1, 0]], axis=1) / epsilon_s
    expected_angular = np.einsum('nij,nj->ni', start.xmat[ids].reshape(-1, 3, 3), expected_angular_body)
    assert np.abs(expected_linear).max() > 0.1  # it does move
    np.testing.assert_allclose(state.linear_velocity_m_s, expected_linear, atol=1e-4)
    np.testing.assert_allclose(state.angular_velocity_rad_s, expected_angular, atol=1e-4)


def test_no_ground_plane_under_a_wrench_terrain(robot):
    sim = CobraSim(robot, make_terrain('scm', SOIL_FILES['scm']), SimParams(), np.random.default_rng(0))
    assert not any(sim.model.geom_type == mujoco.mjtGeom.mjGEOM_PLANE)


def test_a_mesh_link_reaches_the_soil_as_its_bounding_box(tmp_path):
    """A URDF mesh (a 0.2 x 0.1 x 0.06 m box as binary STL, 5 cm off the link origin) goes to a
    wrench terrain as the box of its bounding box, and the sand carries it on that face."""
    corners = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    faces = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
             (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]
    records = b''.join(np.zeros(3, '<f4').tobytes() + corners[list(face)].astype('<f4').tobytes() + b'\0\0'
                       for face in faces)
    (tmp_path / 'cube.stl').write_bytes(b'cube'.ljust(80) + len(faces).to_bytes(4, 'little') + records)
    (tmp_path / 'box.urdf').write_text('''<robot name="box"><link name="box">
  <inertial><origin xyz="0 0 0"/><mass value="1.0"/>
    <inertia ixx="0.0011" iyy="0.0036" izz="0.0042" ixy="0" ixz="0" iyz="0"/></inertial>
  <collision><origin xyz="0.05 0 0"/><geometry><mesh filename="cube.stl" scale="0.2 0.1 0.06"/></geometry></collision>
</link></robot>''')
    sim = CobraSim(load_robot_model(tmp_path / 'box.urdf'), make_terrain('scm', SOIL_FILES['scm']),
                   SimParams(initial_height_m=0.05, imu_frame='box', settle_duration_s=1.0), np.random.default_rng(0))
    (body,) = sim.terrain_bodies()
    (shape,) = body.shapes
    assert shape.kind == 'box'
    # MuJoCo frames a mesh on its principal axes: the box's half extents along the body axes
    np.testing.assert_allclose(np.abs(np.array(shape.rotation)) @ shape.size_m, [0.1, 0.05, 0.03], atol=1e-6)
    np.testing.assert_allclose(shape.position_m, [0.05, 0.0, 0.0], atol=1e-6)
    sim.settle()
    assert 0.015 < sim.head_pose()[0][2] < 0.03   # sunk into the sand by mm, not through it
    assert sim.contact_wrenches_world()[0, 2] == pytest.approx(9.81, rel=0.01)
    assert sim.terrain.diagnostics()['links_in_contact'] == '1'
    assert float(sim.terrain.diagnostics()['contact_patch_area_total_m2']) > 0.005  # a face, not an edge
