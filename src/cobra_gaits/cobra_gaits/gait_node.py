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

import gc
import math
import time
from dataclasses import replace
from typing import Any

import rclpy._rclpy_pybind11 as rcl
from rcl_interfaces.msg import SetParametersResult
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

from cobra_description.robot_model import RobotModelError, load_robot_model
from cobra_common.cdr import leading_stamp_ns
from cobra_common.ros_entry import (StartupError, declare, deferred_stop, describe, run_node, spin_node,
                                    stop_requested)
from cobra_gaits.presets import CSV_GAIT, LTS_GAIT, PRESET_FIELDS
from cobra_gaits.gait_source import LTS_OVERRIDES, RETUNABLE, lts_gait_from_values, make_gait_source
from cobra_gaits.lts import PRESET_NAMES as LTS_PRESET_NAMES
from cobra_gaits.lts import LinearTwistParams, lts_preset
from cobra_gaits.sidewinding import (DIRECTIONS, GaitError, SidewindingGenerator,
                                     SidewindingParams)
from cobra_gaits.sim_ticks import SimTicker
from cobra_gaits.speed_limit import check_sidewinding_speed
from cobra_gaits.trajectory_csv import MAX_RATE_HZ
from cobra_gaits.tumble_control import (TUMBLE_GAIT, TumbleController, check_tumble_robot,
                                         declare_tumble_parameters)

COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
# best effort as rclpy's TimeSource, but 20 samples deep (20 ms of a 1 kHz sim clock): a gait
# process that wakes late takes every queued /clock and still ticks at each boundary it crossed,
# stamped there, instead of once at the newest value (depth 1 lost ~1 % of the paced commands)
CLOCK_QOS = QoSProfile(depth=20, reliability=ReliabilityPolicy.BEST_EFFORT)
CLOCK_TOPIC = '/clock'
MAX_TICK_S = 0.1  # a longer gap (paused sim, suspended host) must not jump the gait phase
EXECUTOR_PERIOD_S = 0.01  # sim time: services and parameters are served this often [s, wall]


