"""Run provenance in metadata.yaml's custom_data: written with every metadata.yaml, kept by
recover_bag (also for a bag killed in its first split), set by the node's `custom_data` parameter."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest
import rclpy
import yaml
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosbags.rosbag2 import Reader
from sensor_msgs.msg import JointState

from cobra_logger.bag_metadata import CUSTOM_DATA_FILE_NAME, CustomDataError, parse_custom_data, read_custom_data
from cobra_logger.recover import recover_bag
from cobra_logger.split_bag import SplitBagWriter, STAGING_DIR_NAME

JOINT_STATE = 'sensor_msgs/msg/JointState'
RUN = {'cobra.gait.gait': 'gait1', 'cobra.gait.frequency_hz': '0.4', 'cobra.class': 'sim',
       'cobra.terrain': 'rigid 24 deg', 'cobra.git_rev': 'abc1234-dirty'}


def custom_data_of(bag_dir: Path) -> dict | None:
    return yaml.safe_load((bag_dir / 'metadata.yaml').read_text())['rosbag2_bagfile_information']['custom_data']


def test_parse_custom_data_keeps_values_with_equals_signs_and_refuses_bad_entries():
    assert parse_custom_data(['a=b', 'c=x=y', 'd=']) == {'a': 'b', 'c': 'x=y', 'd': ''}
    with pytest.raises(CustomDataError, match="'novalue' is not key=value"):
        parse_custom_data(['novalue'])
    with pytest.raises(CustomDataError, match="'=b' is not key=value"):
        parse_custom_data(['=b'])
    with pytest.raises(CustomDataError, match="key 'a' is given twice"):
        parse_custom_data(['a=1', 'a=2'])


def test_every_metadata_yaml_carries_the_custom_data_as_strings_rosbags_reads(tmp_path, make_joint_state):
    bag_dir = tmp_path / 'run'
    writer = SplitBagWriter(bag_dir, split_duration_s=3600.0, custom_data=RUN)
    writer.add_topic('/joint_states', JOINT_STATE)
    writer.write('/joint_states', 1, make_joint_state(0))
    sidecar = bag_dir / STAGING_DIR_NAME / CUSTOM_DATA_FILE_NAME
    assert yaml.safe_load(sidecar.read_text()) == RUN  # no metadata.yaml yet: the copy recovery uses
    writer.close()

    assert custom_data_of(bag_dir) == RUN  # '0.4' stays the string rosbag2's map<string, string> holds
    with Reader(bag_dir) as reader:
        assert reader.message_count == 1  # rosbags opens it (its Reader keeps custom_data private)
    assert read_custom_data(bag_dir / 'metadata.yaml') == RUN
    assert not (bag_dir / STAGING_DIR_NAME).exists()


def test_without_custom_data_the_field_stays_null_as_rosbag2_writes_it(tmp_path, make_joint_state):
    writer = SplitBagWriter(tmp_path / 'run')
    writer.add_topic('/joint_states', JOINT_STATE)
    writer.write('/joint_states', 1, make_joint_state(0))
    writer.close()
    assert custom_data_of(tmp_path / 'run') is None


def test_recovery_keeps_the_custom_data_of_a_bag_killed_in_its_first_split(tmp_path, make_joint_state):
    bag_dir = tmp_path / 'killed'
    writer = SplitBagWriter(bag_dir, split_duration_s=3600.0, custom_data=RUN)
    writer.add_topic('/joint_states', JOINT_STATE)
    for seq in range(5):
        writer.write('/joint_states', 1 + seq, make_joint_state(seq))
    # the process dies here: no split closed, no metadata.yaml, the open file has no chunk on disk
    assert not (bag_dir / 'metadata.yaml').exists()

    recover_bag(bag_dir)

    assert custom_data_of(bag_dir) == RUN


def test_recovery_keeps_the_custom_data_of_metadata_yaml(tmp_path, make_joint_state):
    bag_dir = tmp_path / 'killed'
    clock_s = [0.0]
    writer = SplitBagWriter(bag_dir, split_duration_s=1.0, custom_data=RUN, monotonic=lambda: clock_s[0])
    writer.add_topic('/joint_states', JOINT_STATE)
    for seq in range(4):  # the second write finds the split due: split 0 closed, split 1 left open
        writer.write('/joint_states', 1 + seq, make_joint_state(seq))
        clock_s[0] += 0.6
    assert (bag_dir / 'killed_0.mcap').exists() and not (bag_dir / STAGING_DIR_NAME / CUSTOM_DATA_FILE_NAME).exists()

    recover_bag(bag_dir)

    assert custom_data_of(bag_dir) == RUN


def test_the_node_writes_its_custom_data_parameter_into_the_bag(tmp_path, start_logger, test_node):
    bag_dir = tmp_path / 'bag'
    logger = start_logger('-p', f'bag_path:={bag_dir}', '-p', 'topics:=[joint_states]',
                          '-p', "custom_data:=['cobra.class=sim', 'cobra.terrain=rigid 24 deg', 'cobra.gait.frequency_hz=0.4']")
    logger.wait_for_output('recording [')
    publisher = test_node.create_publisher(JointState, '/joint_states',
                                           QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE))
    deadline = time.monotonic() + 30.0
    while publisher.get_subscription_count() == 0:
        assert time.monotonic() < deadline, f'the logger never subscribed:\n{logger.output}'
        rclpy.spin_once(test_node, timeout_sec=0.05)
    publisher.publish(JointState(name=['joint_1'], position=[0.0]))
    deadline = time.monotonic() + 30.0
    while not (bag_dir / STAGING_DIR_NAME).exists():  # the message reached the writer
        assert time.monotonic() < deadline, f'nothing recorded:\n{logger.output}'
        time.sleep(0.05)
    assert logger.stop(signal.SIGINT) == 0, logger.output
    assert custom_data_of(bag_dir) == {'cobra.class': 'sim', 'cobra.terrain': 'rigid 24 deg',
                                       'cobra.gait.frequency_hz': '0.4'}


@pytest.mark.parametrize('value, message', [
    ("['cobra.class=sim', 'oops']", "custom_data entry 'oops' is not key=value"),
    ("['a=1', 'a=2']", "custom_data key 'a' is given twice"),
    ('5', "parameter 'custom_data' = 5 has the wrong type"),
])
def test_a_bad_custom_data_entry_is_one_startup_error(tmp_path, start_logger, value, message):
    bag_dir = tmp_path / 'bag'
    logger = start_logger('-p', f'bag_path:={bag_dir}', '-p', f'custom_data:={value}')
    assert logger.wait_exit() == 2, logger.output
    errors = [line for line in logger.output.splitlines() if 'ERROR' in line]
    assert len(errors) == 1 and message in errors[0], logger.output
    assert 'Traceback' not in logger.output and not bag_dir.exists()
