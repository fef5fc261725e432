"""How a node's exit reads in both front ends' error lines (the runner and the launch file).

A node that cannot start (no serial port, no camera, a refused parameter) has printed its own
one-line error naming the fix and exits STARTUP_ERROR_EXIT_CODE; the front end then names the
node and points at that line instead of repeating or hiding it.
"""

from __future__ import annotations

import signal

from cobra_common.errors import STARTUP_ERROR_EXIT_CODE


DEVICE_PACKAGES = ('cobra_driver', 'cobra_odometry')  # their start-up errors are missing or faulty devices
PREFLIGHT_HINT = 'python -m cobra_bringup.preflight checks every device at once'


def exit_description(code: int, package: str = '') -> str:
    """'could not start (...)', 'was killed by SIGKILL' or 'exited with code N'.

    A device node that could not start points at preflight: the bringup stops at the first
    missing device, and the nodes stopped with it never got to report theirs.
    """
    if code == STARTUP_ERROR_EXIT_CODE:
        hint = f'; {PREFLIGHT_HINT}' if package in DEVICE_PACKAGES else ''
        return f'could not start (exit code {code}; its error line is above{hint})'
    if code < 0 and -code in signal.valid_signals():
        return f'was killed by {signal.Signals(-code).name}'
    return f'exited with code {code}'
