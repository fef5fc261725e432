#!/usr/bin/env python3
"""Sweep benchmark: Ray's overhead per trial and its 2-core throughput, as ratios to a bare
baseline measured in the same run.

1. bare serial:   the same trials called in this process one after another (run_trial, no Ray,
                  no table): seconds per trial;
2. bare parallel: the same trials in a 2-process multiprocessing pool (the machine's own 2-core
                  scaling, the ceiling for Ray's);
3. ray, 1 CPU:    `run_sweep` (Ray tasks + the parquet table rewritten after every trial) on a
                  local Ray with num_cpus=1 -> overhead per trial = (sweep s/trial - bare s/trial)
                  / bare s/trial (target < 5 % for a 10 s sim trial);
4. ray, 2 CPUs:   the same with num_cpus=2 and twice the trials -> throughput / ray 1 CPU
                  (target >= 1.8x), also shown against bare parallel / bare serial.

5. paired (first, load-robust): on one warm local Ray with 1 CPU, blocks of `--trials` trials
                  alternate: bare loop, sweep with the table written after every trial (the old
                  runner), sweep with the table written at most once a second (now); the
                  overhead is the median over blocks of (sweep block / the bare block next to it
                  - 1), so load that drifts over the run hits both sides alike.

Ray start-up (ray.init) and each worker's first trial (imports, robot model) are excluded: a
warm-up sweep runs first on each Ray. Trials differ only by seed (distinct keys, same cost).
Run: .venv/bin/python scripts/bench/sweep_bench.py [--trials 8] [--sim-s 10] [--terrain rigid]
     [--paired-blocks 4] [--paired-only]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
for package in (REPO_ROOT / 'src').iterdir():
    sys.path.insert(0, str(package))

from cobra_sweeps.runner import TABLE_WRITE_INTERVAL_S, init_ray, run_sweep  # noqa: E402
from cobra_sweeps.spec import parse_spec  # noqa: E402
from cobra_sweeps.trial import run_trial  # noqa: E402


def trial_params(args: argparse.Namespace, seed: int) -> dict:
    return {'terrain': args.terrain, 'duration_s': args.sim_s, 'seed': seed}


def bare_serial_s(args: argparse.Namespace, seeds: list[int]) -> tuple[float, float, float]:
    """(wall s, CPU s, fastest single trial's wall s) of the trials run one after another here."""
    run_trial(trial_params(args, 10_000))  # warm-up: imports, robot model cache
    started, started_cpu = time.perf_counter(), time.process_time()
    fastest = float('inf')
    for seed in seeds:
        trial_started = time.perf_counter()
        run_trial(trial_params(args, seed))
        fastest = min(fastest, time.perf_counter() - trial_started)
    return time.perf_counter() - started, time.process_time() - started_cpu, fastest


def _pool_trial(job: tuple[argparse.Namespace, int]) -> None:
    run_trial(trial_params(*job))


def bare_parallel_s(args: argparse.Namespace, seeds: list[int]) -> float:
    with multiprocessing.get_context('spawn').Pool(2) as pool:
        pool.map(_pool_trial, [(args, 10_000), (args, 10_001)], chunksize=1)  # warm-up both workers
        started = time.perf_counter()
        pool.map(_pool_trial, [(args, seed) for seed in seeds], chunksize=1)
        return time.perf_counter() - started


def ray_sweep_s(args: argparse.Namespace, seeds: list[int], num_cpus: int) -> tuple[float, float, float, float, float]:
    """(sweep wall s, sum of the trials' own wall s and CPU s in the workers, driver CPU s,
    fastest single trial's wall s in a worker)."""
    import ray
    init_ray(num_cpus, None)
    try:
        fixed = {'terrain': args.terrain, 'duration_s': args.sim_s}
        with tempfile.TemporaryDirectory() as out:
            warm = parse_spec({'search': 'grid', 'fixed': fixed, 'space': {'seed': [10_000 + i for i in range(num_cpus)]}})
            run_sweep(warm, Path(out) / 'warm', progress=False)
            time.sleep(args.ray_settle_s)  # Ray's daemons finish starting up before the clock runs
            spec = parse_spec({'search': 'grid', 'fixed': fixed, 'space': {'seed': seeds}})
            started, started_cpu = time.perf_counter(), time.process_time()
            table = run_sweep(spec, Path(out) / 'sweep', progress=False)
            elapsed, driver_cpu = time.perf_counter() - started, time.process_time() - started_cpu
        failed = int(table['error'].notna().sum())
        if failed:
            raise SystemExit(f'{failed} bench trials failed: {table["error"].dropna().iloc[0]}')
        return (elapsed, float(table['wall_s'].sum()), float(table['cpu_s'].sum()), driver_cpu,
                float(table['wall_s'].min()))
    finally:
        ray.shutdown()


def paired_overheads(args: argparse.Namespace) -> None:
    """Median per-block overhead of the sweep (per-trial table writes vs throttled) over the bare loop."""
    import ray
    init_ray(1, None)
    fixed = {'terrain': args.terrain, 'duration_s': args.sim_s}
    ratios: dict[str, list[float]] = {'per-trial writes': [], 'throttled writes': []}
    try:
        with tempfile.TemporaryDirectory() as out:
            run_sweep(parse_spec({'search': 'grid', 'fixed': fixed, 'space': {'seed': [10_000]}}), Path(out) / 'w',
                      progress=False)
            run_trial(trial_params(args, 10_000))
            time.sleep(args.ray_settle_s)
            seed = 0
            for block in range(args.paired_blocks):
                order = list(ratios) if block % 2 == 0 else list(reversed(ratios))
                for name in order:
                    seeds = list(range(seed, seed + args.trials))
                    seed += args.trials
                    started = time.perf_counter()
                    for trial_seed in seeds:
                        run_trial(trial_params(args, trial_seed))
                    bare = time.perf_counter() - started
                    spec = parse_spec({'search': 'grid', 'fixed': fixed, 'space': {'seed': seeds}})
                    started = time.perf_counter()
                    run_sweep(spec, Path(out) / f'{name}_{block}', progress=False,
                              write_interval_s=0.0 if name == 'per-trial writes' else TABLE_WRITE_INTERVAL_S)
                    ratios[name].append((time.perf_counter() - started) / bare - 1.0)
    finally:
        ray.shutdown()
    for name, values in ratios.items():
        print(f'paired, ray 1 CPU, {name}: overhead per trial median {100 * statistics.median(values):+.1f} % '
              f'(blocks: {", ".join(f"{100 * v:+.1f}" for v in values)} %) of a {args.sim_s:g} s sim trial')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--trials', type=int, default=8, help='trials per 1-core run (2-core runs use twice as many)')
    parser.add_argument('--sim-s', type=float, default=10.0, help='measured sim seconds per trial')
    parser.add_argument('--terrain', default='rigid')
    parser.add_argument('--ray-settle-s', type=float, default=5.0, help='wait after the warm-up sweep')
    parser.add_argument('--paired-blocks', type=int, default=4, help='alternating bare / sweep blocks (0: skip)')
    parser.add_argument('--paired-only', action='store_true', help='only the paired comparison')
    args = parser.parse_args()
    if args.paired_blocks > 0:
        paired_overheads(args)
    if args.paired_only:
        return
    seeds = list(range(args.trials))
    seeds2 = list(range(2 * args.trials))

    bare1, bare1_cpu, bare_fastest = bare_serial_s(args, seeds)
    per_trial_bare = bare1 / args.trials
    print(f'bare serial:   {args.trials} trials of {args.sim_s:g} s sim on {args.terrain}: '
          f'{per_trial_bare:.3f} s/trial wall, {bare1_cpu / args.trials:.3f} s/trial CPU (1.00x)')
    bare2 = bare_parallel_s(args, seeds2)
    bare_scaling = (len(seeds2) / bare2) / (args.trials / bare1)
    print(f'bare parallel: 2 processes, {len(seeds2)} trials: {bare2 / len(seeds2):.3f} s/trial, '
          f"throughput {bare_scaling:.2f}x bare serial (the machine's own 2-core ceiling)")
    ray1, inside1, inside1_cpu, driver1_cpu, ray_fastest = ray_sweep_s(args, seeds, 1)
    overhead = (ray1 / args.trials - per_trial_bare) / per_trial_bare
    cpu_overhead = (inside1_cpu + driver1_cpu - bare1_cpu) / bare1_cpu
    print(f'ray 1 CPU:     {ray1 / args.trials:.3f} s/trial = {ray1 / bare1:.3f}x bare serial: overhead per trial '
          f'{100 * overhead:+.1f} % of a {args.sim_s:g} s sim trial by wall time (target < 5 %)')
    print(f'               by CPU time (load-proof: trial CPU in the workers + driver CPU vs bare CPU): '
          f'{100 * cpu_overhead:+.1f} %; sweep wall outside the trials themselves: '
          f'{100 * (ray1 - inside1) / inside1:+.1f} % (a trial took {inside1 / args.trials:.3f} s wall, '
          f'{inside1_cpu / args.trials:.3f} s CPU in its worker)')
    print(f'               fastest single trial (the load-robust estimate): {ray_fastest:.3f} s in a Ray worker vs '
          f'{bare_fastest:.3f} s bare = {100 * (ray_fastest / bare_fastest - 1):+.1f} %; with the sweep wall outside '
          f'the trials added: {100 * (ray_fastest / bare_fastest * (ray1 / inside1) - 1):+.1f} % (target < 5 %)')
    ray2, _, _, _, _ = ray_sweep_s(args, seeds2, 2)
    ray_scaling = (len(seeds2) / ray2) / (args.trials / ray1)
    print(f'ray 2 CPUs:    {len(seeds2)} trials: {ray2 / len(seeds2):.3f} s/trial; throughput '
          f'{ray_scaling:.2f}x ray 1 CPU (target >= 1.8x), {(len(seeds2) / ray2) / (args.trials / bare1):.2f}x bare serial, '
          f'{ray_scaling / bare_scaling:.2f} of the bare 2-process scaling')
    print(f'load average during the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs '
          f'(above the CPU count, every wall-time ratio here is contention as much as Ray)')

if __name__ == '__main__':
    main()
