"""Driver parameters: one table (name, default, description, range) and the DriverConfig built from it.

The node declares exactly these parameters; joint limits come from the URDF through
cobra_description, never from this file or the YAML.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cobra_description.robot_model import RobotModel, load_robot_model

from cobra_driver import control_table as ct
from cobra_driver.commands import MODES
from cobra_driver.driver_core import DriverConfig
from cobra_driver.joint_map import JointServo


@dataclass(frozen=True)
class Parameter:
    name: str
    default: Any
    description: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] | None = None


GAIT_JOINTS = [f'joint_{i}' for i in range(1, 12)]

PARAMETERS: tuple[Parameter, ...] = (
    Parameter('port', '/dev/ttyUSB0', 'serial device of the U2D2 (a udev symlink is better, see README)'),
    Parameter('baud_rate', 4_000_000, 'bus baud rate [bit/s]; must equal every servo\'s Baud Rate register',
              choices=(57600, 115200, 1_000_000, 2_000_000, 3_000_000, 4_000_000)),
    Parameter('rate_hz', 500.0, 'control loop rate [Hz]', 1.0, 1000.0),
    Parameter('usb_latency_ms', 1.0, 'USB adapter latency timer the packet timeout assumes [ms]', 0.0, 32.0),
    Parameter('packet_timeout_margin_ms', 1.0, 'extra wait for a reply beyond wire time + 2 x latency [ms]',
              0.0, 100.0),
    Parameter('joint_names', GAIT_JOINTS, 'joints driven by XH540 servos, head to tail'),
    Parameter('joint_ids', list(range(1, 12)), 'servo ID of each entry of joint_names'),
    Parameter('zero_offsets_rad', [0.0] * 11, 'servo angle from tick 2048 where each joint reads zero [rad]'),
    Parameter('directions', [1] * 11, 'direction sign of each joint (+1 or -1)'),
    Parameter('joint_model', 'XH540-W270-R', 'servo model of the joints', choices=tuple(ct.MODELS_BY_NAME)),
    Parameter('latch_joint', 'latch_joint', 'URDF joint of the latch'),
    Parameter('latch_id', 12, 'servo ID of the latch; -1 = no latch', -1, 252),
    Parameter('latch_zero_offset_rad', 0.0, 'servo angle from tick 2048 where the latch reads zero [rad]'),
    Parameter('latch_direction', 1, 'direction sign of the latch (+1 or -1)', -1, 1),
    Parameter('latch_model', 'XC330-T288-T', 'servo model of the latch', choices=tuple(ct.MODELS_BY_NAME)),
    Parameter('operating_mode', ct.OperatingMode.POSITION, 'joint operating mode (3 position, 5 current-based '
              'position)', choices=(ct.OperatingMode.POSITION, ct.OperatingMode.CURRENT_BASED_POSITION)),
    Parameter('latch_operating_mode', ct.OperatingMode.CURRENT_BASED_POSITION, 'latch operating mode',
              choices=(ct.OperatingMode.POSITION, ct.OperatingMode.CURRENT_BASED_POSITION)),
    Parameter('profile_velocity', 0, 'Profile Velocity register (0.229 rev/min units, 0 = unlimited)', 0, 32767),
    Parameter('profile_acceleration', 0, 'Profile Acceleration register (214.577 rev/min^2 units, 0 = unlimited)',
              0, 32767),
    Parameter('position_p_gain', 800, 'Position P Gain register', 0, 16383),
    Parameter('position_i_gain', 0, 'Position I Gain register', 0, 16383),
    Parameter('position_d_gain', 0, 'Position D Gain register', 0, 16383),
    Parameter('bus_watchdog_ms', 100.0, 'servos stop if the host is silent this long [ms] (20 ms steps, 0 = off)',
              0.0, 2540.0),
    Parameter('allow_missing', False, 'start even if some servos do not answer'),
    Parameter('torque_on_start', True, 'enable torque once started'),
    Parameter('keep_torque_on_shutdown', False, 'leave torque on when the node exits (holding position)'),
    Parameter('latency_timer_policy', 'warn', "'warn' or 'fail' when the FTDI latency timer is not 1 ms",
              choices=('warn', 'fail')),
    Parameter('sysfs_root', '/sys', 'root of sysfs (tests point it at a fake tree)'),
    Parameter('reboot_on_startup_error', True, 'reboot servos found in hardware-error state at start-up'),
    Parameter('fault_after_failures', 25, 'consecutive failed reads that mark a servo faulted', 1, 100000),
    Parameter('status_poll_period_s', 0.5, 'period of the voltage/temperature poll [s]', 0.05, 60.0),
    Parameter('reconnect_min_s', 0.2, 'first reconnect back-off [s]', 0.01, 60.0),
    Parameter('reconnect_max_s', 5.0, 'largest reconnect back-off [s]', 0.01, 600.0),
    Parameter('command_timeout_s', 0.2, 'hold when no command arrived for this long [s]', 0.01, 10.0),
    Parameter('command_mode', 'interpolate', 'between command arrivals: hold or interpolate', choices=MODES),
    Parameter('latch_engaged_rad', float('nan'), 'latch angle when engaged [rad]; NaN = URDF upper limit'),
    Parameter('latch_released_rad', float('nan'), 'latch angle when released [rad]; NaN = URDF lower limit'),
    Parameter('latch_tolerance_rad', 0.05, 'latch counts as there within this angle [rad]', 0.001, 1.0),
    Parameter('latch_grip_current_a', 0.3, 'current that confirms a gripping latch near its target [A]', 0.0, 2.0),
    Parameter('latch_grip_window_rad', 0.5, 'gripping counts only this close to the target [rad]', 0.0, 3.2),
    Parameter('latch_goal_current_a', 0.5, 'current limit of the latch in current-based position mode [A]',
              0.0, 2.0),
    Parameter('latch_timeout_s', 2.0, 'latch/set reports failure after this long [s]', 0.1, 30.0),
    Parameter('urdf_path', '', 'URDF to read joint limits from; empty = the COBRA URDF'),
    Parameter('diagnostics_period_s', 1.0, 'diagnostics publishing period [s]', 0.1, 60.0),
)

PARAMETER_BY_NAME = {p.name: p for p in PARAMETERS}


class ConfigError(ValueError):
    """A parameter is inconsistent; the message names it and the fix."""


def validate(name: str, value: Any) -> str | None:
    """Reason the value is unacceptable, or None."""
    spec = PARAMETER_BY_NAME.get(name)
    if spec is None:
        return None
    if spec.choices is not None and value not in spec.choices:
        return f'{name} must be one of {list(spec.choices)}, got {value!r}'
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if spec.minimum is not None and value < spec.minimum:
            return f'{name} must be >= {spec.minimum}, got {value}'
        if spec.maximum is not None and value > spec.maximum:
            return f'{name} must be <= {spec.maximum}, got {value}'
    return None


def _optional(value: float) -> float | None:
    return None if math.isnan(value) else float(value)  # NaN means "use the URDF"


def build_config(values: Mapping[str, Any], robot: RobotModel | None = None) -> DriverConfig:
    """DriverConfig from parameter values (missing ones take their defaults)."""
    params = {p.name: values.get(p.name, p.default) for p in PARAMETERS}
    for name, value in params.items():
        reason = validate(name, value)
        if reason:
            raise ConfigError(reason)
    if robot is None:
        robot = load_robot_model(params['urdf_path'] or None)
    names, ids = list(params['joint_names']), list(params['joint_ids'])
    offsets, directions = list(params['zero_offsets_rad']), list(params['directions'])
    if not len(names) == len(ids) == len(offsets) == len(directions):
        raise ConfigError(f'joint_names ({len(names)}), joint_ids ({len(ids)}), zero_offsets_rad ({len(offsets)}) '
                          f'and directions ({len(directions)}) must have one entry per joint')
    joint_model = ct.model_by_name(params['joint_model'])
    joints = [_joint_servo(robot, name, sid, joint_model, offset, direction)
              for name, sid, offset, direction in zip(names, ids, offsets, directions)]
    latch = None
    if params['latch_id'] >= 0:
        latch = _joint_servo(robot, params['latch_joint'], params['latch_id'], ct.model_by_name(params['latch_model']),
                             params['latch_zero_offset_rad'], params['latch_direction'])
    return DriverConfig(
        port=params['port'], joints=joints, latch=latch, baud_rate=int(params['baud_rate']),
        rate_hz=float(params['rate_hz']), usb_latency_ms=float(params['usb_latency_ms']),
        packet_timeout_margin_ms=float(params['packet_timeout_margin_ms']),
        operating_mode=int(params['operating_mode']), latch_operating_mode=int(params['latch_operating_mode']),
        profile_velocity=int(params['profile_velocity']), profile_acceleration=int(params['profile_acceleration']),
        position_p_gain=int(params['position_p_gain']), position_i_gain=int(params['position_i_gain']),
        position_d_gain=int(params['position_d_gain']), bus_watchdog_ms=float(params['bus_watchdog_ms']),
        allow_missing=bool(params['allow_missing']), torque_on_start=bool(params['torque_on_start']),
        keep_torque_on_shutdown=bool(params['keep_torque_on_shutdown']),
        latency_timer_policy=params['latency_timer_policy'], sysfs_root=params['sysfs_root'],
        reboot_on_startup_error=bool(params['reboot_on_startup_error']),
        fault_after_failures=int(params['fault_after_failures']),
        status_poll_period_s=float(params['status_poll_period_s']),
        reconnect_min_s=float(params['reconnect_min_s']), reconnect_max_s=float(params['reconnect_max_s']),
        command_timeout_s=float(params['command_timeout_s']), command_mode=params['command_mode'],
        command_joints=[robot.joint(name) for name in names],
        latch_engaged_rad=_optional(params['latch_engaged_rad']),
        latch_released_rad=_optional(params['latch_released_rad']),
        latch_tolerance_rad=float(params['latch_tolerance_rad']),
        latch_grip_current_a=float(params['latch_grip_current_a']),
        latch_grip_window_rad=float(params['latch_grip_window_rad']),
        latch_goal_current_a=float(params['latch_goal_current_a']),
        latch_timeout_s=float(params['latch_timeout_s']))


def _joint_servo(robot: RobotModel, name: str, servo_id: int, model: ct.ServoModel, offset: float,
                 direction: int) -> JointServo:
    joint = robot.joint(name)
    if joint.limits is None:
        raise ConfigError(f"URDF joint '{name}' has no <limit>; the driver needs its range")
    try:
        return JointServo(name, int(servo_id), model, float(offset), int(direction),
                          joint.limits.lower_rad, joint.limits.upper_rad)
    except ValueError as error:
        raise ConfigError(str(error)) from error
