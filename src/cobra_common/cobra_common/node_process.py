"""A node module run as its own process, as the tests and benchmarks start and stop them.

`start_node` runs `python -m <module> --ros-args ...` in its own session (so a SIGINT to its
process group reaches it alone) with stdout and stderr together; `stop_node` sends SIGINT, as
Ctrl-C would, and returns everything the process printed (SIGKILL after `timeout_s`, so a hung
node fails its test instead of hanging the suite).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Mapping


def start_node(env: Mapping[str, str], module: str, *ros_args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, '-m', module, '--ros-args', *ros_args], env=dict(env),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def stop_node(process: subprocess.Popen, timeout_s: float = 30.0) -> str:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
    try:
        output, _ = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    return output


class LoggedNode:
    """A node process whose output goes to a file (long runs would fill a pipe): `output()` reads
    what it printed so far, `stop()` sends SIGINT (SIGKILL after `timeout_s`) and returns its exit code."""

    def __init__(self, env: Mapping[str, str], module: str, log_path: os.PathLike, *ros_args: str) -> None:
        self.log_path = log_path
        self._log = open(log_path, 'w')
        self.process = subprocess.Popen([sys.executable, '-m', module, '--ros-args', *ros_args], env=dict(env),
                                        stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)

    def output(self) -> str:
        if not self._log.closed:
            self._log.flush()
        with open(self.log_path) as log:
            return log.read()

    def stop(self, timeout_s: float = 15.0) -> int:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
            try:
                self.process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self._log.close()
        return self.process.returncode
