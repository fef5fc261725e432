"""Node entry-point plumbing shared by the COBRA nodes: clean shutdown and clear startup errors.

Every node module uses it; libraries never import it (they stay testable without rclpy). `spin_node`
stops on the first SIGINT or SIGTERM; `StartupError` (exit code 2) and `declare` name the bad
parameter. Design notes: the package README, "cobra_common.ros_entry".
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import rclpy
from builtin_interfaces.msg import Time as TimeMsg
from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor, ParameterType
from rclpy.exceptions import ParameterException
from rclpy.executors import Executor, ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.signals import SignalHandlerOptions

from cobra_common.errors import STARTUP_ERROR_EXIT_CODE, StartupError  # noqa: F401 (re-exported)
from cobra_common.node_entry import (STOP, STOP_STACK_DUMP_ENV, STOP_STACK_DUMP_S,  # noqa: F401 (re-exported)
                                     install_stop_handlers, shield_cleanup)

SPIN_WAKE_PERIOD_S = 0.1  # longest wall time a signal waits for its Python handler while spinning

TYPE_NAMES = {
    ParameterType.PARAMETER_BOOL: 'a boolean (true/false)',
    ParameterType.PARAMETER_INTEGER: 'an integer',
    ParameterType.PARAMETER_DOUBLE: 'a floating-point number',
    ParameterType.PARAMETER_STRING: 'a string',
    ParameterType.PARAMETER_BYTE_ARRAY: 'a byte array',
    ParameterType.PARAMETER_BOOL_ARRAY: 'a list of booleans',
    ParameterType.PARAMETER_INTEGER_ARRAY: 'a list of integers',
    ParameterType.PARAMETER_DOUBLE_ARRAY: 'a list of floating-point numbers',
    ParameterType.PARAMETER_STRING_ARRAY: 'a list of strings',
}


class ParameterValueError(StartupError):
    """One parameter's value is refused by its descriptor: wrong type, out of range, not finite."""


def set_stamp(stamp: TimeMsg, t_s: float) -> TimeMsg:
    """Write t [s] into an existing Time message (hot loops reuse their messages)."""
    stamp.sec, stamp.nanosec = divmod(int(round(t_s * 1e9)), 1_000_000_000)
    return stamp


def stamp_seconds(stamp: TimeMsg) -> float:
    return stamp.sec + stamp.nanosec * 1e-9


def describe(description: str, *, read_only: bool = False,
             float_range: tuple[float, float] | None = None,
             int_range: tuple[int, int] | None = None, allowed: str = '') -> ParameterDescriptor:
    """allowed: the accepted values in words where the range cannot say it (an open end:
    '0 <= slope_deg < 90'); error messages then state it instead of the range."""
    descriptor = ParameterDescriptor(description=description, read_only=read_only)
    if allowed:
        descriptor.additional_constraints = allowed
    if float_range is not None:
        descriptor.floating_point_range = [
            FloatingPointRange(from_value=float(float_range[0]), to_value=float(float_range[1]))]
    if int_range is not None:
        descriptor.integer_range = [IntegerRange(from_value=int_range[0], to_value=int_range[1], step=1)]
    return descriptor


def range_text(descriptor: ParameterDescriptor) -> str:
    """The allowed values a descriptor states, for error messages ('' when it states none)."""
    if descriptor.additional_constraints and (descriptor.floating_point_range or descriptor.integer_range):
        return descriptor.additional_constraints
    if descriptor.floating_point_range:
        bounds = descriptor.floating_point_range[0]
        return f'[{bounds.from_value:g}, {bounds.to_value:g}]'
    if descriptor.integer_range:
        bounds = descriptor.integer_range[0]
        return f'[{bounds.from_value}, {bounds.to_value}]'
    return ''


def _given_value(node: Node, name: str) -> Any:
    """The override (-p or params file) rclpy tried to apply to `name`, if it can be read."""
    override = getattr(node, '_parameter_overrides', {}).get(name)
    return override.value if override is not None else None


def _parameter_error(node: Node, name: str, default: Any, descriptor: ParameterDescriptor,
                     error: Exception) -> ParameterValueError:
    given = _given_value(node, name)
    where = f"{node.get_name()}: parameter '{name}'"
    allowed = range_text(descriptor)
    type_name = TYPE_NAMES.get(Parameter(name, value=default).type_.value, type(default).__name__)
    if isinstance(default, float) and isinstance(given, int) and not isinstance(given, bool):
        type_name += f' (write {given}.0, not {given})'
    if 'type' in type(error).__name__.lower():
        return ParameterValueError(f'{where} = {given!r} has the wrong type: it must be {type_name}'
                            + (f' in {allowed}' if allowed else '') + f' (default {default!r})')
    if allowed:
        return ParameterValueError(f'{where} = {given!r} is out of range: allowed {allowed} '
                            f'(default {default!r})')
    return ParameterValueError(f'{where} = {given!r} is refused: {error}')


