"""parameter_table: one typed table per node; validate gives the reason a value is refused."""

from __future__ import annotations

from cobra_common.parameter_table import Parameter, by_name, first_problem, validate

TABLE = by_name((
    Parameter('rate_hz', 100.0, 'rate [Hz]', 1.0, 1000.0),
    Parameter('mode', 'auto', 'mode', choices=('auto', 'on', 'off'), read_only=True),
    Parameter('flag', True, 'a flag'),
))


def test_validate_names_the_parameter_the_value_and_the_bound():
    assert validate(TABLE['rate_hz'], 50.0) is None
    assert validate(TABLE['rate_hz'], 0.5) == 'rate_hz must be >= 1.0, got 0.5'
    assert validate(TABLE['rate_hz'], 2000.0) == 'rate_hz must be <= 1000.0, got 2000.0'
    assert validate(TABLE['mode'], 'sometimes') == "mode must be one of ['auto', 'on', 'off'], got 'sometimes'"
    assert validate(TABLE['flag'], False) is None  # a boolean is not range-checked as a number


def test_first_problem_skips_names_outside_the_table():
    assert first_problem(TABLE, {'use_sim_time': True, 'rate_hz': 10.0}) is None
    assert first_problem(TABLE, {'rate_hz': 10.0, 'mode': 'x'}) == "mode must be one of ['auto', 'on', 'off'], got 'x'"
