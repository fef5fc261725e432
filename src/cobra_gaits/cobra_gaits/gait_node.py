"""Gait node: publishes `joint_commands` from a sidewinding preset, a CSV trajectory, an LTS twist
gait (gait: lts, T-Snake; cobra_gaits.gait_source.LtsSource) or the tumbling latch (gait: tumble).

With use_sim_time the node takes /clock itself (cobra_gaits.sim_ticks): its own loop waits on
the /clock subscription alone, takes every queued sample raw and ticks at once when a command
boundary is reached; the executor (services, parameters) runs every EXECUTOR_PERIOD_S of wall
time. rclpy's TimeSource would run each /clock sample (1 kHz of sim time) through the executor
and fire the sim-time timer one executor round later (~0.9 ms per boundary, which a
lockstepped sim waits for). On wall time a plain timer ticks.
"""

from __future__ import annotations

import math
import time
from typing import Any

from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

from cobra_common.cdr import leading_stamp_ns
from cobra_common.node_runtime import NodeLoop, Wait, run_node, spin_node, take_all, take_over_sim_time
from cobra_common.ros_entry import StartupError, declare, describe
from cobra_description.robot_model import RobotModelError, load_robot_model
from cobra_gaits.cmd_vel_input import CmdVelInput, declare_cmd_vel_parameters
from cobra_gaits.gait_source import RETUNABLE, make_gait_source
from cobra_gaits.lts import PRESET_NAMES as LTS_PRESET_NAMES
from cobra_gaits.presets import CMD_VEL_GAIT, CSV_GAIT, LTS_GAIT
from cobra_gaits.sidewinding import GaitError, SidewindingParams
from cobra_gaits.ticker import Command, GaitTicker, check_lts, lts_defaults, preset_tuning, retune_problem
from cobra_gaits.trajectory_csv import MAX_RATE_HZ
from cobra_gaits.tumble_control import (TUMBLE_GAIT, TumbleController, check_tumble_robot,
                                         declare_tumble_parameters)

COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
# best effort as rclpy's TimeSource, but 20 samples deep (20 ms of a 1 kHz sim clock): a gait
# process that wakes late takes every queued /clock and still ticks at each boundary it crossed,
# stamped there, instead of once at the newest value (depth 1 lost ~1 % of the paced commands)
CLOCK_QOS = QoSProfile(depth=20, reliability=ReliabilityPolicy.BEST_EFFORT)
CLOCK_TOPIC = '/clock'
EXECUTOR_PERIOD_S = 0.01  # sim time: services and parameters are served this often [s, wall]


