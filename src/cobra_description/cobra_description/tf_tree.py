"""The robot's tf tree from its URDF: one parent-to-child transform per joint, as tf2 wants them.

robot_state_publisher's job in plain Python (no rclpy, no tf2): fixed joints give the static
transforms, movable joints the ones that follow joint_states. The state publisher node is thin
glue around this module, so the numbers are tested here without ROS.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass

import numpy as np

from cobra_description.robot_model import Joint, RobotModel, RobotModelError, axis_angle_to_matrix

MOVABLE_JOINT_TYPES = ('revolute', 'continuous', 'prismatic')
FIXED_JOINT_TYPES = ('fixed',)


@dataclass(frozen=True)
class FrameTransform:
    """Pose of `child` in `parent` (frame ids with the prefix applied), tf2's convention."""
    parent: str
    child: str
    translation_m: tuple[float, float, float]
    rotation_xyzw: tuple[float, float, float, float]

    def matrix(self) -> np.ndarray:
        """4x4 homogeneous transform (child in parent), for checks and composition."""
        transform = np.eye(4)
        transform[:3, :3] = quaternion_xyzw_to_matrix(self.rotation_xyzw)
        transform[:3, 3] = self.translation_m
        return transform


def matrix_to_quaternion_xyzw(rotation: np.ndarray) -> tuple[float, float, float, float]:
    """Unit quaternion (x, y, z, w) of a 3x3 rotation matrix, w >= 0 (Shepperd's method: the
    largest diagonal term first, so it stays accurate near 180 degrees)."""
    r = np.asarray(rotation, dtype=float)
    trace = r[0, 0] + r[1, 1] + r[2, 2]
    if trace > 0.0:
        s = 2.0 * math.sqrt(1.0 + trace)
        q = ((r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s, 0.25 * s)
    elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
        s = 2.0 * math.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2])
        q = (0.25 * s, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s, (r[2, 1] - r[1, 2]) / s)
    elif r[1, 1] > r[2, 2]:
        s = 2.0 * math.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2])
        q = ((r[0, 1] + r[1, 0]) / s, 0.25 * s, (r[1, 2] + r[2, 1]) / s, (r[0, 2] - r[2, 0]) / s)
    else:
        s = 2.0 * math.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1])
        q = ((r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, 0.25 * s, (r[1, 0] - r[0, 1]) / s)
    norm = math.sqrt(sum(c * c for c in q))
    sign = -1.0 if q[3] < 0.0 else 1.0
    return (sign * q[0] / norm, sign * q[1] / norm, sign * q[2] / norm, sign * q[3] / norm)


def quaternion_xyzw_to_matrix(q: tuple[float, float, float, float]) -> np.ndarray:
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


class TfTree:
    """Per-joint transforms of one robot model, frame ids prefixed with `frame_prefix`."""

    def __init__(self, model: RobotModel, frame_prefix: str = '') -> None:
        unsupported = [f'{j.name} ({j.type})' for j in model.joints
                       if j.type not in MOVABLE_JOINT_TYPES + FIXED_JOINT_TYPES]
        if unsupported:
            raise RobotModelError(
                f"URDF of '{model.name}' has joints no joint_states position can describe: "
                f"{', '.join(unsupported)}; use fixed, revolute, continuous or prismatic joints")
        self.model = model
        self.frame_prefix = frame_prefix
        self.movable_joints: dict[str, Joint] = {
            j.name: j for j in model.joints if j.type in MOVABLE_JOINT_TYPES}
        self.fixed_joints: list[Joint] = [j for j in model.joints if j.type in FIXED_JOINT_TYPES]

    @property
    def root_frame(self) -> str:
        return self.frame_id(self.model.root)

    def frame_id(self, link_name: str) -> str:
        return f'{self.frame_prefix}{link_name}'

    def joint_transform(self, joint: Joint, position: float = 0.0) -> FrameTransform:
        """child in parent for `joint` at `position` [rad, or m for prismatic]."""
        transform = joint.origin.matrix()
        if joint.type in ('revolute', 'continuous') and position:
            motion = np.eye(4)
            motion[:3, :3] = axis_angle_to_matrix(np.asarray(joint.axis, dtype=float), position)
            transform = transform @ motion
        elif joint.type == 'prismatic' and position:
            motion = np.eye(4)
            axis = np.asarray(joint.axis, dtype=float)
            motion[:3, 3] = axis / np.linalg.norm(axis) * position
            transform = transform @ motion
        translation = transform[:3, 3]
        return FrameTransform(self.frame_id(joint.parent), self.frame_id(joint.child),
                              (float(translation[0]), float(translation[1]), float(translation[2])),
                              matrix_to_quaternion_xyzw(transform[:3, :3]))

    def static_transforms(self) -> list[FrameTransform]:
        """Every fixed joint (published once, latched, on /tf_static)."""
        return [self.joint_transform(joint) for joint in self.fixed_joints]

    def moving_transforms(self, positions: Mapping[str, float]) -> list[FrameTransform]:
        """The movable joints named in `positions` (finite values only), in URDF order: a joint
        without a position gets no transform, as robot_state_publisher does, never a guess."""
        return [self.joint_transform(joint, positions[name])
                for name, joint in self.movable_joints.items()
                if name in positions and math.isfinite(positions[name])]

    def problems(self, positions: Mapping[str, float]) -> list[str]:
        """Why some of `positions` are not used: unknown joint names, non-finite values."""
        found = []
        unknown = sorted(name for name in positions if name not in self.movable_joints)
        if unknown:
            found.append(f"joint_states names joints the URDF of '{self.model.name}' has not as movable: "
                         f"{', '.join(unknown)}")
        bad = sorted(name for name, value in positions.items()
                     if name in self.movable_joints and not math.isfinite(value))
        if bad:
            found.append(f"joint_states has non-finite positions for {', '.join(bad)}: their transforms "
                         'are not published')
        return found


class StampThrottle:
    """At most one pass per key in each `period_s` slot of message time (header stamps, not wall
    time): a stamp passes when it falls in a later slot (stamp // period) than the last one passed.

    Judging by stamps keeps the output rate the same when a loaded machine delivers messages in
    bursts, and makes it reproducible from a bag. Fixed slots (not "period since the last pass")
    keep exactly 1/period_s messages per second when the input's stamps jitter or a sample is
    lost: 500 Hz joint_states whose stamps come a nanosecond early still give 50 Hz, not 45.
    Stamps are integer nanoseconds. A stamp older than the last one passed (time jumped back: sim
    reset, bag looped) passes and restarts the count.
    """

    def __init__(self, period_s: float) -> None:
        self.period_ns = round(period_s * 1e9)
        self._last_ns: dict[Hashable, int] = {}

    def due(self, key: Hashable, stamp_ns: int) -> bool:
        last_ns = self._last_ns.get(key)
        if (last_ns is not None and self.period_ns > 0 and last_ns <= stamp_ns
                and stamp_ns // self.period_ns == last_ns // self.period_ns):
            return False
        self._last_ns[key] = stamp_ns
        return True
