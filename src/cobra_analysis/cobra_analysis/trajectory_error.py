"""ATE and RPE between two head tracks of the same gait with `evo` (Umeyama SE(3) alignment).

The tracks are put on one clock first: time since each bag's gait start, sampled at RATE_HZ over
the span both cover, so a sim run and a robot run (different stamps, different start times) are
compared cycle by cycle. ATE = translation RMSE after aligning the second track onto the first
(rotation + translation, no scale: a size difference is an error); RPE = translation RMSE of the
relative motion over one gait cycle (or 1 s without a frequency), which is what drifts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from evo.core import metrics as evo_metrics
from evo.core.trajectory import PoseTrajectory3D
from cobra_common.rotations import quaternion_about_z, wxyz_from_xyzw

from cobra_analysis.metrics import MetricsError, resample, uniform_grid

RATE_HZ = 20.0


@dataclass
class TrackOnGaitClock:
    """A head track as time since the gait start [s], position (N, 3) [m] and yaw (N,) [rad]."""
    times_s: np.ndarray
    position_m: np.ndarray
    yaw_rad: np.ndarray


@dataclass
class TrajectoryError:
    ate_rmse_m: float
    ate_max_m: float
    rpe_rmse_m: float
    rpe_delta_s: float
    compared_s: float
    aligned_b_xy_m: np.ndarray   # the second track after alignment, for the overlay plot
    reference_xy_m: np.ndarray
    times_s: np.ndarray          # gait time of each compared pose [s]
    ate_error_m: np.ndarray      # translation error of each pose after alignment (evo APE), for error over time


def _evo_track(grid_s: np.ndarray, track: TrackOnGaitClock) -> PoseTrajectory3D:
    position = resample(track.times_s, track.position_m, grid_s)
    yaw = np.interp(grid_s, track.times_s, track.yaw_rad)
    quaternion_wxyz = wxyz_from_xyzw(quaternion_about_z(yaw))  # evo stores w first
    return PoseTrajectory3D(positions_xyz=position, orientations_quat_wxyz=quaternion_wxyz, timestamps=grid_s)


def trajectory_error(a: TrackOnGaitClock, b: TrackOnGaitClock, frequency_hz: float | None) -> TrajectoryError:
    """ATE / RPE of b against a on the common span of their gait clocks (MetricsError if too short)."""
    begin = max(0.0, float(a.times_s[0]), float(b.times_s[0]))
    end = min(float(a.times_s[-1]), float(b.times_s[-1]))
    delta_s = 1.0 / frequency_hz if frequency_hz else 1.0
    grid = uniform_grid(begin, end, RATE_HZ)
    delta_frames = max(1, int(round(delta_s * RATE_HZ)))
    if len(grid) < delta_frames + 2:
        raise MetricsError(f'the two runs overlap by {max(0.0, end - begin):.2f} s of gait time, less than '
                           f'one comparison interval ({delta_s:.2f} s)')
    reference, estimate = _evo_track(grid, a), _evo_track(grid, b)
    estimate.align(reference, correct_scale=False)
    ape = evo_metrics.APE(evo_metrics.PoseRelation.translation_part)
    ape.process_data((reference, estimate))
    rpe = evo_metrics.RPE(evo_metrics.PoseRelation.translation_part, delta=delta_frames,
                          delta_unit=evo_metrics.Unit.frames, all_pairs=False)
    rpe.process_data((reference, estimate))
    return TrajectoryError(float(ape.get_statistic(evo_metrics.StatisticsType.rmse)),
                           float(ape.get_statistic(evo_metrics.StatisticsType.max)),
                           float(rpe.get_statistic(evo_metrics.StatisticsType.rmse)),
                           delta_frames / RATE_HZ, float(end - begin),
                           estimate.positions_xyz[:, :2].copy(), reference.positions_xyz[:, :2].copy(),
                           grid.copy(), np.asarray(ape.error, dtype=float).copy())


def gait_clock_track(times_s: np.ndarray, position_m: np.ndarray, yaw_rad: np.ndarray,
                     gait_start_s: float) -> TrackOnGaitClock:
    """The part of a head track from the gait start on, on the gait clock."""
    keep = times_s >= gait_start_s - 1.0 / RATE_HZ
    if keep.sum() < 2 or not math.isfinite(gait_start_s):
        raise MetricsError('the head track does not reach past the gait start')
    return TrackOnGaitClock(times_s[keep] - gait_start_s, position_m[keep], yaw_rad[keep])
