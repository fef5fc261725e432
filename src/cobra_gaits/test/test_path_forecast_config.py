"""path_forecast_config: the table's rows accept config/path_forecast.yaml and refuse out-of-range values."""

from __future__ import annotations

from pathlib import Path

import yaml

from cobra_gaits.path_forecast_config import PARAMETER_BY_NAME, RUNTIME_PARAMETERS

CONFIG = Path(__file__).resolve().parents[3] / 'config' / 'path_forecast.yaml'


def test_config_path_forecast_yaml_keys_are_rows_and_accepted() -> None:
    values = yaml.safe_load(CONFIG.read_text())['/**/path_forecast']['ros__parameters']
    assert set(values) <= set(PARAMETER_BY_NAME), set(values) - set(PARAMETER_BY_NAME)
    assert [name for name, value in values.items() if PARAMETER_BY_NAME[name].problem(value)] == []
    assert not RUNTIME_PARAMETERS


def test_integer_rows_refuse_fractions_and_out_of_range() -> None:
    assert PARAMETER_BY_NAME['cycles'].problem(2.5) is not None
    assert PARAMETER_BY_NAME['steps_per_cycle'].problem(4) is not None
    assert PARAMETER_BY_NAME['epsilon'].problem(0.5) is None
