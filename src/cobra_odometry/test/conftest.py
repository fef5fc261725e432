"""Fixtures for the odometry node tests: start the node as a process, collect its messages."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import rclpy
from rclpy.node import Node


class NodeProcess:
    def __init__(self, args: list[str], env: dict[str, str], log_path: Path) -> None:
        self.log_path = log_path
        self._log = open(log_path, 'w')
        self.process = subprocess.Popen(
            [sys.executable, '-m', 'cobra_odometry.odometry_node', '--ros-args', *args],
            env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)

    def output(self) -> str:
        self._log.flush()
        return self.log_path.read_text()

    def stop(self) -> int:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self._log.close()
        return self.process.returncode


@pytest.fixture
def start_node(ros_env: dict[str, str], tmp_path: Path) -> Iterator[Callable[..., NodeProcess]]:
    started: list[NodeProcess] = []

    def start(*parameters: str) -> NodeProcess:
        args: list[str] = []
        for parameter in parameters:
            args += ['-p', parameter]
        node = NodeProcess(args, ros_env, tmp_path / f'node_{len(started)}.log')
        started.append(node)
        return node

    yield start
    for node in started:
        node.stop()


@pytest.fixture
def test_node(ros_node: Node) -> Node:
    return ros_node


def spin_until(node: Node, condition: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.02)
        if condition():
            return True
    return condition()


@pytest.fixture
def spin() -> Callable[..., bool]:
    return spin_until
