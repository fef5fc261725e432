"""Did a body fall through or off the ground? A pure check for the run summary and the report.

A body further below the terrain's plane than its own size went through or off the ground, and the
run's numbers are meaningless (a PROBLEM line). No ROS, no bag I/O: callers hand in arrays (see
`robot_body_tracks`). Design notes: the package README, "cobra_analysis.ground_check".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import yaml

if TYPE_CHECKING:
    from cobra_description.robot_model import RobotModel

HEAD_ONLY_SIZE_M = 0.5  # the head's size when no URDF says it (COBRA's head link: 0.22 m)
MAX_SAMPLES = 600       # forward kinematics on at most this many instants (a sunk body stays sunk)


@dataclass(frozen=True)
class GroundPlane:
    """The undeformed ground: z = level_m - x tan(slope_deg) (the rigid slope descends along +x)."""

    level_m: float = 0.0
    slope_deg: float = 0.0
    terrain: str = ''   # for the message: 'rigid', 'scm', 'compliant', '' when unknown

    def height_m(self, x_m: np.ndarray) -> np.ndarray:
        return self.level_m - np.asarray(x_m, dtype=float) * math.tan(math.radians(self.slope_deg))


@dataclass(frozen=True)
class BodyTrack:
    """One body's reference point over time, world frame (the sim's odom frame)."""

    name: str
    size_m: float
    times_s: np.ndarray     # (N,)
    position_m: np.ndarray  # (N, 3)


def ground_from_custom_data(custom_data: Mapping[str, str]) -> GroundPlane:
    """The ground a sim bag ran on, from its custom_data (cobra.terrain, cobra.slope_deg,
    cobra.terrain_file): the soil file's level when that file can still be read, else z = 0 (every
    shipped terrain file's level)."""
    terrain = (custom_data.get('cobra.terrain') or '').split(' ')[0]
    try:
        slope_deg = float(custom_data.get('cobra.slope_deg') or 0.0)
    except ValueError:
        slope_deg = 0.0
    level_m = 0.0
    terrain_file = custom_data.get('cobra.terrain_file')
    if terrain_file:
        level_m = _level_in_terrain_file(Path(terrain_file), terrain)
    return GroundPlane(level_m, slope_deg if math.isfinite(slope_deg) else 0.0, terrain)


def _level_in_terrain_file(path: Path, terrain: str) -> float:
    """grid.reference_level_m of an SCM file, compliant.ground_level_m of a compliant one; 0 if the
    file is gone or does not say (the report may run far from where the bag was recorded)."""
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        return 0.0
    if not isinstance(data, dict):
        return 0.0
    section, key = ('compliant', 'ground_level_m') if terrain == 'compliant' else ('grid', 'reference_level_m')
    value = (data.get(section) or {}).get(key, 0.0) if isinstance(data.get(section) or {}, dict) else 0.0
    try:
        level = float(value)
    except (TypeError, ValueError):
        return 0.0
    return level if math.isfinite(level) else 0.0


def sunk_body_problems(tracks: Sequence[BodyTrack], ground: GroundPlane, time_origin_s: float = 0.0,
                       clock: str = '') -> list[str]:
    """One PROBLEM line per body that got further below the ground than its own size; times as
    t = stamp - time_origin_s (the report gives its gait start and names that clock in `clock`)."""
    problems = []
    for track in tracks:
        if len(track.times_s) == 0:
            continue
        depth_m = ground.height_m(track.position_m[:, 0]) - track.position_m[:, 2]
        deep = np.flatnonzero(~(depth_m <= track.size_m))   # NaN positions count as lost too
        if len(deep) == 0:
            continue
        first = int(deep[0])
        deepest = int(deep[np.argmax(np.nan_to_num(depth_m[deep], nan=np.inf))])
        x, y, z = track.position_m[first]
        on = f' ({ground.terrain})' if ground.terrain else ''
        problems.append(
            f'PROBLEM {track.name} went through or off the ground{on}: at t = '
            f'{track.times_s[first] - time_origin_s:.2f} s{clock} it was '
            f'{_length(depth_m[first])} below the ground level at (x, y) = ({x:.2f}, {y:.2f}) m (z = {z:.3f} m), '
            f'more than its own size ({track.size_m:.2f} m); deepest {_length(depth_m[deepest])} at '
            f't = {track.times_s[deepest] - time_origin_s:.2f} s. The run\'s distance and speeds are meaningless '
            '(a body off a finite terrain, or through it: check the terrain and the start pose)')
    return problems


