"""Calibration of the anisotropy ratio eps from a recorded track (the geometric-mechanics paper §IV-C).

The paper fits eps by a 1-D search for the best RMS fit between simulated and measured
trajectories. Here: a log-spaced scan over the bounds, then a bounded Brent refinement around the
best scan point, on the RMS distance between the predicted and the recorded head or CoM track.
Inputs are arrays (a bag reader can feed them): the shape sequence the robot executed and the
track it measured at the same instants.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

from cobra_gaits.predictor.curve import PredictorError, as_shape_sequence
from cobra_gaits.predictor.integrator import integrate_motion

TRACKS = ('com', 'head')
ALIGNMENTS = ('start', 'rigid')


@dataclass(frozen=True)
class EpsilonFit:
    epsilon: float
    rms_error_m: float
    evaluations: int


def _align_rigid(predicted: np.ndarray, recorded: np.ndarray) -> np.ndarray:
    """Predicted track moved by the best rigid (proper) fit onto the recorded one."""
    centre_p = predicted.mean(axis=0)
    centre_r = recorded.mean(axis=0)
    u, _, vt = np.linalg.svd((recorded - centre_r).T @ (predicted - centre_p))
    correction = np.eye(predicted.shape[1])
    correction[-1, -1] = np.sign(np.linalg.det(u @ vt)) or 1.0
    rotation = u @ correction @ vt
    return (predicted - centre_p) @ rotation.T + centre_r


def track_rms_error_m(shapes_m: np.ndarray, recorded_track_m: np.ndarray, epsilon: float,
                      weights: np.ndarray | None = None, track: str = 'com', align: str = 'start') -> float:
    """RMS distance between the predicted and the recorded track for one eps.

    align='start': both tracks start at their first point, the recorded one expressed in the frame
    of the first shape. align='rigid': best rigid fit first (the recording's frame is unknown).
    """
    motion = integrate_motion(shapes_m, epsilon, weights)
    predicted = motion.com_m if track == 'com' else motion.head_m
    if align == 'start':
        predicted = predicted - predicted[0] + recorded_track_m[0]
    else:
        predicted = _align_rigid(predicted, recorded_track_m)
    return float(np.sqrt(np.mean(np.sum((predicted - recorded_track_m) ** 2, axis=1))))


def calibrate_epsilon(shapes_m: np.ndarray, recorded_track_m: np.ndarray, weights: np.ndarray | None = None,
                      track: str = 'com', align: str = 'start', bounds: tuple[float, float] = (1e-3, 1.0),
                      scan_points: int = 24, tolerance: float = 1e-6) -> EpsilonFit:
    """eps in `bounds` minimising the RMS track error, with that error."""
    shapes = as_shape_sequence(shapes_m)
    recorded = np.asarray(recorded_track_m, dtype=float)
    if track not in TRACKS:
        raise PredictorError(f"track must be one of {TRACKS}, got '{track}'")
    if align not in ALIGNMENTS:
        raise PredictorError(f"align must be one of {ALIGNMENTS}, got '{align}'")
    if recorded.shape != (shapes.shape[0], shapes.shape[2]):
        raise PredictorError(f'recorded track must have one point per shape, shape '
                             f'({shapes.shape[0]}, {shapes.shape[2]}), '
                             f'got {recorded.shape}: resample the recording at the shape instants')
    if not np.all(np.isfinite(recorded)):
        raise PredictorError('recorded track contains NaN or inf')
    low, high = float(bounds[0]), float(bounds[1])
    if not 0.0 < low < high:
        raise PredictorError(f'bounds must satisfy 0 < low < high, got {bounds}')

    def error(eps: float) -> float:
        return track_rms_error_m(shapes, recorded, eps, weights, track, align)

    grid = np.geomspace(low, high, scan_points)
    scan = np.array([error(eps) for eps in grid])
    best = int(np.argmin(scan))
    bracket_low = grid[max(best - 1, 0)]
    bracket_high = grid[min(best + 1, scan_points - 1)]
    refined = minimize_scalar(error, bounds=(bracket_low, bracket_high), method='bounded',
                              options={'xatol': tolerance})
    if refined.fun <= scan[best]:
        return EpsilonFit(float(refined.x), float(refined.fun), scan_points + int(refined.nfev))
    return EpsilonFit(float(grid[best]), float(scan[best]), scan_points + int(refined.nfev))
