"""Shared helpers of the cobra_logger tests: serialized JointState messages and bag readers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from rclpy.node import Node
from mcap.reader import make_reader
from rosbags.rosbag2 import Reader
from rosbags.typesys import get_typestore, Stores

JOINT_STATE = 'sensor_msgs/msg/JointState'
_TYPESTORE = get_typestore(Stores.ROS2_JAZZY)


def joint_state_cdr(seq: int, width: int = 11) -> bytes:
    """A JointState whose first position is `seq`, with `width` joints (width sets its size)."""
    types = _TYPESTORE.types
    message = types[JOINT_STATE](
        types['std_msgs/msg/Header'](types['builtin_interfaces/msg/Time'](seq, 0), 'base_link'),
        [f'joint_{i + 1}' for i in range(width)],
        np.full(width, float(seq)),
        np.zeros(width),
        np.zeros(width),
    )
    return bytes(_TYPESTORE.serialize_cdr(message, JOINT_STATE))


def joint_state_seq(data: bytes | memoryview) -> int:
    return int(_TYPESTORE.deserialize_cdr(bytes(data), JOINT_STATE).position[0])


def read_bag_with_rosbags(bag_dir: Path) -> dict[str, list[bytes]]:
    """Every message of the bag by topic, read through metadata.yaml by rosbags' Reader."""
    messages: dict[str, list[bytes]] = {}
    with Reader(bag_dir) as reader:
        for connection, _, data in reader.messages():
            messages.setdefault(connection.topic, []).append(bytes(data))
    return messages


def read_mcap_with_mcap_library(path: Path) -> list[tuple[str, bytes]]:
    """(topic, data) of every message of one file, via the independent mcap reader (summary-based)."""
    with path.open('rb') as stream:
        reader = make_reader(stream)
        assert reader.get_summary() is not None, f'{path} has no summary'
        return [(channel.topic, bytes(message.data)) for _, channel, message in reader.iter_messages()]


@pytest.fixture(scope='session')
def make_joint_state() -> Callable[..., bytes]:
    return joint_state_cdr


@pytest.fixture(scope='session')
def decode_seq() -> Callable[[bytes | memoryview], int]:
    return joint_state_seq


@pytest.fixture(scope='session')
def rosbags_messages() -> Callable[[Path], dict[str, list[bytes]]]:
    return read_bag_with_rosbags


@pytest.fixture(scope='session')
def mcap_messages() -> Callable[[Path], list[tuple[str, bytes]]]:
    return read_mcap_with_mcap_library


SUBSCRIBE_TIMEOUT_S = 30.0
EXIT_TIMEOUT_S = 30.0


class LoggerProcess:
    """`python -m cobra_logger.logger_node` in its own session, with its output collected."""

    def __init__(self, env: dict[str, str], *ros_args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, '-m', 'cobra_logger.logger_node', '--ros-args',
             '-p', 'discovery_period_s:=0.2', *ros_args],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self._lines: list[str] = []
        self._reader = threading.Thread(target=self._collect, daemon=True)
        self._reader.start()

    def _collect(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.append(line)

    @property
    def output(self) -> str:
        return ''.join(self._lines)

    def wait_for_output(self, text: str, timeout_s: float = SUBSCRIBE_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout_s
        while text not in self.output:
            assert self.process.poll() is None, f'logger exited early:\n{self.output}'
            assert time.monotonic() < deadline, f'logger never printed {text!r}:\n{self.output}'
            time.sleep(0.05)

    def wait_exit(self) -> int:
        returncode = self.process.wait(timeout=EXIT_TIMEOUT_S)
        self._reader.join(timeout=5.0)
        return returncode

    def stop(self, signum: int) -> int:
        os.killpg(self.process.pid, signum)
        return self.wait_exit()


@pytest.fixture
def start_logger(ros_env: dict[str, str]) -> Iterator:
    started: list[LoggerProcess] = []

    def start(*ros_args: str) -> LoggerProcess:
        started.append(LoggerProcess(ros_env, *ros_args))
        return started[-1]

    yield start
    for logger in started:
        if logger.process.poll() is None:
            os.killpg(logger.process.pid, signal.SIGKILL)
            logger.process.wait()


@pytest.fixture
def test_node(ros_node: Node) -> Node:
    return ros_node
