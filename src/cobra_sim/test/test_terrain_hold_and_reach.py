"""Issue 17 in the engine: bodies lie still on SCM under tilted gravity (the patch stays flat,
gravity tilts 5 deg: a sand slope), and every terrain reaches wherever the robot goes (the SCM
patch is no edge: a sidewinding robot started at the old patch's rim walks across it on soil)."""

from __future__ import annotations

import math
from pathlib import Path

import mujoco
import numpy as np
import pytest

from cobra_description.robot_model import RobotModel, load_robot_model
from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams
from cobra_sim.engine import CobraSim, SimParams
from cobra_sim.terrain import make_terrain

REPO = Path(__file__).resolve().parents[3]
URDF = REPO / 'urdf' / 'cobra.urdf'
LOOSE_SAND = REPO / 'config' / 'soil' / 'loose_sand.yaml'
TILT_RAD = math.radians(5.0)
CREEP_LIMIT_M_S = 0.05e-3


@pytest.fixture(scope='module')
def robot() -> RobotModel:
    return load_robot_model(URDF)


def tilt_gravity(sim: CobraSim, direction_xy: tuple[float, float]) -> None:
    """Gravity tilted by 5 deg toward `direction_xy`: the flat patch becomes a 5 deg slope."""
    sim.model.opt.gravity[:] = 9.81 * np.array([math.sin(TILT_RAD) * direction_xy[0],
                                                math.sin(TILT_RAD) * direction_xy[1], -math.cos(TILT_RAD)])


def link_positions(sim: CobraSim) -> np.ndarray:
    return sim.data.xpos[[sim.model.body(name).id for name in sim.robot_body_names]].copy()


@pytest.mark.parametrize('direction_xy', [(1.0, 0.0), (0.0, 1.0)], ids=['along_body', 'across_body'])
def test_whole_robot_lies_still_on_scm_under_gravity_tilted_5_degrees(robot, direction_xy):
    """Laid down on loose sand with gravity tilted 5 deg (16.5 % of what the sand can carry), the
    robot, servos holding, settles and then no link moves more than 0.05 mm in a second.
    Before (viscous shear regularisation): 3.4 mm/s along the body, 0.7 mm/s across it, forever.
    Measured now: 0 along, 0.008 mm/s across 3 s after settling (rolling into its ruts), then 0."""
    sim = CobraSim(robot, make_terrain('scm', LOOSE_SAND), SimParams(settle_duration_s=2.0),
                   np.random.default_rng(0))
    tilt_gravity(sim, direction_xy)
    sim.settle()
    sim.run(2.0)
    before = link_positions(sim)
    sim.run(1.0)
    moved_m = np.linalg.norm((link_positions(sim) - before)[:, :2], axis=1)
    assert moved_m.max() < CREEP_LIMIT_M_S * 1.0
    weight_n = robot.total_mass_kg * 9.81
    assert sim.contact_wrenches_world()[:, :3].sum(axis=0) == pytest.approx(
        -robot.total_mass_kg * sim.model.opt.gravity, abs=0.01 * weight_n)   # the sand carries it, slope load too


LINK_URDF = '''<robot name="link"><link name="link">
  <inertial><origin xyz="0 0 0"/><mass value="0.464"/>
    <inertia ixx="4.698e-4" iyy="9.504e-4" izz="9.504e-4" ixy="0" ixz="0" iyz="0"/></inertial>
  <collision><origin xyz="0 0 0" rpy="0 1.5707963267948966 0"/>
    <geometry><cylinder radius="0.045" length="0.136"/></geometry></collision>
</link></robot>'''


@pytest.mark.parametrize('direction_xy', [(1.0, 0.0), (0.0, 1.0)], ids=['along_axis', 'across_axis'])
def test_free_cobra_link_lies_still_on_scm_under_gravity_tilted_5_degrees(tmp_path, direction_xy):
    """The COBRA link alone (0.464 kg, r 45 mm, 136 mm long, axis along x), free to roll: across
    its axis the rut holds it from rolling, along it the shear holds it from sliding. Before:
    it crept at 3.5 (along) / 0.34 (across) mm/s."""
    (tmp_path / 'link.urdf').write_text(LINK_URDF)
    sim = CobraSim(load_robot_model(tmp_path / 'link.urdf'), make_terrain('scm', LOOSE_SAND),
                   SimParams(initial_height_m=0.045, imu_frame='link', settle_duration_s=2.0),
                   np.random.default_rng(0))
    tilt_gravity(sim, direction_xy)
    sim.settle()
    sim.run(2.0)   # measured across the axis: 0.13, 0.07, then < 0.007 mm per second after settling
    before = sim.head_pose()[0]
    sim.run(1.0)
    assert np.linalg.norm((sim.head_pose()[0] - before)[:2]) < CREEP_LIMIT_M_S * 1.0
    assert abs(sim.head_pose()[0][2]) < 0.045   # lying in the sand, not rolled away or sunk


