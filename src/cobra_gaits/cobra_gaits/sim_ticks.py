"""When a gait on sim time ticks, decided from /clock values the node takes itself.

rclpy's TimeSource runs every /clock message (1 kHz of sim time) through the executor and a
sim-time timer needs a second executor round to fire: ~0.9 ms per command boundary, which a
lockstepped sim waits for at every boundary. The gait node instead takes /clock straight from
rcl and asks this ticker whether a tick is due: at the first clock value it sees, whatever it
is, then at the first clock value at or past each later whole multiple of the period, stamped
with that clock value (in lockstep the clock holds at the boundary, so the stamp is the boundary
exactly), once however far the clock jumped. Unlike an rcl timer it ticks at t = 0 too: the sim
holds /clock at t = 0 until the first command arrives, and that command needs a tick. No rclpy here.
"""

from __future__ import annotations

class SimTicker:
    """Ticks at whole multiples of `period_ns` of sim time, from the newest /clock value."""

    def __init__(self, period_ns: int) -> None:
        if period_ns <= 0:
            raise ValueError(f'period_ns must be positive, not {period_ns}')
        self.period_ns = period_ns
        self.now_ns = 0  # sim time: 0 until the first /clock, as rclpy's ROS clock
        self.next_tick_ns = 0  # the first /clock value ticks, t = 0 included

    def clock(self, stamp_ns: int) -> int | None:
        """Take a /clock value; returns the tick's stamp [ns] when one is due, else None."""
        if stamp_ns < self.now_ns:  # the sim restarted: start over from its time
            self.next_tick_ns = (stamp_ns // self.period_ns + 1) * self.period_ns
        self.now_ns = stamp_ns
        if stamp_ns < self.next_tick_ns:
            return None
        self.next_tick_ns = (stamp_ns // self.period_ns + 1) * self.period_ns
        return stamp_ns
