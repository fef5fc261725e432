"""The loop thread's real-time request: granted, refused with a reason, or not asked for; the
executor thread's priority under a real-time loop."""

from __future__ import annotations

import errno
import os
import threading

import pytest

from cobra_driver.loop_timing import EXECUTOR_PRIORITY, ORDINARY_SCHEDULING, executor_priority, request_realtime


def test_priority_zero_asks_for_nothing() -> None:
    calls: list[tuple] = []
    result = request_realtime(0, lambda *args: calls.append(args))
    assert result.policy == ORDINARY_SCHEDULING and result.refused == '' and calls == []


def test_a_granted_request_names_the_policy_and_targets_the_calling_thread() -> None:
    calls: list[tuple] = []
    result = request_realtime(50, lambda *args: calls.append(args))
    assert result.policy == 'SCHED_FIFO 50' and result.refused == ''
    [(pid, policy, param)] = calls
    assert (pid, policy, param.sched_priority) == (0, os.SCHED_FIFO, 50)


def test_a_refusal_keeps_the_ordinary_scheduler_and_says_what_would_grant_it() -> None:
    def refuse(*args: object) -> None:
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))
    result = request_realtime(50, refuse)
    assert result.policy == ORDINARY_SCHEDULING
    assert os.strerror(errno.EPERM) in result.refused and 'rtprio limit of at least 50' in result.refused
    assert result.description == f'{ORDINARY_SCHEDULING} ({result.refused})'


def test_the_executor_thread_runs_just_above_ordinary_processes_and_below_a_real_time_loop() -> None:
    assert executor_priority(50) == EXECUTOR_PRIORITY == 1
    assert executor_priority(2) == 1
    assert executor_priority(1) == 0  # not beside a loop at the same priority: FIFO would never preempt it
    assert executor_priority(0) == 0  # an ordinary loop: nothing to protect


@pytest.mark.skipif(os.geteuid() != 0, reason='the kernel grants SCHED_FIFO to root (or with rtprio limits) only')
def test_the_kernel_raises_only_the_calling_thread() -> None:
    seen: dict[str, int] = {}

    def loop_thread() -> None:
        seen['granted'] = int(request_realtime(10).policy == 'SCHED_FIFO 10')
        seen['policy'] = os.sched_getscheduler(0)
    thread = threading.Thread(target=loop_thread)
    thread.start()
    thread.join()
    assert seen == {'granted': 1, 'policy': os.SCHED_FIFO}
    assert os.sched_getscheduler(0) == os.SCHED_OTHER  # this (main) thread was left as it was
