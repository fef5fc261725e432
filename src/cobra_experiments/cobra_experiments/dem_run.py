"""Batch DEM tumbling run (issue 11): scenario YAML -> trajectory.npz, particles.npz, summary.json.

Settles the bed (LAMMPS: once, cached under out/dem_cache/ by the scenario's bed hash), drops the
body (the wheel, or the latched COBRA loop of config/dem/tumble_cobra.yaml), tilts gravity and
runs, printing a progress bar with ETA. Backend lammps (CPU, MPI) or deme (Chrono DEM-Engine on an
NVIDIA GPU: `pip install "deme[cuda12]"`; JIT-compiles its kernels at start). Bad input
(scenario errors, MPI requested without an MPI library, backend deme where no NVIDIA driver or no
`deme` is present) prints one message naming the fix and exits 2 before anything is written.

Run:  .venv/bin/python -m cobra_experiments.dem_run [config/dem/tumble_slope.yaml] [--out out/dem/NAME]
          [--backend lammps|deme] [--ranks 2] [--duration 1.0] [--set body.motion=free --set slope_deg=20]
--ranks N > 1 re-runs this script under the venv's `mpirun -np N` (load balanced: shift z).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml


from cobra_dem.scenario import default_scenario_file, dem_cache_dir, BACKENDS, Scenario, ScenarioError, load_scenario, mpi_problem

UNDER_MPI_ENV = 'COBRA_DEM_UNDER_MPI'
SINGLE_THREAD_ENV = ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')


def parse_overrides(pairs: list[str]) -> dict[str, Any]:
    """`key=value` (value parsed as YAML) -> {key: value}."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition('=')
        if not sep:
            raise ScenarioError(f'--set {pair!r}: write --set key=value (e.g. --set body.motion=free)')
        out[key.strip()] = yaml.safe_load(value)
    return out


def progress_printer(duration_s: float) -> Any:
    """Callback printing `[####....] 40% t=0.80/2.00 s  elapsed 1m02s  ETA 1m33s` on stderr."""
    def report(sim_time_s: float, wall_s: float) -> None:
        fraction = min(1.0, sim_time_s / duration_s) if duration_s > 0 else 1.0
        eta_s = wall_s * (1.0 - fraction) / fraction if fraction > 0 else float('nan')
        bar = '#' * int(30 * fraction) + '.' * (30 - int(30 * fraction))
        eta = f'{int(eta_s // 60)}m{int(eta_s % 60):02d}s' if eta_s == eta_s else '?'
        sys.stderr.write(f'\r[{bar}] {100 * fraction:5.1f}% t={sim_time_s:.2f}/{duration_s:.2f} s  '
                         f'elapsed {int(wall_s // 60)}m{int(wall_s % 60):02d}s  ETA {eta}  ')
        if fraction >= 1.0:
            sys.stderr.write('\n')
        sys.stderr.flush()
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('scenario', nargs='?', default=str(default_scenario_file()))
    parser.add_argument('--out', default=None, help='output folder (default out/dem/<scenario name>)')
    parser.add_argument('--backend', choices=BACKENDS, default=None,
                        help='override the scenario\'s backend: lammps (CPU, MPI) or deme (NVIDIA GPU)')
    parser.add_argument('--ranks', type=int, default=1, help='MPI ranks (> 1 runs under mpirun; lammps only)')
    parser.add_argument('--duration', type=float, default=None, help='override duration_s')
    parser.add_argument('--set', action='append', default=[], metavar='KEY=VALUE',
                        help='override a scenario key, nested with dots (bed.depth_m=0.02)')
    parser.add_argument('--cache', default=str(dem_cache_dir()), help='settled-bed cache folder')
    args = parser.parse_args(argv)
    try:
        overrides = parse_overrides(args.set)
        if args.duration is not None:
            overrides['duration_s'] = args.duration
        if args.backend is not None:
            overrides['backend'] = args.backend
        if args.ranks < 1:
            raise ScenarioError(f'--ranks {args.ranks}: give 1 or more')
        if args.ranks > 1:
            overrides['mpi'] = True
        scenario = load_scenario(args.scenario, **overrides)
    except ScenarioError as error:
        print(f'dem_run: error: {error}', file=sys.stderr)
        return 2
    if args.ranks > 1 and os.environ.get(UNDER_MPI_ENV) != '1':
        return spawn_mpi(args.ranks, argv if argv is not None else sys.argv[1:])
    return run(scenario, args)


def spawn_mpi(ranks: int, argv: list[str]) -> int:
    """Re-run this script under the venv's mpirun (checked by Scenario.validate)."""
    problem = mpi_problem()
    if problem:
        print(f'dem_run: error: {problem}', file=sys.stderr)
        return 2
    env = dict(os.environ, **{UNDER_MPI_ENV: '1'})
    for name in SINGLE_THREAD_ENV:       # one thread per rank: numpy's BLAS pool otherwise
        env.setdefault(name, '1')        # oversubscribes the cores (2 ranks measured 2.4x slower)
    command = [shutil.which('mpirun') or 'mpirun', '-np', str(ranks), sys.executable, '-m', 'cobra_experiments.dem_run',
               *argv]
    return subprocess.call(command, env=env)


def run(scenario: Scenario, args: argparse.Namespace) -> int:
    if scenario.backend == 'deme':
        from cobra_dem.deme_backend import run_scenario
    else:
        from cobra_dem.lammps_backend import run_scenario

    out_dir = Path(args.out) if args.out else Path('out') / 'dem' / scenario.name
    started = time.monotonic()
    try:
        summary = run_scenario(scenario, out_dir, Path(args.cache), progress=progress_printer(scenario.duration_s),
                               log=lambda line: print(line, file=sys.stderr, flush=True))
    except ScenarioError as error:
        print(f'dem_run: error: {error}', file=sys.stderr)
        return 2
    if summary:
        print(json.dumps(summary, indent=2))
        print(f'dem_run: wrote {out_dir}/summary.json, trajectory.npz, particles.npz in '
              f'{time.monotonic() - started:.0f} s', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
