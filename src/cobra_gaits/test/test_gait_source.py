"""make_gait_source: the gait node's source from its parameter values, speed-checked; the LTS source."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cobra_description.robot_model import load_robot_model
from cobra_gaits.gait_source import LtsSource, lts_gait_from_values, make_gait_source
from cobra_gaits.lts import PRESET_NAMES, LtsJointGenerator
from cobra_gaits.sidewinding import GaitError, SidewindingGenerator
from cobra_gaits.trajectory_csv import TrajectoryReplay

JOINTS = load_robot_model(Path(__file__).resolve().parents[3] / 'urdf' / 'cobra.urdf').gait_joints()
VALUES = {'gait': 'gait1', 'csv_file': '', 'csv_loop': False, 'frequency_hz': 0.4,
          'amplitude_vertical_rad': 0.35, 'amplitude_horizontal_rad': 0.7, 'direction': 'left',
          'ramp_duration_s': 2.0, 'amplitude_slew_rad_s': 0.5}


def test_preset_values_give_a_generator_on_every_gait_joint():
    names, source = make_gait_source(VALUES, JOINTS)
    assert names == [f'joint_{i}' for i in range(1, 12)]
    assert isinstance(source, SidewindingGenerator)


def test_too_fast_values_are_refused():
    with pytest.raises(GaitError, match='gait too fast for the servos: joint_2'):
        make_gait_source({**VALUES, 'frequency_hz': 2.0, 'amplitude_horizontal_rad': 1.5}, JOINTS)


def test_csv_values_give_a_checked_replay(tmp_path):
    path = tmp_path / 'closed.csv'
    path.write_text('time_s,joint_2\n0.0,0.1\n1.0,0.4\n2.0,0.1\n')
    names, source = make_gait_source({**VALUES, 'gait': 'csv', 'csv_file': str(path), 'csv_loop': True}, JOINTS)
    assert names == ['joint_2'] and isinstance(source, TrajectoryReplay) and source.loop
    path.write_text('time_s,joint_2\n0.0,0.1\n1.0,0.4\n')
    with pytest.raises(GaitError, match='csv_loop wraps'):
        make_gait_source({**VALUES, 'gait': 'csv', 'csv_file': str(path), 'csv_loop': True}, JOINTS)


# --- LTS (gait:=lts on the T-Snake) ----------------------------------------------------------

TSNAKE_JOINTS = load_robot_model(Path(__file__).resolve().parents[3] / 'urdf' / 'tsnake.urdf').gait_joints()
LTS_VALUES = {'gait': 'lts', 'lts_preset': 'rolling', 'rate_hz': 100.0, 'ramp_duration_s': 2.0}
PERIOD_S = 0.01


def _run(source: LtsSource, seconds: float) -> np.ndarray:
    """Positions of every tick of `seconds` at the node period (the first before any advance)."""
    rows = []
    for _ in range(int(round(seconds / PERIOD_S))):
        source.advance(PERIOD_S)
        rows.append(source.positions())
    return np.array(rows)


def test_lts_source_drives_the_tsnake_joints_at_the_node_period():
    names, source = make_gait_source({**LTS_VALUES, 'rate_hz': 50.0}, TSNAKE_JOINTS)
    assert isinstance(source, LtsSource)
    assert names == [j.name for j in TSNAKE_JOINTS] and len(names) == 18
    assert source.gait.time_step_s == pytest.approx(1 / 50.0)  # the LTS time step is the node period


def test_lts_source_ramps_in_from_straight_then_plays_the_generator_exactly():
    _, source = make_gait_source({**LTS_VALUES, 'lts_preset': 'twisting'}, TSNAKE_JOINTS)
    assert np.all(source.positions() == 0.0)  # not started: straight
    source.ramp.start()
    ramp = _run(source, 2.0)
    assert np.all(np.abs(np.diff(ramp, axis=0)) / PERIOD_S < 4.8)  # within the servo limit
    after = _run(source, 3.0)
    generator = LtsJointGenerator(lts_gait_from_values({**LTS_VALUES, 'lts_preset': 'twisting'}))
    assert source.time_s == pytest.approx(5.0)
    np.testing.assert_array_equal(after[-1], generator.positions_rad(source.time_s))
    np.testing.assert_allclose(after[0], generator.positions_rad(2.01), atol=1e-12)


def test_twist_commands_grow_without_bound_and_a_stop_unwinds_at_most_half_a_turn():
    _, source = make_gait_source({**LTS_VALUES, 'lts_preset': 'twisting'}, TSNAKE_JOINTS)
    source.ramp.start()
    running = _run(source, 25.0)
    twist = source.is_twist
    assert np.all(running[-1, twist] > 2 * math.pi)  # continuous joints: 0.31 rad/s x 25 s = 7.7 rad
    frozen_gait_rad = source.gait_positions().copy()
    source.ramp.stop()
    stopping = _run(source, 2.5)
    straight = stopping[-1]
    assert np.all(straight[~twist] == 0.0)  # bending joints straight
    turns = straight[twist] / (2 * math.pi)
    np.testing.assert_allclose(turns, np.round(turns), atol=1e-12)  # twist at a full turn: straight
    assert np.all(np.abs(straight[twist] - frozen_gait_rad[twist]) <= math.pi)
    steps = np.abs(np.diff(np.vstack([running[-1:], stopping]), axis=0)) / PERIOD_S
    assert np.max(steps) < 4.8
    source.ramp.start()  # resumes where it stopped, from that straight pose, without a step
    resumed = _run(source, 0.05)
    assert np.max(np.abs(resumed[0] - straight)) < 0.01


@pytest.mark.parametrize('values, words', [
    ({'lts_preset': 'spiral'}, "unknown lts_preset 'spiral': choose one of conventional, rolling, twisting"),
    ({'ramp_duration_s': 0.1}, 'the start/stop ramp of lts_preset \'rolling\''),
    ({'lts_preset': 'twisting', 'lts_a1_rad_m_s': 8.0}, 'gait too fast for the servos'),
    ({'lts_preset': 'rolling_vector', 'lts_a0_rad_s': 0.5}, 'rolling-vector baseline'),
])
def test_bad_lts_values_are_refused_with_the_fix(values, words):
    with pytest.raises(GaitError, match=words.replace('(', r'\(').replace(')', r'\)')):
        make_gait_source({**LTS_VALUES, **values}, TSNAKE_JOINTS)


def test_lts_ramp_refusal_names_a_ramp_that_fits():
    with pytest.raises(GaitError, match=r'Use ramp_duration_s >= (\d+\.\d+) s') as error:
        make_gait_source({**LTS_VALUES, 'ramp_duration_s': 0.1}, TSNAKE_JOINTS)
    suggested_s = float(error.value.args[0].rsplit('>= ', 1)[1].split(' ')[0])
    make_gait_source({**LTS_VALUES, 'ramp_duration_s': suggested_s + 0.01}, TSNAKE_JOINTS)


def test_nan_or_absent_overrides_mean_the_presets_values():
    preset = lts_gait_from_values(LTS_VALUES)
    assert lts_gait_from_values({**LTS_VALUES, 'lts_a0_rad_s': math.nan}) == preset
    assert lts_gait_from_values({**LTS_VALUES, 'lts_a0_rad_s': 0.5}).twist.a0_rad_s == 0.5


def test_twist_gait_on_cobra_and_sidewinding_on_the_tsnake_are_refused():
    with pytest.raises(GaitError, match='COBRA has no twist joints: use robot:=tsnake'):
        make_gait_source(LTS_VALUES, JOINTS)
    with pytest.raises(GaitError, match='gait:=gait1 is a COBRA sidewinding preset'):
        make_gait_source(VALUES, TSNAKE_JOINTS)


@pytest.mark.parametrize('name', PRESET_NAMES)
def test_every_lts_preset_passes_the_speed_check_on_the_tsnake(name):
    make_gait_source({**LTS_VALUES, 'lts_preset': name}, TSNAKE_JOINTS)
