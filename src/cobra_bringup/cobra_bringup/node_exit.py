"""How a node's exit reads in both front ends' error lines (the runner and the launch file).

A node that cannot start (no serial port, no camera, a refused parameter) has printed its own
one-line error naming the fix and exits STARTUP_ERROR_EXIT_CODE; the front end then names the
node and points at that line instead of repeating or hiding it.
"""

from __future__ import annotations

import signal

from cobra_common.errors import STARTUP_ERROR_EXIT_CODE


def exit_description(code: int) -> str:
    """'could not start (...)', 'was killed by SIGKILL' or 'exited with code N'."""
    if code == STARTUP_ERROR_EXIT_CODE:
        return f'could not start (exit code {code}; its error line is above)'
    if code < 0 and -code in signal.valid_signals():
        return f'was killed by {signal.Signals(-code).name}'
    return f'exited with code {code}'
