"""latch/set and latch/state of the sim node: the weld engages once the robot is curled.

The test is the gait: it commands the curl pose (cobra_gaits.curl_pose) on joint_commands, asks
latch/set true until the frames are in reach, and receives latch/state true, then false on
release. Judged by the services' answers and the latch/state messages received.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import rclpy
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool
from std_srvs.srv import SetBool

from cobra_common.ros_testing import call_idempotent
from cobra_description.robot_model import load_robot_model
from cobra_gaits.curl_pose import curl_pose

URDF = Path(__file__).resolve().parents[3] / 'urdf' / 'cobra.urdf'
LATCHED = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
COMMANDS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)


def test_latch_set_engages_the_weld_once_curled_and_latch_state_follows(ros_env, ros_node):
    sim = subprocess.Popen(
        [sys.executable, '-m', 'cobra_sim.sim_node', '--ros-args', '-p', f'urdf_path:={URDF}',
         '-p', 'settle_duration_s:=0.2', '-p', 'real_time_factor:=1.0', '-p', 'contact_forces_period_s:=0.0'],
        env=ros_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        node = ros_node
        states: list[bool] = []
        node.create_subscription(Bool, 'latch/state', lambda m: states.append(m.data), LATCHED)
        commands = node.create_publisher(JointState, 'joint_commands', COMMANDS)
        client = node.create_client(SetBool, 'latch/set')
        assert client.wait_for_service(timeout_sec=30.0)
        robot = load_robot_model(URDF)
        target = curl_pose(robot, robot.gait_joints()).as_dict()

        def call(value: bool) -> SetBool.Response:
            return call_idempotent(node, client, SetBool.Request(data=value), 10.0)

        deadline = time.monotonic() + 60.0
        response = None
        while time.monotonic() < deadline:
            # the sim's speed limit moves the joints smoothly to the curl (~0.3 s at 4.8 rad/s, then sway)
            commands.publish(JointState(name=list(target), position=list(target.values())))
            rclpy.spin_once(node, timeout_sec=0.1)
            response = call(True)
            if response.success:
                break
            assert 'latch frames are' in response.message
        assert response is not None and response.success, response and response.message
        assert 'latched with the latch frames' in response.message
        end = time.monotonic() + 10.0
        while time.monotonic() < end and not (states and states[-1]):
            rclpy.spin_once(node, timeout_sec=0.1)
        assert states and states[-1] is True
        released = call(False)
        assert released.success and released.message == 'latch released'
        end = time.monotonic() + 10.0
        while time.monotonic() < end and states[-1]:
            rclpy.spin_once(node, timeout_sec=0.1)
        assert states[-1] is False
    finally:
        sim.send_signal(signal.SIGINT)
        sim.communicate(timeout=15)


def test_latch_schedule_engages_and_releases_at_its_sim_times(ros_env, ros_node):
    """The twin's path: no service call, the latch set at the scheduled sim times (2 s, 3 s) while
    the test commands the curl pose; a bad schedule is refused at start with exit 2."""
    bad = subprocess.run([sys.executable, '-m', 'cobra_sim.sim_node', '--ros-args', '-p', f'urdf_path:={URDF}',
                          '-p', 'latch_schedule_s:=[3.0, 2.0]'], env=ros_env, capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2, bad.stdout + bad.stderr
    assert 'latch_schedule_s:=[3.0, 2.0] must be increasing sim times' in bad.stdout + bad.stderr
    sim = subprocess.Popen(
        [sys.executable, '-m', 'cobra_sim.sim_node', '--ros-args', '-p', f'urdf_path:={URDF}',
         '-p', 'settle_duration_s:=0.2', '-p', 'real_time_factor:=1.0', '-p', 'contact_forces_period_s:=0.0',
         '-p', 'latch_schedule_s:=[2.0, 3.0]', '-p', 'duration_s:=3.5',
         # t = 0 waits for this test's first curl command: the curl is reached by 2 s of sim time
         # however late the test's publisher is discovered
         '-p', 'wait_for_peers_s:=60.0', '-p', 'wait_for_recorder:=false'],
        env=ros_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        states: list[bool] = []
        ros_node.create_subscription(Bool, 'latch/state', lambda m: states.append(m.data), LATCHED)
        commands = ros_node.create_publisher(JointState, 'joint_commands', COMMANDS)
        robot = load_robot_model(URDF)
        target = curl_pose(robot, robot.gait_joints()).as_dict()
        while sim.poll() is None:
            commands.publish(JointState(name=list(target), position=list(target.values())))
            rclpy.spin_once(ros_node, timeout_sec=0.02)
        output = sim.communicate(timeout=15)[0]
    finally:
        if sim.poll() is None:
            sim.send_signal(signal.SIGINT)
            sim.communicate(timeout=15)
    assert sim.returncode == 0, output
    assert 'latch_schedule_s (2 s) True: latched with the latch frames' in output, output
    assert 'latch_schedule_s (3 s) False: latch released' in output, output
    assert [state for index, state in enumerate(states) if index == 0 or state != states[index - 1]] == \
        [False, True, False], states
