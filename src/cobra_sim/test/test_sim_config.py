"""sim_config: the sim's parameter table and the checks the values alone can judge (no rclpy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cobra_common.errors import StartupError
from cobra_sim.sim_config import PARAMETER_BY_NAME, PARAMETERS, RUNTIME_PARAMETERS, check_parameters

URDF = Path(__file__).resolve().parents[3] / 'urdf' / 'cobra.urdf'


def values(**overrides: object) -> dict[str, object]:
    return {**{spec.name: spec.default for spec in PARAMETERS}, 'urdf_path': str(URDF), **overrides}


def test_the_defaults_pass_and_yaml_booleans_become_lockstep_modes():
    assert check_parameters(values())['lockstep'] == 'auto'
    assert check_parameters(values(lockstep=False))['lockstep'] == 'off'
    assert check_parameters(values(lockstep=True))['lockstep'] == 'on'


@pytest.mark.parametrize('overrides, message', [
    ({'clock_origin': 'noon'}, 'clock_origin:=noon is not one of zero, wall'),
    ({'lockstep': 'sometimes'}, 'lockstep:=sometimes is not one of auto, on, off'),
    ({'imu_period_s': 0.003}, 'imu_period_s'),
    ({'command_period_s': 0.005}, 'command_period_s (0.005 s) must be a whole multiple of the physics step'),
    ({'frame_prefix': '/x'}, 'frame_prefix'),
])
def test_combinations_that_cannot_run_are_one_startup_error(overrides, message):
    with pytest.raises(StartupError, match=message.replace('(', r'\(').replace(')', r'\)')):
        check_parameters(values(**overrides))


def test_run_time_updates_are_refused_with_the_reason_by_the_same_table():
    assert PARAMETER_BY_NAME['real_time_factor'].problem(2.0) is None
    assert PARAMETER_BY_NAME['real_time_factor'].problem(-1.0) == (
        "parameter 'real_time_factor' = -1.0 is invalid: must be a number in [0.0, 1000.0]; "
        'give real_time_factor a number in [0.0, 1000.0]')
    assert PARAMETER_BY_NAME['slope_deg'].problem(90.0) is not None  # the open end
    assert RUNTIME_PARAMETERS <= set(PARAMETER_BY_NAME)
