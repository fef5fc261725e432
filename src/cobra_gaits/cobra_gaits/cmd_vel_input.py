"""The gait node's side of gait:=cmd_vel: its parameters and the `cmd_vel` subscription (thin shell
around cobra_gaits.cmd_vel, where the mapping and the guard live)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from geometry_msgs.msg import Twist
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy

from cobra_common.ros_entry import StartupError, declare, describe
from cobra_gaits.cmd_vel import CmdVelSettings, CmdVelSource
from cobra_gaits.presets import CMD_VEL_GAIT
from cobra_gaits.lts import STEERING_MODES
from cobra_gaits.sidewinding import GaitError

CMD_VEL_TOPIC = 'cmd_vel'
CMD_VEL_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)  # as teleop_twist_* and Nav2 publish
WARNING_PERIOD_S = 5.0  # a clamped or refused twist is logged at most this often per cause [s, wall]

_DESCRIPTIONS = {
    'timeout_s': ('no cmd_vel for this long [s of gait time] counts as a zero twist: ramp down to straight',
                  (0.01, 60.0)),
    'max_frequency_hz': ('COBRA: largest wave frequency a twist may ask for [Hz] (the servo limit may cap it '
                         'lower)', (0.01, 2.0)),
    'stride_m_per_cycle': ('COBRA: lateral travel per gait cycle at the preset amplitudes [m] (sim calibration)',
                           (0.001, 2.0)),
    'turn_left_rad_per_cycle_per_taper': ('COBRA: turn per cycle per unit taper sidewinding left [rad] (sim '
                                          'calibration)', (-10.0, 10.0)),
    'turn_right_rad_per_cycle_per_taper': ('COBRA: turn per cycle per unit taper sidewinding right [rad] (sim '
                                           'calibration)', (-10.0, 10.0)),
    'max_taper': ('COBRA: largest conical taper (amplitude x (1 -/+ taper) at head / tail)', (0.0, 0.95)),
    'taper_slew_per_s': ('COBRA: largest taper change rate [1/s]', (0.01, 10.0)),
    'tsnake_steering': (f"T-Snake: LTS steering mode for angular.z: {' | '.join(STEERING_MODES)}", None),
    'tsnake_max_omega_t_rad_s': ('T-Snake: largest |omega_t| a twist may ask for [rad/s]', (0.01, 5.0)),
    'tsnake_stride_m_per_rad': ('T-Snake: lateral travel per radian of omega_t t [m] (sim calibration)',
                                (0.0001, 1.0)),
    'tsnake_max_twist_scale': ("T-Snake: largest scale of the steering mode's twist profile", (0.01, 10.0)),
    'tsnake_turn_rad_s_per_scale': ('T-Snake: yaw rate at twist scale 1 [rad/s]; 0 = the calibration of the mode',
                                    (-1.0, 1.0)),
    'tsnake_rate_slew_per_s': ('T-Snake: largest change rate of omega_t [rad/s^2] and twist scale [1/s]',
                               (0.01, 10.0)),
}


def parameter_name(field: str) -> str:
    """cmd_vel_timeout_s, cmd_vel_max_taper, ...: the ROS parameter of a CmdVelSettings field."""
    return f'cmd_vel_{field}'


def declare_cmd_vel_parameters(node: Node, gait: str, preset_names: list[str]) -> dict[str, Any]:
    """The cmd_vel block (declared for every gait, read only by gait:=cmd_vel): its values and the
    sidewinding preset whose amplitudes COBRA's cmd_vel plays; StartupError for bad values."""
    defaults = CmdVelSettings()
    specs = {'cmd_vel_sidewinding_preset': ('gait1', describe(
        'gait:=cmd_vel on COBRA: the preset (a name from preset_names) whose amplitudes the twist drives',
        read_only=True))}
    for field in fields(CmdVelSettings):
        text, value_range = _DESCRIPTIONS[field.name]
        specs[parameter_name(field.name)] = (getattr(defaults, field.name), describe(
            text, read_only=True, float_range=value_range))
    values = declare(node, specs)
    settings = {field.name: values[parameter_name(field.name)] for field in fields(CmdVelSettings)}
    if gait == CMD_VEL_GAIT:
        if values['cmd_vel_sidewinding_preset'] not in preset_names:
            raise StartupError(f"cmd_vel_sidewinding_preset '{values['cmd_vel_sidewinding_preset']}' is not a "
                               f'sidewinding preset: choose one of {preset_names}')
        try:
            CmdVelSettings(**settings).validated()
        except GaitError as error:
            raise StartupError(str(error)) from error
    return {'sidewinding_preset': values['cmd_vel_sidewinding_preset'], **settings}


class CmdVelInput:
    """Subscribes `cmd_vel` for the node's CmdVelSource; logs refused and clamped twists, throttled."""

    def __init__(self, node: Node, source: CmdVelSource) -> None:
        self._node = node
        self.source = source
        self.subscription = node.create_subscription(Twist, CMD_VEL_TOPIC, self._on_twist, CMD_VEL_QOS)
        self.received = 0
        limits = source.robot.limits
        node.get_logger().info(f'following cmd_vel: |linear.y| <= {limits.max_lateral_m_s:.3f} m/s, '
                               f'|angular.z| <= {limits.max_angular_rad_s:.3f} rad/s, zero after '
                               f'{source.settings.timeout_s:g} s without a twist')

    def _on_twist(self, message: Twist) -> None:
        self.received += 1
        linear, angular = message.linear, message.angular
        verdict = self.source.on_twist((linear.x, linear.y, linear.z), (angular.x, angular.y, angular.z))
        logger = self._node.get_logger()
        guard = self.source.guard
        if verdict.command is None:
            logger.warning(f'cmd_vel: {verdict.detail} ({guard.rejections[verdict.cause]} so far)',
                           throttle_duration_sec=WARNING_PERIOD_S)
        elif verdict.clamped:
            logger.warning(f'cmd_vel: {verdict.detail} ({guard.clamped} so far)',
                           throttle_duration_sec=WARNING_PERIOD_S)
        if verdict.unused:
            logger.warning(f"cmd_vel: {', '.join(verdict.unused)} ignored: a snake follows linear.y (sideways) "
                           f'and angular.z only ({guard.unused} so far)', throttle_duration_sec=WARNING_PERIOD_S)

