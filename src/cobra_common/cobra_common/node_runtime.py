"""The node runtime: the one hot loop, raw takes, stopping, peer waits, sim time and flushing.

Every COBRA node is a thin shell over a ROS-free core; this is the loop that shell runs (`NodeLoop`;
plain nodes spin with `spin_node`, the same loop without a step). Design notes: the package README,
"Node runtime".
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import ExitStack
from typing import Any, NamedTuple

import rclpy._rclpy_pybind11 as rcl
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.duration import Duration
from rclpy.exceptions import ParameterException, ParameterUninitializedException
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import ReliabilityPolicy
from rclpy.subscription import Subscription

from cobra_common.config_check import Setting
from cobra_common.ros_entry import (STARTUP_ERROR_EXIT_CODE, SPIN_WAKE_PERIOD_S, StartupError,  # noqa: F401
                                    declare, deferred_stop, describe, run_node, spin_node, stop_requested)

FLUSH_TIMEOUT_S = 1.0  # end of a finite run: longest wait for reliable subscribers to ack [s, wall]
DRAIN_IDLE_ROUNDS = 3  # a drain ends after this many rounds in a row took nothing ...
DRAIN_POLL_S = 0.02    # ... this long apart [s, wall] ...
DRAIN_TIMEOUT_S = 2.0  # ... or after this long in all [s, wall]


class Wait(NamedTuple):
    """What a step asks of the loop before the next step.

    timeout_s: the longest wait [s, wall] (0: step again at once, serving the executor only when
    its round is due). in_executor: wait inside an executor round (its callbacks run as their
    inputs arrive), or else on the loop's wake inputs alone, bounded by the next executor round.
    """

    timeout_s: float
    in_executor: bool = True


NO_WAIT = Wait(0.0)


def yield_on_wakeup() -> bool:
    """Schedule this process as SCHED_BATCH (same CPU share, no wake-up preemption): every thread
    it has (those imports started too) and, by inheritance, every thread started later (rclpy's
    DDS threads: call it before rclpy starts). False where the OS refuses.

    For a consumer that may lag (the logger, 50 ms of sim time in lockstep, queues 1000 deep):
    its DDS thread wakes for every message (~1 200 per sim second in lockstep) and, as a normal
    task, preempts the sim mid-step on a 2-core machine, which then refills its caches. As a
    batch task it runs on an idle core or at the next tick and takes more messages per round.
    Measured by scripts/bench/sim_bench.py (lockstep): sim CPU per sim second -11 %, logger -25 %.
    """
    try:
        threads = [int(task) for task in os.listdir('/proc/self/task')]
    except OSError:  # not Linux: the calling thread is all this can reach
        threads = [0]
    try:
        for thread in threads:
            os.sched_setscheduler(thread, os.SCHED_BATCH, os.sched_param(0))
    except (AttributeError, OSError):  # no such policy here, or one this process may not leave
        return False
    return True


def take_over_sim_time(node: Node) -> bool:
    """Whether use_sim_time was asked for; turns rclpy's own handling of it off.

    The nodes that run a loop take sim time themselves (the sim and DEM are the clock; the gait
    takes /clock raw; the logger reads header stamps): rclpy's TimeSource would run every /clock
    sample (1 kHz) through the executor.
    """
    requested = bool(node.get_parameter('use_sim_time').value)
    if requested:
        node.set_parameters([Parameter('use_sim_time', value=False)])
    return requested


def descriptor_of(setting: Setting, read_only: bool, allowed: str = '',
                  dynamic_typing: bool = False) -> ParameterDescriptor:
    """Description, range, read-only flag and typing of one row of a parameter table
    (cobra_common.config_check); `allowed` states the accepted values in words where the range
    cannot (an open end), for the error messages."""
    numeric = not isinstance(setting.default, bool) and setting.minimum is not None and setting.maximum is not None
    descriptor = describe(
        setting.description, read_only=read_only, allowed=allowed,
        float_range=(setting.minimum, setting.maximum) if numeric and isinstance(setting.default, float) else None,
        int_range=(int(setting.minimum), int(setting.maximum)) if numeric and isinstance(setting.default, int) else None)
    if setting.choices is not None and not allowed:
        descriptor.additional_constraints = f'one of {list(setting.choices)}'
    descriptor.dynamic_typing = dynamic_typing
    return descriptor


def declare_table(node: Node, table: Sequence[Setting], runtime: Collection[str],
                  allowed: Mapping[str, str] | None = None, dynamic: Collection[str] = ()) -> dict[str, Any]:
    """Declare every row of `table` (read-only unless named in `runtime`; ros_entry.declare: one
    StartupError for a refused value); `allowed` and `dynamic` by name, as descriptor_of takes them."""
    allowed = allowed or {}
    return declare(node, {setting.name: (setting.default, descriptor_of(
        setting, setting.name not in runtime, allowed.get(setting.name, ''), setting.name in dynamic))
        for setting in table})


def declare_array(node: Node, setting: Setting, parameter_type: Parameter.Type, example: str) -> list[Any]:
    """A read-only array parameter whose default is empty, declared by type: rclpy types a `[]`
    default as a byte array and then refuses every real list. Unset (or `[]` given) is []; a value
    of another type is one StartupError that shows `example` (e.g. "name:=[1.0, 2.0]")."""
    try:
        value = node.declare_parameter(setting.name, parameter_type,
                                       describe(setting.description, read_only=True)).value
    except ParameterUninitializedException:
        return []
    except (ParameterException, TypeError, ValueError) as error:  # a value that is not such an array
        given = getattr(node, '_parameter_overrides', {}).get(setting.name)
        raise StartupError(f"{node.get_name()}: parameter '{setting.name}' = {given.value if given else None!r} has "
                           f'the wrong type: it must be a list, e.g. {example} ({error})') from None
    return list(value or [])


def validate_update(table: Mapping[str, Setting], parameters: Sequence[Parameter]) -> SetParametersResult:
    """An on-set-parameters callback's answer: the table's text for the first value it refuses."""
    for parameter in parameters:
        setting = table.get(parameter.name)
        if setting is not None and (problem := setting.problem(parameter.value)) is not None:
            return SetParametersResult(successful=False, reason=problem)
    return SetParametersResult(successful=True)


def flush_publishers(node: Node, timeout_s: float = FLUSH_TIMEOUT_S) -> None:
    """Wait (bounded, all publishers together) until every reliable subscriber acked what was
    published: a process that exits right after publishing can take unsent samples with it."""
    deadline = time.monotonic() + timeout_s
    for publisher in node.publishers:
        if publisher.qos_profile.reliability == ReliabilityPolicy.RELIABLE:
            left_s = max(deadline - time.monotonic(), 0.0)
            publisher.wait_for_all_acked(Duration(nanoseconds=round(left_s * 1e9)))


def take_all(subscription: Subscription, on_message: Callable[[Any], None], raw: bool) -> int:
    """Hand every message queued on `subscription` to `on_message` straight from rcl (serialized
    bytes when `raw`), without an executor round (~2 µs when empty); returns how many."""
    handle, msg_type = subscription.handle, subscription.msg_type
    taken = 0
    while (message := handle.take_message(msg_type, raw)) is not None:
        on_message(message[0])
        taken += 1
    return taken


class NodeLoop:
    """A node's own loop: `with NodeLoop(node, period) as loop: loop.run(step, until)`.

    Inside the block a stop signal is a flag (deferred_stop), the start-up heap is frozen out of
    the garbage collector (MuJoCo, rclpy, numpy, the URDF are never garbage: a full collection
    over them costs milliseconds in the hot loop), and `wake_inputs` (subscriptions) can end a
    wait that does not go through the executor.
    """

    def __init__(self, node: Node, executor_period_s: float,
                 wake_inputs: Sequence[Subscription] = ()) -> None:
        self.node = node
        self.executor_period_s = executor_period_s
        self.wake_inputs = tuple(wake_inputs)
        self.executor = SingleThreadedExecutor(context=node.context)
        self._wait_set: Any = None
        self._scope = ExitStack()
        self._next_executor_round = 0.0

    def __enter__(self) -> NodeLoop:
        self.executor.add_node(self.node)
        self._scope.callback(self.executor.shutdown)
        self._scope.callback(self.executor.remove_node, self.node)
        self._scope.enter_context(deferred_stop())
        if self.wake_inputs:
            self._scope.enter_context(self.node.context.handle)
            for subscription in self.wake_inputs:
                self._scope.enter_context(subscription.handle)
            self._wait_set = rcl.WaitSet(len(self.wake_inputs), 0, 0, 0, 0, 0, self.node.context.handle)
        gc.freeze()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._scope.close()

    @property
    def running(self) -> bool:
        return self.node.context.ok() and not stop_requested()

    def run(self, step: Callable[[], Wait], until: Callable[[], bool] | None = None) -> bool:
        """Step until a stop signal, the end of the context or `until()`; True when `until()` ended it."""
        while self.running:
            wait = step()
            if until is not None and until():
                return True
            self.serve(wait)
        return until is not None and until()

    def serve(self, wait: Wait) -> None:
        """One executor round if due (or if the wait goes through it), then the rest of the wait."""
        now = time.monotonic()
        if now >= self._next_executor_round or (wait.in_executor and wait.timeout_s > 0.0):
            self.executor.spin_once(timeout_sec=wait.timeout_s if wait.in_executor else 0.0)
            self._next_executor_round = now + self.executor_period_s
            if wait.in_executor:
                return
        if wait.timeout_s <= 0.0:
            return
        left_s = min(wait.timeout_s, max(self._next_executor_round - time.monotonic(), 0.0))
        if self._wait_set is None:
            time.sleep(left_s)
            return
        self._wait_set.clear_entities()
        for subscription in self.wake_inputs:
            self._wait_set.add_subscription(subscription.handle)
        self._wait_set.wait(round(left_s * 1e9))

    def drain(self, take: Callable[[], int], idle_rounds: int = DRAIN_IDLE_ROUNDS,
              poll_s: float = DRAIN_POLL_S, timeout_s: float = DRAIN_TIMEOUT_S) -> None:
        """After a stop: executor rounds and `take()` (returns how many it took) until `idle_rounds`
        rounds in a row took nothing, `poll_s` apart, or `timeout_s` passed (the logger's last
        messages, already sent, are still in its queues)."""
        deadline = time.monotonic() + timeout_s
        idle = 0
        while idle < idle_rounds and time.monotonic() < deadline and self.node.context.ok():
            self.executor.spin_once(timeout_sec=0.0)
            taken = take()
            idle = idle + 1 if taken == 0 else 0
            if taken == 0:
                time.sleep(poll_s)
