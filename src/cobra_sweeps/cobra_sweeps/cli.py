"""cobra_sweep: run a parameter sweep or a soil calibration on Ray (local or a cluster).

    cobra_sweep run config/sweeps/gait_grid.yaml --out out/sweeps/gait_grid [--num-cpus 2]
    cobra_sweep run spec.yaml --out DIR --address auto        # an existing Ray cluster
    cobra_sweep calibrate config/sweeps/soil_calibration.yaml --out DIR
    cobra_sweep compare-optimum --out DIR [--quick]           # predictor optimum vs physics-sim optimum

Rerunning the same command resumes: trials already in DIR/results.parquet are not run again;
Ctrl-C keeps every finished trial. DIR records its spec (sweep_spec.yaml): a spec that changes
what a row means (trial function, fixed parameters, searched names, target) is refused there;
--force deletes DIR's results and starts over. Bad input (unknown terrain or key, bad domain,
an --out that is a file, ...) exits 2 with one message, before Ray starts or anything is written.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from cobra_sweeps.compare_optimum import SIM_SWEEP_DIR, CompareBudget
from cobra_sweeps.plots import plot_sweep
from cobra_sweeps.runner import TABLE_NAME, check_out_dir, metric_summary, read_table, run_sweep
from cobra_sweeps.spec import SweepSpec, SweepSpecError, load_spec

EXIT_BAD_INPUT = 2
COMMANDS = ('run', 'calibrate', 'compare-optimum')


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog='cobra_sweep', description=__doc__.split('\n')[0])
    parser.add_argument('command', choices=COMMANDS,
                        help='run a sweep, calibrate soil parameters, or compare the predictor\'s gait optimum '
                             'with the physics sim\'s (the geometric-mechanics paper)')
    parser.add_argument('spec', type=Path, nargs='?',
                        help='sweep spec YAML (config/sweeps/*.yaml); not for compare-optimum')
    parser.add_argument('--out', type=Path, required=True, help='output folder: results.parquet, plots')
    parser.add_argument('--num-cpus', type=int, default=None, help='local Ray: CPUs to use (default: all)')
    parser.add_argument('--address', default=None,
                        help="an existing Ray cluster ('auto' or host:6379); default: start Ray locally")
    parser.add_argument('--retry-failed', action='store_true', help='on resume, rerun trials whose row holds an error')
    parser.add_argument('--force', action='store_true',
                        help='delete the results, spec record and plots of an earlier sweep in --out and start over')
    parser.add_argument('--no-plots', action='store_true')
    parser.add_argument('--no-progress', action='store_true')
    parser.add_argument('--bag', type=Path, default=None,
                        help='calibrate: take the target from this bag (stride per cycle, head height from '
                             'ground_truth/odom, sinkage from custom_data cobra.sinkage_m) instead of the spec')
    compare = parser.add_argument_group('compare-optimum')
    compare.add_argument('--quick', action='store_true', help='small budget (about 1 min on 2 cores)')
    compare.add_argument('--sim-trials', type=int, default=None, help='physics-sim trials of the Bayesian search')
    compare.add_argument('--sim-s', type=float, default=None, help='measured sim seconds per trial')
    compare.add_argument('--predictor-evaluations', type=int, default=None, help='Powell evaluations on the predictor')
    compare.add_argument('--dissipation-coefficient', type=float, default=0.0,
                         help='c of the predictor objective -stride + c E (the geometric-mechanics paper §V-B), >= 0')
    return parser.parse_args(argv)


def spec_from_bag(spec: SweepSpec, bag: Path) -> SweepSpec:
    """The spec with the bag's target (BagTargetError becomes a SweepSpecError: exit 2)."""
    from cobra_sweeps.bag_target import BagTargetError, bag_target, spec_with_bag_target
    try:
        target = bag_target(bag)
    except BagTargetError as error:
        raise SweepSpecError(str(error)) from error
    print(f'target from {bag}: ' + ', '.join(f'{k} = {v:.4g}' for k, v in target.target.items())
          + f' ({target.steady_cycles} steady cycles at {target.frequency_hz:g} Hz, track {target.head_topic}'
          + ''.join(f'; {note}' for note in target.notes) + ')')
    return spec_with_bag_target(spec, target)


def compare_budget(args: argparse.Namespace) -> CompareBudget:
    base = CompareBudget.quick() if args.quick else CompareBudget()
    budget = CompareBudget(args.predictor_evaluations or base.predictor_evaluations,
                           args.sim_trials or base.sim_trials, args.sim_s or base.sim_duration_s)
    if args.sim_trials is not None and args.sim_trials < 1 or args.predictor_evaluations is not None \
            and args.predictor_evaluations < 1 or args.sim_s is not None and not args.sim_s > 0.0:
        raise SweepSpecError('--sim-trials and --predictor-evaluations must be >= 1 and --sim-s > 0')
    if args.dissipation_coefficient < 0.0:
        raise SweepSpecError(f'--dissipation-coefficient must be >= 0, got {args.dissipation_coefficient}')
    return budget


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C


