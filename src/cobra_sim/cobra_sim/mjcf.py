"""MJCF generated from the robot's URDF model: no second hand-written model of COBRA.

Links become nested bodies with the URDF inertials and collision shapes (primitives, or STL/OBJ
meshes resolved through package://, file:// or the URDF's directory); revolute joints become
hinges driven by position servos; links on fixed joints (camera, IMU, a bracket with its own
mass) are lumped into their parent body: one inertial (parallel-axis sum), their geoms, and a
site per link frame. The root link floats on a free joint. Inertia never comes from geometry.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np
from cobra_common.rotations import quaternion_from_matrix, wxyz_from_xyzw

from cobra_description.robot_model import (Geometry, Joint, RobotModel, RobotModelError, is_ascii_stl,
                                           read_mesh_vertices, resolve_resource)
from cobra_sim.terrain import TerrainModel


HEAD_LATCH_FRAME = 'head_latch_link'  # URDF frames the latch joins (issue 9 design)
TAIL_LATCH_FRAME = 'tail_latch_link'
LATCH_WELD = 'latch'  # the MJCF weld equality between their bodies, inactive at start
# weld softness: time constant 5 ms (>= 2 physics steps at 1 ms, MuJoCo's stability rule of
# thumb), critically damped; the default 20 ms let a loaded loop's latch gape by centimetres
LATCH_WELD_SOLREF = (0.005, 1.0)


def body_of_link(robot: RobotModel, link_name: str) -> str:
    """The MJCF body that holds `link_name`: the link itself if it moves, else the nearest
    ancestor reached through fixed joints (fixed links are lumped into their parent)."""
    by_child = {joint.child: joint for joint in robot.joints}
    while link_name in by_child and by_child[link_name].type == 'fixed':
        link_name = by_child[link_name].parent
    return link_name


def latch_weld_xml(robot: RobotModel) -> str:
    """<equality> and <contact> for the head-tail latch, or '' when the URDF has no latch frames.

    The weld is declared inactive; the engine sets its relative pose from the bodies' pose at
    engagement and toggles eq_active. The two latched bodies' own contact is excluded: the latch
    mechanism, not a face-to-face collision, carries the load between them.
    """
    if HEAD_LATCH_FRAME not in robot.links or TAIL_LATCH_FRAME not in robot.links:
        return ''
    head_body, tail_body = body_of_link(robot, HEAD_LATCH_FRAME), body_of_link(robot, TAIL_LATCH_FRAME)
    return (f'<equality><weld name="{LATCH_WELD}" body1="{head_body}" body2="{tail_body}" active="false" '
            f'solref="{_fmt(LATCH_WELD_SOLREF)}"/></equality>\n'
            f'  <contact><exclude body1="{head_body}" body2="{tail_body}"/></contact>')


@dataclass(frozen=True)
class ServoParams:
    """Position servo modelled on the XH540: PD gains; torque and speed limits come from the URDF."""

    kp_nm_rad: float = 40.0
    kd_nm_s_rad: float = 0.8
    armature_kg_m2: float = 0.01


def _fmt(values: np.ndarray | tuple[float, ...]) -> str:
    return ' '.join(f'{v:.9g}' for v in values)


def _pose_attrs(transform: np.ndarray) -> str:
    return f'pos="{_fmt(transform[:3, 3])}" quat="{_fmt(wxyz_from_xyzw(quaternion_from_matrix(transform[:3, :3])))}"'


def _geom_xml(name: str, shape: Geometry, attributes: dict[str, str], offset: np.ndarray,
              mesh_name: str = '') -> str:
    transform = offset @ shape.origin.matrix()
    if shape.kind == 'mesh':
        shape_attrs = f'type="mesh" mesh="{mesh_name}"'
    elif shape.kind == 'cylinder':
        shape_attrs = f'type="cylinder" size="{shape.size[0]:.9g} {shape.size[1] / 2:.9g}"'
    elif shape.kind == 'box':
        shape_attrs = f'type="box" size="{_fmt(np.array(shape.size) / 2)}"'
    else:
        shape_attrs = f'type="{shape.kind}" size="{shape.size[0]:.9g}"'
    extra = ' '.join(f'{k}={quoteattr(v)}' for k, v in attributes.items())
    return f'<geom name="{name}" {shape_attrs} {_pose_attrs(transform)} {extra}/>'


def mesh_asset_xml(name: str, shape: Geometry, urdf_path: Path | None) -> str:
    """<mesh> asset for a URDF mesh: MuJoCo reads binary STL and OBJ files itself; ASCII STL,
    which it cannot read, goes in as inline vertices (collision uses the convex hull anyway)."""
    path = resolve_resource(shape.filename, urdf_path)
    scale = f'scale="{_fmt(shape.size)}"'
    if path.suffix.lower() == '.stl' and is_ascii_stl(path.read_bytes()):
        vertices = np.unique(read_mesh_vertices(path), axis=0)
        return f'<mesh name="{name}" vertex="{_fmt(vertices.ravel())}" {scale}/>'
    if path.suffix.lower() not in ('.stl', '.obj'):
        raise RobotModelError(f"mesh '{shape.filename}': unsupported format '{path.suffix}': use STL or OBJ")
    return f'<mesh name="{name}" file={quoteattr(str(path))} {scale}/>'


@dataclass
class _LumpedBody:
    """What one MuJoCo body holds: a link and every link fixed to it (URDF fixed joints)."""

    masses_kg: list[float] = field(default_factory=list)
    centres_m: list[np.ndarray] = field(default_factory=list)   # in body axes
    inertias: list[np.ndarray] = field(default_factory=list)    # about each centre, body axes
    geoms: list[tuple[str, Geometry, np.ndarray, str]] = field(default_factory=list)  # name, shape, frame, mesh
    sites: list[str] = field(default_factory=list)

    def inertial_xml(self) -> str:
        """One <inertial>: total mass, common centre, parallel-axis sum of the parts' inertias."""
        mass = sum(self.masses_kg)
        if mass <= 0.0:
            return ''
        centre = sum(m * c for m, c in zip(self.masses_kg, self.centres_m)) / mass
        inertia = np.zeros((3, 3))
        for m, c, tensor in zip(self.masses_kg, self.centres_m, self.inertias):
            arm = c - centre
            inertia += tensor + m * (arm @ arm * np.eye(3) - np.outer(arm, arm))
        full_inertia = inertia[[0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]]  # xx yy zz xy xz yz
        return f'<inertial pos="{_fmt(centre)}" mass="{mass:.9g}" fullinertia="{_fmt(full_inertia)}"/>'


