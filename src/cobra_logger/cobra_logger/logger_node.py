"""Logger node: records the configured topics, as received (serialized CDR), into a split MCAP bag.

Each topic is subscribed once its type and publishers are seen in the graph, with a QoS
compatible with those publishers; messages are taken raw (no deserialization) and stamped with
the node clock, so with use_sim_time they carry sim time like `ros2 bag record --use-sim-time`.
SIGINT and SIGTERM stop the spin loop between callbacks (never inside a write), the messages
already received are drained, the open split is closed and the per-topic counts are logged.

The loop polls: every POLL_PERIOD_S it takes what is queued on every subscription straight from
rcl (take_message, raw) and writes it; the executor (timers, parameter services) runs only every
EXECUTOR_PERIOD_S. An executor round costs ~0.3 ms with two dozen subscriptions, more than
writing a message. With use_sim_time the logger does not subscribe to /clock at all (1 kHz of
sim time, each sample ~25 µs of the sim's CPU to deliver and more of ours to take): sim time is
the newest header stamp of the recorded messages, which for the sim's topics is the /clock value
they were published at; a message without a header is logged at the newest such stamp (one
that came before any stamp, at the first: a sim stamping wall-clock dates must not start the bag
in 1970). The newest `progress_topic` (joint_states) header stamp written
goes out on `logger/progress` once it advanced PROGRESS_STEP_NS or the logger has caught up, so a
lockstepped sim never outruns the recorder. /rosout alone does not make a bag: its messages are
held back (at most ROSOUT_BACKLOG) until a message of another recorded topic arrives.
"""

from __future__ import annotations

import gc
import importlib
import os
import signal
import tempfile
import threading
import time
from collections import deque
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from types import FrameType
from typing import Any

from rcl_interfaces.msg import SetParametersResult
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.clock import Clock, ClockType
from rclpy.duration import Duration
from rclpy.exceptions import ParameterException, ParameterUninitializedException
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.subscription import Subscription
from rosgraph_msgs.msg import Clock as ClockMsg
from rosbags.interfaces import Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime

from cobra_common.cdr import leading_stamp_ns
from cobra_common.ros_entry import declare, describe, run_node, StartupError
from cobra_logger.bag_metadata import CustomDataError, parse_custom_data
from cobra_logger.split_bag import BagExistsError, SplitBagWriter, UnknownMessageTypeError

DEFAULT_TOPICS = [
    'joint_commands', 'joint_states', 'imu/data', 'odom', 'ground_truth/odom', 'diagnostics',
    'latch/state', 'contact/forces', '/rosout',
]
SUBSCRIPTION_DEPTH = 1000  # 2 s of 500 Hz joint_states queued while a split is being closed
ROTATION_CHECK_PERIOD_S = 0.1
DRAIN_IDLE_ROUNDS = 3
DRAIN_POLL_S = 0.02
DRAIN_TIMEOUT_S = 2.0
BYTES_PER_MB = 1_000_000
RETUNABLE = ('split_duration_s', 'split_size_mb')
NAMESPACE_WILDCARD = '/*'  # a topics entry 'ns/*' records every topic below ns
PROGRESS_TOPIC = 'logger/progress'  # rosgraph_msgs/Clock: newest progress_topic stamp written
PROGRESS_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
PROGRESS_STEP_NS = 10_000_000  # publish progress after this much sim time (or when caught up)
POLL_PERIOD_S = 0.001  # idle wait between two passes over the subscriptions
EXECUTOR_PERIOD_S = 0.01  # timers and services; their own periods are >= 0.05 s
HOUSEKEEPING_TOPICS = ('/rosout',)  # recorded, but alone they do not make a bag
ROSOUT_BACKLOG = 1000  # /rosout messages held back until the bag starts (oldest dropped beyond)


def default_bag_path() -> str:
    return datetime.now(timezone.utc).strftime('bags/cobra_%Y_%m_%d-%H_%M_%S')


def _qos_time(duration: Duration) -> QosTime:
    sec, nsec = divmod(duration.nanoseconds, 1_000_000_000)
    return QosTime(sec, nsec)


