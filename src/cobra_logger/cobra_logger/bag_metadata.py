"""rosbag2 metadata.yaml (version 9, Jazzy) derived from the closed MCAP files of a bag.

The metadata is always rebuilt from the files' own MCAP summaries, so the writer and the
recovery command produce it the same way and it can never disagree with what is on disk.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml
from mcap.reader import make_reader
from rosbags.interfaces import Qos
from rosbags.rosbag2.metadata import dump_qos_v9, parse_qos
from rosbags.typesys import get_typestore, Stores
from rosbags.typesys.msg import get_types_from_msg

ROSBAG2_VERSION = 9
STORAGE_IDENTIFIER = 'mcap'
SERIALIZATION_FORMAT = 'cdr'
METADATA_FILE_NAME = 'metadata.yaml'
QOS_METADATA_KEY = 'offered_qos_profiles'
CUSTOM_DATA_FILE_NAME = 'custom_data.yaml'  # in the staging folder while recording (see split_bag)


class CustomDataError(ValueError):
    """A custom_data entry that is not `key=value` with a unique, non-empty key."""


def parse_custom_data(entries: Sequence[str]) -> dict[str, str]:
    """`key=value` strings -> rosbag2's custom_data map (keys unique, values may hold '=')."""
    custom_data: dict[str, str] = {}
    for entry in entries:
        key, separator, value = entry.partition('=')
        key = key.strip()
        if not separator or not key:
            raise CustomDataError(f"custom_data entry '{entry}' is not key=value: write e.g. "
                                  "'cobra.robot=cobra'")
        if key in custom_data:
            raise CustomDataError(f"custom_data key '{key}' is given twice ('{key}={custom_data[key]}' "
                                  f"and '{entry}'): keep one")
        custom_data[key] = value
    return custom_data


def read_custom_data(path: Path) -> dict[str, str]:
    """custom_data of a metadata.yaml (or of the staging custom_data.yaml); {} if none or unreadable."""
    try:
        document = yaml.safe_load(path.read_text(encoding='utf-8')) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    if isinstance(document, dict) and 'rosbag2_bagfile_information' in document:
        document = (document['rosbag2_bagfile_information'] or {}).get('custom_data')
    if not isinstance(document, dict):
        return {}
    return {str(key): str(value) for key, value in document.items()}


@dataclass(frozen=True)
class TopicInfo:
    """What a bag needs to know about one recorded topic."""

    name: str
    msgtype: str
    msgdef: str
    rihs01: str
    offered_qos_profiles: tuple[Qos, ...] = ()


@dataclass
class McapFileSummary:
    """Counts and time range of one closed MCAP file, as its own summary section states."""

    path: Path
    start_ns: int
    end_ns: int
    message_count: int
    topics: list[TopicInfo] = field(default_factory=list)
    topic_message_counts: dict[str, int] = field(default_factory=dict)


@lru_cache(maxsize=256)
def type_hash_from_definition(msgtype: str, msgdef: str) -> str:
    """RIHS01 hash of a type computed from its embedded ros2msg definition."""
    typestore = get_typestore(Stores.EMPTY)
    typestore.register(get_types_from_msg(msgdef, msgtype))
    return typestore.hash_rihs01(msgtype)


def topic_info_from_mcap(topic: str, msgtype: str, msgdef: str, channel_metadata: dict[str, str]) -> TopicInfo:
    """TopicInfo of an MCAP channel written by a rosbag2-compatible writer."""
    qos_text = channel_metadata.get(QOS_METADATA_KEY, '')
    return TopicInfo(
        name=topic,
        msgtype=msgtype,
        msgdef=msgdef,
        rihs01=type_hash_from_definition(msgtype, msgdef),
        offered_qos_profiles=tuple(parse_qos(qos_text)),
    )


