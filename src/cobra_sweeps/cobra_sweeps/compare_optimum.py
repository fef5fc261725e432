"""The geometric-mechanics paper's gait optimisation on the predictor and on the physics sim, each optimum
checked on the other (`cobra_sweep compare-optimum --out DIR [--quick]`).

Powell on the predictor, a Bayesian sweep on the sim, both optima and gait1 evaluated on both models.
Design notes and results: the package README, "The geometric-mechanics paper".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cobra_gaits.predictor.gait_path import BodyModel
from cobra_gaits.predictor.lifted_serpenoid import (GAIT1_AS_SERPENOID, GAIT1_LIFT_RATIO, LiftedOptimum,
                                                    joint_limits_rad, lifted_joint_rows_rad, optimise_lifted_gait,
                                                    predict_lifted_cycle)
from cobra_gaits.predictor.serpenoid import GAIT_BOUNDS, EllipticGait
from cobra_gaits.sidewinding import StartStopRamp
from cobra_sweeps.runner import check_out_dir, run_sweep
from cobra_sweeps.spec import parse_spec
from cobra_sweeps.trial import TRIAL_DEFAULTS, TrialError, build_sim, cached_robot, play_gait

GAIT_PARAMS = tuple(GAIT_BOUNDS)  # sigma, x_c, y_c, theta_rad, a, xi
LIFTED_DEFAULTS: dict[str, Any] = {
    **dict(zip(GAIT_PARAMS, astuple(GAIT1_AS_SERPENOID))), 'lift_ratio': GAIT1_LIFT_RATIO,
    'frequency_hz': 0.4, 'ramp_duration_s': 1.0, 'duration_s': 5.0, 'settle_s': 0.5,
    'terrain': 'rigid', 'terrain_file': '', 'slope_deg': 0.0, 'urdf': '', 'seed': 0,
}
SIM_SWEEP_DIR = 'sim_sweep'  # the physics-sim sweep's folder inside --out
TABLE_FILE = 'compare_optimum.csv'
PLOT_FILE = 'compare_optimum.png'


@dataclass(frozen=True)
class CompareBudget:
    """How much each side searches: predictor evaluations, sim trials, sim seconds per trial."""

    predictor_evaluations: int = 600
    sim_trials: int = 200
    sim_duration_s: float = 5.0

    @classmethod
    def quick(cls) -> CompareBudget:
        return cls(predictor_evaluations=200, sim_trials=40, sim_duration_s=2.5)


def gait_of(params: Mapping[str, Any]) -> EllipticGait:
    return EllipticGait(*(float(params[k]) for k in GAIT_PARAMS))


def run_lifted_trial(params: Mapping[str, Any]) -> dict[str, float]:
    """A sweep trial (`trial_function`): the lifted serpenoid on the headless sim; trial METRICS."""
    unknown = sorted(set(params) - set(LIFTED_DEFAULTS))
    if unknown:
        raise TrialError(f'unknown lifted-serpenoid trial parameter(s) {unknown}: use {sorted(LIFTED_DEFAULTS)}')
    full = {**LIFTED_DEFAULTS, **params}
    gait = gait_of(full).validated()
    frequency_hz = float(full['frequency_hz'])
    if frequency_hz <= 0.0:
        raise TrialError('frequency_hz must be > 0 (a stride needs a cycle)')
    sim = build_sim(full)
    body = BodyModel.from_robot(sim.robot)
    limits = joint_limits_rad(sim.robot, body)
    kinds = [joint.axis_kind for joint in sim.robot.gait_joints()]
    ramp = StartStopRamp(float(full['ramp_duration_s']))
    ramp.start()
    clock = {'t_s': 0.0}

    def next_targets(dt_s: float) -> np.ndarray:
        clock['t_s'] += dt_s
        ramp.advance(dt_s)
        row = lifted_joint_rows_rad(gait, kinds, np.array([clock['t_s'] * frequency_hz]),
                                    float(full['lift_ratio']), limits)[0]
        return ramp.envelope * row

    return play_gait(sim, next_targets, float(full['duration_s']), frequency_hz, float(full['ramp_duration_s']))


def sim_search_spec(budget: CompareBudget, seed: int = 0) -> Any:
    """The sim side's sweep: OptunaSearch over GAIT_BOUNDS, maximising stride per cycle."""
    return parse_spec({
        'name': 'compare_optimum_sim', 'search': 'bayesian', 'num_samples': budget.sim_trials, 'seed': seed,
        'metric': 'stride_m_per_cycle', 'mode': 'max',
        'trial_function': 'cobra_sweeps.compare_optimum:run_lifted_trial',
        'fixed': {'duration_s': budget.sim_duration_s},
        'space': {k: {'uniform': [float(low), float(high)]} for k, (low, high) in GAIT_BOUNDS.items()},
    }, 'compare-optimum')


