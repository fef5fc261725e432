"""DEM body vs the same body on a rigid slope (issue 11, thesis §28 Fig. 22): one PNG + one CSV.

Reads a DEM run folder (trajectory.npz + summary.json written by python -m cobra_experiments.dem_run) or runs a
short one, runs the rigid reference (cobra_dem.rigid_reference: MuJoCo, same body: the wheel
or the COBRA loop, with its mass, inertia, slope and motion) for the same time, and plots body
speed along the slope, COM height above the starting point (vertical, world frame) and normal
contact force over time; prints the summary numbers (distance, mean speed, height lost, peak normal force, DEM/rigid ratios).

Run:  .venv/bin/python -m cobra_experiments.dem_compare_rigid --dem-run out/dem/tumble_slope [--out out/dem/compare]
      .venv/bin/python -m cobra_experiments.dem_compare_rigid --duration 0.5 --set body.motion=free   (runs DEM first)
Bad input (missing or unreadable run folder, bad scenario) prints one message and exits 2 before
anything is written.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np


from cobra_dem.scenario import default_scenario_file, Scenario, ScenarioError, load_scenario
from cobra_experiments.figures import save_figure

CSV_COLUMNS = ('time_s', 'dem_speed_m_s', 'rigid_speed_m_s', 'dem_height_m', 'rigid_height_m',
               'dem_normal_force_n', 'rigid_normal_force_n')


class CompareError(ValueError):
    """Input that cannot give a comparison (exit 2)."""


def world_height_m(position_m: np.ndarray, slope_deg: float) -> np.ndarray:
    """COM height (world vertical) relative to the first sample, from bed-frame x (downslope), z (normal)."""
    theta = math.radians(slope_deg)
    rel = position_m - position_m[0]
    return -rel[:, 0] * math.sin(theta) + rel[:, 2] * math.cos(theta)


def load_dem_run(run_dir: Path) -> tuple[Scenario, dict[str, np.ndarray]]:
    """The scenario (from summary.json's fields over the default YAML) and trace of a DEM run."""
    trajectory, summary_path = run_dir / 'trajectory.npz', run_dir / 'summary.json'
    if not trajectory.is_file() or not summary_path.is_file():
        raise CompareError(f'{run_dir} has no trajectory.npz/summary.json: give the --out folder of a finished '
                           'python -m cobra_experiments.dem_run run, or leave out --dem-run to run a short one')
    try:
        summary = json.loads(summary_path.read_text())
        trace = {name: value for name, value in np.load(trajectory).items()}
    except (OSError, ValueError) as error:
        raise CompareError(f'cannot read {run_dir}: {error}; re-run python -m cobra_experiments.dem_run') from error
    scenario_path = run_dir / 'scenario.yaml'
    scenario = (load_scenario(scenario_path) if scenario_path.is_file()
                else load_scenario(default_scenario_file(),
                                   slope_deg=summary['slope_deg'], **{'body.motion': summary['motion']}))
    return scenario, trace


def compare(scenario: Scenario, dem: dict[str, np.ndarray], rigid: dict[str, np.ndarray]) -> dict[str, Any]:
    """Summary numbers of both runs over the common time span, and DEM/rigid ratios."""
    out: dict[str, Any] = {'slope_deg': scenario.slope_deg, 'motion': scenario.body.motion,
                           'duration_s': float(dem['time_s'][-1] - dem['time_s'][0])}
    for label, trace in (('dem', dem), ('rigid', rigid)):
        t, x = trace['time_s'], trace['position_m'][:, 0]
        out[f'{label}_distance_m'] = float(x[-1] - x[0])
        out[f'{label}_mean_speed_m_s'] = float((x[-1] - x[0]) / (t[-1] - t[0]))
        out[f'{label}_final_speed_m_s'] = float(trace['velocity_m_s'][-1, 0])
        out[f'{label}_height_lost_m'] = float(-world_height_m(trace['position_m'], scenario.slope_deg)[-1])
        out[f'{label}_peak_normal_force_n'] = float(np.max(trace['contact_force_n'][:, 2]))
        out[f'{label}_mean_normal_force_n'] = float(np.mean(trace['contact_force_n'][:, 2]))
    out['distance_ratio_dem_to_rigid'] = out['dem_distance_m'] / out['rigid_distance_m'] if out['rigid_distance_m'] else float('nan')
    out['dem_descends_slower'] = out['dem_distance_m'] < out['rigid_distance_m']
    return out


def write_csv(path: Path, scenario: Scenario, dem: dict[str, np.ndarray], rigid: dict[str, np.ndarray]) -> None:
    """DEM samples with the rigid run interpolated at the same times."""
    t = dem['time_s'] - dem['time_s'][0]
    rigid_t = rigid['time_s']
    columns = [t, dem['velocity_m_s'][:, 0], np.interp(t, rigid_t, rigid['velocity_m_s'][:, 0]),
               world_height_m(dem['position_m'], scenario.slope_deg),
               np.interp(t, rigid_t, world_height_m(rigid['position_m'], scenario.slope_deg)),
               dem['contact_force_n'][:, 2], np.interp(t, rigid_t, rigid['contact_force_n'][:, 2])]
    tmp = path.with_suffix('.tmp')
    with tmp.open('w', newline='') as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        writer.writerows(np.column_stack(columns).round(6).tolist())
    tmp.replace(path)


def plot(path: Path, scenario: Scenario, dem: dict[str, np.ndarray], rigid: dict[str, np.ndarray]) -> None:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(3, 1, figsize=(7, 8), sharex=True)
    for label, trace, colour in (('rigid slope (MuJoCo)', rigid, 'tab:blue'), ('DEM (LAMMPS)', dem, 'm')):
        t = trace['time_s'] - trace['time_s'][0]
        axes[0].plot(t, trace['velocity_m_s'][:, 0], color=colour, label=label)
        axes[1].plot(t, world_height_m(trace['position_m'], scenario.slope_deg) * 1e3, color=colour)
        axes[2].plot(t, trace['contact_force_n'][:, 2], color=colour)
    if scenario.body.motion == 'prescribed':
        axes[0].axhline(scenario.body.reference_speed_m_s, color='grey', linestyle=':', label='v_ref = ω_r r')
    axes[0].set_ylabel('speed along slope [m/s]')
    axes[1].set_ylabel('COM height change [mm]')
    axes[2].set_ylabel('normal contact force [N]')
    axes[2].set_xlabel('time since the slope was applied [s]')
    axes[0].legend(loc='best')
    shape = scenario.body.shape
    axes[0].set_title(f'{scenario.body.kind}: rolling radius {shape.rolling_radius_m:.3f} m, m = {shape.mass_kg:.2f} kg, '
                      f'{scenario.slope_deg:g}° slope, {scenario.body.motion}')
    figure.tight_layout()
    save_figure(figure, path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--dem-run', default=None, help='folder of a finished python -m cobra_experiments.dem_run run')
    parser.add_argument('--scenario', default=str(default_scenario_file()),
                        help='scenario YAML for a fresh DEM run (without --dem-run)')
    parser.add_argument('--duration', type=float, default=0.5, help='duration of a fresh DEM run [s]')
    parser.add_argument('--set', action='append', default=[], metavar='KEY=VALUE',
                        help='scenario override for a fresh DEM run (body.motion=free)')
    parser.add_argument('--out', default=str(Path('out') / 'dem' / 'compare_rigid'), help='output folder')
    parser.add_argument('--friction', type=float, default=0.5, help='rigid slope friction (thesis §7: 0.5)')
    args = parser.parse_args(argv)
    try:
        if args.dem_run:
            scenario, dem = load_dem_run(Path(args.dem_run))
        else:
            import yaml
            overrides = {}
            for pair in args.set:
                key, sep, value = pair.partition('=')
                if not sep:
                    raise CompareError(f'--set {pair!r}: write --set key=value')
                overrides[key.strip()] = yaml.safe_load(value)
            scenario = load_scenario(args.scenario, duration_s=args.duration, **overrides)
            from cobra_dem.lammps_backend import run_scenario
            run_dir = Path(args.out) / 'dem_run'
            run_scenario(scenario, run_dir, log=lambda line: print(line, file=sys.stderr, flush=True))
            dem = {name: value for name, value in np.load(run_dir / 'trajectory.npz').items()}
        if not args.friction > 0:
            raise CompareError(f'--friction {args.friction}: give a friction coefficient > 0')
    except (CompareError, ScenarioError) as error:
        print(f'dem_compare_rigid: error: {error}', file=sys.stderr)
        return 2
    from cobra_dem.rigid_reference import rigid_body_trace

    duration_s = float(dem['time_s'][-1] - dem['time_s'][0])
    interval_s = float(np.median(np.diff(dem['time_s']))) if len(dem['time_s']) > 1 else 0.01
    rigid = rigid_body_trace(scenario, duration_s, interval_s, friction=args.friction)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_csv(out_dir / 'dem_vs_rigid.csv', scenario, dem, rigid)
    plot(out_dir / 'dem_vs_rigid.png', scenario, dem, rigid)
    summary = compare(scenario, dem, rigid)
    print(json.dumps(summary, indent=2))
    print(f'dem_compare_rigid: wrote {out_dir}/dem_vs_rigid.png and dem_vs_rigid.csv', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
