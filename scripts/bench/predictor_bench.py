#!/usr/bin/env python3
"""Benchmark one predicted gait cycle of the seed-001 geometric predictor (50 shapes x 12 vertices).

Target: one cycle in < 2 ms (issue 12). Measured in the same run, in alternating blocks so machine
load hits all alike:
* bare: one numpy batched solve of the same size, np.linalg.solve on 50 3x3 systems (the linear
  algebra of a single Newton iteration over the cycle, no physics): the floor of any numpy solve.
* batched: integrate_motion(mode='batched') for one cycle of the paper's travelling-wave gait in
  SE(2) (analytic Newton, all steps solved at once through equivariance), including shape
  validation and the energy of every step.
* sequential: Alg. 1 verbatim, one SE(2) Newton solve per step (for comparison).
* se3: the SE(3) solve (finite-difference Jacobian) on the same shapes embedded in 3-D.
Printed: median and p99 milliseconds per cycle and the ratio of medians to bare.

    python scripts/bench/predictor_bench.py --blocks 20 --cycles 50
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(p) for p in sorted((REPO / 'src').iterdir()) if (p / 'package.xml').exists()]

from cobra_gaits.predictor.curve import embed_3d  # noqa: E402
from cobra_gaits.predictor.integrator import integrate_motion  # noqa: E402
from cobra_gaits.predictor.serpenoid import EllipticGait, gait_shapes  # noqa: E402

TARGET_MS = 2.0
PAPER_EPSILON = 0.1865


def time_block_ms(run: Callable[[], object], cycles: int) -> np.ndarray:
    """Wall time of `cycles` consecutive calls, in milliseconds each."""
    out = np.empty(cycles)
    for index in range(cycles):
        begin = time.perf_counter()
        run()
        out[index] = time.perf_counter() - begin
    return out * 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--blocks', type=int, default=20, help='alternating measurement blocks per method')
    parser.add_argument('--cycles', type=int, default=50, help='predicted cycles per block')
    parser.add_argument('--steps', type=int, default=50, help='shapes per gait cycle')
    parser.add_argument('--vertices', type=int, default=12, help='vertices per shape')
    parser.add_argument('--skip-se3', action='store_true', help='leave out the (slower) SE(3) solve')
    args = parser.parse_args()
    if args.blocks < 1 or args.cycles < 1 or args.steps < 2 or args.vertices < 3:
        print('error: need --blocks >= 1, --cycles >= 1, --steps >= 2 and --vertices >= 3', file=sys.stderr)
        return 2
    shapes = gait_shapes(EllipticGait(1.0, 0.0, 0.0, 0.0, 4.0, 1.0), args.steps, args.vertices)
    spatial = embed_3d(shapes)
    rng = np.random.default_rng(0)
    systems = rng.normal(size=(args.steps, 3, 3)) + 3.0 * np.eye(3)
    right = rng.normal(size=(args.steps, 3, 1))
    methods: dict[str, Callable[[], object]] = {
        'bare': lambda: np.linalg.solve(systems, right),
        'batched': lambda: integrate_motion(shapes, PAPER_EPSILON),
        'sequential': lambda: integrate_motion(shapes, PAPER_EPSILON, mode='sequential'),
    }
    if not args.skip_se3:
        methods['se3'] = lambda: integrate_motion(spatial, PAPER_EPSILON)
    for run in methods.values():
        run()  # warm-up
    samples: dict[str, list[np.ndarray]] = {name: [] for name in methods}
    for _ in range(args.blocks):
        for name, run in methods.items():
            samples[name].append(time_block_ms(run, args.cycles))
    motion = integrate_motion(shapes, PAPER_EPSILON)
    print(f'one gait cycle: {args.steps} steps x {args.vertices} vertices, eps = {PAPER_EPSILON}, '
          f'Delta_CoM = {motion.com_displacement_m:.4f} body lengths, Newton iterations <= {motion.newton_iterations}')
    bare_median = float(np.median(np.concatenate(samples['bare'])))
    print(f"{'method':<12}{'median ms':>12}{'p99 ms':>10}{'x bare':>10}")
    for name, blocks in samples.items():
        values = np.concatenate(blocks)
        median = float(np.median(values))
        print(f'{name:<12}{median:>12.4f}{np.percentile(values, 99):>10.4f}{median / bare_median:>10.1f}')
    batched_median = float(np.median(np.concatenate(samples['batched'])))
    verdict = 'meets' if batched_median < TARGET_MS else 'MISSES'
    print(f'batched cycle {batched_median:.3f} ms {verdict} the {TARGET_MS} ms target')
    return 0


if __name__ == '__main__':
    sys.exit(main())
