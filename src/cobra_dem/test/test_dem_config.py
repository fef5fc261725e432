"""dem_config: the DEM node's parameter table and the checks the values alone can judge (no rclpy,
no engine: the scenario file is read and validated, nothing runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from cobra_common.errors import StartupError
from cobra_dem.dem_config import PARAMETER_BY_NAME, PARAMETERS, RUNTIME_PARAMETERS, check_parameters

CONFIG = Path(__file__).resolve().parents[3] / 'config' / 'dem.yaml'


def defaults() -> dict[str, Any]:
    return {setting.name: setting.default for setting in PARAMETERS}


def test_the_defaults_run_the_default_scenario() -> None:
    p = check_parameters(defaults())
    assert p['scenario'].name and p['body_frame'] == p['scenario'].body.kind
    assert not RUNTIME_PARAMETERS  # a run's scenario is fixed at its start


def test_config_dem_yaml_keys_are_rows_of_the_table_and_accepted() -> None:
    values = yaml.safe_load(CONFIG.read_text())['dem_node']['ros__parameters']
    assert set(values) <= set(PARAMETER_BY_NAME), set(values) - set(PARAMETER_BY_NAME)
    assert [PARAMETER_BY_NAME[name].problem(value) for name, value in values.items()] == [None] * len(values)
    check_parameters({**defaults(), **values})


@pytest.mark.parametrize('change, message', [
    ({'backend': 'chrono'}, "parameter 'backend' = 'chrono' is invalid: must be one of ['', 'lammps', 'deme']; "
                            "set backend:=lammps or backend:=deme ('' = the scenario's)"),
    ({'body_frame': '2wheel'}, "body_frame:='2wheel' is not a frame/topic name"),
    ({'frame_prefix': 'cobra'}, "frame_prefix:='cobra' is not a frame prefix"),
    ({'scenario_overrides': 'slope_deg=95'}, "parameter 'slope_deg' = 95 is invalid"),
])
def test_bad_values_are_refused_naming_the_fix(change: dict[str, Any], message: str) -> None:
    with pytest.raises(StartupError) as error:
        check_parameters({**defaults(), **change})
    assert message in str(error.value)


def test_ranges_are_the_tables() -> None:
    assert PARAMETER_BY_NAME['heightmap_cell_m'].problem(0.6) is not None
    assert PARAMETER_BY_NAME['wait_for_peers_s'].problem(600.0) is None
