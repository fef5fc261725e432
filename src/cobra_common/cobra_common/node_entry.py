"""Stop signals of a COBRA node process, from its first line: the console entry points start here.

A node module imports rclpy, numpy, scipy, MuJoCo... for a second or more. A bringup whose
driver finds no serial port stops every other node during exactly that time, and Python's own
SIGINT handler then raised KeyboardInterrupt inside whichever import ran: a traceback and a
"process has died" for a node that was only asked to stop. So each package's console scripts
point at its `entry_points` module, whose functions call `run_node_module` with the node's
module name; this module imports only the standard library, installs the stop handlers and
only then imports the node module.

The handlers are the ones every node keeps (cobra_common.ros_entry re-exports them): the first
SIGINT or SIGTERM records the stop, from then on SIGINT is ignored and SIGTERM terminates at
once, and it raises KeyboardInterrupt only where the node can be interrupted (`STOP.deferred`
false). While the node module is being imported a stop is only recorded: the import completes
and the process exits 0 without starting the node. A stop at any later point before the node's
own handling (rclpy.init, building the node) ends in exit 0 here, too.

The pip-mode runner starts the nodes with SIGINT and SIGTERM blocked, so that a signal sent in
the interpreter's first milliseconds (before any code of ours runs) waits, pending, until
`install_stop_handlers` unblocks it here.
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
