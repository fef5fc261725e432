"""One pass over a rosbag2 bag (MCAP or sqlite3, split or not, ours or `ros2 bag record`'s) into
the numpy series the report needs, on header stamps.

Topics are matched by their last name components in any namespace (`/cobra/joint_states` is
`joint_states`), `ground_truth/odom` is never taken for `odom`. Header-less topics (`latch/state`,
`tumble/state`) use the bag's receive time, which our logger sets to the newest header stamp in
sim-time runs, so they stay on the same clock as the rest.

Everything the reader cannot make sense of (missing or malformed metadata, a truncated or
garbage file, a message that does not decode) is a `BagError` whose text names the file and says
what to do; a topic that is simply absent leaves its field None (the report drops that section).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from rosbags.highlevel import AnyReader
from rosbags.typesys import Stores, get_typestore

from cobra_sim.heightmap_cloud import HeightmapCloudError, cloud_points

JOINT_STATES = 'joint_states'
JOINT_COMMANDS = 'joint_commands'
ODOM = 'odom'
TRUTH_ODOM = 'ground_truth/odom'
CONTACT_PREFIX = 'contact/forces'
HEIGHTMAP = 'terrain/heightmap'
LATCH_STATE = 'latch/state'
TUMBLE_STATE = 'tumble/state'
DIAGNOSTICS = 'diagnostics'
CLOCK = 'clock'
READ_TOPICS = ('joint_commands', 'joint_states', 'odom', 'ground_truth/odom', 'contact/forces/<link>',
               'terrain/heightmap', 'latch/state', 'tumble/state')
CUSTOM_DATA_PREFIX = 'cobra.'  # metadata.yaml custom_data keys this report reads (see README)
_TYPESTORE = get_typestore(Stores.ROS2_JAZZY)
_DIAGNOSTIC_KEYS = ('terrain', 'terrain_file', 'robot', 'gait', 'slope_deg')


class BagError(ValueError):
    """A bag that cannot be read; the text names the file and the fix."""


@dataclass
class JointSeries:
    """sensor_msgs/JointState of one topic: rows = messages (header stamps), columns = joints."""
    times_s: np.ndarray
    names: tuple[str, ...]
    position_rad: np.ndarray
    velocity_rad_s: np.ndarray  # NaN where a message carried no velocity
    effort_nm: np.ndarray       # NaN where a message carried no effort

    def column(self, name: str) -> int:
        return self.names.index(name)


@dataclass
class PoseSeries:
    """nav_msgs/Odometry: head (base_link) pose in odom and its twist in base_link axes."""
    topic: str
    times_s: np.ndarray
    position_m: np.ndarray           # (N, 3)
    yaw_rad: np.ndarray              # (N,), unwrapped
    linear_velocity_m_s: np.ndarray  # (N, 3), base_link axes
    angular_velocity_rad_s: np.ndarray  # (N, 3), base_link axes


@dataclass
class WrenchSeries:
    """geometry_msgs/WrenchStamped of one link: environment force on it, in the link's axes."""
    link: str
    times_s: np.ndarray
    force_n: np.ndarray  # (N, 3)


@dataclass
class Heightmap:
    """terrain/heightmap: the latest cloud and, per soil node, the deepest sinkage seen."""
    times_s: np.ndarray
    last_xyz_m: np.ndarray        # (M, 3) of the last message
    last_sinkage_m: np.ndarray    # (M,)
    max_xy_m: np.ndarray          # (K, 2): every node seen in any message
    max_sinkage_m: np.ndarray     # (K,): its deepest sinkage over the bag


@dataclass
class EventSeries:
    """A header-less state topic (std_msgs/Bool or String) on the bag's receive times."""
    times_s: np.ndarray
    values: list[Any]


