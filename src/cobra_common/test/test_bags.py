"""The one bag opener: topic rule, one error naming the file and the fix, custom_data, a real read."""

from __future__ import annotations

from pathlib import Path

import pytest
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

from cobra_common.bags import (BagReadError, connections_named, open_bag, read_custom_data, stamp_s, storage_of,
                               topic_matches)

TYPESTORE = get_typestore(Stores.ROS2_JAZZY)
T = TYPESTORE.types
BOOL = 'std_msgs/msg/Bool'


def write_bool_bag(path: Path, topics: dict[str, int], custom_data: dict[str, str] | None = None) -> Path:
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        for key, value in (custom_data or {}).items():
            writer.set_custom_data(key, value)
        for topic, count in topics.items():
            connection = writer.add_connection(topic, BOOL, typestore=TYPESTORE)
            for index in range(count):
                writer.write(connection, index * 1_000_000, TYPESTORE.serialize_cdr(T[BOOL](index % 2 == 1), BOOL))
    return path


def test_topics_match_by_their_last_components_and_odom_is_never_ground_truth() -> None:
    assert topic_matches('/cobra/joint_states', 'joint_states')
    assert topic_matches('/cobra/ground_truth/odom', '/ground_truth/odom')
    assert not topic_matches('/ground_truth/odom', 'odom') and topic_matches('/r1/odom', 'odom')
    assert not topic_matches('/r1/odom_raw', 'odom')


def test_a_bag_reads_through_the_shared_reader(tmp_path: Path) -> None:
    bag = write_bool_bag(tmp_path / 'run', {'/cobra/latch/state': 3, '/other': 1}, {'cobra.robot': 'cobra'})
    with open_bag(bag) as reader:
        latch = connections_named(reader, 'latch/state', BOOL)
        assert [c.topic for c in latch] == ['/cobra/latch/state']
        assert connections_named(reader, 'latch/state', 'std_msgs/msg/String') == []
        values = [reader.deserialize(raw, c.msgtype).data for c, _, raw in reader.messages(connections=latch)]
    assert values == [False, True, False]
    assert read_custom_data(bag) == {'cobra.robot': 'cobra'}
    assert storage_of(bag) == 'mcap'
    assert read_custom_data(tmp_path / 'nowhere') == {}


def test_a_missing_bag_is_named(tmp_path: Path) -> None:
    with pytest.raises(BagReadError, match=r'missing: no such bag \(give a bag directory or a \.mcap/\.db3 file\)'):
        with open_bag(tmp_path / 'missing'):
            pass


def test_a_garbage_bag_is_one_line_naming_the_file_and_the_fix(tmp_path: Path) -> None:
    bag = tmp_path / 'garbage'
    bag.mkdir()
    (bag / 'metadata.yaml').write_text('rosbag2_bagfile_information: [\n  broken')
    with pytest.raises(BagReadError) as error:
        with open_bag(bag):
            pass
    text = str(error.value)
    assert text.startswith(f'{bag}: cannot read the bag (') and '\n' not in text
    assert 'python -m cobra_logger.recover <bag>' in text


def test_a_truncated_file_fails_while_read_as_the_same_error(tmp_path: Path) -> None:
    bag = write_bool_bag(tmp_path / 'cut', {'/latch/state': 2000})
    mcap = next(bag.glob('*.mcap'))
    mcap.write_bytes(mcap.read_bytes()[:2000])
    with pytest.raises(BagReadError, match='cut: cannot read the bag'):
        with open_bag(bag) as reader:
            for _ in reader.messages():
                pass


def test_a_cut_off_recording_is_told_to_recover_first(tmp_path: Path) -> None:
    bag = tmp_path / 'cut_off'
    (bag / '.recording').mkdir(parents=True)
    with pytest.raises(BagReadError, match=rf'run `python -m cobra_logger.recover {bag}` first'):
        with open_bag(bag):
            pass


def test_the_callers_own_errors_pass_and_others_are_named(tmp_path: Path) -> None:
    class OwnError(ValueError):
        pass

    bag = write_bool_bag(tmp_path / 'run', {'/latch/state': 1})
    with pytest.raises(OwnError, match='mine'):
        with open_bag(bag, own_errors=(OwnError,)):
            raise OwnError('mine')
    with pytest.raises(BagReadError, match=r'run: cannot read the bag \(KeyError'):
        with open_bag(bag):
            raise KeyError('a message without the field')


def test_stamps_are_seconds() -> None:
    assert stamp_s(T['builtin_interfaces/msg/Time'](3, 500_000_000)) == 3.5


def test_a_directory_without_metadata_is_called_a_directory(tmp_path: Path) -> None:
    """rosbags calls such a directory the missing metadata file ("Expected metadata file
    '<dir>' does not exist"); the error says what the directory is instead."""
    empty = tmp_path / 'empty'
    empty.mkdir()
    with pytest.raises(BagReadError, match=rf'^{empty}: an empty directory, not a bag') as error:
        with open_bag(empty):
            pass
    assert 'metadata file' not in str(error.value)
    loose = tmp_path / 'loose'
    loose.mkdir()
    (loose / 'run_0.mcap').write_bytes(b'')
    with pytest.raises(BagReadError, match=r'without metadata.yaml, so no rosbag2 bag \(it holds 1 .mcap/.db3 file'):
        with open_bag(loose):
            pass
