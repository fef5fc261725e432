"""URDFs as users bring them: mesh collision geometry and fixed child links with their own mass."""

from __future__ import annotations

import os
from pathlib import Path

import mujoco
import numpy as np
import pytest

from cobra_description.robot_model import load_robot_model
from cobra_sim.engine import CobraSim, SimConfigError, SimParams
from cobra_sim.terrain import RigidGround

# a 0.2 x 0.1 x 0.06 m box as 12 triangles (corners of the unit cube scaled in the URDF)
CUBE_CORNERS = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
CUBE_FACES = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
              (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]
BOX_SCALE = (0.2, 0.1, 0.06)
BOX_MASS_KG = 1.0


def write_ascii_stl(path: Path) -> None:
    facets = ''.join('facet normal 0 0 0\n outer loop\n' + ''.join(
        '  vertex {} {} {}\n'.format(*CUBE_CORNERS[i]) for i in face) + ' endloop\nendfacet\n' for face in CUBE_FACES)
    path.write_text(f'solid cube\n{facets}endsolid cube\n')


def write_binary_stl(path: Path) -> None:
    records = b''.join(np.zeros(3, '<f4').tobytes() + CUBE_CORNERS[list(face)].astype('<f4').tobytes() + b'\0\0'
                       for face in CUBE_FACES)
    path.write_bytes(b'binary cube'.ljust(80) + len(CUBE_FACES).to_bytes(4, 'little') + records)


def box_urdf(filename: str, fixed_child: str = '', geometry: str = '') -> str:
    inertia = BOX_MASS_KG / 12 * np.array([BOX_SCALE[1] ** 2 + BOX_SCALE[2] ** 2, BOX_SCALE[0] ** 2 + BOX_SCALE[2] ** 2,
                                           BOX_SCALE[0] ** 2 + BOX_SCALE[1] ** 2])
    mesh = f'<mesh filename="{filename}" scale="{" ".join(map(str, BOX_SCALE))}"/>'
    return f'''<robot name="box"><link name="box">
  <inertial><origin xyz="0 0 0"/><mass value="{BOX_MASS_KG}"/>
    <inertia ixx="{inertia[0]}" iyy="{inertia[1]}" izz="{inertia[2]}" ixy="0" ixz="0" iyz="0"/></inertial>
  <collision><origin xyz="0 0 0"/><geometry>{geometry or mesh}</geometry></collision>
</link>{fixed_child}</robot>'''


def rest_height_m(urdf_path: Path) -> float:
    sim = CobraSim(load_robot_model(urdf_path), RigidGround(),
                   SimParams(initial_height_m=0.05, imu_frame='box', settle_duration_s=1.0), np.random.default_rng(0))
    sim.settle()
    return float(sim.head_pose()[0][2])


@pytest.mark.parametrize('writer', [write_ascii_stl, write_binary_stl])
def test_mesh_box_rests_on_its_face_like_the_box_it_is(tmp_path, writer):
    (tmp_path / 'meshes').mkdir()
    writer(tmp_path / 'meshes' / 'cube.stl')
    urdf = tmp_path / 'box.urdf'
    urdf.write_text(box_urdf('meshes/cube.stl'))
    height_m = rest_height_m(urdf)
    # half the scaled height, less a sub-millimetre penetration into the ground
    assert BOX_SCALE[2] / 2 - 1.5e-3 < height_m < BOX_SCALE[2] / 2


def test_package_uri_resolves_through_the_ament_index(tmp_path, monkeypatch):
    prefix = tmp_path / 'install'
    (prefix / 'share' / 'ament_index' / 'resource_index' / 'packages').mkdir(parents=True)
    (prefix / 'share' / 'ament_index' / 'resource_index' / 'packages' / 'my_robot_description').write_text('')
    (prefix / 'share' / 'my_robot_description' / 'meshes').mkdir(parents=True)
    write_binary_stl(prefix / 'share' / 'my_robot_description' / 'meshes' / 'cube.stl')
    monkeypatch.setenv('AMENT_PREFIX_PATH', os.pathsep.join([str(prefix), os.environ.get('AMENT_PREFIX_PATH', '')]))
    urdf = tmp_path / 'elsewhere' / 'box.urdf'
    urdf.parent.mkdir()
    urdf.write_text(box_urdf('package://my_robot_description/meshes/cube.stl'))
    assert BOX_SCALE[2] / 2 - 1.5e-3 < rest_height_m(urdf) < BOX_SCALE[2] / 2


