"""The gait node's core: when to tick, what a tick commands, and which parameter values can run; no rclpy.

A tick advances the gait source and commands its positions; the first command is held until the
named subscriber nodes are there. Design notes: the package README, "cobra_gaits.ticker" and
"Holding the first command".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import re

import numpy as np

from cobra_common.errors import StartupError
from cobra_common.peer_wait import PeerState, PeerWait
from cobra_description.robot_model import Joint
from cobra_gaits.gait_source import LTS_OVERRIDES, RETUNABLE, lts_gait_from_values
from cobra_gaits.lts import PRESET_NAMES as LTS_PRESET_NAMES
from cobra_gaits.lts import LinearTwistParams, lts_preset
from cobra_gaits.presets import CSV_GAIT, LTS_GAIT, PRESET_FIELDS
from cobra_gaits.sidewinding import DIRECTIONS, GaitError, SidewindingGenerator
from cobra_gaits.sim_ticks import SimTicker
from cobra_gaits.speed_limit import check_sidewinding_speed

MAX_TICK_S = 0.1  # a longer gap (paused sim, suspended host) must not jump the gait phase
# rcl's node name tokens, optionally under a namespace ('logger', 'cobra/logger', '/cobra/logger')
NODE_NAME_PATTERN = re.compile(r'/?[A-Za-z_][A-Za-z0-9_]*(/[A-Za-z_][A-Za-z0-9_]*)*')


class GaitSource(Protocol):
    def advance(self, dt_s: float) -> None: ...

    def positions(self) -> np.ndarray: ...


@dataclass(frozen=True)
class Command:
    """One joint_commands message: the positions [rad] of the node's joints at `stamp_ns`."""

    stamp_ns: int
    positions_rad: list[float]


def fully_qualified(namespace: str, name: str) -> str:
    """'/ns/name' of a node in `namespace` ('/' or '' for the root), as the graph reports them."""
    return f"{namespace.rstrip('/')}/{name}"


def resolve_node_names(names: Sequence[str], namespace: str) -> tuple[str, ...]:
    """The fully qualified names of `names`: an absolute name as given, any other in `namespace` (the
    gait's own, so that a namespaced bringup's 'logger' is its own logger); StartupError for one
    that is not a node name."""
    for name in names:
        if not NODE_NAME_PATTERN.fullmatch(name):
            raise StartupError(f"command_subscriber_nodes entry {name!r} is not a node name: give the names "
                               "the subscribers run under, e.g. \"command_subscriber_nodes:=['sim_node', 'logger']\" "
                               "(in the gait's namespace) or '/cobra/logger' (absolute)")
    return tuple(name if name.startswith('/') else fully_qualified(namespace, name) for name in names)


@dataclass(frozen=True)
class CommandSubscribers:
    """The joint_commands subscriptions the node sees: the fully qualified node name of each one in
    the ROS graph that can match the publisher (QoS), and how many matched it at the DDS level."""

    nodes: tuple[str, ...]
    matched: int


def missing_subscribers(expected: Sequence[str], present: CommandSubscribers) -> list[str]:
    """What the hold still waits for: each expected node without a subscription in the graph; once
    all are there, the DDS match of every graph subscription (the count cannot say which one is
    unmatched, so a named one may be the one a foreign subscriber's match stands in for)."""
    if not expected:  # none named: the first subscriber to match, whoever it is (a sim started by hand)
        return [] if present.matched >= 1 else ['a matched subscriber (name the nodes in command_subscriber_nodes)']
    missing = [name for name in expected if name not in present.nodes]
    if not missing and present.matched < len(present.nodes):
        return [f'the DDS match of {len(present.nodes) - present.matched} of the {len(present.nodes)} '
                'subscriptions in the graph']
    return missing


