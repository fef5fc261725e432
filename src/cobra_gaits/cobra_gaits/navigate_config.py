"""The navigate node's parameters as typed tables (cobra_common.config_check, as the driver's) and
the checks of a navigate_to_pose goal that its values alone can judge; no rclpy."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import fields, replace

from cobra_common.config_check import Setting
from cobra_gaits.goal_controller import GoalMode, GoalSettings, robot_goal_settings

ROBOTS = ('cobra', 'tsnake')
PARAMETERS: tuple[Setting, ...] = (
    Setting('robot', 'cobra', 'cobra | tsnake: the goal controller defaults (speeds, calibration)', choices=ROBOTS),
    Setting('frame_prefix', '', 'prefix of the odometry frame the goals are in (<prefix>odom)'),
    Setting('urdf_path', '', "robot URDF for the body pose; empty = the installed one of 'robot'"),
    Setting('goal_timeout_s', 300.0, 'abort a goal after this long [s of odometry time]', 1.0, 86400.0),
    Setting('odom_timeout_s', 5.0, 'abort a goal after this long without odometry [s, wall]', 0.1, 600.0),
    Setting('feedback_period_s', 0.2, 'feedback and navigation/status period [s of odometry time]', 0.01, 10.0),
)


def goal_settings_table(robot: str) -> tuple[Setting, ...]:
    """One row per GoalSettings field, defaulting to the robot's controller (finite numbers)."""
    defaults = robot_goal_settings(robot)
    return tuple(Setting(field.name, float(getattr(defaults, field.name)),
                         f'goal controller: {field.name} (cobra_gaits.goal_controller.GoalSettings)', number=True)
                 for field in fields(GoalSettings))


def goal_problem(frame_id: str, expected_frame: str, position_xy: Sequence[float],
                 quaternion_xyzw: Sequence[float], position_tolerance_m: float, heading_tolerance_rad: float,
                 mode: int) -> str | None:
    """Why a goal cannot be taken (None: it can); the action server refuses it with this text."""
    if frame_id not in ('', expected_frame):
        return f"frame '{frame_id}': goals are in '{expected_frame}' (the odometry's frame); no TF lookup here"
    if not all(math.isfinite(v) for v in (*position_xy, *quaternion_xyzw, position_tolerance_m,
                                          heading_tolerance_rad)):
        return 'non-finite pose or tolerance'
    if mode not in {m.value for m in GoalMode}:
        return f'mode {mode}: use ' + ', '.join(f'MODE_{m.name} ({m.value})' for m in GoalMode)
    if position_tolerance_m < 0.0 or heading_tolerance_rad < 0.0:
        return 'negative tolerance'
    if not any(quaternion_xyzw) and mode != GoalMode.POSITION.value:
        return 'a heading goal needs a unit quaternion (all four components are 0)'
    return None


def goal_settings_for(settings: GoalSettings, position_tolerance_m: float,
                      heading_tolerance_rad: float) -> GoalSettings:
    """The node's settings with a goal's own tolerances where it gives them (> 0)."""
    changes = {name: value for name, value in (('position_tolerance_m', position_tolerance_m),
                                               ('heading_tolerance_rad', heading_tolerance_rad)) if value > 0.0}
    return replace(settings, **changes).validated()
