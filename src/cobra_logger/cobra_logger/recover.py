"""Recover a bag whose recorder was killed: salvage the unfinished split, rebuild metadata.yaml.

The closed splits of a bag are complete MCAP files. The split that was open when the recorder
died lies in `<bag>/.recording/<bag>_<i>/` without summary or footer; every complete record
before the cut (its schemas, channels and the messages of every complete chunk) is read with
the mcap library's sequential reader and written to a new, valid `<bag>_<i>.mcap`.
"""

from __future__ import annotations

import argparse
import os
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
    fsync_path,
    METADATA_FILE_NAME,
    McapFileSummary,
    read_custom_data,
    summarize_mcap,
    topic_info_from_mcap,
    write_metadata,
)
from cobra_logger.split_bag import McapSplit, move_into_bag, split_index, STAGING_DIR_NAME

SALVAGE_DIR_NAME = 'salvage'  # recovery's scratch in .recording/: its files are rebuilt from the sources
SET_ASIDE_DIR_NAME = 'set_aside_by_recovery'  # in the bag: what recovery did not take into the bag
ROSBAGS_SPLIT_METADATA = 'metadata.yaml'  # rosbags writes one beside a split it closes (derived data)
_SPLIT_DIR = re.compile(r'.+_\d+$')


class NotABagError(ValueError):
    """The given path is not a bag directory this recorder wrote."""


@dataclass
class SalvagedRecords:
    """The complete records found before the point where an MCAP file was cut off."""

    schemas: dict[int, Schema] = field(default_factory=dict)
    channels: dict[int, Channel] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    stop_reason: str = 'file is complete'


@dataclass(frozen=True)
class SetAside:
    """A file recovery moved out of the way instead of deleting it: where it was, where it is, why."""

    original: Path  # relative to the bag directory
    kept_as: Path  # relative to the bag directory
    reason: str


@dataclass
class RecoveryReport:
    """What recovery did, for the CLI and for tests."""

    bag_dir: Path
    salvaged_messages: dict[str, int] = field(default_factory=dict)  # file name -> messages salvaged
    files: list[McapFileSummary] = field(default_factory=list)
    set_aside: list[SetAside] = field(default_factory=list)
    cut_in_bag: list[str] = field(default_factory=list)  # cut splits found in the bag dir, not in staging

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


def _is_complete_mcap(path: Path) -> bool:
    try:
        summarize_mcap(path)
    except ValueError:
        return False
    return True


class _Recovery:
    """One recovery of one bag: every file it does not take into the bag is moved aside, never deleted."""

    def __init__(self, bag_dir: Path) -> None:
        self.bag_dir = bag_dir
        self.staging_root = bag_dir / STAGING_DIR_NAME
        self.report = RecoveryReport(bag_dir)
        self._staged_from_bag: dict[Path, Path] = {}  # staged path -> where the cut split lay in the bag

    def set_aside(self, path: Path, reason: str, name: Path | None = None) -> None:
        """Move `path` into the set-aside folder (under `name`, default its path below .recording/)."""
        if name is None:
            relative = path.relative_to(self.bag_dir)
            name = relative.relative_to(STAGING_DIR_NAME) if relative.parts[0] == STAGING_DIR_NAME else relative
        target = self.bag_dir / SET_ASIDE_DIR_NAME / name
        stem, suffix, copy = target.stem, target.suffix, 0
        while target.exists():  # a second recovery never overwrites what the first set aside
            copy += 1
            target = target.with_name(f'{stem}.{copy}{suffix}')
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, target)
        fsync_path(target.parent)
        original = self._staged_from_bag.get(path, path).relative_to(self.bag_dir)
        self.report.set_aside.append(SetAside(original, target.relative_to(self.bag_dir), reason))

    def stage_cut_splits_of_the_bag(self) -> None:
        """A cut .mcap in the bag dir becomes an open split in .recording/, so one path salvages both
        and an interrupted recovery resumes from there."""
        for path in sorted(self.bag_dir.glob('*.mcap'), key=split_index):
            if _is_complete_mcap(path):
                continue
            slot = self.staging_root / path.stem
            if slot.exists() or path.stem == SALVAGE_DIR_NAME:  # never into recovery's own scratch folder
                self.set_aside(path, f'cut off, and {STAGING_DIR_NAME}/{path.stem}/ is taken (a split of the same '
                               'name, or the scratch of recovery); nothing of it was salvaged')
                continue
            slot.mkdir(parents=True)
            os.replace(path, slot / path.name)
            self._staged_from_bag[slot / path.name] = path
            fsync_path(slot)
            fsync_path(self.bag_dir)
            self.report.cut_in_bag.append(path.name)

    def recover_staging(self) -> None:
        """Take every split of .recording/ into the bag; set aside whatever else lies there."""
        shutil.rmtree(self.staging_root / SALVAGE_DIR_NAME, ignore_errors=True)  # scratch of a killed recovery
        splits: list[Path] = []
        split_dirs: list[Path] = []
        for entry in sorted(self.staging_root.iterdir()):
            if entry.name == CUSTOM_DATA_FILE_NAME and entry.is_file():
                continue  # read into metadata.yaml; removed once that is written
            staged_from_bag = any(path.parent == entry for path in self._staged_from_bag)
            if not (entry.is_dir() and (_SPLIT_DIR.fullmatch(entry.name) or staged_from_bag)):
                self._set_aside_tree(entry, f'not a split the logger writes (those are {STAGING_DIR_NAME}/'
                                     '<bag>_<i>/<bag>_<i>.mcap)')
                continue
            split_dirs.append(entry)
            for item in sorted(entry.iterdir()):
                if item.name == f'{entry.name}.mcap' and item.is_file():
                    splits.append(item)
                elif item.name != ROSBAGS_SPLIT_METADATA:
                    self._set_aside_tree(item, f'not part of split {entry.name}')
        for staged_file in sorted(splits, key=split_index):
            self.salvage_split(staged_file)
        for split_dir in split_dirs:  # a split dir without its file (killed while opening it) included
            _remove_empty_split_dir(split_dir)

    def _set_aside_tree(self, path: Path, reason: str) -> None:
        files = [path] if not path.is_dir() else sorted(p for p in path.rglob('*') if not p.is_dir())
        for file in files:
            self.set_aside(file, reason)
        if path.is_dir():
            shutil.rmtree(path)  # holds only empty folders now

    def salvage_split(self, staged_file: Path) -> None:
        """Turn a staged split into a valid file in the bag; its cut original is set aside."""
        target = self.bag_dir / staged_file.name
        if target.exists():
            self.set_aside(staged_file, f'{target.name} is in the bag already (an earlier recovery); '
                           'compare the two before deleting either', Path(staged_file.name))
            return
        if _is_complete_mcap(staged_file):  # closed but not yet moved when the recorder died
            self.report.salvaged_messages[staged_file.name] = summarize_mcap(staged_file).message_count
            move_into_bag(staged_file, self.bag_dir)
            return
        salvaged = read_complete_records(staged_file)
        topics = {
            channel_id: topic_info_from_mcap(channel.topic, salvaged.schemas[channel.schema_id].name,
                                             salvaged.schemas[channel.schema_id].data.decode(), channel.metadata)
            for channel_id, channel in salvaged.channels.items() if channel.schema_id in salvaged.schemas
        }
        usable = [m for m in salvaged.messages if m.channel_id in topics]
        if usable:
            scratch = self.staging_root / SALVAGE_DIR_NAME / staged_file.stem
            split = McapSplit(scratch, topics.values())
            for message in usable:
                split.write(topics[message.channel_id].name, message.log_time, message.data)
            split.finish(self.bag_dir)
        self.report.salvaged_messages[staged_file.name] = len(usable)
        self.set_aside(staged_file, f'cut off: its {len(usable)} complete messages are in the bag as '
                       f'{staged_file.name}' if usable else 'cut off before its first complete message',
                       Path(staged_file.name))