def bag_qos(profile: QoSProfile) -> Qos:
    """A publisher's QoS as rosbag2 stores it in offered_qos_profiles."""
    return Qos(
        QosHistory.__members__.get(profile.history.name, QosHistory.UNKNOWN),
        profile.depth,
        QosReliability.__members__.get(profile.reliability.name, QosReliability.UNKNOWN),
        QosDurability.__members__.get(profile.durability.name, QosDurability.UNKNOWN),
        _qos_time(profile.deadline),
        _qos_time(profile.lifespan),
        QosLiveliness.__members__.get(profile.liveliness.name, QosLiveliness.UNKNOWN),
        _qos_time(profile.liveliness_lease_duration),
        profile.avoid_ros_namespace_conventions,
    )


def subscription_qos(publisher_profiles: Sequence[QoSProfile]) -> QoSProfile:
    """Reliable / transient-local only where every publisher offers it, so all of them match."""
    reliable = all(p.reliability == ReliabilityPolicy.RELIABLE for p in publisher_profiles)
    latched = all(p.durability == DurabilityPolicy.TRANSIENT_LOCAL for p in publisher_profiles)
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST,
        depth=SUBSCRIPTION_DEPTH,
        reliability=ReliabilityPolicy.RELIABLE if reliable else ReliabilityPolicy.BEST_EFFORT,
        durability=DurabilityPolicy.TRANSIENT_LOCAL if latched else DurabilityPolicy.VOLATILE,
    )


def message_class(msgtype: str) -> Any:
    """The generated Python class of 'pkg/msg/Type' (rclpy needs it even for raw subscriptions)."""
    package, _, name = msgtype.split('/')
    return getattr(importlib.import_module(f'{package}.msg'), name)


def existing_ancestor(path: Path) -> Path:
    ancestor = path.absolute().parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    return ancestor


def unwritable_reason(bag_path: Path) -> str | None:
    """Why bag_path cannot be created (checked at startup; the directory appears on the first
    message), or None."""
    ancestor = existing_ancestor(bag_path)
    if not ancestor.is_dir():
        return f'{ancestor} is not a directory'
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f'{ancestor} is not writable'
    return None


def declare_custom_data(node: Node) -> dict[str, str]:
    """The read-only string array `custom_data` (`key=value` entries) as the bag's custom_data map.

    Declared by type, not by an empty default: rclpy would type `[]` as a byte array and then
    refuse every list of strings; unset (or `[]` given) is no custom_data."""
    descriptor = describe(
        "run provenance as 'key=value' strings, written into metadata.yaml's custom_data "
        "(the bringup fills cobra.gait.*, cobra.class, cobra.git_rev, ...); keys unique", read_only=True)
    try:
        parameter = node.declare_parameter('custom_data', Parameter.Type.STRING_ARRAY, descriptor)
        entries = parameter.value
    except ParameterUninitializedException:
        entries = []
    except (ParameterException, TypeError, ValueError) as error:  # a value that is not a string array
        given = getattr(node, '_parameter_overrides', {}).get('custom_data')
        raise StartupError(
            f"{node.get_name()}: parameter 'custom_data' = {given.value if given else None!r} has the wrong "
            "type: it must be a list of 'key=value' strings, e.g. custom_data:=\"['cobra.robot=cobra']\" "
            f'({error})') from None
    try:
        return parse_custom_data(entries or [])
    except CustomDataError as error:
        raise StartupError(f'{node.get_name()}: {error}') from None


