"""latch_schedule_s without ROS: changes handed out once each as sim time passes them; bad lists refused."""

from __future__ import annotations

import math

import pytest

from cobra_common.errors import StartupError
from cobra_sim.latch_service import LatchSchedule


def test_changes_alternate_engage_release_and_come_once_each() -> None:
    schedule = LatchSchedule([1.0, 2.5, 4.0])
    assert schedule.due(999_999_999) == []
    assert schedule.due(1_000_000_000) == [(1.0, True)]
    assert schedule.due(2_000_000_000) == []
    assert schedule.due(5_000_000_000) == [(2.5, False), (4.0, True)]  # a long period passes both
    assert schedule.due(9_000_000_000) == []


def test_empty_schedule_never_changes_the_latch() -> None:
    assert LatchSchedule([]).due(10**12) == []


@pytest.mark.parametrize('times', [[2.0, 1.0], [1.0, 1.0], [-0.5], [math.nan], [math.inf]])
def test_times_that_do_not_increase_from_zero_are_refused(times: list[float]) -> None:
    with pytest.raises(StartupError, match=r'latch_schedule_s:=.* must be increasing sim times >= 0'):
        LatchSchedule(times)
