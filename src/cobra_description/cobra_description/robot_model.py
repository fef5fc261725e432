"""Pure-Python view of a robot URDF: links, joints, axes, limits and fixed-frame transforms.

Gaits, simulation, driver and odometry all read the robot from here, so the URDF stays the
single source of its numbers. No ROS imports: only the standard library and numpy.
"""

from __future__ import annotations

import functools
import math
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from cobra_common.rotations import matrix_about_axis, matrix_from_rpy

DEFAULT_ROBOT = 'cobra'
URDF_PATH_ENV = 'COBRA_URDF'
LATCH_JOINT = 'latch_joint'  # the head-tail latch: an end effector, not part of the gait vector
IMU_FRAMES = ('camera_imu_optical_frame', 'imu_link')  # COBRA's D435i IMU, the T-Snake's head IMU
START_CLEARANCE_M = 0.002  # the sim drops a robot from this high above its lowest point


class RobotModelError(ValueError):
    """The URDF is missing or does not describe a usable robot."""


@dataclass(frozen=True)
class Pose:
    xyz: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rpy: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def matrix(self) -> np.ndarray:
        """Homogeneous transform child-in-parent (URDF fixed-axis roll-pitch-yaw); a fresh copy of
        the one worked out per pose (forward kinematics asks for it every call)."""
        return _pose_matrix(self.xyz, self.rpy).copy()


@functools.lru_cache(maxsize=4096)
def _pose_matrix(xyz: tuple[float, float, float], rpy: tuple[float, float, float]) -> np.ndarray:
    transform = np.eye(4)
    transform[:3, :3] = matrix_from_rpy(*rpy)
    transform[:3, 3] = xyz
    transform.setflags(write=False)
    return transform


@dataclass(frozen=True)
class Geometry:
    kind: str  # 'box' | 'cylinder' | 'sphere' | 'mesh'
    size: tuple[float, ...]  # box: full extents xyz; cylinder: (radius, length); sphere: (radius,); mesh: scale xyz
    origin: Pose
    filename: str = ''  # mesh only: the URDF's filename (package://, file:// or relative to the URDF)


@dataclass(frozen=True)
class Inertial:
    mass_kg: float
    origin: Pose
    inertia: np.ndarray  # 3x3 about the inertial origin, in the inertial frame


@dataclass(frozen=True)
class Link:
    name: str
    inertial: Inertial | None
    collisions: tuple[Geometry, ...]


@dataclass(frozen=True)
class JointLimits:
    lower_rad: float
    upper_rad: float
    effort_nm: float
    velocity_rad_s: float


@dataclass(frozen=True)
class Joint:
    name: str
    type: str
    parent: str
    child: str
    origin: Pose
    axis: tuple[float, float, float]
    limits: JointLimits | None
    damping: float = 0.0

    @property
    def is_actuated(self) -> bool:
        return self.type in ('revolute', 'continuous', 'prismatic')

    @property
    def axis_kind(self) -> str:
        """'pitch', 'yaw' or 'roll' after the dominant component of the joint axis."""
        index = int(np.argmax(np.abs(self.axis)))
        return ('roll', 'pitch', 'yaw')[index]

    @property
    def axis_sign(self) -> float:
        return float(np.sign(self.axis[int(np.argmax(np.abs(self.axis)))]))


