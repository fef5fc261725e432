"""When the sim steps: the sim node's scheduling as explicit states
(WAITING_FOR_PEERS -> (HOLDING_T0) -> RUNNING <-> LOCKSTEP_HOLD -> FINISHED); no rclpy.

The node calls `decide(now_s, peers)` in its loop and runs a control period when told to (`stepped()`
after it). Each state: the package README, "cobra_sim.scheduler".
"""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from cobra_common.peer_wait import PeerState, PeerWait
from cobra_sim.clock_origin import clock_origin_ns, origin_grid_ns
from cobra_sim.lockstep import LockstepGate, lockstep_active

WAIT_S = 0.05  # longest wait while paced, held at t = 0 or in lockstep (bounds the stop latency)
CLOCK_REPEAT_S = 0.05  # while sim time is held, /clock is repeated (a lost best-effort sample)


class Phase(enum.Enum):
    WAITING_FOR_PEERS = 'waiting for peers'
    HOLDING_T0 = 'holding t = 0 for the first command'
    RUNNING = 'running'
    LOCKSTEP_HOLD = 'held at a lockstep boundary'
    FINISHED = 'finished'


class Peers(Protocol):
    """What the scheduler asks of the graph (DDS counts, answered by the node)."""

    def missing(self) -> list[str]:
        """Peers the start waits for that are not there yet, in words."""

    def gait_present(self) -> bool:
        """A publisher on joint_commands."""

    def logger_present(self) -> bool:
        """A publisher on logger/progress."""


@dataclass(frozen=True)
class Decision:
    """Run one control period now (`step`), or wait up to `wait_s` [s, wall]: in an executor
    round (`in_executor`) or on the command and logger-progress inputs alone."""

    step: bool
    wait_s: float = 0.0
    in_executor: bool = True


STEP = Decision(True)
DONE = Decision(False)


@dataclass
class SchedulerConfig:
    control_period_ns: int
    control_periods_per_command: int
    duration_s: float = 0.0             # 0 = run until stopped
    real_time_factor: float = 1.0       # 0 = as fast as possible
    lockstep: str = 'auto'              # cobra_sim.lockstep.LOCKSTEP_MODES
    wait_for_peers_s: float = 0.0
    wait_for_commands: bool = True
    wait_for_recorder: bool = True
    clock_origin: str = 'zero'          # cobra_sim.clock_origin.CLOCK_ORIGINS
    max_logger_lag_s: float = 0.05
    peer_timeout_s: float = 5.0
    command_topic: str = 'joint_commands'     # as resolved by the node, for the messages
    progress_topic: str = 'logger/progress'


