"""Predicted path of a sidewinding gait (issue 12): where the robot goes if it keeps playing it.

The contact-weighted predictor (contact.forecast_gait) runs over a few cycles of the commanded
COBRA shapes; the mass-weighted body centre of mass of the placed shapes gives the track, which is
expressed in the robot's heading frame on the ground (x = base_link's x projected on the support
plane) and then moved by the odom pose of that moment (its position and yaw). The path starts at
the base_link position (the track is the COM's displacement), each pose's yaw is the odom yaw
turned by the predictor's net rotation so far. The gait is forecast from phase 0 (the gait node
does not publish its phase): the path is right to first order, not to the centimetre.

Forward kinematics is batched over samples here (one matrix product per joint for all rows): the
per-row RobotModel.transform takes ~1.5 ms per row, 0.2 s for three cycles; this takes ~1 ms.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from cobra_common.rotations import matrix_about_axis, quaternion_about_z, yaw_from_quaternion
from cobra_description.robot_model import RobotModel

from cobra_gaits.predictor.contact import DEFAULT_CONTACT_BAND_M, forecast_gait, support_frames
from cobra_gaits.predictor.curve import PredictorError
from cobra_gaits.sidewinding import SidewindingParams, sample_sidewinding


def batched_link_points_m(robot: RobotModel, joint_names: Sequence[str], joint_rows_rad: np.ndarray,
                          links: Sequence[str]) -> np.ndarray:
    """Centres of mass (T, K, 3) of `links` in the root frame: contact.module_points_m, batched."""
    rows = np.atleast_2d(np.asarray(joint_rows_rad, dtype=float))
    if rows.shape[1] != len(joint_names):
        raise PredictorError(f'joint rows have {rows.shape[1]} columns for {len(joint_names)} joint names')
    column = {name: index for index, name in enumerate(joint_names)}
    by_child = {joint.child: joint for joint in robot.joints}
    cache: dict[str, tuple[np.ndarray, np.ndarray]] = {robot.root: (np.broadcast_to(np.eye(3), (len(rows), 3, 3)),
                                                                    np.zeros((len(rows), 3)))}

    def root_to(link: str) -> tuple[np.ndarray, np.ndarray]:
        if link in cache:
            return cache[link]
        if link not in by_child:
            raise PredictorError(f"link '{link}' is not connected to the root '{robot.root}'")
        joint = by_child[link]
        parent_rotation, parent_translation = root_to(joint.parent)
        origin = joint.origin.matrix()
        rotation = parent_rotation @ origin[:3, :3]
        translation = parent_translation + parent_rotation @ origin[:3, 3]
        if joint.type in ('revolute', 'continuous') and joint.name in column:
            rotation = rotation @ matrix_about_axis(joint.axis, rows[:, column[joint.name]])
        cache[link] = (rotation, translation)
        return cache[link]

    points = np.empty((len(rows), len(links), 3))
    for k, link in enumerate(links):
        inertial = robot.links[link].inertial if link in robot.links else None
        if inertial is None:
            raise PredictorError(f"link '{link}' has no inertial in the URDF: give links with a mass")
        rotation, translation = root_to(link)
        points[:, k] = rotation @ np.asarray(inertial.origin.xyz) + translation
    return points


@dataclass(frozen=True)
class BodyModel:
    """What the forecast needs from the URDF: the gait joints, the module links and their masses."""

    joint_names: tuple[str, ...]
    joint_kinds: tuple[str, ...]
    links: tuple[str, ...]
    masses_kg: np.ndarray

    @classmethod
    def from_robot(cls, robot: RobotModel) -> BodyModel:
        """Modules = the parent of the first gait joint (the head) and every gait joint's child."""
        joints = robot.gait_joints()
        if not joints:
            raise PredictorError(f"the URDF of '{robot.name}' has no gait joints")
        links = (joints[0].parent, *(joint.child for joint in joints))
        missing = [link for link in links if robot.links[link].inertial is None]
        if missing:
            raise PredictorError(f'links {missing} have no inertial in the URDF: the predictor needs their masses')
        return cls(tuple(j.name for j in joints), tuple(j.axis_kind for j in joints), links,
                   np.array([robot.links[link].inertial.mass_kg for link in links]))


