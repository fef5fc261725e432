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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from cobra_common import cdr
from cobra_common.bags import BagReadError, open_bag, read_custom_data, stamp_s, storage_of
from cobra_common.bags import topic_matches as matches
from cobra_common.heightmap_cloud import HeightmapCloudError, cloud_points
from cobra_common.interface_types import CONTACT_FORCES_TOPIC, CONTACT_WRENCHES
from cobra_common.rotations import yaw_from_quaternion

JOINT_STATES = 'joint_states'
JOINT_COMMANDS = 'joint_commands'
ODOM = 'odom'
TRUTH_ODOM = 'ground_truth/odom'
CONTACT_PREFIX = 'contact/forces'  # older bags (and the sim's contact_forces_per_link): one WrenchStamped topic per link
CONTACT_ALL = CONTACT_FORCES_TOPIC   # the sim's every-link cobra_interfaces/ContactWrenches
_CONTACT_ALL_KIND = 'contact/forces (every link)'  # its kind key: the topic name is CONTACT_PREFIX's too
HEIGHTMAP = 'terrain/heightmap'
LATCH_STATE = 'latch/state'
TUMBLE_STATE = 'tumble/state'
DIAGNOSTICS = 'diagnostics'
CLOCK = 'clock'
READ_TOPICS = ('joint_commands', 'joint_states', 'odom', 'ground_truth/odom', 'contact/forces',
               'terrain/heightmap', 'latch/state', 'tumble/state')
CUSTOM_DATA_PREFIX = 'cobra.'  # metadata.yaml custom_data keys this report reads (see README)
_BULK_KINDS = (JOINT_STATES, JOINT_COMMANDS, TRUTH_ODOM, ODOM, CONTACT_PREFIX, _CONTACT_ALL_KIND)
_DIAGNOSTIC_KEYS = ('terrain', 'terrain_file', 'robot', 'gait', 'slope_deg', 'start_xy_yaw')


BagError = BagReadError  # a bag that cannot be read; the text names the file and the fix


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
    """The environment's force on one link, in the link's axes (from contact/forces or an older
    bag's contact/forces/<link>); `link` without the sim's frame prefix."""
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
    warnings: list[str] = field(default_factory=list)  # shown on the page: data the report could not use


def contact_link(topic: str) -> str | None:
    """The link of a contact/forces/<link> topic, else None."""
    match = re.search(r'(?:^|/)contact/forces/([^/]+)$', topic.strip('/'))
    return match.group(1) if match else None


