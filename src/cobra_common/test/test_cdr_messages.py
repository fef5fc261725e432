"""Preserialized messages (the sim's hot publishers) decode to what was set, by rosbags' own CDR reader."""

from __future__ import annotations

import numpy as np
import pytest
from rosbags.typesys import Stores, get_typestore

from cobra_common.cdr import RawClock, RawContactWrenches, RawImu, RawJointState, RawOdometry, RawWrenchStamped

TYPES = get_typestore(Stores.ROS2_JAZZY)
STAMP_NS = 12 * 1_000_000_000 + 345_000_000


def decode(message, msgtype: str):
    return TYPES.deserialize_cdr(message.to_bytes(), msgtype)


def stamp_ns(stamp) -> int:
    return stamp.sec * 1_000_000_000 + stamp.nanosec


def test_clock():
    clock = RawClock()
    clock.set_stamp_ns(STAMP_NS)
    assert stamp_ns(decode(clock, 'rosgraph_msgs/msg/Clock').clock) == STAMP_NS


@pytest.mark.parametrize('names', [['joint_1'], [f'joint_{i}' for i in range(1, 12)] + ['latch_joint']])
def test_joint_state_with_names_of_every_length(names):
    joints = RawJointState(names, frame_id='cobra/base')
    joints.set_stamp_ns(STAMP_NS)
    count = len(names)
    joints.position[:] = np.arange(count) * 0.1
    joints.velocity[:] = -np.arange(count)
    joints.effort[:] = np.arange(count) + 0.5
    decoded = decode(joints, 'sensor_msgs/msg/JointState')
    assert stamp_ns(decoded.header.stamp) == STAMP_NS and decoded.header.frame_id == 'cobra/base'
    assert decoded.name == names
    np.testing.assert_array_equal(decoded.position, np.arange(count) * 0.1)
    np.testing.assert_array_equal(decoded.velocity, -np.arange(count))
    np.testing.assert_array_equal(decoded.effort, np.arange(count) + 0.5)


def test_imu():
    imu = RawImu('camera_imu_optical_frame')
    imu.set_stamp_ns(STAMP_NS)
    imu.orientation_covariance[0] = -1.0
    imu.angular_velocity[:] = (1.0, 2.0, 3.0)
    imu.angular_velocity_covariance[[0, 4, 8]] = 0.25
    imu.linear_acceleration[:] = (4.0, 5.0, 9.81)
    imu.linear_acceleration_covariance[8] = 0.5
    decoded = decode(imu, 'sensor_msgs/msg/Imu')
    assert decoded.header.frame_id == 'camera_imu_optical_frame'
    assert decoded.orientation_covariance[0] == -1.0
    assert (decoded.angular_velocity.x, decoded.angular_velocity.y, decoded.angular_velocity.z) == (1, 2, 3)
    assert list(decoded.angular_velocity_covariance[[0, 4, 8]]) == [0.25] * 3
    assert decoded.linear_acceleration.z == 9.81 and decoded.linear_acceleration_covariance[8] == 0.5


def test_odometry():
    odometry = RawOdometry('cobra/odom', 'cobra/base_link')
    odometry.set_stamp_ns(STAMP_NS)
    odometry.position[:] = (1.0, 2.0, 0.05)
    odometry.orientation_xyzw[:] = (0.0, 0.0, 0.6, 0.8)
    odometry.pose_covariance[35] = 7.0
    odometry.linear[:] = (0.1, 0.2, 0.3)
    odometry.angular[:] = (0.4, 0.5, 0.6)
    odometry.twist_covariance[0] = 3.0
    decoded = decode(odometry, 'nav_msgs/msg/Odometry')
    assert (decoded.header.frame_id, decoded.child_frame_id) == ('cobra/odom', 'cobra/base_link')
    assert stamp_ns(decoded.header.stamp) == STAMP_NS
    pose, twist = decoded.pose.pose, decoded.twist.twist
    assert (pose.position.x, pose.position.y, pose.position.z) == (1.0, 2.0, 0.05)
    assert (pose.orientation.z, pose.orientation.w) == (0.6, 0.8)
    assert decoded.pose.covariance[35] == 7.0 and decoded.twist.covariance[0] == 3.0
    assert (twist.linear.x, twist.linear.z, twist.angular.x, twist.angular.z) == (0.1, 0.3, 0.4, 0.6)


