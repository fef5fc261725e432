"""Simulation node: steps CobraSim and publishes the hardware's topics plus `clock`."""

from __future__ import annotations

import math
import time

import numpy as np
import rclpy
from builtin_interfaces.msg import Time as TimeMsg
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import (DurabilityPolicy, QoSProfile, ReliabilityPolicy,
                       qos_profile_sensor_data)
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Bool, Header
from std_srvs.srv import SetBool

from cobra_common.command_guard import JointCommandGuard
from cobra_description.robot_model import LATCH_JOINT, RobotModelError, load_robot_model
from cobra_common.ros_entry import StartupError, declare, describe, run_node, set_stamp
from cobra_sim.engine import CobraSim, SimConfigError, SimParams, steps_per_period
from cobra_sim.mjcf import ServoParams
from cobra_sim.terrain import TERRAINS, make_terrain

COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
STATE_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
WALL_TICK_S = 0.001
MAX_STEPS_PER_TICK = 50  # keeps subscriptions and services served while running flat out
WARNING_PERIOD_S = 5.0


class SimNode(Node):
    def __init__(self) -> None:
        super().__init__('sim_node')
        p = declare(self, {
            'urdf_path': ('', describe('robot URDF; empty = installed cobra_description', read_only=True)),
            'terrain': ('rigid', describe(f'terrain model: {" | ".join(sorted(TERRAINS))}', read_only=True)),
            'timestep_s': (0.001, describe('physics step [s]', read_only=True, float_range=(1e-5, 0.01))),
            'control_period_s': (0.002, describe(
                'servo update and joint_states period [s]; a whole number of physics steps',
                read_only=True, float_range=(1e-4, 0.1))),
            'settle_duration_s': (2.0, describe('settling before t = 0 [s]', read_only=True,
                                                float_range=(0.0, 60.0))),
            'duration_s': (0.0, describe('stop and exit after this sim time [s]; 0 = run until stopped',
                                         float_range=(0.0, 1e6))),
            'real_time_factor': (1.0, describe('pace to this many sim seconds per wall second; '
                                               '0 = as fast as possible', float_range=(0.0, 1000.0))),
            'imu_period_s': (0.004, describe('imu/data period [s]', read_only=True, float_range=(1e-3, 1.0))),
            'odom_period_s': (0.01, describe('odom and ground_truth/odom period [s]', read_only=True,
                                             float_range=(1e-3, 1.0))),
            'command_timeout_s': (0.2, describe('hold position after this long without a command [s]',
                                                float_range=(0.01, 10.0))),
            'servo_kp_nm_rad': (40.0, describe('servo position gain [N·m/rad]', read_only=True,
                                               float_range=(0.0, 1000.0))),
            'servo_kd_nm_s_rad': (0.8, describe('servo damping gain [N·m·s/rad]', read_only=True,
                                                float_range=(0.0, 100.0))),
            'servo_armature_kg_m2': (0.01, describe('reflected rotor inertia [kg·m²]', read_only=True,
                                                    float_range=(0.0, 1.0))),
            'imu_gyro_noise_rad_s': (0.005, describe('gyro noise std [rad/s]', float_range=(0.0, 1.0))),
            'imu_accel_noise_m_s2': (0.05, describe('accelerometer noise std [m/s²]', float_range=(0.0, 10.0))),
            'odom_noise_m': (0.0, describe('position noise std on odom (mimics VIO) [m]',
                                           float_range=(0.0, 1.0))),
            'seed': (0, describe('random seed of the noise generator', read_only=True)),
            'contact_forces_period_s': (0.01, describe(
                'contact/forces/<link> period [s]; 0 = not published', read_only=True,
                float_range=(0.0, 1.0))),
            'wait_for_peers_s': (0.0, describe(
                'hold sim time at 0 until the peers below are present, at most this long [s]; '
                '0 = start at once', read_only=True, float_range=(0.0, 600.0))),
            'wait_for_recorder': (True, describe(
                'a peer: joint_states, imu/data, odom and ground_truth/odom each have a subscriber',
                read_only=True)),
            'wait_for_commands': (True, describe(
                'a peer: a node (the gait) publishes joint_commands', read_only=True)),
        })
        self.params = p
        try:
            robot = load_robot_model(p['urdf_path'] or None)
            terrain = make_terrain(p['terrain'])
            sim_params = SimParams(
                timestep_s=p['timestep_s'], control_period_s=p['control_period_s'],
                settle_duration_s=p['settle_duration_s'],
                servo=ServoParams(p['servo_kp_nm_rad'], p['servo_kd_nm_s_rad'], p['servo_armature_kg_m2']))
            self.sim = CobraSim(robot, terrain, sim_params, np.random.default_rng(p['seed']))
            self._imu_every = steps_per_period(p['imu_period_s'], p['control_period_s'], 'imu_period_s')
            self._odom_every = steps_per_period(p['odom_period_s'], p['control_period_s'], 'odom_period_s')
            self._diagnostics_every = steps_per_period(1.0, p['control_period_s'], '1 s diagnostics')
            self._latch_every = steps_per_period(0.1, p['control_period_s'], '0.1 s latch state')
            self._contact_every = steps_per_period(
                p['contact_forces_period_s'], p['control_period_s'], 'contact_forces_period_s') \
                if p['contact_forces_period_s'] else 0
        except (RobotModelError, SimConfigError, ValueError) as error:
            raise StartupError(str(error)) from error
        self.add_post_set_parameters_callback(self._apply_parameters)
        self._latch_limits = robot.joint(LATCH_JOINT).limits if LATCH_JOINT in self.sim.joint_names else None
        self.guard = JointCommandGuard(robot.gait_joints(), p['command_timeout_s'])  # latch: latch/set only
        self._last_warning_s: dict[str, float] = {}

        self._clock_pub = self.create_publisher(ClockMsg, 'clock', STATE_QOS)
        self._joint_pub = self.create_publisher(JointState, 'joint_states', qos_profile_sensor_data)
        self._imu_pub = self.create_publisher(Imu, 'imu/data', qos_profile_sensor_data)
        self._odom_pub = self.create_publisher(Odometry, 'odom', STATE_QOS)
        self._truth_pub = self.create_publisher(Odometry, 'ground_truth/odom', STATE_QOS)
        self._diag_pub = self.create_publisher(DiagnosticArray, 'diagnostics', STATE_QOS)
        self._latch_pub = self.create_publisher(Bool, 'latch/state', LATCHED_QOS)
        self._contact_messages = [WrenchStamped(header=Header(frame_id='odom'))
                                  for _ in self.sim.robot_body_names]
        self._contact_pubs = [self.create_publisher(WrenchStamped, f'contact/forces/{name}', STATE_QOS)
                              for name in self.sim.robot_body_names] if self._contact_every else []
        self._command_sub = self.create_subscription(JointState, 'joint_commands', self._on_command, COMMAND_QOS)
        self.create_service(SetBool, 'torque/set', self._on_torque)
        self.create_service(SetBool, 'latch/set', self._on_latch)

        wall_started = time.perf_counter()
        self.sim.settle()
        self.get_logger().info(
            f"simulating {robot.name} on '{terrain.name}' terrain: {len(self.sim.joint_names)} joints, "
            f"step {p['timestep_s'] * 1e3:g} ms, settled {p['settle_duration_s']:g} s in "
            f"{time.perf_counter() - wall_started:.2f} s wall")
        self._joint_template = JointState(name=list(self.sim.joint_names))
        self._clock_message = ClockMsg()
        self._imu_message = Imu()
        self._imu_message.header.frame_id = self.sim.params.imu_frame
        self._imu_message.orientation_covariance[0] = -1.0  # no orientation estimate, as on the D435i
        self._truth_message = Odometry()
        self._odom_message = Odometry()
        for odometry in (self._truth_message, self._odom_message):
            odometry.header.frame_id = 'odom'
            odometry.child_frame_id = robot.root
        self._control_periods = 0
        self.finished = False
        self._wall_origin = time.perf_counter()
        self._sim_origin_s = 0.0
        self._rtf_window = (time.perf_counter(), 0.0)
        self._measured_rtf = 0.0
        self._waiting_until: float | None = (time.perf_counter() + p['wait_for_peers_s']
                                             if p['wait_for_peers_s'] > 0.0 else None)
        self.create_timer(WALL_TICK_S, self._tick, clock=Clock(clock_type=ClockType.STEADY_TIME))

    # --- parameters and inputs --------------------------------------------------------------
    def _apply_parameters(self, parameters: list[Parameter]) -> None:
        for parameter in parameters:
            if parameter.name == 'real_time_factor':
                # re-anchor pacing so a change does not cause a burst or a stall
                self._wall_origin, self._sim_origin_s = time.perf_counter(), self.sim.time_s
            if parameter.name == 'command_timeout_s':
                self.guard.timeout_s = parameter.value
            self.params[parameter.name] = parameter.value

    def _warn(self, cause: str, text: str) -> None:
        now = time.monotonic()
        if now - self._last_warning_s.get(cause, -math.inf) >= WARNING_PERIOD_S:
            self._last_warning_s[cause] = now
            self.get_logger().warning(f'{text} (further "{cause}" warnings suppressed for '
                                      f'{WARNING_PERIOD_S:g} s; counts in diagnostics)')

    def _on_command(self, message: JointState) -> None:
        verdict = self.guard.check(message.name, message.position, self.sim.time_s)
        if verdict.positions_rad is None:
            self._warn(verdict.cause, f'ignoring joint_commands: {verdict.detail}')
            return
        self.sim.set_targets(verdict.positions_rad)

    def _on_torque(self, request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        self.sim.set_torque_enabled(request.data)
        response.success, response.message = True, f"torque {'on' if request.data else 'off (limp)'}"
        return response

    def _on_latch(self, request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        if self._latch_limits is None:
            response.success, response.message = False, f'the robot model has no {LATCH_JOINT}'
            return response
        target = self._latch_limits.upper_rad if request.data else self._latch_limits.lower_rad
        self.sim.set_targets({LATCH_JOINT: target})
        response.success = True
        response.message = f"latch {'engaging' if request.data else 'releasing'}; see latch/state"
        return response

    # --- stepping and publishing ----------------------------------------------------------------
    def _missing_peers(self) -> list[str]:
        missing = []
        if self.params['wait_for_recorder']:
            recorded = (self._joint_pub, self._imu_pub, self._odom_pub, self._truth_pub)
            missing += [f'a subscriber on {pub.topic_name}' for pub in recorded if pub.get_subscription_count() == 0]
        if self.params['wait_for_commands'] and self._command_sub.get_publisher_count() == 0:
            missing.append(f'a publisher on {self._command_sub.topic_name}')
        return missing

    def _peers_ready(self) -> bool:
        """A node that starts late (a slow import on a loaded machine) must not miss the run's start."""
        missing = self._missing_peers()
        if not missing:
            self.get_logger().info('peers present: starting')
        elif time.perf_counter() < self._waiting_until:
            return False
        else:
            self.get_logger().warning(f"gave up waiting for {', '.join(missing)}: starting without them")
        self._waiting_until = None
        self._wall_origin = time.perf_counter()
        return True

    def _tick(self) -> None:
        if self.finished or (self._waiting_until is not None and not self._peers_ready()):
            return
        rtf = self.params['real_time_factor']
        duration = self.params['duration_s']
        for _ in range(MAX_STEPS_PER_TICK):
            if duration and self.sim.time_s >= duration - 1e-9:
                self.finished = True
                self.get_logger().info(f'reached duration_s = {duration:g} s of sim time')
                return
            if rtf > 0.0:
                paced_s = self._sim_origin_s + (time.perf_counter() - self._wall_origin) * rtf
                if self.sim.time_s >= paced_s:
                    return
            self._control_period()

    def _control_period(self) -> None:
        sim = self.sim
        sim.begin_control_period()
        clock = self._clock_message
        for _ in range(sim.steps_per_control):
            sim.step_physics()
            set_stamp(clock.clock, sim.time_s)
            self._clock_pub.publish(clock)
        self._control_periods += 1
        now = clock.clock
        joints = self._joint_template
        joints.header.stamp = now
        joints.position = sim.joint_positions().tolist()
        joints.velocity = sim.joint_velocities().tolist()
        joints.effort = sim.joint_efforts().tolist()
        self._joint_pub.publish(joints)
        if self._control_periods % self._imu_every == 0:
            self._publish_imu(now)
        if self._control_periods % self._odom_every == 0:
            self._publish_odometry(now)
        if self._control_periods % self._latch_every == 0 and self._latch_limits is not None:
            engaged = sim.joint_position(LATCH_JOINT) >= self._latch_limits.upper_rad - 0.05
            self._latch_pub.publish(Bool(data=bool(engaged)))
        if self._contact_every and self._control_periods % self._contact_every == 0:
            self._publish_contact_forces(now)
        if self._control_periods % self._diagnostics_every == 0:
            self._publish_diagnostics(now)

    def _publish_imu(self, now: TimeMsg) -> None:
        gyro, accel = self.sim.imu()
        gyro_noise, accel_noise = self.params['imu_gyro_noise_rad_s'], self.params['imu_accel_noise_m_s2']
        gyro = gyro + self.sim.rng.normal(0.0, gyro_noise, 3) if gyro_noise else gyro
        accel = accel + self.sim.rng.normal(0.0, accel_noise, 3) if accel_noise else accel
        message = self._imu_message
        message.header.stamp = now
        message.angular_velocity.x, message.angular_velocity.y, message.angular_velocity.z = gyro.tolist()
        message.linear_acceleration.x, message.linear_acceleration.y, message.linear_acceleration.z = accel.tolist()
        for index in (0, 4, 8):
            message.angular_velocity_covariance[index] = max(gyro_noise, 1e-4) ** 2
            message.linear_acceleration_covariance[index] = max(accel_noise, 1e-3) ** 2
        self._imu_pub.publish(message)

    def _publish_odometry(self, now: TimeMsg) -> None:
        position, quaternion = self.sim.head_pose()
        linear, angular = self.sim.head_velocity_local()
        noise = self.params['odom_noise_m']
        estimated = position + self.sim.rng.normal(0.0, noise, 3) if noise else position
        for message, xyz in ((self._truth_message, position), (self._odom_message, estimated)):
            message.header.stamp = now
            pose, twist = message.pose.pose, message.twist.twist
            pose.position.x, pose.position.y, pose.position.z = xyz.tolist()
            pose.orientation.w, pose.orientation.x, pose.orientation.y, pose.orientation.z = quaternion.tolist()
            twist.linear.x, twist.linear.y, twist.linear.z = linear.tolist()
            twist.angular.x, twist.angular.y, twist.angular.z = angular.tolist()
        covariance = self._odom_message.pose.covariance
        for index in (0, 7, 14):
            covariance[index] = max(noise, 1e-3) ** 2
        for index in (21, 28, 35):
            covariance[index] = 1e-4
        self._truth_pub.publish(self._truth_message)
        self._odom_pub.publish(self._odom_message)

    def _publish_contact_forces(self, now: TimeMsg) -> None:
        for publisher, message, wrench in zip(self._contact_pubs, self._contact_messages,
                                              self.sim.contact_wrenches().tolist()):
            message.header.stamp = now
            force, torque = message.wrench.force, message.wrench.torque
            force.x, force.y, force.z, torque.x, torque.y, torque.z = wrench
            publisher.publish(message)

    def _publish_diagnostics(self, now: TimeMsg) -> None:
        wall, sim_time = time.perf_counter(), self.sim.time_s
        window_wall, window_sim = self._rtf_window
        self._measured_rtf = (sim_time - window_sim) / max(wall - window_wall, 1e-9)
        self._rtf_window = (wall, sim_time)
        stale = self.guard.is_stale(sim_time)
        status = DiagnosticStatus(
            level=DiagnosticStatus.WARN if stale or self.guard.rejections else DiagnosticStatus.OK,
            name='cobra_sim: physics', hardware_id='mujoco',
            message='no fresh joint_commands: holding position' if stale else 'running')
        values = {
            'real_time_factor': f'{self._measured_rtf:.2f}',
            'sim_time_s': f'{sim_time:.3f}',
            'terrain': self.sim.terrain.name,
            'torque_enabled': str(self.sim.torque_enabled),
            'commands_clamped': str(self.guard.clamped),
            **{f'commands_rejected_{cause}': str(count) for cause, count in self.guard.rejections.items()},
        }
        status.values = [KeyValue(key=k, value=v) for k, v in values.items()]
        self._diag_pub.publish(DiagnosticArray(header=Header(stamp=now),
                                               status=[status]))


def spin_until_finished(node: SimNode) -> None:
    while rclpy.ok() and not node.finished:
        rclpy.spin_once(node, timeout_sec=0.1)


def main(args: list[str] | None = None) -> int:
    return run_node(SimNode, args, spin=spin_until_finished)


if __name__ == '__main__':
    raise SystemExit(main())
