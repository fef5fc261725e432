"""Gait node: publishes `joint_commands` from a sidewinding preset or a CSV trajectory."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.time import Time
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

from cobra_description.robot_model import RobotModelError, load_robot_model
from cobra_common.ros_entry import StartupError, declare, describe, run_node
from cobra_gaits.presets import CSV_GAIT, PRESET_FIELDS
from cobra_gaits.gait_source import RETUNABLE, make_gait_source
from cobra_gaits.sidewinding import (DIRECTIONS, GaitError, SidewindingGenerator,
                                     SidewindingParams)
from cobra_gaits.speed_limit import check_sidewinding_speed
from cobra_gaits.trajectory_csv import MAX_RATE_HZ

COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
MAX_TICK_S = 0.1  # a longer gap (paused sim, suspended host) must not jump the gait phase


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
    if gait not in [*base['preset_names'], CSV_GAIT]:
        raise StartupError(f"unknown gait '{gait}': choose one of {[*base['preset_names'], CSV_GAIT]}")
    if gait == CSV_GAIT and not base['csv_file']:
        raise StartupError('gait:=csv needs csv_file:=<path to a trajectory CSV>')
    preset = {field: node.get_parameter(f'{gait}.{field}').value
              for field in PRESET_FIELDS} if gait != CSV_GAIT else dict.fromkeys(PRESET_FIELDS, 0.0)
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
    return {**base, **tuning}


class GaitNode(Node):
    def __init__(self) -> None:
        super().__init__('gait_node')
        p = declare_parameters(self)
        try:
            self._joints = load_robot_model(p['urdf_path'] or None).gait_joints()
            self._joint_names, self._source = make_gait_source(p, self._joints)
        except (GaitError, RobotModelError) as error:
            raise StartupError(str(error)) from error
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)

        self._publisher = self.create_publisher(JointState, 'joint_commands', COMMAND_QOS)
        self.create_service(Trigger, 'gait/start', self._on_start)
        self.create_service(Trigger, 'gait/stop', self._on_stop)
        self._last_tick: Time | None = None
        self.create_timer(1.0 / p['rate_hz'], self._tick)
        if p['autostart']:
            self._source.ramp.start()
        self.get_logger().info(
            f"gait '{p['gait']}' on {len(self._joint_names)} joints at {p['rate_hz']:g} Hz "
            f"({'running' if p['autostart'] else 'waiting for gait/start'})")

    def _validate_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        changes = {p.name: p.value for p in parameters if p.name in RETUNABLE}
        if changes and not isinstance(self._source, SidewindingGenerator):
            return SetParametersResult(successful=False,
                                       reason='a CSV replay has no sidewinding parameters to retune')
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

    def _tick(self) -> None:
        now = self.get_clock().now()
        if self._last_tick is not None:
            dt_s = (now - self._last_tick).nanoseconds * 1e-9
            self._source.advance(min(max(dt_s, 0.0), MAX_TICK_S))
        self._last_tick = now
        message = JointState()
        message.header.stamp = now.to_msg()
        message.name = self._joint_names
        message.position = self._source.positions().tolist()
        self._publisher.publish(message)


def main(args: list[str] | None = None) -> int:
    return run_node(GaitNode, args)


if __name__ == '__main__':
    raise SystemExit(main())
