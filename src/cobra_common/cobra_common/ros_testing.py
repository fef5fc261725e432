"""Helpers for a test's own rclpy node, which watches the node processes under test."""

from __future__ import annotations

import time
from collections.abc import Callable

import rclpy
from rclpy.node import Node
from rosgraph_msgs.msg import Clock

from cobra_common.ros_entry import stamp_seconds
from cobra_common.service_request import ResendingRequest


def spin_until(node: Node, condition: Callable[[], bool], timeout_s: float = 60.0) -> bool:
    """Spin `node` until `condition()` holds or `timeout_s` passed (a safety bound for a hung
    process, not a measurement); returns the condition's last value."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        rclpy.spin_once(node, timeout_sec=0.02)
    return condition()


def call_idempotent(node: Node, client: object, request: object, timeout_s: float = 30.0) -> object | None:
    """The answer of an idempotent service (set parameters, SetBool, gait/start), asked again while
    unanswered (cobra_common.service_request: right after discovery a reply can be dropped); None
    after `timeout_s`. Spins `node`, which must not be in an executor elsewhere."""
    return ResendingRequest(client, request).spin_until_answered(node, timeout_s)


def clock_message(stamp_ns: int) -> Clock:
    """A /clock sample at `stamp_ns` (a test that is the sim's clock)."""
    message = Clock()
    message.clock.sec, message.clock.nanosec = divmod(stamp_ns, 1_000_000_000)
    return message


def stamps_ms(messages: list) -> list[float]:
    """Header stamps of stamped messages in milliseconds, rounded to the microsecond."""
    return [round(stamp_seconds(m.header.stamp) * 1e3, 3) for m in messages]
