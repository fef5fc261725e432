"""A rosbag2 (MCAP) writer that splits the bag into files so a crash loses only the open file.

rosbags' Writer produces a usable MCAP file only when close() runs (the summary and footer
are written last), and its MCAP storage keeps messages in an in-memory chunk until the chunk
exceeds 1 MiB. So every split is written by its own Writer into a staging directory inside the
bag (`<bag>/.recording/<bag>_<i>/`); when the split is due (duration or size) it is closed,
summarised, fsync'ed, renamed to `<bag>/<bag>_<i>.mcap` and metadata.yaml is rewritten atomically
(a kill between the last two leaves the newest split unlisted: recover_bag lists it). After a
SIGKILL or power loss only the staged, unfinished split is at risk; `recover_bag` salvages its
complete chunks. The run's custom_data goes into every metadata.yaml; until the first one exists
it waits in `<bag>/.recording/custom_data.yaml`, so a bag killed in its first split keeps it too.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from rosbags.interfaces import Connection, Qos
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys.base import TypesysError
from rosbags.typesys.store import Typestore

import yaml

from cobra_common.interface_types import cobra_typestore
from cobra_logger.bag_metadata import (
    CUSTOM_DATA_FILE_NAME,
    fsync_path,
    McapFileSummary,
    ROSBAG2_VERSION,
    summarize_mcap,
    TopicInfo,
    write_metadata,
)

STAGING_DIR_NAME = '.recording'
# opcode (1) + record length (8) + channel id (2) + sequence (4) + log/publish time (16)
MCAP_MESSAGE_OVERHEAD_BYTES = 31
# rosbags' McapWriter closes (and writes to the file) a chunk once it holds more than this.
ROSBAGS_MCAP_CHUNK_BYTES = 2**20


class BagExistsError(FileExistsError):
    """The bag directory exists already; a recording never overwrites or appends to one."""


class UnknownMessageTypeError(ValueError):
    """The message type has no definition in the typestore, so it cannot be described in MCAP."""


def split_file_name(bag_dir: Path, index: int) -> str:
    """rosbag2's split naming: `<bag name>_<index>.mcap`."""
    return f'{bag_dir.name}_{index}.mcap'


_SPLIT_INDEX = re.compile(r'_(\d+)\.mcap$')


def split_index(path: Path) -> int:
    """The index in a split's name (split_file_name), -1 for another name: the order of a bag's splits."""
    match = _SPLIT_INDEX.search(path.name)
    return int(match.group(1)) if match else -1


def move_into_bag(staged_file: Path, bag_dir: Path) -> Path:
    """Make a finished staged MCAP file part of the bag, durably, and drop its staging dir."""
    fsync_path(staged_file)
    final_path = bag_dir / staged_file.name
    os.replace(staged_file, final_path)
    fsync_path(bag_dir)
    shutil.rmtree(staged_file.parent)
    return final_path


class McapSplit:
    """One split file being written by its own rosbags Writer in a staging directory."""

    def __init__(self, staging_dir: Path, topics: Iterable[TopicInfo]) -> None:
        self._writer = Writer(staging_dir, version=ROSBAG2_VERSION, storage_plugin=StoragePlugin.MCAP)
        self._writer.open()
        # rosbags names the storage file after its directory.
        self.staged_file = staging_dir / f'{staging_dir.name}.mcap'
        self._connections: dict[str, Connection] = {}
        self.size_bytes = 0
        self.message_count = 0
        for topic in topics:
            self.add_topic(topic)

    def add_topic(self, topic: TopicInfo) -> None:
        self._connections[topic.name] = self._writer.add_connection(
            topic.name,
            topic.msgtype,
            msgdef=topic.msgdef,
            rihs01=topic.rihs01,
            offered_qos_profiles=list(topic.offered_qos_profiles),
        )

    def write(self, topic: str, timestamp_ns: int, data: bytes | memoryview) -> None:
        self._writer.write(self._connections[topic], timestamp_ns, data)
        self.size_bytes += len(data) + MCAP_MESSAGE_OVERHEAD_BYTES
        self.message_count += 1

    def close(self) -> None:
        """Complete the staged MCAP file (summary + footer)."""
        self._writer.close()
        self.staged_file.parent.joinpath('metadata.yaml').unlink(missing_ok=True)

    def finish(self, bag_dir: Path) -> Path:
        """Close the MCAP file and move it into the bag; returns its path."""
        self.close()
        return move_into_bag(self.staged_file, bag_dir)


