"""navigate_config without ROS: the goal checks the action server refuses goals with, the per-goal
tolerances and the parameter tables."""

from __future__ import annotations

import math

import pytest

from cobra_common.config_check import ConfigError, check_values
from cobra_gaits.goal_controller import GoalSettings, robot_goal_settings
from cobra_gaits.navigate_config import PARAMETERS, goal_problem, goal_settings_for, goal_settings_table

UNIT = (0.0, 0.0, 0.0, 1.0)


def problem(frame: str = 'odom', xy=(1.0, 2.0), q=UNIT, position_tolerance_m: float = 0.0,
            heading_tolerance_rad: float = 0.0, mode: int = 2) -> str | None:
    return goal_problem(frame, 'odom', xy, q, position_tolerance_m, heading_tolerance_rad, mode)


def test_a_goal_in_the_odometry_frame_or_without_a_frame_is_taken() -> None:
    assert problem() is None and problem(frame='') is None
    assert problem(q=(0.0, 0.0, 0.0, 0.0), mode=0) is None  # a position goal needs no heading


@pytest.mark.parametrize(('kwargs', 'text'), [
    ({'frame': 'map'}, "frame 'map': goals are in 'odom'"),
    ({'xy': (math.nan, 0.0)}, 'non-finite pose or tolerance'),
    ({'heading_tolerance_rad': math.inf}, 'non-finite pose or tolerance'),
    ({'mode': 3}, 'mode 3: use MODE_POSITION (0), MODE_HEADING (1), MODE_POSE (2)'),
    ({'position_tolerance_m': -0.1}, 'negative tolerance'),
    ({'q': (0.0, 0.0, 0.0, 0.0), 'mode': 1}, 'a heading goal needs a unit quaternion'),
])
def test_goals_that_cannot_be_taken_say_why(kwargs: dict, text: str) -> None:
    assert text in (problem(**kwargs) or '')


def test_a_goal_tolerance_replaces_the_nodes_only_when_given() -> None:
    settings = GoalSettings()
    assert goal_settings_for(settings, 0.0, 0.0) == settings
    tighter = goal_settings_for(settings, 0.02, 0.01)
    assert (tighter.position_tolerance_m, tighter.heading_tolerance_rad) == (0.02, 0.01)
    assert tighter.cruise_m_s == settings.cruise_m_s


def test_tables_default_to_the_robots_controller_and_refuse_an_unknown_robot() -> None:
    rows = {row.name: row.default for row in goal_settings_table('tsnake')}
    assert rows['cruise_m_s'] == robot_goal_settings('tsnake').cruise_m_s == 0.03
    assert check_values(PARAMETERS, {'robot': 'cobra'})['goal_timeout_s'] == 300.0
    with pytest.raises(ConfigError, match="robot"):
        check_values(PARAMETERS, {'robot': 'worm'})
    with pytest.raises(ConfigError, match='odom_timeout_s'):
        check_values(PARAMETERS, {'odom_timeout_s': 0.0})
