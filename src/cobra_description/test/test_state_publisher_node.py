"""The state publisher as a process: latched robot_description and /tf_static for late joiners,
/tf from joint_states and odom with the URDF's numbers and the inputs' stamps, bad input refused."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
import rclpy
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from cobra_common.node_process import LoggedNode
from cobra_common.rotations import matrix_from_quaternion
from cobra_description.robot_model import load_robot_model
from cobra_common.ros_testing import spin_until

URDF_DIR = Path(__file__).resolve().parents[3] / 'urdf'
LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
STARTED_LINE = 'odom transform:'  # in the node's start-up log line
SAFETY_TIMEOUT_S = 30.0  # only a failing node ever waits this long


def NodeProcess(env: dict[str, str], log_path: Path, *parameters: str) -> LoggedNode:
    """The state publisher with `-p name:=value` parameters, its output in log_path."""
    return LoggedNode(env, 'cobra_description.state_publisher_node', log_path,
                      *(a for parameter in parameters for a in ('-p', parameter)))


@pytest.fixture
def start_node(ros_env: dict[str, str], tmp_path: Path) -> Iterator[Callable[..., LoggedNode]]:
    started: list[LoggedNode] = []

    def start(*parameters: str) -> LoggedNode:
        node = NodeProcess(ros_env, tmp_path / f'node_{len(started)}.log', *parameters)
        started.append(node)
        return node

    yield start
    for node in started:
        node.stop()


def wait_started(node: LoggedNode) -> None:
    deadline = time.monotonic() + SAFETY_TIMEOUT_S
    while STARTED_LINE not in node.output():
        assert node.process.poll() is None, node.output()
        assert time.monotonic() < deadline, node.output()
        time.sleep(0.05)


class Probe:
    """Subscribes only after the node is up, so latched topics are tested as a late joiner."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.descriptions: list[str] = []
        self.static: list[TFMessage] = []
        self.tf: list[TFMessage] = []
        node.create_subscription(String, 'robot_description', lambda m: self.descriptions.append(m.data),
                                 LATCHED_QOS)
        node.create_subscription(TFMessage, '/tf_static', self.static.append, LATCHED_QOS)
        node.create_subscription(TFMessage, '/tf', self.tf.append, 100)
        self.joint_states = node.create_publisher(JointState, 'joint_states', 10)
        self.odom = node.create_publisher(Odometry, 'odom', 10)

    def tf_with_stamp(self, stamp_ns: int) -> list[TFMessage]:
        return [m for m in self.tf if m.transforms and stamp_of(m) == stamp_ns]


def stamp_of(message: TFMessage) -> int:
    stamp = message.transforms[0].header.stamp
    return stamp.sec * 1_000_000_000 + stamp.nanosec


def matrix_of(transform) -> np.ndarray:  # type: ignore[no-untyped-def]
    result = np.eye(4)
    r = transform.transform.rotation
    result[:3, :3] = matrix_from_quaternion((r.x, r.y, r.z, r.w))
    t = transform.transform.translation
    result[:3, 3] = (t.x, t.y, t.z)
    return result


def joint_state(stamp_ns: int, positions: dict[str, float]) -> JointState:
    message = JointState(name=list(positions), position=list(positions.values()))
    message.header.stamp.sec, message.header.stamp.nanosec = divmod(stamp_ns, 1_000_000_000)
    return message


