"""The COBRA URDF as seen through robot_model, and the parser's error paths."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cobra_description.robot_model import (RobotModelError, default_urdf_path, load_robot_model,
                                           parse_urdf)

URDF = Path(__file__).resolve().parents[1] / 'urdf' / 'cobra.urdf'
GAIT_JOINTS = [f'joint_{k}' for k in range(1, 12)]


@pytest.fixture(scope='module')
def model():
    return load_robot_model(URDF)


def _urdf(body: str) -> str:
    return f'<robot name="t">{body}</robot>'


LINK = '<link name="{name}"/>'
REVOLUTE = ('<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
            '<axis xyz="0 0 1"/>{limit}</joint>')
LIMIT = '<limit lower="-1" upper="1" effort="2" velocity="3"/>'


def test_gait_joints_are_joint_1_to_11_head_to_tail(model):
    assert [j.name for j in model.gait_joints()] == GAIT_JOINTS
    assert all(j.type == 'revolute' for j in model.gait_joints())


def test_gait_joints_form_one_chain_from_head_link(model):
    joints = model.gait_joints()
    assert joints[0].parent == 'head_link'
    for previous, joint in zip(joints, joints[1:]):
        assert joint.parent == previous.child


def test_actuated_joints_add_only_the_latch(model):
    names = [j.name for j in model.actuated_joints]
    assert sorted(names) == sorted(GAIT_JOINTS + ['latch_joint'])
    assert [n for n in names if n != 'latch_joint'] == GAIT_JOINTS


def test_axes_alternate_pitch_yaw_starting_with_pitch(model):
    kinds = [j.axis_kind for j in model.gait_joints()]
    assert kinds == ['pitch' if k % 2 == 1 else 'yaw' for k in range(1, 12)]


def test_axis_signs_cycle_plus_plus_minus_minus(model):
    signs = [j.axis_sign for j in model.gait_joints()]
    assert signs == [1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0]


def test_axes_are_unit_vectors_along_one_body_axis(model):
    for joint in model.gait_joints():
        axis = np.abs(np.asarray(joint.axis))
        assert sorted(axis.tolist()) == [0.0, 0.0, 1.0], joint.name


def test_total_length_is_1_70_m(model):
    assert model.chain_length_m() == pytest.approx(1.70, abs=0.01)


def test_total_mass_is_6_0_kg(model):
    assert model.total_mass_kg == pytest.approx(6.0, abs=0.05)


def test_body_joint_limits_are_the_servo_datasheet_values(model):
    for joint in model.gait_joints():
        assert joint.limits is not None, joint.name
        assert joint.limits.effort_nm == pytest.approx(10.6)
        assert joint.limits.velocity_rad_s == pytest.approx(4.82)
        assert joint.limits.lower_rad < 0.0 < joint.limits.upper_rad


def test_every_actuated_joint_has_positive_limits(model):
    for joint in model.actuated_joints:
        assert joint.limits is not None, joint.name
        assert joint.limits.lower_rad < joint.limits.upper_rad
        assert joint.limits.effort_nm > 0.0 and joint.limits.velocity_rad_s > 0.0


def test_camera_and_latch_frames_present(model):
    for frame in ('base_link', 'camera_link', 'camera_imu_optical_frame', 'latch_link'):
        assert frame in model.links
    assert model.root == 'base_link'


@pytest.mark.parametrize('frame', ['camera_imu_optical_frame', 'camera_depth_optical_frame',
                                   'camera_color_optical_frame'])
def test_optical_frame_z_axis_points_along_base_link_x(model, frame):
    transform = model.transform('base_link', frame)
    np.testing.assert_allclose(transform[:3, 2], [1.0, 0.0, 0.0], atol=1e-6)
    # optical convention: x right (-y of base), y down (-z of base)
    np.testing.assert_allclose(transform[:3, 0], [0.0, -1.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(transform[:3, 1], [0.0, 0.0, -1.0], atol=1e-6)


def test_color_camera_sits_15_mm_left_of_the_depth_camera(model):
    depth = model.transform('camera_link', 'camera_depth_optical_frame')[:3, 3]
    color = model.transform('camera_link', 'camera_color_optical_frame')[:3, 3]
    np.testing.assert_allclose(color - depth, [0.0, 0.015, 0.0], atol=1e-9)


def test_camera_sits_at_the_front_of_the_head(model):
    transform = model.transform('base_link', 'camera_link')
    assert transform[0, 3] == pytest.approx(0.1)
    # every body link lies behind the head
    for name in ('link_1', 'link_11'):
        assert model.transform('base_link', name)[0, 3] < 0.0


def test_transform_inverse_is_consistent(model):
    forward = model.transform('base_link', 'link_5', {'joint_2': 0.3, 'joint_3': -0.2})
    backward = model.transform('link_5', 'base_link', {'joint_2': 0.3, 'joint_3': -0.2})
    np.testing.assert_allclose(forward @ backward, np.eye(4), atol=1e-12)


def test_yaw_joint_angle_rotates_downstream_link_about_z(model):
    angle = 0.5
    rotated = model.transform('link_1', 'link_2', {'joint_2': angle})
    expected = np.array([[math.cos(angle), -math.sin(angle), 0.0],
                         [math.sin(angle), math.cos(angle), 0.0],
                         [0.0, 0.0, 1.0]])
    np.testing.assert_allclose(rotated[:3, :3], expected, atol=1e-12)
    assert rotated[0, 3] == pytest.approx(-0.136364)


def test_inertia_tensors_positive_definite_and_triangle_inequality(model):
    checked = 0
    for link in model.links.values():
        if link.inertial is None:
            continue
        tensor = link.inertial.inertia
        np.testing.assert_allclose(tensor, tensor.T)
        assert np.all(np.linalg.eigvalsh(tensor) > 0.0), link.name
        ixx, iyy, izz = np.diag(tensor)
        assert ixx + iyy >= izz and iyy + izz >= ixx and izz + ixx >= iyy, link.name
        assert link.inertial.mass_kg > 0.0
        checked += 1
    assert checked == 13  # head, 11 body links, latch


def test_unknown_joint_name_raises():
    model = parse_urdf(_urdf(LINK.format(name='a')))
    with pytest.raises(RobotModelError, match="joint 'nope'"):
        model.joint('nope')


def test_transform_to_unknown_frame_raises(model):
    with pytest.raises(RobotModelError, match="frame 'no_frame'"):
        model.transform('base_link', 'no_frame')


def test_load_from_file_records_source(tmp_path):
    path = tmp_path / 'one.urdf'
    path.write_text(_urdf(LINK.format(name='a') + LINK.format(name='b')
                          + REVOLUTE.format(name='j', parent='a', child='b', limit=LIMIT)))
    model = load_robot_model(path)
    assert model.source == path
    assert model.root == 'a'
    assert model.joint('j').limits.velocity_rad_s == 3.0


def test_missing_file_error_names_the_path(tmp_path):
    missing = tmp_path / 'absent.urdf'
    with pytest.raises(RobotModelError, match='URDF not found') as error:
        load_robot_model(missing)
    assert str(missing) in str(error.value)


def test_cobra_urdf_environment_variable_overrides_default(tmp_path, monkeypatch):
    monkeypatch.setenv('COBRA_URDF', str(tmp_path / 'x.urdf'))
    assert default_urdf_path() == tmp_path / 'x.urdf'
    # COBRA's override: the T-Snake keeps its own URDF (it used to get COBRA's file)
    assert default_urdf_path('tsnake').name == 'tsnake.urdf'


def test_malformed_xml_raises(tmp_path):
    path = tmp_path / 'bad.urdf'
    path.write_text('<robot name="t"><link name="a">')
    with pytest.raises(RobotModelError, match='not valid XML') as error:
        load_robot_model(path)
    assert str(path) in str(error.value)


def test_wrong_root_element_raises():
    with pytest.raises(RobotModelError, match='expected <robot>'):
        parse_urdf('<sdf><link name="a"/></sdf>')


def test_unsupported_collision_geometry_raises():
    body = ('<link name="a"><collision><geometry><capsule radius="0.1" length="0.2"/></geometry>'
            '</collision></link>')
    with pytest.raises(RobotModelError, match="unsupported collision geometry 'capsule'"):
        parse_urdf(_urdf(body))


def write_ascii_stl(path: Path, vertices: np.ndarray) -> None:
    """One facet per consecutive vertex triple."""
    facets = ''.join('facet normal 0 0 1\n outer loop\n' + ''.join(f'  vertex {x} {y} {z}\n' for x, y, z in tri)
                     + ' endloop\nendfacet\n' for tri in vertices.reshape(-1, 3, 3))
    path.write_text(f'solid test\n{facets}endsolid test\n')


def write_binary_stl(path: Path, vertices: np.ndarray) -> None:
    triangles = vertices.reshape(-1, 3, 3).astype('<f4')
    records = b''.join(np.zeros(3, '<f4').tobytes() + tri.tobytes() + b'\0\0' for tri in triangles)
    path.write_bytes(b'solid but binary'.ljust(80, b' ') + len(triangles).to_bytes(4, 'little') + records)


TETRAHEDRON = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0], [1, 0, 0], [0, 0, 1],
                        [0, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)


@pytest.mark.parametrize('writer', [write_ascii_stl, write_binary_stl])
def test_mesh_collision_is_read_with_its_scale_relative_to_the_urdf(tmp_path, writer):
    (tmp_path / 'meshes').mkdir()
    writer(tmp_path / 'meshes' / 'part.stl', TETRAHEDRON)
    urdf = tmp_path / 'robot.urdf'
    urdf.write_text(_urdf('<link name="a"><collision><origin xyz="0.5 0 0"/><geometry>'
                          '<mesh filename="meshes/part.stl" scale="0.2 1 1"/></geometry></collision></link>'))
    model = load_robot_model(urdf)
    shape = model.links['a'].collisions[0]
    assert (shape.kind, shape.size, shape.filename) == ('mesh', (0.2, 1.0, 1.0), 'meshes/part.stl')
    assert model.chain_length_m() == pytest.approx(0.2)  # x from 0.5 to 0.7


def test_missing_mesh_file_is_named(tmp_path):
    urdf = tmp_path / 'robot.urdf'
    urdf.write_text(_urdf('<link name="a"><collision><geometry><mesh filename="nowhere.stl"/>'
                          '</geometry></collision></link>'))
    with pytest.raises(RobotModelError, match='nowhere.stl.*does not exist'):
        load_robot_model(urdf).chain_length_m()


def test_wrong_number_count_in_origin_raises():
    body = ('<link name="a"><collision><origin xyz="0 0"/><geometry><sphere radius="0.1"/>'
            '</geometry></collision></link>')
    with pytest.raises(RobotModelError, match='expected 3 numbers'):
        parse_urdf(_urdf(body))


def test_actuated_joint_without_limit_raises():
    body = LINK.format(name='a') + LINK.format(name='b') + REVOLUTE.format(
        name='j', parent='a', child='b', limit='')
    with pytest.raises(RobotModelError, match="joint 'j' has no <limit>"):
        parse_urdf(_urdf(body))


def test_continuous_joint_without_limit_is_accepted():
    body = LINK.format(name='a') + LINK.format(name='b') + (
        '<joint name="c" type="continuous"><parent link="a"/><child link="b"/></joint>')
    model = parse_urdf(_urdf(body))
    assert model.joint('c').limits is None
    assert model.joint('c').axis == (1.0, 0.0, 0.0)


def test_two_root_links_raise():
    body = LINK.format(name='a') + LINK.format(name='b') + LINK.format(name='c') + REVOLUTE.format(
        name='j', parent='a', child='b', limit=LIMIT)
    with pytest.raises(RobotModelError, match='exactly one root link') as error:
        parse_urdf(_urdf(body))
    assert "'a'" in str(error.value) and "'c'" in str(error.value)


def test_urdf_without_collision_geometry_has_no_length():
    with pytest.raises(RobotModelError, match='no collision geometry'):
        parse_urdf(_urdf(LINK.format(name='a'))).chain_length_m()


def test_box_and_sphere_extents_give_the_chain_length():
    body = ('<link name="a"><collision><geometry><box size="0.4 0.1 0.1"/></geometry></collision></link>'
            '<link name="b"><collision><geometry><sphere radius="0.05"/></geometry></collision></link>'
            '<joint name="f" type="fixed"><parent link="a"/><child link="b"/>'
            '<origin xyz="-0.5 0 0"/></joint>')
    # box spans x in [-0.2, 0.2], sphere in [-0.55, -0.45]
    assert parse_urdf(_urdf(body)).chain_length_m() == pytest.approx(0.75)


def test_inertial_without_mass_raises_robot_model_error():
    """A malformed <inertial> must surface as RobotModelError, which every caller catches."""
    body = ('<link name="a"><inertial><inertia ixx="1" iyy="1" izz="1"/></inertial></link>')
    with pytest.raises(RobotModelError):
        parse_urdf(_urdf(body))