def summarize_mcap(path: Path) -> McapFileSummary:
    """Summary of a complete MCAP file; raises ValueError if the file has no summary section."""
    with path.open('rb') as stream:
        try:
            summary = make_reader(stream).get_summary()
        except Exception as error:  # the mcap reader raises many types on a truncated file
            raise ValueError(f'{path} is not a complete MCAP file ({error})') from error
    if summary is None or summary.statistics is None:
        raise ValueError(f'{path} has no MCAP summary/statistics section')
    topics: list[TopicInfo] = []
    counts: dict[str, int] = {}
    for channel_id, channel in sorted(summary.channels.items()):
        schema = summary.schemas[channel.schema_id]
        topics.append(topic_info_from_mcap(channel.topic, schema.name, schema.data.decode(), channel.metadata))
        counts[channel.topic] = summary.statistics.channel_message_counts.get(channel_id, 0)
    statistics = summary.statistics
    return McapFileSummary(
        path=path,
        start_ns=statistics.message_start_time if statistics.message_count else 0,
        end_ns=statistics.message_end_time if statistics.message_count else 0,
        message_count=statistics.message_count,
        topics=topics,
        topic_message_counts=counts,
    )


def _time_range(files: Sequence[McapFileSummary]) -> tuple[int, int]:
    non_empty = [f for f in files if f.message_count]
    if not non_empty:
        return 0, 0
    start_ns = min(f.start_ns for f in non_empty)
    return start_ns, max(f.end_ns for f in non_empty) - start_ns


def build_metadata(files: Sequence[McapFileSummary], custom_data: Mapping[str, str] | None = None) -> dict:
    """The rosbag2 version-9 metadata document for a bag made of `files` (in file order);
    custom_data is rosbag2's string map (None when empty, as rosbag2 and rosbags write it)."""
    topics: dict[str, TopicInfo] = {}
    counts: dict[str, int] = {}
    for summary in files:
        for topic in summary.topics:
            topics.setdefault(topic.name, topic)
            counts[topic.name] = counts.get(topic.name, 0) + summary.topic_message_counts.get(topic.name, 0)
    start_ns, duration_ns = _time_range(files)
    return {
        'rosbag2_bagfile_information': {
            'version': ROSBAG2_VERSION,
            'storage_identifier': STORAGE_IDENTIFIER,
            'relative_file_paths': [f.path.name for f in files],
            'duration': {'nanoseconds': duration_ns},
            'starting_time': {'nanoseconds_since_epoch': start_ns},
            'message_count': sum(f.message_count for f in files),
            'topics_with_message_count': [
                {
                    'topic_metadata': {
                        'name': topic.name,
                        'type': topic.msgtype,
                        'serialization_format': SERIALIZATION_FORMAT,
                        'offered_qos_profiles': dump_qos_v9(list(topic.offered_qos_profiles)),
                        'type_description_hash': topic.rihs01,
                    },
                    'message_count': counts[topic.name],
                }
                for topic in topics.values()
            ],
            'compression_format': '',
            'compression_mode': '',
            'files': [
                {
                    'path': f.path.name,
                    'starting_time': {'nanoseconds_since_epoch': _time_range([f])[0]},
                    'duration': {'nanoseconds': _time_range([f])[1]},
                    'message_count': f.message_count,
                }
                for f in files
            ],
            'custom_data': dict(custom_data) if custom_data else None,
            'ros_distro': 'jazzy',
        }
    }


def fsync_path(path: Path) -> None:
    """Flush a file or directory entry to stable storage (survives power loss, not just SIGKILL)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_metadata(bag_dir: Path, files: Sequence[McapFileSummary],
                   custom_data: Mapping[str, str] | None = None) -> Path:
    """Atomically replace bag_dir/metadata.yaml (tmp + fsync + rename + directory fsync)."""
    target = bag_dir / METADATA_FILE_NAME
    tmp = bag_dir / (METADATA_FILE_NAME + '.tmp')
    tmp.write_text(yaml.safe_dump(build_metadata(files, custom_data), sort_keys=False), encoding='utf-8')
    fsync_path(tmp)
    os.replace(tmp, target)
    fsync_path(bag_dir)
    return target