@dataclass
class BagData:
    path: Path
    name: str
    storage: str
    duration_s: float
    start_s: float
    message_counts: dict[str, int]
    custom_data: dict[str, str]
    joint_states: JointSeries | None = None
    joint_commands: JointSeries | None = None
    head: PoseSeries | None = None       # ground_truth/odom when present, else odom
    odom: PoseSeries | None = None       # odom (estimate) when ground truth is the head track
    contact_forces: dict[str, WrenchSeries] = field(default_factory=dict)
    heightmap: Heightmap | None = None
    latch_state: EventSeries | None = None
    tumble_state: EventSeries | None = None
    diagnostics: dict[str, str] = field(default_factory=dict)  # last value of _DIAGNOSTIC_KEYS
    has_clock: bool = False


def matches(topic: str, name: str) -> bool:
    """`name` as the last components of `topic`, in any namespace; odom is not ground_truth/odom."""
    parts = topic.strip('/').split('/')
    wanted = name.split('/')
    if parts[-len(wanted):] != wanted:
        return False
    return name != ODOM or parts[-2:-1] != ['ground_truth']


def contact_link(topic: str) -> str | None:
    """The link of a contact/forces/<link> topic, else None."""
    match = re.search(r'(?:^|/)contact/forces/([^/]+)$', topic.strip('/'))
    return match.group(1) if match else None


def _stamp_s(stamp: Any) -> float:
    return stamp.sec + stamp.nanosec * 1e-9


def _yaw_rad(qx: np.ndarray, qy: np.ndarray, qz: np.ndarray, qw: np.ndarray) -> np.ndarray:
    return np.unwrap(np.arctan2(2.0 * (qw * qz + qx * qy), 1.0 - 2.0 * (qy * qy + qz * qz)))


class _JointAccumulator:
    """JointState messages into columns by name (a message may name a subset, or another order)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.times: list[float] = []
        self.rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self._columns: dict[tuple[str, ...], np.ndarray] = {}

    def add(self, message: Any) -> None:
        key = tuple(message.name)
        columns = self._columns.get(key)
        if columns is None:
            for name in key:
                if name not in self.names:
                    self.names.append(name)
            columns = self._columns[key] = np.array([self.names.index(n) for n in key], dtype=int)
        count = len(key)

        def values(array: Any) -> np.ndarray:
            data = np.asarray(array, dtype=float)
            return data if len(data) == count else np.full(count, np.nan)

        self.times.append(_stamp_s(message.header.stamp))
        self.rows.append((columns, values(message.position), values(message.velocity), values(message.effort)))

    def series(self) -> JointSeries | None:
        if not self.times:
            return None
        shape = (len(self.times), len(self.names))
        position, velocity, effort = (np.full(shape, np.nan) for _ in range(3))
        if len(self._columns) == 1:  # the common case: every message names the same joints
            columns = next(iter(self._columns.values()))
            position[:, columns] = np.array([row[1] for row in self.rows])
            velocity[:, columns] = np.array([row[2] for row in self.rows])
            effort[:, columns] = np.array([row[3] for row in self.rows])
        else:
            for index, (columns, p, v, e) in enumerate(self.rows):
                position[index, columns], velocity[index, columns], effort[index, columns] = p, v, e
        times = np.array(self.times)
        order = np.argsort(times, kind='stable')
        return JointSeries(times[order], tuple(self.names), position[order], velocity[order], effort[order])


def _pose_series(topic: str, messages: list[Any]) -> PoseSeries | None:
    if not messages:
        return None
    times = np.array([_stamp_s(m.header.stamp) for m in messages])
    pose = np.array([(m.pose.pose.position.x, m.pose.pose.position.y, m.pose.pose.position.z,
                      m.pose.pose.orientation.x, m.pose.pose.orientation.y, m.pose.pose.orientation.z,
                      m.pose.pose.orientation.w) for m in messages])
    twist = np.array([(m.twist.twist.linear.x, m.twist.twist.linear.y, m.twist.twist.linear.z,
                       m.twist.twist.angular.x, m.twist.twist.angular.y, m.twist.twist.angular.z)
                      for m in messages])
    order = np.argsort(times, kind='stable')
    pose, twist, times = pose[order], twist[order], times[order]
    return PoseSeries(topic, times, pose[:, :3], _yaw_rad(pose[:, 3], pose[:, 4], pose[:, 5], pose[:, 6]),
                      twist[:, :3], twist[:, 3:])


def _heightmap(bag: Path, clouds: list[tuple[float, Any]]) -> Heightmap | None:
    if not clouds:
        return None
    deepest: dict[tuple[float, float], float] = {}
    last: dict[str, np.ndarray] = {}
    for _, message in clouds:
        try:
            last = cloud_points([(f.name, f.offset, f.datatype) for f in message.fields], message.point_step,
                                bytes(message.data), message.width, message.height, message.is_bigendian)
        except HeightmapCloudError as error:
            raise BagError(f'{bag}: terrain/heightmap: {error} (was it recorded from a cobra_sim SCM run?)') \
                from error
        for x, y, s in zip(np.round(last['x'], 4), np.round(last['y'], 4), last['sinkage']):
            key = (float(x), float(y))
            deepest[key] = max(deepest.get(key, -np.inf), float(s))
    xy = np.array(list(deepest.keys()), dtype=float).reshape(-1, 2)
    return Heightmap(np.array([t for t, _ in clouds]), np.column_stack([last['x'], last['y'], last['z']]),
                     last['sinkage'], xy, np.array(list(deepest.values()), dtype=float))


def read_custom_data(bag: Path) -> dict[str, str]:
    """metadata.yaml's custom_data (rosbag2 >= v6), {} when there is none."""
    metadata = bag / 'metadata.yaml' if bag.is_dir() else None
    if metadata is None or not metadata.exists():
        return {}
    try:
        info = yaml.safe_load(metadata.read_text()) or {}
    except (yaml.YAMLError, OSError, UnicodeDecodeError):
        return {}  # rosbags itself reports a broken metadata.yaml
    custom = (info.get('rosbag2_bagfile_information') or {}).get('custom_data') or {}
    return {str(k): str(v) for k, v in custom.items()} if isinstance(custom, dict) else {}


