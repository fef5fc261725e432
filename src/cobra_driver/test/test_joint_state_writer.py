"""The driver node's hot-path pieces without the bus: joint_states as raw CDR that decodes to the
JointState rclpy would have sent, and joint_commands left to the loop thread by the executor."""

from __future__ import annotations

import numpy as np
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from sensor_msgs.msg import JointState

from cobra_driver.driver_core import JointSample
from cobra_driver.loop_io import JointStateWriter, TakenByTheLoop
from cobra_common.ros_testing import spin_until


class RecordingPublisher:
    """Stands in for an rclpy Publisher: keeps what is published, raw or as a message."""

    def __init__(self) -> None:
        self.sent: list[JointState] = []
        self.handle = self

    def publish_raw(self, data: bytes) -> None:
        self.sent.append(deserialize_message(data, JointState))

    def publish(self, message: JointState) -> None:
        self.sent.append(message)


def test_samples_decode_to_their_joint_state_also_when_the_servo_set_changes_or_empties() -> None:
    publisher = RecordingPublisher()
    writer = JointStateWriter(publisher)  # type: ignore[arg-type]
    all_joints = [f'joint_{i}' for i in range(1, 12)] + ['latch_joint']
    some = ['joint_1', 'joint_4']
    samples = [JointSample(1_500_000_000 + k, names, np.arange(len(names)) * 0.1 + k,
                           -np.arange(len(names)) - k, np.full(len(names), 0.25 * k))
               for k, names in enumerate([all_joints, all_joints, some, [], all_joints])]
    for sample in samples:
        writer.publish(sample)
    assert len(publisher.sent) == len(samples)
    for sample, message in zip(samples, publisher.sent):
        assert (message.header.stamp.sec, message.header.stamp.nanosec) == divmod(sample.stamp_ns, 1_000_000_000)
        assert list(message.name) == sample.names
        np.testing.assert_array_equal(message.position, sample.position_rad)
        np.testing.assert_array_equal(message.velocity, sample.velocity_rad_s)
        np.testing.assert_array_equal(message.effort, sample.effort_nm)


def test_the_executor_leaves_a_loop_taken_subscription_to_the_loop(ros_node) -> None:
    from rclpy.executors import SingleThreadedExecutor
    reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
    by_executor: list[JointState] = []
    subscription = ros_node.create_subscription(JointState, 'joint_commands', by_executor.append, reliable,
                                                callback_group=TakenByTheLoop())
    publisher = ros_node.create_publisher(JointState, 'joint_commands', reliable)
    spin_until(ros_node, lambda: publisher.get_subscription_count() > 0, 30.0)
    publisher.publish(JointState(name=['joint_3'], position=[0.4]))
    executor = SingleThreadedExecutor()
    executor.add_node(ros_node)
    for _ in range(5):
        executor.spin_once(timeout_sec=0.05)
    executor.remove_node(ros_node)
    assert by_executor == []
    taken = None
    for _ in range(100):  # delivery through DDS: judged by what arrives, not by a sleep
        if (taken := subscription.handle.take_message(JointState, False)) is not None:
            break
        spin_until(ros_node, lambda: False, 0.05)
    assert taken is not None and list(taken[0].name) == ['joint_3'] and by_executor == []
