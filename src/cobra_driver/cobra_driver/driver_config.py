"""Driver parameters: one table (name, default, description, range) and the DriverConfig built from it.

The node declares exactly these parameters; joint limits come from the URDF through
cobra_description, never from this file or the YAML. Everything that can be judged from the
parameters alone (ranges, choices, list lengths, whether the baud rate can carry the loop
rate) is checked by `check_parameters`, which the node's declare_parameters calls.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cobra_common.config_check import ConfigError, Setting, by_name
from cobra_description.robot_model import Joint, RobotModel, load_robot_model

from cobra_driver import control_table as ct
from cobra_driver.commands import MODES
from cobra_driver.dynamixel_bus import FeedbackBlock, sync_read_bytes, sync_write_bytes, wire_time_s
from cobra_driver.joint_map import JointServo

BAUD_RATES = (57600, 115200, 1_000_000, 2_000_000, 3_000_000, 4_000_000)
WIRE_ERROR_FRACTION = 1.0
"""A cycle's bytes need at least the whole period on the wire: the rate cannot be reached at all."""
WIRE_WARN_FRACTION = 0.5
"""Beyond half the period on the wire, USB round trips (2 x latency timer) and the host no longer fit."""


@dataclass
class DriverConfig:
    port: str
    joints: list[JointServo]
    latch: JointServo | None = None
    baud_rate: int = 4_000_000
    rate_hz: float = 500.0
    loop_priority: int = 50
    usb_latency_ms: float = 1.0
    packet_timeout_margin_ms: float = 1.0
    setup_timeout_margin_ms: float = 50.0
    operating_mode: int = ct.OperatingMode.POSITION
    latch_operating_mode: int = ct.OperatingMode.CURRENT_BASED_POSITION
    profile_velocity: int = 0
    profile_acceleration: int = 0
    position_p_gain: int = 800
    position_i_gain: int = 0
    position_d_gain: int = 0
    bus_watchdog_ms: float = 100.0
    allow_missing: bool = False
    torque_on_start: bool = True
    keep_torque_on_shutdown: bool = False
    latency_timer_policy: str = 'warn'  # 'warn' | 'fail'
    sysfs_root: str = '/sys'
    reboot_on_startup_error: bool = True
    fault_after_failures: int = 25
    status_poll_period_s: float = 0.5
    reconnect_min_s: float = 0.2
    reconnect_max_s: float = 5.0
    command_timeout_s: float = 0.2
    command_joints: list[Joint] = field(default_factory=list)  # URDF joints of `joints`, for the guard
    command_mode: str = 'interpolate'
    move_to_start_speed_rad_s: float = 0.5
    latch_engaged_rad: float | None = None  # None: the URDF upper limit
    latch_released_rad: float | None = None  # None: the URDF lower limit
    latch_tolerance_rad: float = 0.05
    latch_grip_current_a: float = 0.3
    latch_grip_window_rad: float = 0.5
    latch_goal_current_a: float = 0.5
    latch_timeout_s: float = 2.0

    def servos(self) -> list[JointServo]:
        return self.joints + ([self.latch] if self.latch is not None else [])


GAIT_JOINTS = [f'joint_{i}' for i in range(1, 12)]

