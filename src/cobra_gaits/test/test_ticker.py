"""ticker: the gait node's core without rclpy: the first tick waits for the named command subscribers,
a held tick goes out stamped at its boundary, sim-time ticks follow /clock, and the parameter rules."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from cobra_common.errors import StartupError
from cobra_description.robot_model import load_robot_model
from cobra_gaits.gait_source import make_gait_source
from cobra_gaits.ticker import (MAX_TICK_S, CommandSubscribers, GaitTicker, check_lts, fully_qualified,
                                lts_defaults, missing_subscribers, preset_tuning, resolve_node_names,
                                retune_problem)

PERIOD_NS = 10_000_000


class CountingSource:
    """Positions = the time it was advanced by, so a command shows the dt its tick used."""

    def __init__(self) -> None:
        self.advanced_s: list[float] = []

    def advance(self, dt_s: float) -> None:
        self.advanced_s.append(dt_s)

    def positions(self) -> np.ndarray:
        return np.array([sum(self.advanced_s)])


NAMED = ('/sim_node', '/logger')


def seen(*nodes: str, matched: int | None = None) -> Callable[[], CommandSubscribers]:
    """The node shell's answer: these subscriber nodes in the graph, all matched unless told."""
    return lambda: CommandSubscribers(nodes, len(nodes) if matched is None else matched)


def not_asked() -> CommandSubscribers:
    raise AssertionError('the subscribers were asked although nothing is held')


def test_the_first_tick_is_held_until_the_named_subscribers_are_there_and_goes_out_at_its_boundary():
    source = CountingSource()
    ticker = GaitTicker(source, NAMED, hold_timeout_s=15.0, now_s=0.0, period_ns=PERIOD_NS)
    assert ticker.clock(0, seen('/sim_node'), now_s=0.1) == []
    assert ticker.clock(PERIOD_NS, seen('/sim_node'), now_s=0.2) == []
    assert ticker.held_tick_ns == PERIOD_NS  # the newest boundary reached
    assert ticker.release_held(seen('/sim_node'), now_s=0.3) == []
    [command] = ticker.release_held(seen('/logger', '/sim_node'), now_s=0.4)
    assert command.stamp_ns == PERIOD_NS and command.positions_rad == [0.0]
    assert ticker.held_tick_ns is None and ticker.warnings == []
    [nxt] = ticker.clock(2 * PERIOD_NS + 3, not_asked, now_s=0.5)  # once released, never held again
    assert nxt.stamp_ns == 2 * PERIOD_NS + 3 and source.advanced_s == [pytest.approx(0.01)]


@pytest.mark.parametrize('foreign', ['/test_probe', '/other_ns/logger', '/sim_node/logger'])
def test_a_foreign_subscriber_does_not_stand_in_for_a_named_one(foreign):
    """Two subscriptions matched, as the old count of 2 wanted, but the second is not the logger's."""
    ticker = GaitTicker(CountingSource(), NAMED, hold_timeout_s=15.0, now_s=0.0)
    for k in range(100):
        assert ticker.tick(k, seen('/sim_node', foreign), now_s=k * 0.1) is None
    assert [c.stamp_ns for c in ticker.release_held(seen('/sim_node', foreign, '/logger'), now_s=10.0)] == [99]
    assert ticker.warnings == []


def test_named_subscribers_in_the_graph_wait_until_every_subscription_matched():
    """The graph lists the logger before the DDS match: the count cannot say the unmatched one is not
    the logger's, so the hold lasts until all the subscriptions in the graph matched."""
    ticker = GaitTicker(CountingSource(), NAMED, hold_timeout_s=15.0, now_s=0.0)
    assert ticker.tick(1, seen('/sim_node', '/test_probe', '/logger', matched=2), now_s=1.0) is None
    assert ticker.tick(2, seen('/sim_node', '/test_probe', '/logger', matched=3), now_s=2.0).stamp_ns == 2