class SplitBagWriter:
    """Records serialized messages into a split rosbag2 MCAP bag; the bag dir appears on the first write."""

    def __init__(
        self,
        bag_dir: Path | str,
        split_duration_s: float = 5.0,
        split_size_bytes: int = 64_000_000,
        typestore: Typestore | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        custom_data: Mapping[str, str] | None = None,
    ) -> None:
        self.bag_dir = Path(bag_dir)
        self.custom_data = dict(custom_data or {})  # metadata.yaml's custom_data (run provenance)
        if self.bag_dir.exists():
            raise BagExistsError(
                f'bag path {self.bag_dir} exists already; choose a new bag path or move the old bag away'
            )
        if split_duration_s <= 0 or split_size_bytes <= 0:
            raise ValueError('split_duration_s and split_size_bytes must be positive')
        self.split_duration_s = split_duration_s
        self.split_size_bytes = split_size_bytes
        self._typestore = typestore or cobra_typestore()  # Jazzy's types and cobra_interfaces
        self._monotonic = monotonic
        self._topics: dict[str, TopicInfo] = {}
        self._split: McapSplit | None = None
        self._split_opened_s = 0.0
        self._next_index = 0
        self.closed_files: list[McapFileSummary] = []
        self.message_counts: dict[str, int] = {}

    @property
    def topics(self) -> Sequence[TopicInfo]:
        return list(self._topics.values())

    def add_topic(self, topic: str, msgtype: str, offered_qos_profiles: Sequence[Qos] = ()) -> TopicInfo:
        """Register a topic; raises UnknownMessageTypeError for a type the typestore lacks."""
        if topic in self._topics:
            raise ValueError(f'topic {topic} is already registered')
        try:
            msgdef, _ = self._typestore.generate_msgdef(msgtype, ros_version=2)
            rihs01 = self._typestore.hash_rihs01(msgtype)
        except TypesysError as error:
            raise UnknownMessageTypeError(
                f'topic {topic}: message type {msgtype} has no definition in the ROS 2 Jazzy typestore '
                f'of rosbags ({error}); it is not recorded (register the type in the typestore to record it)'
            ) from error
        info = TopicInfo(topic, msgtype, msgdef, rihs01, tuple(offered_qos_profiles))
        self._topics[topic] = info
        self.message_counts[topic] = 0
        if self._split is not None:
            self._split.add_topic(info)
        return info

    def write(self, topic: str, timestamp_ns: int, data: bytes | memoryview) -> None:
        if topic not in self._topics:
            raise KeyError(f'topic {topic} was not registered with add_topic')
        if self._split is None:
            self._open_split()
        assert self._split is not None
        self._split.write(topic, timestamp_ns, data)
        self.message_counts[topic] += 1
        if self._split_due():
            self._close_split()

    def rotate_if_due(self) -> bool:
        """Close the open split if it is due; call periodically so quiet topics get closed too."""
        if self._split is not None and self._split_due():
            self._close_split()
            return True
        return False

    def close(self) -> None:
        """Close the open split; the bag is complete afterwards (and absent if nothing was written)."""
        if self._split is not None:
            self._close_split()

    def _split_due(self) -> bool:
        assert self._split is not None
        return (
            self._split.size_bytes >= self.split_size_bytes
            or self._monotonic() - self._split_opened_s >= self.split_duration_s
        )

    def _open_split(self) -> None:
        if self._next_index == 0:
            try:
                self.bag_dir.mkdir(parents=True)
            except FileExistsError as error:
                raise BagExistsError(f'bag path {self.bag_dir} appeared while recording started') from error
            if self.custom_data:  # recover_bag takes it from here if no metadata.yaml gets written
                sidecar = self.bag_dir / STAGING_DIR_NAME / CUSTOM_DATA_FILE_NAME
                sidecar.parent.mkdir()
                sidecar.write_text(yaml.safe_dump(self.custom_data, sort_keys=False), encoding='utf-8')
                fsync_path(sidecar)
        name = split_file_name(self.bag_dir, self._next_index).removesuffix('.mcap')
        self._split = McapSplit(self.bag_dir / STAGING_DIR_NAME / name, self._topics.values())
        self._split_opened_s = self._monotonic()
        self._next_index += 1

    def _close_split(self) -> None:
        assert self._split is not None
        split, self._split = self._split, None
        split.close()
        # read for its summary before it moves, so that metadata.yaml lists it right after the move: a
        # kill between the two leaves the split in the bag unlisted (recover_bag lists it)
        summary = summarize_mcap(split.staged_file)
        self.closed_files.append(replace(summary, path=move_into_bag(split.staged_file, self.bag_dir)))
        write_metadata(self.bag_dir, self.closed_files, self.custom_data)
        staging_root = self.bag_dir / STAGING_DIR_NAME
        (staging_root / CUSTOM_DATA_FILE_NAME).unlink(missing_ok=True)  # metadata.yaml holds it now
        if staging_root.is_dir() and not any(staging_root.iterdir()):
            staging_root.rmdir()
