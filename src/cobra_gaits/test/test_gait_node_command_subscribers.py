"""The gait node holds its first command for its named subscribers, as processes: other
joint_commands subscribers in the domain (an echo, a probe, a node of the same name in another
namespace, one whose QoS cannot match) do not release it; the named one, in the gait's namespace,
does, and it receives the held boundary first. Judged by the stamps the subscribers received,
driven by this test's /clock."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState

from cobra_common.node_process import start_node, stop_node
from cobra_common.ros_testing import clock_message, stamps_ms

REPO_ROOT = Path(__file__).resolve().parents[3]
URDF = REPO_ROOT / 'urdf' / 'cobra.urdf'
PARAMS = REPO_ROOT / 'config' / 'gait.yaml'
RELIABLE = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
PERIOD_NS = 10_000_000  # config/gait.yaml's 100 Hz
HELD_BOUNDARIES = 50    # boundaries the clock crosses while only the foreign subscribers are there
NAMESPACE = '/cobra'
CONSUMER = 'consumer'   # the named subscriber, in the gait's namespace; a decoy of that name runs in '/'


def test_foreign_subscribers_do_not_release_the_hold_the_named_one_does(ros_env, ros_node):
    received: dict[str, list[JointState]] = {'probe': [], 'decoy': [], 'consumer': []}
    topic = f'{NAMESPACE}/joint_commands'
    probe = ros_node.create_subscription(JointState, topic, received['probe'].append, RELIABLE)  # '/test_probe'
    decoy_node = rclpy.create_node(CONSUMER)  # '/consumer': the name, but not the gait's namespace
    decoy = decoy_node.create_subscription(JointState, topic, received['decoy'].append, RELIABLE)
    # one that cannot match the volatile publisher: not waited for (else the hold would last its timeout)
    decoy_node.create_subscription(JointState, topic, lambda _: None, QoSProfile(
        depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL))
    clock = ros_node.create_publisher(Clock, '/clock', RELIABLE)
    executor = SingleThreadedExecutor()
    executor.add_node(ros_node)
    executor.add_node(decoy_node)
    consumer_node = None
    process = start_node(ros_env, 'cobra_gaits.gait_node', '-r', f'__ns:={NAMESPACE}', '--params-file', str(PARAMS),
                         '-p', f'urdf_path:={URDF}', '-p', 'use_sim_time:=true',
                         '-p', f'command_subscriber_nodes:=[{CONSUMER}]', '-p', 'command_subscribers_timeout_s:=600.0')

    def spin_until(condition: Callable[[], bool], what: str, publish_ns: int | None = None) -> None:
        """Spin (publishing /clock at publish_ns) until condition; the bound only catches a hung process."""
        for _ in range(3000):
            if condition():
                return
            assert process.poll() is None, stop_node(process)
            if publish_ns is not None:
                clock.publish(clock_message(publish_ns))
            executor.spin_once(timeout_sec=0.02)
        raise AssertionError(f'no {what}: {stop_node(process)}')

    try:
        # both foreign subscriptions matched the gait's publisher, and the gait takes /clock
        spin_until(lambda: probe.get_publisher_count() > 0 and decoy.get_publisher_count() > 0
                   and clock.get_subscription_count() > 0, 'gait publisher and /clock subscription')
        for k in range(HELD_BOUNDARIES + 1):  # each boundary crossed with the foreign subscribers present
            clock.publish(clock_message(k * PERIOD_NS))
            executor.spin_once(timeout_sec=0.02)
        held_commands = {name: len(messages) for name, messages in received.items()}

        consumer_node = rclpy.create_node(CONSUMER, namespace=NAMESPACE)
        consumer_node.create_subscription(JointState, 'joint_commands', received['consumer'].append, RELIABLE)
        executor.add_node(consumer_node)
        held_ns = HELD_BOUNDARIES * PERIOD_NS
        spin_until(lambda: bool(received['consumer']), 'command after the named subscriber came', held_ns)
        for k in (1, 2):  # the gait runs on from the held boundary
            spin_until(lambda: all(len(messages) > k for messages in received.values()),
                       f'command {k} after the hold', held_ns + k * PERIOD_NS)
    finally:
        output = stop_node(process)
        for node in (decoy_node, consumer_node):
            if node is not None:
                executor.remove_node(node)
                node.destroy_node()
    assert held_commands == {'probe': 0, 'decoy': 0, 'consumer': 0}, output
    held_ms = HELD_BOUNDARIES * PERIOD_NS / 1e6
    expected = [held_ms, held_ms + 10.0, held_ms + 20.0]  # the held boundary first, none before it
    assert {name: stamps_ms(messages)[:3] for name, messages in received.items()} == \
        dict.fromkeys(received, expected), output
    assert 'missing after' not in output, output
