"""gait:=cmd_vel and the goal loop played on CobraSim (cobra_experiments.cmd_vel_runs): what the
issue checks, judged in sim time on the engine (no ROS; the node-level tests are in cobra_gaits).

Measured figures for the README come from scripts/bench/cmd_vel_bench.py; these are the short
representative cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cobra_experiments.cmd_vel_runs import SnakeRun, drive_to_goal, steady_motion
from cobra_gaits.cmd_vel import CmdVelSettings
from cobra_gaits.goal_controller import GoalController, GoalMode, wrap_rad


@pytest.mark.parametrize('terrain', ['rigid', 'scm'])
def test_commanded_lateral_speed_is_reached_within_20_percent(terrain):
    for lateral in ((0.08, -0.05) if terrain == 'rigid' else (0.06,)):
        motion = steady_motion(SnakeRun('cobra', terrain), lateral, 0.0, cycles=2)
        assert motion.lateral_m_s == pytest.approx(lateral, rel=0.2), (terrain, lateral, motion)


@pytest.mark.parametrize('lateral', [0.08, -0.08])
def test_commanded_turn_rate_gives_the_predicted_turn_per_cycle(lateral):
    """Conical sidewinding at taper -0.39 / +0.39: predicted turn per cycle = angular.z / f."""
    run = SnakeRun('cobra', 'rigid')
    motion = steady_motion(run, lateral, 0.05, cycles=3)
    frequency = run.source.robot.frequency_hz
    assert frequency == pytest.approx(0.4)
    predicted = 0.05 / frequency
    assert motion.yaw_rate_rad_s / frequency == pytest.approx(predicted, rel=0.25)


def test_a_90_degree_heading_change_holds_within_10_degrees():
    run = SnakeRun('cobra', 'rigid')
    start = run.heading_rad()
    controller = GoalController(0.0, 0.0, start + math.pi / 2, GoalMode.HEADING)
    result = drive_to_goal(run, controller, timeout_s=90.0)
    assert result.reached
    assert abs(math.degrees(wrap_rad(result.final_heading_rad - start - math.pi / 2))) < 10.0
    run.run(3.0)  # held: no twist, the heading stays
    assert abs(math.degrees(wrap_rad(run.heading_rad() - start - math.pi / 2))) < 10.0


def test_goal_1_5_m_away_at_45_degrees_is_reached_within_0_1_m_on_rigid_ground():
    """One representative start (the benchmark runs three headings on rigid ground and SCM)."""
    run = SnakeRun('cobra', 'rigid', initial_yaw_rad=2.0)
    x, y = run.body_centre_m()
    goal = (x + 1.5 * math.cos(math.pi / 4), y + 1.5 * math.sin(math.pi / 4))
    result = drive_to_goal(run, GoalController(*goal, 0.0, GoalMode.POSITION), timeout_s=150.0)
    assert result.reached
    assert math.dist(result.final_xy_m, goal) < 0.1


def test_a_stale_cmd_vel_stops_the_robot():
    """Straight and still once the ramp ended: the resting body only rocks a few mm on its round
    links (the sim's contact), against 0.24 m in the same 3 s had the twist still counted."""
    run = SnakeRun('cobra', 'rigid')
    run.run(5.0, lambda r: r.command(0.08, 0.02))
    moving_from = run.com_xy_m()
    run.run(1.0)  # silent: the source follows the last twist for timeout_s (0.5 s), then ramps down
    assert np.linalg.norm(run.com_xy_m() - moving_from) > 0.03
    run.run(2.5)  # the 2 s ramp ends
    assert run.source.stale and np.abs(run.source.positions()).max() == 0.0
    resting_from = run.com_xy_m()
    run.run(3.0)
    assert np.linalg.norm(run.com_xy_m() - resting_from) < 0.03
    assert np.abs(run.sim.joint_velocities()).max() < 0.05


def test_the_straightened_robot_does_not_roll_on_after_a_stop():
    """Stopped after 6 s of sidewinding to the right, the ramp down leaves the body spinning about
    its long axis; on the paper's law alone the straight body of cylinders rolled on at 2-4 cm/s
    for 20 s and more. The ground's rolling resistance brings it to rest within 6 s."""
    run = SnakeRun('cobra', 'rigid')
    run.run(6.0, lambda r: r.command(-0.05))
    run.command(0.0)
    run.run(6.0)
    resting_from = np.array(run.body_centre_m())
    run.run(2.0)
    assert np.linalg.norm(np.array(run.body_centre_m()) - resting_from) < 0.005


def test_bad_twists_change_nothing_in_the_sim():
    def trajectory(bad: bool) -> np.ndarray:
        run = SnakeRun('cobra', 'rigid')
        samples = []

        def each_tick(r: SnakeRun) -> None:
            r.command(0.06, 0.03)
            if bad:
                r.source.on_twist((0.0, math.nan, 0.0), (0.0, 0.0, 0.0))
                r.source.on_twist((0.0, 0.05, math.inf), (0.0, 0.0, 0.0))
            samples.append(np.concatenate([r.com_xy_m(), r.sim.joint_positions()]))
        run.run(4.0, each_tick)
        assert run.source.guard.rejections['non_finite'] == (800 if bad else 0)
        return np.array(samples)
    np.testing.assert_array_equal(trajectory(True), trajectory(False))


def test_tsnake_follows_lateral_speed_and_turns_the_commanded_way():
    motion = steady_motion(SnakeRun('tsnake', 'rigid'), 0.03, 0.0, cycles=1)
    assert motion.lateral_m_s == pytest.approx(0.03, rel=0.2)
    settings = CmdVelSettings()  # in_place steering
    for angular in (0.06, -0.06):
        turning = steady_motion(SnakeRun('tsnake', 'rigid', settings), 0.0, angular, cycles=1)
        assert turning.yaw_rate_rad_s * angular > 0.0
        assert turning.yaw_rate_rad_s == pytest.approx(angular, rel=0.5)
