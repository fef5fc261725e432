"""The snake's body pose from odometry and joint angles (no ROS): what the goal loop steers.

`odom` is the head module's pose, and the head swings through the wave (on COBRA +-23 deg of yaw
and +-6 cm sideways at gait1's amplitudes, more with a conical taper). The body is what moves
steadily: forward kinematics of the URDF at the measured joint angles places every link origin in
the head frame, the odometry's head pose places them in odom, and the body pose is their centroid
(x, y) and the direction of their principal axis, tail -> head (the measure the sim checks use,
cobra_experiments.lts_runs.body_yaw_rad). Within a cycle it still wobbles by about +-2 deg.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from cobra_description.robot_model import RobotModel
from cobra_common.rotations import matrix_about_axis, matrix_from_quaternion


class BodyPoseEstimator:
    """Link origins of the robot's body (links with collision geometry) by forward kinematics,
    once along the chain per call (head to tail)."""

    def __init__(self, robot: RobotModel) -> None:
        self.robot = robot
        self._chain = robot.chain_joints()
        self._origins = {joint.name: joint.origin.matrix() for joint in self._chain}
        self.body_links = [robot.root, *[joint.child for joint in self._chain]]
        self.body_links = [link for link in self.body_links if robot.links[link].collisions]
        if len(self.body_links) < 2:
            raise ValueError(f"URDF '{robot.name}': a body axis needs two links with collision geometry")

    def link_origins_m(self, joint_positions: Mapping[str, float]) -> np.ndarray:
        """(K, 3) origins of body_links in the root (head) frame at the given joint angles (others 0)."""
        transforms = {self.robot.root: np.eye(4)}
        for joint in self._chain:
            step = self._origins[joint.name]
            angle = joint_positions.get(joint.name, 0.0)
            if joint.type in ('revolute', 'continuous') and angle:
                motion = np.eye(4)
                motion[:3, :3] = matrix_about_axis(joint.axis, angle)
                step = step @ motion
            transforms[joint.child] = transforms[joint.parent] @ step
        return np.array([transforms[link][:3, 3] for link in self.body_links])

    def body_pose(self, head_position_m: Sequence[float], head_quaternion_xyzw: Sequence[float],
                  joint_positions: Mapping[str, float]) -> tuple[float, float, float]:
        """(x, y, yaw) of the body in the odometry frame: centroid of the link origins and the
        direction of their principal axis in the horizontal plane, tail -> head."""
        rotation = matrix_from_quaternion(np.asarray(head_quaternion_xyzw, dtype=float))
        points = self.link_origins_m(joint_positions) @ rotation.T + np.asarray(head_position_m, dtype=float)
        return body_pose_from_points(points[:, :2])


def body_pose_from_points(points_xy_m: np.ndarray) -> tuple[float, float, float]:
    """(x, y, yaw) of link origins (K, 2), head first: centroid and principal axis, tail -> head."""
    centroid = points_xy_m.mean(axis=0)
    centred = points_xy_m - centroid
    _, _, right = np.linalg.svd(centred, full_matrices=False)
    axis = right[0]
    if axis @ (points_xy_m[0] - points_xy_m[-1]) < 0.0:
        axis = -axis
    return float(centroid[0]), float(centroid[1]), math.atan2(axis[1], axis[0])