def _remove_empty_split_dir(split_dir: Path) -> None:
    (split_dir / ROSBAGS_SPLIT_METADATA).unlink(missing_ok=True)  # rosbags' own, rebuilt from the file
    if split_dir.is_dir() and not any(split_dir.iterdir()):
        split_dir.rmdir()


def recover_bag(bag_dir: Path | str) -> RecoveryReport:
    """Salvage the cut splits of `bag_dir` (open ones in .recording/ and cut ones in the bag) and
    rewrite its metadata.yaml from its files. Nothing is deleted: what recovery does not take into
    the bag (a file it does not know, the cut originals) is moved to `<bag>/set_aside_by_recovery/`."""
    bag_dir = Path(bag_dir)
    if not bag_dir.exists():
        raise NotABagError(f'{bag_dir} does not exist; give the bag directory the logger created')
    if not bag_dir.is_dir():
        raise NotABagError(f'{bag_dir} is a file; give the bag directory that contains the .mcap files')
    staging_root = bag_dir / STAGING_DIR_NAME
    if not any(bag_dir.glob('*.mcap')) and not staging_root.is_dir():
        raise NotABagError(f'{bag_dir} holds no .mcap files and no {STAGING_DIR_NAME}/ folder; it is not a bag')
    recovery = _Recovery(bag_dir)
    # the run's custom_data: the logger's copy for a bag killed in its first split, else metadata.yaml's
    sidecar = staging_root / CUSTOM_DATA_FILE_NAME
    custom_data = read_custom_data(sidecar) or read_custom_data(bag_dir / METADATA_FILE_NAME)
    recovery.stage_cut_splits_of_the_bag()
    if staging_root.is_dir():
        recovery.recover_staging()
        if sidecar.is_file() and sidecar.read_text(encoding='utf-8', errors='replace').strip() \
                and not read_custom_data(sidecar):
            recovery.set_aside(sidecar, 'the run\'s custom_data, but not readable as YAML')
    (bag_dir / (METADATA_FILE_NAME + '.tmp')).unlink(missing_ok=True)
    report = recovery.report
    report.files = [summarize_mcap(path) for path in sorted(bag_dir.glob('*.mcap'), key=split_index)]
    write_metadata(bag_dir, report.files, custom_data)
    if staging_root.is_dir():  # its custom_data is in metadata.yaml now; everything else was moved out
        sidecar.unlink(missing_ok=True)
        shutil.rmtree(staging_root / SALVAGE_DIR_NAME, ignore_errors=True)
        staging_root.rmdir()
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
        kind = 'cut-off split' if name in report.cut_in_bag else 'unfinished split'
        print(f'salvaged {count} messages from {kind} {name}')
    for item in report.set_aside:
        print(f'set aside {item.original} -> {item.kept_as}: {item.reason}')
    if report.set_aside:
        print(f'nothing was deleted: {SET_ASIDE_DIR_NAME}/ holds what is not in the bag; delete it once '
              'you have checked it')
    print(f'{report.bag_dir}: {len(report.files)} files, {report.message_count} messages; metadata.yaml rewritten')
    return 0


if __name__ == '__main__':
    sys.exit(main())
