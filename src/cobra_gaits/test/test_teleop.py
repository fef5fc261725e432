"""Terminal teleop (cobra_gaits.teleop): the key map, and the program driven under tmux the way a
person types (tmux send-keys), checked on the cmd_vel messages that arrive."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import rclpy
from geometry_msgs.msg import Twist
from rclpy.qos import QoSProfile, ReliabilityPolicy

from cobra_gaits.teleop import DEFAULT_ANGULAR_RAD_S, DEFAULT_LATERAL_M_S, TeleopState


def test_keys_set_sideways_speed_turn_and_stop():
    state = TeleopState()
    assert state.press('J') and state.twist() == (DEFAULT_LATERAL_M_S, 0.0)
    assert state.press('l') and state.twist() == (0.0, -DEFAULT_ANGULAR_RAD_S)
    assert state.press('U') and state.twist() == (DEFAULT_LATERAL_M_S, DEFAULT_ANGULAR_RAD_S)
    assert state.press('w') and state.twist()[0] == pytest.approx(1.1 * DEFAULT_LATERAL_M_S)
    assert state.press('k') and state.twist() == (0.0, 0.0)
    assert not state.press('z') and not state.quit
    assert state.press('Q') and state.quit and state.twist() == (0.0, 0.0)


def test_without_a_terminal_it_exits_2_naming_the_fix(ros_env):
    result = subprocess.run([sys.executable, '-m', 'cobra_gaits.teleop'], stdin=subprocess.DEVNULL,
                            env=ros_env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and 'terminal' in result.stderr


@pytest.mark.skipif(shutil.which('tmux') is None, reason='tmux is not installed')
def test_typed_keys_drive_cmd_vel_under_tmux(ros_env, ros_node, tmp_path: Path):
    received: list[Twist] = []
    ros_node.create_subscription(Twist, 'cmd_vel', received.append,
                                 QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
    socket = f'cobra-teleop-{uuid.uuid4().hex[:8]}'
    exit_file = tmp_path / 'exit_code'
    command = f'{sys.executable} -m cobra_gaits.teleop --period 0.05; echo $? > {exit_file}'
    tmux = ['tmux', '-L', socket]
    subprocess.run([*tmux, 'new-session', '-d', '-x', '120', '-y', '30', command], env=ros_env, check=True)

    def wait_for(condition, what: str, timeout_s: float = 30.0) -> Twist:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            rclpy.spin_once(ros_node, timeout_sec=0.05)
            if received and condition(received[-1]):
                return received[-1]
        pytest.fail(f'no cmd_vel with {what}; last: {received[-1:]}')

    def type_keys(*keys: str) -> None:
        subprocess.run([*tmux, 'send-keys', '-t', '0', *keys], env=ros_env, check=True)

    try:
        wait_for(lambda m: m.linear.y == 0.0 and m.angular.z == 0.0, 'a zero twist (started, nothing pressed)')
        type_keys('J')
        wait_for(lambda m: m.linear.y == pytest.approx(DEFAULT_LATERAL_M_S), 'linear.y > 0 after J')
        type_keys('j')
        wait_for(lambda m: m.linear.y == 0.0 and m.angular.z == pytest.approx(DEFAULT_ANGULAR_RAD_S),
                 'angular.z > 0 after j')
        type_keys('w', 'L')
        wait_for(lambda m: m.linear.y == pytest.approx(-1.1 * DEFAULT_LATERAL_M_S), 'linear.y < 0, 10 % faster')
        type_keys('Space')
        wait_for(lambda m: m.linear.y == 0.0 and m.angular.z == 0.0, 'a zero twist after space')
        type_keys('O')
        wait_for(lambda m: m.linear.y < 0.0 and m.angular.z > 0.0, 'sideways right while turning left')
        type_keys('C-c')  # as a person quits: the teleop sends a zero twist and exits 0
        wait_for(lambda m: m.linear.y == 0.0 and m.angular.z == 0.0, 'the zero twist on quitting')
        deadline = time.monotonic() + 30.0
        while not (exit_file.exists() and exit_file.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert exit_file.read_text().strip() == '0'
    finally:
        subprocess.run([*tmux, 'kill-server'], env=ros_env, capture_output=True)


def test_joystick_mapping_drives_only_what_a_snake_follows_within_the_limits():
    """config/teleop_joy.yaml (teleop_twist_joy): linear.x off, linear.y and angular.z mapped, and
    full deflection (turbo included) within COBRA's cmd_vel limits, so the gait never clamps it."""
    import yaml

    from cobra_description.robot_model import default_urdf_path, load_robot_model
    from cobra_gaits.cmd_vel import CmdVelSettings, ConicalSidewinding
    from cobra_gaits.sidewinding import SidewindingParams

    path = Path(__file__).resolve().parents[3] / 'config' / 'teleop_joy.yaml'
    parameters = yaml.safe_load(path.read_text())['/**/teleop_twist_joy_node']['ros__parameters']
    assert parameters['axis_linear'] == {'x': -1, 'y': 0, 'z': -1}
    assert parameters['axis_angular']['yaw'] >= 0 and parameters['axis_angular']['pitch'] == -1
    limits = ConicalSidewinding(load_robot_model(default_urdf_path()).gait_joints(),
                                SidewindingParams(0.0, 0.35, 0.70), CmdVelSettings()).limits
    for block in ('scale_linear', 'scale_linear_turbo'):
        assert parameters[block]['x'] == 0.0 and 0.0 < parameters[block]['y'] <= limits.max_lateral_m_s
    for block in ('scale_angular', 'scale_angular_turbo'):
        assert 0.0 < parameters[block]['yaw'] <= limits.max_angular_rad_s
