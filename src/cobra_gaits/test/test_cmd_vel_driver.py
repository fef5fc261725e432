"""gait:=cmd_vel on the robot's side: gait node -> joint driver -> the servo-bus emulator (cobra_driver).

Twists at and far beyond the limits (clamped by the gait node) drive the emulated servos; the
driver accepts every command (none clamped to the URDF range, none rejected), successive commands
never ask a joint for more than its URDF velocity limit (judged on the commands' stamps), and the
servos follow. Judged on delivered messages and the emulator's registers, not on timing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import rclpy
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import Twist
from rclpy.qos import QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from sensor_msgs.msg import JointState

from cobra_description.robot_model import default_urdf_path, load_robot_model
from cobra_driver.emulator import cobra_bus

REPO_ROOT = Path(__file__).resolve().parents[3]
RELIABLE = QoSProfile(depth=500, reliability=ReliabilityPolicy.RELIABLE)


@pytest.fixture
def bus(tmp_path):
    emulator = cobra_bus(link_path=tmp_path / 'ttyCOBRA')
    emulator.start()
    previous = sys.getswitchinterval()
    sys.setswitchinterval(0.0002)  # the emulator thread shares this process with the probe
    yield emulator
    sys.setswitchinterval(previous)
    emulator.stop()


def start(ros_env: dict[str, str], module: str, *arguments: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, '-m', module, '--ros-args', *arguments], env=ros_env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)


def stop(process: subprocess.Popen[str]) -> str:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
    try:
        return process.communicate(timeout=20)[0]
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        return process.communicate()[0]


def stamp_s(message: JointState) -> float:
    return message.header.stamp.sec + message.header.stamp.nanosec * 1e-9


def test_cmd_vel_drives_the_emulated_servos_within_their_limits(bus, ros_env, ros_node):
    joints = load_robot_model(default_urdf_path()).gait_joints()
    driver = start(ros_env, 'cobra_driver.driver_node', '--params-file', str(REPO_ROOT / 'config' / 'driver.yaml'),
                   '-p', f'port:={bus.port}', '-p', 'rate_hz:=100.0', '-p', 'packet_timeout_margin_ms:=20.0')
    gait = start(ros_env, 'cobra_gaits.gait_node', '--params-file', str(REPO_ROOT / 'config' / 'gait.yaml'),
                 '-p', 'gait:=cmd_vel', '-p', 'command_subscriber_nodes:=[joint_driver]')
    commands: list[JointState] = []
    states: list[JointState] = []
    diagnostics: list[DiagnosticArray] = []
    ros_node.create_subscription(JointState, 'joint_commands', commands.append, RELIABLE)
    ros_node.create_subscription(JointState, 'joint_states', states.append, qos_profile_sensor_data)
    ros_node.create_subscription(DiagnosticArray, 'diagnostics', diagnostics.append, 10)
    cmd_vel = ros_node.create_publisher(Twist, 'cmd_vel', RELIABLE)
    beyond = Twist()
    beyond.linear.y, beyond.angular.z = -1.0, 1.0  # ten times the limits: clamped to them

    def spin_until(condition, what: str, timeout_s: float = 120.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            cmd_vel.publish(beyond)
            rclpy.spin_once(ros_node, timeout_sec=0.02)
            if condition():
                return
        pytest.fail(f'{what} never came; driver: {stop(driver)[-2000:]} gait: {stop(gait)[-2000:]}')

    def largest_state_rad() -> float:
        return max((abs(p) for p in states[-1].position[:len(joints)]), default=0.0) if states else 0.0

    try:
        # full amplitude at the clamped speed: the widest tapered wave (0.7 x 1.7 rad) has reached a servo
        spin_until(lambda: largest_state_rad() > 0.9, 'servos at the wave amplitude')
        spin_until(lambda: len(commands) > 600, '6 s of joint_commands')
        spin_until(lambda: any(s.name == 'joint_driver: commands' for a in diagnostics[-3:] for s in a.status),
                   'the driver\'s command diagnostics')
    finally:
        gait_log = stop(gait)
        driver_log = stop(driver)
    assert 'linear.y and angular.z beyond the limits' in gait_log and 'clamped' in gait_log

    names = [joint.name for joint in joints]
    assert list(commands[-1].name) == names
    positions = np.array([c.position for c in commands])
    times = np.array([stamp_s(c) for c in commands])
    steps = np.diff(times)
    assert np.all(steps > 0.0)
    speeds = np.abs(np.diff(positions, axis=0)) / steps[:, None]
    limits = np.array([joint.limits.velocity_rad_s for joint in joints])
    assert np.all(speeds <= limits * 1.001), speeds.max(axis=0)  # stamps are the tick times (100 Hz)
    assert speeds.max() > 1.0  # really moving, at a good share of the limit
    lower = np.array([joint.limits.lower_rad for joint in joints])
    upper = np.array([joint.limits.upper_rad for joint in joints])
    assert np.all((positions >= lower) & (positions <= upper))

    commands_status = next(s for a in reversed(diagnostics) for s in a.status if s.name == 'joint_driver: commands')
    values = {kv.key: kv.value for kv in commands_status.values}
    assert int(values['accepted']) > 100 and values['rejected'] == 'none' and values['commands_clamped'] == '0', \
        (values, driver_log[-2000:])
    for servo_id in range(1, 12):  # every goal register inside the servo's own position limits
        goal = bus.snapshot(servo_id, 'goal_position')
        assert bus.snapshot(servo_id, 'min_position_limit') <= goal <= bus.snapshot(servo_id, 'max_position_limit')
