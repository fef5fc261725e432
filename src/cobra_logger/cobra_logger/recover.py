"""Recover a bag whose recorder was killed: salvage the unfinished split, rebuild metadata.yaml.

The closed splits of a bag are complete MCAP files. The split that was open when the recorder
died lies in `<bag>/.recording/<bag>_<i>/` without summary or footer; every complete record
before the cut (its schemas, channels and the messages of every complete chunk) is read with
the mcap library's sequential reader and written to a new, valid `<bag>_<i>.mcap`.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mcap.records import Channel, Message, Schema
from mcap.stream_reader import StreamReader

from cobra_logger.bag_metadata import (
    CUSTOM_DATA_FILE_NAME,
    METADATA_FILE_NAME,
    McapFileSummary,
    read_custom_data,
    summarize_mcap,
    topic_info_from_mcap,
    write_metadata,
)
from cobra_logger.split_bag import McapSplit, move_into_bag, STAGING_DIR_NAME

SALVAGE_DIR_NAME = 'salvage'
_SPLIT_INDEX = re.compile(r'_(\d+)\.mcap$')


class NotABagError(ValueError):
    """The given path is not a bag directory this recorder wrote."""


@dataclass
class SalvagedRecords:
    """The complete records found before the point where an MCAP file was cut off."""

    schemas: dict[int, Schema] = field(default_factory=dict)
    channels: dict[int, Channel] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    stop_reason: str = 'file is complete'


@dataclass
class RecoveryReport:
    """What recovery did, for the CLI and for tests."""

    bag_dir: Path
    salvaged_messages: dict[str, int] = field(default_factory=dict)  # file name -> messages salvaged
    files: list[McapFileSummary] = field(default_factory=list)

    @property
    def message_count(self) -> int:
        return sum(f.message_count for f in self.files)


def read_complete_records(path: Path) -> SalvagedRecords:
    """Read records sequentially until the file ends or a record is cut off."""
    salvaged = SalvagedRecords()
    with path.open('rb') as stream:
        try:
            for record in StreamReader(stream, record_size_limit=2**31).records:
                if isinstance(record, Schema):
                    salvaged.schemas[record.id] = record
                elif isinstance(record, Channel):
                    salvaged.channels[record.id] = record
                elif isinstance(record, Message):
                    salvaged.messages.append(record)
        except Exception as error:  # any truncation or garbage tail ends the salvage
            salvaged.stop_reason = f'{type(error).__name__} {error}'.strip()
    return salvaged


def salvage_split(staged_file: Path, bag_dir: Path) -> int:
    """Turn an unfinished staged split into a valid file in the bag; returns messages kept."""
    try:
        count = summarize_mcap(staged_file).message_count
    except ValueError:
        pass
    else:  # closed but not yet moved when the recorder died
        move_into_bag(staged_file, bag_dir)
        return count
    salvaged = read_complete_records(staged_file)
    usable = [m for m in salvaged.messages if m.channel_id in salvaged.channels]
    if usable:
        topics = {}
        for channel_id, channel in salvaged.channels.items():
            schema = salvaged.schemas[channel.schema_id]
            topics[channel_id] = topic_info_from_mcap(
                channel.topic, schema.name, schema.data.decode(), channel.metadata
            )
        split = McapSplit(bag_dir / STAGING_DIR_NAME / SALVAGE_DIR_NAME / staged_file.stem, topics.values())
        for message in usable:
            split.write(topics[message.channel_id].name, message.log_time, message.data)
        split.finish(bag_dir)
    shutil.rmtree(staged_file.parent)
    return len(usable)


def _split_index(path: Path) -> int:
    match = _SPLIT_INDEX.search(path.name)
    return int(match.group(1)) if match else -1


def recover_bag(bag_dir: Path | str) -> RecoveryReport:
    """Salvage unfinished splits of `bag_dir` and rewrite its metadata.yaml from its files."""
    bag_dir = Path(bag_dir)
    if not bag_dir.exists():
        raise NotABagError(f'{bag_dir} does not exist; give the bag directory the logger created')
    if not bag_dir.is_dir():
        raise NotABagError(f'{bag_dir} is a file; give the bag directory that contains the .mcap files')
    staging_root = bag_dir / STAGING_DIR_NAME
    if not any(bag_dir.glob('*.mcap')) and not staging_root.is_dir():
        raise NotABagError(f'{bag_dir} holds no .mcap files and no {STAGING_DIR_NAME}/ folder; it is not a bag')
    report = RecoveryReport(bag_dir)
    # the run's custom_data: the logger's copy for a bag killed in its first split, else metadata.yaml's
    custom_data = read_custom_data(staging_root / CUSTOM_DATA_FILE_NAME) \
        or read_custom_data(bag_dir / METADATA_FILE_NAME)
    if staging_root.is_dir():
        shutil.rmtree(staging_root / SALVAGE_DIR_NAME, ignore_errors=True)  # left by an interrupted recovery
        for staged_file in sorted(staging_root.glob('*/*.mcap'), key=_split_index):
            report.salvaged_messages[staged_file.name] = salvage_split(staged_file, bag_dir)
        shutil.rmtree(staging_root)
    (bag_dir / (METADATA_FILE_NAME + '.tmp')).unlink(missing_ok=True)
    report.files = [summarize_mcap(path) for path in sorted(bag_dir.glob('*.mcap'), key=_split_index)]
    write_metadata(bag_dir, report.files, custom_data)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog='recover_bag',
        description='Make a bag left by a killed logger readable: salvage the unfinished split and '
        'rebuild metadata.yaml from the .mcap files.',
    )
    parser.add_argument('bag_dir', type=Path, help='bag directory created by the COBRA logger')
    args = parser.parse_args(argv)
    try:
        report = recover_bag(args.bag_dir)
    except (NotABagError, ValueError) as error:
        print(f'recover_bag: error: {error}', file=sys.stderr)
        return 2
    for name, count in report.salvaged_messages.items():
        print(f'salvaged {count} messages from unfinished split {name}')
    print(f'{report.bag_dir}: {len(report.files)} files, {report.message_count} messages; metadata.yaml rewritten')
    return 0


if __name__ == '__main__':
    sys.exit(main())
