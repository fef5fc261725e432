"""ContactWrenches as rclpy, rosbags and the sim's raw publisher see it: one type hash, one wire
format, and a message that goes through DDS unchanged."""

from __future__ import annotations

import numpy as np
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message, serialize_message

from cobra_common.interface_types import CONTACT_WRENCHES, cobra_typestore
from cobra_common.ros_testing import spin_until

LINKS = ['cobra/base_link'] + [f'cobra/link_{i}' for i in range(1, 12)]


def contact_wrenches(stamp_sec: int) -> object:
    from cobra_interfaces.msg import ContactWrenches
    from geometry_msgs.msg import Wrench
    message = ContactWrenches(link_names=LINKS)
    message.header.stamp.sec = stamp_sec
    for index in range(len(LINKS)):
        wrench = Wrench()
        wrench.force.x, wrench.force.z, wrench.torque.y = float(index), 9.81 * index, -0.5 * index
        message.wrenches.append(wrench)
    return message


def test_rclpy_and_rosbags_agree_on_the_type_hash(ros_node: Node) -> None:
    from cobra_interfaces.msg import ContactWrenches
    ros_node.create_publisher(ContactWrenches, '/type_check/contact_forces', 1)
    (info,) = ros_node.get_publishers_info_by_topic('/type_check/contact_forces')
    assert info.topic_type == CONTACT_WRENCHES
    assert str(info.topic_type_hash) == cobra_typestore().hash_rihs01(CONTACT_WRENCHES)


def test_rclpy_bytes_decode_with_rosbags_and_the_sims_raw_bytes_with_rclpy() -> None:
    from cobra_interfaces.msg import ContactWrenches
    from cobra_common.cdr import RawContactWrenches
    data = serialize_message(contact_wrenches(7))
    decoded = cobra_typestore().deserialize_cdr(data, CONTACT_WRENCHES)
    assert decoded.header.stamp.sec == 7 and decoded.link_names == LINKS
    assert [(w.force.x, w.force.z, w.torque.y) for w in decoded.wrenches] == \
        [(float(i), 9.81 * i, -0.5 * i) for i in range(len(LINKS))]

    raw = RawContactWrenches(LINKS)
    raw.set_stamp_ns(7_000_000_000)
    raw.wrenches[:, 0], raw.wrenches[:, 2], raw.wrenches[:, 4] = \
        np.arange(len(LINKS)), 9.81 * np.arange(len(LINKS)), -0.5 * np.arange(len(LINKS))
    assert len(raw.to_bytes()) == len(data)  # rmw's layout (its padding bytes are left uninitialised)
    assert deserialize_message(raw.to_bytes(), ContactWrenches) == contact_wrenches(7)


def test_a_message_goes_through_dds_unchanged(ros_node: Node) -> None:
    from cobra_interfaces.msg import ContactWrenches
    reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
    received: list[ContactWrenches] = []
    ros_node.create_subscription(ContactWrenches, 'contact/forces', received.append, reliable)
    publisher = ros_node.create_publisher(ContactWrenches, 'contact/forces', reliable)
    spin_until(ros_node, lambda: publisher.get_subscription_count() > 0, 30.0)
    publisher.publish(contact_wrenches(3))
    spin_until(ros_node, lambda: bool(received), 30.0)
    assert received == [contact_wrenches(3)]
