"""The gait node as a process: services, smooth retuning through parameters, startup errors."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import rclpy
from rcl_interfaces.srv import SetParameters
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger
from cobra_common.ros_testing import call_idempotent

REPO_ROOT = Path(__file__).resolve().parents[3]
URDF = REPO_ROOT / 'urdf' / 'cobra.urdf'
PARAMS = REPO_ROOT / 'config' / 'gait.yaml'


def gait_command(*parameters: str) -> list[str]:
    words = [sys.executable, '-m', 'cobra_gaits.gait_node', '--ros-args', '--params-file', str(PARAMS),
             '-p', f'urdf_path:={URDF}']
    for parameter in parameters:
        words += ['-p', parameter]
    return words


def call(node, client, request, timeout_s: float = 10.0):
    assert client.wait_for_service(timeout_sec=timeout_s)
    return call_idempotent(node, client, request, timeout_s)  # gait/start, gait/stop, parameters


def collect(node, messages: list, seconds: float) -> np.ndarray:
    messages.clear()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=0.01)
    return np.array([m.position for m in messages])


def last_seconds(messages: list[JointState], seconds: float) -> np.ndarray:
    times = np.array([m.header.stamp.sec + m.header.stamp.nanosec * 1e-9 for m in messages])
    return np.array([m.position for m in messages])[times > times[-1] - seconds]


def peak_speed(messages: list[JointState]) -> float:
    """Largest commanded joint speed [rad/s] between consecutive messages: a step shows as a spike."""
    times = np.array([m.header.stamp.sec + m.header.stamp.nanosec * 1e-9 for m in messages])
    positions = np.array([m.position for m in messages])
    return float(np.max(np.abs(np.diff(positions, axis=0)) / np.diff(times)[:, None]))


def test_start_retune_and_stop_without_steps(ros_env, ros_node):
    node = ros_node
    process = subprocess.Popen(gait_command('autostart:=false', 'ramp_duration_s:=0.5'), env=ros_env)
    try:
        messages: list[JointState] = []
        node.create_subscription(JointState, 'joint_commands', messages.append,
                                 QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
        deadline = time.monotonic() + 20.0
        while not messages and time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=0.1)
        idle = collect(node, messages, 1.0)
        assert len(idle) > 50 and np.all(idle == 0.0)  # waiting: straight pose
        assert messages[-1].name == [f'joint_{i}' for i in range(1, 12)]

        started = call(node, node.create_client(Trigger, 'gait/start'), Trigger.Request())
        assert started.success
        collect(node, messages, 3.5)
        cycle = last_seconds(messages, 2.5)  # one 0.4 Hz cycle after the ramp
        assert np.max(np.abs(cycle[:, 1])) == pytest.approx(0.70, abs=0.05)  # gait1 yaw amplitude
        assert np.max(np.abs(cycle[:, 0])) == pytest.approx(0.35, abs=0.05)

        set_parameters = node.create_client(SetParameters, 'gait_node/set_parameters')
        request = SetParameters.Request(parameters=[
            Parameter('frequency_hz', value=1.0).to_parameter_msg(),
            Parameter('direction', value='right').to_parameter_msg()])
        results = call(node, set_parameters, request).results
        assert all(result.successful for result in results)
        collect(node, messages, 3.5)
        # a 1 Hz wave of amplitude 0.7 rad moves at most 2 pi * 0.7 = 4.4 rad/s, plus the slew
        assert peak_speed(messages) < 6.0
        assert np.max(np.abs(last_seconds(messages, 1.0)[:, 1])) == pytest.approx(0.70, abs=0.05)

        rejected = call(node, set_parameters, SetParameters.Request(parameters=[
            Parameter('direction', value='up').to_parameter_msg()])).results[0]
        assert not rejected.successful and 'direction' in rejected.reason

        # within the declared range (<= pi/2) but 2 pi * 1 Hz * 1.5 rad = 9.4 rad/s > 4.82 rad/s
        too_fast = call(node, set_parameters, SetParameters.Request(parameters=[
            Parameter('amplitude_horizontal_rad', value=1.5).to_parameter_msg()])).results[0]
        assert not too_fast.successful
        assert 'gait too fast for the servos: joint_2 (yaw)' in too_fast.reason
        assert 'URDF velocity limit is 4.82 rad/s' in too_fast.reason
        assert 'amplitude_horizontal_rad <= 0.7' in too_fast.reason
        collect(node, messages, 1.5)
        assert np.max(np.abs(last_seconds(messages, 1.0)[:, 1])) == pytest.approx(0.70, abs=0.05)

        assert call(node, node.create_client(Trigger, 'gait/stop'), Trigger.Request()).success
        collect(node, messages, 1.5)
        assert peak_speed(messages) < 6.0
        assert np.all(np.abs(last_seconds(messages, 0.2)) < 1e-9)
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=15) == 0


@pytest.mark.parametrize('parameters, message', [
    (['gait:=gait7'], "unknown gait 'gait7'"),
    (['gait:=csv'], 'gait:=csv needs csv_file'),
    (['urdf_path:=/nonexistent/cobra.urdf'], 'URDF not found: /nonexistent/cobra.urdf'),
    (['frequency_hz:=2.0', 'amplitude_horizontal_rad:=1.5'],
     'gait too fast for the servos: joint_2 (yaw) would move at up to 18.85 rad/s'),
    (['gait1.frequency_hz:=2.0'], 'gait too fast for the servos: joint_2 (yaw)'),
    (['direction:=up'], "direction must be one of ['left', 'right']"),
    (['command_subscribers:=2'], 'command_subscribers (a count, which any other subscriber such as a '
                                 "'ros2 topic echo' satisfied) was replaced by command_subscriber_nodes"),
    (['command_subscriber_nodes:=[sim_node, logger/]'], "command_subscriber_nodes entry 'logger/' is not a node name"),
    (['command_subscriber_nodes:=2'], "parameter 'command_subscriber_nodes' = 2 has the wrong type"),
])
def test_startup_errors_exit_with_a_clear_message(ros_env, parameters, message):
    result = subprocess.run(gait_command(*parameters), env=ros_env, capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 2
    assert message in result.stderr


def test_too_fast_csv_is_refused_at_startup_with_file_and_line(ros_env, tmp_path):
    path = tmp_path / 'jerk.csv'
    path.write_text('time_s,joint_1\n0.0,0.0\n0.1,0.2\n0.2,0.9\n')
    result = subprocess.run(gait_command('gait:=csv', f'csv_file:={path}'), env=ros_env,
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert f'{path}:4: joint_1 moves +0.7000 rad in 0.1 s' in result.stderr


def test_declare_parameters_declares_everything_without_side_effects(ros_node):
    from cobra_common.ros_entry import StartupError
    from cobra_gaits.gait_node import declare_parameters
    bare = rclpy.create_node('gait_node', parameter_overrides=[
        Parameter('preset_names', value=['gait1', 'crawl']),
        Parameter('gait', value='crawl'),
        Parameter('crawl.frequency_hz', value=0.2),
        Parameter('crawl.amplitude_vertical_rad', value=0.1),
        Parameter('crawl.amplitude_horizontal_rad', value=0.3)])
    try:
        values = declare_parameters(bare)
        assert values['gait'] == 'crawl'
        assert (values['frequency_hz'], values['amplitude_horizontal_rad']) == (0.2, 0.3)
        assert bare.has_parameter('crawl.amplitude_vertical_rad') and bare.has_parameter('csv_loop')
        assert bare.get_parameter('ramp_duration_s').value == 2.0
        assert not list(bare.timers)
        assert [p.topic_name for p in bare.publishers] == ['/parameter_events']  # rclpy's own only
    finally:
        bare.destroy_node()
    unknown = rclpy.create_node('gait_node', parameter_overrides=[Parameter('gait', value='gait7')])
    try:
        with pytest.raises(StartupError, match="unknown gait 'gait7'"):
            declare_parameters(unknown)
    finally:
        unknown.destroy_node()


def test_command_subscriber_nodes_resolve_in_the_gaits_namespace(ros_node):
    from cobra_gaits.gait_node import declare_parameters
    named = rclpy.create_node('gait_node', namespace='/cobra', parameter_overrides=[
        Parameter('command_subscriber_nodes', value=['sim_node', '/logger'])])
    unset = rclpy.create_node('gait_node', namespace='/cobra')
    try:
        assert declare_parameters(named)['command_subscriber_nodes'] == ('/cobra/sim_node', '/logger')
        assert declare_parameters(unset)['command_subscriber_nodes'] == ()  # no hold
    finally:
        named.destroy_node()
        unset.destroy_node()