@dataclass
class RobotModel:
    name: str
    links: dict[str, Link]
    joints: list[Joint]
    root: str
    source: Path | None = None
    _by_child: dict[str, Joint] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_child = {joint.child: joint for joint in self.joints}

    def joint(self, name: str) -> Joint:
        for joint in self.joints:
            if joint.name == name:
                return joint
        raise RobotModelError(f"joint '{name}' is not in the URDF of '{self.name}'")

    @property
    def actuated_joints(self) -> list[Joint]:
        """Actuated joints in depth-first chain order from the root (head to tail)."""
        return [j for j in self.chain_joints() if j.is_actuated]

    def gait_joints(self, exclude: tuple[str, ...] = (LATCH_JOINT,)) -> list[Joint]:
        """The joint vector a gait drives: actuated joints without end-effector joints."""
        return [j for j in self.actuated_joints if j.name not in exclude]

    def chain_joints(self) -> list[Joint]:
        ordered: list[Joint] = []
        children: dict[str, list[Joint]] = {}
        for joint in self.joints:
            children.setdefault(joint.parent, []).append(joint)

        def visit(link_name: str) -> None:
            # the main chain (a child with children of its own) first, then leaf joints
            for joint in sorted(children.get(link_name, []),
                                key=lambda j: (not children.get(j.child), j.name)):
                ordered.append(joint)
                visit(joint.child)

        visit(self.root)
        return ordered

    @property
    def total_mass_kg(self) -> float:
        return sum(link.inertial.mass_kg for link in self.links.values() if link.inertial)

    def transform(self, from_frame: str, to_frame: str,
                  joint_positions: dict[str, float] | None = None) -> np.ndarray:
        """Pose of `to_frame` expressed in `from_frame` (4x4), joints at the given angles."""
        return np.linalg.inv(self._root_to(from_frame, joint_positions)) @ \
            self._root_to(to_frame, joint_positions)

    def _root_to(self, frame: str, joint_positions: dict[str, float] | None) -> np.ndarray:
        if frame not in self.links:
            raise RobotModelError(f"frame '{frame}' is not a link of '{self.name}'")
        transform = np.eye(4)
        while frame != self.root:
            joint = self._by_child[frame]
            step = joint.origin.matrix()
            angle = (joint_positions or {}).get(joint.name, 0.0)
            if joint.type in ('revolute', 'continuous') and angle:
                motion = np.eye(4)
                motion[:3, :3] = matrix_about_axis(joint.axis, angle)
                step = step @ motion
            transform = step @ transform
            frame = joint.parent
        return transform

    @property
    def imu_frame(self) -> str:
        """The frame a simulated IMU sits at: the URDF's IMU link (COBRA's RealSense IMU, the
        T-Snake's imu_link), else the root."""
        return next((name for name in IMU_FRAMES if name in self.links), self.root)

    def lowest_point_m(self, joint_positions: dict[str, float] | None = None) -> float:
        """Lowest z of the collision geometry in the root frame (the robot's height above ground
        when its root sits at z = 0): a start height that neither buries nor drops the robot."""
        lowest = math.inf
        for link_name, link in self.links.items():
            origin = self._root_to(link_name, joint_positions)
            for shape in link.collisions:
                frame = origin @ shape.origin.matrix()
                up = frame[2, :3]  # world z in the shape's axes
                if shape.kind == 'mesh':
                    vertices = read_mesh_vertices(resolve_resource(shape.filename, self.source)) * shape.size
                    depth = -float((vertices @ up).min())
                elif shape.kind == 'cylinder':
                    depth = shape.size[0] * math.sqrt(max(0.0, 1.0 - up[2] ** 2)) + shape.size[1] / 2 * abs(up[2])
                elif shape.kind == 'box':
                    depth = float(np.abs(up) @ (np.array(shape.size) / 2))
                else:
                    depth = shape.size[0]
                lowest = min(lowest, frame[2, 3] - depth)
        if lowest == math.inf:
            raise RobotModelError('the URDF has no collision geometry to stand on')
        return float(lowest)

    def chain_length_m(self) -> float:
        """Head-to-tail length along the zero-angle chain, including the end links' extents."""
        points = []
        for link_name, link in self.links.items():
            origin = self._root_to(link_name, None)
            for shape in link.collisions:
                frame = origin @ shape.origin.matrix()
                if shape.kind == 'mesh':
                    vertices = read_mesh_vertices(resolve_resource(shape.filename, self.source)) * shape.size
                    points.extend(vertices @ frame[:3, :3].T + frame[:3, 3])
                    continue
                axis = frame[:3, :3] @ _half_extent_along_axis(shape)
                points.append(frame[:3, 3] + axis)
                points.append(frame[:3, 3] - axis)
        if not points:
            raise RobotModelError('the URDF has no collision geometry to measure')
        xs = np.array(points)[:, 0]
        return float(xs.max() - xs.min())


def _half_extent_along_axis(shape: Geometry) -> np.ndarray:
    if shape.kind == 'cylinder':
        return np.array([0.0, 0.0, shape.size[1] / 2])
    if shape.kind == 'box':
        return np.array(shape.size) / 2
    return np.array([shape.size[0], 0.0, 0.0])


