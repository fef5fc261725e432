#!/usr/bin/env python3
"""Benchmark one LTS joint-angle update (18 joints, the LTS paper §III-D2) against a bare numpy tick.

Target: one update well under the node period, < 0.2 ms per tick (issue 9). Measured in the same
run, in alternating blocks so machine load hits all alike:
* bare: the cheapest possible gait tick for 18 joints, a serpenoid q = A sin(w t + k dphi) in
  numpy (one np.sin over an 18-vector plus the multiply-add): the floor of any numpy gait update.
* lts: LtsJointGenerator.positions_rad(t) for a preset (curve table lookups, bellows curvature
  integrals over 6 modules, the 2x2 damped bending solve, the twist).
* continuous: the "existing" continuous integration (8 samples per module), for comparison.
Printed: median and p99 microseconds per tick and the ratio to bare.

    python scripts/bench/lts_bench.py --preset twisting --blocks 40 --ticks 250
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

from cobra_gaits.lts import PRESET_NAMES, LtsJointGenerator, lts_preset  # noqa: E402
from cobra_gaits.sidewinding import GaitError  # noqa: E402

TARGET_US = 200.0


def time_block_us(update: Callable[[float], np.ndarray], start_s: float, ticks: int, step_s: float) -> np.ndarray:
    """Per-tick wall time of `ticks` consecutive updates, in microseconds."""
    out = np.empty(ticks)
    t = start_s
    for index in range(ticks):
        begin = time.perf_counter()
        update(t)
        out[index] = time.perf_counter() - begin
        t += step_s
    return out * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--preset', default='twisting', help=f"one of {', '.join(PRESET_NAMES)}")
    parser.add_argument('--blocks', type=int, default=40, help='alternating measurement blocks per method')
    parser.add_argument('--ticks', type=int, default=250, help='updates per block')
    args = parser.parse_args()
    if args.blocks < 1 or args.ticks < 1:
        print('error: --blocks and --ticks must be >= 1', file=sys.stderr)
        return 2
    try:
        generator = LtsJointGenerator(lts_preset(args.preset))
    except GaitError as error:
        print(f'error: {error}', file=sys.stderr)
        return 2
    step_s = generator.gait.time_step_s
    amplitude = np.full(18, 0.5)
    phase_step = np.arange(18) * (np.pi / 6)

    def bare(t: float) -> np.ndarray:
        return amplitude * np.sin(2.0 * np.pi * 0.4 * t + phase_step)

    methods: dict[str, Callable[[float], np.ndarray]] = {
        'bare numpy': bare, 'lts': generator.positions_rad,
        'continuous': lambda t: generator.continuous_angles_rad(t).ravel()}
    samples: dict[str, list[np.ndarray]] = {name: [] for name in methods}
    for name, update in methods.items():  # warm-up (tables, caches)
        time_block_us(update, 0.0, 50, step_s)
    for block in range(args.blocks):
        for name, update in methods.items():
            samples[name].append(time_block_us(update, block * args.ticks * step_s, args.ticks, step_s))
    bare_median = float(np.median(np.concatenate(samples['bare numpy'])))
    print(f'LTS joint-angle update, preset {args.preset!r}, 18 joints, {args.blocks} x {args.ticks} ticks per method')
    print(f'{"method":<12} {"median us":>10} {"p99 us":>8} {"x bare":>8}')
    for name, blocks in samples.items():
        values = np.concatenate(blocks)
        median = float(np.median(values))
        print(f'{name:<12} {median:10.1f} {np.percentile(values, 99):8.1f} {median / bare_median:8.1f}')
    lts_median = float(np.median(np.concatenate(samples['lts'])))
    verdict = 'meets' if lts_median < TARGET_US else 'MISSES'
    print(f'lts median {lts_median:.1f} us per tick {verdict} the target of < {TARGET_US:.0f} us '
          f'({100 * lts_median / (step_s * 1e6):.2f} % of the {step_s * 1e3:.0f} ms command period)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
