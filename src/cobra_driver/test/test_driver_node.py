"""The ROS node as a process (via ros_env) against the emulator: topics, services, signals, watchdog."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import rclpy
from diagnostic_msgs.msg import DiagnosticArray
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.parameter_client import AsyncParameterClient
from rclpy.qos import DurabilityPolicy, QoSProfile, qos_profile_sensor_data
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool
from std_srvs.srv import SetBool

from cobra_common.ros_testing import call_idempotent
from cobra_driver import control_table as ct

REPO_ROOT = Path(__file__).resolve().parents[3]
PARAMS_FILE = REPO_ROOT / 'config' / 'driver.yaml'


def start_node(ros_env: dict[str, str], port: str, *extra: str) -> subprocess.Popen[str]:
    command = [sys.executable, '-m', 'cobra_driver.driver_node', '--ros-args', '--params-file', str(PARAMS_FILE),
               '-p', f'port:={port}', '-p', 'rate_hz:=100.0', '-p', 'packet_timeout_margin_ms:=20.0',
               '-p', 'setup_timeout_margin_ms:=250.0', *extra]
    return subprocess.Popen(command, env=ros_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def stop_node(process: subprocess.Popen[str], sig: int = signal.SIGINT) -> str:
    if process.poll() is None:
        os.killpg(process.pid, sig)
    try:
        output, _ = process.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    return output


class Probe:
    def __init__(self) -> None:
        rclpy.init()
        self.node = Node('driver_test_probe')
        self.states: list[JointState] = []
        self.diagnostics: list[DiagnosticArray] = []
        self.latched: list[bool] = []
        self.node.create_subscription(JointState, 'joint_states', self.states.append, qos_profile_sensor_data)
        self.node.create_subscription(Bool, 'latch/state', lambda m: self.latched.append(m.data),
                                      QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        self.node.create_subscription(DiagnosticArray, 'diagnostics', self.diagnostics.append, 10)
        self.commands = self.node.create_publisher(JointState, 'joint_commands', 10)

    def spin_until(self, condition, timeout: float = 20.0) -> bool:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rclpy.spin_once(self.node, timeout_sec=0.05)
            if condition():
                return True
        return False

    def command(self, name: str, position: float) -> None:
        self.commands.publish(JointState(name=[name], position=[position]))

    def call(self, service: str, value: bool, timeout: float = 15.0) -> SetBool.Response:
        client = self.node.create_client(SetBool, service)
        assert client.wait_for_service(timeout_sec=timeout)
        answer = call_idempotent(self.node, client, SetBool.Request(data=value), timeout)
        assert answer is not None
        return answer

    def close(self) -> None:
        self.node.destroy_node()
        rclpy.try_shutdown()


@pytest.fixture
def probe(ros_env):  # type: ignore[no-untyped-def]
    p = Probe()
    yield p
    p.close()


def eventually(condition, timeout: float = 3.0) -> bool:  # type: ignore[no-untyped-def]
    """Sync Writes get no reply: give the emulator thread a moment to apply them."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def position_of(state: JointState, name: str) -> float | None:
    return state.position[list(state.name).index(name)] if name in state.name else None


def test_no_device_exits_nonzero_with_one_clear_message(ros_env) -> None:  # type: ignore[no-untyped-def]
    process = start_node(ros_env, '/dev/ttyCOBRA_not_plugged_in')
    output = stop_node(process) if process.wait(timeout=30) is None else process.communicate()[0]
    assert process.returncode == 2
    assert "serial port '/dev/ttyCOBRA_not_plugged_in' not found" in output and 'Check:' in output


def test_commands_move_joints_latch_torque_and_sigint_turns_torque_off(bus, ros_env, probe) -> None:  # type: ignore[no-untyped-def]
    process = start_node(ros_env, bus.port)
    try:
        assert probe.spin_until(lambda: len(probe.states) > 5), stop_node(process)
        assert len(probe.states[-1].name) == 12 and probe.states[-1].header.stamp.sec > 0

        def moved() -> bool:
            probe.command('joint_3', 0.4)
            value = position_of(probe.states[-1], 'joint_3')
            return value is not None and abs(value - 0.4) < 0.02
        assert probe.spin_until(moved)
        probe.command('joint_3', float('nan'))  # ignored: the joint stays
        probe.spin_until(lambda: False, timeout=0.3)
        assert abs(position_of(probe.states[-1], 'joint_3') - 0.4) < 0.02

        assert probe.spin_until(lambda: bool(probe.diagnostics))
        names = {status.name for status in probe.diagnostics[-1].status}
        assert {'joint_driver: bus', 'joint_driver: joint_11 (ID 11)', 'joint_driver: latch'} <= names
        bus_values = next({kv.key: kv.value for kv in status.values} for status in probe.diagnostics[-1].status
                          if status.name == 'joint_driver: bus')
        # the loop thread asked for SCHED_FIFO 50 (config/driver.yaml): granted to root, refused with a reason else
        expected = 'SCHED_FIFO 50' if os.geteuid() == 0 else 'SCHED_OTHER ('
        assert bus_values['loop_scheduling'].startswith(expected), bus_values
        # and the executor thread, which shares the GIL with it, the lowest real-time priority
        expected = 'SCHED_FIFO 1' if os.geteuid() == 0 else 'SCHED_OTHER ('
        assert bus_values['executor_scheduling'].startswith(expected), bus_values

        response = probe.call('latch/set', True)
        assert response.success, response.message
        assert probe.spin_until(lambda: bool(probe.latched) and probe.latched[-1])
        response = probe.call('torque/set', False)
        assert response.success and eventually(lambda: bus.snapshot(3, 'torque_enable') == 0)
        assert probe.call('torque/set', True).success
    finally:
        output = stop_node(process, signal.SIGINT)
    assert process.returncode == 0, output
    assert eventually(lambda: all(bus.snapshot(i, 'torque_enable') == 0 for i in range(1, 13))), output


