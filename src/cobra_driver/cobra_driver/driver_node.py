"""ROS 2 glue of the joint driver: parameters, topics, services; the bus work lives in driver_core.

The 500 Hz loop runs on its own thread with absolute deadlines (an rclpy timer in Python
cannot hold 2 ms +- 0.5 ms); executor callbacks only hand work to it. The loop takes the queued
joint_commands itself before each cycle: an executor round per 100 Hz command cost more CPU than
the bus cycle it fed (waking the executor thread, rebuilding its wait set, the GIL handover).
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from concurrent.futures import Future as ConcurrentFuture
from typing import Any

import rclpy
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rcl_interfaces.msg import SetParametersResult
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.executors import SingleThreadedExecutor
from rclpy.impl.rcutils_logger import RcutilsLogger
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from rclpy.serialization import deserialize_message
from rclpy.task import Future as RclpyFuture
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool
from std_srvs.srv import SetBool, Trigger

from cobra_common.cdr import JointCommand, JointCommandReader
from cobra_common.config_check import ConfigError
from cobra_common.node_runtime import declare_table, run_node, spin_node
from cobra_common.ros_entry import StartupError
from cobra_driver.driver_config import PARAMETERS, build_config, check_parameters, validate
from cobra_driver.driver_core import JointDriver
from cobra_driver.loop_io import JointStateWriter, TakenByTheLoop
from cobra_driver.loop_timing import executor_priority, request_realtime

NODE_NAME = 'joint_driver'
RUNTIME_PARAMETERS = {'command_timeout_s', 'command_mode', 'move_to_start_speed_rad_s', 'latch_timeout_s',
                      'latch_tolerance_rad', 'latch_grip_current_a'}
REJECTION_LOG_PERIOD_S = 5.0
LEVELS = {'ok': DiagnosticStatus.OK, 'warn': DiagnosticStatus.WARN, 'error': DiagnosticStatus.ERROR}


def declare_parameters(node: Node) -> dict[str, Any]:
    """Declare every driver parameter (descriptions, ranges, read-only) and check what they alone can tell.

    Raises StartupError for a value outside its choices, per-joint lists of different lengths,
    two servos with one ID, or a baud rate that cannot carry the loop rate. No other side effects.
    """
    values = declare_table(node, PARAMETERS, RUNTIME_PARAMETERS)
    try:
        return check_parameters(values)
    except ConfigError as error:
        raise StartupError(f'bad parameter: {error}') from error


class JointDriverNode(Node):
    def __init__(self) -> None:
        super().__init__(NODE_NAME)
        self._started = False
        values = declare_parameters(self)
        self.add_on_set_parameters_callback(self._on_set_parameters)
        try:
            config = build_config(values)
        except (ConfigError, ValueError) as error:
            raise StartupError(f'bad parameter: {error}') from error
        self._throttled: dict[str, RcutilsLogger] = {}
        self.driver = JointDriver(config, self._log)
        self.driver.start()
        self._started = True

        self.joint_state_pub = self.create_publisher(JointState, 'joint_states', qos_profile_sensor_data)
        self._joint_states = JointStateWriter(self.joint_state_pub)
        self.diagnostics_pub = self.create_publisher(DiagnosticArray, 'diagnostics', 10)
        latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                             reliability=ReliabilityPolicy.RELIABLE)
        self.latch_pub = self.create_publisher(Bool, 'latch/state', latched)
        commands_qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
        self._command_sub = self.create_subscription(JointState, 'joint_commands', self._on_command, commands_qos,
                                                     callback_group=TakenByTheLoop())
        self._command_reader = JointCommandReader()
        services = ReentrantCallbackGroup()
        self.create_service(SetBool, 'torque/set', self._on_torque, callback_group=services)
        self.create_service(SetBool, 'latch/set', self._on_latch, callback_group=services)
        self.create_service(Trigger, 'servo/reboot', self._on_reboot, callback_group=services)
        # the loop thread completes latch futures: this wakes the executor to resume the service
        self._executor_wakeup = self.create_guard_condition(lambda: None)
        timers = MutuallyExclusiveCallbackGroup()
        self.create_timer(float(values['diagnostics_period_s']), self._publish_diagnostics, callback_group=timers)
        self.create_timer(0.1, self._publish_latch, callback_group=timers)
        self._loop_failed = False
        self._stop = threading.Event()
        # the loop stops publishing once the context is shut down (SIGINT/SIGTERM): told once
        # here instead of asking context.ok() every cycle (~8 µs of a 2 ms cycle's CPU, cold)
        self.context.on_shutdown(self._stop.set)
        self._loop = threading.Thread(target=self._run_loop, name='joint-driver-loop', daemon=True)
        self.driver._loop_thread = self._loop
        self._loop.start()
        self.get_logger().info(f'driving {len(self.driver.servos)} servos on {config.port} at '
                               f'{config.baud_rate} bps, {config.rate_hz:.0f} Hz')
        # Everything built so far (rclpy, numpy, the driver) lives as long as the node: move it out
        # of the collector's sight, so the loop's few allocations no longer trigger full
        # collections that walk ~30 000 objects (CPU and multi-ms hiccups at 500 Hz).
        gc.freeze()

    def raise_executor_thread(self) -> JointDriverNode:
        """Called on the thread that will spin the executor: under a real-time loop it runs at
        SCHED_FIFO EXECUTOR_PRIORITY, so that holding the GIL it is not preempted by ordinary
        processes while the loop waits for it (beside two busy loops: fewer missed deadlines, a
        shorter longest period; driver README). Returns the node, for the spin."""
        priority = executor_priority(self.driver.config.loop_priority)
        scheduling = request_realtime(priority)
        self.driver.executor_scheduling = scheduling
        if scheduling.refused:
            self.get_logger().warning(f'executor thread: SCHED_FIFO {priority} refused: {scheduling.refused}; a '
                                      'busy computer can then keep the real-time loop waiting for the GIL')
        return self

    # -- loop -----------------------------------------------------------------------------
    def _run_loop(self) -> None:
        try:
            with self._command_sub.handle:  # destroyed only once the loop let go of it
                self.driver.run(self._stop, self._joint_states.publish, self._take_commands)
        except Exception as error:  # noqa: BLE001 - any loop failure must end in a safe state
            if not self.context.ok():
                return  # SIGINT/SIGTERM shut the context down under us: a normal stop
            self._loop_failed = True
            self.get_logger().fatal(f'control loop failed: {error!r}; torque off and exiting')
            self.driver.shutdown()
            rclpy.try_shutdown()

    def _take_commands(self) -> None:
        """Every joint_commands message queued since the last cycle, in order (~2 µs when none),
        read from its CDR bytes (cobra_common.cdr.JointCommandReader; rclpy's reader for one it cannot read)."""
        take, read = self._command_sub.handle.take_message, self._command_reader.read
        while (taken := take(JointState, True)) is not None:
            data = taken[0]
            self._on_command(read(data) or JointCommand.of(deserialize_message(data, JointState)))

    def _log(self, level: str, message: str, throttle_s: float = 0.0) -> None:
        """The driver core's log: rclpy pins one severity per call site; throttle_s > 0 rate-limits
        per message kind (its first word), through rclpy's throttle on a child logger."""
        logger = self.get_logger()
        if throttle_s > 0.0:
            key = message.split(' ', 1)[0].strip(':') or 'throttled'
            logger = self._throttled.setdefault(key, logger.get_child(key))
            if level == 'error':
                logger.error(message, throttle_duration_sec=throttle_s)
            elif level == 'warn':
                logger.warning(message, throttle_duration_sec=throttle_s)
            else:
                logger.info(message, throttle_duration_sec=throttle_s)
        elif level == 'error':
            logger.error(message)
        elif level == 'warn':
            logger.warning(message)
        else:
            logger.info(message)

    # -- callbacks ------------------------------------------------------------------------
    def _on_set_parameters(self, parameters) -> SetParametersResult:  # type: ignore[no-untyped-def]
        for parameter in parameters:  # read-only ones were refused by rclpy before this
            reason = validate(parameter.name, parameter.value)
            if reason:
                return SetParametersResult(successful=False, reason=reason)
        if self._started:
            for parameter in parameters:
                self.driver.call(lambda p=parameter: self._apply_runtime(p.name, p.value))
        return SetParametersResult(successful=True)

    def _apply_runtime(self, name: str, value: object) -> None:
        if name == 'command_timeout_s':
            self.driver.commands.timeout_s = float(value)  # type: ignore[arg-type]
        elif name == 'command_mode':
            self.driver.commands.mode = str(value)
        elif name == 'move_to_start_speed_rad_s':
            self.driver.move_to_start.speed_rad_s = float(value)  # type: ignore[arg-type]
        else:
            setattr(self.driver.config, name, float(value))  # type: ignore[arg-type]

    def _on_command(self, message: JointCommand) -> None:
        rejection = self.driver.commands.submit_message(message, time.monotonic())
        if rejection is not None:  # one throttled log per cause
            logger = self._throttled.setdefault(f'commands.{rejection.cause}',
                                                self.get_logger().get_child(rejection.cause))
            logger.warning(f'ignored joint_commands message ({rejection.cause}): {rejection.detail}; '
                           f'holding the previous target', throttle_duration_sec=REJECTION_LOG_PERIOD_S)

    def _on_torque(self, request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        response.success, response.message = self.driver.set_torque(request.data)
        return response

    async def _on_latch(self, request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        """Awaits the loop's verdict without blocking the executor (commands keep flowing)."""
        outcome: RclpyFuture = RclpyFuture()

        def resolve(done: ConcurrentFuture) -> None:  # runs on the loop thread
            outcome.set_result(done.result())
            self._executor_wakeup.trigger()

        self.driver.request_latch(request.data).add_done_callback(resolve)
        response.success, response.message = await outcome
        self._publish_latch()
        return response

    def _on_reboot(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        response.success, response.message = self.driver.reboot_faulted()
        return response

    def _publish_latch(self) -> None:
        if self.driver.config.latch is not None:
            self.latch_pub.publish(Bool(data=self.driver.latch_status.latched))

    def _publish_diagnostics(self) -> None:
        message = DiagnosticArray()
        message.header.stamp = self.get_clock().now().to_msg()
        for entry in self.driver.diagnostics():
            status = DiagnosticStatus(level=LEVELS[entry.level], name=entry.name, message=entry.message,
                                      hardware_id=self.driver.config.port)
            status.values = [KeyValue(key=k, value=v) for k, v in entry.values.items()]
            message.status.append(status)
        self.diagnostics_pub.publish(message)

    def destroy_node(self) -> None:
        if self._started:
            self._stop.set()
            if self._loop.is_alive():
                self._loop.join(timeout=2.0)
            self.driver._loop_thread = None
            self.driver.shutdown()
            self._started = False
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    sys.setswitchinterval(0.0005)  # the loop thread must not wait 5 ms for the GIL behind a callback
    nodes: list[JointDriverNode] = []

    def make_node() -> JointDriverNode:
        nodes.append(JointDriverNode())
        return nodes[-1]

    # One executor thread: rclpy's multi-threaded executor busy-waits and starves the loop thread
    # of the GIL (measured: 230 Hz instead of 500 Hz); callbacks here never block long.
    code = run_node(make_node, args, spin=lambda node: spin_node(node.raise_executor_thread(), SingleThreadedExecutor()))
    if code == 0 and nodes and nodes[0]._loop_failed:
        return 1
    return code


if __name__ == '__main__':
    sys.exit(main())
