"""cobra_sweep: run a parameter sweep or a soil calibration on Ray (local or a cluster).

    cobra_sweep run config/sweeps/gait_grid.yaml --out out/sweeps/gait_grid [--num-cpus 2]
    cobra_sweep run spec.yaml --out DIR --address auto        # an existing Ray cluster
    cobra_sweep calibrate config/sweeps/soil_calibration.yaml --out DIR

Rerunning the same command resumes: trials already in DIR/results.parquet are not run again.
Bad input (unknown terrain or key, bad domain, ...) exits 2 with one message, before anything
is written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cobra_sweeps.plots import plot_sweep
from cobra_sweeps.runner import TABLE_NAME, metric_summary, run_sweep
from cobra_sweeps.spec import SweepSpec, SweepSpecError, load_spec

EXIT_BAD_INPUT = 2


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog='cobra_sweep', description=__doc__.split('\n')[0])
    parser.add_argument('command', choices=('run', 'calibrate'), help='run a sweep, or calibrate soil parameters')
    parser.add_argument('spec', type=Path, help='sweep spec YAML (config/sweeps/*.yaml)')
    parser.add_argument('--out', type=Path, required=True, help='output folder: results.parquet, plots')
    parser.add_argument('--num-cpus', type=int, default=None, help='local Ray: CPUs to use (default: all)')
    parser.add_argument('--address', default=None,
                        help="an existing Ray cluster ('auto' or host:6379); default: start Ray locally")
    parser.add_argument('--retry-failed', action='store_true', help='on resume, rerun trials whose row holds an error')
    parser.add_argument('--no-plots', action='store_true')
    parser.add_argument('--no-progress', action='store_true')
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if args.num_cpus is not None and args.num_cpus < 1:
            raise SweepSpecError(f'--num-cpus must be >= 1, got {args.num_cpus}')
        if args.num_cpus is not None and args.address:
            raise SweepSpecError('--num-cpus is for a local Ray; a cluster has its own CPUs: drop one of the two')
        spec = load_spec(args.spec)
        if args.command == 'calibrate' and not spec.target:
            raise SweepSpecError(f'{args.spec}: calibrate needs target: {{metric: measured value}}')
    except SweepSpecError as error:
        print(f'cobra_sweep: error: {error}', file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return report(args, spec)
    except ConnectionError as error:  # ray.init(address=...) found no cluster, or was refused
        print(f'cobra_sweep: error: --address {args.address}: {error}. Check the address (ray status on the head '
              f'prints it); a cluster started with token authentication (Ray 2.60 default) needs '
              f'RAY_AUTH_MODE=token and its token in ~/.ray/auth_token here too', file=sys.stderr)
        return EXIT_BAD_INPUT


def report(args: argparse.Namespace, spec: SweepSpec) -> int:
    """Runs the sweep or calibration and prints the outcome."""
    if args.command == 'calibrate':
        from cobra_sweeps.calibrate import calibrate
        result = calibrate(spec, args.out, args.num_cpus, args.address, progress=not args.no_progress)
        table = result.table
        print(f'estimate: {result.parameters} (refined between grid points: {result.refined})')
        print(f'calibration_error: best trial {result.best_trial_error:.4g}, at the estimate '
              f'{result.estimate_error if result.estimate_error is None else format(result.estimate_error, ".4g")}')
    else:
        table = run_sweep(spec, args.out, args.num_cpus, args.address, args.retry_failed, not args.no_progress)
        print(metric_summary(table, {'speed_m_s': 'max', 'cost_of_transport': 'min'}))
    failed = int(table['error'].notna().sum()) if 'error' in table else 0
    print(f'{len(table)} trials ({failed} failed) in {args.out / TABLE_NAME}')
    if not args.no_plots:
        for path in plot_sweep(table, list(spec.space), args.out):
            print(f'plot: {path}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
