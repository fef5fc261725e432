"""MJCF generated from the robot's URDF model: no second hand-written model of COBRA.

Links become nested bodies with the URDF inertials and collision shapes; revolute joints become
hinges driven by position servos; fixed child frames (camera, IMU) become sites of their parent
body. The root link floats on a free joint.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

import numpy as np

from cobra_description.robot_model import Geometry, Joint, Pose, RobotModel
from cobra_sim.terrain import TerrainModel


@dataclass(frozen=True)
class ServoParams:
    """Position servo modelled on the XH540: PD gains; torque and speed limits come from the URDF."""

    kp_nm_rad: float = 40.0
    kd_nm_s_rad: float = 0.8
    armature_kg_m2: float = 0.01


def quat_wxyz(rotation: np.ndarray) -> np.ndarray:
    m = rotation
    w = math.sqrt(max(0.0, 1.0 + m[0, 0] + m[1, 1] + m[2, 2])) / 2.0
    x = math.copysign(math.sqrt(max(0.0, 1.0 + m[0, 0] - m[1, 1] - m[2, 2])) / 2.0, m[2, 1] - m[1, 2])
    y = math.copysign(math.sqrt(max(0.0, 1.0 - m[0, 0] + m[1, 1] - m[2, 2])) / 2.0, m[0, 2] - m[2, 0])
    z = math.copysign(math.sqrt(max(0.0, 1.0 - m[0, 0] - m[1, 1] + m[2, 2])) / 2.0, m[1, 0] - m[0, 1])
    return np.array([w, x, y, z])


def _fmt(values: np.ndarray | tuple[float, ...]) -> str:
    return ' '.join(f'{v:.9g}' for v in values)


def _pose_attrs(transform: np.ndarray) -> str:
    return f'pos="{_fmt(transform[:3, 3])}" quat="{_fmt(quat_wxyz(transform[:3, :3]))}"'


def _geom_xml(link_name: str, index: int, shape: Geometry, attributes: dict[str, str],
              offset: np.ndarray) -> str:
    transform = offset @ shape.origin.matrix()
    if shape.kind == 'cylinder':
        size = f'{shape.size[0]:.9g} {shape.size[1] / 2:.9g}'
    elif shape.kind == 'box':
        size = _fmt(np.array(shape.size) / 2)
    else:
        size = f'{shape.size[0]:.9g}'
    extra = ' '.join(f'{k}={quoteattr(v)}' for k, v in attributes.items())
    return (f'<geom name="{link_name}_collision_{index}" type="{shape.kind}" size="{size}" '
            f'{_pose_attrs(transform)} {extra}/>')


def build_mjcf(robot: RobotModel, terrain: TerrainModel, servo: ServoParams,
               timestep_s: float, initial_height_m: float, imu_frame: str) -> str:
    """The complete MJCF document for `robot` on `terrain`, with a gyro and accelerometer at `imu_frame`."""
    children: dict[str, list[Joint]] = {}
    for joint in robot.joints:
        children.setdefault(joint.parent, []).append(joint)
    actuators: list[str] = []

    def body_contents(link_name: str, offset: np.ndarray) -> list[str]:
        """Inertial, geoms and sites of a link (and of links fixed to it), then moving children."""
        link = robot.links[link_name]
        lines: list[str] = []
        if link.inertial is not None and link.inertial.mass_kg > 0.0:
            frame = offset @ link.inertial.origin.matrix()
            inertia = frame[:3, :3] @ link.inertial.inertia @ frame[:3, :3].T
            full_inertia = inertia[[0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]]  # xx yy zz xy xz yz
            lines.append(f'<inertial pos="{_fmt(frame[:3, 3])}" mass="{link.inertial.mass_kg:.9g}" '
                         f'fullinertia="{_fmt(full_inertia)}"/>')
            for index, shape in enumerate(link.collisions):
                lines.append(_geom_xml(link_name, index, shape,
                                       terrain.robot_geom_attributes(link.inertial.mass_kg, timestep_s), offset))
        lines.append(f'<site name="{link_name}" {_pose_attrs(offset)} size="0.005"/>')
        for joint in children.get(link_name, []):
            joint_frame = offset @ joint.origin.matrix()
            if joint.type == 'fixed':
                lines.extend(body_contents(joint.child, joint_frame))
                continue
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

    root_pose = Pose((0.0, 0.0, initial_height_m)).matrix()
    robot_body = '\n'.join(body_contents(robot.root, np.eye(4)))
    option_extra = ''.join(f' {k}={quoteattr(v)}' for k, v in terrain.option_attributes().items())
    return f'''<mujoco model={quoteattr(robot.name)}>
  <compiler angle="radian" autolimits="true"/>
  <option timestep="{timestep_s:.9g}" integrator="implicitfast" gravity="0 0 -9.81"{option_extra}/>
  <worldbody>
    <light pos="0 0 3" dir="0 0 -1"/>
    {terrain.world_xml()}
    <body name="{robot.root}" {_pose_attrs(root_pose)}>
      <freejoint name="root"/>
{robot_body}
    </body>
  </worldbody>
  <actuator>
    {chr(10).join(actuators)}
  </actuator>
  <sensor>
    <gyro name="imu_gyro" site="{imu_frame}"/>
    <accelerometer name="imu_accel" site="{imu_frame}"/>
  </sensor>
</mujoco>
'''