def declare_parameters(node: Node) -> dict[str, Any]:
    """Declare every gait_node parameter; StartupError for combinations that cannot run.

    The preset blocks declared depend on `preset_names`, and the tuning defaults on the chosen
    `gait`'s preset. The speed limit needs the URDF (and a CSV its file), so it is checked after
    this, by cobra_gaits.gait_source.make_gait_source(values, joints).
    """
    base = declare(node, {
        'gait': ('gait1', describe('a name from preset_names (gait1, gait2) | csv | lts | tumble | cmd_vel',
                                   read_only=True)),
        'preset_names': (['gait1', 'gait2'], describe(
            'names of the sidewinding presets defined in the parameter files', read_only=True)),
        'rate_hz': (100.0, describe('joint_commands rate [Hz]', read_only=True,
                                    float_range=(1.0, MAX_RATE_HZ))),
        'autostart': (True, describe('start the gait (with its ramp) at startup', read_only=True)),
        'urdf_path': ('', describe('robot URDF; empty = installed cobra_description', read_only=True)),
        'csv_file': ('', describe('trajectory CSV for gait:=csv', read_only=True)),
        'csv_loop': (False, describe('loop the CSV instead of holding its last row; its last row '
                                     'must equal its first', read_only=True)),
        'command_subscribers': (1, describe(
            'hold the first joint_commands until this many subscriptions matched the publisher '
            '(the sim or driver, plus the logger when recording), so none misses the start',
            read_only=True, int_range=(0, 10))),
        'command_subscribers_timeout_s': (15.0, describe(
            'stop holding after this long [s, wall] and start with the subscribers present',
            read_only=True, float_range=(0.0, 600.0))),
    })
    for name in base['preset_names']:
        declare(node, {
            f'{name}.frequency_hz': (0.0, describe(
                f'{name} wave frequency [Hz]', read_only=True, float_range=(0.0, 2.0))),
            f'{name}.amplitude_vertical_rad': (0.0, describe(
                f'{name} pitch amplitude [rad]', read_only=True, float_range=(0.0, math.pi / 2))),
            f'{name}.amplitude_horizontal_rad': (0.0, describe(
                f'{name} yaw amplitude [rad]', read_only=True, float_range=(0.0, math.pi / 2))),
        })
    gait = base['gait']
    if gait not in [*base['preset_names'], CSV_GAIT, LTS_GAIT, TUMBLE_GAIT, CMD_VEL_GAIT]:
        raise StartupError(f"unknown gait '{gait}': choose one of "
                           f"{[*base['preset_names'], CSV_GAIT, LTS_GAIT, TUMBLE_GAIT, CMD_VEL_GAIT]}")
    tumble = declare_tumble_parameters(node, gait, base['preset_names'])
    cmd_vel = declare_cmd_vel_parameters(node, gait, base['preset_names'])
    sidewinding_preset = {TUMBLE_GAIT: tumble['sidewinding_preset'],
                          CMD_VEL_GAIT: cmd_vel['sidewinding_preset']}.get(gait, gait)
    if gait == CSV_GAIT and not base['csv_file']:
        raise StartupError('gait:=csv needs csv_file:=<path to a trajectory CSV>')
    preset = preset_tuning(gait, sidewinding_preset, base['preset_names'],
                           lambda name: node.get_parameter(name).value)
    tuning = declare(node, {
        'frequency_hz': (preset['frequency_hz'], describe(
            'sidewinding wave frequency [Hz]', float_range=(0.0, 2.0))),
        'amplitude_vertical_rad': (preset['amplitude_vertical_rad'], describe(
            'pitch-joint (vertical wave) amplitude [rad]', float_range=(0.0, math.pi / 2))),
        'amplitude_horizontal_rad': (preset['amplitude_horizontal_rad'], describe(
            'yaw-joint (horizontal wave) amplitude [rad]', float_range=(0.0, math.pi / 2))),
        'direction': ('left', describe('left | right: sign of the horizontal wave')),
        'ramp_duration_s': (2.0, describe('start/stop amplitude ramp [s]', float_range=(0.1, 30.0))),
        'amplitude_slew_rad_s': (0.5, describe(
            'max amplitude change rate when retuned [rad/s]', float_range=(0.01, 10.0))),
    })
    try:
        SidewindingParams(**tuning).validated()
    except GaitError as error:
        raise StartupError(str(error)) from error
    lts = declare_lts_parameters(node, gait, {**base, **tuning})
    return {**base, **tuning, **lts, 'tumble': tumble, 'cmd_vel': cmd_vel}


def declare_lts_parameters(node: Node, gait: str, values: dict[str, Any]) -> dict[str, Any]:
    """The LTS block (gait:=lts, T-Snake): the preset and its overrides, whose defaults are the
    preset's own values; StartupError for an unknown preset, or an override without gait:=lts."""
    (name,) = declare(node, {'lts_preset': ('rolling', describe(
        f"LTS gait for gait:=lts (T-Snake): {' | '.join(LTS_PRESET_NAMES)} (seed 002)",
        read_only=True))}).values()
    defaults = lts_defaults(name)
    lts = declare(node, {
        'lts_a0_rad_s': (defaults['lts_a0_rad_s'], describe(
            'LTS twist rate a0 of phi = (a1 s + a0) t [rad/s]; default: the preset\'s',
            read_only=True, float_range=(-5.0, 5.0))),
        'lts_a1_rad_m_s': (defaults['lts_a1_rad_m_s'], describe(
            'LTS twist gradient a1 along the body [rad/(m s)]; default: the preset\'s',
            read_only=True, float_range=(-10.0, 10.0))),
        'lts_omega_t_rad_s': (defaults['lts_omega_t_rad_s'], describe(
            'LTS backbone wave temporal frequency omega_t [rad/s]; default: the preset\'s',
            read_only=True, float_range=(-5.0, 5.0))),
    })
    check_lts(gait, name, lts, values)
    return {'lts_preset': name, **lts}


