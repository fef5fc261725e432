"""The gait node with gait:=cmd_vel: parameters, and a running node following Twists on cmd_vel
(COBRA and the T-Snake): straight until a twist, moving with one, straight again once cmd_vel
went stale; bad twists are refused and logged. Judged on the joint_commands that arrived."""

from __future__ import annotations

import math
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import rclpy
from geometry_msgs.msg import Twist
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState

from cobra_common.ros_entry import StartupError
from cobra_gaits.gait_node import declare_parameters

REPO_ROOT = Path(__file__).resolve().parents[3]
PARAMS = REPO_ROOT / 'config' / 'gait.yaml'
URDFS = {'cobra': REPO_ROOT / 'urdf' / 'cobra.urdf', 'tsnake': REPO_ROOT / 'urdf' / 'tsnake.urdf'}
RELIABLE = QoSProfile(depth=200, reliability=ReliabilityPolicy.RELIABLE)


def _declared(**overrides: object) -> dict:
    node = rclpy.create_node('gait_node', parameter_overrides=[
        Parameter(name, value=value) for name, value in overrides.items()])
    try:
        return declare_parameters(node)
    finally:
        node.destroy_node()


def test_cmd_vel_takes_the_amplitudes_of_its_sidewinding_preset(ros_node):
    values = _declared(gait='cmd_vel', preset_names=['gait1', 'gait2'], cmd_vel_sidewinding_preset='gait2',
                       **{'gait2.amplitude_vertical_rad': 0.45, 'gait2.amplitude_horizontal_rad': 0.9})
    assert (values['amplitude_vertical_rad'], values['amplitude_horizontal_rad']) == (0.45, 0.9)
    assert values['cmd_vel']['timeout_s'] == 0.5


@pytest.mark.parametrize('overrides, message', [
    ({'cmd_vel_sidewinding_preset': 'crawl'}, "cmd_vel_sidewinding_preset 'crawl' is not a sidewinding preset"),
    ({'cmd_vel_tsnake_steering': 'sideways'}, "cmd_vel.tsnake_steering 'sideways' is not an LTS steering mode"),
    ({'cmd_vel_timeout_s': 0.0}, "parameter 'cmd_vel_timeout_s' = 0.0 is out of range"),
])
def test_bad_cmd_vel_parameters_are_refused(ros_node, overrides, message):
    with pytest.raises(StartupError) as error:
        _declared(gait='cmd_vel', **overrides)
    assert message in str(error.value)


@pytest.mark.parametrize('robot, ramp_s', [('cobra', 1.0), ('tsnake', 2.0)])  # the T-Snake's twist needs 2 s
def test_node_follows_cmd_vel_and_ramps_down_when_it_goes_stale(ros_env, ros_node, robot, ramp_s):
    process = subprocess.Popen([sys.executable, '-m', 'cobra_gaits.gait_node', '--ros-args', '--params-file',
                                str(PARAMS), '-p', 'gait:=cmd_vel', '-p', f'urdf_path:={URDFS[robot]}',
                                '-p', f'ramp_duration_s:={ramp_s}'],
                               env=ros_env, stderr=subprocess.PIPE, text=True)
    commands: list[JointState] = []
    ros_node.create_subscription(JointState, 'joint_commands', commands.append, RELIABLE)
    cmd_vel = ros_node.create_publisher(Twist, 'cmd_vel', RELIABLE)

    def spin_until(condition, what: str, publish: Twist | None = None, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if publish is not None:
                cmd_vel.publish(publish)
            rclpy.spin_once(ros_node, timeout_sec=0.05)
            if commands and condition():
                return
        pytest.fail(f'{robot}: {what} never came')

    def stamp_s(message: JointState) -> float:
        return message.header.stamp.sec + message.header.stamp.nanosec * 1e-9

    def largest(after_s: float = -math.inf) -> float:
        return max((np.abs(m.position).max() for m in commands if stamp_s(m) > after_s), default=0.0)

    try:
        spin_until(lambda: len(commands) >= 20, '20 joint_commands')
        bad = Twist()
        bad.linear.y = math.nan
        first_bad = len(commands)
        spin_until(lambda: len(commands) >= first_bad + 50, '50 commands while bad twists arrive', publish=bad)
        assert largest() == 0.0  # bad twists change nothing: still straight
        good = Twist()
        good.linear.y, good.angular.z = 0.03, 0.02
        spin_until(lambda: np.abs(commands[-1].position).max() > 0.2, 'moving joints', publish=good)
        last_twist_s = ros_node.get_clock().now().nanoseconds * 1e-9  # the node stamps with this clock
        # silent from here: after cmd_vel_timeout_s (0.5 s) and the ramp every command is straight
        straight_s = last_twist_s + 0.5 + ramp_s + 0.1
        spin_until(lambda: stamp_s(commands[-1]) > straight_s + 0.5, 'commands after the ramp down')
        after = np.array([m.position for m in commands if stamp_s(m) > straight_s])
        twist = np.array([name.endswith('_twist') for name in commands[-1].name])
        assert np.abs(after[:, ~twist]).max() == 0.0
        # the T-Snake's twist joints rest at whole turns (none on COBRA)
        assert np.allclose(after[:, twist], np.round(after[:, twist] / (2 * np.pi)) * 2 * np.pi, atol=1e-9)
        assert largest(after_s=last_twist_s) > 0.0  # it was still moving when the twists stopped
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=15)
        assert process.returncode == 0, stderr
    assert 'non-finite linear.y: twist ignored' in stderr
    assert 'following cmd_vel' in stderr
