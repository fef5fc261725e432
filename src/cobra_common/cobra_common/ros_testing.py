"""Helpers for a test's own rclpy node, which watches the node processes under test."""

from __future__ import annotations

import time
from collections.abc import Callable

import rclpy
from rclpy.node import Node


def spin_until(node: Node, condition: Callable[[], bool], timeout_s: float = 60.0) -> bool:
    """Spin `node` until `condition()` holds or `timeout_s` passed (a safety bound for a hung
    process, not a measurement); returns the condition's last value."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        rclpy.spin_once(node, timeout_sec=0.02)
    return condition()