@dataclass(frozen=True)
class BodyPath:
    """Forecast on the ground in the robot's heading frame at the start (x = base_link's x axis
    projected on the support plane, y to its left): times, COM displacement, yaw change."""

    times_s: np.ndarray  # (P,)
    xy_m: np.ndarray  # (P, 2), starts at (0, 0); lengths are the support plane's (no tilt shrink)
    yaw_rad: np.ndarray  # (P,), starts at 0


def gait_moves(params: SidewindingParams) -> bool:
    """False for a gait that stands still (no wave frequency or no amplitude): its path is one pose."""
    return params.frequency_hz > 0.0 and (params.amplitude_vertical_rad > 0.0 or
                                           params.amplitude_horizontal_rad > 0.0)


def forecast_body_path(robot: RobotModel, body: BodyModel, params: SidewindingParams, cycles: int,
                       steps_per_cycle: int, epsilon: float = 1.0,
                       band_m: float = DEFAULT_CONTACT_BAND_M) -> BodyPath:
    """`cycles` of the steady gait (full amplitude from phase 0) in the base_link frame of its first shape."""
    if cycles < 1 or steps_per_cycle < 4:
        raise PredictorError(f'need cycles >= 1 and steps_per_cycle >= 4, got {cycles} and {steps_per_cycle}')
    if not gait_moves(params.validated()):
        return BodyPath(np.zeros(1), np.zeros((1, 2)), np.zeros(1))
    times_s, rows = sample_sidewinding(body.joint_kinds, params, cycles / params.frequency_hz,
                                       steps_per_cycle * params.frequency_hz, ramp_in=False)
    points = batched_link_points_m(robot, body.joint_names, rows, body.links)
    forecast = forecast_gait(points, body.masses_kg, epsilon, band_m)
    com_support = forecast.body_com_m - forecast.body_com_m[0]
    first_frame = support_frames(points[:1])[0]  # rows e1, e2, n in base_link axes
    head_x = first_frame[:2, 0]  # base_link's x axis in support-plane coordinates
    heading = math.atan2(head_x[1], head_x[0])
    cos, sin = math.cos(heading), math.sin(heading)
    com_ground = com_support @ np.array([[cos, -sin], [sin, cos]])  # x along the head's heading on the ground
    rotation = forecast.motion.rotations
    yaw = np.unwrap(np.arctan2(rotation[:, 1, 0], rotation[:, 0, 0]))
    return BodyPath(times_s, com_ground, yaw - yaw[0])


@dataclass(frozen=True)
class PlacedPath:
    """The forecast in the odom frame: positions (P, 3) and yaw-only orientations (P, 4 xyzw)."""

    times_s: np.ndarray
    positions_m: np.ndarray
    quaternions_xyzw: np.ndarray


def place_body_path(path: BodyPath, position_m: Sequence[float], quaternion_xyzw: Sequence[float]) -> PlacedPath:
    """Move a base_link-frame forecast by the odom pose: the heading is the pose's yaw (the head's
    roll and pitch swing with the vertical wave; the track lies in the ground plane)."""
    yaw0 = float(yaw_from_quaternion(quaternion_xyzw))
    cos, sin = np.cos(yaw0), np.sin(yaw0)
    xy = path.xy_m @ np.array([[cos, sin], [-sin, cos]]) + np.asarray(position_m[:2], dtype=float)
    positions = np.column_stack((xy, np.full(len(xy), float(position_m[2]))))
    return PlacedPath(path.times_s, positions, quaternion_about_z(yaw0 + path.yaw_rad))
