"""The gait node with gait:=lts: its parameters (declare_parameters on a bare node) and the
T-Snake joint_commands of a running node; startup errors exit 2 with the fix."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import rclpy
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

from cobra_common.ros_entry import StartupError
from cobra_common.ros_testing import call_idempotent
from cobra_gaits.gait_node import declare_parameters
from cobra_gaits.lts import PRESET_NAMES

REPO_ROOT = Path(__file__).resolve().parents[3]
TSNAKE_URDF = REPO_ROOT / 'urdf' / 'tsnake.urdf'
COBRA_URDF = REPO_ROOT / 'urdf' / 'cobra.urdf'
PARAMS = REPO_ROOT / 'config' / 'gait.yaml'
TSNAKE_NAMES = [f'm{i}_{kind}' for i in range(1, 7) for kind in ('dorsal', 'twist', 'lateral')]


def _declared(**overrides: object) -> dict:
    node = rclpy.create_node('gait_node', parameter_overrides=[
        Parameter(name, value=value) for name, value in overrides.items()])
    try:
        return declare_parameters(node)
    finally:
        node.destroy_node()


def test_lts_parameters_default_to_the_presets_values(ros_node):
    values = _declared(gait='lts')
    assert values['lts_preset'] == 'rolling'
    assert (values['lts_a0_rad_s'], values['lts_a1_rad_m_s'], values['lts_omega_t_rad_s']) == (-0.8, 0.0, 0.5)
    twisting = _declared(gait='lts', lts_preset='twisting', lts_a0_rad_s=-0.5)
    assert (twisting['lts_a0_rad_s'], twisting['lts_a1_rad_m_s'], twisting['lts_omega_t_rad_s']) == (-0.5, 1.5, 0.0)


@pytest.mark.parametrize('overrides, message', [
    ({'gait': 'lts', 'lts_preset': 'corkscrew'},
     f"unknown lts_preset 'corkscrew': choose one of {', '.join(PRESET_NAMES)}"),
    ({'gait': 'gait1', 'lts_a1_rad_m_s': 1.0},
     'lts_a1_rad_m_s is an LTS twist-gait parameter: it needs gait:=lts on the T-Snake (robot:=tsnake)'),
    ({'gait': 'lts', 'lts_a0_rad_s': 9.0}, "parameter 'lts_a0_rad_s' = 9.0 is out of range: allowed [-5, 5]"),
    ({'gait': 'lts', 'lts_preset': 'rolling_vector', 'lts_a1_rad_m_s': 1.0}, 'rolling-vector baseline'),
])
def test_bad_lts_parameters_are_refused_by_declare_parameters(ros_node, overrides, message):
    with pytest.raises(StartupError) as error:
        _declared(**overrides)
    assert message in str(error.value)


def gait_command(urdf: Path, *parameters: str) -> list[str]:
    words = [sys.executable, '-m', 'cobra_gaits.gait_node', '--ros-args', '--params-file', str(PARAMS),
             '-p', f'urdf_path:={urdf}']
    for parameter in parameters:
        words += ['-p', parameter]
    return words


@pytest.mark.parametrize('urdf, parameters, message', [
    (COBRA_URDF, ['gait:=lts'], 'COBRA has no twist joints: use robot:=tsnake'),
    (TSNAKE_URDF, ['gait:=gait2'], 'gait:=gait2 is a COBRA sidewinding preset'),
    (TSNAKE_URDF, ['gait:=lts', 'ramp_duration_s:=0.1'], 'Use ramp_duration_s >= '),
])
def test_lts_startup_errors_exit_2_with_the_fix(ros_env, urdf, parameters, message):
    result = subprocess.run(gait_command(urdf, *parameters), env=ros_env, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr


def test_lts_node_commands_the_18_tsnake_joints_straight_until_started(ros_env, ros_node):
    process = subprocess.Popen(gait_command(TSNAKE_URDF, 'gait:=lts', 'lts_preset:=twisting',
                                            'autostart:=false'), env=ros_env)
    try:
        messages: list[JointState] = []
        ros_node.create_subscription(JointState, 'joint_commands', messages.append,
                                     QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
        deadline = time.monotonic() + 30.0
        while len(messages) < 20 and time.monotonic() < deadline:
            rclpy.spin_once(ros_node, timeout_sec=0.1)
        assert len(messages) >= 20 and messages[-1].name == TSNAKE_NAMES
        assert np.all(np.array([m.position for m in messages]) == 0.0)  # waiting: straight
        client = ros_node.create_client(Trigger, 'gait/start')
        assert client.wait_for_service(timeout_sec=10.0)
        assert call_idempotent(ros_node, client, Trigger.Request()).success  # gait/start is idempotent
        twist = [i for i, name in enumerate(TSNAKE_NAMES) if name.endswith('_twist')]
        deadline = time.monotonic() + 60.0  # until the twist joints passed 0.5 rad (2.4 s of gait)
        while time.monotonic() < deadline and not (messages and np.all(
                np.array(messages[-1].position)[twist] > 0.5)):
            rclpy.spin_once(ros_node, timeout_sec=0.1)
        assert np.all(np.array(messages[-1].position)[twist] > 0.5)
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=15) == 0
