"""Synthetic robot motion and the SLAM output it would produce (tests, benchmark, demos).

The base follows a smooth planar sidewinding-like path; the SLAM "sees" the camera optical frame
in its own world (an arbitrary rigid offset), optionally with noise, a tracking gap and a
relocalisation jump (the SLAM world shifts by a fixed transform from a given time on).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from cobra_common.rotations import quaternion_about_z, quaternion_from_matrix

from cobra_odometry.transforms import pose_matrix
from cobra_odometry.trajectory_formats import PoseSample


def base_pose_at(t_s: float) -> np.ndarray:
    """Ground-truth T_odom_base (identity at t = 0): ~0.1 m/s forward, lateral and yaw wobble."""
    x = 0.1 * t_s
    y = 0.05 * math.sin(0.8 * t_s)
    yaw = 0.3 * math.sin(0.4 * t_s)
    z = 0.01 * math.sin(1.3 * t_s)
    return pose_matrix(np.array([x, y, z]), quaternion_about_z(yaw))


@dataclass(frozen=True)
class SlamScenario:
    duration_s: float = 10.0
    rate_hz: float = 30.0
    start_s: float = 100.0
    position_noise_m: float = 0.0
    loss_start_s: float | None = None  # relative to start
    loss_end_s: float | None = None
    jump_at_s: float | None = None  # SLAM world shifts from here on
    jump_offset: np.ndarray | None = None  # 4x4 applied to the SLAM world after the jump
    seed: int = 0


DEFAULT_SLAM_WORLD = pose_matrix(np.array([2.0, -1.0, 0.5]),
                                 np.array([0.2, -0.1, 0.3, math.sqrt(1 - 0.14)]))


def slam_samples(scenario: SlamScenario, base_to_pose_frame: np.ndarray,
                 slam_world: np.ndarray = DEFAULT_SLAM_WORLD) -> tuple[list[PoseSample], list[tuple[float, np.ndarray]]]:
    """(SLAM output of the pose frame, ground-truth base poses) at the SLAM rate."""
    rng = np.random.default_rng(scenario.seed)
    samples: list[PoseSample] = []
    truth: list[tuple[float, np.ndarray]] = []
    for i in range(int(scenario.duration_s * scenario.rate_hz)):
        t_rel = i / scenario.rate_hz
        base = base_pose_at(t_rel)
        truth.append((scenario.start_s + t_rel, base))
        if scenario.loss_start_s is not None and scenario.loss_start_s <= t_rel < scenario.loss_end_s:
            continue
        world = slam_world
        if scenario.jump_at_s is not None and t_rel >= scenario.jump_at_s:
            world = scenario.jump_offset @ slam_world
        pose = world @ base @ base_to_pose_frame
        position = pose[:3, 3] + rng.normal(0.0, scenario.position_noise_m, 3) * (scenario.position_noise_m > 0)
        samples.append(PoseSample(scenario.start_s + t_rel, position, quaternion_from_matrix(pose[:3, :3])))
    return samples, truth