def test_wrench_stamped():
    wrench = RawWrenchStamped('link_3')
    wrench.set_stamp_ns(STAMP_NS)
    wrench.wrench[:] = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    decoded = decode(wrench, 'geometry_msgs/msg/WrenchStamped')
    assert decoded.header.frame_id == 'link_3'
    force, torque = decoded.wrench.force, decoded.wrench.torque
    assert (force.x, force.y, force.z, torque.x, torque.y, torque.z) == (1, 2, 3, 4, 5, 6)


def test_rclpy_reads_the_same_message():
    """rclpy's own deserializer (rmw_fastrtps) agrees, so subscribers see no difference."""
    from rclpy.serialization import deserialize_message
    from sensor_msgs.msg import JointState
    names = ['joint_1', 'joint_22', 'j3']
    joints = RawJointState(names)
    joints.set_stamp_ns(STAMP_NS)
    joints.position[:] = (1.0, 2.0, 3.0)
    decoded = deserialize_message(joints.to_bytes(), JointState)
    assert (decoded.header.stamp.sec, decoded.header.stamp.nanosec) == (12, 345_000_000)
    assert list(decoded.name) == names and list(decoded.position) == [1.0, 2.0, 3.0]
    assert list(decoded.velocity) == [0.0] * 3 and list(decoded.effort) == [0.0] * 3


@pytest.mark.parametrize('names', [['joint_1'], ['joint_1', 'joint_22', 'j3'], [f'joint_{i}' for i in range(1, 12)]])
def test_a_positions_only_command_is_laid_out_as_rclpy_serializes_it(names):
    """The gait's joint_commands (no velocity or effort), read back by rclpy and by the command reader
    with an empty feed-forward; laid out as Fast CDR lays out rclpy's (an empty sequence<float64> has
    no alignment padding: the effort's length follows the velocity's at once)."""
    from rclpy.serialization import deserialize_message, serialize_message

    from cobra_common.cdr import JointCommandReader
    from sensor_msgs.msg import JointState
    command = RawJointState(names, positions_only=True)
    command.set_stamp_ns(STAMP_NS)
    command.position[:] = np.arange(len(names)) * 0.25 - 1.0
    message = JointState(name=names, position=list(np.arange(len(names)) * 0.25 - 1.0))
    message.header.stamp.sec, message.header.stamp.nanosec = 12, 345_000_000
    # byte for byte up to the end of the effort's length (rmw leaves padding bytes unset, and its
    # buffer runs on past the message): the same where the bytes are set
    ours, theirs = command.to_bytes(), bytes(serialize_message(message))
    assert [(i, a) for i, a in enumerate(ours) if a] == [(i, theirs[i]) for i, a in enumerate(ours) if a]
    assert decode(command, 'sensor_msgs/msg/JointState').velocity.size == 0
    assert deserialize_message(command.to_bytes(), JointState) == message
    read = JointCommandReader().read(command.to_bytes())
    assert read.name == tuple(names) and read.position == tuple(message.position) and read.velocity == read.effort == ()


@pytest.mark.parametrize('links', [[], ['base_link'], ['cobra/base_link'] + [f'cobra/link_{i}' for i in range(1, 12)]])
def test_contact_wrenches_with_links_of_every_length_decode_with_the_installed_definition(links):
    from cobra_common.interface_types import cobra_typestore
    message = RawContactWrenches(links)
    message.set_stamp_ns(STAMP_NS)
    message.wrenches[:] = np.arange(6 * len(links)).reshape(-1, 6) + 0.5
    decoded = cobra_typestore().deserialize_cdr(message.to_bytes(), 'cobra_interfaces/msg/ContactWrenches')
    assert stamp_ns(decoded.header.stamp) == STAMP_NS and decoded.header.frame_id == ''
    assert decoded.link_names == links
    assert [(w.force.x, w.force.y, w.force.z, w.torque.x, w.torque.y, w.torque.z) for w in decoded.wrenches] == \
        [tuple(row) for row in np.arange(6 * len(links)).reshape(-1, 6) + 0.5]
    assert len(message.to_bytes()) == len(cobra_typestore().serialize_cdr(decoded, 'cobra_interfaces/msg/ContactWrenches'))