@dataclass
class Scheduler:
    config: SchedulerConfig
    now_s: float                                   # wall time at construction (any monotonic clock)
    wall_time_ns: Callable[[], int] = time.time_ns  # for clock_origin: wall
    phase: Phase = Phase.RUNNING
    control_periods: int = 0
    clock_origin_ns: int = 0                       # /clock value of t = 0, fixed when the run starts
    command_seen: bool = False
    clock_due: bool = False                        # publish /clock again now (its last value)
    clock_restamp: bool = False                    # ... stamped at the current sim time first
    logs: list[tuple[str, str]] = field(default_factory=list)  # (info | warning, text) for the node
    held_s: dict[str, float] = field(default_factory=lambda: {'gait': 0.0, 'logger': 0.0})

    def __post_init__(self) -> None:
        c = self.config
        self.gate = LockstepGate(c.max_logger_lag_s)
        self._grid_ns = origin_grid_ns(c.control_period_ns * c.control_periods_per_command)
        self._peer_wait = PeerWait.starting(self.now_s, c.wait_for_peers_s) if c.wait_for_peers_s > 0.0 else None
        self._wall_origin_s, self._sim_origin_s = self.now_s, 0.0
        self._rtf_window = (self.now_s, 0.0)
        self._clock_repeated_at = -math.inf
        self._clock_held_at_start = False
        self._absent: set[str] = set()
        self._held_by = 'gait'
        self._held_since: float | None = None
        self._hold_started: float | None = None
        self._hold_warned_at = -math.inf
        if self._peer_wait is not None:
            self.phase = Phase.WAITING_FOR_PEERS
        else:
            self._start_clock()

    # --- state ---------------------------------------------------------------------------------
    @property
    def time_ns(self) -> int:
        """Sim time since t = 0 [ns] (what is published adds clock_origin_ns)."""
        return self.control_periods * self.config.control_period_ns

    @property
    def lockstep(self) -> bool:
        return lockstep_active(self.config.lockstep, self.config.real_time_factor)

    def set_real_time_factor(self, real_time_factor: float, now_s: float) -> None:
        """A new pace, re-anchored at now so that the change causes neither a burst nor a stall."""
        self.config.real_time_factor = real_time_factor
        self._wall_origin_s, self._sim_origin_s = now_s, self.time_ns * 1e-9

    def command_received(self) -> None:
        """Any joint_commands message (accepted or not): the gait is there and talking."""
        self.command_seen = True

    def measured_rtf(self, now_s: float) -> float:
        """Sim seconds per wall second since the last call (or since t = 0)."""
        window_wall, window_sim = self._rtf_window
        sim_s = self.time_ns * 1e-9
        self._rtf_window = (now_s, sim_s)
        return (sim_s - window_sim) / max(now_s - window_wall, 1e-9)

    def _log(self, text: str, level: str = 'info') -> None:
        self.logs.append((level, text))

    def _start_clock(self) -> None:
        """t = 0 is now: fix the published clock's origin (clock_origin, cobra_sim.clock_origin)."""
        self.clock_origin_ns = clock_origin_ns(self.config.clock_origin, self.wall_time_ns(), self._grid_ns)
        if self.clock_origin_ns:
            self._log(f'clock_origin wall: t = 0 is /clock {self.clock_origin_ns * 1e-9:.3f} s')

    def _repeat_clock(self, now_s: float) -> None:
        if now_s - self._clock_repeated_at >= CLOCK_REPEAT_S:
            self._clock_repeated_at = now_s
            self.clock_due = True

    # --- deciding ------------------------------------------------------------------------------
    def decide(self, now_s: float, peers: Peers) -> Decision:
        """What to do now; call `stepped()` after running the control period a STEP asks for."""
        c = self.config
        if self.phase is Phase.FINISHED:
            return DONE
        if self.phase in (Phase.WAITING_FOR_PEERS, Phase.HOLDING_T0) and not self._peers_ready(now_s, peers):
            return Decision(False, WAIT_S, in_executor=True)
        duration_ns = round(c.duration_s * 1e9)
        final = bool(duration_ns) and self.time_ns >= duration_ns
        every = c.control_periods_per_command
        at_boundary = self.control_periods % every == 0 and self.control_periods > 0
        lockstep = self.lockstep
        if lockstep and (at_boundary or final):
            boundary_s = (self.control_periods - self.control_periods % every) * c.control_period_ns * 1e-9
            peer = self._lockstep_peer(boundary_s, final, peers)
            if peer is None and final:
                peer = self._lockstep_peer(self.time_ns * 1e-9, final, peers)
            if self._hold_for(peer, final, now_s):
                self.phase = Phase.LOCKSTEP_HOLD
                return Decision(False, WAIT_S, in_executor=False)
        self.phase = Phase.RUNNING
        if final:
            self.phase = Phase.FINISHED
            held = ''.join(f', held {seconds:.2f} s wall for the {peer}'
                           for peer, seconds in self.held_s.items() if seconds) if lockstep else ''
            self._log(f'reached duration_s = {c.duration_s:g} s of sim time{held}')
            return DONE
        rtf = c.real_time_factor
        if rtf > 0.0:
            ahead_s = self.time_ns * 1e-9 - (self._sim_origin_s + (now_s - self._wall_origin_s) * rtf)
            if ahead_s >= 0.0:
                return Decision(False, min(ahead_s / rtf + 1e-4, WAIT_S), in_executor=not lockstep)
        return STEP

    def stepped(self) -> None:
        self.control_periods += 1

    def _peers_ready(self, now_s: float, peers: Peers) -> bool:
        missing = peers.missing()
        if not missing and self.config.wait_for_commands and not self.command_seen:
            missing = [f'the first message on {self.config.command_topic}']
            self._hold_clock_at_start(now_s)
        state = self._peer_wait.poll(missing, now_s) if self._peer_wait is not None else PeerState.READY
        if state is PeerState.WAITING:
            return False
        if state is PeerState.READY:
            self._log('peers present: starting')
        else:
            self._log(f"gave up waiting for {', '.join(missing)}: starting without them", 'warning')
        self._wall_origin_s, self._sim_origin_s = now_s, self.time_ns * 1e-9
        self._rtf_window = (now_s, self._sim_origin_s)  # the wait is not sim time's fault
        if not self._clock_held_at_start:
            self._start_clock()
        self.phase = Phase.RUNNING
        return True

    def _hold_clock_at_start(self, now_s: float) -> None:
        """/clock = t = 0 while the first command is awaited, repeated every CLOCK_REPEAT_S."""
        if not self._clock_held_at_start:
            self._clock_held_at_start = True
            self.phase = Phase.HOLDING_T0
            self._start_clock()
            self.clock_restamp = True
            self._log(f'peers present: holding t = 0 until the first {self.config.command_topic}')
            self._clock_repeated_at = -math.inf
        self._repeat_clock(now_s)

    def _lockstep_peer(self, t_s: float, final: bool, peers: Peers) -> tuple[str, str] | None:
        """The peer that holds the sim at boundary t_s (a lost peer is not waited for)."""
        gate, commands, progress = self.gate, self.config.command_topic, self.config.progress_topic
        if gate.missing_command(t_s):
            if peers.gait_present():
                self._absent.discard('gait')
                return 'gait', f"the gait's command stamped {t_s:.3f} s on {commands}"
            self._report_absent('gait', f'no publisher on {commands}: stepping on without commands')
        if gate.logger_lags(t_s, 0.0 if final else None):
            if peers.logger_present():
                self._absent.discard('logger')
                return 'logger', (f'the logger (newest joint_states written: {gate.logger_progress_s:.3f} s, '
                                  f'on {progress})')
            if self.config.wait_for_recorder:
                self._report_absent('logger', f'no logger publishes {progress}: not waiting for a recorder')
        return None

    def _report_absent(self, peer: str, text: str) -> None:
        """Warn once each time a peer goes missing."""
        if peer not in self._absent:
            self._absent.add(peer)
            self._log(f'lockstep: {text}', 'warning')

    def _hold_for(self, waiting_for: tuple[str, str] | None, final: bool, now_s: float) -> bool:
        """Bookkeeping of a lockstep wait (wall time held per peer); True = keep waiting."""
        if self._held_since is not None:
            self.held_s[self._held_by] += now_s - self._held_since
            self._held_since = None
        if waiting_for is None:
            self._hold_started = None
            return False
        self._held_by, peer = waiting_for
        self._held_since = now_s
        if self._hold_started is None:
            self._hold_started = self._clock_repeated_at = now_s
        waited_s = now_s - self._hold_started
        timeout_s = self.config.peer_timeout_s
        if waited_s >= timeout_s:
            if final:
                self._log(f'lockstep: gave up after {waited_s:.1f} s waiting for {peer}', 'warning')
                self._hold_started = self._held_since = None
                return False
            if now_s - self._hold_warned_at >= timeout_s:
                self._hold_warned_at = now_s
                hint = (f' (a gait publishing less often than every command_period_s = '
                        f'{self.config.control_period_ns * self.config.control_periods_per_command * 1e-9:g} s '
                        'never sends it: set command_period_s to its period)' if self._held_by == 'gait' else '')
                self._log(f'lockstep: sim time held at {self.time_ns * 1e-9:.3f} s for {waited_s:.0f} s waiting for '
                          f'{peer}{hint}; still waiting (Ctrl-C stops)', 'warning')
        self._repeat_clock(now_s)
        return True
