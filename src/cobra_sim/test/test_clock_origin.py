"""clock_origin: where the published sim clock starts (plain functions, no ROS)."""

from __future__ import annotations

import pytest

from cobra_common.ros_entry import stamp_seconds
from cobra_gaits.sim_ticks import SimTicker
from cobra_sim.clock_origin import clock_origin_ns, origin_grid_ns, since_origin_s, stamp_ns
from cobra_sim.lockstep import LockstepGate

WALL_NS = 1_796_299_419_436_266_901  # 2026-12-03 11:56:59.436 UTC
COMMAND_PERIOD_NS = 10_000_000


class Stamp:
    def __init__(self, total_ns: int) -> None:
        self.sec, self.nanosec = divmod(total_ns, 1_000_000_000)


def test_zero_starts_at_0_and_wall_at_the_whole_second_of_the_start():
    grid_ns = origin_grid_ns(COMMAND_PERIOD_NS)
    assert grid_ns == 1_000_000_000
    assert clock_origin_ns('zero', WALL_NS, grid_ns) == 0
    assert clock_origin_ns('wall', WALL_NS, grid_ns) == 1_796_299_419_000_000_000
    with pytest.raises(ValueError, match='clock_origin:=now is not one of zero, wall'):
        clock_origin_ns('now', WALL_NS, grid_ns)


def test_a_period_that_does_not_divide_a_second_widens_the_grid():
    assert origin_grid_ns(3_000_000) == 3_000_000_000  # 3 ms commands: whole multiples of 3 s
    origin = clock_origin_ns('wall', WALL_NS, origin_grid_ns(3_000_000))
    assert origin % 3_000_000 == 0 and origin % 1_000_000_000 == 0 and 0 <= WALL_NS - origin < 3_000_000_000


def test_the_gaits_ticks_fall_on_the_sims_lockstep_boundaries_after_a_wall_origin():
    """The gait ticks at whole multiples of its period of the absolute clock: only an origin on
    that grid puts its commands on the boundaries origin + k * period the sim waits for."""
    origin = clock_origin_ns('wall', WALL_NS, origin_grid_ns(COMMAND_PERIOD_NS))
    ticker = SimTicker(COMMAND_PERIOD_NS)
    ticks = [tick for step in range(1, 101) if (tick := ticker.clock(origin + step * 1_000_000)) is not None]
    boundaries = [origin + k * COMMAND_PERIOD_NS for k in range(1, 11)]
    assert set(boundaries) <= set(ticks)
    millisecond_origin = WALL_NS // 1_000_000 * 1_000_000  # the whole ms only: ticks miss every boundary
    ticker = SimTicker(COMMAND_PERIOD_NS)
    ticks = [tick for step in range(1, 101) if (tick := ticker.clock(millisecond_origin + step * 1_000_000))]
    assert not set(ticks) & {millisecond_origin + k * COMMAND_PERIOD_NS for k in range(1, 11)}


def test_received_stamps_are_taken_back_to_sim_time_exactly():
    origin = clock_origin_ns('wall', WALL_NS, origin_grid_ns(COMMAND_PERIOD_NS))
    boundary_s = 0.01 * 7
    command = Stamp(origin + 7 * COMMAND_PERIOD_NS)
    assert since_origin_s(stamp_ns(command), origin) == pytest.approx(boundary_s, abs=1e-12)
    gate = LockstepGate(max_logger_lag_s=0.05, tolerance_s=1e-9)  # stamps are whole nanoseconds
    gate.command_arrived(since_origin_s(stamp_ns(command), origin))
    assert not gate.missing_command(boundary_s)
    # float seconds of a 2026 date resolve only ~0.24 us: the integer difference is needed
    assert abs((stamp_seconds(command) - origin * 1e-9) - boundary_s) > 1e-9