PARAMETERS: tuple[Setting, ...] = (
    Setting('port', '/dev/ttyUSB0', 'serial device of the U2D2 (a udev symlink is better, see README)'),
    Setting('baud_rate', 4_000_000, 'bus baud rate [bit/s]; must equal every servo\'s Baud Rate register',
              choices=BAUD_RATES),
    Setting('rate_hz', 500.0, 'control loop rate [Hz]', 1.0, 1000.0),
    Setting('loop_priority', 50, 'SCHED_FIFO priority of the control loop thread (0 = the ordinary scheduler); '
            'refused without root, CAP_SYS_NICE or an rtprio limit: then a warning and the ordinary scheduler',
            0, 99),
    Setting('usb_latency_ms', 1.0, 'USB adapter latency timer the packet timeout assumes [ms]', 0.0, 32.0),
    Setting('packet_timeout_margin_ms', 1.0, 'extra wait for a reply beyond wire time + 2 x latency [ms]',
              0.0, 100.0),
    Setting('setup_timeout_margin_ms', 50.0, 'the same while setting the servos up at start and on reconnect '
            '(not time critical: rides out scheduling hiccups) [ms]', 0.0, 1000.0),
    Setting('joint_names', GAIT_JOINTS, 'joints driven by XH540 servos, head to tail'),
    Setting('joint_ids', list(range(1, 12)), 'servo ID of each entry of joint_names'),
    Setting('zero_offsets_rad', [0.0] * 11, 'servo angle from tick 2048 where each joint reads zero [rad]'),
    Setting('directions', [1] * 11, 'direction sign of each joint (+1 or -1)'),
    Setting('joint_model', 'XH540-W270-R', 'servo model of the joints', choices=tuple(ct.MODELS_BY_NAME)),
    Setting('latch_joint', 'latch_joint', 'URDF joint of the latch'),
    Setting('latch_id', 12, 'servo ID of the latch; -1 = no latch', -1, 252),
    Setting('latch_zero_offset_rad', 0.0, 'servo angle from tick 2048 where the latch reads zero [rad]'),
    Setting('latch_direction', 1, 'direction sign of the latch (+1 or -1)', -1, 1),
    Setting('latch_model', 'XC330-T288-T', 'servo model of the latch', choices=tuple(ct.MODELS_BY_NAME)),
    Setting('operating_mode', ct.OperatingMode.POSITION, 'joint operating mode (3 position, 5 current-based '
              'position)', choices=(ct.OperatingMode.POSITION, ct.OperatingMode.CURRENT_BASED_POSITION)),
    Setting('latch_operating_mode', ct.OperatingMode.CURRENT_BASED_POSITION, 'latch operating mode',
              choices=(ct.OperatingMode.POSITION, ct.OperatingMode.CURRENT_BASED_POSITION)),
    Setting('profile_velocity', 0, 'Profile Velocity register (0.229 rev/min units, 0 = unlimited)', 0, 32767),
    Setting('profile_acceleration', 0, 'Profile Acceleration register (214.577 rev/min^2 units, 0 = unlimited)',
              0, 32767),
    Setting('position_p_gain', 800, 'Position P Gain register', 0, 16383),
    Setting('position_i_gain', 0, 'Position I Gain register', 0, 16383),
    Setting('position_d_gain', 0, 'Position D Gain register', 0, 16383),
    Setting('bus_watchdog_ms', 100.0, 'servos stop if the host is silent this long [ms] (20 ms steps, 0 = off)',
              0.0, 2540.0),
    Setting('allow_missing', False, 'start even if some servos do not answer'),
    Setting('torque_on_start', True, 'enable torque once started'),
    Setting('keep_torque_on_shutdown', False, 'leave torque on when the node exits (holding position)'),
    Setting('latency_timer_policy', 'warn', "'warn' or 'fail' when the FTDI latency timer is not 1 ms",
              choices=('warn', 'fail')),
    Setting('sysfs_root', '/sys', 'root of sysfs (tests point it at a fake tree)'),
    Setting('reboot_on_startup_error', True, 'reboot servos found in hardware-error state at start-up'),
    Setting('fault_after_failures', 25, 'consecutive failed reads that mark a servo faulted', 1, 100000),
    Setting('status_poll_period_s', 0.5, 'period of the voltage/temperature poll [s]', 0.05, 60.0),
    Setting('reconnect_min_s', 0.2, 'first reconnect back-off [s]', 0.01, 60.0),
    Setting('reconnect_max_s', 5.0, 'largest reconnect back-off [s]', 0.01, 600.0),
    Setting('command_timeout_s', 0.2, 'hold when no command arrived for this long [s]', 0.01, 10.0),
    Setting('command_mode', 'interpolate', 'between command arrivals: hold or interpolate', choices=MODES),
    Setting('move_to_start_speed_rad_s', 0.5, 'joint speed bound while moving to the first command after '
              'start-up, torque on or reconnect, and for a servo rejoining after a fault [rad/s]', 0.05, 4.8),
    Setting('latch_engaged_margin_rad', 0.0, 'the latch engages this far below its URDF upper limit [rad]',
              0.0, 1.0),
    Setting('latch_released_margin_rad', 0.0, 'the latch releases this far above its URDF lower limit [rad]',
              0.0, 1.0),
    Setting('latch_tolerance_rad', 0.05, 'latch counts as there within this angle [rad]', 0.001, 1.0),
    Setting('latch_grip_current_a', 0.3, 'current that confirms a gripping latch near its target [A]', 0.0, 2.0),
    Setting('latch_grip_window_rad', 0.5, 'gripping counts only this close to the target [rad]', 0.0, 3.2),
    Setting('latch_goal_current_a', 0.5, 'current limit of the latch in current-based position mode [A]',
              0.0, 2.0),
    Setting('latch_timeout_s', 2.0, 'latch/set reports failure after this long [s]', 0.1, 30.0),
    Setting('urdf_path', '', 'URDF to read joint limits from; empty = the COBRA URDF'),
    Setting('diagnostics_period_s', 1.0, 'diagnostics publishing period [s]', 0.1, 60.0),
)

PARAMETER_BY_NAME = by_name(PARAMETERS)


def validate(name: str, value: Any) -> str | None:
    """Reason the value is unacceptable (the config checker's text), or None."""
    spec = PARAMETER_BY_NAME.get(name)
    return None if spec is None else spec.problem(value, fix=f'set {name}:=<{spec.allowed}>')


