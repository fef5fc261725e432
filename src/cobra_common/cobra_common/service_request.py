"""A service request that is sent again while unanswered, for idempotent services only.

Right after discovery a request can reach a server whose response writer has not matched the
client's reader yet: the server handles it, rmw drops the reply, and the client waits forever.
`wait_for_service` does not cover this (it sees the client's side of the match). Discovery here
can lag seconds (measured: ~3 s on a loaded 2-core machine), so a client of an idempotent
service (SetBool: latch/set, torque/set; asking twice for the same state is harmless) sends the
request again every `resend_after_s` of wall time until an answer comes. Not for Trigger
services that change state (tumble/start): a resend there could act twice. An action's goal
request is a service too (`ResendingGoal`), for servers where a newer goal preempts an older one.
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
        self._future = self._call()
        self._sent_at_s = self._clock_s()
        self.sends += 1

    def _call(self) -> Any:
        return self.client.call_async(self.request)

    def _forget(self, future: Any) -> None:
        self.client.remove_pending_request(future)  # a late answer to it is dropped by rclpy

    def poll(self) -> Any | None:
        if self._future.done():
            return self._future.result()
        if self._clock_s() - self._sent_at_s >= self.resend_after_s:
            self._forget(self._future)
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
            self._forget(self._future)


class ResendingGoal(ResendingRequest):
    """A goal to an rclpy ActionClient, sent again while its acceptance is unanswered; `poll()`
    returns the goal handle of the newest send once answered. Only for servers where a newer goal
    preempts an older one (cobra_gaits navigate_to_pose): a resend replaces a goal whose answer was
    lost. A late answer to an earlier send completes a future nobody reads (ActionClient has no
    public way to forget it)."""

    def __init__(self, client: Any, goal: Any, feedback_callback: Callable[[Any], None] | None = None,
                 resend_after_s: float = RESEND_AFTER_S, clock_s: Callable[[], float] = time.monotonic) -> None:
        self.feedback_callback = feedback_callback
        super().__init__(client, goal, resend_after_s, clock_s)

    def _call(self) -> Any:
        return self.client.send_goal_async(self.request, feedback_callback=self.feedback_callback)

    def _forget(self, future: Any) -> None:
        pass
