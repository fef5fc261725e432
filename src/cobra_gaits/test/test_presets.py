"""Gait presets read from the gait node's parameter file."""

from __future__ import annotations

from pathlib import Path

import pytest

from cobra_gaits.presets import available_gaits, load_gait_parameters, preset_params
from cobra_gaits.sidewinding import GaitError

GAIT_YAML = Path(__file__).resolve().parents[3] / 'config' / 'gait.yaml'


@pytest.fixture(scope='module')
def parameters() -> dict:
    return load_gait_parameters(GAIT_YAML)


def _write(tmp_path: Path, text: str, name: str = 'gait.yaml') -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_load_returns_gait_node_ros_parameters(parameters):
    assert parameters['gait'] == 'gait1'
    assert parameters['preset_names'] == ['gait1', 'gait2']
    assert parameters['direction'] == 'left'
    assert parameters['ramp_duration_s'] == 2.0


def test_gait1_is_the_0_4_hz_preset(parameters):
    params = preset_params(parameters, 'gait1')
    assert params.frequency_hz == 0.4
    assert params.amplitude_vertical_rad == pytest.approx(0.35)
    assert params.amplitude_horizontal_rad == pytest.approx(0.70)
    assert params.direction == 'left'
    assert params.ramp_duration_s == 2.0
    assert params.amplitude_slew_rad_s == 0.5


def test_gait2_is_0_3_hz_with_larger_amplitudes_than_gait1(parameters):
    gait1, gait2 = preset_params(parameters, 'gait1'), preset_params(parameters, 'gait2')
    assert gait2.frequency_hz == 0.3
    assert gait2.amplitude_vertical_rad > gait1.amplitude_vertical_rad
    assert gait2.amplitude_horizontal_rad > gait1.amplitude_horizontal_rad


def test_preset_takes_direction_from_parameters(parameters):
    assert preset_params({**parameters, 'direction': 'right'}, 'gait2').direction == 'right'


def test_available_gaits_append_csv_lts_tumble_and_cmd_vel(parameters):
    assert available_gaits(parameters) == ['gait1', 'gait2', 'csv', 'lts', 'tumble', 'cmd_vel']
    assert available_gaits({}) == ['csv', 'lts', 'tumble', 'cmd_vel']


def test_unknown_gait_error_lists_choices(parameters):
    with pytest.raises(GaitError, match=r"unknown sidewinding preset 'gait3': choose one of \['gait1', 'gait2'\]"):
        preset_params(parameters, 'gait3')


def test_preset_missing_fields_are_named():
    parameters = {'preset_names': ['g'], 'g': {'frequency_hz': 0.4}}
    with pytest.raises(GaitError, match=r"preset 'g' lacks \['amplitude_vertical_rad', "
                                        r"'amplitude_horizontal_rad'\]"):
        preset_params(parameters, 'g')


def test_preset_out_of_range_is_rejected():
    parameters = {'preset_names': ['g'], 'g': {'frequency_hz': 5.0, 'amplitude_vertical_rad': 0.1,
                                               'amplitude_horizontal_rad': 0.1}}
    with pytest.raises(GaitError, match='frequency_hz must be within'):
        preset_params(parameters, 'g')


def test_preset_bad_direction_is_rejected(parameters):
    with pytest.raises(GaitError, match="got 'up'"):
        preset_params({**parameters, 'direction': 'up'}, 'gait1')


def test_namespaced_section_is_found(tmp_path):
    path = _write(tmp_path, '/cobra/gait_node:\n  ros__parameters:\n    gait: gait2\n')
    assert load_gait_parameters(path) == {'gait': 'gait2'}


def test_missing_file_error_names_path(tmp_path):
    path = tmp_path / 'absent.yaml'
    with pytest.raises(GaitError, match='gait parameter file not found') as error:
        load_gait_parameters(path)
    assert str(path) in str(error.value)


