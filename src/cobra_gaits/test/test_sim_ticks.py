"""The gait's sim-time ticks: whole periods of /clock, stamped with the clock, once per jump."""

from __future__ import annotations

import pytest

from cobra_gaits.sim_ticks import SimTicker

PERIOD_NS = 10_000_000


def ticks(ticker: SimTicker, stamps_ns: list[int]) -> list[int]:
    return [tick for stamp in stamps_ns if (tick := ticker.clock(stamp)) is not None]


def test_a_clock_stepping_by_1_ms_from_zero_ticks_at_every_boundary_exactly():
    assert ticks(SimTicker(PERIOD_NS), [k * 1_000_000 for k in range(0, 51)]) == \
        [0, 10_000_000, 20_000_000, 30_000_000, 40_000_000, 50_000_000]


def test_a_clock_held_at_zero_ticks_once_at_zero():
    # the sim repeats /clock = t = 0 until the gait's first command arrives: that command needs a tick
    assert ticks(SimTicker(PERIOD_NS), [0, 0, 0, 1_000_000, 10_000_000]) == [0, 10_000_000]


def test_a_repeated_clock_value_does_not_tick_twice():
    # a lockstepped sim repeats /clock at the boundary while it waits
    assert ticks(SimTicker(PERIOD_NS), [0] + [10_000_000] * 5 + [11_000_000]) == [0, 10_000_000]


def test_a_jump_over_several_periods_ticks_once_with_the_clock_value():
    ticker = SimTicker(PERIOD_NS)
    assert ticks(ticker, [0, 25_000_000, 29_000_000, 30_000_000]) == [0, 25_000_000, 30_000_000]


def test_a_gait_started_late_ticks_at_once_then_on_the_boundaries():
    assert ticks(SimTicker(PERIOD_NS), [5_003_000_000, 5_004_000_000, 5_010_000_000]) == \
        [5_003_000_000, 5_010_000_000]


def test_a_clock_going_back_restarts_the_boundaries_from_there():
    ticker = SimTicker(PERIOD_NS)
    assert ticks(ticker, [0, 40_000_000, 3_000_000, 9_000_000, 10_000_000]) == [0, 40_000_000, 10_000_000]


def test_period_must_be_positive():
    with pytest.raises(ValueError, match='period_ns'):
        SimTicker(0)
