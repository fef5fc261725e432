"""Go-to-goal / heading loop (cobra_gaits.goal_controller) on a kinematic sidewinder: the body
moves along its travel direction and turns as commanded, speed and turn following the command
through the gait's 2 s ramp, and the head that odometry reports swings through the wave."""

from __future__ import annotations

import math

import pytest

from cobra_gaits.goal_controller import (COBRA_TRAVEL_ANGLE_RAD, CycleAverage, GoalController, GoalMode,
                                         GoalSettings, Phase, wrap_rad)

DT = 0.02
COAST_S = 3.5  # 0.06 m/s coasts 0.105 m, as the sim's COBRA does after a stop (0.11 m)
HEAD_SWING_RAD = math.radians(23.0)
HEAD_SWAY_M = 0.06


class KinematicSnake:
    """Body pose (x, y, heading); `step(twist)`; `odom()` = the head's pose with the wave's swing
    (which grows with the speed, as the gait's amplitude with its ramp)."""

    def __init__(self, heading_rad: float) -> None:
        self.x = self.y = 0.0
        self.heading = heading_rad
        self.lateral = self.angular = 0.0
        self.phase = 0.0
        self.time = 0.0
        self.frequency = 0.3

    def step(self, lateral: float, angular: float) -> None:
        rate = 0.06 * DT / COAST_S  # speed slews to the command: from cruise to rest over COAST_S
        self.lateral += max(min(lateral - self.lateral, rate), -rate)
        self.angular += max(min(angular - self.angular, rate * 1.2), -rate * 1.2)
        side = 'left' if self.lateral >= 0.0 else 'right'
        travel = self.heading + COBRA_TRAVEL_ANGLE_RAD[side]
        self.x += abs(self.lateral) * math.cos(travel) * DT
        self.y += abs(self.lateral) * math.sin(travel) * DT
        self.heading += self.angular * DT
        self.phase += 2 * math.pi * self.frequency * DT * (abs(self.lateral) > 1e-4)
        self.time += DT

    def odom(self) -> tuple[float, float, float, float]:
        envelope = min(abs(self.lateral) / 0.06, 1.0)  # the wave's amplitude: straight at rest
        sway = envelope * HEAD_SWAY_M * math.sin(self.phase)
        normal = self.heading + math.pi / 2
        return (self.time, self.x + sway * math.cos(normal), self.y + sway * math.sin(normal),
                self.heading + envelope * HEAD_SWING_RAD * math.cos(self.phase))


def drive(snake: KinematicSnake, controller: GoalController, timeout_s: float = 300.0) -> None:
    while controller.phase != Phase.DONE and snake.time < timeout_s:
        status = controller.update(*snake.odom())
        snake.step(status.twist.lateral_m_s, status.twist.angular_rad_s)


def test_cycle_average_removes_the_wave_and_its_lag():
    average = CycleAverage(window_s=2.0)
    for k in range(400):
        t = k * 0.01
        average.add(t, 0.05 * t + 0.03 * math.sin(math.pi * t), 0.0, 0.4 * math.sin(math.pi * t) + 0.1)
    x, y, yaw = average.estimate()
    assert x == pytest.approx(0.05 * 3.99, abs=0.002)  # the trend now, not half a window back
    assert yaw == pytest.approx(0.1, abs=0.01)


def test_cycle_average_unwraps_yaw_across_pi():
    average = CycleAverage(window_s=1.0)
    for k in range(100):
        average.add(k * 0.01, 0.0, 0.0, wrap_rad(math.pi + 0.2 * math.sin(2 * math.pi * k * 0.01)))
    assert abs(wrap_rad(average.estimate()[2] - math.pi)) < 0.01


@pytest.mark.parametrize('start_heading_deg', [0, 45, 90, 135, 180, -45, -90, -135])
def test_reaches_a_goal_1_5_m_away_from_any_start_heading(start_heading_deg):
    snake = KinematicSnake(math.radians(start_heading_deg))
    goal = (1.5 * math.cos(math.pi / 4), 1.5 * math.sin(math.pi / 4))
    controller = GoalController(*goal, 0.0, GoalMode.POSITION)
    drive(snake, controller)
    assert controller.phase == Phase.DONE
    assert math.hypot(snake.x - goal[0], snake.y - goal[1]) < 0.1


@pytest.mark.parametrize('turn_deg', [90, -90, 170])
def test_heading_goal_ends_within_tolerance(turn_deg):
    snake = KinematicSnake(0.3)
    controller = GoalController(0.0, 0.0, 0.3 + math.radians(turn_deg), GoalMode.HEADING)
    drive(snake, controller)
    assert controller.phase == Phase.DONE
    assert abs(math.degrees(wrap_rad(snake.heading - 0.3 - math.radians(turn_deg)))) < 10.0


