"""Soil calibration: the terrain parameters whose simulated metrics best match measured ones.

The spec is a sweep spec with a `target:` ({metric: value}, e.g. stride_m_per_cycle and
sinkage_m measured on the robot, or made by a sim run of known soil in the tests) and optionally
`target_scale:` (the size of a meaningful miss per metric; default |target|, i.e. relative
error). Every trial gets calibration_error = sqrt(mean(((sim - target) / scale)^2)).

A grid or random search is run as it is and the best trial wins; with exactly one searched
numeric parameter on a grid, the minimum is refined between grid points by a parabola through
the squared error of the best point and its two neighbours (in log space for positive values:
soil moduli span decades), which is exact where the metrics are locally linear in the parameter.
A bayesian search minimises calibration_error directly (Tune's OptunaSearch).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cobra_sweeps.runner import run_sweep
from cobra_sweeps.spec import SweepSpec, SweepSpecError, resolve_function

ERROR_COLUMN = 'calibration_error'


@dataclass(frozen=True)
class CalibrationResult:
    parameters: dict[str, Any]      # the estimate (refined between grid points where it could be)
    best_trial_error: float         # calibration_error of the best simulated trial
    estimate_error: float | None    # calibration_error of a run at the estimate (None: not run)
    refined: bool                   # True: parabola refinement between grid points
    table: pd.DataFrame


def calibration_error(metrics: Mapping[str, Any], target: Mapping[str, float], scale: Mapping[str, float]) -> float:
    """RMS of the scaled misses; inf when a target metric is missing or not finite."""
    misses = []
    for name, value in target.items():
        simulated = metrics.get(name)
        if simulated is None or not np.isfinite(simulated):
            return math.inf
        misses.append((float(simulated) - value) / scale[name])
    return float(math.sqrt(np.mean(np.square(misses))))


def target_scales(spec: SweepSpec) -> dict[str, float]:
    scales = {}
    for name, value in spec.target.items():
        scale = spec.target_scale.get(name, abs(value))
        if not scale > 0.0:
            raise SweepSpecError(f'target {name} = {value}: give target_scale.{name} > 0 (the size of a meaningful miss)')
        scales[name] = float(scale)
    return scales


def parabola_minimum(x: np.ndarray, y: np.ndarray) -> float:
    """Abscissa of the vertex of the parabola through three points, kept within their span."""
    a, b, _ = np.polyfit(x, y, 2)
    if a <= 0.0:
        return float(x[int(np.argmin(y))])
    return float(np.clip(-b / (2.0 * a), x.min(), x.max()))


def refine_one_parameter(values: np.ndarray, errors: np.ndarray) -> float:
    """Grid minimum of error(value) refined by a parabola of error² (log space if values > 0)."""
    order = np.argsort(values)
    values, errors = np.asarray(values, dtype=float)[order], np.asarray(errors, dtype=float)[order]
    best = int(np.argmin(errors))
    if best in (0, len(values) - 1) or len(values) < 3:
        return float(values[best])  # at the grid's edge: widen the grid if the estimate sits here
    use_log = bool(np.all(values > 0.0))
    x = np.log(values[best - 1:best + 2]) if use_log else values[best - 1:best + 2]
    vertex = parabola_minimum(x, np.square(errors[best - 1:best + 2]))
    return float(math.exp(vertex)) if use_log else vertex


def calibrate(spec: SweepSpec, out_dir: str | Path, num_cpus: int | None = None, address: str | None = None,
              progress: bool = True, verify: bool = True, force: bool = False) -> CalibrationResult:
    if not spec.target:
        raise SweepSpecError('a calibration spec needs target: {metric: measured value, ...}')
    scales = target_scales(spec)
    if spec.search == 'bayesian':
        spec = replace(spec, metric=ERROR_COLUMN, mode='min')
    table = run_sweep(spec, out_dir, num_cpus=num_cpus, address=address, progress=progress, force=force,
                      derived=lambda row: {ERROR_COLUMN: calibration_error(row, spec.target, scales)})
    ok = table[table['error'].isna() & np.isfinite(table.get(ERROR_COLUMN, pd.Series(dtype=float)))]
    if ok.empty:
        raise RuntimeError(f'no calibration trial finished: see the errors in {out_dir}')
    best_row = ok.loc[ok[ERROR_COLUMN].idxmin()]
    estimate = {k: best_row[k] for k in spec.space}
    refined = False
    numeric = [k for k, d in spec.space.items() if d.kind == 'values'
               and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in d.values)]
    if spec.search == 'grid' and len(spec.space) == 1 and numeric:
        key = numeric[0]
        estimate[key] = refine_one_parameter(ok[key].to_numpy(float), ok[ERROR_COLUMN].to_numpy(float))
        refined = estimate[key] != best_row[key]
    estimate_error = None
    if verify:
        metrics = resolve_function(spec.trial_function)(spec.full_params(estimate))
        estimate_error = calibration_error(metrics, spec.target, scales)
    return CalibrationResult(estimate, float(best_row[ERROR_COLUMN]), estimate_error, refined, table)
