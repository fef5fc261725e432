"""DEM on Chrono DEM-Engine (issue 11): the `deme` backend without a GPU (clear refusal, pure mapping
and geometry helpers) and, where an NVIDIA GPU and `deme` are present, one real run.

The refusal tests through the scripts need a machine without an NVIDIA driver (they are skipped,
with the reason, on a GPU machine, where the real run below is the check instead); the module-API
refusal tests fake the driver check and run everywhere.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cobra_dem import deme_backend
from cobra_dem import scenario as scenario_module
from cobra_dem.scenario import (DemeUnavailableError, Scenario, ScenarioError, clump_volume_m3, deme_problem,
                                    nvidia_driver_present, scenario_from_dict)

REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_YAML = REPO_ROOT / 'config' / 'dem' / 'tumble_slope.yaml'
NO_GPU_ONLY = pytest.mark.skipif(nvidia_driver_present(),
                                 reason='this machine has an NVIDIA driver: the no-GPU refusal cannot happen here')
FIX_NEEDLES = ('NVIDIA', 'pip install "deme[cuda12]"', 'backend lammps')


def test_backend_module_imports_without_deme() -> None:
    code = ('import sys; import cobra_dem.deme_backend as b; '
            'print(json.dumps(["deme" in sys.modules, callable(b.run_scenario)]))')
    result = subprocess.run([sys.executable, '-c', 'import json; ' + code], capture_output=True, text=True,
                            timeout=120, cwd=REPO_ROOT, env={'PYTHONPATH': os.pathsep.join(str(REPO_ROOT / 'src' / name) for name in ('cobra_dem', 'cobra_common')),
                                                             'PATH': '/usr/bin:/bin'})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [False, True]


def test_material_mapping_gives_the_thesis_values() -> None:
    props = deme_backend.material_properties(Scenario())
    # thesis §21: terrain, wheel, and the wheel/terrain pair (Crr: the larger of the two, not stated)
    assert props['terrain'] == {'E': 1e8, 'nu': 0.3, 'CoR': 0.1, 'mu': 0.67, 'Crr': 0.05}
    assert props['wheel'] == {'E': 1e9, 'nu': 0.3, 'CoR': 0.4, 'mu': 0.6, 'Crr': 0.02}
    assert props['wheel_terrain'] == {'CoR': 0.2, 'mu': 0.67, 'Crr': 0.05}
    changed = scenario_from_dict({'wheel': {'rolling_resistance': 0.08}, 'wheel_terrain_friction': 0.5})
    assert deme_backend.material_properties(changed)['wheel_terrain'] == {'CoR': 0.2, 'mu': 0.5, 'Crr': 0.08}


def test_selecting_deme_without_a_driver_raises_one_clear_error(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    monkeypatch.setattr(scenario_module, 'nvidia_driver_present', lambda: False)
    with pytest.raises(DemeUnavailableError) as caught:
        scenario_from_dict({'backend': 'deme'}).validate()
    assert all(needle in str(caught.value) for needle in FIX_NEEDLES), caught.value
    assert isinstance(caught.value, ScenarioError)                 # scripts map it to exit 2
    # the backend refuses the same way before touching anything
    with pytest.raises(DemeUnavailableError, match='NVIDIA'):
        deme_backend.run_scenario(Scenario(backend='deme'), tmp_path / 'out', tmp_path / 'cache',
                                  log=lambda _line: None)
    assert not (tmp_path / 'out').exists()


def test_driver_without_the_package_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scenario_module, 'nvidia_driver_present', lambda: True)
    monkeypatch.setattr(scenario_module, 'deme_installed', lambda: False)
    with pytest.raises(DemeUnavailableError, match=r'not installed: `pip install "deme\[cuda12\]"`'):
        scenario_from_dict({'backend': 'deme'}).validate()
    monkeypatch.setattr(scenario_module, 'deme_installed', lambda: True)
    assert deme_problem() is None
    scenario_from_dict({'backend': 'deme'}).validate()             # available: no error
    with pytest.raises(ScenarioError, match='lammps backend only'):
        scenario_from_dict({'backend': 'deme', 'mpi': True}).validate()


@NO_GPU_ONLY
@pytest.mark.parametrize('how', ['flag', 'yaml'])
def test_dem_run_with_deme_exits_2_naming_the_fix(tmp_path: Path, how: str) -> None:
    if how == 'flag':
        args = [str(DEFAULT_YAML), '--backend', 'deme']
    else:
        scenario_file = tmp_path / 'deme.yaml'
        scenario_file.write_text(DEFAULT_YAML.read_text().replace('backend: lammps', 'backend: deme'))
        args = [str(scenario_file)]
    out_dir = tmp_path / 'out'
    result = subprocess.run([sys.executable, '-m', 'cobra_experiments.dem_run', *args, '--out', str(out_dir),
                             '--cache', str(tmp_path / 'cache')], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count('error:') == 1
    assert all(needle in result.stderr for needle in FIX_NEEDLES), result.stderr
    assert not out_dir.exists() and not (tmp_path / 'cache').exists()


@NO_GPU_ONLY
def test_gpu_check_exits_3_without_a_gpu(tmp_path: Path) -> None:
    out_dir = tmp_path / 'out'
    result = subprocess.run([sys.executable, '-m', 'cobra_experiments.dem_gpu_check', '--quick', '--out',
                             str(out_dir)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 3, result.stderr
    assert 'no GPU run possible here' in result.stderr and 'NVIDIA' in result.stderr
    assert not out_dir.exists()


def test_gpu_check_refuses_bad_input_with_exit_2(tmp_path: Path) -> None:
    for args in (['--duration', '-1'], ['--quick', str(tmp_path / 'missing.yaml')]):
        result = subprocess.run([sys.executable, '-m', 'cobra_experiments.dem_gpu_check', *args, '--out',
                                 str(tmp_path / 'out')], capture_output=True, text=True, timeout=120)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.count('error:') == 1
    assert not (tmp_path / 'out').exists()


@pytest.mark.parametrize('body', [{}, {'kind': 'cobra_loop'}], ids=['wheel', 'cobra_loop'])
def test_layout_fits_the_body_run_between_the_walls(body: dict) -> None:
    scenario = scenario_from_dict({'duration_s': 0.3, 'body': body, 'bed': {'length_m': 0.8}}).validate()
    layout = deme_backend.deme_layout(scenario)
    extent = scenario.bed.clump_extent_m
    reach_x, _, reach_z = scenario.body.shape.half_extent_m()             # wheel: r, r; loop: 0.336, 0.295 m
    assert layout.body_x_m - reach_x >= 2 * extent - 1e-12               # clear of the upslope wall
    # bound: frictionless sliding (0.5 g sin 24 t^2 = 0.179 m) + v_ref t (wheel 0.047 m, loop 0.074 m)
    assert layout.travel_bound_m == pytest.approx(0.5 * 9.8 * math.sin(math.radians(24)) * 0.09
                                                  + math.pi / 4 * scenario.body.shape.rolling_radius_m * 0.3)
    assert layout.length_m >= layout.body_x_m + layout.travel_bound_m + reach_x + 2 * extent - 1e-12
    assert layout.length_m >= scenario.bed.length_m
    # the LAMMPS fill density over the longer bed, and an HCP box with room for them all
    expected = scenario.bed.fill_packing * layout.length_m * scenario.bed.width_m * scenario.bed.depth_m / clump_volume_m3(
        scenario.bed.sphere_radius_m, scenario.bed.clump_spacing_of_radius)
    assert layout.n_clumps == round(expected)
    hx, hy, hz = layout.fill_half_m
    assert 8 * hx * hy * hz * math.sqrt(2.0) / layout.hcp_spacing_m ** 3 > 1.2 * layout.n_clumps
    assert layout.fill_centre_m[2] - hz >= scenario.bed.sphere_radius_m + 0.5 * extent   # above the base
    assert layout.body_parked_z_m - reach_z > layout.fill_centre_m[2] + hz + extent      # parked above the fill
    assert layout.top_z_m > layout.body_parked_z_m + reach_z


def test_clump_inertia_of_touching_spheres_matches_the_parallel_axis_sum() -> None:
    scenario = scenario_from_dict({'bed': {'clump_spacing_of_radius': 2.0}})
    a = scenario.bed.sphere_radius_m
    mass, (ixx, iyy, izz) = deme_backend.clump_mass_properties(scenario)
    sphere_mass = mass / 3
    circumradius_sq = (2 * a) ** 2 / 3
    own = 3 * 0.4 * sphere_mass * a * a
    assert iyy == pytest.approx(own + 3 * sphere_mass * circumradius_sq, rel=0.02)      # triangle normal (y)
    assert ixx == pytest.approx(own + 1.5 * sphere_mass * circumradius_sq, rel=0.02)    # in-plane axes
    assert izz == pytest.approx(ixx, rel=0.01)


def test_sphere_centres_follow_deme_quaternions_xyzw() -> None:
    offsets = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
    quarter_turn_about_z = [0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4)]
    centres = deme_backend.clump_sphere_centres_m(np.array([[10.0, 0.0, 0.0], [0.0, 0.0, 5.0]]),
                                                  np.array([quarter_turn_about_z, [0.0, 0.0, 0.0, 1.0]]), offsets)
    np.testing.assert_allclose(centres, [[10.0, 1.0, 0.0], [10.0, 0.0, 2.0], [1.0, 0.0, 5.0], [0.0, 0.0, 7.0]],
                               atol=1e-12)


@pytest.mark.skipif(deme_problem() is not None, reason='needs an NVIDIA GPU and deme')
def test_real_deme_run_flat_bed_sinkage_and_outputs(tmp_path: Path) -> None:
    scenario = scenario_from_dict({'backend': 'deme', 'slope_deg': 0.0, 'duration_s': 0.1,
                                   'bed': {'length_m': 0.2, 'width_m': 0.16, 'sphere_radius_m': 0.004,
                                           'depth_m': 0.032, 'settle_time_s': 0.15, 'settle_max_time_s': 0.4},
                                   'body': {'motion': 'free', 'start_x_m': 0.1, 'settle_time_s': 0.1}}).validate()
    summary = deme_backend.run_scenario(scenario, tmp_path, tmp_path / 'cache', log=print)
    trace = np.load(tmp_path / 'trajectory.npz')
    assert set(trace.files) >= {'time_s', 'position_m', 'quaternion_xyzw', 'velocity_m_s', 'angular_velocity_rad_s',
                                'contact_force_n', 'contact_torque_nm', 'sinkage_m'}
    sinkage_m = trace['sinkage_m'][trace['time_s'] >= 0.05]
    print('deme flat sinkage mean', float(np.mean(sinkage_m)), 'Fz mean', float(np.mean(trace['contact_force_n'][:, 2])),
          summary)
    # the LAMMPS test's bounds for the same bed (not yet measured on DEM-Engine): positive, < half the depth
    assert 0.0 < float(np.mean(sinkage_m)) < 0.5 * scenario.bed.depth_m, sinkage_m
    assert abs(float(np.mean(trace['contact_force_n'][:, 2])) - 6.0 * 9.8) < 0.35 * 6.0 * 9.8
    assert abs(summary['distance_descended_m']) < 0.01
    particles = np.load(tmp_path / 'particles.npz')
    assert particles['positions_q'].dtype == np.int16 and particles['positions_q'].shape[0] == 2
    assert json.loads((tmp_path / 'summary.json').read_text())['backend'] == 'deme'
    assert summary['deme_sphere_steps_per_s'] > 0


def _gpu_check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, '-m', 'cobra_experiments.dem_gpu_check', *args], capture_output=True,
                          text=True, timeout=120)


def _lammps_half(folder: Path, scenario: Scenario) -> None:
    """What `dem_gpu_check --engines lammps` leaves: the resolved scenario and the LAMMPS summary."""
    from cobra_experiments.dem_gpu_check import write_scenario_yaml
    (folder / 'lammps').mkdir(parents=True)
    write_scenario_yaml(scenario, folder / 'scenario.yaml')
    (folder / 'lammps' / 'summary.json').write_text(json.dumps({'final_sinkage_m': 0.001}))


def test_gpu_half_refuses_a_lammps_half_of_another_scenario(tmp_path: Path) -> None:
    from cobra_experiments.dem_gpu_check import CHECK_DURATION_S, QUICK_OVERRIDES
    from cobra_dem.scenario import load_scenario
    quick = load_scenario(DEFAULT_YAML, **QUICK_OVERRIDES, duration_s=CHECK_DURATION_S, backend='lammps', mpi=False)
    _lammps_half(tmp_path / 'half', quick)
    # the half was made with --quick: a run without it is another scenario (exit 2, nothing written)
    result = _gpu_check('--engines', 'deme', '--compare-with', str(tmp_path / 'half'), '--out', str(tmp_path / 'out'))
    assert result.returncode == 2, result.stderr
    assert 'differs from this run' in result.stderr and result.stderr.count('error:') == 1
    for args in (['--engines', 'deme'], ['--compare-with', str(tmp_path / 'half')],
                 ['--engines', 'deme', '--compare-with', str(tmp_path / 'missing')]):
        result = _gpu_check('--quick', *args, '--out', str(tmp_path / 'out'))
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.count('error:') == 1 and '--engines lammps' in result.stderr, result.stderr
    assert not (tmp_path / 'out').exists()


@NO_GPU_ONLY
def test_gpu_half_with_a_matching_lammps_half_gets_to_the_gpu_check(tmp_path: Path) -> None:
    from cobra_experiments.dem_gpu_check import CHECK_DURATION_S, QUICK_OVERRIDES
    from cobra_dem.scenario import load_scenario
    quick = load_scenario(DEFAULT_YAML, **QUICK_OVERRIDES, duration_s=CHECK_DURATION_S, backend='lammps', mpi=False)
    _lammps_half(tmp_path / 'half', quick)
    result = _gpu_check('--quick', '--engines', 'deme', '--compare-with', str(tmp_path / 'half'),
                        '--out', str(tmp_path / 'out'))
    assert result.returncode == 3 and 'no GPU run possible here' in result.stderr, result.stderr
