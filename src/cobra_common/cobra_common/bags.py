"""Opening a recorded rosbag2 bag, for every package that reads one (MCAP or sqlite3, split or
not, ours or `ros2 bag record`'s), with one typestore, one topic rule and one error.

The report's reader (cobra_analysis.bag_reader) builds its series on this; packages below the
analysis layer (the run summary, the predictor's bag track, odometry accuracy) open bags here.
Topics are matched by their last name components in any namespace (`/cobra/joint_states` is
`joint_states`), and `ground_truth/odom` is never taken for `odom`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml
from rosbags.highlevel import AnyReader
from rosbags.interfaces import Connection

from cobra_common.interface_types import cobra_typestore

ODOM = 'odom'


class BagReadError(ValueError):
    """A bag that cannot be read; the text names the file and the fix."""


def topic_matches(topic: str, name: str) -> bool:
    """`name` as the last components of `topic`, in any namespace; odom is not ground_truth/odom."""
    parts = topic.strip('/').split('/')
    wanted = name.strip('/').split('/')
    if parts[-len(wanted):] != wanted:
        return False
    return name.strip('/') != ODOM or parts[-2:-1] != ['ground_truth']


def connections_named(reader: AnyReader, name: str, msgtype: str | None = None) -> list[Connection]:
    """The reader's connections on topic `name` (topic_matches), of `msgtype` when given."""
    return [c for c in reader.connections
            if topic_matches(c.topic, name) and (msgtype is None or c.msgtype == msgtype)]


def stamp_s(stamp: Any) -> float:
    """builtin_interfaces/Time as seconds."""
    return stamp.sec + stamp.nanosec * 1e-9


def read_custom_data(bag: Path) -> dict[str, str]:
    """metadata.yaml's custom_data (rosbag2 >= v6: the bringup writes cobra.robot, cobra.slope_deg,
    ...), {} when there is none or the file is unreadable (opening the bag reports that)."""
    metadata = bag / 'metadata.yaml' if bag.is_dir() else None
    if metadata is None or not metadata.exists():
        return {}
    try:
        info = yaml.safe_load(metadata.read_text(encoding='utf-8')) or {}
    except (yaml.YAMLError, OSError, UnicodeDecodeError):
        return {}
    custom = (info.get('rosbag2_bagfile_information') or {}).get('custom_data') or {} \
        if isinstance(info, dict) else {}
    return {str(k): str(v) for k, v in custom.items()} if isinstance(custom, dict) else {}


def storage_of(bag: Path) -> str:
    """'mcap', 'db3' (or both joined by '+') from the bag's files; 'unknown' when it has neither."""
    if bag.is_dir():
        kinds = {p.suffix for p in bag.iterdir()} & {'.mcap', '.db3'}
        return '+'.join(sorted(k.lstrip('.') for k in kinds)) or 'unknown'
    return bag.suffix.lstrip('.')


def fix_hint(bag: Path) -> str:
    """What to do about a bag that does not read: recover a cut-off recording, else check the path."""
    if bag.is_dir() and (bag / '.recording').exists():
        return f'the recording was cut off: run `python -m cobra_logger.recover {bag}` first'
    return ('check that it is a rosbag2 bag directory (metadata.yaml + .mcap/.db3 files) or a single '
            '.mcap/.db3 file; a cut-off cobra_logger bag is repaired with `python -m cobra_logger.recover <bag>`')


@contextmanager
def open_bag(path: str | Path, own_errors: tuple[type[BaseException], ...] = ()) -> Iterator[AnyReader]:
    """The bag at `path` opened for reading. Anything rosbags, mcap or sqlite raise while it is
    opened or read (a missing metadata.yaml, a truncated or garbage file, a message that does not
    decode) becomes one BagReadError naming the file and the fix; `own_errors`, the caller's own
    exception types raised in the `with` body, pass unchanged."""
    bag = Path(path)
    if not bag.exists():
        raise BagReadError(f'{bag}: no such bag (give a bag directory or a .mcap/.db3 file)')
    if bag.is_dir() and not (bag / 'metadata.yaml').exists():
        raise BagReadError(_no_metadata(bag))
    try:
        reader = AnyReader([bag], default_typestore=cobra_typestore())
        reader.open()
    except Exception as error:  # noqa: BLE001 - rosbags/mcap/sqlite raise many kinds for a broken file
        raise _read_error(bag, error) from error
    try:
        yield reader
    except (BagReadError, *own_errors):
        raise
    except Exception as error:  # noqa: BLE001 - the same, for a file that breaks while it is read
        raise _read_error(bag, error) from error
    finally:
        reader.close()


def _no_metadata(bag: Path) -> str:
    """What a directory without metadata.yaml is (rosbags would call the directory itself the
    missing metadata file)."""
    entries = sorted(p.name for p in bag.iterdir())
    if not entries:
        return (f'{bag}: an empty directory, not a bag (a rosbag2 bag directory holds metadata.yaml and '
                '.mcap/.db3 files): give the directory of a recorded run')
    if (bag / '.recording').exists():
        return f'{bag}: no metadata.yaml yet; {fix_hint(bag)}'
    files = [name for name in entries if name.endswith(('.mcap', '.db3'))]
    holds = f'{len(files)} .mcap/.db3 file(s)' if files else f"{', '.join(entries[:3])}{' ...' if len(entries) > 3 else ''}"
    return (f'{bag}: a directory without metadata.yaml, so no rosbag2 bag (it holds {holds}); '
            + ('give one of its .mcap/.db3 files instead' if files else 'give the directory of a recorded run'))


def _read_error(bag: Path, error: Exception) -> BagReadError:
    text = ' '.join(str(error).split())  # one line, also for multi-line YAML errors
    return BagReadError(f'{bag}: cannot read the bag ({type(error).__name__}: {text}); {fix_hint(bag)}')
