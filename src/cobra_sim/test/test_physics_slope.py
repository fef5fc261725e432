"""The slope world (issue 9, thesis §28): a rigid plane tilted about world y, descending along +x.

Gravity stays −z, so the odom/world frame stays gravity-aligned (REP 103); the robot starts lying
on the slope. On it a body rests while tan(slope) < μ_s = 0.5 (the thesis §7 ground) and slides
with Coulomb's acceleration g (sin θ − μ cos θ) once μ is below tan θ.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cobra_common.rotations import matrix_from_quaternion
from cobra_description.robot_model import START_CLEARANCE_M, load_robot_model, parse_urdf
from cobra_sim.engine import CobraSim, SimParams
from cobra_sim.terrain import (RigidGround, RigidGroundParams, TerrainConfigError, make_terrain,
                               slope_rotation)

URDF = Path(__file__).resolve().parents[3] / 'urdf' / 'cobra.urdf'
GRAVITY_M_S2 = 9.81
SLOPE_DEG = 24.0  # thesis §28 tumbling slope: tan 24° = 0.445 < μ_s = 0.5
BOX_MASS_KG = 0.463636  # a COBRA body module's mass


def box_urdf(mass_kg: float) -> str:
    """A module-sized box (lies flat on a face: a clean Coulomb block on an incline)."""
    return f'''<robot name="block"><link name="block">
  <inertial><origin xyz="0 0 0"/><mass value="{mass_kg}"/>
    <inertia ixx="0.00065" ixy="0" ixz="0" iyy="0.0011" iyz="0" izz="0.0011"/></inertial>
  <collision><geometry><box size="0.136 0.09 0.09"/></geometry></collision>
</link></robot>'''


def slope_normal(slope_deg: float) -> np.ndarray:
    return slope_rotation(slope_deg)[:, 2]


def downhill(slope_deg: float) -> np.ndarray:
    return slope_rotation(slope_deg)[:, 0]


def box_sim(friction: float, slope_deg: float = SLOPE_DEG) -> CobraSim:
    ground = RigidGround(RigidGroundParams(friction_static=friction), slope_deg=slope_deg)
    params = SimParams(imu_frame='block', settle_duration_s=0.2)
    return CobraSim(parse_urdf(box_urdf(BOX_MASS_KG)), ground, params, np.random.default_rng(0))


def robot_sim(friction: float = 0.5, slope_deg: float = SLOPE_DEG) -> CobraSim:
    ground = RigidGround(RigidGroundParams(friction_static=friction), slope_deg=slope_deg)
    return CobraSim(load_robot_model(URDF), ground, SimParams(settle_duration_s=0.5), np.random.default_rng(0))


def test_the_rigid_ground_is_the_thesis_coulomb_ground():
    """Thesis §7: μ_s = 0.5 on the plane and on every robot geom (the robot geom has priority)."""
    ground = RigidGround()
    assert ground.params.friction_static == 0.5
    assert 'friction="0.5 ' in ground.world_xml()
    assert ground.robot_geom_attributes(0.46, 0.001)['friction'].split()[0] == '0.5'
    assert ground.robot_geom_attributes(0.46, 0.001)['priority'] == '1'


def test_the_plane_descends_along_plus_x():
    sim = box_sim(0.5)
    ground = sim.model.geom('ground')
    normal = sim.data.geom_xmat[ground.id].reshape(3, 3)[:, 2]
    theta = math.radians(SLOPE_DEG)
    assert normal == pytest.approx([math.sin(theta), 0.0, math.cos(theta)], abs=1e-9)
    # a point 1 m down +x on the surface is tan θ lower
    assert -np.dot([1.0, 0.0, 0.0], normal) / normal[2] == pytest.approx(-math.tan(theta))
    assert sim.model.opt.gravity == pytest.approx([0.0, 0.0, -GRAVITY_M_S2])  # odom stays gravity-aligned


@pytest.mark.parametrize('slope_deg', [0.0, SLOPE_DEG])
def test_robot_starts_lying_on_the_slope_head_downhill(slope_deg):
    sim = robot_sim(slope_deg=slope_deg)  # before settling: the start pose
    position, quaternion_xyzw = sim.head_pose()
    rotation = matrix_from_quaternion(quaternion_xyzw)
    assert rotation == pytest.approx(slope_rotation(slope_deg), abs=1e-9)  # root pitched by the slope
    assert rotation[:, 0] @ downhill(slope_deg) == pytest.approx(1.0)     # head points downhill
    # placed by its lowest point: the root sits (clearance - lowest point) off the plane, along the normal
    height_m = float(position @ slope_normal(slope_deg))
    assert height_m == pytest.approx(START_CLEARANCE_M - sim.robot.lowest_point_m(), abs=1e-9)
    assert position @ downhill(slope_deg) == pytest.approx(0.0, abs=1e-9)


def test_box_rests_on_24_degree_slope_with_mu_half_and_carries_m_g_cos():
    sim = box_sim(0.5)
    sim.settle()
    start = sim.head_pose()[0]
    sim.run(2.0)
    moved_m = float((sim.head_pose()[0] - start) @ downhill(SLOPE_DEG))
    # at rest: only MuJoCo's soft-contact creep (v = f_t / b, ~2 mm/s), far from sliding (~0.8 m in 2 s)
    assert abs(moved_m) < 0.01
    force = sim.contact_wrenches_world()[0, :3]
    theta = math.radians(SLOPE_DEG)
    assert force @ slope_normal(SLOPE_DEG) == pytest.approx(BOX_MASS_KG * GRAVITY_M_S2 * math.cos(theta), rel=0.02)
    # friction holds the weight's downhill part
    assert force @ downhill(SLOPE_DEG) == pytest.approx(-BOX_MASS_KG * GRAVITY_M_S2 * math.sin(theta), rel=0.02)


def test_box_slides_with_coulomb_acceleration_when_mu_is_below_tan_slope():
    friction = 0.35  # < tan 24° = 0.445
    sim = box_sim(friction)
    sim.settle()
    times_s, along_m = [], []
    for _ in range(50):
        sim.run(0.02)
        times_s.append(sim.time_s)
        along_m.append(float(sim.head_pose()[0] @ downhill(SLOPE_DEG)))
    acceleration = 2.0 * np.polyfit(times_s, along_m, 2)[0]
    theta = math.radians(SLOPE_DEG)
    expected = GRAVITY_M_S2 * (math.sin(theta) - friction * math.cos(theta))
    assert acceleration == pytest.approx(expected, rel=0.03)


def test_robot_rests_on_24_degree_slope_and_carries_its_weight():
    sim = robot_sim(0.5)
    sim.settle()
    start = sim.center_of_mass()
    sim.run(2.0)
    assert abs(float((sim.center_of_mass() - start) @ downhill(SLOPE_DEG))) < 0.01
    total = sim.contact_wrenches_world()[:, :3].sum(axis=0)
    weight_n = sim.robot.total_mass_kg * GRAVITY_M_S2
    assert total @ slope_normal(SLOPE_DEG) == pytest.approx(weight_n * math.cos(math.radians(SLOPE_DEG)), rel=0.03)


def test_robot_resting_on_the_slope_creeps_as_the_thesis_regularised_friction_law():
    """Thesis §7's friction rises as mu_s f_n / v_c below v_c = 1 mm/s, so a body held by static
    friction on the slope creeps at v = v_c tan(theta) / mu_s (0.89 mm/s at 24 deg, mu_s 0.5);
    MuJoCo's soft friction with impratio 1 crept at 2.4 mm/s."""
    sim = robot_sim(0.5)
    assert sim.model.opt.impratio == pytest.approx(0.5 * 0.464 * 9.81 / (1.0e3 * 1.0e-3), rel=0.01)
    sim.settle()
    start = sim.center_of_mass()
    sim.run(2.0)
    creep_m_s = float((sim.center_of_mass() - start) @ downhill(SLOPE_DEG)) / 2.0
    law_m_s = 1.0e-3 * math.tan(math.radians(SLOPE_DEG)) / 0.5
    assert creep_m_s == pytest.approx(law_m_s, rel=0.3)