class GaitTicker:
    """Ticks the source; holds the first tick until the `command_subscriber_nodes` (fully qualified)
    subscribed and matched (none named: until one subscriber matched), or the timeout passed; a
    timeout of 0: no hold.

    With `period_ns` (sim time) the ticks come from /clock values through `clock`; on wall time
    the node calls `tick` from its timer. `now_s` is wall time [s] of any monotonic clock.
    `subscribers` is asked only while the hold waits.
    """

    def __init__(self, source: GaitSource, command_subscriber_nodes: Sequence[str], hold_timeout_s: float,
                 now_s: float, period_ns: int | None = None, lead_ns: int = 0) -> None:
        self.source = source
        # sim time: each /clock tick's command is computed for (and stamped) lead_ns later, so a
        # lockstepped sim finds it waiting at that boundary instead of waiting for the round trip
        self.lead_ns = lead_ns if period_ns is not None else 0
        self.command_subscriber_nodes = tuple(command_subscriber_nodes)
        self.hold_timeout_s = hold_timeout_s
        self._hold = PeerWait.starting(now_s, hold_timeout_s) if hold_timeout_s > 0.0 else None
        self.sim_ticker = SimTicker(period_ns) if period_ns is not None else None
        self.last_tick_ns: int | None = None
        self.held_tick_ns: int | None = None  # a tick not published yet: a subscriber is missing
        self.warnings: list[str] = []         # for the node to log (and clear)

    @property
    def time_ns(self) -> int | None:
        """The gait's present time once it ticked (None before): the newest /clock on sim time (the
        last command may be stamped `lead_ns` later), the last tick on wall time."""
        if self.sim_ticker is not None and self.last_tick_ns is not None:
            return self.sim_ticker.now_ns
        return self.last_tick_ns

    def clock(self, stamp_ns: int | None, subscribers: Callable[[], CommandSubscribers],
              now_s: float) -> list[Command]:
        """A /clock value (None: unreadable); the commands due when it ticks (see `_commands`)."""
        if stamp_ns is None or (tick_ns := self.sim_ticker.clock(stamp_ns)) is None:
            return []
        return self._commands(tick_ns, subscribers, now_s)

    def _commands(self, tick_ns: int, subscribers: Callable[[], CommandSubscribers], now_s: float) -> list[Command]:
        """The command for tick_ns + lead_ns; on the first tick with a lead also the one for tick_ns
        itself, so that every boundary from the first has one. Empty while the first is held."""
        stamps = [tick_ns, tick_ns + self.lead_ns] if self.lead_ns and self.last_tick_ns is None else \
            [tick_ns + self.lead_ns]
        commands = []
        for stamp in stamps:
            command = self.tick(stamp, subscribers, now_s)
            if command is None:  # held for a missing subscriber (only ever the first tick)
                break
            commands.append(command)
        return commands

    def tick(self, now_ns: int, subscribers: Callable[[], CommandSubscribers], now_s: float) -> Command | None:
        if not self._subscribers_present(subscribers, now_s):
            self.held_tick_ns = now_ns  # newest boundary: a lockstepped sim waits for exactly it
            return None
        if self.last_tick_ns is not None:
            dt_s = (now_ns - self.last_tick_ns) * 1e-9
            self.source.advance(min(max(dt_s, 0.0), MAX_TICK_S))
        self.last_tick_ns = now_ns
        return Command(now_ns, self.source.positions().tolist())

    def release_held(self, subscribers: Callable[[], CommandSubscribers], now_s: float) -> list[Command]:
        """The tick held back for a missing subscriber, once it is there (or the hold timed out)."""
        if self.held_tick_ns is None or not self._subscribers_present(subscribers, now_s):
            return []
        held, self.held_tick_ns = self.held_tick_ns, None
        return self._commands(held, subscribers, now_s)  # on wall time (no lead): the held tick alone

    def _subscribers_present(self, subscribers: Callable[[], CommandSubscribers], now_s: float) -> bool:
        """Until the named consumers subscribed and matched, a late one would miss the start."""
        if self._hold is None or not self._hold.waiting:
            return True
        present = subscribers()
        missing = missing_subscribers(self.command_subscriber_nodes, present)
        if self._hold.poll(missing, now_s) is PeerState.GAVE_UP:
            others = sorted(set(present.nodes) - set(self.command_subscriber_nodes))
            self.warnings.append(
                f"joint_commands subscribers missing after {self.hold_timeout_s:g} s: {', '.join(missing)}; "
                f"starting without them (other subscribers: {', '.join(others) or 'none'})")
        return not self._hold.waiting


# --- parameter rules ----------------------------------------------------------------------------

def preset_tuning(gait: str, sidewinding_preset: str, preset_names: Sequence[str],
                  preset_values: Callable[[str], Any]) -> dict[str, float]:
    """The tuning defaults: the fields of `sidewinding_preset` (read with preset_values('name.field'))
    when it is one of preset_names, else zeros (csv, lts)."""
    if sidewinding_preset not in preset_names:
        return dict.fromkeys(PRESET_FIELDS, 0.0)
    return {field: preset_values(f'{sidewinding_preset}.{field}') for field in PRESET_FIELDS}


def lts_defaults(preset_name: str) -> dict[str, float]:
    """The LTS override parameters' defaults: the LTS preset's own values; StartupError for an unknown one."""
    if preset_name not in LTS_PRESET_NAMES:
        raise StartupError(f"unknown lts_preset '{preset_name}': choose one of {', '.join(LTS_PRESET_NAMES)}")
    preset = lts_preset(preset_name)
    twist = preset.twist if isinstance(preset.twist, LinearTwistParams) else LinearTwistParams()
    return {'lts_a0_rad_s': twist.a0_rad_s, 'lts_a1_rad_m_s': twist.a1_rad_m_s,
            'lts_omega_t_rad_s': preset.curve.temporal_frequency_rad_s}


def check_lts(gait: str, preset_name: str, lts: Mapping[str, float], values: Mapping[str, Any]) -> None:
    """StartupError for an LTS override without gait:=lts, or an LTS gait that cannot run."""
    defaults = lts_defaults(preset_name)
    changed = [parameter for parameter in LTS_OVERRIDES if lts[parameter] != defaults[parameter]]
    if gait != LTS_GAIT:
        if changed:
            raise StartupError(f'{changed[0]} is an LTS twist-gait parameter: it needs gait:=lts on the '
                               'T-Snake (robot:=tsnake); COBRA has no twist joints')
        return
    try:
        lts_gait_from_values({**values, 'lts_preset': preset_name, **{p: lts[p] for p in changed}})
    except GaitError as error:
        raise StartupError(str(error)) from error


def retune_problem(source: object, gait: str, joints: Sequence[Joint], changes: Mapping[str, Any]) -> str | None:
    """Why a run-time change of the sidewinding parameters is refused, or None."""
    changes = {name: value for name, value in changes.items() if name in RETUNABLE}
    if not changes:
        return None
    if not isinstance(source, SidewindingGenerator):
        return (f"gait '{gait}' has no sidewinding parameters to retune" if gait != CSV_GAIT else
                'a CSV replay has no sidewinding parameters to retune')
    if 'direction' in changes and changes['direction'] not in DIRECTIONS:
        return f"direction must be one of {sorted(DIRECTIONS)}"
    try:
        check_sidewinding_speed(joints, replace(source.params, **changes).validated(),
                                source.current_amplitudes_rad())
    except GaitError as error:
        return str(error)
    return None
