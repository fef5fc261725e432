"""The logger node as a process: complete bags on SIGINT/SIGTERM, bounded loss on a real SIGKILL."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import rclpy
import yaml
from rcl_interfaces.srv import SetParameters
from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from cobra_common.ros_testing import call_idempotent
from cobra_logger.split_bag import split_index

SUBSCRIBE_TIMEOUT_S = 30.0  # the logger process fixtures (start_logger, test_node) are in conftest.py


def publish_joint_states(node: Node, topic: str, count: int, rate_hz: float, width: int = 11) -> list[float]:
    """Publish JointStates carrying their sequence number once the logger subscribed; send times."""
    publisher = node.create_publisher(JointState, topic, QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE))
    deadline = time.monotonic() + SUBSCRIBE_TIMEOUT_S
    while publisher.get_subscription_count() == 0:
        assert time.monotonic() < deadline, f'the logger never subscribed to {topic}'
        time.sleep(0.05)
    names = [f'joint_{i + 1}' for i in range(width)]
    sent_at: list[float] = []
    next_send = time.monotonic()
    for seq in range(count):
        message = JointState(name=names, position=[float(seq)] + [0.0] * (width - 1))
        publisher.publish(message)
        sent_at.append(time.monotonic())
        next_send += 1.0 / rate_hz
        time.sleep(max(0.0, next_send - time.monotonic()))
    # every sample in the logger's reader before the caller stops it: what a loaded machine still
    # has in flight is not the logger's to drain
    assert publisher.wait_for_all_acked(Duration(seconds=SUBSCRIBE_TIMEOUT_S))
    return sent_at


def load_metadata(bag_dir: Path) -> dict:
    return yaml.safe_load((bag_dir / 'metadata.yaml').read_text())['rosbag2_bagfile_information']


def test_sigint_gives_a_complete_bag_with_every_published_message(
        tmp_path, start_logger, test_node, decode_seq, rosbags_messages):
    bag_dir = tmp_path / 'bag'
    logger = start_logger('-p', f'bag_path:={bag_dir}', '-p', 'split_duration_s:=1.0')
    logger.wait_for_output('recording [')
    publish_joint_states(test_node, '/joint_states', count=600, rate_hz=300.0)

    assert logger.stop(signal.SIGINT) == 0, logger.output

    recorded = [decode_seq(d) for d in rosbags_messages(bag_dir)['/joint_states']]
    assert recorded == list(range(600))
    assert '/joint_states: 600 messages' in logger.output
    assert f'bag {bag_dir}' in logger.output
    meta = load_metadata(bag_dir)
    assert len(meta['relative_file_paths']) >= 2
    topic = next(t for t in meta['topics_with_message_count'] if t['topic_metadata']['name'] == '/joint_states')
    assert topic['message_count'] == 600
    assert topic['topic_metadata']['offered_qos_profiles'][0]['reliability'] == 'reliable'
    assert not list(bag_dir.glob('.*'))


def test_sigterm_likewise_and_relative_topics_resolve_in_the_namespace(
        tmp_path, start_logger, test_node, decode_seq, rosbags_messages):
    bag_dir = tmp_path / 'bag'
    logger = start_logger('-r', '__ns:=/cobra', '-p', f'bag_path:={bag_dir}', '-p', 'topics:=[joint_states]')
    logger.wait_for_output("recording ['/cobra/joint_states']")
    publish_joint_states(test_node, '/cobra/joint_states', count=400, rate_hz=400.0)

    assert logger.stop(signal.SIGTERM) == 0, logger.output

    assert [decode_seq(d) for d in rosbags_messages(bag_dir)['/cobra/joint_states']] == list(range(400))
    assert '/cobra/joint_states: 400 messages' in logger.output


def test_sigkill_keeps_closed_splits_and_recovery_bounds_the_loss(
        tmp_path, start_logger, test_node, ros_env, decode_seq, rosbags_messages, mcap_messages):
    split_duration_s = 2.0
    slack_s = 2.0  # rotation check period, file close and a loaded test machine's lag
    bag_dir = tmp_path / 'bag'
    logger = start_logger('-p', f'bag_path:={bag_dir}', '-p', f'split_duration_s:={split_duration_s}',
                          '-p', 'topics:=[joint_states]')
    logger.wait_for_output('recording [')
    # 20 kB messages at 200 Hz: a 1 MiB chunk completes about every 0.26 s
    sent_at = publish_joint_states(test_node, '/joint_states', count=600, rate_hz=200.0, width=800)
    killed_at = time.monotonic()
    assert logger.stop(signal.SIGKILL) == -signal.SIGKILL

    closed = sorted(bag_dir.glob('*.mcap'), key=split_index)
    assert closed, 'no split was closed before the kill'
    names = [path.name for path in closed]
    listed = load_metadata(bag_dir)['relative_file_paths'] if (bag_dir / 'metadata.yaml').exists() else []
    # metadata.yaml follows each split's rename at once; a kill in between (seen once beside two busy
    # loops) leaves the newest split in the bag unlisted, and recovery below lists it
    assert listed in (names, names[:-1])
    if listed == names:
        assert sum(len(mcap_messages(path)) for path in closed) == sum(map(len, rosbags_messages(bag_dir).values()))

    result = subprocess.run([sys.executable, '-m', 'cobra_logger.recover', str(bag_dir)],
                            env=ros_env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    salvaged = int(re.search(r'salvaged (\d+) messages', result.stdout).group(1))
    assert salvaged > 0, result.stdout

    recorded = [decode_seq(d) for d in rosbags_messages(bag_dir)['/joint_states']]
    assert recorded == list(range(len(recorded)))
    lost_sent_at = sent_at[len(recorded):]
    assert all(t >= killed_at - split_duration_s - slack_s for t in lost_sent_at), (
        f'lost {len(lost_sent_at)} messages, the oldest sent {killed_at - lost_sent_at[0]:.2f} s before the kill')


def test_refuses_an_existing_bag_path(tmp_path, start_logger):
    bag_dir = tmp_path / 'old_bag'
    bag_dir.mkdir()
    (bag_dir / 'keep.txt').write_text('old run')
    logger = start_logger('-p', f'bag_path:={bag_dir}')
    assert logger.wait_exit() == 2
    assert 'exists already' in logger.output and 'bag_path:=' in logger.output
    assert [p.name for p in bag_dir.iterdir()] == ['keep.txt']


def test_no_message_leaves_no_bag_directory(tmp_path, start_logger):
    bag_dir = tmp_path / 'bag'
    logger = start_logger('-p', f'bag_path:={bag_dir}', '-p', 'topics:=[joint_states]')
    logger.wait_for_output('recording [')
    assert logger.stop(signal.SIGINT) == 0
    assert 'no message received' in logger.output
    assert not bag_dir.exists()


def test_split_limits_can_be_retuned_at_run_time_within_their_ranges(tmp_path, start_logger, test_node):
    logger = start_logger('-p', f'bag_path:={tmp_path / "bag"}', '-p', 'topics:=[joint_states]')
    logger.wait_for_output('recording [')
    client = test_node.create_client(SetParameters, '/logger/set_parameters')
    assert client.wait_for_service(timeout_sec=SUBSCRIBE_TIMEOUT_S)

    def set_parameter(name: str, value: float) -> bool:
        request = SetParameters.Request(parameters=[Parameter(name, value=value).to_parameter_msg()])
        return call_idempotent(test_node, client, request, SUBSCRIBE_TIMEOUT_S).results[0].successful

    assert set_parameter('split_duration_s', 0.5)
    assert not set_parameter('split_duration_s', 0.0)
    assert not set_parameter('split_size_mb', -1.0)
    assert not set_parameter('bag_path', 'elsewhere')
    assert logger.stop(signal.SIGINT) == 0


def test_a_namespace_wildcard_records_every_topic_below_it(
        tmp_path, start_logger, test_node, decode_seq, rosbags_messages):
    bag_dir = tmp_path / 'wildcard'
    logger = start_logger('-p', f'bag_path:={bag_dir}', '-p', 'topics:=[contact/forces/*]')
    logger.wait_for_output('recording')
    publish_joint_states(test_node, '/contact/forces/link_1', 50, 200.0)
    publish_joint_states(test_node, '/contact/forces/link_2', 30, 200.0)
    elsewhere = test_node.create_publisher(JointState, '/elsewhere', 10)
    for _ in range(10):
        elsewhere.publish(JointState(name=['joint_1'], position=[0.0]))
        time.sleep(0.1)  # longer than the discovery period: it was seen, and left alone
    assert logger.stop(signal.SIGINT) == 0, logger.output
    recorded = rosbags_messages(bag_dir)
    assert sorted(recorded) == ['/contact/forces/link_1', '/contact/forces/link_2']
    assert [decode_seq(d) for d in recorded['/contact/forces/link_2']] == list(range(30))


def test_publishes_the_newest_joint_states_stamp_it_wrote_as_progress(tmp_path, start_logger, test_node):
    from rosgraph_msgs.msg import Clock
    progress: list[Clock] = []
    test_node.create_subscription(Clock, '/logger/progress', progress.append,
                                  QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
    bag_dir = tmp_path / 'bag'
    logger = start_logger('-p', f'bag_path:={bag_dir}', '-p', 'topics:=[joint_states]')
    logger.wait_for_output('recording [')
    publisher = test_node.create_publisher(JointState, '/joint_states',
                                           QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
    deadline = time.monotonic() + SUBSCRIBE_TIMEOUT_S
    while publisher.get_subscription_count() == 0:
        assert time.monotonic() < deadline, 'the logger never subscribed'
        rclpy.spin_once(test_node, timeout_sec=0.05)
    # every thread (the DDS ones that wake per message included) runs as a batch task, so a
    # lagging recorder never preempts the sim it records (node_runtime.yield_on_wakeup)
    threads = list(Path(f'/proc/{logger.process.pid}/task').iterdir())
    assert len(threads) > 1 and {os.sched_getscheduler(int(t.name)) for t in threads} == {os.SCHED_BATCH}
    for step in range(1, 51):
        message = JointState(name=['joint_1'], position=[0.0])
        message.header.stamp.sec, message.header.stamp.nanosec = divmod(step * 2_000_000, 1_000_000_000)
        publisher.publish(message)
    deadline = time.monotonic() + SUBSCRIBE_TIMEOUT_S
    while not (progress and progress[-1].clock.nanosec == 100_000_000):
        assert time.monotonic() < deadline, f'progress stopped at {progress[-1:]}'
        rclpy.spin_once(test_node, timeout_sec=0.05)
    stamps_ns = [m.clock.sec * 1_000_000_000 + m.clock.nanosec for m in progress]
    assert stamps_ns == sorted(set(stamps_ns)) and stamps_ns[-1] == 100_000_000
    assert logger.stop(signal.SIGINT) == 0


def test_rosout_alone_leaves_no_bag_and_is_kept_once_a_recorded_topic_starts(
        tmp_path, start_logger, test_node, rosbags_messages):
    from rcl_interfaces.msg import Log
    quiet_bag, bag = tmp_path / 'quiet', tmp_path / 'bag'
    quiet = start_logger('-p', f'bag_path:={quiet_bag}', '-p', 'topics:=[joint_states, /rosout]')
    quiet.wait_for_output('recording [')
    from rclpy.qos import DurabilityPolicy
    logs = test_node.create_publisher(Log, '/rosout', QoSProfile(  # rosout's own QoS, so the logger matches it
        depth=100, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL))
    deadline = time.monotonic() + SUBSCRIBE_TIMEOUT_S
    while '/rosout [' not in quiet.output:  # the logger subscribed to our /rosout publisher
        assert time.monotonic() < deadline, quiet.output
        logs.publish(Log(msg='before'))
        time.sleep(0.1)
    for _ in range(5):
        logs.publish(Log(msg='hardware not found'))
    time.sleep(0.5)
    assert quiet.stop(signal.SIGINT) == 0
    assert 'only /rosout messages received' in quiet.output, quiet.output
    assert not quiet_bag.exists()

    logger = start_logger('-p', f'bag_path:={bag}', '-p', 'topics:=[joint_states, /rosout]')
    logger.wait_for_output('recording [')
    deadline = time.monotonic() + SUBSCRIBE_TIMEOUT_S
    while '/rosout [' not in logger.output:
        assert time.monotonic() < deadline, logger.output
        time.sleep(0.1)
    for _ in range(5):
        logs.publish(Log(msg='held back'))
    time.sleep(0.5)
    assert not bag.exists()  # only /rosout so far
    publish_joint_states(test_node, '/joint_states', count=10, rate_hz=100.0)
    assert logger.stop(signal.SIGINT) == 0, logger.output
    recorded = rosbags_messages(bag)
    assert len(recorded['/joint_states']) == 10
    assert sum(b'held back' in data for data in recorded['/rosout']) == 5  # held back, then written


@pytest.mark.parametrize('make_path, reason', [
    # root may write into a mode 555 directory: then a place where nobody can create a directory
    (lambda tmp: tmp / 'read_only' / 'bag', 'is not writable') if os.geteuid() else
    (lambda tmp: Path('/proc/cobra_bag'), 'No such file or directory'),
    (lambda tmp: tmp / 'a_file' / 'bag', 'is not a directory'),
])
def test_an_unwritable_bag_path_is_a_startup_error(tmp_path, start_logger, make_path, reason):
    (tmp_path / 'read_only').mkdir(mode=0o555)
    (tmp_path / 'a_file').write_text('not a directory')
    bag_path = make_path(tmp_path)
    logger = start_logger('-p', f'bag_path:={bag_path}')
    assert logger.wait_exit() == 2
    errors = [line for line in logger.output.splitlines() if 'ERROR' in line]
    assert len(errors) == 1 and f'bag_path {bag_path} cannot be created' in errors[0], logger.output
    assert reason in errors[0] and 'Traceback' not in logger.output
    assert not bag_path.exists()


def test_sim_time_log_stamps_are_the_newest_recorded_header_stamp_without_clock(
        tmp_path, start_logger, test_node):
    """With use_sim_time the logger takes sim time from the headers it records (it does not
    subscribe to 1 kHz /clock); a message without a header gets the newest stamp seen."""
    from mcap.reader import make_reader
    from std_msgs.msg import Bool
    bag_dir = tmp_path / 'bag'
    logger = start_logger('-p', f'bag_path:={bag_dir}', '-p', 'use_sim_time:=true',
                          '-p', 'topics:=[joint_states, latch/state]')
    logger.wait_for_output('recording [')
    reliable = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
    states = test_node.create_publisher(JointState, '/joint_states', reliable)
    latch = test_node.create_publisher(Bool, '/latch/state', reliable)
    deadline = time.monotonic() + SUBSCRIBE_TIMEOUT_S
    while states.get_subscription_count() == 0 or latch.get_subscription_count() == 0:
        assert time.monotonic() < deadline, f'the logger never subscribed:\n{logger.output}'
        rclpy.spin_once(test_node, timeout_sec=0.05)
    for step in range(1, 11):
        message = JointState(name=['joint_1'], position=[0.0])
        message.header.stamp.sec, message.header.stamp.nanosec = divmod(3_000_000_000 + step * 2_000_000,
                                                                        1_000_000_000)
        states.publish(message)
    time.sleep(0.5)  # the joint states are taken first (log times only grow, so no race in the verdict)
    latch.publish(Bool(data=True))
    time.sleep(0.5)
    assert logger.stop(signal.SIGINT) == 0, logger.output
    log_times: dict[str, list[int]] = {}
    for relative in load_metadata(bag_dir)['relative_file_paths']:
        with open(bag_dir / relative, 'rb') as handle:
            for _, channel, message in make_reader(handle).iter_messages():
                log_times.setdefault(channel.topic, []).append(message.log_time)
    assert sorted(log_times['/joint_states']) == [3_000_000_000 + step * 2_000_000 for step in range(1, 11)]
    assert log_times['/latch/state'] == [3_020_000_000]


def test_sim_time_messages_before_the_first_header_stamp_are_logged_at_it_not_at_zero(
        tmp_path, start_logger, test_node):
    """A sim with a wall-clock origin stamps 2026: the start-up /rosout and a latched state that
    came before any stamp must not put the bag's start in 1970."""
    from mcap.reader import make_reader
    from std_msgs.msg import Bool
    bag_dir = tmp_path / 'bag'
    logger = start_logger('-p', f'bag_path:={bag_dir}', '-p', 'use_sim_time:=true',
                          '-p', 'topics:=[joint_states, latch/state, /rosout]')
    logger.wait_for_output('recording [')
    reliable = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
    states = test_node.create_publisher(JointState, '/joint_states', reliable)
    latch = test_node.create_publisher(Bool, '/latch/state', reliable)
    deadline = time.monotonic() + SUBSCRIBE_TIMEOUT_S
    while states.get_subscription_count() == 0 or latch.get_subscription_count() == 0:
        assert time.monotonic() < deadline, f'the logger never subscribed:\n{logger.output}'
        rclpy.spin_once(test_node, timeout_sec=0.05)
    test_node.get_logger().info('before any stamp')  # /rosout, as a node's start-up lines
    latch.publish(Bool(data=True))
    time.sleep(0.5)  # taken before the stamp below (taken after it, it would get the stamp anyway)
    first_stamp_ns = 1_796_000_000_123_000_000  # Dec 2026, as clock_origin:=wall stamps
    message = JointState(name=['joint_1'], position=[0.0])
    message.header.stamp.sec, message.header.stamp.nanosec = divmod(first_stamp_ns, 1_000_000_000)
    states.publish(message)
    time.sleep(0.5)
    assert logger.stop(signal.SIGINT) == 0, logger.output
    log_times: dict[str, list[int]] = {}
    metadata = load_metadata(bag_dir)
    for relative in metadata['relative_file_paths']:
        with open(bag_dir / relative, 'rb') as handle:
            for _, channel, recorded in make_reader(handle).iter_messages():
                log_times.setdefault(channel.topic, []).append(recorded.log_time)
    assert log_times['/latch/state'] == [first_stamp_ns]
    assert log_times['/rosout'] and set(log_times['/rosout']) == {first_stamp_ns}
    assert metadata['starting_time']['nanoseconds_since_epoch'] == first_stamp_ns
