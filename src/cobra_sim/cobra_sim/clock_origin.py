"""Where the sim's /clock starts: 0 (`zero`) or the wall-clock time of the sim's t = 0 (`wall`).

With `wall` every stamp of a sim bag is a real date, so Foxglove and PlotJuggler show the run
when it happened instead of January 1970. The sim itself keeps counting from t = 0 (duration_s,
pacing, lockstep boundaries, command timeouts); only what it publishes is offset, and stamps it
receives (commands, logger progress) are taken back by the same offset, in integer nanoseconds.

The origin is the wall-clock time floored to a whole multiple of `grid_ns`, which
`origin_grid_ns` makes a whole second and a whole number of the gait's command period: a gait
on sim time ticks at whole multiples of its period of the *absolute* clock (rcl timers and
cobra_gaits.sim_ticks.SimTicker alike), so with an origin on that grid its ticks still fall on
the sim's lockstep boundaries origin + k * command_period. No rclpy here.
"""

from __future__ import annotations

import math
from typing import Protocol

CLOCK_ORIGINS = ('zero', 'wall')
NS_PER_S = 1_000_000_000


def origin_grid_ns(command_period_ns: int) -> int:
    """The step the origin is floored to: lcm(1 s, command period) (1 s at any period dividing 1 s)."""
    if command_period_ns <= 0:
        raise ValueError(f'command_period_ns must be positive, not {command_period_ns}')
    return math.lcm(NS_PER_S, command_period_ns)


def clock_origin_ns(mode: str, wall_time_ns: int, grid_ns: int) -> int:
    """The /clock value of t = 0: 0, or the wall time floored to a whole multiple of grid_ns."""
    if mode not in CLOCK_ORIGINS:
        raise ValueError(f"clock_origin:={mode} is not one of {', '.join(CLOCK_ORIGINS)}")
    return 0 if mode == 'zero' else wall_time_ns // grid_ns * grid_ns


class TimeLike(Protocol):
    """builtin_interfaces/Time (or anything with its two fields)."""

    sec: int
    nanosec: int


def stamp_ns(stamp: TimeLike) -> int:
    """A Time message as integer nanoseconds."""
    return stamp.sec * NS_PER_S + stamp.nanosec


def since_origin_s(stamp_ns: int, origin_ns: int) -> float:
    """A received stamp as sim time since t = 0 [s] (the difference taken in integers first:
    a 2026 date in float seconds only resolves 0.24 µs)."""
    return (stamp_ns - origin_ns) * 1e-9