def sweep_dir(args: argparse.Namespace) -> Path:
    """The folder holding the sweep's table (compare-optimum keeps its sim sweep in a subfolder)."""
    return args.out / SIM_SWEEP_DIR if args.command == 'compare-optimum' else args.out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return run_command(args)
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C does not cut this line short
        try:
            kept = len(read_table(sweep_dir(args)))
        except Exception:  # noqa: BLE001 - no readable table: nothing kept
            kept = 0
        print(f'cobra_sweep: interrupted: {kept} finished trials kept in {sweep_dir(args) / TABLE_NAME}; run the '
              'same command again to resume (they are not run again)', file=sys.stderr)
        return EXIT_INTERRUPTED


def run_command(args: argparse.Namespace) -> int:
    try:
        if args.num_cpus is not None and args.num_cpus < 1:
            raise SweepSpecError(f'--num-cpus must be >= 1, got {args.num_cpus}')
        if args.num_cpus is not None and args.address:
            raise SweepSpecError('--num-cpus is for a local Ray; a cluster has its own CPUs: drop one of the two')
        if args.command == 'compare-optimum':
            if args.spec is not None:
                raise SweepSpecError('compare-optimum takes no spec (its search space is the paper\'s gait family): '
                                     f'drop {args.spec}')
            budget = compare_budget(args)
            from cobra_sweeps.compare_optimum import sim_search_spec
            check_out_dir(sim_search_spec(budget), args.out / SIM_SWEEP_DIR, args.force,
                          option=f'--out (its {SIM_SWEEP_DIR}/)')
        elif args.spec is None:
            raise SweepSpecError(f'{args.command} needs a sweep spec YAML, e.g. config/sweeps/gait_grid.yaml')
        else:
            spec = load_spec(args.spec)
            if args.bag is not None:
                if args.command != 'calibrate':
                    raise SweepSpecError('--bag gives a calibration target: use it with calibrate')
                spec = spec_from_bag(spec, args.bag)
            if args.command == 'calibrate' and not spec.target:
                raise SweepSpecError(f'{args.spec}: calibrate needs target: {{metric: measured value}}')
            check_out_dir(spec, args.out, args.force)
    except SweepSpecError as error:
        print(f'cobra_sweep: error: {error}', file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return run_compare(args, budget) if args.command == 'compare-optimum' else report(args, spec)
    except ConnectionError as error:  # ray.init(address=...) found no cluster, or was refused
        print(f'cobra_sweep: error: --address {args.address}: {error}. Check the address (ray status on the head '
              f'prints it); a cluster started with token authentication (Ray 2.60 default) needs '
              f'RAY_AUTH_MODE=token and its token in ~/.ray/auth_token here too', file=sys.stderr)
        return EXIT_BAD_INPUT


def run_compare(args: argparse.Namespace, budget: CompareBudget) -> int:
    from cobra_sweeps.compare_optimum import PLOT_FILE, TABLE_FILE, compare_optimum, format_table
    table = compare_optimum(args.out, budget, args.num_cpus, args.address, args.dissipation_coefficient,
                            progress=not args.no_progress, force=args.force)
    print(f'{table.attrs["predictor_evaluations"]} predictor evaluations, {table.attrs["sim_trials"]} sim trials '
          f'of {budget.sim_duration_s:g} s (rigid ground, lift ratio 0.5, 0.4 Hz)')
    print(format_table(table))
    print(f'table: {args.out / TABLE_FILE}\nplot: {args.out / PLOT_FILE}')
    return 0


def report(args: argparse.Namespace, spec: SweepSpec) -> int:
    """Runs the sweep or calibration and prints the outcome."""
    if args.command == 'calibrate':
        from cobra_sweeps.calibrate import calibrate
        result = calibrate(spec, args.out, args.num_cpus, args.address, progress=not args.no_progress,
                           force=args.force)
        table = result.table
        print(f'estimate: {result.parameters} (refined between grid points: {result.refined})')
        print(f'calibration_error: best trial {result.best_trial_error:.4g}, at the estimate '
              f'{result.estimate_error if result.estimate_error is None else format(result.estimate_error, ".4g")}')
    else:
        table = run_sweep(spec, args.out, args.num_cpus, args.address, args.retry_failed, not args.no_progress,
                          force=args.force)
        print(metric_summary(table, {'speed_m_s': 'max', 'cost_of_transport': 'min'}))
    failed = int(table['error'].notna().sum()) if 'error' in table else 0
    print(f'{len(table)} trials ({failed} failed) in {args.out / TABLE_NAME}')
    if not args.no_plots:
        for path in plot_sweep(table, list(spec.space), args.out):
            print(f'plot: {path}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