def declare_parameters(node: Node) -> dict[str, Any]:
    """Declare every gait_node parameter; StartupError for combinations that cannot run.

    The preset blocks declared depend on `preset_names`, and the tuning defaults on the chosen
    `gait`'s preset. The speed limit needs the URDF (and a CSV its file), so it is checked after
    this, by cobra_gaits.gait_source.make_gait_source(values, joints).
    """
    base = declare(node, {
        'gait': ('gait1', describe('a name from preset_names (gait1, gait2) | csv', read_only=True)),
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
    if gait not in [*base['preset_names'], CSV_GAIT, LTS_GAIT, TUMBLE_GAIT]:
        raise StartupError(f"unknown gait '{gait}': choose one of "
                           f"{[*base['preset_names'], CSV_GAIT, LTS_GAIT, TUMBLE_GAIT]}")
    tumble = declare_tumble_parameters(node, gait, base['preset_names'])
    sidewinding_preset = tumble['sidewinding_preset'] if gait == TUMBLE_GAIT else gait
    if gait == CSV_GAIT and not base['csv_file']:
        raise StartupError('gait:=csv needs csv_file:=<path to a trajectory CSV>')
    preset = {field: node.get_parameter(f'{sidewinding_preset}.{field}').value
              for field in PRESET_FIELDS} if sidewinding_preset in base['preset_names'] else dict.fromkeys(PRESET_FIELDS, 0.0)
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
    return {**base, **tuning, **lts, 'tumble': tumble}


def declare_lts_parameters(node: Node, gait: str, values: dict[str, Any]) -> dict[str, Any]:
    """The LTS block (gait:=lts, T-Snake): the preset and its overrides, whose defaults are the
    preset's own values; StartupError for an unknown preset, or an override without gait:=lts."""
    (name,) = declare(node, {'lts_preset': ('rolling', describe(
        f"LTS gait for gait:=lts (T-Snake): {' | '.join(LTS_PRESET_NAMES)} (seed 002)",
        read_only=True))}).values()
    if name not in LTS_PRESET_NAMES:
        raise StartupError(f"unknown lts_preset '{name}': choose one of {', '.join(LTS_PRESET_NAMES)}")
    preset = lts_preset(name)
    twist = preset.twist if isinstance(preset.twist, LinearTwistParams) else LinearTwistParams()
    lts = declare(node, {
        'lts_a0_rad_s': (twist.a0_rad_s, describe(
            'LTS twist rate a0 of phi = (a1 s + a0) t [rad/s]; default: the preset\'s',
            read_only=True, float_range=(-5.0, 5.0))),
        'lts_a1_rad_m_s': (twist.a1_rad_m_s, describe(
            'LTS twist gradient a1 along the body [rad/(m s)]; default: the preset\'s',
            read_only=True, float_range=(-10.0, 10.0))),
        'lts_omega_t_rad_s': (preset.curve.temporal_frequency_rad_s, describe(
            'LTS backbone wave temporal frequency omega_t [rad/s]; default: the preset\'s',
            read_only=True, float_range=(-5.0, 5.0))),
    })
    defaults = {'lts_a0_rad_s': twist.a0_rad_s, 'lts_a1_rad_m_s': twist.a1_rad_m_s,
                'lts_omega_t_rad_s': preset.curve.temporal_frequency_rad_s}
    changed = [parameter for parameter in LTS_OVERRIDES if lts[parameter] != defaults[parameter]]
    if gait != LTS_GAIT:
        if changed:
            raise StartupError(f'{changed[0]} is an LTS twist-gait parameter: it needs gait:=lts on the '
                               'T-Snake (robot:=tsnake); COBRA has no twist joints')
        return {'lts_preset': name, **lts}
    try:
        lts_gait_from_values({**values, 'lts_preset': name, **{p: lts[p] for p in changed}})
    except GaitError as error:
        raise StartupError(str(error)) from error
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
            self._joint_names, self._source = make_gait_source(p, self._joints)
            if p['gait'] == TUMBLE_GAIT:  # the tumbling latch, with this sidewinding before it
                self._source = TumbleController(self, model, self._joints, self._source, p['tumble'],
                                               stamp_ns=lambda: self._last_tick_ns)
        except (GaitError, RobotModelError) as error:
            raise StartupError(str(error)) from error
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)

        self._publisher = self.create_publisher(JointState, 'joint_commands', COMMAND_QOS)
        self.create_service(Trigger, 'gait/start', self._on_start)
        self.create_service(Trigger, 'gait/stop', self._on_stop)
        self._last_tick_ns: int | None = None
        self._held_tick_ns: int | None = None  # a tick not published yet: a subscriber is missing
        self._command_subscribers = p['command_subscribers']
        self._hold_until_s = time.monotonic() + p['command_subscribers_timeout_s']
        self.sim_ticker: SimTicker | None = None
        self.clock_subscription = None
        period_ns = round(1e9 / p['rate_hz'])
        if self.get_parameter('use_sim_time').value:
            # /clock is taken by spin_on_sim_time, not by rclpy's TimeSource (see the module doc)
            self.set_parameters([Parameter('use_sim_time', value=False)])
            self.sim_ticker = SimTicker(period_ns)
            self.clock_subscription = self.create_subscription(
                ClockMsg, CLOCK_TOPIC, self.take_clock, CLOCK_QOS, raw=True)
        else:
            self.create_timer(period_ns * 1e-9, lambda: self._tick(self.get_clock().now().nanoseconds))
        if p['autostart']:
            self._source.ramp.start()
        self.get_logger().info(
            f"gait '{p['gait']}' on {len(self._joint_names)} joints at {p['rate_hz']:g} Hz "
            f"({'running' if p['autostart'] else 'waiting for gait/start'})")

    def _validate_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        changes = {p.name: p.value for p in parameters if p.name in RETUNABLE}
        if changes and not isinstance(self._source, SidewindingGenerator):
            return SetParametersResult(successful=False, reason=(
                f"gait '{self.get_parameter('gait').value}' has no sidewinding parameters to retune"
                if self.get_parameter('gait').value != CSV_GAIT else
                'a CSV replay has no sidewinding parameters to retune'))
        if 'direction' in changes and changes['direction'] not in DIRECTIONS:
            return SetParametersResult(successful=False,
                                       reason=f"direction must be one of {sorted(DIRECTIONS)}")
        try:
            if changes:
                check_sidewinding_speed(self._joints, replace(self._source.params, **changes).validated(),
                                        self._source.current_amplitudes_rad())
        except GaitError as error:
            return SetParametersResult(successful=False, reason=str(error))
        return SetParametersResult(successful=True)

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
        handle = self.clock_subscription.handle
        while (taken := handle.take_message(ClockMsg, True)) is not None:
            self._on_clock(taken[0])

    def _on_clock(self, data: bytes) -> None:
        stamp_ns = leading_stamp_ns(data)
        if stamp_ns is not None and (tick_ns := self.sim_ticker.clock(stamp_ns)) is not None:
            self._tick(tick_ns)

    def _subscribers_matched(self) -> bool:
        """Until the expected consumers matched (DDS-level), a late one would miss the start."""
        if self._command_subscribers == 0:
            return True
        matched = self._publisher.get_subscription_count()
        if matched >= self._command_subscribers:
            self._command_subscribers = 0
            return True
        if time.monotonic() < self._hold_until_s:
            return False
        self.get_logger().warning(
            f'only {matched} of {self._command_subscribers} joint_commands subscribers matched after '
            f"{self.get_parameter('command_subscribers_timeout_s').value:g} s: starting without the rest")
        self._command_subscribers = 0
        return True

    def publish_held_tick(self) -> None:
        """Publish the tick held back for a missing subscriber, once it matched (or timed out)."""
        if self._held_tick_ns is not None and self._subscribers_matched():
            held, self._held_tick_ns = self._held_tick_ns, None
            self._tick(held)

    def _tick(self, now_ns: int) -> None:
        if not self._subscribers_matched():
            self._held_tick_ns = now_ns  # newest boundary: a lockstepped sim waits for exactly it
            return
        if self._last_tick_ns is not None:
            dt_s = (now_ns - self._last_tick_ns) * 1e-9
            self._source.advance(min(max(dt_s, 0.0), MAX_TICK_S))
        self._last_tick_ns = now_ns
        message = JointState()
        message.header.stamp.sec, message.header.stamp.nanosec = divmod(now_ns, 1_000_000_000)
        message.name = self._joint_names
        message.position = self._source.positions().tolist()
        self._publisher.publish(message)


def spin_on_sim_time(node: GaitNode) -> None:
    """Wait on /clock alone and tick from it; serve the executor every EXECUTOR_PERIOD_S.

    Every wait is bounded by EXECUTOR_PERIOD_S, so a stop signal ends the loop at once even
    when /clock has stopped.
    """
    executor = SingleThreadedExecutor(context=node.context)
    executor.add_node(node)
    wait_set = rcl.WaitSet(1, 0, 0, 0, 0, 0, node.context.handle)
    gc.freeze()  # the start-up heap (rclpy, numpy, the URDF) is never garbage: keep the GC off it
    next_executor_round = 0.0
    try:
        with deferred_stop(), node.context.handle, node.clock_subscription.handle:
            while node.context.ok() and not stop_requested():
                now = time.monotonic()
                if now >= next_executor_round:
                    executor.spin_once(timeout_sec=0.0)
                    next_executor_round = now + EXECUTOR_PERIOD_S
                wait_set.clear_entities()
                wait_set.add_subscription(node.clock_subscription.handle)
                wait_set.wait(max(round((next_executor_round - time.monotonic()) * 1e9), 0))
                node.take_clock()
                node.publish_held_tick()
    finally:
        executor.remove_node(node)
        executor.shutdown()


def spin_gait(node: GaitNode) -> None:
    if node.sim_ticker is not None:
        spin_on_sim_time(node)
    else:
        spin_node(node)


def main(args: list[str] | None = None) -> int:
    return run_node(GaitNode, args, spin=spin_gait)


if __name__ == '__main__':
    raise SystemExit(main())
