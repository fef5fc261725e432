"""Terrain registry and bad terrain input: unknown names, bad files and a start off the patch
are refused with one message naming the parameter and the file; a new terrain joins the
registry without touching the sim loop; the rigid ground never imports the soil library."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cobra_description.robot_model import RobotModel, load_robot_model
from cobra_sim.engine import CobraSim, SimParams
from cobra_sim.terrain import (TERRAINS, BodyState, RigidGround, RobotBody, TerrainConfigError, TerrainEntry,
                               TerrainModel, default_terrain_file, make_terrain, register_terrain)

REPO = Path(__file__).resolve().parents[3]
URDF = REPO / 'urdf' / 'cobra.urdf'
LOOSE_SAND = REPO / 'config' / 'soil' / 'loose_sand.yaml'


@pytest.fixture(scope='module')
def robot() -> RobotModel:
    return load_robot_model(URDF)


def test_registry_names_the_three_terrains_and_their_default_files():
    assert {'rigid', 'scm', 'compliant'} <= set(TERRAINS)
    assert default_terrain_file('rigid') is None
    assert default_terrain_file('scm').name == 'loose_sand.yaml'
    assert default_terrain_file('compliant').name == 'compliant_ground.yaml'


def test_default_scm_terrain_is_the_thesis_loose_sand():
    terrain = make_terrain('scm')
    assert terrain.params.soil.bekker_kphi_pa_m_n == 5.0e4 and terrain.params.soil.bekker_n == 0.6
    assert terrain.params.grid.spacing_m == 0.02 and terrain.params.grid.size_x_m == 9.0


def test_unknown_terrain_names_the_parameter_and_the_choices():
    with pytest.raises(TerrainConfigError, match=r"unknown terrain 'sand'.*terrain.*compliant, rigid, scm"):
        make_terrain('sand')


def test_missing_terrain_file_names_the_parameter_and_the_file(tmp_path):
    missing = tmp_path / 'no_such_soil.yaml'
    with pytest.raises(TerrainConfigError, match=rf'terrain_file.*{missing}.*cannot read'):
        make_terrain('scm', missing)


def test_non_physical_soil_names_the_file_and_the_parameter(tmp_path):
    bad = tmp_path / 'bad_sand.yaml'
    bad.write_text(LOOSE_SAND.read_text().replace('Bekker_Kphi: 5.0e+4', 'Bekker_Kphi: -5.0e+4'))
    with pytest.raises(TerrainConfigError, match=rf'terrain_file.*{bad}.*Bekker_Kphi'):
        make_terrain('scm', bad)


def test_a_soil_file_for_another_terrain_is_refused():
    expected = r"terrain_file .*loose_sand.yaml is a file for terrain 'scm'.*terrain:=compliant"
    with pytest.raises(TerrainConfigError, match=expected):
        make_terrain('compliant', LOOSE_SAND)


def test_rigid_ground_takes_no_terrain_file():
    with pytest.raises(TerrainConfigError, match='takes no terrain_file'):
        make_terrain('rigid', LOOSE_SAND)


def test_robot_starting_far_from_the_configured_patch_lies_on_soil(robot, tmp_path):
    """The soil has no edge: the patch in the file only places the nodes (before: refused)."""
    far = tmp_path / 'far_sand.yaml'
    far.write_text(LOOSE_SAND.read_text().replace('center_xy_m: [0.0, 0.0]', 'center_xy_m: [10.0, 0.0]'))
    sim = CobraSim(robot, make_terrain('scm', far), SimParams(settle_duration_s=1.0), np.random.default_rng(0))
    sim.settle()
    weight_n = robot.total_mass_kg * 9.81
    assert sim.contact_wrenches_world()[:, 2].sum() == pytest.approx(weight_n, rel=0.02)
    assert -0.02 < sim.head_pose()[0][2] < 0.1


def test_rigid_ground_does_not_import_the_soil_library():
    """Lazy registry: a rigid run never pays numba's import."""
    code = ('import sys; from cobra_sim.terrain import make_terrain; make_terrain("rigid"); '
            'assert "numba" not in sys.modules and "cobra_soil" not in sys.modules, "imported"')
    path = os.pathsep.join([str(REPO / 'src' / 'cobra_sim'), os.environ.get('PYTHONPATH', '')])
    env = {**os.environ, 'PYTHONPATH': path}
    result = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


class SpringFloor(TerrainModel):
    """A terrain defined outside cobra_sim: a vertical spring-damper under each body origin."""

    name = 'spring_floor'
    applies_wrenches = True

    @classmethod
    def from_file(cls, terrain_file: Path | None) -> SpringFloor:
        return cls()

    def option_attributes(self) -> dict[str, str]:
        return RigidGround().option_attributes()

    def setup(self, bodies: list[RobotBody], initial_state: BodyState, timestep_s: float) -> None:
        self.bodies = bodies

    def wrenches(self, state: BodyState, dt_s: float) -> tuple[np.ndarray, np.ndarray]:
        depth = np.maximum(0.045 - state.position_m[:, 2], 0.0)
        force = np.zeros_like(state.position_m)
        force[:, 2] = np.where(depth > 0.0, 2000.0 * depth - 20.0 * state.linear_velocity_m_s[:, 2], 0.0)
        return force, np.zeros_like(force)


def test_a_registered_terrain_runs_without_editing_the_sim(robot):
    register_terrain('spring_floor', TerrainEntry(f'{__name__}:SpringFloor.from_file', '', 'test terrain'))
    try:
        sim = CobraSim(robot, make_terrain('spring_floor'), SimParams(), np.random.default_rng(0))
        sim.settle()
    finally:
        del TERRAINS['spring_floor']
    assert [body.name for body in sim.terrain.bodies] == sim.robot_body_names
    cylinders = [shape for body in sim.terrain.bodies for shape in body.shapes]
    assert all(shape.kind == 'cylinder' and shape.size_m[0] == pytest.approx(0.045) for shape in cylinders)
    masses = [sim.model.body(name).mass[0] for name in sim.robot_body_names]
    assert [body.mass_kg for body in sim.terrain.bodies] == pytest.approx(masses)
    # the floor alone carries the robot, and contact_wrenches reports it
    assert sim.contact_wrenches_world()[:, 2].sum() == pytest.approx(robot.total_mass_kg * 9.81, rel=0.01)
    assert 0.0 < sim.head_pose()[0][2] < 0.045
