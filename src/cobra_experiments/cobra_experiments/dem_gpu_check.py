"""GPU check (issue 11): one small DEM scenario on LAMMPS (CPU) and DEM-Engine (GPU), compared.

For a machine with an NVIDIA GPU. Installs nothing: the venv needs `pip install "deme[cuda12]"`
(DEM-Engine 3 with the CUDA 12.8 runtime wheels; no system CUDA toolkit) and `lammps[mpi]`.
Runs the same scenario (a small bed, 0.3 s on the 24 deg slope after the body's 0.1 s settle)
with both backends at once (LAMMPS in a `python -m cobra_experiments.dem_run` subprocess on one core, DEM-Engine
in this process), prints both summaries side by side, the relative differences of sinkage,
distance, mean speed and peak normal force, and DEM-Engine's throughput (grain sphere-steps per
second of dynamics, JIT and read-back excluded). DEM-Engine JIT-compiles its CUDA kernels in
Initialize(): the first run on a machine spends minutes there (reported as deme_init_s); its
kernel cache makes later runs start faster.

Run:  .venv/bin/python -m cobra_experiments.dem_gpu_check --quick [--out out/dem_gpu_check]
      --quick: 4 mm grains, 0.2 x 0.16 x 0.024 m bed (LAMMPS; DEM-Engine's walled bed is longer,
      see deme_backend.deme_layout): < 5 min on an H200 including the JIT compile.
      (the COBRA loop of config/dem/tumble_cobra.yaml: a 0.5 m bed, its flat side is 0.40 m long).
      Without --quick: the scenario file's bed (default config/dem/tumble_slope.yaml), 0.3 s.
      --engines lammps writes only the LAMMPS half (no GPU needed); --engines deme --compare-with DIR
      runs only DEM-Engine and compares it with DIR's LAMMPS half of the same scenario (a GPU machine
      without LAMMPS).
Exit: 0 both ran; 3 no NVIDIA GPU or `deme` not usable here (message names the fix); 2 bad input.
Writes OUT/scenario.yaml, OUT/lammps/, OUT/deme/ (each: summary.json, trajectory.npz,
particles.npz), OUT/lammps.log and OUT/comparison.json.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml


from cobra_dem.scenario import (default_scenario_file, DemeUnavailableError, Scenario, ScenarioError, deme_problem,
                                    load_scenario)

EXIT_BAD_INPUT, EXIT_NO_GPU = 2, 3
CHECK_DURATION_S = 0.3
QUICK_OVERRIDES: dict[str, Any] = {
    'bed.length_m': 0.2, 'bed.width_m': 0.16, 'bed.sphere_radius_m': 0.004, 'bed.depth_m': 0.024,
    'bed.settle_time_s': 0.15, 'bed.settle_max_time_s': 0.4, 'body.start_x_m': 0.1, 'body.settle_time_s': 0.1}
QUICK_LOOP_OVERRIDES: dict[str, Any] = {'bed.length_m': 0.5, 'body.start_x_m': 0.25}   # its 0.40 m flat side
COMPARED = (('final_sinkage_m', 'sinkage (final) [m]'), ('max_sinkage_m', 'sinkage (max) [m]'),
            ('distance_descended_m', 'distance [m]'), ('mean_speed_m_s', 'mean speed [m/s]'),
            ('peak_normal_force_n', 'peak normal force [N]'))
SHOWN = ('time_step_s', 'slip_ratio_vs_v_ref', 'mean_angular_speed_rad_s', 'height_lost_m', 'wall_time_s')


def relative_difference(deme_value: float, lammps_value: float) -> float:
    """(deme - lammps) / |lammps| (nan when lammps is 0)."""
    return (deme_value - lammps_value) / abs(lammps_value) if lammps_value else float('nan')


def comparison_table(lammps: dict[str, Any], deme: dict[str, Any]) -> tuple[str, dict[str, float]]:
    """Side-by-side text table and the relative differences of the compared quantities."""
    lines = [f'{"quantity":<28} {"LAMMPS (CPU)":>14} {"DEM-Engine (GPU)":>17} {"rel. diff":>10}']
    differences: dict[str, float] = {}
    for key, label in COMPARED:
        diff = relative_difference(float(deme[key]), float(lammps[key]))
        differences[key] = diff
        lines.append(f'{label:<28} {lammps[key]:>14.4g} {deme[key]:>17.4g} {100 * diff:>9.1f}%')
    for key in SHOWN:
        if key in lammps or key in deme:
            lines.append(f'{key:<28} {lammps.get(key, float("nan")):>14.4g} {deme.get(key, float("nan")):>17.4g}')
    lines.append(f'{"lift-off intervals [s]":<28} {len(lammps["lift_off_intervals_s"]):>14d} '
                 f'{len(deme["lift_off_intervals_s"]):>17d}')
    return '\n'.join(lines), differences


def write_scenario_yaml(scenario: Scenario, path: Path) -> None:
    """The resolved scenario as a YAML that python -m cobra_experiments.dem_run reads back (scenario_from_dict)."""
    path.write_text(scenario_yaml(scenario))


def scenario_yaml(scenario: Scenario) -> str:
    """The resolved scenario as YAML text (what both halves of a split check write and compare)."""
    return yaml.safe_dump(dataclasses.asdict(scenario), sort_keys=False)


def earlier_lammps_summary(folder: Path, scenario: Scenario) -> dict[str, Any]:
    """The LAMMPS summary of `folder` (an `--engines lammps` output), refused unless it ran this very scenario."""
    scenario_file, summary_file = folder / 'scenario.yaml', folder / 'lammps' / 'summary.json'
    if not (scenario_file.is_file() and summary_file.is_file()):
        raise ScenarioError(f'--compare-with {folder}: no scenario.yaml and lammps/summary.json there; '
                            'make it with `dem_gpu_check --engines lammps --out DIR` (same scenario and flags)')
    if yaml.safe_load(scenario_file.read_text()) != yaml.safe_load(scenario_yaml(scenario)):
        raise ScenarioError(f'--compare-with {folder}: its scenario.yaml differs from this run\'s scenario; '
                            'give both halves the same scenario file, --quick and --duration')
    return json.loads(summary_file.read_text())


def start_lammps(out: Path) -> subprocess.Popen[str]:
    """The LAMMPS half in a `dem_run` subprocess (one core), logging to OUT/lammps.log."""
    with (out / 'lammps.log').open('w') as log_file:
        process = subprocess.Popen(
            [sys.executable, '-m', 'cobra_experiments.dem_run', str(out / 'scenario.yaml'), '--backend', 'lammps',
             '--out', str(out / 'lammps'), '--cache', str(out / 'cache')],
            stdout=subprocess.PIPE, stderr=log_file, text=True)
    print(f'dem_gpu_check: LAMMPS running (pid {process.pid}, log {out / "lammps.log"})', file=sys.stderr, flush=True)
    return process


def finish_lammps(process: subprocess.Popen[str], out: Path) -> dict[str, Any] | int:
    """The LAMMPS summary once the subprocess ends, or the exit code to return after saying why it failed."""
    stdout, _ = process.communicate()
    if process.returncode != 0:
        tail = (out / 'lammps.log').read_text()[-2000:]
        print(f'dem_gpu_check: the LAMMPS run failed (exit {process.returncode}):\n{tail}', file=sys.stderr)
        return EXIT_BAD_INPUT if process.returncode == 2 else 1
    summary: dict[str, Any] = json.loads(stdout)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('scenario', nargs='?', default=str(default_scenario_file()))
    parser.add_argument('--quick', action='store_true', help='small 4 mm bed: < 5 min on an H200 incl. JIT')
    parser.add_argument('--out', default=str(Path('out') / 'dem_gpu_check'), help='output folder')
    parser.add_argument('--duration', type=float, default=CHECK_DURATION_S, help='run time after the settle [s]')
    parser.add_argument('--engines', choices=('both', 'lammps', 'deme'), default='both',
                        help='both at once (default); lammps: only the CPU half; deme: only the GPU half, '
                             'compared with --compare-with')
    parser.add_argument('--compare-with', default=None, metavar='DIR',
                        help='with --engines deme: an earlier --engines lammps output of the same scenario')
    args = parser.parse_args(argv)
    try:
        if not (math.isfinite(args.duration) and args.duration > 0):
            raise ScenarioError(f'--duration {args.duration}: give a positive number of seconds (e.g. 0.3)')
        if (args.engines == 'deme') != (args.compare_with is not None):
            raise ScenarioError('--compare-with DIR goes with --engines deme (and --engines deme needs it): '
                                'DIR is the output of `dem_gpu_check --engines lammps` for the same scenario')
        overrides: dict[str, Any] = {'duration_s': args.duration, 'backend': 'lammps', 'mpi': False}
        scenario = load_scenario(args.scenario, **overrides)
        if args.quick:
            quick = dict(QUICK_OVERRIDES)
            if scenario.body.kind == 'cobra_loop':
                quick.update(QUICK_LOOP_OVERRIDES)
            scenario = load_scenario(args.scenario, **quick, **overrides)
        earlier_lammps = earlier_lammps_summary(Path(args.compare_with), scenario) if args.compare_with else None
    except ScenarioError as error:
        print(f'dem_gpu_check: error: {error}', file=sys.stderr)
        return EXIT_BAD_INPUT
    problem = deme_problem() if args.engines != 'lammps' else None
    if problem:
        print(f'dem_gpu_check: no GPU run possible here: {problem}', file=sys.stderr)
        return EXIT_NO_GPU
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_scenario_yaml(scenario, out / 'scenario.yaml')
    lammps_process = start_lammps(out) if earlier_lammps is None else None
    if args.engines == 'lammps':
        assert lammps_process is not None
        lammps_summary = finish_lammps(lammps_process, out)
        if isinstance(lammps_summary, int):
            return lammps_summary
        print(f'dem_gpu_check: wrote the LAMMPS half to {out} (then, on the GPU machine: '
              f'--engines deme --compare-with {out})', file=sys.stderr)
        return 0
    print('dem_gpu_check: DEM-Engine now (its kernels are JIT-compiled first: minutes on a cold cache)',
          file=sys.stderr, flush=True)
    from cobra_dem import deme_backend

    started = time.monotonic()
    try:
        deme_summary = deme_backend.run_scenario(dataclasses.replace(scenario, backend='deme'), out / 'deme',
                                                 out / 'cache',
                                                 log=lambda line: print(f'deme: {line}', file=sys.stderr, flush=True))
    except DemeUnavailableError as error:
        if lammps_process is not None:
            lammps_process.kill()
        print(f'dem_gpu_check: no GPU run possible here: {error}', file=sys.stderr)
        return EXIT_NO_GPU
    except BaseException:
        if lammps_process is not None:
            lammps_process.kill()
        raise
    deme_wall_s = time.monotonic() - started
    if lammps_process is None:
        assert earlier_lammps is not None
        lammps_summary = earlier_lammps
    else:
        finished = finish_lammps(lammps_process, out)
        if isinstance(finished, int):
            return finished
        lammps_summary = finished
    table, differences = comparison_table(lammps_summary, deme_summary)
    throughput = {key: deme_summary[key] for key in deme_summary if key.startswith('deme_')}
    throughput['deme_total_wall_s'] = deme_wall_s
    print(f'\nscenario: {scenario.name}, slope {scenario.slope_deg} deg, {scenario.body.motion} {scenario.body.kind}, '
          f'{scenario.duration_s} s after a {scenario.body.settle_time_s} s settle, grains a = '
          f'{scenario.bed.sphere_radius_m * 1e3:.1f} mm\n{table}')
    print(f'\nDEM-Engine: {throughput["deme_sphere_steps_per_s"]:.3g} grain sphere-steps/s '
          f'({throughput["deme_grain_spheres"]} spheres, {throughput["deme_run_steps"]} steps in '
          f'{throughput["deme_run_dynamics_s"]:.1f} s of dynamics); Initialize (JIT) {throughput["deme_init_s"]:.1f} s, '
          f'bed settling {throughput["deme_settle_s"]:.1f} s, total {deme_wall_s:.1f} s')
    (out / 'comparison.json').write_text(json.dumps({'lammps': lammps_summary, 'deme': deme_summary,
                                                     'relative_difference': differences,
                                                     'deme_throughput': throughput}, indent=2) + '\n')
    print(f'dem_gpu_check: wrote {out}/comparison.json', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
