"""The gait node on sim time, driven by this test's /clock: which boundaries it commands, and how
each command is stamped, also when the process wakes late to a backlog of /clock samples."""

from __future__ import annotations

import signal
from pathlib import Path

from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState

from cobra_common.node_process import start_node, stop_node
from cobra_common.ros_testing import clock_message, spin_until, stamps_ms

REPO_ROOT = Path(__file__).resolve().parents[3]
URDF = REPO_ROOT / 'urdf' / 'cobra.urdf'
PARAMS = REPO_ROOT / 'config' / 'gait.yaml'
RELIABLE = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
MS = 1_000_000


def test_a_gait_waking_late_commands_every_boundary_it_crossed(ros_env, ros_node):
    commands: list[JointState] = []
    ros_node.create_subscription(JointState, 'joint_commands', commands.append, RELIABLE)
    clock = ros_node.create_publisher(Clock, '/clock', RELIABLE)
    process = start_node(ros_env, 'cobra_gaits.gait_node', '--params-file', str(PARAMS), '-p', f'urdf_path:={URDF}',
                         '-p', 'use_sim_time:=true', '-p', 'command_subscriber_nodes:=[test_probe]',
                         '-p', 'command_lead_periods:=1')
    try:
        # t = 0 until the first command (as the sim holds it): the gait ticks at once
        spin_until(ros_node, lambda: clock.get_subscription_count() > 0, 60.0)
        while not commands and process.poll() is None:
            clock.publish(clock_message(0))
            spin_until(ros_node, lambda: bool(commands), 0.2)
        # the first tick commands t = 0 and, one period ahead, t = 10 ms
        spin_until(ros_node, lambda: len(commands) >= 2, 30.0)
        assert stamps_ms(commands) == [0.0, 10.0]
        # the process is stopped while 25 ms of a 1 kHz clock arrive (its /clock queue holds 20 ms):
        # it wakes to a backlog crossing two boundaries. Stopped only once every thread of it sleeps:
        # a CI run stopped it just after its first command and it never saw the backlog, most likely
        # because it was stopped in the middle of a DDS delivery, which is not what this test is about
        spin_until(ros_node, lambda: all_threads_asleep(process.pid), 30.0)
        process.send_signal(signal.SIGSTOP)
        for k in range(1, 26):
            clock.publish(clock_message(k * MS))
        process.send_signal(signal.SIGCONT)
        spin_until(ros_node, lambda: stamps_ms(commands)[-1:] == [30.0], 30.0)
    finally:
        process.send_signal(signal.SIGCONT)
        output = stop_node(process)
    # one command per 10 ms boundary crossed, for the boundary one period later: none lost to the backlog
    assert stamps_ms(commands) == [0.0, 10.0, 20.0, 30.0], output


def all_threads_asleep(pid: int) -> bool:
    """Every thread of process `pid` is in interruptible sleep (state S in /proc/PID/task/*/stat)."""
    states = []
    for task in Path(f'/proc/{pid}/task').iterdir():
        try:
            stat = (task / 'stat').read_text()
        except OSError:  # the thread ended meanwhile
            continue
        states.append(stat.rsplit(')', 1)[1].split()[0])
    return bool(states) and all(state == 'S' for state in states)