@dataclass(frozen=True)
class BusBudget:
    """Wire time of one cycle (Sync Write of the goals + Fast Sync Read of the feedback) against the period."""

    servo_count: int
    baud_rate: int
    rate_hz: float

    @property
    def bytes_per_cycle(self) -> int:
        block = FeedbackBlock().length
        return sync_write_bytes(self.servo_count, 4) + sync_read_bytes(self.servo_count, block, fast=True)

    @property
    def wire_s(self) -> float:
        return wire_time_s(self.bytes_per_cycle, self.baud_rate)

    @property
    def period_s(self) -> float:
        return 1.0 / self.rate_hz

    @property
    def fraction(self) -> float:
        return self.wire_s / self.period_s

    @property
    def level(self) -> str:
        """'ok', 'warn' (over half the period on the wire) or 'error' (more than the whole period)."""
        if self.fraction >= WIRE_ERROR_FRACTION:
            return 'error'
        return 'warn' if self.fraction > WIRE_WARN_FRACTION else 'ok'

    def message(self) -> str:
        fitting_rate_hz = WIRE_WARN_FRACTION / self.wire_s
        fitting_bauds = [b for b in BAUD_RATES if wire_time_s(self.bytes_per_cycle, b) <= WIRE_WARN_FRACTION
                         * self.period_s]
        baud_fix = (f'baud_rate:={fitting_bauds[0]} (and the same Baud Rate register on every servo, with '
                    f'Dynamixel Wizard)') if fitting_bauds else 'fewer servos on this bus'
        return (f'baud_rate {self.baud_rate} is too slow for rate_hz {self.rate_hz:g}: one cycle ({self.servo_count} '
                f'servos, {self.bytes_per_cycle} bytes of Sync Write + Fast Sync Read) takes '
                f'{1e3 * self.wire_s:.2f} ms on the wire, {100 * self.fraction:.0f} % of the '
                f'{1e3 * self.period_s:.2f} ms period (at most {100 * WIRE_WARN_FRACTION:.0f} % leaves time for the '
                f'USB round trips). Fix: rate_hz:={math.floor(fitting_rate_hz):d} or lower, or {baud_fix}')


def bus_budget(params: Mapping[str, Any]) -> BusBudget:
    servo_count = len(list(params['joint_ids'])) + (1 if int(params['latch_id']) >= 0 else 0)
    return BusBudget(servo_count, int(params['baud_rate']), float(params['rate_hz']))


def check_parameters(values: Mapping[str, Any]) -> dict[str, Any]:
    """All parameter values (defaults filled in), or ConfigError naming the first problem and its fix.

    Judges what the parameters alone can tell: ranges, choices, one entry per joint in every
    per-joint list, and a baud rate that can carry the loop rate (an over-half-period budget
    is only a warning, left to the driver to report).
    """
    params = {p.name: values.get(p.name, p.default) for p in PARAMETERS}
    for name, value in params.items():
        reason = validate(name, value)
        if reason:
            raise ConfigError(reason, name, value)
    names, ids = list(params['joint_names']), list(params['joint_ids'])
    offsets, directions = list(params['zero_offsets_rad']), list(params['directions'])
    if not len(names) == len(ids) == len(offsets) == len(directions):
        raise ConfigError(f'joint_names ({len(names)}), joint_ids ({len(ids)}), zero_offsets_rad ({len(offsets)}) '
                          f'and directions ({len(directions)}) must have one entry per joint')
    if params['latch_id'] >= 0 and params['latch_id'] in ids or len(set(ids)) != len(ids):
        raise ConfigError(f'two servos share an ID (joint_ids {ids}, latch_id {params["latch_id"]}); '
                          f'each needs its own')
    budget = bus_budget(params)
    if budget.level == 'error':
        raise ConfigError(budget.message())
    return params


def build_config(values: Mapping[str, Any], robot: RobotModel | None = None) -> DriverConfig:
    """DriverConfig from parameter values (missing ones take their defaults)."""
    params = check_parameters(values)
    if robot is None:
        robot = load_robot_model(params['urdf_path'] or None)
    names, ids = list(params['joint_names']), list(params['joint_ids'])
    offsets, directions = list(params['zero_offsets_rad']), list(params['directions'])
    joint_model = ct.model_by_name(params['joint_model'])
    joints = [_joint_servo(robot, name, sid, joint_model, offset, direction)
              for name, sid, offset, direction in zip(names, ids, offsets, directions)]
    latch = None
    if params['latch_id'] >= 0:
        latch = _joint_servo(robot, params['latch_joint'], params['latch_id'], ct.model_by_name(params['latch_model']),
                             params['latch_zero_offset_rad'], params['latch_direction'])
    return DriverConfig(
        port=params['port'], joints=joints, latch=latch, baud_rate=int(params['baud_rate']),
        rate_hz=float(params['rate_hz']), loop_priority=int(params['loop_priority']),
        usb_latency_ms=float(params['usb_latency_ms']),
        packet_timeout_margin_ms=float(params['packet_timeout_margin_ms']),
        setup_timeout_margin_ms=float(params['setup_timeout_margin_ms']),
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
        move_to_start_speed_rad_s=float(params['move_to_start_speed_rad_s']),
        command_joints=[robot.joint(name) for name in names],
        latch_engaged_rad=None if latch is None else latch.upper_rad - float(params['latch_engaged_margin_rad']),
        latch_released_rad=None if latch is None else latch.lower_rad + float(params['latch_released_margin_rad']),
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