def resolve_resource(uri: str, urdf_path: Path | None) -> Path:
    """The file a URDF resource names: package://<pkg>/<path> through the ament index (the
    installed share directory of <pkg>), file://<absolute path>, or a path relative to the URDF."""
    if uri.startswith('package://'):
        package, _, relative = uri[len('package://'):].partition('/')
        try:
            from ament_index_python.packages import get_package_share_directory
            share = Path(get_package_share_directory(package))
        except (ImportError, LookupError, ValueError, OSError) as error:
            raise RobotModelError(
                f"mesh '{uri}': package '{package}' is not found in the ament index ({error}); "
                f'build and source the workspace that installs it, or use a file path') from error
        path = share / relative
    elif uri.startswith('file://'):
        path = Path(uri[len('file://'):])
    else:
        path = Path(uri)
        if not path.is_absolute():
            path = (urdf_path.parent if urdf_path is not None else Path.cwd()) / path
    if not path.is_file():
        raise RobotModelError(f"mesh '{uri}' resolves to {path}, which does not exist: fix the "
                              f'filename or install the package that holds it')
    return path


def read_mesh_vertices(path: Path) -> np.ndarray:
    """[n, 3] vertices of a binary or ASCII STL or a Wavefront OBJ file, in the file's units."""
    data = path.read_bytes()
    suffix = path.suffix.lower()
    if suffix == '.obj':
        rows = [line.split()[1:4] for line in data.decode('utf-8', 'replace').splitlines()
                if line.startswith('v ')]
        vertices = np.array(rows, dtype=float).reshape(-1, 3)
    elif suffix == '.stl':
        if is_ascii_stl(data):
            rows = [line.split()[1:4] for line in data.decode('ascii', 'replace').splitlines()
                    if line.strip().startswith('vertex')]
            vertices = np.array(rows, dtype=float).reshape(-1, 3)
        else:
            count = int.from_bytes(data[80:84], 'little')
            if len(data) < 84 + 50 * count:
                raise RobotModelError(f'mesh {path}: binary STL shorter than its {count} triangles')
            records = np.frombuffer(data, dtype=np.dtype([('normal', '<f4', 3), ('vertices', '<f4', (3, 3)),
                                                         ('attribute', '<u2')]), count=count, offset=84)
            vertices = records['vertices'].reshape(-1, 3).astype(float)
    else:
        raise RobotModelError(f"mesh {path}: unsupported format '{suffix}': use STL or OBJ")
    if len(vertices) == 0:
        raise RobotModelError(f'mesh {path} has no vertices')
    return vertices


def is_ascii_stl(data: bytes) -> bool:
    """ASCII STL starts with 'solid' and its size does not match the binary triangle count."""
    if not data[:5].lower() == b'solid':
        return False
    if len(data) >= 84 and len(data) == 84 + 50 * int.from_bytes(data[80:84], 'little'):
        return False  # a binary file whose 80-byte header happens to start with 'solid'
    return True


def _floats(text: str | None, count: int, default: float = 0.0) -> tuple[float, ...]:
    if text is None:
        return (default,) * count
    values = tuple(float(v) for v in text.split())
    if len(values) != count:
        raise RobotModelError(f"expected {count} numbers, got '{text}'")
    return values


def _pose(element: ET.Element | None) -> Pose:
    if element is None:
        return Pose()
    return Pose(_floats(element.get('xyz'), 3), _floats(element.get('rpy'), 3))


def _geometry(element: ET.Element) -> Geometry | None:
    geometry = element.find('geometry')
    if geometry is None or len(geometry) == 0:
        return None
    shape = geometry[0]
    origin = _pose(element.find('origin'))
    if shape.tag == 'box':
        return Geometry('box', _floats(shape.get('size'), 3), origin)
    if shape.tag == 'cylinder':
        return Geometry('cylinder', (float(shape.get('radius')), float(shape.get('length'))), origin)
    if shape.tag == 'sphere':
        return Geometry('sphere', (float(shape.get('radius')),), origin)
    if shape.tag == 'mesh':
        if not shape.get('filename'):
            raise RobotModelError('a collision <mesh> has no filename attribute')
        return Geometry('mesh', _floats(shape.get('scale'), 3, 1.0), origin, shape.get('filename'))
    raise RobotModelError(f"unsupported collision geometry '{shape.tag}': use box, cylinder, sphere or mesh")