def build_mjcf(robot: RobotModel, terrain: TerrainModel, servo: ServoParams,
               timestep_s: float, initial_height_m: float, imu_frame: str,
               start_xy_yaw: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> str:
    """The complete MJCF document for `robot` on `terrain`, with a gyro and accelerometer at `imu_frame`.

    The root starts `initial_height_m` above the ground along its normal, oriented as the ground
    (`terrain.surface_rotation()`): on a slope the robot lies on the plane, head pointing downhill;
    `start_xy_yaw` moves it within the ground plane (x, y [m]) and turns it about the normal (yaw [rad]).
    """
    children: dict[str, list[Joint]] = {}
    for joint in robot.joints:
        children.setdefault(joint.parent, []).append(joint)
    actuators: list[str] = []
    assets: list[str] = []

    def lump(link_name: str, offset: np.ndarray, body: _LumpedBody, moving: list[tuple[Joint, np.ndarray]]) -> None:
        """Add a link and its fixed descendants to `body`; collect the moving joints below them."""
        link = robot.links[link_name]
        if link.inertial is not None and link.inertial.mass_kg > 0.0:
            frame = offset @ link.inertial.origin.matrix()
            body.masses_kg.append(link.inertial.mass_kg)
            body.centres_m.append(frame[:3, 3])
            body.inertias.append(frame[:3, :3] @ link.inertial.inertia @ frame[:3, :3].T)
        for index, shape in enumerate(link.collisions):
            name = f'{link_name}_collision_{index}'
            mesh_name = ''
            if shape.kind == 'mesh':
                mesh_name = f'{name}_mesh'
                assets.append(mesh_asset_xml(mesh_name, shape, robot.source))
            body.geoms.append((name, shape, offset, mesh_name))
        body.sites.append(f'<site name="{link_name}" {_pose_attrs(offset)} size="0.005"/>')
        for joint in children.get(link_name, []):
            joint_frame = offset @ joint.origin.matrix()
            if joint.type == 'fixed':
                lump(joint.child, joint_frame, body, moving)
            else:
                moving.append((joint, joint_frame))

    def body_contents(link_name: str, offset: np.ndarray) -> list[str]:
        """One inertial, the geoms and sites of a link and the links fixed to it, then moving children."""
        body = _LumpedBody()
        moving: list[tuple[Joint, np.ndarray]] = []
        lump(link_name, offset, body, moving)
        body_mass_kg = sum(body.masses_kg)
        lines = [body.inertial_xml()] if body_mass_kg > 0.0 else []
        attributes = terrain.robot_geom_attributes(body_mass_kg, timestep_s)
        lines.extend(_geom_xml(name, shape, attributes, frame, mesh_name)
                     for name, shape, frame, mesh_name in body.geoms)
        lines.extend(body.sites)
        for joint, joint_frame in moving:
            if joint.type not in ('revolute', 'continuous'):
                raise ValueError(f"joint '{joint.name}': only revolute, continuous and fixed joints are simulated")
            limits = joint.limits
            range_attr = (f' range="{limits.lower_rad:.9g} {limits.upper_rad:.9g}" limited="true"'
                          if joint.type == 'revolute' else '')
            lines.append(f'<body name="{joint.child}" {_pose_attrs(joint_frame)}>')
            lines.append(f'<joint name="{joint.name}" type="hinge" axis="{_fmt(joint.axis)}"{range_attr} '
                         f'damping="{joint.damping:.9g}" armature="{servo.armature_kg_m2:.9g}"/>')
            lines.extend(body_contents(joint.child, np.eye(4)))
            lines.append('</body>')
            actuators.append(
                f'<position name="{joint.name}" joint="{joint.name}" kp="{servo.kp_nm_rad:.9g}" '
                f'kv="{servo.kd_nm_s_rad:.9g}" forcelimited="true" '
                f'forcerange="{-limits.effort_nm:.9g} {limits.effort_nm:.9g}"/>')
        return lines

    root_pose = np.eye(4)
    start_x_m, start_y_m, start_yaw_rad = start_xy_yaw
    cos_yaw, sin_yaw = math.cos(start_yaw_rad), math.sin(start_yaw_rad)
    yaw = np.array([[cos_yaw, -sin_yaw, 0.0], [sin_yaw, cos_yaw, 0.0], [0.0, 0.0, 1.0]])
    root_pose[:3, :3] = terrain.surface_rotation() @ yaw
    root_pose[:3, 3] = terrain.surface_rotation() @ np.array([start_x_m, start_y_m, initial_height_m])
    robot_body = '\n'.join(body_contents(robot.root, np.eye(4)))
    option_extra = ''.join(f' {k}={quoteattr(v)}' for k, v in terrain.option_attributes().items())
    return f'''<mujoco model={quoteattr(robot.name)}>
  <compiler angle="radian" autolimits="true" inertiafromgeom="false"/>
  <asset>
    {chr(10).join(assets)}
  </asset>
  <option timestep="{timestep_s:.9g}" integrator="implicitfast" gravity="0 0 -9.81"{option_extra}/>
  <worldbody>
    <light pos="0 0 3" dir="0 0 -1"/>
    {terrain.world_xml()}
    <body name="{robot.root}" {_pose_attrs(root_pose)}>
      <freejoint name="root"/>
{robot_body}
    </body>
  </worldbody>
  {latch_weld_xml(robot)}
  <actuator>
    {chr(10).join(actuators)}
  </actuator>
  <sensor>
    <gyro name="imu_gyro" site="{imu_frame}"/>
    <accelerometer name="imu_accel" site="{imu_frame}"/>
  </sensor>
</mujoco>
'''

