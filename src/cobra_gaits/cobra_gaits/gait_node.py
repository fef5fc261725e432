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

import time
from typing import Any

from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import QoSCompatibility, QoSProfile, ReliabilityPolicy, qos_check_compatible
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

from cobra_common.cdr import RawJointState, leading_stamp_ns
from cobra_common.config_check import by_name
from cobra_common.node_runtime import (NodeLoop, Wait, declare_array, declare_table, run_node, spin_node, take_all,
                                       take_over_sim_time, validate_update)
from cobra_common.ros_entry import StartupError
from cobra_description.robot_model import RobotModelError, load_robot_model
from cobra_gaits.cmd_vel_input import CmdVelInput, declare_cmd_vel_parameters
from cobra_gaits.gait_config import (BASE_PARAMETERS, COMMAND_SUBSCRIBER_NODES, LTS_PRESET, REPLACED_PARAMETERS,
                                     RUNTIME_PARAMETERS, check_gait, lts_parameters, preset_parameters,
                                     tuning_parameters)
from cobra_gaits.gait_source import RETUNABLE, make_gait_source
from cobra_gaits.presets import CMD_VEL_GAIT, PRESET_FIELDS
from cobra_gaits.sidewinding import GaitError, SidewindingParams
from cobra_gaits.ticker import (Command, CommandSubscribers, GaitTicker, check_lts, fully_qualified, lts_defaults,
                                preset_tuning, resolve_node_names, retune_problem)
from cobra_gaits.tumble_control import (TUMBLE_GAIT, TumbleController, check_tumble_robot,
                                         declare_tumble_parameters)

COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
# best effort as rclpy's TimeSource, but 20 samples deep (20 ms of a 1 kHz sim clock): a gait
# process that wakes late takes every queued /clock and still ticks at each boundary it crossed,
# stamped there, instead of once at the newest value (depth 1 lost ~1 % of the paced commands)
CLOCK_QOS = QoSProfile(depth=20, reliability=ReliabilityPolicy.BEST_EFFORT)
CLOCK_TOPIC = '/clock'
EXECUTOR_PERIOD_S = 0.01  # sim time: services and parameters are served this often [s, wall]
# run-time updates are judged by the tuning rows' ranges and choices (their defaults do not matter here)
TUNING_BY_NAME = by_name(tuning_parameters(dict.fromkeys(PRESET_FIELDS, 0.0)))


def declare_parameters(node: Node) -> dict[str, Any]:
    """Declare every gait_node parameter (gait_config's tables); StartupError for combinations
    that cannot run. The speed limit needs the URDF (and a CSV its file), so it is checked after
    this, by cobra_gaits.gait_source.make_gait_source(values, joints)."""
    overrides = getattr(node, '_parameter_overrides', {})
    for name, fix in REPLACED_PARAMETERS.items():
        if name in overrides:  # undeclared, rclpy would ignore it silently
            raise StartupError(f'{node.get_name()}: {fix}')
    base = declare_table(node, BASE_PARAMETERS, RUNTIME_PARAMETERS)
    base['command_subscriber_nodes'] = declare_command_subscriber_nodes(node)
    for name in base['preset_names']:
        declare_table(node, preset_parameters(name), RUNTIME_PARAMETERS)
    gait = base['gait']
    check_gait(gait, base['preset_names'], base['csv_file'])
    tumble = declare_tumble_parameters(node, gait, base['preset_names'])
    cmd_vel = declare_cmd_vel_parameters(node, gait, base['preset_names'])
    sidewinding_preset = {TUMBLE_GAIT: tumble['sidewinding_preset'],
                          CMD_VEL_GAIT: cmd_vel['sidewinding_preset']}.get(gait, gait)
    preset = preset_tuning(gait, sidewinding_preset, base['preset_names'],
                           lambda name: node.get_parameter(name).value)
    tuning = declare_table(node, tuning_parameters(preset), RUNTIME_PARAMETERS)
    try:
        SidewindingParams(**tuning).validated()
    except GaitError as error:
        raise StartupError(str(error)) from error
    lts_preset = declare_table(node, (LTS_PRESET,), RUNTIME_PARAMETERS)['lts_preset']
    lts = declare_table(node, lts_parameters(lts_defaults(lts_preset)), RUNTIME_PARAMETERS)
    check_lts(gait, lts_preset, lts, {**base, **tuning})
    return {**base, **tuning, 'lts_preset': lts_preset, **lts, 'tumble': tumble, 'cmd_vel': cmd_vel}