def _storage(bag: Path) -> str:
    if bag.is_dir():
        kinds = {p.suffix for p in bag.iterdir()} & {'.mcap', '.db3'}
        return '+'.join(sorted(k.lstrip('.') for k in kinds)) or 'unknown'
    return bag.suffix.lstrip('.')


def _fix_hint(bag: Path) -> str:
    if bag.is_dir() and (bag / '.recording').exists():
        return f'the recording was cut off: run `recover_bag {bag}` first'
    return ('check that it is a rosbag2 bag directory (metadata.yaml + .mcap/.db3 files) or a single '
            '.mcap/.db3 file; a cut-off cobra_logger bag is repaired with `recover_bag`')


def read_bag(path: str | Path) -> BagData:
    """Everything the report uses from one bag, in one pass (BagError names the file on failure)."""
    bag = Path(path)
    if not bag.exists():
        raise BagError(f'{bag}: no such bag (give a bag directory or a .mcap/.db3 file)')
    try:
        return _read(bag)
    except BagError:
        raise
    except Exception as error:  # noqa: BLE001 - rosbags/mcap/sqlite raise many kinds for a broken file
        text = ' '.join(str(error).split())  # one line, also for multi-line YAML errors
        raise BagError(f'{bag}: cannot read the bag ({type(error).__name__}: {text}); {_fix_hint(bag)}') \
            from error