def test_cobra_latched_model_and_tf_follow_joint_states_and_odom(start_node, ros_node) -> None:  # type: ignore[no-untyped-def]
    model = load_robot_model(URDF_DIR / 'cobra.urdf')
    node = start_node('publish_period_s:=0.02')
    wait_started(node)
    probe = Probe(ros_node)

    # late joiner: the URDF text and every fixed joint, in one latched message each
    assert spin_until(ros_node, lambda: probe.descriptions and probe.static), node.output()
    assert probe.descriptions[0] == (URDF_DIR / 'cobra.urdf').read_text()
    static = {t.child_frame_id: t for t in probe.static[0].transforms}
    fixed = [j for j in model.joints if j.type == 'fixed']
    assert set(static) == {j.child for j in fixed}
    for joint in fixed:
        assert static[joint.child].header.frame_id == joint.parent
        np.testing.assert_allclose(matrix_of(static[joint.child]),
                                   model.transform(joint.parent, joint.child), atol=1e-9)
    head = static['head_link'].transform.translation  # base_to_head: the head module frame
    assert static['head_link'].header.frame_id == 'base_link'
    assert (head.x, head.y, head.z) == pytest.approx(tuple(model.joint('base_to_head').origin.xyz))

    # joint_states at 500 Hz of stamps -> /tf at one message per 0.02 s of stamps, numbers exact
    names = [j.name for j in model.actuated_joints]
    start_ns = 1_000_000_000

    def positions(i: int) -> dict[str, float]:
        return {name: 0.5 * math.sin(0.1 * i + k) for k, name in enumerate(names)}

    assert spin_until(ros_node, lambda: (probe.joint_states.publish(joint_state(start_ns, positions(0))),
                                         bool(probe.tf_with_stamp(start_ns)))[1]), node.output()
    count = 60
    for i in range(1, count + 1):
        probe.joint_states.publish(joint_state(start_ns + i * 2_000_000, positions(i)))
        rclpy.spin_once(ros_node, timeout_sec=0.0)
    # joint_states is best effort: a loaded machine may drop some of the burst, so its end is
    # marked by a later stamp, sent until it comes back
    end_ns = start_ns + 1_000_000_000
    assert spin_until(ros_node, lambda: (probe.joint_states.publish(joint_state(end_ns, positions(0))),
                                         bool(probe.tf_with_stamp(end_ns)))[1]), node.output()

    joint_tf = [m for m in probe.tf if m.transforms[0].child_frame_id != 'base_link'
                and stamp_of(m) < end_ns]
    stamps = sorted({stamp_of(m) for m in joint_tf})
    assert stamps[0] == start_ns and stamps[-1] <= start_ns + count * 2_000_000
    # thinned by stamps: one message per 0.02 s slot of stamps at most (lost samples: fewer)
    assert len({t // 20_000_000 for t in stamps}) == len(stamps) == len(joint_tf) <= count // 10 + 1
    for message in joint_tf:
        i = (stamp_of(message) - start_ns) // 2_000_000
        by_child = {t.child_frame_id: t for t in message.transforms}
        assert set(by_child) == {model.joint(name).child for name in names}
        for name in names:
            joint = model.joint(name)
            transform = by_child[joint.child]
            assert transform.header.frame_id == joint.parent
            np.testing.assert_allclose(matrix_of(transform),
                                       model.transform(joint.parent, joint.child, positions(i)), atol=1e-9)

    # odom -> base_link with the odom's pose, frames and stamp
    odom = Odometry()
    odom.header.frame_id, odom.child_frame_id = 'odom', 'base_link'
    odom.header.stamp.sec, odom.header.stamp.nanosec = 7, 250_000_000
    odom.pose.pose.position.x, odom.pose.pose.position.y, odom.pose.pose.position.z = 1.5, -0.25, 0.04
    odom.pose.pose.orientation.z, odom.pose.pose.orientation.w = math.sin(0.3), math.cos(0.3)
    assert spin_until(ros_node, lambda: (probe.odom.publish(odom),
                                         bool(probe.tf_with_stamp(7_250_000_000)))[1]), node.output()
    (odom_tf,) = probe.tf_with_stamp(7_250_000_000)[0].transforms
    assert (odom_tf.header.frame_id, odom_tf.child_frame_id) == ('odom', 'base_link')
    t, r = odom_tf.transform.translation, odom_tf.transform.rotation
    assert (t.x, t.y, t.z) == (1.5, -0.25, 0.04)
    assert (r.x, r.y, r.z, r.w) == (0.0, 0.0, math.sin(0.3), math.cos(0.3))
    assert node.stop() == 0


def test_tsnake_with_frame_prefix(start_node, ros_node) -> None:  # type: ignore[no-untyped-def]
    urdf = URDF_DIR / 'tsnake.urdf'
    node = start_node(f'urdf_path:={urdf}', 'frame_prefix:=r1/')
    wait_started(node)
    probe = Probe(ros_node)
    assert spin_until(ros_node, lambda: probe.descriptions and probe.static), node.output()
    assert probe.descriptions[0] == urdf.read_text()
    assert [(t.header.frame_id, t.child_frame_id) for t in probe.static[0].transforms] == [
        ('r1/base_link', 'r1/imu_link')]

    # an odom without frame ids gets this node's prefixed names
    odom = Odometry()
    odom.header.stamp.sec = 3
    odom.pose.pose.orientation.w = 1.0
    assert spin_until(ros_node, lambda: (probe.odom.publish(odom),
                                         bool(probe.tf_with_stamp(3_000_000_000)))[1]), node.output()
    (odom_tf,) = probe.tf_with_stamp(3_000_000_000)[0].transforms
    assert (odom_tf.header.frame_id, odom_tf.child_frame_id) == ('r1/odom', 'r1/base_link')

    stamp_ns = 4_000_000_000
    state = joint_state(stamp_ns, {'m1_twist': math.pi / 2, 'not_a_joint': 1.0})
    assert spin_until(ros_node, lambda: (probe.joint_states.publish(state),
                                         bool(probe.tf_with_stamp(stamp_ns)))[1]), node.output()
    (twist,) = probe.tf_with_stamp(stamp_ns)[0].transforms  # the unknown name is left out
    joint = load_robot_model(urdf).joint('m1_twist')
    assert (twist.header.frame_id, twist.child_frame_id) == (f'r1/{joint.parent}', f'r1/{joint.child}')
    np.testing.assert_allclose(matrix_of(twist), load_robot_model(urdf).transform(
        joint.parent, joint.child, {'m1_twist': math.pi / 2}), atol=1e-9)
    assert node.stop() == 0
    assert 'not_a_joint' in node.output()  # said why it was ignored


def test_odom_transform_only_where_robot_state_publisher_does_the_model(start_node, ros_node) -> None:  # type: ignore[no-untyped-def]
    node = start_node('publish_robot_model:=false')
    wait_started(node)  # its publishers and subscriptions exist from here on
    probe = Probe(ros_node)
    sent_ns: list[int] = []

    def send_odom() -> bool:
        """A new stamp each time (the node sends one /tf per 0.02 s of stamps: an odom sent again
        with the stamp of one whose /tf went out before the probe's /tf subscription matched
        would never show); True once the /tf of any of them arrived."""
        odom = Odometry()
        sent_ns.append(5_000_000_000 + 100_000_000 * len(sent_ns))
        odom.header.stamp.sec, odom.header.stamp.nanosec = divmod(sent_ns[-1], 1_000_000_000)
        odom.pose.pose.orientation.w = 1.0
        probe.odom.publish(odom)
        return any(probe.tf_with_stamp(stamp_ns) for stamp_ns in sent_ns)
    assert spin_until(ros_node, send_odom), node.output()
    for topic in ('robot_description', '/tf_static'):
        assert ros_node.get_publishers_info_by_topic(topic) == []
    assert ros_node.get_subscriptions_info_by_topic('joint_states') == []
    assert node.stop() == 0


@pytest.mark.parametrize(('parameter', 'expected'), [
    ('urdf_path:=/nonexistent/robot.urdf', 'URDF not found: /nonexistent/robot.urdf'),
    ('frame_prefix:=/bad', "frame_prefix:='/bad' is not a frame prefix"),
    ('publish_period_s:=-1.0', "parameter 'publish_period_s' = -1.0 is out of range"),
    ('publish_odom_transform:=false publish_robot_model:=false', 'nothing to do'),
])
def test_bad_parameters_exit_2_with_one_clear_message(start_node, parameter: str, expected: str) -> None:  # type: ignore[no-untyped-def]
    node = start_node(*parameter.split())
    assert node.process.wait(timeout=SAFETY_TIMEOUT_S) == 2
    output = node.output()
    assert expected in output and 'Traceback' not in output, output


def test_missing_tf2_msgs_is_refused_with_the_fix(ros_env: dict[str, str], tmp_path: Path) -> None:
    shadow = tmp_path / 'shadow' / 'tf2_msgs'  # a tf2_msgs that fails to import, first on the path
    shadow.mkdir(parents=True)
    (shadow / '__init__.py').write_text("raise ImportError('no tf2_msgs here')\n")
    env = {**ros_env, 'PYTHONPATH': f"{shadow.parent}{os.pathsep}{ros_env['PYTHONPATH']}"}
    node = NodeProcess(env, tmp_path / 'node.log')
    try:
        assert node.process.wait(timeout=SAFETY_TIMEOUT_S) == 2
    finally:
        node.stop()
    output = node.output()
    assert 'tf2_msgs is not installed' in output and 'scripts/setup.sh' in output, output
    assert 'Traceback' not in output