def test_fixed_child_with_inertia_is_lumped_into_its_parent(tmp_path):
    """A 0.5 kg bracket fixed 0.1 m ahead of the box: one body, the parallel-axis sum."""
    bracket = '''<link name="bracket"><inertial><origin xyz="0 0 0.02"/><mass value="0.5"/>
        <inertia ixx="1e-4" iyy="2e-4" izz="3e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="bracket_joint" type="fixed"><parent link="box"/><child link="bracket"/>
        <origin xyz="0.1 0 0" rpy="0 0 1.5707963267948966"/></joint>'''
    urdf = tmp_path / 'box.urdf'
    urdf.write_text(box_urdf('', bracket, geometry='<box size="{} {} {}"/>'.format(*BOX_SCALE)))
    sim = CobraSim(load_robot_model(urdf), RigidGround(), SimParams(initial_height_m=0.05, imu_frame='bracket'),
                   np.random.default_rng(0))
    body = sim.model.body('box').id
    assert sim.model.nbody == 2  # world and the box: the bracket has no body of its own
    assert sim.model.body_mass[body] == pytest.approx(1.5)
    centre = np.array([0.1 * 0.5 / 1.5, 0.0, 0.02 * 0.5 / 1.5])
    np.testing.assert_allclose(sim.model.body_ipos[body], centre, atol=1e-9)
    box_inertia = np.diag(BOX_MASS_KG / 12 * np.array([BOX_SCALE[1] ** 2 + BOX_SCALE[2] ** 2,
                                                       BOX_SCALE[0] ** 2 + BOX_SCALE[2] ** 2,
                                                       BOX_SCALE[0] ** 2 + BOX_SCALE[1] ** 2]))
    bracket_inertia = np.diag([2e-4, 1e-4, 3e-4])  # yawed 90°: its x and y swap
    expected = np.zeros((3, 3))
    for mass, position, tensor in ((1.0, np.zeros(3), box_inertia), (0.5, np.array([0.1, 0.0, 0.02]), bracket_inertia)):
        arm = position - centre
        expected += tensor + mass * (arm @ arm * np.eye(3) - np.outer(arm, arm))
    rotation = np.zeros(9)
    mujoco.mju_quat2Mat(rotation, sim.model.body_iquat[body])
    rotation = rotation.reshape(3, 3)
    np.testing.assert_allclose(rotation @ np.diag(sim.model.body_inertia[body]) @ rotation.T, expected, atol=1e-9)
    # the bracket's frame is still there for sensors and TF (a site)
    np.testing.assert_allclose(sim.model.site('bracket').pos, [0.1, 0.0, 0.0], atol=1e-9)


def test_a_moving_link_without_mass_is_refused_naming_it(tmp_path):
    urdf = tmp_path / 'bad.urdf'
    urdf.write_text('''<robot name="bad"><link name="a"><inertial><mass value="1"/>
        <inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
        <collision><geometry><sphere radius="0.05"/></geometry></collision></link>
      <link name="massless"/>
      <joint name="j" type="revolute"><parent link="a"/><child link="massless"/><axis xyz="0 0 1"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>''')
    with pytest.raises(SimConfigError, match=r"(?s)bad\.urdf.*'massless'"):
        CobraSim(load_robot_model(urdf), RigidGround(), SimParams(imu_frame='a'), np.random.default_rng(0))


def test_a_robot_without_collision_geometry_is_refused_with_the_fix(tmp_path):
    urdf = tmp_path / 'ghost.urdf'
    urdf.write_text('''<robot name="ghost"><link name="a"><inertial><mass value="1"/>
        <inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial></link></robot>''')
    with pytest.raises(SimConfigError, match=r"(?s)ghost\.urdf.*no collision geometry.*<collision>"):
        CobraSim(load_robot_model(urdf), RigidGround(), SimParams(imu_frame='a'), np.random.default_rng(0))