def simulate(gait: EllipticGait, budget: CompareBudget) -> dict[str, float]:
    return run_lifted_trial({**dict(zip(GAIT_PARAMS, astuple(gait))), 'duration_s': budget.sim_duration_s})


def evaluate_row(label: str, gait: EllipticGait, budget: CompareBudget, sim_metrics: Mapping[str, float] | None = None
                 ) -> dict[str, Any]:
    """One gait on both models: its parameters, predicted and simulated stride and CoT."""
    robot = cached_robot(TRIAL_DEFAULTS['urdf'])
    prediction = predict_lifted_cycle(robot, BodyModel.from_robot(robot), gait, GAIT1_LIFT_RATIO)
    simulated = dict(sim_metrics) if sim_metrics is not None else simulate(gait, budget)
    return {'gait': label, **dict(zip(GAIT_PARAMS, astuple(gait))),
            'predicted_stride_m': prediction.stride_m, 'simulated_stride_m': float(simulated['stride_m_per_cycle']),
            'predicted_cot': prediction.cost_of_transport, 'simulated_cot': float(simulated['cost_of_transport']),
            'predicted_energy': prediction.energy}


def compare_optimum(out_dir: str | Path, budget: CompareBudget, num_cpus: int | None = None,
                    address: str | None = None, dissipation_coefficient: float = 0.0, progress: bool = True,
                    seed: int = 0, force: bool = False) -> pd.DataFrame:
    """Both optima and gait1 on both models (rows: gait1 reference, predictor optimum, sim optimum)."""
    out_dir = Path(out_dir)
    spec = sim_search_spec(budget, seed)
    check_out_dir(spec, out_dir / SIM_SWEEP_DIR, force)  # before the predictor's search
    robot = cached_robot(TRIAL_DEFAULTS['urdf'])
    predictor: LiftedOptimum = optimise_lifted_gait(robot, GAIT1_AS_SERPENOID, GAIT1_LIFT_RATIO,
                                                    dissipation_coefficient,
                                                    max_evaluations=budget.predictor_evaluations)
    sweep = run_sweep(spec, out_dir / SIM_SWEEP_DIR, num_cpus=num_cpus, address=address, progress=progress,
                      force=force)
    ok = sweep[sweep['error'].isna() & np.isfinite(sweep['stride_m_per_cycle'].astype(float))]
    if ok.empty:
        raise RuntimeError(f'no sim trial finished: see the errors in {out_dir / SIM_SWEEP_DIR}')
    best = ok.loc[ok['stride_m_per_cycle'].astype(float).idxmax()]
    rows = [evaluate_row('gait1 (reference)', GAIT1_AS_SERPENOID, budget),
            evaluate_row('predictor optimum', predictor.gait, budget),
            evaluate_row('sim optimum', gait_of(best), budget, best.to_dict())]
    table = pd.DataFrame(rows)
    table.attrs['sim_trials'] = int(len(sweep))
    table.attrs['predictor_evaluations'] = predictor.evaluations
    table.to_csv(out_dir / TABLE_FILE, index=False)
    plot_comparison(table, out_dir / PLOT_FILE)
    return table


def format_table(table: pd.DataFrame) -> str:
    lines = [f'{"gait":<20} {"sigma":>6} {"x_c":>6} {"y_c":>6} {"theta":>6} {"a":>5} {"xi":>5} | '
             f'{"stride pred":>11} {"stride sim":>10} | {"CoT pred":>8} {"CoT sim":>8}']
    for row in table.to_dict('records'):
        lines.append(f'{row["gait"]:<20} {row["sigma"]:6.2f} {row["x_c"]:6.2f} {row["y_c"]:6.2f} '
                     f'{row["theta_rad"]:6.2f} {row["a"]:5.2f} {row["xi"]:5.2f} | '
                     f'{row["predicted_stride_m"]:11.3f} {row["simulated_stride_m"]:10.3f} | '
                     f'{row["predicted_cot"]:8.3f} {row["simulated_cot"]:8.3f}')
    return '\n'.join(lines)


def plot_comparison(table: pd.DataFrame, path: Path) -> Path:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(1, 2, figsize=(10, 4))
    x = np.arange(len(table))
    for axis, (predicted, simulated, title) in zip(axes, (
            ('predicted_stride_m', 'simulated_stride_m', 'stride per cycle [m]'),
            ('predicted_cot', 'simulated_cot', 'cost of transport [-]'))):
        axis.bar(x - 0.2, np.nan_to_num(table[predicted].to_numpy(float), posinf=0.0), 0.4, label='predictor')
        axis.bar(x + 0.2, np.nan_to_num(table[simulated].to_numpy(float), posinf=0.0), 0.4, label='physics sim')
        axis.set_xticks(x, table['gait'], rotation=15)
        axis.set_title(title)
        axis.legend()
    figure.suptitle('Lifted serpenoid on COBRA, rigid ground: each optimum on both models')
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path