def declare_parameters(node: Node) -> dict[str, Any]:
    """Declare every logger parameter; StartupError when the bag cannot be written or a
    custom_data entry is not `key=value` (values['custom_data'] is the parsed map)."""
    values = declare(node, {
        'topics': (DEFAULT_TOPICS, describe(
            'topics to record; relative names resolve in the node namespace; "ns/*" takes every '
            'topic below ns. /clock is not recorded unless listed here', read_only=True)),
        'bag_path': (default_bag_path(), describe(
            'bag directory to create (must not exist); default bags/cobra_<UTC time>', read_only=True)),
        'split_duration_s': (5.0, describe(
            'close the open file after this long [s] (wall clock); bounds the loss on SIGKILL',
            float_range=(0.1, 3600.0))),
        'split_size_mb': (64.0, describe(
            'close the open file once it holds this much message data [MB = 1e6 bytes]',
            float_range=(0.1, 100_000.0))),
        'discovery_period_s': (1.0, describe(
            'how often the graph is searched for configured topics not yet subscribed [s]',
            read_only=True, float_range=(0.05, 60.0))),
        'progress_topic': ('joint_states', describe(
            f'recorded topic whose newest header stamp is published on {PROGRESS_TOPIC} '
            '(a lockstepped sim waits for it); empty = no progress', read_only=True)),
    })
    values['custom_data'] = declare_custom_data(node)
    if not values['bag_path']:
        raise StartupError('bag_path is empty: set bag_path:=<new directory> or leave it unset')
    reason = unwritable_reason(Path(values['bag_path']))
    if reason:
        raise StartupError(f"bag_path {values['bag_path']} cannot be created: {reason} "
                           '(set bag_path:=<new directory in a writable place>)')
    if Path(values['bag_path']).exists():
        raise StartupError(f"bag path {values['bag_path']} exists already; choose a new bag path or "
                           'move the old bag away (set bag_path:=<new directory>)')
    return values


