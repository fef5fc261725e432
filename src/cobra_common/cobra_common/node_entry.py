"""Stop signals of a COBRA node process, from its first line: the console entry points start here.

A node module's imports take a second or more, and a stop during them must not end in a traceback:
this module imports only the standard library, installs the stop handlers and only then imports the
node module (`run_node_module`). Design notes: the package README, "cobra_common.node_entry".
"""

from __future__ import annotations

import faulthandler
import importlib
import os
import signal
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
STOP_STACK_DUMP_ENV = 'COBRA_STOP_STACK_DUMP_S'
STOP_STACK_DUMP_S = 8.0  # below the runner's 10 s before SIGTERM: a hung stop leaves its stacks in the log


class StopState:
    """Process-wide: has a stop signal come, and may it interrupt what runs now."""
    requested = False
    deferred = False  # only record a stop (inside a spin loop, an import, cleanup): never raise


STOP = StopState()


def shield_cleanup() -> None:
    """From now on SIGINT is ignored and SIGTERM terminates at once (no exception).

    Called when stopping starts, so a second Ctrl-C never raises inside destroy_node or
    try_shutdown (a traceback and a changed exit code) nor kills the process while the
    interpreter finalizes (Python resets its own handlers to the default there, not SIG_IGN).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _arm_stop_stack_dump() -> None:
    """If the process is still alive STOP_STACK_DUMP_S after its stop signal, print every thread's
    stack to stderr (faulthandler's watchdog thread: it works while the main thread is blocked in C),
    so a node that does not stop says where it hangs. $COBRA_STOP_STACK_DUMP_S overrides (0 = off)."""
    try:
        delay_s = float(os.environ.get(STOP_STACK_DUMP_ENV, STOP_STACK_DUMP_S))
    except ValueError:
        delay_s = STOP_STACK_DUMP_S
    if delay_s > 0.0:
        faulthandler.dump_traceback_later(delay_s, exit=False)


def on_stop_signal(signum: int, frame: FrameType | None) -> None:
    """The first stop signal: record it, shield what follows, raise where interruptible.

    `requested` is set before anything that Python could interrupt: a second signal already
    pending runs this handler again inside shield_cleanup's calls, and must then do nothing.
    """
    if STOP.requested:
        return
    STOP.requested = True
    shield_cleanup()
    _arm_stop_stack_dump()
    if not STOP.deferred:
        raise KeyboardInterrupt


def install_stop_handlers() -> None:
    """SIGINT and SIGTERM to `on_stop_signal`, and unblocked (a signal blocked and pending since
    the process started, as the runner starts nodes, is delivered now). Also restores SIGINT, which
    a child started in the background by a non-interactive shell inherits as ignored."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, on_stop_signal)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def run_node_module(module_name: str) -> int:
    """Import `module_name` with stop signals recorded, then run its `main()`; the exit code.

    A stop during the import: exit 0 without starting the node. A stop that interrupts `main()`
    before the node's own handling catches it (rclpy.init, the node's constructor): exit 0.
    """
    previous_deferred, STOP.deferred = STOP.deferred, True
    install_stop_handlers()
    module = importlib.import_module(module_name)
    try:
        STOP.deferred = previous_deferred  # from here a stop raises KeyboardInterrupt, caught below
        if STOP.requested:
            return 0
        return module.main()
    except KeyboardInterrupt:
        if STOP.requested:  # raised by on_stop_signal: a requested stop
            return 0
        raise