class _JointAccumulator:
    """JointState rows into columns by name (a message may name a subset, or another order)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def add_block(self, times_s: np.ndarray, names: tuple[str, ...], position: np.ndarray, velocity: np.ndarray,
                  effort: np.ndarray) -> None:
        """Rows that all name the same joints; a velocity/effort block of another width is NaN."""
        for name in names:
            if name not in self.names:
                self.names.append(name)
        columns = np.array([self.names.index(n) for n in names], dtype=int)
        rows, count = len(times_s), len(names)

        def fit(block: np.ndarray) -> np.ndarray:
            block = np.asarray(block, dtype=float).reshape(rows, -1)
            return block if block.shape[1] == count else np.full((rows, count), np.nan)

        self.blocks.append((np.asarray(times_s, dtype=float), columns, fit(position), fit(velocity), fit(effort)))

    def add(self, message: Any) -> None:
        self.add_block(np.array([stamp_s(message.header.stamp)]), tuple(message.name),
                       np.asarray(message.position, dtype=float)[None], np.asarray(message.velocity, dtype=float)[None],
                       np.asarray(message.effort, dtype=float)[None])

    def series(self) -> JointSeries | None:
        if not self.blocks:
            return None
        total = sum(len(block[0]) for block in self.blocks)
        shape = (total, len(self.names))
        position, velocity, effort = (np.full(shape, np.nan) for _ in range(3))
        times = np.empty(total)
        row = 0
        for block_times, columns, p, v, e in self.blocks:
            rows = slice(row, row + len(block_times))
            times[rows] = block_times
            position[rows, columns], velocity[rows, columns], effort[rows, columns] = p, v, e
            row += len(block_times)
        order = np.argsort(times, kind='stable')
        return JointSeries(times[order], tuple(self.names), position[order], velocity[order], effort[order])


def _joint_reference(message: Any) -> dict[str, np.ndarray]:
    return {name: np.asarray(getattr(message, name), dtype=float) for name in ('position', 'velocity', 'effort')}


def _odometry_reference(message: Any) -> dict[str, np.ndarray]:
    pose, twist = message.pose, message.twist
    return {'pose': np.array([pose.pose.position.x, pose.pose.position.y, pose.pose.position.z,
                              pose.pose.orientation.x, pose.pose.orientation.y, pose.pose.orientation.z,
                              pose.pose.orientation.w]),
            'pose_covariance': np.asarray(pose.covariance, dtype=float),
            'twist': np.array([twist.twist.linear.x, twist.twist.linear.y, twist.twist.linear.z,
                               twist.twist.angular.x, twist.twist.angular.y, twist.twist.angular.z]),
            'twist_covariance': np.asarray(twist.covariance, dtype=float)}


def _wrench_reference(message: Any) -> dict[str, np.ndarray]:
    force, torque = message.wrench.force, message.wrench.torque
    return {'wrench': np.array([force.x, force.y, force.z, torque.x, torque.y, torque.z])}


def _contact_wrenches_reference(message: Any) -> dict[str, np.ndarray]:
    return {'wrenches': np.array([[w.force.x, w.force.y, w.force.z, w.torque.x, w.torque.y, w.torque.z]
                                  for w in message.wrenches]).reshape(-1)}


def _link_name(frame: str) -> str:
    """'cobra/link_3' -> 'link_3': the sim prefixes its link names with frame_prefix."""
    return frame.rsplit('/', 1)[-1]


class _ContactAccumulator:
    """Per-link force rows from either contact format, merged in time order."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[list[np.ndarray], list[np.ndarray]]] = {}

    def add(self, link: str, stamps_s: np.ndarray, force_n: np.ndarray) -> None:
        times, forces = self.rows.setdefault(link, ([], []))
        times.append(stamps_s)
        forces.append(force_n.reshape(-1, 3))

    def series(self) -> dict[str, WrenchSeries]:
        contact = {}
        for link, (times, forces) in self.rows.items():
            stamps = np.concatenate(times)
            order = np.argsort(stamps, kind='stable')
            contact[link] = WrenchSeries(link, stamps[order], np.concatenate(forces)[order])
        return contact


def _decode_rows(raws: list[bytes], msgtype: str, deserialize: Callable[[bytes, str], Any],
                 layout_of: Callable[[bytes], cdr.Layout],
                 reference: Callable[[Any], dict[str, np.ndarray]]) -> tuple[list[cdr.BulkResult], list[Any]]:
    """Bulk-decoded row groups, and the leftover messages decoded one by one."""
    results, leftover = cdr.decode_bulk(raws, layout_of, lambda raw: reference(deserialize(raw, msgtype)))
    return results, [deserialize(raws[i], msgtype) for i in leftover]