class LoggerNode(Node):
    def __init__(self) -> None:
        super().__init__('logger')
        values = declare_parameters(self)
        self._sim_time = bool(self.get_parameter('use_sim_time').value)
        self._sim_time_ns = 0  # newest header stamp recorded: 0 until the first, as rclpy's ROS clock
        self._stamped_topics: set[str] = set()  # topics whose messages open with a std_msgs/Header
        if self._sim_time:  # sim time comes from the recorded headers (module doc), not /clock
            self.set_parameters([Parameter('use_sim_time', value=False)])
        try:  # os.access says yes to root everywhere: try it, since the bag itself comes later
            probe = tempfile.mkdtemp(prefix='.cobra_logger_probe_', dir=existing_ancestor(Path(values['bag_path'])))
            os.rmdir(probe)
        except OSError as error:
            raise StartupError(f"bag_path {values['bag_path']} cannot be created: {error.strerror} "
                               '(set bag_path:=<new directory in a writable place>)') from error
        try:
            self._writer = SplitBagWriter(
                values['bag_path'], values['split_duration_s'],
                int(values['split_size_mb'] * BYTES_PER_MB), custom_data=values['custom_data'])
        except BagExistsError as error:
            raise StartupError(f'{error} (set bag_path:=<new directory>)') from error
        patterns = [t for t in values['topics'] if t.endswith(NAMESPACE_WILDCARD)]
        self._wanted_prefixes = [self.resolve_topic_name(t[:-len(NAMESPACE_WILDCARD)]) + '/'
                                 for t in patterns]
        self._wanted_topics = list(dict.fromkeys(self.resolve_topic_name(t) for t in values['topics']
                                                 if t not in patterns))
        self._subscriptions_by_topic: dict[str, Subscription] = {}
        self._failed_topics: set[str] = set()
        self._progress_topic = self.resolve_topic_name(values['progress_topic']) \
            if values['progress_topic'] else None
        self._progress_pub = self.create_publisher(ClockMsg, PROGRESS_TOPIC, PROGRESS_QOS) \
            if self._progress_topic else None
        self._progress_ns: int | None = None
        self._published_progress_ns: int | None = None
        self._progress_message = ClockMsg()
        self._bag_started = False
        self._rosout_backlog: deque[tuple[str, int, bytes]] = deque(maxlen=ROSOUT_BACKLOG)
        # sim time: messages that came before any header stamp (/rosout of the start-up, a latched
        # state); written at the first stamp, so a bag with a wall-clock origin does not begin in 1970
        self._unstamped_backlog: deque[tuple[str, bytes]] = deque(maxlen=ROSOUT_BACKLOG)
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)
        # The bag writer is not thread-safe: every callback touching it is in this one group.
        self._bag_io_group = MutuallyExclusiveCallbackGroup()
        steady = Clock(clock_type=ClockType.STEADY_TIME)  # keeps running when sim time is paused
        self.create_timer(values['discovery_period_s'], self._discover, self._bag_io_group, clock=steady)
        self.create_timer(ROTATION_CHECK_PERIOD_S, self._writer.rotate_if_due, self._bag_io_group, clock=steady)
        self.get_logger().info(
            f"recording {self._wanted_topics + patterns} to {values['bag_path']} "
            f"(splits of {values['split_duration_s']:g} s / {values['split_size_mb']:g} MB)")
        self._discover()

    @property
    def recorded_message_count(self) -> int:
        return sum(self._writer.message_counts.values())

    def _validate_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        for parameter in parameters:
            if parameter.name in RETUNABLE and not parameter.value > 0:
                return SetParametersResult(successful=False, reason=f'{parameter.name} must be > 0')
        return SetParametersResult(successful=True)

    def _apply_parameters(self, parameters: list[Parameter]) -> None:
        for parameter in parameters:
            if parameter.name == 'split_duration_s':
                self._writer.split_duration_s = parameter.value
            elif parameter.name == 'split_size_mb':
                self._writer.split_size_bytes = int(parameter.value * BYTES_PER_MB)

    def _discover(self) -> None:
        types_by_topic = dict(self.get_topic_names_and_types())
        self._wanted_topics += [t for t in types_by_topic if t not in self._wanted_topics
                                and any(t.startswith(prefix) for prefix in self._wanted_prefixes)]
        pending = [t for t in self._wanted_topics
                   if t not in self._subscriptions_by_topic and t not in self._failed_topics]
        for topic in pending:
            publishers = self.get_publishers_info_by_topic(topic)
            if topic not in types_by_topic or not publishers:
                continue
            msgtype = types_by_topic[topic][0]
            if len(types_by_topic[topic]) > 1:
                self.get_logger().warn(f'{topic} has several types {types_by_topic[topic]}; recording {msgtype}')
            profiles = [p.qos_profile for p in publishers]
            try:
                msg_class = message_class(msgtype)
                self._writer.add_topic(topic, msgtype, [bag_qos(p) for p in profiles])
            except (ImportError, AttributeError, ValueError) as error:
                self._failed_topics.add(topic)
                self.get_logger().error(
                    f'not recording {topic}: {error}' if isinstance(error, UnknownMessageTypeError) else
                    f'not recording {topic}: its Python message package for {msgtype} is not installed ({error})')
                continue
            if next(iter(msg_class.get_fields_and_field_types().values()), None) == 'std_msgs/Header':
                self._stamped_topics.add(topic)
            self._subscriptions_by_topic[topic] = self.create_subscription(
                msg_class, topic, lambda data, topic=topic: self._on_message(topic, data),
                subscription_qos(profiles), callback_group=self._bag_io_group, raw=True)
            self.get_logger().info(f'recording {topic} [{msgtype}]')

    def _on_message(self, topic: str, data: bytes) -> None:
        if not self._sim_time:
            timestamp_ns = time.time_ns()
        else:  # bag log time: the newest header stamp so far, this message's included
            if topic in self._stamped_topics and (stamp_ns := leading_stamp_ns(data)) is not None \
                    and stamp_ns > self._sim_time_ns:
                self._sim_time_ns = stamp_ns
            timestamp_ns = self._sim_time_ns
            if not timestamp_ns:  # sim time still unknown: log it at the first stamp (not at 1970)
                self._unstamped_backlog.append((topic, data))
                return
            while self._unstamped_backlog:
                self._record(*self._unstamped_backlog.popleft(), timestamp_ns)
        self._record(topic, data, timestamp_ns)

    def _record(self, topic: str, data: bytes, timestamp_ns: int) -> None:
        if not self._bag_started:
            if topic in HOUSEKEEPING_TOPICS:
                self._rosout_backlog.append((topic, timestamp_ns, data))
                return
            self._bag_started = True  # the first message that is worth a bag
            while self._rosout_backlog:
                self._writer.write(*self._rosout_backlog.popleft())
        self._writer.write(topic, timestamp_ns, data)
        if topic == self._progress_topic:
            stamp_ns = leading_stamp_ns(data)
            if stamp_ns is not None and (self._progress_ns is None or stamp_ns > self._progress_ns):
                self._progress_ns = stamp_ns

    def take_pending(self) -> int:
        """Write every message already queued for the subscriptions; returns how many."""
        taken = 0
        for topic, subscription in list(self._subscriptions_by_topic.items()):
            handle, msg_type = subscription.handle, subscription.msg_type
            while (message := handle.take_message(msg_type, True)) is not None:
                self._on_message(topic, message[0])
                taken += 1
        return taken

    def publish_progress(self, caught_up: bool) -> None:
        """Announce the newest progress_topic stamp written: after PROGRESS_STEP_NS of it, or
        any new value once nothing is queued (a reliable publish costs ~50 µs here)."""
        if self._progress_pub is None or self._progress_ns is None \
                or self._progress_ns == self._published_progress_ns:
            return
        if not caught_up and self._published_progress_ns is not None \
                and self._progress_ns - self._published_progress_ns < PROGRESS_STEP_NS:
            return
        self._published_progress_ns = self._progress_ns
        self._progress_message.clock.sec, self._progress_message.clock.nanosec = \
            divmod(self._progress_ns, 1_000_000_000)
        self._progress_pub.publish(self._progress_message)

    def drain(self, executor: SingleThreadedExecutor) -> None:
        """Take what is already queued for our subscriptions, until nothing arrives for a while."""
        deadline = time.monotonic() + DRAIN_TIMEOUT_S
        idle_rounds = 0
        while idle_rounds < DRAIN_IDLE_ROUNDS and time.monotonic() < deadline:
            executor.spin_once(timeout_sec=0.0)
            taken = self.take_pending()
            self.publish_progress(caught_up=taken == 0)
            idle_rounds = idle_rounds + 1 if taken == 0 else 0
            if taken == 0:
                time.sleep(DRAIN_POLL_S)

    def finish(self) -> None:
        """Close the bag and log what was recorded."""
        while self._unstamped_backlog:  # no header stamp ever came: sim time 0 is all there is
            self._record(*self._unstamped_backlog.popleft(), 0)
        self._writer.close()
        logger = self.get_logger()
        for topic in self._wanted_topics:
            if topic in self._failed_topics:
                logger.info(f'  {topic}: not recorded (type unavailable)')
            elif topic not in self._subscriptions_by_topic:
                logger.info(f'  {topic}: never published')
            else:
                logger.info(f'  {topic}: {self._writer.message_counts[topic]} messages')
        if self._writer.closed_files:
            logger.info(f'bag {self._writer.bag_dir}: {self.recorded_message_count} messages in '
                        f'{len(self._writer.closed_files)} files')
        elif self._rosout_backlog:
            logger.info(f'only {", ".join(HOUSEKEEPING_TOPICS)} messages received '
                        f'({len(self._rosout_backlog)}); no bag written at {self._writer.bag_dir}')
        else:
            logger.info(f'no message received; no bag written at {self._writer.bag_dir}')


def spin_until_stopped(node: LoggerNode) -> None:
    """Spin until SIGINT/SIGTERM, then drain and close the bag.

    The signal handlers only set a flag, so a stop never interrupts a write half-way, and the
    context stays up (rclpy's own handlers would shut it down) to take what is still queued.
    """
    stop_requested = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop_requested.set()

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    gc.freeze()  # the start-up heap (rclpy, rosbags, the typestore) is never garbage: keep the GC off it
    next_executor_round = 0.0
    try:
        while not stop_requested.is_set():
            now = time.monotonic()
            if now >= next_executor_round:
                executor.spin_once(timeout_sec=0.0)
                next_executor_round = now + EXECUTOR_PERIOD_S
            taken = node.take_pending()
            node.publish_progress(caught_up=taken == 0)
            if taken == 0:
                time.sleep(POLL_PERIOD_S)
        node.drain(executor)
    finally:
        node.finish()


def main(args: Sequence[str] | None = None) -> int:
    return run_node(LoggerNode, args, spin=spin_until_stopped)


if __name__ == '__main__':
    raise SystemExit(main())