def sidewind(sim: CobraSim, robot: RobotModel, cycles: float) -> None:
    """gait1 (0.4 Hz, 0.35/0.70 rad) to the left (+y) after its 2 s ramp."""
    joints = robot.gait_joints()
    names = [joint.name for joint in joints]
    generator = SidewindingGenerator([joint.axis_kind for joint in joints], SidewindingParams(0.4, 0.35, 0.70, 'left'))
    generator.ramp.start()
    period = sim.params.control_period_s

    def command(t_s: float) -> dict[str, float]:
        generator.advance(period)
        return dict(zip(names, generator.positions()))

    sim.run(round((2.0 + cycles / 0.4) / period) * period, command)


def test_robot_walks_across_where_the_patch_edge_was_and_stays_on_soil(robot, tmp_path):
    """The patch of the soil file ends 0.1 m to the robot's left (+y); it sidewinds 1.2 m that way.
    Before: past y = 0.1 m the links found no soil and fell (the run of the issue fell to
    z = -77 km). Now the soil goes on: every link ends beyond the old edge, on the sand surface,
    carried by it, at the same stride as on the patch."""
    edge_y_m = 0.1
    shifted = tmp_path / 'sand_edge_left.yaml'
    shifted.write_text(LOOSE_SAND.read_text().replace('center_xy_m: [0.0, 0.0]',
                                                      f'center_xy_m: [0.0, {edge_y_m - 4.0}]'))
    sim = CobraSim(robot, make_terrain('scm', shifted), SimParams(settle_duration_s=1.0), np.random.default_rng(0))
    assert sim.terrain.params.grid.size_y_m == 8.0   # the patch spans y in [-7.9, 0.1]
    sim.settle()
    start = link_positions(sim)
    sidewind(sim, robot, cycles=6)
    end = link_positions(sim)
    assert np.all(start[:, 1] < edge_y_m) and np.all(end[:, 1] > edge_y_m + 0.5)
    assert np.all(end[:, 2] > -0.02) and np.all(end[:, 2] < 0.1)      # on the sand, link origins
    weight_n = robot.total_mass_kg * 9.81
    assert sim.contact_wrenches_world()[:, 2].sum() == pytest.approx(weight_n, rel=0.5)   # mid-gait, carried
    allocated = sim.terrain.scm.field.allocated_tile_indices()
    assert allocated[:, 1].max() * 16 * 0.02 - 3.9 > edge_y_m + 0.5   # soil nodes beyond the old edge


@pytest.mark.parametrize('terrain', ['rigid', 'compliant'])
def test_rigid_and_compliant_ground_reach_any_distance(robot, terrain):
    """Both are planes without an edge: the robot moved 5 km away lands on them as at home."""
    files = {'rigid': None, 'compliant': REPO / 'config' / 'soil' / 'compliant_ground.yaml'}
    sim = CobraSim(robot, make_terrain(terrain, files[terrain]), SimParams(settle_duration_s=1.0),
                   np.random.default_rng(0))
    sim.settle()
    home = link_positions(sim)
    qpos = sim.data.qpos.copy()
    adr = sim.model.jnt_qposadr[sim.model.body_jntadr[sim.root_body_id]]
    qpos[adr:adr + 2] += [5000.0, -3000.0]
    sim.restart_at_rest(qpos)
    mujoco.mj_forward(sim.model, sim.data)
    sim.run(1.0)
    away = link_positions(sim)
    np.testing.assert_allclose(away[:, 2], home[:, 2], atol=2e-3)
    weight_n = robot.total_mass_kg * 9.81
    assert sim.contact_wrenches_world()[:, 2].sum() == pytest.approx(weight_n, rel=0.05)