def test_the_hold_gives_up_at_its_timeout_naming_the_missing_node():
    ticker = GaitTicker(CountingSource(), NAMED, hold_timeout_s=15.0, now_s=0.0)
    assert ticker.tick(5, seen('/sim_node', '/test_probe'), now_s=14.9) is None
    command = ticker.tick(7, seen('/sim_node', '/test_probe'), now_s=15.0)
    assert command is not None and command.stamp_ns == 7
    assert ticker.warnings == ['joint_commands subscribers missing after 15 s: /logger; starting without them '
                               '(other subscribers: /test_probe)']


def test_no_named_subscribers_holds_for_the_first_matched_one_whoever_it_is():
    """As the old count of 1 did: a gait on sim time started by hand before its sim published the t = 0
    command to nobody and never sent it again (the sim then waited out wait_for_peers_s)."""
    ticker = GaitTicker(CountingSource(), (), hold_timeout_s=15.0, now_s=0.0)
    assert ticker.tick(3, seen(matched=0), now_s=0.0) is None
    assert ticker.tick(4, seen('/sim_node', matched=0), now_s=0.1) is None  # in the graph, not matched yet
    assert ticker.tick(5, seen('/anyone', matched=1), now_s=0.2).stamp_ns == 5


def test_a_zero_timeout_does_not_hold():
    ticker = GaitTicker(CountingSource(), ('/sim_node',), hold_timeout_s=0.0, now_s=0.0)
    assert ticker.tick(3, not_asked, now_s=0.0).stamp_ns == 3


def test_missing_subscribers_names_each_absent_node():
    present = CommandSubscribers(('/sim_node', '/test_probe'), matched=2)
    assert missing_subscribers(('/sim_node', '/logger', '/cobra/logger'), present) == ['/logger', '/cobra/logger']
    assert missing_subscribers(('/sim_node',), present) == []


def test_node_names_resolve_in_the_gaits_namespace_unless_absolute():
    assert resolve_node_names(['sim_node', 'logger'], '/') == ('/sim_node', '/logger')
    assert resolve_node_names(['sim_node', '/logger', 'twin/logger'], '/cobra') == \
        ('/cobra/sim_node', '/logger', '/cobra/twin/logger')
    assert fully_qualified('/', 'logger') == '/logger' and fully_qualified('/cobra', 'logger') == '/cobra/logger'


@pytest.mark.parametrize('name', ['', 'logger/', '2logger', 'log ger', '~/logger', '//logger'])
def test_a_name_that_is_not_a_node_name_is_refused_with_the_fix(name):
    with pytest.raises(StartupError, match=r"command_subscriber_nodes entry .* is not a node name: .*'sim_node'"):
        resolve_node_names(['sim_node', name], '/')


def test_a_long_gap_advances_the_gait_by_at_most_max_tick():
    source = CountingSource()
    ticker = GaitTicker(source, (), hold_timeout_s=0.0, now_s=0.0)
    ticker.tick(0, not_asked, 0.0)
    ticker.tick(5_000_000_000, not_asked, 0.0)
    ticker.tick(4_000_000_000, not_asked, 0.0)  # backwards (a restarted sim): no negative step
    assert source.advanced_s == [MAX_TICK_S, 0.0]


def test_unreadable_clock_samples_do_not_tick():
    ticker = GaitTicker(CountingSource(), (), 0.0, 0.0, period_ns=PERIOD_NS)
    assert ticker.clock(None, not_asked, 0.0) == []
    assert len(ticker.clock(0, not_asked, 0.0)) == 1
    assert ticker.clock(PERIOD_NS - 1, not_asked, 0.0) == []


