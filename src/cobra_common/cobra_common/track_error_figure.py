"""One drawing of a track against a reference: the top view of both and the position error over
time. The report's comparison between bags and `python -m cobra_odometry.accuracy` (odom against
ground truth) both draw it, so the two figures read alike. matplotlib only: the caller owns the
Figure (Agg canvas or pyplot). In cobra_common because both layers draw it (odometry sits below
analysis).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes

UNIT_SCALE = {'m': 1.0, 'cm': 100.0}
MIN_ERROR_AXIS_M = 1e-3  # the error axis spans at least this


def draw_track_error(plane_axes: Axes, error_axes: Axes, reference_xy_m: np.ndarray, estimate_xy_m: np.ndarray,
                     times_s: np.ndarray, error_m: np.ndarray, reference_label: str, estimate_label: str,
                     time_label: str, unit: str = 'm') -> None:
    """Top view of reference (dashed) and estimate, and |position error| over time with its RMSE
    as a line; every axis labelled with its unit (`unit`: 'm' or 'cm' for the error axis)."""
    scale = UNIT_SCALE[unit]
    plane_axes.plot(reference_xy_m[:, 0], reference_xy_m[:, 1], 'k--', lw=1, label=reference_label, zorder=3)  # above noise
    plane_axes.plot(estimate_xy_m[:, 0], estimate_xy_m[:, 1], color='tab:blue', lw=1, label=estimate_label)
    plane_axes.plot(*reference_xy_m[0], 'go', ms=4, label='start')
    plane_axes.set_xlabel('x [m]')
    plane_axes.set_ylabel('y [m]')
    plane_axes.set_aspect('equal', adjustable='datalim')
    plane_axes.legend(fontsize=7)
    plane_axes.set_title('top view')
    errors = np.asarray(error_m, dtype=float) * scale
    error_axes.plot(times_s, errors, color='tab:red', lw=1, label='position error after alignment')
    if errors.size:
        rmse = float(np.sqrt(np.mean(errors ** 2)))
        error_axes.axhline(rmse, color='k', lw=0.8, ls=':', label=f'RMSE (ATE) {rmse:.3g} {unit}')
    error_axes.set_xlabel(time_label)
    error_axes.set_ylabel(f'position error [{unit}]')
    # at least 1 mm of axis: identical tracks would otherwise show rounding noise scaled up to 1e-16
    error_axes.set_ylim(0.0, max(1.1 * float(errors.max()) if errors.size else 0.0, MIN_ERROR_AXIS_M * scale))
    error_axes.legend(fontsize=7)
    error_axes.set_title('error over time')
