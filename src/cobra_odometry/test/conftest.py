"""Fixtures for the odometry node tests: start the node as a process, collect its messages."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rclpy.node import Node

from cobra_common.node_process import LoggedNode
from cobra_common.ros_testing import spin_until


def NodeProcess(args: list[str], env: dict[str, str], log_path: Path) -> LoggedNode:
    """The odometry node with these ROS arguments, its output in log_path."""
    return LoggedNode(env, 'cobra_odometry.odometry_node', log_path, *args)


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


@pytest.fixture
def spin() -> Callable[..., bool]:
    return spin_until
