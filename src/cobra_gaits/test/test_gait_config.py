"""gait_config: the gait node's parameter tables and the gait check, without rclpy."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from cobra_common.config_check import by_name
from cobra_common.errors import StartupError
from cobra_gaits.gait_config import (BASE_PARAMETERS, COMMAND_SUBSCRIBER_NODES, LTS_PRESET, RUNTIME_PARAMETERS,
                                     check_gait, lts_parameters, preset_parameters, tuning_parameters)
from cobra_gaits.gait_source import RETUNABLE
from cobra_gaits.presets import load_gait_parameters
from cobra_gaits.ticker import lts_defaults

CONFIG = Path(__file__).resolve().parents[3] / 'config' / 'gait.yaml'
PRESET = {'frequency_hz': 0.3, 'amplitude_vertical_rad': 0.2, 'amplitude_horizontal_rad': 0.6}


def test_tuning_defaults_are_the_presets_and_all_of_it_is_retunable() -> None:
    tuning = by_name(tuning_parameters(PRESET))
    assert {name: tuning[name].default for name in PRESET} == PRESET
    assert set(tuning) == set(RETUNABLE) == RUNTIME_PARAMETERS


def test_read_only_blocks_are_outside_the_runtime_set() -> None:
    names = [s.name for s in (*BASE_PARAMETERS, COMMAND_SUBSCRIBER_NODES, *preset_parameters('crawl'), LTS_PRESET,
                              *lts_parameters(lts_defaults('rolling')))]
    assert 'crawl.frequency_hz' in names and RUNTIME_PARAMETERS.isdisjoint(names)


@pytest.mark.parametrize('name, value, refused', [
    ('direction', 'up', True), ('direction', 'right', False),
    ('amplitude_horizontal_rad', math.pi / 2 + 0.01, True), ('ramp_duration_s', 0.05, True),
    ('frequency_hz', 2.0, False),
])
def test_tuning_rows_judge_run_time_values(name: str, value: object, refused: bool) -> None:
    problem = by_name(tuning_parameters(PRESET))[name].problem(value)
    assert (problem is not None) == refused
    if refused:
        assert f"parameter '{name}' = {value!r} is invalid" in problem


def test_lts_defaults_come_from_the_lts_preset() -> None:
    rows = by_name(lts_parameters(lts_defaults('twisting')))
    assert (rows['lts_a0_rad_s'].default, rows['lts_a1_rad_m_s'].default, rows['lts_omega_t_rad_s'].default) == \
        (-1.0, 1.5, 0.0)


@pytest.mark.parametrize('gait, csv_file, message', [
    ('gait7', '', "unknown gait 'gait7': choose one of ['gait1', 'gait2', 'csv', 'lts', 'tumble', 'cmd_vel']"),
    ('csv', '', 'gait:=csv needs csv_file:=<path to a trajectory CSV>'),
])
def test_check_gait_refuses_with_the_fix(gait: str, csv_file: str, message: str) -> None:
    with pytest.raises(StartupError, match=message.replace('[', r'\[').replace(']', r'\]').replace('(', r'\(')
                       .replace(')', r'\)')):
        check_gait(gait, ['gait1', 'gait2'], csv_file)


@pytest.mark.parametrize('gait', ['gait1', 'lts', 'tumble', 'cmd_vel'])
def test_check_gait_accepts_presets_and_built_ins(gait: str) -> None:
    check_gait(gait, ['gait1', 'gait2'], '')
    check_gait('csv', ['gait1'], 'walk.csv')


def test_config_gait_yaml_values_are_accepted_by_the_tables() -> None:
    """config/gait.yaml's base, preset, tuning and LTS keys are rows of the tables and in range."""
    values = load_gait_parameters(CONFIG)
    rows = by_name((*BASE_PARAMETERS, COMMAND_SUBSCRIBER_NODES, *tuning_parameters(PRESET), LTS_PRESET,
                    *lts_parameters(lts_defaults('rolling'))))
    for name in values['preset_names']:
        rows.update({row.name: row for row in preset_parameters(name)})
        values.update({f'{name}.{field}': value for field, value in values.pop(name).items()})
    own = {name: value for name, value in values.items() if not name.startswith(('tumble', 'cmd_vel_'))}
    assert set(own) <= set(rows), set(own) - set(rows)
    assert [rows[name].problem(value) for name, value in own.items() if rows[name].problem(value)] == []