def test_robot_slides_downhill_in_gravity_aligned_odom_when_mu_is_below_tan_slope():
    sim = robot_sim(0.3)
    sim.settle()
    start, _ = sim.head_pose()
    sim.run(1.0)
    end, _ = sim.head_pose()
    assert end[0] - start[0] > 0.2                          # down +x
    assert end[2] - start[2] == pytest.approx(-(end[0] - start[0]) * math.tan(math.radians(SLOPE_DEG)), rel=0.05)


@pytest.mark.parametrize('slope_deg', [90.0, 120.0, -1.0, math.nan, math.inf])
def test_a_slope_that_is_not_ground_is_refused(slope_deg):
    with pytest.raises(TerrainConfigError, match='0 <= slope_deg < 90'):
        RigidGround(slope_deg=slope_deg)
    with pytest.raises(TerrainConfigError, match='0 <= slope_deg < 90'):
        make_terrain('rigid', '', slope_deg)


@pytest.mark.parametrize('terrain', ['scm', 'compliant'])
def test_slope_on_a_non_rigid_terrain_is_refused(terrain):
    with pytest.raises(TerrainConfigError, match='slope_deg:=10 is only supported on terrain:=rigid'):
        make_terrain(terrain, '', 10.0)
    assert make_terrain(terrain, '', 0.0).slope_deg == 0.0


def test_make_terrain_passes_the_slope_to_the_rigid_ground():
    assert make_terrain('rigid', '', SLOPE_DEG).slope_deg == SLOPE_DEG


@pytest.mark.parametrize('parameters, message', [
    (['slope_deg:=90.0'], 'slope_deg:=90.0 is not a slope: use 0 <= slope_deg < 90'),
    (['terrain:=scm', 'slope_deg:=10.0'], 'slope_deg:=10 is only supported on terrain:=rigid'),
])
def test_sim_node_refuses_a_bad_slope_before_it_starts(ros_env, parameters, message):
    words = [sys.executable, '-m', 'cobra_sim.sim_node', '--ros-args', '-p', f'urdf_path:={URDF}']
    for parameter in parameters:
        words += ['-p', parameter]
    result = subprocess.run(words, env=ros_env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert message in result.stderr