def _length(metres: float) -> str:
    if not math.isfinite(metres):
        return 'an unknown distance (position not finite)'
    return f'{metres / 1000:.1f} km' if abs(metres) >= 1000 else f'{metres:.3f} m'


def body_sizes_m(model: RobotModel) -> dict[str, tuple[np.ndarray, float]]:
    """Per link with collision geometry: (reference point in the link frame = centre of its
    shapes' centres, size = diameter of the sphere about that point holding every shape)."""
    sizes = {}
    for name, link in model.links.items():
        if not link.collisions:
            continue
        centres = np.array([shape.origin.xyz for shape in link.collisions], dtype=float)
        centre = centres.mean(axis=0)
        radius = max(float(np.linalg.norm(c - centre)) + _bounding_radius_m(shape)
                     for c, shape in zip(centres, link.collisions))
        sizes[name] = (centre, 2.0 * radius)
    return sizes


def _bounding_radius_m(shape) -> float:
    if shape.kind == 'box':
        return 0.5 * float(np.linalg.norm(shape.size))
    if shape.kind == 'cylinder':
        return math.hypot(shape.size[0], 0.5 * shape.size[1])
    if shape.kind == 'sphere':
        return float(shape.size[0])
    return 0.1 * max(1.0, float(np.max(np.abs(shape.size))))   # a mesh: its scale says little; 0.1 m per unit


def _sample_rows(times_s: np.ndarray, max_samples: int) -> np.ndarray:
    """Indices of at most max_samples instants spread over the track (always the last one)."""
    count = len(times_s)
    if count <= max_samples:
        return np.arange(count)
    return np.unique(np.linspace(0, count - 1, max_samples).round().astype(int))


def _nearest_rows(times_s: np.ndarray, instants_s: np.ndarray) -> np.ndarray:
    """For each instant, the index of the nearest of the sorted times_s."""
    after = np.clip(np.searchsorted(times_s, instants_s), 1, len(times_s) - 1) if len(times_s) > 1 \
        else np.zeros(len(instants_s), dtype=int)
    if len(times_s) <= 1:
        return after
    before = after - 1
    return np.where(np.abs(times_s[before] - instants_s) <= np.abs(times_s[after] - instants_s), before, after)


def _rotation_about_axes(axis: np.ndarray, angle_rad: np.ndarray) -> np.ndarray:
    """[N, 3, 3] rotations by angle_rad[N] about the unit axis (Rodrigues)."""
    x, y, z = axis / np.linalg.norm(axis)
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    s, c = np.sin(angle_rad)[:, None, None], np.cos(angle_rad)[:, None, None]
    return np.eye(3)[None] + s * k[None] + (1.0 - c) * (k @ k)[None]


def _rotation_from_quaternion_xyzw(quaternion: np.ndarray) -> np.ndarray:
    q = quaternion / np.linalg.norm(quaternion, axis=1, keepdims=True)
    x, y, z, w = q.T
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], axis=1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], axis=1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], axis=1)], axis=1)


