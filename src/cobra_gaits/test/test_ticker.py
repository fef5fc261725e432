"""ticker: the gait node's core without rclpy: the first tick waits for the command subscribers,
a held tick goes out stamped at its boundary, sim-time ticks follow /clock, and the parameter rules."""

from __future__ import annotations

import numpy as np
import pytest

from cobra_common.errors import StartupError
from cobra_description.robot_model import load_robot_model
from cobra_gaits.gait_source import make_gait_source
from cobra_gaits.ticker import (MAX_TICK_S, GaitTicker, check_lts, lts_defaults, preset_tuning,
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


def test_the_first_tick_is_held_until_the_subscribers_matched_and_goes_out_at_its_boundary():
    source = CountingSource()
    ticker = GaitTicker(source, command_subscribers=2, hold_timeout_s=15.0, now_s=0.0, period_ns=PERIOD_NS)
    matched = [1]
    assert ticker.clock(0, lambda: matched[0], now_s=0.1) is None
    assert ticker.clock(PERIOD_NS, lambda: matched[0], now_s=0.2) is None
    assert ticker.held_tick_ns == PERIOD_NS  # the newest boundary reached
    assert ticker.release_held(lambda: matched[0], now_s=0.3) is None
    matched[0] = 2
    command = ticker.release_held(lambda: matched[0], now_s=0.4)
    assert command is not None and command.stamp_ns == PERIOD_NS and command.positions_rad == [0.0]
    assert ticker.held_tick_ns is None and ticker.warnings == []
    nxt = ticker.clock(2 * PERIOD_NS + 3, lambda: 0, now_s=0.5)  # once matched, never held again
    assert nxt.stamp_ns == 2 * PERIOD_NS + 3 and source.advanced_s == [pytest.approx(0.01)]


def test_the_hold_gives_up_at_its_timeout_with_a_warning():
    ticker = GaitTicker(CountingSource(), command_subscribers=2, hold_timeout_s=15.0, now_s=0.0)
    assert ticker.tick(5, lambda: 1, now_s=14.9) is None
    command = ticker.tick(7, lambda: 1, now_s=15.0)
    assert command is not None and command.stamp_ns == 7
    assert ticker.warnings == ['only 1 of 2 joint_commands subscribers matched after 15 s: '
                               'starting without the rest']


def test_a_long_gap_advances_the_gait_by_at_most_max_tick():
    source = CountingSource()
    ticker = GaitTicker(source, command_subscribers=0, hold_timeout_s=0.0, now_s=0.0)
    ticker.tick(0, lambda: 0, 0.0)
    ticker.tick(5_000_000_000, lambda: 0, 0.0)
    ticker.tick(4_000_000_000, lambda: 0, 0.0)  # backwards (a restarted sim): no negative step
    assert source.advanced_s == [MAX_TICK_S, 0.0]


def test_unreadable_clock_samples_do_not_tick():
    ticker = GaitTicker(CountingSource(), 0, 0.0, 0.0, period_ns=PERIOD_NS)
    assert ticker.clock(None, lambda: 0, 0.0) is None
    assert ticker.clock(0, lambda: 0, 0.0) is not None
    assert ticker.clock(PERIOD_NS - 1, lambda: 0, 0.0) is None


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
