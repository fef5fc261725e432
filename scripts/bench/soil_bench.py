#!/usr/bin/env python3
"""SCM soil micro-benchmark: time per 1 ms step for 12 COBRA-sized links resting on loose sand.

Twelve horizontal cylinders (r 0.03-0.04 m, 0.14 m long) in a sidewinding-like zigzag sit 1 cm
deep in the thesis's loose sand and slide sideways at 0.1 m/s with a small vertical bob, so
every step meets fresh soil, yields and bulldozes (the expensive case). For Δ = 0.02 m and
0.01 m it prints the time per step split into ray casting / soil update / bulldozing, the SCM
real-time factor (1 ms / SCM time per step), and ratios to bare baselines measured in the same
run on the same core:
  - numpy: one vectorised pass of the per-node soil law (elastic trial, Bekker, damping, Janosi,
    force sum) over the same number of loaded nodes - how many "numpy passes" a step costs;
  - rigid engine (if cobra_sim.engine imports): the rigid-ground sidewinding engine's step time,
    giving the projected engine real-time factor with SCM = 1 ms / (rigid step + SCM step).
Targets (issue 8): engine RTF >= 5 at Δ = 0.02 m and >= 2 at Δ = 0.01 m, one core.

Run:  .venv/bin/python scripts/bench/soil_bench.py [--steps 3000] [--no-engine]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
for package in (REPO_ROOT / 'src').iterdir():
    sys.path.insert(0, str(package))

from cobra_soil import BodyGeometry, CollisionShape, ScmTerrain, load_scm_params  # noqa: E402

CORE = 0
DT_S = 1e-3
N_LINKS = 12
LINK_LENGTH_M = 0.14
QUARTER_TURN_ABOUT_Y = ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0), (-1.0, 0.0, 0.0))   # cylinder axis -> body x


def make_links() -> tuple[list[BodyGeometry], np.ndarray, np.ndarray, np.ndarray]:
    """Bodies, origins [12,3], rotations [12,3,3] (zigzag in yaw) and radii."""
    radii = np.linspace(0.03, 0.04, N_LINKS)
    bodies = [BodyGeometry(f'link_{k}', 0.46, (CollisionShape('cylinder', (radii[k], 0.5 * LINK_LENGTH_M),
                                                               rotation=QUARTER_TURN_ABOUT_Y),))
              for k in range(N_LINKS)]
    yaw = 0.35 * np.where(np.arange(N_LINKS) % 2 == 0, 1.0, -1.0)
    positions = np.zeros((N_LINKS, 3))
    rotations = np.zeros((N_LINKS, 3, 3))
    x = 0.0
    for k in range(N_LINKS):
        c, s = math.cos(yaw[k]), math.sin(yaw[k])
        rotations[k] = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
        positions[k] = [x, 0.5 * LINK_LENGTH_M * s * (k % 2), radii[k] - 0.01]
        x -= LINK_LENGTH_M * c
    return bodies, positions, rotations, radii


def bench_scm(spacing_m: float, steps: int) -> dict[str, float]:
    params = load_scm_params(REPO_ROOT / 'config' / 'soil' / 'loose_sand.yaml')
    params = replace(params, grid=replace(params.grid, spacing_m=spacing_m))
    bodies, base_positions, rotations, radii = make_links()
    terrain = ScmTerrain(params, bodies)
    velocity = np.zeros((N_LINKS, 3))
    omega = np.zeros((N_LINKS, 3))
    phase = np.arange(N_LINKS) * math.pi / 6
    totals = np.zeros(3)
    counts = np.zeros(3)
    warmup = 50
    started = 0.0
    for k in range(steps + warmup):
        if k == warmup:
            started = time.perf_counter()
        t = k * DT_S
        positions = base_positions.copy()
        positions[:, 1] += 0.1 * t
        positions[:, 2] += 0.003 * np.sin(2 * math.pi * 0.4 * t + phase)
        velocity[:, 1] = 0.1
        velocity[:, 2] = 0.003 * 2 * math.pi * 0.4 * np.cos(2 * math.pi * 0.4 * t + phase)
        terrain.step(positions, rotations, velocity, omega, DT_S)
        if k >= warmup:
            st = terrain.last_stats
            totals += (st.ray_casting_s, st.soil_update_s, st.bulldozing_s)
            counts += (st.ray_casts, st.hits, st.erosion_nodes)
    wall_s = time.perf_counter() - started
    st = terrain.last_stats
    return {'step_s': wall_s / steps, 'ray_s': totals[0] / steps, 'soil_s': totals[1] / steps,
            'bulldoze_s': totals[2] / steps, 'rays': counts[0] / steps, 'hits': counts[1] / steps,
            'erosion_nodes': counts[2] / steps, 'allocated_nodes': st.allocated_nodes}


def bench_numpy_pass(n_nodes: int, repeats: int = 3000) -> float:
    """One vectorised numpy evaluation of the per-node soil law over n nodes (the baseline)."""
    rng = np.random.default_rng(0)
    sinkage = rng.uniform(0.005, 0.015, n_nodes)
    plastic = 0.5 * sinkage
    shear = rng.uniform(0.0, 0.05, n_nodes)
    velocity = rng.normal(0.0, 0.1, (n_nodes, 3))
    lever = rng.normal(0.0, 0.1, (n_nodes, 3))
    started = time.perf_counter()
    for _ in range(repeats):
        sigma = np.minimum(2.5e6 * (sinkage - plastic), (25.0 * 10.0 + 5e4) * sinkage ** 0.6)
        sigma = np.maximum(sigma - 5e3 * velocity[:, 2], 0.0)
        tau = (25.0 + sigma * 0.53) * (1.0 - np.exp(-shear / 0.04))
        slip = np.maximum(np.hypot(velocity[:, 0], velocity[:, 1]), 1e-4)
        force = np.empty((n_nodes, 3))
        force[:, 0] = -velocity[:, 0] * tau / slip
        force[:, 1] = -velocity[:, 1] * tau / slip
        force[:, 2] = sigma
        force *= 4e-4
        np.cross(lever, force).sum(axis=0)
        force.sum(axis=0)
    return (time.perf_counter() - started) / repeats


def bench_rigid_engine_step_s(seconds: float = 4.0) -> float | None:
    """Wall time per 1 ms step of the rigid-ground sidewinding engine (None if it cannot run)."""
    try:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from sim_bench import bench_engine  # noqa: PLC0415
        return 1e-3 / bench_engine(seconds)
    except Exception as exc:   # the engine is someone else's moving target; the soil figures stand alone
        print(f'rigid engine: not measured ({type(exc).__name__}: {exc})')
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--steps', type=int, default=3000)
    parser.add_argument('--no-engine', action='store_true', help='skip the rigid-engine baseline')
    args = parser.parse_args()
    os.sched_setaffinity(0, {CORE})
    rigid_step_s = None if args.no_engine else bench_rigid_engine_step_s()
    print(f'SCM, {N_LINKS} cylinder links (r 0.03-0.04 m, 0.14 m) sliding at 0.1 m/s, loose sand, '
          f'bulldozing on, 1 ms steps, one core ({args.steps} steps):')
    for spacing_m, target in ((0.02, 5.0), (0.01, 2.0)):
        r = bench_scm(spacing_m, args.steps)
        numpy_s = bench_numpy_pass(max(1, int(round(r['hits']))))
        rest_s = r['step_s'] - r['ray_s'] - r['soil_s'] - r['bulldoze_s']
        print(f'  Δ = {spacing_m:.2f} m: {r["step_s"] * 1e6:7.1f} µs/step '
              f'(ray casting {r["ray_s"] * 1e6:6.1f}, soil update {r["soil_s"] * 1e6:6.1f}, '
              f'bulldozing {r["bulldoze_s"] * 1e6:6.1f}, rest {rest_s * 1e6:5.1f})')
        print(f'      {r["rays"]:.0f} rays, {r["hits"]:.0f} loaded nodes, {r["erosion_nodes"]:.0f} erosion nodes '
              f'per step, {r["allocated_nodes"]} nodes stored')
        print(f'      SCM alone real-time factor {DT_S / r["step_s"]:6.1f}; '
              f'ratio to one numpy pass of the node law over the loaded nodes '
              f'({numpy_s * 1e6:.1f} µs): {r["step_s"] / numpy_s:5.2f}')
        if rigid_step_s is not None:
            projected = DT_S / (rigid_step_s + r['step_s'])
            print(f'      rigid engine {rigid_step_s * 1e6:.1f} µs/step (RTF {DT_S / rigid_step_s:.1f}); '
                  f'projected engine RTF with SCM {projected:5.1f} (target >= {target:.0f}); '
                  f'SCM / rigid step = {r["step_s"] / rigid_step_s:.2f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