def test_malformed_yaml_error_names_file(tmp_path):
    path = _write(tmp_path, 'gait_node:\n  ros__parameters: [unclosed\n')
    with pytest.raises(GaitError, match='not valid YAML') as error:
        load_gait_parameters(path)
    assert str(path) in str(error.value)


def test_missing_section_error_names_file(tmp_path):
    path = _write(tmp_path, 'sim_node:\n  ros__parameters:\n    rate_hz: 1.0\n')
    with pytest.raises(GaitError, match='no "gait_node:" section') as error:
        load_gait_parameters(path)
    assert str(path) in str(error.value)


def test_empty_file_has_no_section(tmp_path):
    with pytest.raises(GaitError, match='no "gait_node:" section'):
        load_gait_parameters(_write(tmp_path, ''))


def test_yaml_that_is_not_a_mapping_raises_gait_error(tmp_path):
    """A list at the top level is a malformed parameter file: GaitError, which callers catch."""
    with pytest.raises(GaitError):
        load_gait_parameters(_write(tmp_path, '- gait_node\n- ros__parameters\n'))


USER_PRESET = '''gait_node:
  ros__parameters:
    preset_names: [gait1, gait2, crawl]
    crawl:
      frequency_hz: 0.2
      amplitude_vertical_rad: 0.2
      amplitude_horizontal_rad: 0.4
'''


def test_preset_defined_in_a_params_file_is_available(tmp_path):
    """A user's params_file given after the defaults adds its presets (bringup passes both)."""
    user = _write(tmp_path, USER_PRESET)
    parameters = load_gait_parameters(GAIT_YAML, user)
    assert available_gaits(parameters) == ['gait1', 'gait2', 'crawl', 'csv', 'lts', 'tumble', 'cmd_vel']
    crawl = preset_params(parameters, 'crawl')
    assert (crawl.frequency_hz, crawl.amplitude_horizontal_rad) == (0.2, 0.4)
    assert crawl.ramp_duration_s == 2.0  # from the defaults file
    assert preset_params(parameters, 'gait1').frequency_hz == 0.4


def test_later_file_overrides_single_nested_values(tmp_path):
    user = _write(tmp_path, 'gait_node:\n  ros__parameters:\n    ramp_duration_s: 4.0\n'
                            '    gait2:\n      frequency_hz: 0.25\n')
    gait2 = preset_params(load_gait_parameters(GAIT_YAML, user), 'gait2')
    assert gait2.frequency_hz == 0.25
    assert gait2.amplitude_horizontal_rad == pytest.approx(0.90)  # kept from the defaults
    assert gait2.ramp_duration_s == 4.0


def test_params_file_without_gait_section_adds_nothing(tmp_path):
    user = _write(tmp_path, 'sim_node:\n  ros__parameters:\n    terrain: rigid\n')
    assert load_gait_parameters(GAIT_YAML, user) == load_gait_parameters(GAIT_YAML)


def test_wildcard_section_applies_to_the_gait_node(tmp_path):
    user = _write(tmp_path, '/**:\n  ros__parameters:\n    direction: right\n')
    assert load_gait_parameters(GAIT_YAML, user)['direction'] == 'right'


def test_no_gait_section_in_any_file_names_them_all(tmp_path):
    first = _write(tmp_path, 'sim_node:\n  ros__parameters: {}\n', 'a.yaml')
    second = _write(tmp_path, 'logger:\n  ros__parameters: {}\n', 'b.yaml')
    with pytest.raises(GaitError, match=f'{first}, {second}: no "gait_node:" section'):
        load_gait_parameters(first, second)


def test_non_numeric_preset_value_is_a_gait_error(tmp_path):
    parameters = {'preset_names': ['g'], 'g': {'frequency_hz': 'fast', 'amplitude_vertical_rad': 0.1,
                                               'amplitude_horizontal_rad': 0.1}}
    with pytest.raises(GaitError, match="g.frequency_hz must be a number, got 'fast'"):
        preset_params(parameters, 'g')


def test_directory_as_parameter_file_is_named(tmp_path):
    with pytest.raises(GaitError, match='is a directory'):
        load_gait_parameters(tmp_path)