def test_pose_goal_reaches_the_position_then_the_heading():
    snake = KinematicSnake(0.0)
    controller = GoalController(-1.0, 1.0, math.radians(60), GoalMode.POSE)
    drive(snake, controller, 600.0)
    assert controller.phase == Phase.DONE and controller.stage == GoalMode.HEADING
    assert abs(math.degrees(wrap_rad(snake.heading - math.radians(60)))) < 10.0


def test_side_and_turn_sense_follow_the_bearing():
    controller = GoalController(0.0, 2.0, 0.0, GoalMode.POSITION)  # straight to the left of a body along +x
    status = controller.update(0.0, 0.0, 0.0, 0.0)
    assert controller.side == 'left' and status.twist.lateral_m_s > 0.0
    assert status.twist.angular_rad_s == pytest.approx(
        GoalSettings().heading_gain_per_s * wrap_rad(math.pi / 2 - COBRA_TRAVEL_ANGLE_RAD['left']))
    controller = GoalController(0.0, -2.0, 0.0, GoalMode.POSITION)
    assert controller.update(0.0, 0.0, 0.0, 0.0).twist.lateral_m_s < 0.0 and controller.side == 'right'


def test_goal_within_reach_of_the_turning_circle_backs_off_first():
    """A goal abeam the travel direction and closer than the turning circle: drive the other way."""
    controller = GoalController(0.5, 0.0, 0.0, GoalMode.POSITION)  # ahead along the body: 90 deg off either side
    status = controller.update(0.0, 0.0, 0.0, 0.0)
    assert controller.backing
    forward = 1.0 if controller.side == 'left' else -1.0
    assert status.twist.lateral_m_s * forward < 0.0


def test_stops_with_a_zero_twist_and_reports_done_after_settling():
    settings = GoalSettings(settle_s=1.0)
    controller = GoalController(0.0, 0.03, 0.0, GoalMode.POSITION, settings)
    status = controller.update(0.0, 0.0, 0.0, 0.0)
    assert status.phase == Phase.STOPPING and status.twist.lateral_m_s == status.twist.angular_rad_s == 0.0
    assert controller.update(0.5, 0.0, 0.0, 0.0).phase == Phase.STOPPING
    assert controller.update(1.0, 0.0, 0.0, 0.0).phase == Phase.DONE


def test_refuses_non_finite_goals_and_settings():
    with pytest.raises(ValueError, match='goal x'):
        GoalController(math.nan, 0.0, 0.0, GoalMode.POSITION)
    with pytest.raises(ValueError, match='cruise_m_s'):
        GoalSettings(cruise_m_s=0.0).validated()


def drive_lagging(snake: KinematicSnake, controller: GoalController, lag_s: float, timeout_s: float = 300.0) -> None:
    """The controller sees the odometry lag_s late, as a navigate node that lags an unpaced sim."""
    seen: list[tuple[float, float, float, float]] = []
    while controller.phase != Phase.DONE and snake.time < timeout_s:
        seen.append(snake.odom())
        late = [sample for sample in seen if sample[0] <= snake.time - lag_s + 1e-9]
        status = controller.update(*(late[-1] if late else seen[0]))
        snake.step(status.twist.lateral_m_s, status.twist.angular_rad_s)


def test_a_stop_that_ends_further_off_than_a_stop_can_miss_drives_again():
    """Seen 3 s late, the stop lands 0.18 m past the goal (more than coast_m + the tolerance): the
    controller waits until the odometry shows the body still, then drives again from rest (it used
    to report the goal reached there)."""
    snake = KinematicSnake(0.0)
    controller = GoalController(0.0, 0.6, 0.0, GoalMode.POSITION)
    drive_lagging(snake, controller, lag_s=3.0)
    settings = GoalSettings()
    assert controller.phase == Phase.DONE and controller.approaches >= 2
    assert math.hypot(snake.x, snake.y - 0.6) <= settings.coast_m + settings.position_tolerance_m


def test_a_goal_is_done_only_once_the_odometry_shows_the_body_still():
    """Seen 2 s late, the body is still coasting when settle_s has passed since the stop: the result
    waits for it to come to rest in the odometry, so the distance reported is the one at rest."""
    snake = KinematicSnake(0.0)
    controller = GoalController(0.0, 0.6, 0.0, GoalMode.POSITION)
    drive_lagging(snake, controller, lag_s=2.0)
    assert controller.phase == Phase.DONE and controller.filter.moved_m(1.0) <= 0.01
    assert controller.last.distance_m == pytest.approx(math.hypot(snake.x, snake.y - 0.6), abs=0.02)
