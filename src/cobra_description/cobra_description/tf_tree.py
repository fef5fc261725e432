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
from cobra_common.rotations import matrix_from_quaternion, matrix_from_rotation_vector, quaternion_from_matrix

from cobra_description.robot_model import Joint, RobotModel, RobotModelError

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
        transform[:3, :3] = matrix_from_quaternion(self.rotation_xyzw)
        transform[:3, 3] = self.translation_m
        return transform


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
        return self._frame_transforms([(joint, position)])[0]

    def static_transforms(self) -> list[FrameTransform]:
        """Every fixed joint (published once, latched, on /tf_static)."""
        return self._frame_transforms([(joint, 0.0) for joint in self.fixed_joints])

    def moving_transforms(self, positions: Mapping[str, float]) -> list[FrameTransform]:
        """The movable joints named in `positions` (finite values only), in URDF order: a joint
        without a position gets no transform, as robot_state_publisher does, never a guess."""
        return self._frame_transforms([(joint, positions[name]) for name, joint in self.movable_joints.items()
                                       if name in positions and math.isfinite(positions[name])])

    def _frame_transforms(self, joint_positions: list[tuple[Joint, float]]) -> list[FrameTransform]:
        """All joints of a message in two batched rotation calls (per joint they cost more than
        the rest of the message's work)."""
        if not joint_positions:
            return []
        matrices = np.array([joint.origin.matrix() for joint, _ in joint_positions])
        rotation_vectors = np.zeros((len(joint_positions), 3))
        for k, (joint, position) in enumerate(joint_positions):
            axis = np.asarray(joint.axis, dtype=float)
            if joint.type in ('revolute', 'continuous') and position:
                rotation_vectors[k] = axis / np.linalg.norm(axis) * position
            elif joint.type == 'prismatic' and position:
                matrices[k, :3, 3] += matrices[k, :3, :3] @ (axis / np.linalg.norm(axis) * position)
        turning = np.flatnonzero(np.any(rotation_vectors != 0.0, axis=1))
        if len(turning):
            matrices[turning, :3, :3] = matrices[turning, :3, :3] @ matrix_from_rotation_vector(rotation_vectors[turning])
        quaternions = quaternion_from_matrix(matrices[:, :3, :3])
        return [FrameTransform(self.frame_id(joint.parent), self.frame_id(joint.child),
                               (float(matrix[0, 3]), float(matrix[1, 3]), float(matrix[2, 3])),
                               (float(q[0]), float(q[1]), float(q[2]), float(q[3])))
                for (joint, _), matrix, q in zip(joint_positions, matrices, quaternions)]

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