def test_with_a_lead_each_clock_tick_publishes_the_command_for_a_period_later():
    """command_lead_periods 1: the sim finds the command for its next boundary waiting; the first tick
    also covers its own boundary, and the gait advances by whole periods from there."""
    source = CountingSource()
    ticker = GaitTicker(source, (), 0.0, 0.0, period_ns=PERIOD_NS, lead_ns=PERIOD_NS)
    assert [c.stamp_ns for c in ticker.clock(0, not_asked, 0.0)] == [0, PERIOD_NS]
    assert ticker.clock(PERIOD_NS // 2, not_asked, 0.0) == []
    assert [c.stamp_ns for c in ticker.clock(PERIOD_NS, not_asked, 0.0)] == [2 * PERIOD_NS]
    assert [c.stamp_ns for c in ticker.clock(2 * PERIOD_NS, not_asked, 0.0)] == [3 * PERIOD_NS]
    assert source.advanced_s == [pytest.approx(0.01)] * 3  # t = 0 -> 10 -> 20 -> 30 ms of gait time
    assert ticker.time_ns == 2 * PERIOD_NS and ticker.last_tick_ns == 3 * PERIOD_NS  # now, and the command's time


def test_a_held_first_tick_with_a_lead_goes_out_with_its_successor():
    ticker = GaitTicker(CountingSource(), NAMED, hold_timeout_s=15.0, now_s=0.0, period_ns=PERIOD_NS,
                        lead_ns=PERIOD_NS)
    assert ticker.clock(0, seen('/sim_node'), now_s=0.1) == []
    assert ticker.held_tick_ns == 0
    released = ticker.release_held(seen('/logger', '/sim_node'), now_s=0.2)
    assert [c.stamp_ns for c in released] == [0, PERIOD_NS]


def test_on_wall_time_there_is_no_lead():
    ticker = GaitTicker(CountingSource(), (), 0.0, 0.0, lead_ns=PERIOD_NS)
    assert ticker.lead_ns == 0 and ticker.tick(123, not_asked, 0.0).stamp_ns == 123


def test_preset_tuning_reads_the_chosen_preset_or_zeros():
    values = {'gait1.frequency_hz': 0.5, 'gait1.amplitude_vertical_rad': 0.3, 'gait1.amplitude_horizontal_rad': 0.6}
    assert preset_tuning('gait1', 'gait1', ['gait1'], values.__getitem__) == {
        'frequency_hz': 0.5, 'amplitude_vertical_rad': 0.3, 'amplitude_horizontal_rad': 0.6}
    assert set(preset_tuning('csv', 'csv', ['gait1'], values.__getitem__).values()) == {0.0}


def test_lts_overrides_need_gait_lts_and_an_unknown_preset_is_named():
    defaults = lts_defaults('rolling')
    check_lts('gait1', 'rolling', defaults, {})  # defaults: nothing changed, nothing to refuse
    with pytest.raises(StartupError, match='lts_a0_rad_s is an LTS twist-gait parameter: it needs gait:=lts'):
        check_lts('gait1', 'rolling', {**defaults, 'lts_a0_rad_s': defaults['lts_a0_rad_s'] + 0.1}, {})
    with pytest.raises(StartupError, match="unknown lts_preset 'spinning': choose one of"):
        lts_defaults('spinning')


def test_retune_rules():
    joints = load_robot_model().gait_joints()
    values = {'gait': 'gait1', 'frequency_hz': 0.5, 'amplitude_vertical_rad': 0.2, 'amplitude_horizontal_rad': 0.4,
              'direction': 'left', 'ramp_duration_s': 2.0, 'amplitude_slew_rad_s': 0.5, 'csv_file': ''}
    _, source = make_gait_source(values, joints)
    assert retune_problem(source, 'gait1', joints, {'csv_loop': True}) is None  # not a retunable one
    assert retune_problem(source, 'gait1', joints, {'frequency_hz': 0.6}) is None
    assert retune_problem(source, 'gait1', joints, {'direction': 'up'}) == "direction must be one of ['left', 'right']"
    assert retune_problem(source, 'gait1', joints, {'frequency_hz': 2.0}).startswith(
        'gait too fast for the servos: joint_2 (yaw)')
    assert retune_problem(object(), 'csv', joints, {'frequency_hz': 0.6}) == \
        'a CSV replay has no sidewinding parameters to retune'
    assert retune_problem(object(), 'tumble', joints, {'frequency_hz': 0.6}) == \
        "gait 'tumble' has no sidewinding parameters to retune"