def parse_urdf(text: str, source: Path | None = None) -> RobotModel:
    try:
        robot = ET.fromstring(text)
    except ET.ParseError as error:
        raise RobotModelError(f'URDF {source or ""} is not valid XML: {error}') from error
    if robot.tag != 'robot':
        raise RobotModelError(f"URDF {source or ''} has root <{robot.tag}>, expected <robot>")
    try:
        return _parse_robot(robot, source)
    except (AttributeError, TypeError, ValueError) as error:
        if isinstance(error, RobotModelError):
            raise
        raise RobotModelError(f'URDF {source or ""} lacks a required element or attribute, or has a '
                              f'malformed number ({error}): check every <link>, <joint>, <inertial> '
                              f'and <geometry> against the URDF specification') from error


def _parse_robot(robot: ET.Element, source: Path | None) -> RobotModel:
    links: dict[str, Link] = {}
    for element in robot.findall('link'):
        inertial = None
        inertial_element = element.find('inertial')
        if inertial_element is not None:
            mass = float(inertial_element.find('mass').get('value'))
            i = inertial_element.find('inertia')
            ixx, iyy, izz = (float(i.get(k, 0)) for k in ('ixx', 'iyy', 'izz'))
            ixy, ixz, iyz = (float(i.get(k, 0)) for k in ('ixy', 'ixz', 'iyz'))
            tensor = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
            inertial = Inertial(mass, _pose(inertial_element.find('origin')), tensor)
        collisions = tuple(g for g in (_geometry(c) for c in element.findall('collision')) if g)
        links[element.get('name')] = Link(element.get('name'), inertial, collisions)
    joints: list[Joint] = []
    for element in robot.findall('joint'):
        limit = element.find('limit')
        limits = None
        if limit is not None:
            limits = JointLimits(float(limit.get('lower', 0)), float(limit.get('upper', 0)),
                                 float(limit.get('effort', 0)), float(limit.get('velocity', 0)))
        dynamics = element.find('dynamics')
        axis_element = element.find('axis')
        joints.append(Joint(
            name=element.get('name'), type=element.get('type'),
            parent=element.find('parent').get('link'), child=element.find('child').get('link'),
            origin=_pose(element.find('origin')),
            axis=_floats(axis_element.get('xyz') if axis_element is not None else None, 3)
            if axis_element is not None else (1.0, 0.0, 0.0),
            limits=limits,
            damping=float(dynamics.get('damping', 0)) if dynamics is not None else 0.0))
    children = {j.child for j in joints}
    roots = [name for name in links if name not in children]
    if len(roots) != 1:
        raise RobotModelError(f'URDF {source or ""} must have exactly one root link, found {roots}')
    for joint in joints:
        if joint.is_actuated and joint.type != 'continuous' and joint.limits is None:
            raise RobotModelError(f"joint '{joint.name}' has no <limit>: every actuated joint needs one")
    return RobotModel(robot.get('name', ''), links, joints, roots[0], source)


def default_urdf_path(robot: str = DEFAULT_ROBOT) -> Path:
    """$COBRA_URDF for COBRA (a test or a modified robot), else the installed URDF (ament index),
    else the source tree's copy. The override is COBRA's alone: the T-Snake always loads its own."""
    override = os.environ.get(URDF_PATH_ENV) if robot == DEFAULT_ROBOT else None
    if override:
        return Path(override)
    try:
        from ament_index_python.packages import get_package_share_directory
        candidate = Path(get_package_share_directory('cobra_description')) / 'urdf' / f'{robot}.urdf'
        if candidate.exists():
            return candidate
    except (ImportError, LookupError, ValueError, OSError):
        pass
    return Path(__file__).resolve().parents[1] / 'urdf' / f'{robot}.urdf'  # the package's own folder


def load_robot_model(path: str | Path | None = None) -> RobotModel:
    urdf_path = Path(path) if path else default_urdf_path()
    if not urdf_path.is_file():
        raise RobotModelError(
            f'URDF not found: {urdf_path}. Pass an existing file (parameter urdf_path) '
            f'or build the workspace so that cobra_description is installed.')
    return parse_urdf(urdf_path.read_text(), urdf_path)
