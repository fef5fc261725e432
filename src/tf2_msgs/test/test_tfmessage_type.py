"""The tf2_msgs this workspace imports is Jazzy's, to the type hash: bags and tools accept it."""

from __future__ import annotations

from rclpy.node import Node
from rclpy.serialization import deserialize_message, serialize_message
from rosbags.typesys import Stores, get_typestore


def test_tfmessage_has_jazzys_type_hash(ros_node: Node) -> None:
    from tf2_msgs.msg import TF2Error, TFMessage
    typestore = get_typestore(Stores.ROS2_JAZZY)
    for message_type, name in ((TFMessage, 'tf2_msgs/msg/TFMessage'), (TF2Error, 'tf2_msgs/msg/TF2Error')):
        topic = f"/type_check/{name.rsplit('/', 1)[1]}"
        ros_node.create_publisher(message_type, topic, 1)
        (info,) = ros_node.get_publishers_info_by_topic(topic)
        assert str(info.topic_type_hash) == typestore.hash_rihs01(name)


def test_tfmessage_bytes_decode_with_rosbags() -> None:
    from geometry_msgs.msg import TransformStamped
    from tf2_msgs.msg import TFMessage
    transform = TransformStamped(child_frame_id='link_1')
    transform.header.frame_id = 'head_link'
    transform.header.stamp.sec = 12
    transform.transform.translation.x = -0.1
    transform.transform.rotation.w = 1.0
    data = serialize_message(TFMessage(transforms=[transform]))
    decoded = get_typestore(Stores.ROS2_JAZZY).deserialize_cdr(data, 'tf2_msgs/msg/TFMessage')
    (read,) = decoded.transforms
    assert (read.header.frame_id, read.child_frame_id, read.header.stamp.sec) == ('head_link', 'link_1', 12)
    assert (read.transform.translation.x, read.transform.rotation.w) == (-0.1, 1.0)
    assert deserialize_message(data, TFMessage).transforms[0].child_frame_id == 'link_1'
