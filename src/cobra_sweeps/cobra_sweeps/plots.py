"""Sweep plots: each metric against each searched parameter, and the speed / cost-of-transport
Pareto front (the gaits no other gait beats on both)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

PLOTTED_METRICS = ('speed_m_s', 'stride_m_per_cycle', 'cost_of_transport', 'heading_drift_rad',
                   'peak_joint_torque_nm', 'peak_normal_force_n')


def pareto_front(speed_m_s: np.ndarray, cost_of_transport: np.ndarray) -> np.ndarray:
    """Indices of the points no other point beats (faster and not costlier, or cheaper and not
    slower), sorted by speed; non-finite points never belong to the front."""
    speed = np.asarray(speed_m_s, dtype=float)
    cost = np.asarray(cost_of_transport, dtype=float)
    finite = np.flatnonzero(np.isfinite(speed) & np.isfinite(cost))
    front = []
    for i in finite:
        dominated = np.any((speed[finite] >= speed[i]) & (cost[finite] <= cost[i])
                           & ((speed[finite] > speed[i]) | (cost[finite] < cost[i])))
        if not dominated:
            front.append(i)
    return np.array(sorted(front, key=lambda i: speed[i]), dtype=int)


def plot_sweep(table: pd.DataFrame, searched: list[str], out_dir: Path) -> list[Path]:
    """PNG files under out_dir: metrics_vs_<param>.png for each searched parameter, pareto.png."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    ok = table[table['error'].isna()] if 'error' in table else table
    written: list[Path] = []
    if ok.empty:
        return written
    metrics = [m for m in PLOTTED_METRICS if m in ok]
    for parameter in searched:
        if parameter not in ok:
            continue
        figure, axes = plt.subplots(1, len(metrics), figsize=(3.2 * len(metrics), 3.0), squeeze=False)
        values = ok[parameter]
        numeric = pd.api.types.is_numeric_dtype(values)
        x = values if numeric else pd.Categorical(values.astype(str)).codes
        for axis, metric in zip(axes[0], metrics):
            axis.scatter(x, ok[metric], s=14)
            axis.set_xlabel(parameter)
            axis.set_ylabel(metric)
            if not numeric:
                labels = pd.Categorical(values.astype(str)).categories
                axis.set_xticks(range(len(labels)), labels)
        figure.tight_layout()
        path = Path(out_dir) / f'metrics_vs_{parameter}.png'
        figure.savefig(path, dpi=90)
        plt.close(figure)
        written.append(path)
    if 'speed_m_s' in ok and 'cost_of_transport' in ok:
        speed, cost = ok['speed_m_s'].to_numpy(float), ok['cost_of_transport'].to_numpy(float)
        front = pareto_front(speed, cost)
        figure, axis = plt.subplots(figsize=(4.5, 3.5))
        axis.scatter(speed, cost, s=14, label='trials')
        axis.plot(speed[front], cost[front], 'r.-', label='Pareto front')
        axis.set_xlabel('speed [m/s]')
        axis.set_ylabel('cost of transport [-]')
        axis.legend()
        figure.tight_layout()
        path = Path(out_dir) / 'pareto.png'
        figure.savefig(path, dpi=90)
        plt.close(figure)
        written.append(path)
    return written