def _vector_rows(results: list[cdr.BulkResult], messages: list[Any], block: str,
                 reference: Callable[[Any], dict[str, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """(stamps, values of `block`) of bulk rows and single messages together, in time order."""
    times = [r.stamps_s for r in results] + [np.array([stamp_s(m.header.stamp)]) for m in messages]
    values = [r.values[block] for r in results] + [reference(m)[block][None] for m in messages]
    stamps, rows = np.concatenate(times), np.concatenate(values)
    order = np.argsort(stamps, kind='stable')
    return stamps[order], rows[order]


def _pose_series(topic: str, stamps: np.ndarray, pose: np.ndarray, twist: np.ndarray) -> PoseSeries | None:
    if len(stamps) == 0:
        return None
    return PoseSeries(topic, stamps, pose[:, :3], np.unwrap(yaw_from_quaternion(pose[:, 3:7])),
                      twist[:, :3], twist[:, 3:])


class _HeightmapAccumulator:
    """terrain/heightmap clouds folded as they arrive (a 10-minute SCM bag holds ~1200 clouds of
    thousands of nodes): the deepest sinkage per node (x, y on a 0.1 mm key) and the last cloud."""

    KEY_SCALE = 1e4  # 0.1 mm

    def __init__(self, bag: Path) -> None:
        self.bag = bag
        self.times: list[float] = []
        self.keys = np.zeros(0, dtype=np.int64)
        self.deepest = np.zeros(0)
        self.last: dict[str, np.ndarray] = {}

    def add(self, message: Any) -> None:
        try:
            cloud = cloud_points([(f.name, f.offset, f.datatype) for f in message.fields], message.point_step,
                                 bytes(message.data), message.width, message.height, message.is_bigendian)
        except HeightmapCloudError as error:
            raise BagError(f'{self.bag}: terrain/heightmap: {error} (was it recorded from a cobra_sim SCM run?)') \
                from error
        self.times.append(stamp_s(message.header.stamp))
        self.last = cloud
        keys = (np.round(cloud['x'] * self.KEY_SCALE).astype(np.int64) << 32) + \
            (np.round(cloud['y'] * self.KEY_SCALE).astype(np.int64) & 0xFFFFFFFF)
        merged_keys, inverse = np.unique(np.concatenate([self.keys, keys]), return_inverse=True)
        deepest = np.full(len(merged_keys), -np.inf)
        np.maximum.at(deepest, inverse, np.concatenate([self.deepest, cloud['sinkage']]))
        self.keys, self.deepest = merged_keys, deepest

    def result(self) -> Heightmap | None:
        if not self.times:
            return None
        x = (self.keys >> 32).astype(float) / self.KEY_SCALE
        y = (self.keys & 0xFFFFFFFF).astype(np.uint32).view(np.int32).astype(float) / self.KEY_SCALE
        last = self.last
        return Heightmap(np.array(self.times), np.column_stack([last['x'], last['y'], last['z']]), last['sinkage'],
                         np.column_stack([x, y]), self.deepest)


def read_bag(path: str | Path) -> BagData:
    """Everything the report uses from one bag, in one pass (BagError names the file on failure)."""
    bag = Path(path)
    with open_bag(bag) as reader:
        connections = list(reader.connections)
        counts: dict[str, int] = {}
        for connection in connections:
            counts[connection.topic] = counts.get(connection.topic, 0) + connection.msgcount
        if not connections or sum(counts.values()) == 0:
            raise BagError(f'{bag}: the bag holds no messages (an empty or aborted recording); '
                           'record a run first')
        wanted: dict[int, str] = {}
        for connection in connections:
            topic = connection.topic
            for name in (JOINT_STATES, JOINT_COMMANDS, TRUTH_ODOM, ODOM, HEIGHTMAP, LATCH_STATE,
                         TUMBLE_STATE, DIAGNOSTICS):
                if matches(topic, name):
                    wanted[connection.id] = name
                    break
            else:
                if matches(topic, CONTACT_ALL) and connection.msgtype == CONTACT_WRENCHES:
                    wanted[connection.id] = _CONTACT_ALL_KIND
                elif contact_link(topic) is not None and connection.msgtype == 'geometry_msgs/msg/WrenchStamped':
                    wanted[connection.id] = CONTACT_PREFIX
        raws: dict[int, list[bytes]] = {}  # high-rate topics: decoded in bulk after the pass
        heightmap = _HeightmapAccumulator(bag)
        events: dict[str, tuple[list[float], list[Any]]] = {LATCH_STATE: ([], []), TUMBLE_STATE: ([], [])}
        diagnostics: dict[str, str] = {}
        chosen = [c for c in connections if c.id in wanted]
        if not any(wanted.get(c.id) != DIAGNOSTICS and c.msgcount for c in chosen):
            raise BagError(f"{bag}: none of the topics the report reads has a message (it reads "
                           f"{', '.join(READ_TOPICS)}); the bag has {', '.join(sorted(counts)) or 'no topics'}")
        for connection, timestamp_ns, raw in reader.messages(connections=chosen):
            kind = wanted[connection.id]
            if kind in _BULK_KINDS:
                raws.setdefault(connection.id, []).append(raw)
                continue
            message = reader.deserialize(raw, connection.msgtype)
            if kind == HEIGHTMAP:
                heightmap.add(message)
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
        states, commands = _JointAccumulator(), _JointAccumulator()
        odometry: dict[str, tuple[str, list[np.ndarray], list[np.ndarray], list[np.ndarray]]] = {}
        contact = _ContactAccumulator()
        for connection in chosen:
            kind, rows = wanted[connection.id], raws.get(connection.id)
            if not rows:
                continue
            if kind in (JOINT_STATES, JOINT_COMMANDS):
                target = states if kind == JOINT_STATES else commands
                results, singles = _decode_rows(rows, connection.msgtype, reader.deserialize,
                                                cdr.joint_state_layout, _joint_reference)
                for result in results:
                    target.add_block(result.stamps_s, tuple(reader.deserialize(result.template, connection.msgtype).name),
                                     result.values['position'], result.values['velocity'], result.values['effort'])
                for message in singles:
                    target.add(message)
            elif kind in (TRUTH_ODOM, ODOM):
                results, singles = _decode_rows(rows, connection.msgtype, reader.deserialize,
                                                cdr.odometry_layout, _odometry_reference)
                stamps, pose = _vector_rows(results, singles, 'pose', _odometry_reference)
                _, twist = _vector_rows(results, singles, 'twist', _odometry_reference)
                entry = odometry.setdefault(kind, (connection.topic, [], [], []))
                entry[1].append(stamps)
                entry[2].append(pose)
                entry[3].append(twist)
            elif kind == CONTACT_PREFIX:
                results, singles = _decode_rows(rows, connection.msgtype, reader.deserialize,
                                                cdr.wrench_layout, _wrench_reference)
                stamps, wrench = _vector_rows(results, singles, 'wrench', _wrench_reference)
                contact.add(contact_link(connection.topic) or connection.topic, stamps, wrench[:, :3])
            elif kind == _CONTACT_ALL_KIND:
                results, singles = _decode_rows(rows, connection.msgtype, reader.deserialize,
                                                cdr.contact_wrenches_layout, _contact_wrenches_reference)
                blocks = [(reader.deserialize(r.template, connection.msgtype).link_names, r.stamps_s,
                           r.values['wrenches']) for r in results]
                blocks += [(m.link_names, np.array([stamp_s(m.header.stamp)]),
                            _contact_wrenches_reference(m)['wrenches'][None]) for m in singles]
                for names, stamps, wrenches in blocks:
                    per_link = wrenches.reshape(len(stamps), len(names), 6)
                    for index, name in enumerate(names):
                        contact.add(_link_name(name), stamps, per_link[:, index, :3])

    def pose_of(kind: str) -> PoseSeries | None:
        if kind not in odometry:
            return None
        topic, stamps, pose, twist = odometry[kind]
        times = np.concatenate(stamps)
        order = np.argsort(times, kind='stable')
        return _pose_series(topic, times[order], np.concatenate(pose)[order], np.concatenate(twist)[order])

    truth_series, odom_series = pose_of(TRUTH_ODOM), pose_of(ODOM)

    def event_series(kind: str) -> EventSeries | None:
        times, values = events[kind]
        return EventSeries(np.array(times), values) if times else None

    warnings = []
    if bag.is_dir() and (bag / '.recording').is_dir():
        warnings.append(f'{bag} has an open split in .recording/ (a recording cut off): its messages are not in '
                        f'this report; run `python -m cobra_logger.recover {bag}` to add them')
    return BagData(
        warnings=warnings,
        path=bag, name=bag.name, storage=storage_of(bag), duration_s=duration_s, start_s=start_s,
        message_counts=counts, custom_data=read_custom_data(bag),
        joint_states=states.series(), joint_commands=commands.series(),
        head=truth_series or odom_series, odom=odom_series if truth_series is not None else None,
        contact_forces=contact.series(), heightmap=heightmap.result(),
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

