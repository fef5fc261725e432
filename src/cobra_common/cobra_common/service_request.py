"""A service request that is sent again while unanswered, for idempotent services only.

Right after discovery a request can reach a server whose response writer has not matched the
client's reader yet: the server handles it, rmw drops the reply, and the client waits forever.
`wait_for_service` does not cover this (it sees the client's side of the match). Discovery here
can lag seconds (measured: ~3 s on a loaded 2-core machine), so a client of an idempotent
service (SetBool: latch/set, torque/set; asking twice for the same state is harmless) sends the
request again every `resend_after_s` of wall time until an answer comes. Not for Trigger
services that change state (tumble/start): a resend there could act twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import rclpy

RESEND_AFTER_S = 1.0


class ResendingRequest:
    """One request to `client`; `poll()` returns the answer once it came (else None), sending
    again when it has waited `resend_after_s` (wall time: reply loss is a DDS matter, not a sim one)."""

    def __init__(self, client: Any, request: Any, resend_after_s: float = RESEND_AFTER_S,
                 clock_s: Callable[[], float] = time.monotonic) -> None:
        self.client, self.request = client, request
        self.resend_after_s = resend_after_s
        self._clock_s = clock_s
        self.sends = 0
        self._send()

    def _send(self) -> None:
        self._future = self.client.call_async(self.request)
        self._sent_at_s = self._clock_s()
        self.sends += 1

    def poll(self) -> Any | None:
        if self._future.done():
            return self._future.result()
        if self._clock_s() - self._sent_at_s >= self.resend_after_s:
            self.client.remove_pending_request(self._future)  # a late answer to it is dropped by rclpy
            self._send()
        return None

    def spin_until_answered(self, node: Any, timeout_s: float, spin_period_s: float = 0.05) -> Any | None:
        """Spin `node` (not in an executor elsewhere) until the answer came; None after timeout_s."""
        deadline = time.monotonic() + timeout_s
        while (answer := self.poll()) is None and time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=spin_period_s)
        return answer

    def cancel(self) -> None:
        if not self._future.done():
            self.client.remove_pending_request(self._future)
