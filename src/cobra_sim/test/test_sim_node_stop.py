"""The sim node stops cleanly on SIGINT/SIGTERM while it waits: held in lockstep by a silent gait,
or holding t = 0 for peers that never come. Each wait is a short executor spin, so the signal's
handler runs within 0.1 s; the bound asserted here is loose for a loaded machine."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import rclpy
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState

from cobra_common.ros_entry import stamp_seconds

URDF = Path(__file__).resolve().parents[3] / 'urdf' / 'cobra.urdf'
RELIABLE = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
STOP_BOUND_S = 5.0  # the node's own bound is 0.1 s + cleanup; this only catches a hang


def start_sim(ros_env, *parameters: str) -> subprocess.Popen:
    words = [sys.executable, '-m', 'cobra_sim.sim_node', '--ros-args', '-p', f'urdf_path:={URDF}',
             '-p', 'settle_duration_s:=0.2']
    for parameter in parameters:
        words += ['-p', parameter]
    return subprocess.Popen(words, env=ros_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def stop_and_time(process: subprocess.Popen, signum: int) -> tuple[str, float]:
    sent = time.monotonic()
    process.send_signal(signum)
    output, _ = process.communicate(timeout=30)
    return output, time.monotonic() - sent


@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM])
def test_stops_while_held_in_lockstep_by_a_silent_gait(ros_env, ros_node, signum):
    clocks: list[Clock] = []
    ros_node.create_subscription(Clock, '/clock', clocks.append, RELIABLE)
    silent_gait = ros_node.create_publisher(JointState, 'joint_commands', RELIABLE)
    process = start_sim(ros_env, 'real_time_factor:=0.0', 'lockstep:=on', 'wait_for_peers_s:=60.0',
                        'wait_for_recorder:=false', 'lockstep_peer_timeout_s:=0.5')
    try:
        # the gait's first command (t = 0) starts the run; then it falls silent
        deadline = time.monotonic() + 30.0
        while time.monotonic() < deadline and not clocks:
            rclpy.spin_once(ros_node, timeout_sec=0.05)
        silent_gait.publish(JointState())
        while time.monotonic() < deadline and len([c for c in clocks if stamp_seconds(c.clock) >= 0.01]) < 20:
            rclpy.spin_once(ros_node, timeout_sec=0.05)
        # held at the first command boundary, repeating its time (20 repeats: past the 0.5 s warning)
        assert max(stamp_seconds(c.clock) for c in clocks) == pytest.approx(0.01)
        assert silent_gait.get_subscription_count() == 1
    finally:
        output, elapsed_s = stop_and_time(process, signum)
    assert process.returncode == 0, output
    assert elapsed_s < STOP_BOUND_S and 'Traceback' not in output
    assert "waiting for the gait's command stamped 0.010 s on /joint_commands" in output


def test_stops_while_holding_t0_for_peers(ros_env):
    process = start_sim(ros_env, 'real_time_factor:=0.0', 'wait_for_peers_s:=600.0')
    time.sleep(3.0)  # well into the wait (start-up and settling take ~1 s)
    output, elapsed_s = stop_and_time(process, signal.SIGTERM)
    assert process.returncode == 0, output
    assert elapsed_s < STOP_BOUND_S and 'Traceback' not in output and 'peers present' not in output
