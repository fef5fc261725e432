#!/usr/bin/env python3
"""Benchmark one predicted gait cycle of the geometric-mechanics paper's predictor (50 shapes x 12 vertices).

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

--compare-sim adds the first-order sidewinding check (beyond the geometric-mechanics paper): gait1 and gait2 of
config/gait.yaml run for 3 cycles on rigid ground in cobra_sim.engine (no ROS, after a 2 s ramp
and one cycle); the predictor forecasts the same cycles from the commanded joint angles with
contact weights (eps = 1) and, for comparison, from the sim's own normal forces. Printed: stride
per cycle of both, their ratio, and the heading error of the net COM displacement (the forecast
placed on the sim's first shape by a rigid fit of the link origins).

    python scripts/bench/predictor_bench.py --blocks 20 --cycles 50 [--compare-sim]
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
LINKS = ['head_link'] + [f'link_{index}' for index in range(1, 12)]
SIM_GAITS = {'gait1': (0.4, 0.35, 0.7), 'gait2': (0.3, 0.45, 0.9)}  # config/gait.yaml (Hz, rad, rad)
SIM_CYCLES = 3
SAMPLES_PER_CYCLE = 50


def rigid_fit_2d(source: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotation and shift with R source + s ~ target (proper, least squares)."""
    centre_s, centre_t = source.mean(axis=0), target.mean(axis=0)
    u, _, vt = np.linalg.svd((source - centre_s).T @ (target - centre_t))
    sign = np.sign(np.linalg.det(vt.T @ u.T))
    rotation = vt.T @ np.diag([1.0, sign]) @ u.T
    return rotation, centre_t - rotation @ centre_s


def compare_with_sim() -> None:
    """Stride and heading of the contact-weighted forecast vs the rigid-ground sim, gait1 and gait2."""
    from cobra_description.robot_model import load_robot_model
    from cobra_gaits.predictor.contact import (force_weights, forecast_gait, module_points_m, planar_shapes_m,
                                               support_frames)
    from cobra_gaits.predictor.curve import center_of_mass
    from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams
    from cobra_sim.engine import CobraSim, SimParams
    from cobra_sim.terrain import RigidGround

    robot = load_robot_model(REPO / 'urdf' / 'cobra.urdf')
    joints = robot.gait_joints()
    names = [j.name for j in joints]
    masses = np.array([robot.links[link].inertial.mass_kg for link in LINKS])
    print(f'\nforecast vs rigid-ground sim, {SIM_CYCLES} cycles after the ramp, eps = 1 '
          f'(weights: geometric contact band 1 cm / sim normal forces)')
    print(f"{'gait':<7}{'weights':<10}{'sim m/cycle':>12}{'pred m/cycle':>13}{'ratio':>7}{'heading err deg':>16}")
    for gait, (frequency_hz, vertical_rad, horizontal_rad) in SIM_GAITS.items():
        sim = CobraSim(robot, RigidGround(), SimParams(), np.random.default_rng(0))
        sim.settle()
        generator = SidewindingGenerator([j.axis_kind for j in joints],
                                         SidewindingParams(frequency_hz, vertical_rad, horizontal_rad))
        generator.ramp.start()
        control_s = sim.params.control_period_s
        every = round(1.0 / frequency_hz / SAMPLES_PER_CYCLE / control_s)
        start = round((generator.ramp.duration_s + 1.0 / frequency_hz) / control_s)
        rows, origins, normal_forces, com = [], [], [], []
        for index in range(start + SIM_CYCLES * SAMPLES_PER_CYCLE * every + 1):
            generator.advance(control_s)
            sim.set_targets(dict(zip(names, generator.positions())))
            sim.step_control_period()
            if index >= start and (index - start) % every == 0:
                rows.append(generator.positions())
                origins.append(sim.body_state().position_m[:, :2].copy())
                normal_forces.append(sim.contact_wrenches_world()[:, 2].copy())
                com.append(sim.center_of_mass()[:2])
        sim_com = np.array(com)
        sim_travel = sim_com[-1] - sim_com[0]
        points = module_points_m(robot, names, np.array(rows), LINKS)
        frames = support_frames(points)
        first_pose = dict(zip(names, rows[0]))
        origin_points = np.stack([robot.transform(robot.root, link, first_pose)[:3, 3] for link in LINKS])[None]
        projected_origins = planar_shapes_m(origin_points, frames[:1])[0]
        rotation, shift = rigid_fit_2d(projected_origins, origins[0])
        for label, weights in (('contact', None), ('forces', force_weights(np.array(normal_forces)))):
            forecast = forecast_gait(points, masses, 1.0, weights=weights)
            predicted = center_of_mass(forecast.motion.shapes_m, masses) @ rotation.T + shift
            travel = predicted[-1] - predicted[0]
            error = np.degrees(np.arctan2(sim_travel[0] * travel[1] - sim_travel[1] * travel[0], sim_travel @ travel))
            print(f'{gait:<7}{label:<10}{np.linalg.norm(sim_travel) / SIM_CYCLES:>12.3f}'
                  f'{np.linalg.norm(travel) / SIM_CYCLES:>13.3f}'
                  f'{np.linalg.norm(travel) / np.linalg.norm(sim_travel):>7.2f}'
                  f'{error:>16.1f}')


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
    parser.add_argument('--compare-sim', action='store_true',
                        help='also compare the contact-weighted forecast with the rigid-ground sim (gait1, gait2)')
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
    if args.compare_sim:
        compare_with_sim()
    return 0


if __name__ == '__main__':
    sys.exit(main())
