"""Simulation node: steps CobraSim and publishes the hardware's topics plus the global `/clock`.

The node is the clock: it runs the shared loop (cobra_common.node_runtime) with no wall timer
per step and publishes the hot topics as ready CDR bytes (cobra_sim.sim_outputs). When to step
is cobra_sim.scheduler's: waiting for peers, holding t = 0 for the first command, paced or flat
out, held at lockstep boundaries (cobra_sim.lockstep) until the gait's command for it arrived and
the logger kept up. Its parameters are one typed table (cobra_sim.sim_config). Every wait is
bounded, so SIGINT/SIGTERM stop the node within 0.1 s.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import JointState
from std_srvs.srv import SetBool

from cobra_common.cdr import JointCommand, JointCommandReader, leading_stamp_ns
from cobra_common.command_guard import JointCommandGuard
from cobra_common.node_runtime import (NO_WAIT, NodeLoop, Wait, declare_array, declare_table, flush_publishers,
                                       run_node, take_all, take_over_sim_time, validate_update)
from cobra_common.ros_entry import StartupError
from cobra_description.robot_model import LATCH_JOINT, RobotModelError, load_robot_model
from cobra_sim.clock_origin import since_origin_s, stamp_ns
from cobra_sim.engine import CobraSim, SimConfigError, SimParams
from cobra_sim.latch_service import LATCH_SCHEDULE, LatchReply, LatchSchedule, latch_request
from cobra_sim.lockstep import CommandQueue, control_periods_per_command
from cobra_sim.mjcf import ServoParams
from cobra_sim.scheduler import Phase, Scheduler, SchedulerConfig
from cobra_sim.sim_config import (ALLOWED, DYNAMIC_TYPING, PARAMETER_BY_NAME, PARAMETERS, RUNTIME_PARAMETERS,
                                  check_parameters, start_xy_yaw)
from cobra_sim.sim_outputs import SimOutputs
from cobra_sim.terrain import make_terrain

COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
PROGRESS_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
LOGGER_PROGRESS_TOPIC = 'logger/progress'  # rosgraph_msgs/Clock: newest joint_states stamp recorded
BATCH_WALL_S = 0.005  # longest run of steps between two stop-signal checks
EXECUTOR_PERIOD_S = 0.02  # unpaced: services and parameters are served this often [s, wall]
WARNING_PERIOD_S = 5.0


def declare_parameters(node: Node) -> dict[str, Any]:
    """Declare every sim_node parameter (sim_config.PARAMETERS, latch_schedule_s); StartupError for
    combinations that cannot run."""
    p = check_parameters(declare_table(node, PARAMETERS, RUNTIME_PARAMETERS, ALLOWED, DYNAMIC_TYPING))
    p[LATCH_SCHEDULE.name] = declare_array(node, LATCH_SCHEDULE, Parameter.Type.DOUBLE_ARRAY,
                                           'latch_schedule_s:=[5.2, 15.0]')
    return p


class SimNode(Node):
    def __init__(self) -> None:
        super().__init__('sim_node')
        p = declare_parameters(self)
        self.params = p
        take_over_sim_time(self)  # the sim is the clock: its own /clock would only cost a callback per step
        try:
            robot = load_robot_model(p['urdf_path'] or None)
            terrain = make_terrain(p['terrain'], p['terrain_file'], p['slope_deg'])  # a wrench terrain warms numba here
            sim_params = SimParams(
                timestep_s=p['timestep_s'], control_period_s=p['control_period_s'],
                settle_duration_s=p['settle_duration_s'], latch_capture_distance_m=p['latch_capture_distance_m'],
                servo=ServoParams(p['servo_kp_nm_rad'], p['servo_kd_nm_s_rad'], p['servo_armature_kg_m2']),
                start_xy_yaw=start_xy_yaw(p))
            self.sim = CobraSim(robot, terrain, sim_params, np.random.default_rng(p['seed']))
        except (RobotModelError, SimConfigError, ValueError) as error:
            raise StartupError(str(error)) from error
        # /clock once per command period (the gait's tick): lockstep boundaries (sim_outputs)
        clock_every = control_periods_per_command(p['command_period_s'], p['control_period_s'])
        self.outputs = SimOutputs(self, self.sim, p, robot.root, clock_every)
        self._latch_limits = robot.joint(LATCH_JOINT).limits if LATCH_JOINT in self.sim.joint_names else None
        self.guard = JointCommandGuard(robot.gait_joints(), p['command_timeout_s'])  # latch: latch/set only
        self._latch_schedule = LatchSchedule(p[LATCH_SCHEDULE.name])

        self._command_reader = JointCommandReader()  # both inputs are taken as CDR bytes
        self._commands = CommandQueue()  # targets apply at their stamps (a gait on sim time computes ahead)
        self.command_sub = self.create_subscription(JointState, 'joint_commands', self._on_command_data, COMMAND_QOS,
                                                    raw=True)
        self.progress_sub = self.create_subscription(
            ClockMsg, LOGGER_PROGRESS_TOPIC, self._on_logger_progress, PROGRESS_QOS, raw=True)
        self.create_service(SetBool, 'torque/set', self._on_torque)
        self.create_service(SetBool, 'latch/set', self._on_latch)
        self.add_on_set_parameters_callback(lambda parameters: validate_update(PARAMETER_BY_NAME, parameters))
        self.add_post_set_parameters_callback(self._apply_parameters)

        wall_started = time.perf_counter()
        self.sim.settle()
        self.get_logger().info(
            f"simulating {robot.name} on '{terrain.name}' terrain: {len(self.sim.joint_names)} joints, "
            f"step {p['timestep_s'] * 1e3:g} ms, settled {p['settle_duration_s']:g} s in "
            f"{time.perf_counter() - wall_started:.2f} s wall")
        self.scheduler = Scheduler(SchedulerConfig(
            control_period_ns=round(p['timestep_s'] * 1e9) * self.sim.steps_per_control,
            control_periods_per_command=clock_every, duration_s=p['duration_s'],
            real_time_factor=p['real_time_factor'], lockstep=p['lockstep'], wait_for_peers_s=p['wait_for_peers_s'],
            wait_for_commands=p['wait_for_commands'], wait_for_recorder=p['wait_for_recorder'],
            clock_origin=p['clock_origin'], max_logger_lag_s=p['lockstep_max_logger_lag_s'],
            peer_timeout_s=p['lockstep_peer_timeout_s'], command_topic=self.command_sub.topic_name,
            progress_topic=self.progress_sub.topic_name), time.perf_counter())
        self._drain_scheduler()
        if self.scheduler.lockstep:
            self.get_logger().info(
                f"lockstep: each {p['command_period_s']:g} s boundary waits for its joint_commands "
                f"and a logger within {p['lockstep_max_logger_lag_s']:g} s (peers with a publisher)")

    # --- parameters, inputs, services -----------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.scheduler.phase is Phase.FINISHED

    def _apply_parameters(self, parameters: list[Parameter]) -> None:
        for parameter in parameters:
            if parameter.name == 'real_time_factor':
                self.scheduler.set_real_time_factor(parameter.value, time.perf_counter())
            elif parameter.name == 'duration_s':
                self.scheduler.config.duration_s = parameter.value
            elif parameter.name == 'command_timeout_s':
                self.guard.timeout_s = parameter.value
            elif parameter.name == 'latch_capture_distance_m':
                self.sim.latch_capture_distance_m = parameter.value
            self.params[parameter.name] = parameter.value

    def _on_command_data(self, data: bytes) -> None:
        self._on_command(self._command_reader.read(data) or JointCommand.of(deserialize_message(data, JointState)))

    def _on_command(self, message: JointCommand) -> None:
        scheduler = self.scheduler
        scheduler.command_received()
        verdict = self.guard.check_message(message, scheduler.time_ns * 1e-9)
        if verdict.positions_rad is None:
            self.get_logger().warning(
                f'ignoring joint_commands ({verdict.cause}): {verdict.detail} (repeats suppressed for '
                f'{WARNING_PERIOD_S:g} s; counts in diagnostics)', throttle_duration_sec=WARNING_PERIOD_S)
            return
        stamp_s = since_origin_s(message.stamp_ns, scheduler.clock_origin_ns)
        self._commands.push(stamp_s, verdict.positions_rad, scheduler.time_ns * 1e-9)
        scheduler.gate.command_arrived(stamp_s)

    def _on_logger_progress(self, data: bytes) -> None:
        stamp = leading_stamp_ns(data)
        if stamp is None:  # not little-endian CDR
            stamp = stamp_ns(deserialize_message(data, ClockMsg).clock)
        self.scheduler.gate.logger_progressed(since_origin_s(stamp, self.scheduler.clock_origin_ns))

    def _on_torque(self, request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        self.sim.set_torque_enabled(request.data)
        response.success, response.message = True, f"torque {'on' if request.data else 'off (limp)'}"
        return response

    def _on_latch(self, request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        reply = self._set_latch(request.data, 'latch/set')
        response.success, response.message = reply.success, reply.message
        return response

    def _set_latch(self, engage: bool, source: str) -> LatchReply:
        reply = latch_request(self.sim, engage, self._latch_limits)
        if reply.changed:
            self.outputs.publish_latch()
            self.get_logger().info(f'{source} {engage}: {reply.message}')
        elif self.sim.has_latch:  # a gait may ask again every tick until the frames come within reach
            self.get_logger().info(f'{source} {engage}: {reply.message}', throttle_duration_sec=1.0)
        return reply

    # --- peers (cobra_sim.scheduler.Peers: DDS counts) ------------------------------------------
    def missing(self) -> list[str]:
        missing = []
        if self.params['wait_for_recorder']:
            # the logger finds its topics by a graph search: without its subscriptions matched,
            # the first wrenches of a run went unrecorded
            missing += [f'a subscriber on {pub.topic_name}' for pub in self.outputs.recorded
                        if pub.get_subscription_count() == 0]
            if self.scheduler.lockstep and not self.logger_present():
                missing.append(f'a publisher on {self.progress_sub.topic_name}')
        if self.params['wait_for_commands'] and not self.gait_present():
            missing.append(f'a publisher on {self.command_sub.topic_name}')
        return missing

    def gait_present(self) -> bool:
        return self.command_sub.get_publisher_count() > 0

    def logger_present(self) -> bool:
        return self.progress_sub.get_publisher_count() > 0

    # --- stepping -------------------------------------------------------------------------------
    def advance(self) -> Wait:
        """Control periods as the scheduler says, for up to BATCH_WALL_S; then how long to wait."""
        scheduler = self.scheduler
        batch_end = time.perf_counter() + BATCH_WALL_S
        while True:
            take_all(self.command_sub, self._on_command_data, raw=True)  # without an executor round
            take_all(self.progress_sub, self._on_logger_progress, raw=True)
            decision = scheduler.decide(time.perf_counter(), self)
            if scheduler.logs or scheduler.clock_due:
                self._drain_scheduler()
            if not decision.step:
                self.outputs.flush()
                return Wait(decision.wait_s, decision.in_executor)
            self._control_period()
            if time.perf_counter() >= batch_end:
                self.outputs.flush()
                return NO_WAIT

    def _drain_scheduler(self) -> None:
        """The scheduler's log lines, and /clock while sim time is held."""
        scheduler = self.scheduler
        if scheduler.clock_restamp:
            scheduler.clock_restamp = False
            self.outputs.clock.set_stamp_ns(scheduler.clock_origin_ns + scheduler.time_ns)
        if scheduler.clock_due:
            scheduler.clock_due = False
            self.outputs.publish_clock()
        logger = self.get_logger()
        for level, text in scheduler.logs:  # rclpy fixes the severity per call site: one call per level
            if level == 'warning':
                logger.warning(text)
            else:
                logger.info(text)
        scheduler.logs.clear()

    def _control_period(self) -> None:
        sim, scheduler = self.sim, self.scheduler
        for targets in self._commands.due(scheduler.time_ns * 1e-9):
            sim.set_targets(targets)
        sim.begin_control_period()
        for _ in range(sim.steps_per_control):
            sim.step_physics()
        scheduler.stepped()
        for at_s, engage in self._latch_schedule.due(scheduler.time_ns):
            self._set_latch(engage, f'latch_schedule_s ({at_s:g} s)')
        now_ns = scheduler.clock_origin_ns + scheduler.time_ns  # the published stamp (clock_origin)
        if self.outputs.publish_period(scheduler.control_periods, now_ns):
            self.outputs.publish_diagnostics(now_ns, scheduler, self.guard)


def spin_until_finished(node: SimNode) -> None:
    """The shared loop: the executor (services, parameters) every EXECUTOR_PERIOD_S of wall time
    unpaced (a round costs ~0.4 ms of the sim's CPU), not after every batch of steps; held at a
    lockstep boundary it waits on the command and logger-progress subscriptions alone. At the end
    of a finite run the reliable publishers are flushed."""
    with NodeLoop(node, EXECUTOR_PERIOD_S, wake_inputs=[node.command_sub, node.progress_sub]) as loop:
        if loop.run(node.advance, until=lambda: node.finished):
            flush_publishers(node)


def main(args: list[str] | None = None) -> int:
    return run_node(SimNode, args, spin=spin_until_finished)


if __name__ == '__main__':
    raise SystemExit(main())
