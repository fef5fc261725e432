"""peer_wait: hold until nothing is missing, or give up at the deadline; the verdict is final."""

from __future__ import annotations

from cobra_common.peer_wait import PeerState, PeerWait


def test_waits_while_something_is_missing_then_is_ready_once_nothing_is():
    wait = PeerWait.starting(now_s=10.0, timeout_s=5.0)
    assert wait.poll(['a subscriber on odom'], now_s=12.0) is PeerState.WAITING
    assert wait.waiting
    assert wait.poll([], now_s=13.0) is PeerState.READY
    assert not wait.waiting


def test_gives_up_at_the_deadline_with_something_still_missing():
    wait = PeerWait.starting(now_s=0.0, timeout_s=2.0)
    assert wait.poll(['x'], now_s=1.999) is PeerState.WAITING
    assert wait.poll(['x'], now_s=2.0) is PeerState.GAVE_UP


def test_the_verdict_never_reopens():
    """A peer that leaves after the start must not stop a running node again."""
    wait = PeerWait.starting(now_s=0.0, timeout_s=2.0)
    assert wait.poll([], now_s=0.0) is PeerState.READY
    assert wait.poll(['gone'], now_s=0.5) is PeerState.READY
    late = PeerWait.starting(now_s=0.0, timeout_s=0.0)
    assert late.poll(['x'], now_s=0.0) is PeerState.GAVE_UP
    assert late.poll([], now_s=1.0) is PeerState.GAVE_UP