def declare(node: Node, specs: dict[str, tuple[Any, ParameterDescriptor]]) -> dict[str, Any]:
    """Declare a block of parameters and return their values by name.

    A value given by an override that rclpy refuses (wrong type, out of range) becomes a
    StartupError naming the node, the parameter, the value and what is allowed; a floating-point
    parameter must also be finite (an open range like [0, 1e6] already excludes inf and nan).
    """
    values = {}
    for name, (default, descriptor) in specs.items():
        try:
            values[name] = node.declare_parameter(name, default, descriptor).value
        except ParameterException as error:
            raise _parameter_error(node, name, default, descriptor, error) from None
        if isinstance(values[name], float) and not math.isfinite(values[name]):
            raise ParameterValueError(f"{node.get_name()}: parameter '{name}' = {values[name]!r} must be a "
                               f'finite number (default {default!r})')
    return values


_stop = STOP  # process-wide stop state, shared with the console entry points (node_entry)


def stop_requested() -> bool:
    """True once SIGINT or SIGTERM arrived (for nodes with a loop of their own)."""
    return _stop.requested


@contextmanager
def deferred_stop() -> Iterator[None]:
    """For a node's own spin loop: inside, a stop signal only sets stop_requested() (which the
    loop must check, with bounded waits) instead of raising KeyboardInterrupt mid-callback."""
    previous, _stop.deferred = _stop.deferred, True
    try:
        yield
    finally:
        _stop.deferred = previous


def init_with_stop_signals(args: Sequence[str] | None) -> None:
    """rclpy.init where the first SIGINT or SIGTERM stops the node from the main thread.

    rclpy's own handlers shut the context down asynchronously, which races with a spinning
    executor (it may fail building its wait set); stopping in the main thread lets the node
    run its shutdown (torque off, bag close) with a valid context. Inside `spin_node` the
    signal ends the spin after the running callback; elsewhere (say, while the node is being
    built) it raises KeyboardInterrupt. Also restores SIGINT, which a child started in the
    background by a non-interactive shell inherits as ignored.
    """
    rclpy.init(args=list(args) if args is not None else sys.argv,
               signal_handler_options=SignalHandlerOptions.NO)
    _stop.requested = False  # a stop before this point raised KeyboardInterrupt or ended the import
    install_stop_handlers()


def spin_node(node: Node, executor: Executor | None = None,
              until: Callable[[], bool] | None = None) -> None:
    """Spin until a stop signal, `until()` or the end of the context.

    Wakes at least every SPIN_WAKE_PERIOD_S of wall time (rcl_wait's timeout is steady time),
    so the Python signal handler runs even when nothing in the wait set is due, as with a
    sim-time timer while /clock is silent; a plain rclpy.spin blocks in rcl_wait then.
    """
    own_executor = executor is None
    with deferred_stop():
        if _stop.requested:
            return
        executor = SingleThreadedExecutor(context=node.context) if own_executor else executor
        executor.add_node(node)
        try:
            while executor.context.ok() and not _stop.requested and not (until is not None and until()):
                executor.spin_once(timeout_sec=SPIN_WAKE_PERIOD_S)
        finally:
            executor.remove_node(node)
            if own_executor:
                executor.shutdown()


def run_node(make_node: Callable[[], Node], args: Sequence[str] | None = None,
             spin: Callable[[Node], None] = spin_node) -> int:
    """rclpy.init, build, spin until SIGINT/SIGTERM, destroy, shutdown; exit code for main().

    A StartupError is printed as one line and gives STARTUP_ERROR_EXIT_CODE (2).
    """
    init_with_stop_signals(args)
    node = None
    code = 0
    try:
        try:
            node = make_node()
            spin(node)
        except StartupError as error:
            _stop.deferred = True  # first (no call before it): a stop now cannot raise in the report
            code = STARTUP_ERROR_EXIT_CODE
            print(f'[ERROR] {error}', file=sys.stderr, flush=True)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        _stop.deferred = True  # first: a stop signal during the cleanup is only recorded
        shield_cleanup()
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return code
