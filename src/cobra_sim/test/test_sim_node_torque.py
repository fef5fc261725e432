"""Torque off -> on through the node's torque/set service: the joints hold where they are and then
follow the latest command at the servo's speed limit, never snapping to a goal sent while limp
(what the driver does: re-read positions and hold them before enabling)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import rclpy
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_srvs.srv import SetBool

from cobra_common.service_request import ResendingRequest
from cobra_description.robot_model import load_robot_model

URDF = Path(__file__).resolve().parents[3] / 'urdf' / 'cobra.urdf'
RELIABLE = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
SENSOR = QoSProfile(depth=1000, reliability=ReliabilityPolicy.BEST_EFFORT)


def test_torque_on_does_not_snap_to_a_goal_sent_while_limp(ros_env, ros_node):
    speed_limit_rad_s = load_robot_model(URDF).joint('joint_2').limits.velocity_rad_s
    process = subprocess.Popen(
        [sys.executable, '-m', 'cobra_sim.sim_node', '--ros-args', '-p', f'urdf_path:={URDF}',
         '-p', 'real_time_factor:=1.0', '-p', 'settle_duration_s:=0.5', '-p', 'command_timeout_s:=10.0'],
        env=ros_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    states: list[JointState] = []
    ros_node.create_subscription(JointState, 'joint_states', states.append, SENSOR)
    commands = ros_node.create_publisher(JointState, 'joint_commands', RELIABLE)
    torque = ros_node.create_client(SetBool, 'torque/set')
    try:
        assert torque.wait_for_service(timeout_sec=30.0)

        def set_torque(on: bool) -> None:
            # idempotent, so asked again while unanswered (a reply lost right after discovery)
            answer = ResendingRequest(torque, SetBool.Request(data=on)).spin_until_answered(ros_node, 30.0)
            assert answer is not None and answer.success

        def command_for(position_rad: float, sim_seconds: float) -> None:
            """Send the goal at ~100 Hz until the joint_states stamps advanced by sim_seconds."""
            while not states:
                rclpy.spin_once(ros_node, timeout_sec=0.05)
            start = states[-1].header.stamp.sec + states[-1].header.stamp.nanosec * 1e-9
            deadline = time.monotonic() + 60.0
            while states[-1].header.stamp.sec + states[-1].header.stamp.nanosec * 1e-9 < start + sim_seconds:
                assert time.monotonic() < deadline
                commands.publish(JointState(name=['joint_2'], position=[position_rad]))
                rclpy.spin_once(ros_node, timeout_sec=0.01)

        set_torque(False)
        command_for(1.2, 1.0)  # a goal far from the limp pose, sent while limp
        limp_position = states[-1].position[states[-1].name.index('joint_2')]
        assert abs(limp_position) < 0.3  # limp: it did not go there
        states.clear()
        set_torque(True)
        command_for(1.2, 1.0)
    finally:
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=30)
    index = states[-1].name.index('joint_2')
    peak_rad_s = max(abs(state.velocity[index]) for state in states)
    assert peak_rad_s < 1.3 * speed_limit_rad_s, f'snapped at {peak_rad_s:.1f} rad/s\n{output}'
    assert abs(states[-1].position[index] - 1.2) < 0.1  # and it then went there