class GaitNode(Node):
    def __init__(self) -> None:
        super().__init__('gait_node')
        p = declare_parameters(self)
        try:
            model = load_robot_model(p['urdf_path'] or None)
            self._joints = model.gait_joints()
            if p['gait'] == TUMBLE_GAIT:
                check_tumble_robot(model, self._joints)
            self._joint_names, source = make_gait_source(p, self._joints)
            if p['gait'] == TUMBLE_GAIT:  # the tumbling latch, with this sidewinding before it
                source = TumbleController(self, model, self._joints, source, p['tumble'],
                                          stamp_ns=lambda: self.ticker.last_tick_ns)
        except (GaitError, RobotModelError) as error:
            raise StartupError(str(error)) from error
        self._source = source
        self._gait = p['gait']
        self.cmd_vel_input = CmdVelInput(self, source) if p['gait'] == CMD_VEL_GAIT else None
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)

        self._publisher = self.create_publisher(JointState, 'joint_commands', COMMAND_QOS)
        self.create_service(Trigger, 'gait/start', self._on_start)
        self.create_service(Trigger, 'gait/stop', self._on_stop)
        period_ns = round(1e9 / p['rate_hz'])
        # on sim time /clock is taken by spin_gait, not by rclpy's TimeSource (see the module doc)
        self.on_sim_time = take_over_sim_time(self)
        self.ticker = GaitTicker(source, p['command_subscribers'], p['command_subscribers_timeout_s'],
                                 time.monotonic(), period_ns if self.on_sim_time else None)
        self.clock_subscription = self.create_subscription(
            ClockMsg, CLOCK_TOPIC, self.take_clock, CLOCK_QOS, raw=True) if self.on_sim_time else None
        if not self.on_sim_time:
            self.create_timer(period_ns * 1e-9, lambda: self._publish(self.ticker.tick(
                self.get_clock().now().nanoseconds, self._publisher.get_subscription_count, time.monotonic())))
        if p['autostart']:
            source.ramp.start()
        self.get_logger().info(
            f"gait '{p['gait']}' on {len(self._joint_names)} joints at {p['rate_hz']:g} Hz "
            f"({'running' if p['autostart'] else 'waiting for gait/start'})")

    def _validate_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        reason = retune_problem(self._source, self._gait, self._joints, {p.name: p.value for p in parameters})
        return SetParametersResult(successful=reason is None, reason=reason or '')

    def _apply_parameters(self, parameters: list[Parameter]) -> None:
        changes = {p.name: p.value for p in parameters if p.name in RETUNABLE}
        if changes:
            self._source.retune(**changes)
            self.get_logger().info(f'retuned {changes}')

    def _on_start(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        self._source.ramp.start()
        response.success, response.message = True, 'gait started (ramping up)'
        return response

    def _on_stop(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        self._source.ramp.stop()
        response.success, response.message = True, 'gait stopping (ramping down, then holding)'
        return response

    def take_clock(self, data: bytes | None = None) -> None:
        """Take the /clock samples queued (and `data`, from the executor); tick if one is due."""
        if data is not None:
            self._on_clock(data)
        take_all(self.clock_subscription, self._on_clock, raw=True)

    def _on_clock(self, data: bytes) -> None:
        self._publish(self.ticker.clock(leading_stamp_ns(data), self._publisher.get_subscription_count,
                                        time.monotonic()))

    def step(self) -> Wait:
        """One round of the sim-time loop: the /clock samples queued, then a held tick if it may go."""
        self.take_clock()
        self._publish(self.ticker.release_held(self._publisher.get_subscription_count, time.monotonic()))
        return Wait(EXECUTOR_PERIOD_S, in_executor=False)

    def _publish(self, command: Command | None) -> None:
        for text in self.ticker.warnings:
            self.get_logger().warning(text)
        self.ticker.warnings.clear()
        if command is None:
            return
        message = JointState()
        message.header.stamp.sec, message.header.stamp.nanosec = divmod(command.stamp_ns, 1_000_000_000)
        message.name = self._joint_names
        message.position = command.positions_rad
        self._publisher.publish(message)


def spin_gait(node: GaitNode) -> None:
    """On sim time: wait on /clock alone and tick from it, serving the executor every
    EXECUTOR_PERIOD_S (every wait is bounded by it, so a stop signal ends the loop at once even
    when /clock has stopped); on wall time: spin, the timer ticks."""
    if not node.on_sim_time:
        spin_node(node)
        return
    with NodeLoop(node, EXECUTOR_PERIOD_S, wake_inputs=[node.clock_subscription]) as loop:
        loop.run(node.step)


def main(args: list[str] | None = None) -> int:
    return run_node(GaitNode, args, spin=spin_gait)


if __name__ == '__main__':
    raise SystemExit(main())
