"""The curl pose of the tumbling latch: joint targets that close COBRA into a barrel (no ROS).

The chain is bent in the head's vertical plane (x-z) until the tail's end face meets the head's
front face with the tail continuing straight into the head: `head_latch_link` and
`tail_latch_link` coincide in position and orientation. The head lies on the ground and the loop
stands up over it (every chain point at z >= 0 in the head frame). The pitch joints close the
loop; the yaw joints stay at zero unless a splay is asked for (alternating signs, a wider base).

Solved by forward kinematics of the URDF (RobotModel.transform) and scipy's bounded
least_squares, from a deterministic start (equal bends summing to one turn), so the same URDF
always gives the same pose; `curl_pose` caches it per URDF and options.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares
from scipy.spatial.transform import Rotation

from cobra_description.robot_model import Joint, RobotModel

HEAD_LATCH_FRAME = 'head_latch_link'
TAIL_LATCH_FRAME = 'tail_latch_link'
# Until a URDF has the latch frames: the head's front face and the tail module's end face.
FALLBACK_LATCH_FRAMES = {HEAD_LATCH_FRAME: ('head_link', (0.1, 0.0, 0.0)),
                         TAIL_LATCH_FRAME: ('link_11', (-0.136364, 0.0, 0.0))}
LIMIT_MARGIN_RAD = 0.1  # keep every target this far inside its URDF limits
CLOSURE_TOLERANCE_M = 0.005  # the solved latch frames must be this close (capture is 0.03 m)
ORIENTATION_WEIGHT_M = 0.1  # [m/rad]: 1 rad of latch misalignment costs like 0.1 m of gap
PREFERENCE_WEIGHT = 1e-3  # pull towards the even bend / requested splay without spoiling closure


class CurlPoseError(ValueError):
    """The URDF cannot be curled into a closed loop within its joint limits."""


@dataclass(frozen=True)
class CurlPose:
    joint_names: tuple[str, ...]
    positions_rad: np.ndarray  # head to tail, same order as joint_names
    closure_error_m: float  # distance between the latch frames at this pose
    orientation_error_rad: float  # angle between the latch frames' axes at this pose

    def as_dict(self) -> dict[str, float]:
        return dict(zip(self.joint_names, self.positions_rad.tolist()))


def latch_frame_pose(model: RobotModel, frame: str, joint_positions: dict[str, float]) -> np.ndarray:
    """Pose (4x4) of a latch frame in the root frame; the URDF's link, or its fallback offset."""
    if frame in model.links:
        return model.transform(model.root, frame, joint_positions)
    parent, offset = FALLBACK_LATCH_FRAMES[frame]
    local = np.eye(4)
    local[:3, 3] = offset
    return model.transform(model.root, parent, joint_positions) @ local


def latch_gap(model: RobotModel, joint_positions: dict[str, float]) -> tuple[float, float]:
    """(distance [m], angle [rad]) between head and tail latch frames at these joint angles."""
    head = latch_frame_pose(model, HEAD_LATCH_FRAME, joint_positions)
    tail = latch_frame_pose(model, TAIL_LATCH_FRAME, joint_positions)
    relative = head[:3, :3].T @ tail[:3, :3]
    return (float(np.linalg.norm(tail[:3, 3] - head[:3, 3])),
            float(np.linalg.norm(Rotation.from_matrix(relative).as_rotvec())))


def _bend_signs(joints: Sequence[Joint]) -> np.ndarray:
    """+1/-1 per pitch joint so that a positive bend lifts the chain behind it (turns it up)."""
    return np.array([j.axis_sign if j.axis_kind == 'pitch' else 0.0 for j in joints])


def solve_curl_pose(model: RobotModel, joints: Sequence[Joint], yaw_splay_rad: float = 0.0,
                    limit_margin_rad: float = LIMIT_MARGIN_RAD) -> CurlPose:
    """Joint targets closing the loop; CurlPoseError when the URDF cannot close it in limits."""
    names = tuple(j.name for j in joints)
    is_pitch = np.array([j.axis_kind == 'pitch' for j in joints])
    if is_pitch.sum() < 3:
        raise CurlPoseError(f'curling needs at least 3 pitch joints to close a loop, the URDF has '
                            f'{int(is_pitch.sum())}: use the COBRA URDF')
    lower = np.array([j.limits.lower_rad if j.limits else -math.pi for j in joints]) + limit_margin_rad
    upper = np.array([j.limits.upper_rad if j.limits else math.pi for j in joints]) - limit_margin_rad
    if np.any(lower >= upper):
        raise CurlPoseError(f'a joint range is narrower than twice the {limit_margin_rad} rad margin')
    signs = _bend_signs(joints)
    yaw_index = np.cumsum(~is_pitch) - 1
    yaw_signs = np.array([j.axis_sign for j in joints])
    preferred = np.where(is_pitch, signs * 2.0 * math.pi / is_pitch.sum(),
                         yaw_signs * yaw_splay_rad * np.where(yaw_index % 2 == 0, 1.0, -1.0))
    preferred = np.clip(preferred, lower, upper)

    def residuals(q: np.ndarray) -> np.ndarray:
        positions = dict(zip(names, q))
        head = latch_frame_pose(model, HEAD_LATCH_FRAME, positions)
        tail = latch_frame_pose(model, TAIL_LATCH_FRAME, positions)
        position_error = head[:3, :3].T @ (tail[:3, 3] - head[:3, 3])
        rotation_error = Rotation.from_matrix(head[:3, :3].T @ tail[:3, :3]).as_rotvec()
        return np.concatenate([position_error, ORIENTATION_WEIGHT_M * rotation_error,
                               PREFERENCE_WEIGHT * (q - preferred)])

    result = least_squares(residuals, preferred, bounds=(lower, upper), xtol=1e-12, ftol=1e-12,
                           gtol=1e-12, max_nfev=2000)
    positions = np.clip(result.x, lower, upper)
    distance_m, angle_rad = latch_gap(model, dict(zip(names, positions)))
    if distance_m > CLOSURE_TOLERANCE_M or angle_rad > CLOSURE_TOLERANCE_M / ORIENTATION_WEIGHT_M:
        raise CurlPoseError(
            f'no closed loop within the joint limits (best: latch frames {distance_m * 1000:.1f} mm and '
            f'{math.degrees(angle_rad):.1f} deg apart, yaw_splay_rad={yaw_splay_rad}): reduce the '
            f'yaw splay or check the URDF limits and link lengths')
    return CurlPose(names, positions, distance_m, angle_rad)


_CACHE: dict[tuple, CurlPose] = {}


def curl_pose(model: RobotModel, joints: Sequence[Joint], yaw_splay_rad: float = 0.0) -> CurlPose:
    """solve_curl_pose, cached per URDF file, joint vector and splay (the solve is deterministic)."""
    key = (str(model.source), model.name, tuple(j.name for j in joints), round(yaw_splay_rad, 9))
    if key not in _CACHE:
        _CACHE[key] = solve_curl_pose(model, joints, yaw_splay_rad)
    return _CACHE[key]
