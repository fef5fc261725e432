"""Logger node: records the configured topics, as received (serialized CDR), into a split MCAP bag.

Each topic is subscribed once its type and publishers are seen in the graph, with a QoS
compatible with those publishers (cobra_logger.topic_qos); messages are taken raw (no
deserialization) straight from rcl in the shared loop (cobra_common.node_runtime) and written
with the log time and hold-backs of cobra_logger.recorder: with use_sim_time the logger reads
sim time from the recorded header stamps, never from /clock (1 kHz of it, each sample ~25 µs of
the sim's CPU to deliver). The newest joint_states stamp written goes out on `logger/progress`,
so a lockstepped sim never outruns the recorder. SIGINT and SIGTERM end the loop between writes;
the messages already received are drained, the open split is closed and the counts are logged.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rcl_interfaces.msg import SetParametersResult
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.clock import Clock, ClockType
from rclpy.exceptions import ParameterException, ParameterUninitializedException
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.subscription import Subscription
from rosgraph_msgs.msg import Clock as ClockMsg

from cobra_common.cdr import RawClock
from cobra_common.node_runtime import (NodeLoop, Wait, declare_table, run_node, take_all, take_over_sim_time,
                                       validate_update, yield_on_wakeup)
from cobra_common.ros_entry import StartupError, describe
from cobra_logger.bag_metadata import CustomDataError, parse_custom_data
from cobra_logger.logger_config import (CUSTOM_DATA, PARAMETER_BY_NAME, PROGRESS_TOPIC, RUNTIME_PARAMETERS,
                                        bag_path_problem, parameters)
from cobra_logger.recorder import HOUSEKEEPING_TOPICS, Recorder, existing_ancestor
from cobra_logger.split_bag import BagExistsError, SplitBagWriter, UnknownMessageTypeError
from cobra_logger.topic_qos import bag_qos, message_class, subscription_qos

ROTATION_CHECK_PERIOD_S = 0.1
BYTES_PER_MB = 1_000_000
NAMESPACE_WILDCARD = '/*'  # a topics entry 'ns/*' records every topic below ns
PROGRESS_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
POLL_PERIOD_S = 0.001  # idle wait between two passes over the subscriptions
EXECUTOR_PERIOD_S = 0.01  # timers and services; their own periods are >= 0.05 s


def declare_custom_data(node: Node) -> dict[str, str]:
    """The read-only string array `custom_data` (`key=value` entries) as the bag's custom_data map.

    Declared by type, not by an empty default: rclpy would type `[]` as a byte array and then
    refuse every list of strings; unset (or `[]` given) is no custom_data."""
    descriptor = describe(CUSTOM_DATA.description, read_only=True)
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
    values = declare_table(node, parameters(), RUNTIME_PARAMETERS)
    values['custom_data'] = declare_custom_data(node)
    if (problem := bag_path_problem(values['bag_path'])) is not None:
        raise StartupError(problem)
    return values


class LoggerNode(Node):
    def __init__(self) -> None:
        super().__init__('logger')
        values = declare_parameters(self)
        sim_time = take_over_sim_time(self)  # sim time comes from the recorded headers (recorder), not /clock
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
        self._inputs: list[tuple[Subscription, Callable[[bytes], None]]] = []  # (subscription, its callback)
        self._failed_topics: set[str] = set()
        progress_topic = self.resolve_topic_name(values['progress_topic']) if values['progress_topic'] else None
        self._progress_pub = self.create_publisher(ClockMsg, PROGRESS_TOPIC, PROGRESS_QOS) \
            if progress_topic else None
        self._progress_message = RawClock()  # sent as ready CDR bytes: once per round in lockstep
        self.recorder = Recorder(self._writer.write, sim_time, progress_topic)
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)
        # The bag writer is not thread-safe: every callback touching it is in this one group.
        self._bag_io_group = MutuallyExclusiveCallbackGroup()
        steady = Clock(clock_type=ClockType.STEADY_TIME)  # keeps running when sim time is paused
        self.create_timer(values['discovery_period_s'], self._discover, self._bag_io_group, clock=steady)
        self.create_timer(ROTATION_CHECK_PERIOD_S, self._writer.rotate_if_due, self._bag_io_group, clock=steady)
        self.announcement = (f"recording {self._wanted_topics + patterns} to {values['bag_path']} "
                             f"(splits of {values['split_duration_s']:g} s / {values['split_size_mb']:g} MB)")
        self._discover()

    @property
    def recorded_message_count(self) -> int:
        return sum(self._writer.message_counts.values())

    def _validate_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        return validate_update(PARAMETER_BY_NAME, parameters)

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
                self.recorder.stamped_topics.add(topic)
            def on_message(data: bytes, topic: str = topic) -> None:
                self.recorder.message(topic, data)
            self._subscriptions_by_topic[topic] = subscription = self.create_subscription(
                msg_class, topic, on_message, subscription_qos(profiles), callback_group=self._bag_io_group, raw=True)
            self._inputs.append((subscription, on_message))
            self.get_logger().info(f'recording {topic} [{msgtype}]')

    def take_pending(self) -> int:
        """Record every message already queued for the subscriptions; returns how many."""
        return sum(take_all(subscription, on_message, raw=True) for subscription, on_message in self._inputs)

    def record_round(self) -> int:
        """Take what is queued, then announce progress (any new value once caught up); how many taken."""
        taken = self.take_pending()
        progress_ns = self.recorder.progress_due(caught_up=taken == 0) if self._progress_pub else None
        if progress_ns is not None:
            self._progress_message.set_stamp_ns(progress_ns)
            self._progress_pub.handle.publish_raw(self._progress_message.to_bytes())
        return taken

    def step(self) -> Wait:
        """One loop round: poll (POLL_PERIOD_S) when nothing was queued, else go on at once."""
        return Wait(POLL_PERIOD_S if self.record_round() == 0 else 0.0, in_executor=False)

    def finish(self) -> None:
        """Close the bag and log what was recorded."""
        self.recorder.finish()
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
        elif self.recorder.rosout_backlog:
            logger.info(f'only {", ".join(HOUSEKEEPING_TOPICS)} messages received '
                        f'({len(self.recorder.rosout_backlog)}); no bag written at {self._writer.bag_dir}')
        else:
            logger.info(f'no message received; no bag written at {self._writer.bag_dir}')


def spin_until_stopped(node: LoggerNode) -> None:
    """Record until SIGINT/SIGTERM, then drain what is still queued and close the bag.

    The executor (timers, parameter services) runs every EXECUTOR_PERIOD_S: a round costs ~0.3 ms
    with two dozen subscriptions, more than writing a message. A stop signal only ends the loop
    (node_runtime), so it never interrupts a write half-way. 'recording ...' is logged from inside
    the loop: from then on a stop always ends with the summary (and the bag closed).
    """
    try:
        with NodeLoop(node, EXECUTOR_PERIOD_S) as loop:
            node.get_logger().info(node.announcement)
            loop.run(node.step)
            loop.drain(node.record_round)
    finally:
        node.finish()


def main(args: Sequence[str] | None = None) -> int:
    yield_on_wakeup()  # a recorder may lag: it must not preempt the sim per message (node_runtime)
    return run_node(LoggerNode, args, spin=spin_until_stopped)


if __name__ == '__main__':
    raise SystemExit(main())