def _read(bag: Path) -> BagData:
    with AnyReader([bag], default_typestore=_TYPESTORE) as reader:
        connections = list(reader.connections)
        counts: dict[str, int] = {}
        for connection in connections:
            counts[connection.topic] = counts.get(connection.topic, 0) + connection.msgcount
        if not connections or sum(counts.values()) == 0:
            raise BagError(f'{bag}: the bag holds no messages (an empty or aborted recording); '
                           'record a run first')
        wanted: dict[int, str] = {}
        truth = [c for c in connections if matches(c.topic, TRUTH_ODOM)]
        for connection in connections:
            topic = connection.topic
            for name in (JOINT_STATES, JOINT_COMMANDS, TRUTH_ODOM, ODOM, HEIGHTMAP, LATCH_STATE,
                         TUMBLE_STATE, DIAGNOSTICS):
                if matches(topic, name):
                    wanted[connection.id] = name
                    break
            else:
                if contact_link(topic) is not None and connection.msgtype == 'geometry_msgs/msg/WrenchStamped':
                    wanted[connection.id] = CONTACT_PREFIX
        states, commands = _JointAccumulator(), _JointAccumulator()
        odometry: dict[str, list[Any]] = {TRUTH_ODOM: [], ODOM: []}
        wrenches: dict[str, list[tuple[float, float, float, float]]] = {}
        clouds: list[tuple[float, Any]] = []
        events: dict[str, tuple[list[float], list[Any]]] = {LATCH_STATE: ([], []), TUMBLE_STATE: ([], [])}
        diagnostics: dict[str, str] = {}
        chosen = [c for c in connections if c.id in wanted]
        if not any(wanted.get(c.id) != DIAGNOSTICS and c.msgcount for c in chosen):
            raise BagError(f"{bag}: none of the topics the report reads has a message (it reads {', '.join(READ_TOPICS)}); "
                           f"the bag has {', '.join(sorted(counts)) or 'no topics'}")
        for connection, timestamp_ns, raw in reader.messages(connections=chosen):
            kind = wanted[connection.id]
            message = reader.deserialize(raw, connection.msgtype)
            if kind == JOINT_STATES:
                states.add(message)
            elif kind == JOINT_COMMANDS:
                commands.add(message)
            elif kind in odometry:
                odometry[kind].append(message)
            elif kind == CONTACT_PREFIX:
                force = message.wrench.force
                wrenches.setdefault(contact_link(connection.topic) or '', []).append(
                    (_stamp_s(message.header.stamp), force.x, force.y, force.z))
            elif kind == HEIGHTMAP:
                clouds.append((_stamp_s(message.header.stamp), message))
            elif kind in events:
                events[kind][0].append(timestamp_ns * 1e-9)
                events[kind][1].append(message.data)
            elif kind == DIAGNOSTICS:
                for status in message.status:
                    for value in status.values:
                        if value.key in _DIAGNOSTIC_KEYS:
                            diagnostics[value.key] = value.value
        start_s, duration_s = reader.start_time * 1e-9, reader.duration * 1e-9
        has_clock = any(matches(c.topic, CLOCK) for c in connections)
    truth_series = _pose_series(truth[0].topic, odometry[TRUTH_ODOM]) if truth else None
    odom_topic = next((c.topic for c in connections if wanted.get(c.id) == ODOM), ODOM)
    odom_series = _pose_series(odom_topic, odometry[ODOM])
    contact: dict[str, WrenchSeries] = {}
    for link, rows in wrenches.items():
        array = np.array(rows)
        array = array[np.argsort(array[:, 0], kind='stable')]
        contact[link] = WrenchSeries(link, array[:, 0], array[:, 1:])

    def event_series(kind: str) -> EventSeries | None:
        times, values = events[kind]
        return EventSeries(np.array(times), values) if times else None

    return BagData(
        path=bag, name=bag.name, storage=_storage(bag), duration_s=duration_s, start_s=start_s,
        message_counts=counts, custom_data=read_custom_data(bag),
        joint_states=states.series(), joint_commands=commands.series(),
        head=truth_series or odom_series, odom=odom_series if truth_series is not None else None,
        contact_forces=contact, heightmap=_heightmap(bag, clouds),
        latch_state=event_series(LATCH_STATE), tumble_state=event_series(TUMBLE_STATE),
        diagnostics=diagnostics, has_clock=has_clock)


def gait_parameters(custom_data: dict[str, str]) -> dict[str, Any]:
    """The `cobra.gait.<name>` entries of custom_data, numbers parsed (see README)."""
    parameters: dict[str, Any] = {}
    for key, text in custom_data.items():
        if key.startswith(CUSTOM_DATA_PREFIX + 'gait.'):
            name = key[len(CUSTOM_DATA_PREFIX + 'gait.'):]
            try:
                parameters[name] = float(text) if re.fullmatch(r'[-+0-9.eE]+', text) else text
            except ValueError:
                parameters[name] = text
    return parameters