def declare_command_subscriber_nodes(node: Node) -> tuple[str, ...]:
    """The read-only string array `command_subscriber_nodes`, fully qualified in the node's namespace
    (unset or `[]`: no hold)."""
    names = declare_array(node, COMMAND_SUBSCRIBER_NODES, Parameter.Type.STRING_ARRAY,
                          "\"command_subscriber_nodes:=['sim_node', 'logger']\"")
    return resolve_node_names(names, node.get_namespace())


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
                                          stamp_ns=lambda: self.ticker.time_ns)
        except (GaitError, RobotModelError) as error:
            raise StartupError(str(error)) from error
        self._source = source
        self._gait = p['gait']
        self.cmd_vel_input = CmdVelInput(self, source) if p['gait'] == CMD_VEL_GAIT else None
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)

        self._publisher = self.create_publisher(JointState, 'joint_commands', COMMAND_QOS)
        self._publish_raw = self._publisher.handle.publish_raw  # ready CDR bytes: no JointState per tick
        self._command_message = RawJointState(self._joint_names, positions_only=True)
        self.create_service(Trigger, 'gait/start', self._on_start)
        self.create_service(Trigger, 'gait/stop', self._on_stop)
        period_ns = round(1e9 / p['rate_hz'])
        # on sim time /clock is taken by spin_gait, not by rclpy's TimeSource (see the module doc)
        self.on_sim_time = take_over_sim_time(self)
        self.ticker = GaitTicker(source, p['command_subscriber_nodes'], p['command_subscribers_timeout_s'],
                                 time.monotonic(), period_ns if self.on_sim_time else None,
                                 lead_ns=p['command_lead_periods'] * period_ns)
        self.clock_subscription = self.create_subscription(
            ClockMsg, CLOCK_TOPIC, self.take_clock, CLOCK_QOS, raw=True) if self.on_sim_time else None
        if not self.on_sim_time:
            self.create_timer(period_ns * 1e-9, lambda: self._publish(self.ticker.tick(
                self.get_clock().now().nanoseconds, self.command_subscribers, time.monotonic())))
        if p['autostart']:
            source.ramp.start()
        self.get_logger().info(
            f"gait '{p['gait']}' on {len(self._joint_names)} joints at {p['rate_hz']:g} Hz "
            f"({'running' if p['autostart'] else 'waiting for gait/start'})")

    def command_subscribers(self) -> CommandSubscribers:
        """The joint_commands subscriptions in the graph that can match the publisher, by node, and
        how many did (asked only while the first command is held)."""
        topic = self._publisher.topic_name
        # our publisher as the graph reports it: the profile as given has 0 for 'infinite' deadlines,
        # which qos_check_compatible takes for a mismatch with every subscription's reported one
        own = [info.qos_profile for info in self.get_publishers_info_by_topic(topic)
               if (info.node_namespace, info.node_name) == (self.get_namespace(), self.get_name())]
        nodes = tuple(fully_qualified(info.node_namespace, info.node_name)
                      for info in self.get_subscriptions_info_by_topic(topic)
                      if not own or qos_check_compatible(own[0], info.qos_profile)[0] != QoSCompatibility.ERROR)
        return CommandSubscribers(nodes, self._publisher.get_subscription_count())

    def _validate_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        result = validate_update(TUNING_BY_NAME, parameters)
        if not result.successful:
            return result
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
        self._publish(*self.ticker.clock(leading_stamp_ns(data), self.command_subscribers, time.monotonic()))

    def step(self) -> Wait:
        """One round of the sim-time loop: the /clock samples queued, then a held tick if it may go."""
        self.take_clock()
        self._publish(*self.ticker.release_held(self.command_subscribers, time.monotonic()))
        return Wait(EXECUTOR_PERIOD_S, in_executor=False)

    def _publish(self, *commands: Command | None) -> None:
        for text in self.ticker.warnings:
            self.get_logger().warning(text)
        self.ticker.warnings.clear()
        message = self._command_message
        for command in commands:
            if command is None:
                continue
            message.set_stamp_ns(command.stamp_ns)
            message.position[:] = command.positions_rad
            self._publish_raw(message.to_bytes())


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