def test_sigkill_leaves_the_bus_watchdog_to_stop_the_servo(bus, ros_env, probe) -> None:  # type: ignore[no-untyped-def]
    # slow profile: 20 x 0.229 rev/min ~ 0.48 rad/s, so the joint is still moving when the host dies
    process = start_node(ros_env, bus.port, '-p', 'profile_velocity:=20')
    try:
        assert probe.spin_until(lambda: len(probe.states) > 5), stop_node(process)

        def moving() -> bool:
            probe.command('joint_5', 1.5)
            value = position_of(probe.states[-1], 'joint_5')
            return value is not None and value > 0.1
        assert probe.spin_until(moving)
    finally:
        stop_node(process, signal.SIGKILL)
    time.sleep(0.3)  # watchdog 100 ms
    assert bus.snapshot(5, 'bus_watchdog') == ct.BUS_WATCHDOG_TRIPPED
    stopped = bus.snapshot(5, 'present_position')
    time.sleep(0.3)
    assert bus.snapshot(5, 'present_position') == stopped
    assert stopped < 2048 + 1.5 / (2 * 3.14159 / 4096) - 100  # stopped well short of the target
    assert bus.snapshot(5, 'torque_enable') == 1  # it holds; it does not go limp


def test_parameter_updates_are_validated_then_sigterm_turns_torque_off(bus, ros_env, probe) -> None:  # type: ignore[no-untyped-def]
    process = start_node(ros_env, bus.port)
    try:
        assert probe.spin_until(lambda: len(probe.states) > 5), stop_node(process)
        client = AsyncParameterClient(probe.node, 'joint_driver')
        assert client.wait_for_services(timeout_sec=10.0)

        def set_one(name: str, value: object) -> SetParametersResult:
            future = client.set_parameters([Parameter(name, value=value)])
            assert probe.spin_until(future.done)
            return future.result().results[0]
        assert set_one('command_timeout_s', 0.5).successful
        rejected = set_one('rate_hz', 250.0)
        assert not rejected.successful and 'read-only' in rejected.reason
        rejected = set_one('command_mode', 'spline')
        assert not rejected.successful and "'command_mode' = 'spline' is invalid: must be one of" in rejected.reason
    finally:
        output = stop_node(process, signal.SIGTERM)
    assert process.returncode == 0, output
    assert eventually(lambda: all(bus.snapshot(i, 'torque_enable') == 0 for i in range(1, 13))), output


def test_baud_rate_too_slow_exits_2_before_touching_the_port(ros_env) -> None:  # type: ignore[no-untyped-def]
    process = start_node(ros_env, '/dev/ttyCOBRA_not_plugged_in', '-p', 'baud_rate:=57600', '-p', 'rate_hz:=500.0')
    try:
        output, _ = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        output = stop_node(process)
    assert process.returncode == 2, output
    assert 'baud_rate 57600 is too slow for rate_hz 500' in output and 'Fix:' in output
    assert 'serial port' not in output  # judged from the parameters alone, before any device


def test_declare_parameters_on_a_bare_node_refuses_bad_combinations(ros_env) -> None:  # type: ignore[no-untyped-def]
    from cobra_common.ros_entry import StartupError
    from cobra_driver.driver_node import declare_parameters
    rclpy.init()
    try:
        good = Node('joint_driver')
        values = declare_parameters(good)
        assert values['move_to_start_speed_rad_s'] == 0.5 and values['baud_rate'] == 4_000_000
        descriptor = good.describe_parameter('move_to_start_speed_rad_s')
        assert descriptor.floating_point_range[0].to_value == 4.8 and not descriptor.read_only
        assert good.describe_parameter('rate_hz').read_only
        good.destroy_node()
        for overrides, expected in (([Parameter('baud_rate', value=57600)], 'too slow'),
                                    ([Parameter('joint_ids', value=[1, 2])], 'one entry per joint'),
                                    ([Parameter('command_mode', value='spline')], "'command_mode' = 'spline' is invalid: must be one of")):
            bad = Node('joint_driver', parameter_overrides=overrides)
            with pytest.raises(StartupError, match=expected):
                declare_parameters(bad)
            bad.destroy_node()
    finally:
        rclpy.try_shutdown()
