"""The one config checker: a setting's accepted values, and one error naming key, value and fix."""

from __future__ import annotations

import math

import pytest

from cobra_common.config_check import ConfigError, Setting, by_name, check_values


class OwnError(ConfigError):
    """A package's own kind of config error."""


def test_a_range_names_the_key_the_value_the_interval_and_the_fix() -> None:
    setting = Setting('spacing_m', minimum=1e-4, maximum=1.0)
    assert setting.check(0.02) == 0.02
    with pytest.raises(ConfigError) as error:
        setting.check(0.0, 'soil.yaml')
    assert str(error.value) == ("soil.yaml: parameter 'spacing_m' = 0.0 is invalid: must be a number in "
                                '[0.0001, 1.0]; fix it in soil.yaml')
    assert (error.value.key, error.value.value) == ('spacing_m', 0.0)


@pytest.mark.parametrize('value', [0.0, 1.0, math.nan, math.inf, True, 'a', None])
def test_open_ends_non_numbers_and_non_finite_values_are_refused(value: object) -> None:
    assert not Setting('fraction', minimum=0.0, maximum=1.0, minimum_open=True, maximum_open=True).accepts(value)


def test_integers_choices_and_notes_say_what_they_accept() -> None:
    count = Setting('iterations', minimum=0, maximum=50, integer=True)
    assert count.accepts(3) and count.accepts(3.0) and not count.accepts(2.5)
    assert count.allowed == 'an integer in [0, 50]'
    fps = Setting('accel_fps', choices=(63, 250), note='D435i')
    assert fps.accepts(250) and not fps.accepts(100)
    assert fps.problem(100, fix='set accel_fps:=63') == ("parameter 'accel_fps' = 100 is invalid: must be one of "
                                                         '[63, 250] (D435i); set accel_fps:=63')
    assert Setting('enabled', choices=(0, 1)).accepts(True) is False  # YAML's true is not the number 1
    assert Setting('label').accepts(object()) and Setting('label').allowed == 'any value'
    assert Setting('offset', number=True).allowed == 'a number in [-inf, inf]'


def test_a_packages_own_error_type_carries_the_same_text() -> None:
    with pytest.raises(OwnError, match=r"^parameter 'mode' = 'up' is invalid: must be one of \['max', 'min'\]; give"):
        Setting('mode', choices=('max', 'min')).check('up', error=OwnError)


def test_a_table_fills_defaults_and_stops_at_the_first_refused_value() -> None:
    table = (Setting('rate_hz', 500.0, minimum=1.0, maximum=1000.0), Setting('mode', 'hold', choices=('hold', 'go')))
    assert check_values(table, {'mode': 'go', 'other': 1}) == {'rate_hz': 500.0, 'mode': 'go'}
    with pytest.raises(ConfigError, match="'rate_hz' = 0.0 is invalid"):
        check_values(table, {'rate_hz': 0.0})
    assert list(by_name(table)) == ['rate_hz', 'mode']