def robot_body_tracks(model: RobotModel | None, head_times_s: np.ndarray, head_position_m: np.ndarray,
                      head_quaternion_xyzw: np.ndarray | None, joint_times_s: np.ndarray | None = None,
                      joint_names: Sequence[str] = (), joint_positions_rad: np.ndarray | None = None,
                      max_samples: int = MAX_SAMPLES) -> list[BodyTrack]:
    """The head track (every sample) and, with a URDF, the head orientation and joint_states,
    every link with collision geometry at up to max_samples joint_states instants, each with the
    head pose nearest in time (joints not in the message at 0; without joint_states, the head
    instants with every joint at 0)."""
    head_times_s = np.asarray(head_times_s, dtype=float)
    head_position_m = np.asarray(head_position_m, dtype=float).reshape(-1, 3)
    if model is None or head_quaternion_xyzw is None:
        return [BodyTrack('head (odometry track)', HEAD_ONLY_SIZE_M, head_times_s, head_position_m)]
    sizes = body_sizes_m(model)
    if not sizes:
        return [BodyTrack(f'{model.root} (odometry track)', HEAD_ONLY_SIZE_M, head_times_s, head_position_m)]
    angles: dict[str, np.ndarray] = {}
    if joint_times_s is not None and joint_positions_rad is not None and len(joint_times_s):
        # links only where a joint_states sample was taken, with the head sample nearest to it: a
        # joint pose older than the head pose misplaces a tumbling tail by tens of centimetres
        joint_times = np.asarray(joint_times_s, dtype=float)
        positions = np.asarray(joint_positions_rad, dtype=float).reshape(len(joint_times), -1)
        joint_rows = _sample_rows(joint_times, max_samples)
        rows = _nearest_rows(head_times_s, joint_times[joint_rows])
        angles = {name: np.nan_to_num(positions[joint_rows, column]) for column, name in enumerate(joint_names)}
    else:
        rows = _sample_rows(head_times_s, max_samples)
    times = head_times_s[rows]
    count = len(rows)
    world = {model.root: np.zeros((count, 4, 4))}
    world[model.root][:, :3, :3] = _rotation_from_quaternion_xyzw(np.asarray(head_quaternion_xyzw, float)[rows])
    world[model.root][:, :3, 3] = head_position_m[rows]
    world[model.root][:, 3, 3] = 1.0
    for joint in model.chain_joints():
        step = np.repeat(joint.origin.matrix()[None], count, axis=0)
        angle = angles.get(joint.name)
        if joint.type in ('revolute', 'continuous') and angle is not None:
            motion = np.repeat(np.eye(4)[None], count, axis=0)
            motion[:, :3, :3] = _rotation_about_axes(np.asarray(joint.axis, dtype=float), angle)
            step = step @ motion
        world[joint.child] = world[joint.parent] @ step
    tracks = []
    for name, (centre, size) in sizes.items():
        if name not in world:
            continue
        point = world[name][:, :3, :3] @ centre + world[name][:, :3, 3]
        tracks.append(BodyTrack(name, size, times, point))
    return tracks


def _robot_model_named(robot: str) -> RobotModel | None:
    """The shipped URDF of a robot name (custom_data cobra.robot), None when there is none."""
    try:
        from cobra_description.robot_model import default_urdf_path, load_robot_model
        return load_robot_model(default_urdf_path(robot))
    except Exception:   # noqa: BLE001 (no URDF: the head track alone is checked)
        return None


def _head_orientation(path: Path, topic: str) -> tuple[np.ndarray, np.ndarray]:
    """(header stamps [s], quaternions x, y, z, w) of the head track's odometry messages."""
    from cobra_common.bags import open_bag, stamp_s
    times, quaternions = [], []
    with open_bag(path) as reader:
        connections = [c for c in reader.connections if c.topic == topic]
        for connection, _, raw in reader.messages(connections=connections):
            message = reader.deserialize(raw, connection.msgtype)
            times.append(stamp_s(message.header.stamp))
            q = message.pose.pose.orientation
            quaternions.append((q.x, q.y, q.z, q.w))
    return np.array(times), np.array(quaternions).reshape(-1, 4)


def bag_ground_problems(bag: object, time_origin_s: float = 0.0, clock: str = '') -> list[str]:
    """The check for a simulated run read by cobra_analysis.bag_reader (a BagData): the ground
    plane from its custom_data, the head from its ground-truth track, the links by forward
    kinematics with the URDF of its cobra.robot (head orientation read again from the bag: the
    report keeps only the yaw) and its joint_states. Robot bags (no ground truth) are not checked:
    a VIO odom frame is not level with the ground."""
    head = getattr(bag, 'head', None)
    if head is None or not str(head.topic).strip('/').endswith('ground_truth/odom'):
        return []
    custom_data = getattr(bag, 'custom_data', {}) or {}
    model = _robot_model_named(custom_data['cobra.robot']) if custom_data.get('cobra.robot') else None
    quaternion = None
    if model is not None:
        times, quaternions = _head_orientation(Path(bag.path), head.topic)
        if len(times) == len(head.times_s):
            quaternion = quaternions
    joints = getattr(bag, 'joint_states', None)
    tracks = robot_body_tracks(model, head.times_s, head.position_m, quaternion,
                               joints.times_s if joints is not None else None,
                               joints.names if joints is not None else (),
                               joints.position_rad if joints is not None else None)
    return sunk_body_problems(tracks, ground_from_custom_data(custom_data), time_origin_s, clock)
