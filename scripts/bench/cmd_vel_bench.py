#!/usr/bin/env python3
"""gait:=cmd_vel and the goal loop measured in CobraSim (issue 20): the figures behind the
calibration in cobra_gaits.cmd_vel and the README section "Driving with cmd_vel".

Every case runs the gait node's cmd_vel core at 100 Hz on the engine (cobra_experiments.cmd_vel_runs),
no ROS, deterministic. Printed, per terrain (rigid ground, SCM loose sand):
* lateral speed: commanded linear.y against the COM's lateral speed over whole cycles;
* conical sidewinding: turn per cycle against taper, left and right (the slope the mapping uses),
  and a commanded turn rate against the turn per cycle it predicts (angular.z / f);
* T-Snake (rigid): travel per radian of omega_t, yaw rate per unit twist scale of each steering mode;
* go-to-goal: a goal 1.5 m away at 45 deg (world) from three start headings, miss distance at rest
  and time; a 90 deg heading goal, the heading error at rest.

    python scripts/bench/cmd_vel_bench.py            # all (about 2 min of CPU on one core)
    python scripts/bench/cmd_vel_bench.py --quick    # rigid ground only, fewer cases
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(p) for p in sorted((REPO / 'src').iterdir()) if (p / 'package.xml').exists()]

import cobra_experiments.cmd_vel_runs as runs  # noqa: E402
from cobra_experiments.cmd_vel_runs import SnakeRun, drive_to_goal, steady_motion  # noqa: E402
from cobra_gaits.cmd_vel import CmdVelSettings  # noqa: E402
from cobra_gaits.goal_controller import GoalController, GoalMode, wrap_rad  # noqa: E402
from cobra_gaits.lts import STEERING_MODES  # noqa: E402

START_HEADINGS_RAD = (0.0, 2.0, -2.0)
GOAL_DISTANCE_M = 1.5
GOAL_BEARING_RAD = math.pi / 4


def lateral_speeds(terrain: str, speeds: list[float]) -> None:
    print(f'\n[{terrain}] lateral speed: commanded -> achieved (COM, 3 whole cycles after the ramp)')
    for lateral in speeds:
        run = SnakeRun('cobra', terrain)
        motion = steady_motion(run, lateral, 0.0, cycles=3)
        print(f'  linear.y {lateral * 100:+6.2f} cm/s  f {run.source.robot.frequency_hz:.3f} Hz  achieved '
              f'{motion.lateral_m_s * 100:+6.2f} cm/s  ratio {motion.lateral_m_s / lateral:.3f}')


def taper_slope(terrain: str, tapers: list[float]) -> None:
    """Turn per cycle at a fixed frequency (0.4 Hz) for tapers set through a unit-slope settings."""
    print(f'\n[{terrain}] conical sidewinding: turn per cycle against taper (0.4 Hz)')
    unit = CmdVelSettings(turn_left_rad_per_cycle_per_taper=1.0, turn_right_rad_per_cycle_per_taper=1.0,
                          max_taper=max(abs(t) for t in tapers))
    for side, lateral in (('left', 0.08), ('right', -0.08)):
        turns = []
        for taper in tapers:
            run = SnakeRun('cobra', terrain, unit)
            frequency = abs(lateral) / unit.stride_m_per_cycle
            motion = steady_motion(run, lateral, taper * frequency, cycles=3)
            turns.append(motion.yaw_rate_rad_s / frequency)
        slope = float(np.polyfit(tapers, turns, 1)[0])
        cells = '  '.join(f'{t:+.2f}: {r:+.3f}' for t, r in zip(tapers, turns))
        print(f'  {side:5s} taper: turn [rad/cycle]  {cells}   slope {slope:+.3f} rad/cycle per taper')


def turn_prediction(terrain: str) -> None:
    print(f'\n[{terrain}] commanded turn rate -> turn per cycle (predicted = angular.z / f)')
    for lateral, angular in ((0.08, 0.05), (-0.08, 0.05), (0.06, -0.04)):
        run = SnakeRun('cobra', terrain)
        motion = steady_motion(run, lateral, angular, cycles=3)
        frequency = run.source.robot.frequency_hz
        print(f'  linear.y {lateral:+.2f} angular.z {angular:+.3f}: taper {run.source.robot.taper:+.2f}, predicted '
              f'{angular / frequency:+.3f}, measured {motion.yaw_rate_rad_s / frequency:+.3f} rad/cycle '
              f'(ratio {motion.yaw_rate_rad_s / angular:.2f})')


def tsnake() -> None:
    print('\n[rigid] T-Snake (LTS): lateral speed and steering')
    runs.TSNAKE_TURN_WINDOW_S = 10.0
    settings = CmdVelSettings()
    for lateral in (0.03, -0.03):
        motion = steady_motion(SnakeRun('tsnake', 'rigid', settings), lateral, 0.0, cycles=1)
        print(f'  linear.y {lateral:+.3f} m/s -> {motion.lateral_m_s:+.4f} m/s '
              f'(ratio {motion.lateral_m_s / lateral:.2f})')
    for mode in STEERING_MODES:
        unit = replace(settings, tsnake_steering=mode, tsnake_turn_rad_s_per_scale=1.0)
        rates = []
        for scale in (2.0, -2.0):
            rates.append(steady_motion(SnakeRun('tsnake', 'rigid', unit), 0.0, scale, cycles=1).yaw_rate_rad_s / scale)
        print(f'  {mode:14s} yaw rate per unit scale: {rates[0]:+.4f} (scale +2), {rates[1]:+.4f} (scale -2) rad/s; '
              f'calibration {settings.__class__(tsnake_steering=mode).tsnake_turn_gain():+.4f}')


def goals(terrain: str) -> None:
    print(f'\n[{terrain}] go to a goal {GOAL_DISTANCE_M} m away at {math.degrees(GOAL_BEARING_RAD):.0f} deg '
          '(world), position mode')
    for heading in START_HEADINGS_RAD:
        run = SnakeRun('cobra', terrain, initial_yaw_rad=heading)
        x, y = run.body_centre_m()
        goal = (x + GOAL_DISTANCE_M * math.cos(GOAL_BEARING_RAD), y + GOAL_DISTANCE_M * math.sin(GOAL_BEARING_RAD))
        controller = GoalController(*goal, 0.0, GoalMode.POSITION)
        result = drive_to_goal(run, controller, timeout_s=200.0)
        print(f'  start heading {math.degrees(heading):+7.1f} deg: reached {result.reached}, miss '
              f'{math.dist(result.final_xy_m, goal):.3f} m, {result.elapsed_s:.1f} s, '
              f'side {controller.side}')
    for turn in (math.pi / 2, -math.pi / 2):
        run = SnakeRun('cobra', terrain)
        start = run.heading_rad()
        result = drive_to_goal(run, GoalController(0.0, 0.0, start + turn, GoalMode.HEADING), timeout_s=200.0)
        print(f'  heading change {math.degrees(turn):+.0f} deg: reached {result.reached}, error at rest '
              f'{math.degrees(wrap_rad(result.final_heading_rad - start - turn)):+.1f} deg, {result.elapsed_s:.1f} s')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--quick', action='store_true', help='rigid ground only, fewer cases')
    arguments = parser.parse_args(argv)
    begin = time.perf_counter()
    terrains = ('rigid',) if arguments.quick else ('rigid', 'scm')
    for terrain in terrains:
        lateral_speeds(terrain, [0.08, -0.05] if arguments.quick else [0.04, 0.08, -0.06, 0.1])
        taper_slope(terrain, [-0.5, 0.5] if arguments.quick else [-0.7, -0.35, 0.35, 0.7])
        turn_prediction(terrain)
        goals(terrain)
    if not arguments.quick:
        tsnake()
    print(f'\n{time.perf_counter() - begin:.0f} s of wall time')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
