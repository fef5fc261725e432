"""Node entry-point plumbing shared by the COBRA nodes: clean shutdown and clear startup errors.

Every node module uses it; libraries never import it (they stay testable without rclpy).
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any

import rclpy
from builtin_interfaces.msg import Time as TimeMsg
from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

STARTUP_ERROR_EXIT_CODE = 2


class StartupError(RuntimeError):
    """A node cannot start with the given parameters; the message says how to fix it."""


def set_stamp(stamp: TimeMsg, t_s: float) -> TimeMsg:
    """Write t [s] into an existing Time message (hot loops reuse their messages)."""
    stamp.sec, stamp.nanosec = divmod(int(round(t_s * 1e9)), 1_000_000_000)
    return stamp


def stamp_seconds(stamp: TimeMsg) -> float:
    return stamp.sec + stamp.nanosec * 1e-9


def describe(description: str, *, read_only: bool = False,
             float_range: tuple[float, float] | None = None,
             int_range: tuple[int, int] | None = None) -> ParameterDescriptor:
    descriptor = ParameterDescriptor(description=description, read_only=read_only)
    if float_range is not None:
        descriptor.floating_point_range = [
            FloatingPointRange(from_value=float(float_range[0]), to_value=float(float_range[1]))]
    if int_range is not None:
        descriptor.integer_range = [IntegerRange(from_value=int_range[0], to_value=int_range[1], step=1)]
    return descriptor


def declare(node: Node, specs: dict[str, tuple[Any, ParameterDescriptor]]) -> dict[str, Any]:
    """Declare a block of parameters and return their values by name."""
    node.declare_parameters('', [(name, default, descriptor)
                                 for name, (default, descriptor) in specs.items()])
    return {name: node.get_parameter(name).value for name in specs}


def _raise_keyboard_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def init_with_stop_signals(args: Sequence[str] | None) -> None:
    """rclpy.init where SIGINT and SIGTERM raise KeyboardInterrupt in the main thread.

    rclpy's own handlers shut the context down asynchronously, which races with a spinning
    executor (it may fail building its wait set); raising in the main thread lets the node
    run its shutdown (torque off, bag close) with a valid context. Also restores SIGINT, which
    a child started in the background by a non-interactive shell inherits as ignored.
    """
    rclpy.init(args=list(args) if args is not None else sys.argv,
               signal_handler_options=SignalHandlerOptions.NO)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)


def run_node(make_node: Callable[[], Node], args: Sequence[str] | None = None,
             spin: Callable[[Node], None] = rclpy.spin) -> int:
    """rclpy.init, build, spin until SIGINT/SIGTERM, destroy, shutdown; exit code for main()."""
    init_with_stop_signals(args)
    node = None
    try:
        node = make_node()
        spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except StartupError as error:
        print(f'[ERROR] {error}', file=sys.stderr, flush=True)
        return STARTUP_ERROR_EXIT_CODE
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return 0
