"""Sweeps on local Ray (2 CPUs, started once for the module): rows, retry, resume, Bayesian
search, soil calibration, and bad input refused with exit 2 before anything is written."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

TEST_DIR = Path(__file__).resolve().parent

from cobra_sweeps.bag_target import BagTargetError, bag_target, record_trial_bag, spec_with_bag_target  # noqa: E402
from cobra_sweeps.calibrate import calibrate, refine_one_parameter  # noqa: E402
from cobra_sweeps.cli import main  # noqa: E402
from cobra_sweeps.plots import pareto_front  # noqa: E402
from cobra_sweeps.runner import TABLE_NAME, init_ray, run_sweep  # noqa: E402
from cobra_sweeps.spec import parse_spec, trial_key  # noqa: E402
from cobra_sweeps.trial import run_trial  # noqa: E402

SHORT_RIGID = {'terrain': 'rigid', 'duration_s': 1.0, 'settle_s': 0.2, 'ramp_duration_s': 0.5}


@pytest.fixture(scope='module')
def local_ray() -> Iterator[None]:
    """One local Ray for the module; the helper trial module importable by its workers."""
    import ray
    sys.path.insert(0, str(TEST_DIR))
    started = init_ray(2, None)
    yield
    if started:
        ray.shutdown()
    sys.path.remove(str(TEST_DIR))


def test_four_trial_grid_sweep_gives_four_rows(local_ray: None, tmp_path: Path) -> None:
    spec = parse_spec({'search': 'grid', 'fixed': SHORT_RIGID,
                       'space': {'frequency_hz': [0.4, 0.5], 'amplitude_horizontal_rad': [0.5, 0.7]}})
    table = run_sweep(spec, tmp_path, progress=False)
    on_disk = pd.read_parquet(tmp_path / TABLE_NAME)
    assert len(table) == len(on_disk) == 4
    assert on_disk['trial_key'].nunique() == 4 and on_disk['error'].isna().all()
    assert sorted(zip(on_disk['frequency_hz'], on_disk['amplitude_horizontal_rad'])) == \
        [(0.4, 0.5), (0.4, 0.7), (0.5, 0.5), (0.5, 0.7)]
    # sidewinding moves the robot; stride = speed x cycle length; CoT positive
    assert (on_disk['speed_m_s'] > 0.02).all()
    assert np.allclose(on_disk['stride_m_per_cycle'], on_disk['speed_m_s'] / on_disk['frequency_hz'])
    assert (on_disk['cost_of_transport'] > 0).all() and (on_disk['peak_normal_force_n'] > 0).all()


def test_a_trial_that_raises_is_retried_once_then_reported(local_ray: None, tmp_path: Path) -> None:
    spec = parse_spec({'search': 'grid', 'trial_function': 'sweep_test_trials:fail_always_or_first',
                       'fixed': {'marker_dir': str(tmp_path)}, 'space': {'x': [1, 2]}})
    table = run_sweep(spec, tmp_path / 'out', progress=False).set_index('x')
    assert len(table) == 2
    assert table.loc[1, 'error'] == 'ValueError: boom: x = 1 is broken' and table.loc[1, 'attempts'] == 2
    assert table.loc[2, 'error'] is None or pd.isna(table.loc[2, 'error'])  # the retry succeeded
    assert table.loc[2, 'attempts'] == 2 and table.loc[2, 'speed_m_s'] == 2.0


def test_resume_runs_only_the_trials_not_in_the_table(local_ray: None, tmp_path: Path) -> None:
    calls = tmp_path / 'calls'
    calls.mkdir()
    out = tmp_path / 'out'
    first = {'search': 'grid', 'trial_function': 'sweep_test_trials:count_calls',
             'fixed': {'calls_dir': str(calls)}, 'space': {'x': [1, 2]}}
    run_sweep(parse_spec(first), out, progress=False)
    assert len(list(calls.iterdir())) == 2
    # the interrupted/extended sweep: same two trials plus one new one
    table = run_sweep(parse_spec({**first, 'space': {'x': [1, 2, 3]}}), out, progress=False)
    assert sorted(p.name.split('_')[0] for p in calls.iterdir()) == ['1', '2', '3']
    assert sorted(table['x']) == [1, 2, 3] and table['trial_key'].is_unique
    run_sweep(parse_spec({**first, 'space': {'x': [1, 2, 3]}}), out, progress=False)
    assert len(list(calls.iterdir())) == 3  # nothing redone
    assert len(pd.read_parquet(out / TABLE_NAME)) == 3


def test_trials_run_at_the_drivers_cpu_priority(local_ray: None, tmp_path: Path) -> None:
    """Ray's default worker niceness 15 let every other process on a shared machine slow the
    trials down (the per-trial overhead of the 2-core bench); a local sweep's workers run at ours."""
    import os
    spec = parse_spec({'search': 'grid', 'trial_function': 'sweep_test_trials:report_niceness', 'space': {'x': [1]}})
    table = run_sweep(spec, tmp_path, progress=False)
    assert table['speed_m_s'].tolist() == [float(os.nice(0))]


def test_an_interrupted_sweep_keeps_every_finished_row(local_ray: None, tmp_path: Path) -> None:
    """The table is written at most once a minute here, yet an interruption (the third finished
    row raises in the driver, as Ctrl-C would) leaves the rows finished before it on disk."""
    calls = tmp_path / 'calls'
    calls.mkdir()
    spec = parse_spec({'search': 'grid', 'trial_function': 'sweep_test_trials:count_calls',
                       'fixed': {'calls_dir': str(calls)}, 'space': {'x': [1, 2, 3, 4]}})
    finished = []

    def interrupt_at_third(row: dict) -> dict:
        finished.append(row['x'])
        if len(finished) == 3:
            raise KeyboardInterrupt
        return {}

    with pytest.raises(KeyboardInterrupt):
        run_sweep(spec, tmp_path / 'out', progress=False, derived=interrupt_at_third, write_interval_s=60.0)
    on_disk = pd.read_parquet(tmp_path / 'out' / TABLE_NAME)
    assert sorted(on_disk['x']) == sorted(finished[:2])


def test_bayesian_search_runs_its_budget_and_resumes(local_ray: None, tmp_path: Path) -> None:
    spec = {'search': 'bayesian', 'num_samples': 6, 'metric': 'speed_m_s', 'mode': 'max', 'seed': 1,
            'trial_function': 'sweep_test_trials:quadratic', 'space': {'x': {'uniform': [0.0, 1.0]}}}
    table = run_sweep(parse_spec(spec), tmp_path, progress=False)
    assert len(table) == 6 and table['error'].isna().all()
    assert ((table['x'] >= 0.0) & (table['x'] <= 1.0)).all()
    again = run_sweep(parse_spec({**spec, 'num_samples': 8}), tmp_path, progress=False)
    assert len(again) == 8 and set(table['trial_key']) < set(again['trial_key'])


def test_soil_calibration_recovers_a_known_kphi(local_ray: None, tmp_path: Path) -> None:
    """Target made by the sim on SCM with K_phi = 5e4 (off the grid): the estimate lands near it."""
    true_kphi = 5.0e4
    fixed = {'terrain': 'scm', 'duration_s': 2.5}
    target = run_trial({**fixed, 'terrain.soil.Bekker_Kphi': true_kphi})
    spec = parse_spec({'search': 'grid', 'fixed': fixed,
                       'space': {'terrain.soil.Bekker_Kphi': [1.5e4, 3.2e4, 7.0e4, 1.5e5]},
                       'target': {k: target[k] for k in ('stride_m_per_cycle', 'sinkage_m')}})
    result = calibrate(spec, tmp_path, progress=False, verify=False)
    estimate = result.parameters['terrain.soil.Bekker_Kphi']
    assert result.refined
    assert abs(math.log(estimate / true_kphi)) < math.log(1.25), estimate


BAG_GRID = [1.5e4, 3.2e4, 7.0e4, 1.5e5]


@pytest.fixture(scope='module')
def sand_bag(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sim-made bag: gait1 on SCM with K_phi = 5e4, 3 cycles after the ramp (joint_commands,
    ground_truth/odom)."""
    path = tmp_path_factory.mktemp('bags') / 'sand_kphi_5e4'
    record_trial_bag({'terrain': 'scm', 'duration_s': 7.5, 'terrain.soil.Bekker_Kphi': 5.0e4}, path)
    return path


def test_soil_calibration_from_a_bag_recovers_its_kphi(local_ray: None, tmp_path: Path, sand_bag: Path) -> None:
    """Target read from the bag (head stride, head height), not given: K_phi = 5e4 comes back
    (measured 5.04e4; tolerance 10 %)."""
    target = bag_target(sand_bag)
    assert set(target.target) == {'head_stride_m_per_cycle', 'head_height_m'}
    assert target.steady_cycles == 2  # the ramp's cycle left out
    spec = parse_spec({'search': 'grid', 'fixed': {'terrain': 'scm', 'duration_s': 5.0},
                       'space': {'terrain.soil.Bekker_Kphi': BAG_GRID}})
    result = calibrate(spec_with_bag_target(spec, target), tmp_path, progress=False, verify=False)
    estimate = result.parameters['terrain.soil.Bekker_Kphi']
    assert abs(math.log(estimate / 5.0e4)) < math.log(1.10), estimate


def test_calibrate_bag_refuses_a_bag_without_a_stride_or_at_another_frequency(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], sand_bag: Path) -> None:
    spec_path = tmp_path / 'spec.yaml'
    spec_path.write_text('fixed: {terrain: scm, frequency_hz: 0.3}\n'
                         'space: {terrain.soil.Bekker_Kphi: [1.0e+4, 1.0e+5]}')
    out = tmp_path / 'out'
    assert main(['calibrate', str(spec_path), '--bag', str(sand_bag), '--out', str(out)]) == 2
    assert 'set fixed.frequency_hz: 0.4' in capsys.readouterr().err
    empty = tmp_path / 'not_a_bag'
    empty.mkdir()
    assert main(['calibrate', str(spec_path), '--bag', str(empty), '--out', str(out)]) == 2
    assert capsys.readouterr().err.startswith('cobra_sweep: error:')
    assert not out.exists()


@pytest.mark.parametrize('sinkage_text, expected', [('0.014', 0.014), ('deep', None)])
def test_bag_sinkage_comes_from_custom_data(tmp_path: Path, sinkage_text: str, expected: float | None) -> None:
    bag = tmp_path / 'bag'
    record_trial_bag({'duration_s': 5.0, 'settle_s': 0.2}, bag, {'cobra.sinkage_m': sinkage_text})
    if expected is None:
        with pytest.raises(BagTargetError, match='cobra.sinkage_m'):
            bag_target(bag)
    else:
        assert bag_target(bag).target['sinkage_m'] == expected


def test_refinement_is_exact_for_a_locally_linear_miss() -> None:
    grid = np.geomspace(1e4, 1e6, 5)
    errors = np.abs(np.log(grid) - np.log(4.2e4))  # |linear in log K|: its square is a parabola
    assert refine_one_parameter(grid, errors) == pytest.approx(4.2e4, rel=1e-9)


def test_pareto_front_keeps_only_undominated_points() -> None:
    speed = np.array([0.1, 0.2, 0.2, 0.3, 0.05, np.nan])
    cost = np.array([1.0, 2.0, 1.5, 3.0, 0.5, 0.1])
    assert list(pareto_front(speed, cost)) == [4, 0, 2, 3]


def test_trial_key_depends_on_every_parameter_and_not_on_order() -> None:
    assert trial_key({'a': 1, 'b': 2.0}) == trial_key({'b': 2.0, 'a': 1})
    assert trial_key({'a': 1, 'b': 2.0}) != trial_key({'a': 1, 'b': 2.5})


@pytest.mark.parametrize(('spec_text', 'words'), [
    ('space: {terrain: [rigid, lava]}', ["unknown terrain 'lava'", 'rigid']),
    ('space: {frequency_hz: {uniform: [0.1, 0.5]}}', ['grid search needs lists', 'frequency_hz']),
    ('space: {stiffness: [1, 2]}', ["unknown trial parameter(s) ['stiffness']"]),
    ('fixed: {terrain: scm}\nspace: {terrain.soil.no_such_key: [1, 2]}', ['terrain.soil.no_such_key', 'names no key']),
    ('fixed: {terrain: rigid}\nspace: {terrain.soil.Bekker_Kphi: [1, 2]}', ['reads no parameter file']),
    ('space: {frequency_hz: [0.4, 3.0]}', ['frequency_hz must be within']),
    ('search: bayesian\nnum_samples: 3\nspace: {frequency_hz: {uniform: [0.1, 0.5]}}', ['needs metric']),
    ('search: [oops', ['not valid YAML']),
])
def test_bad_input_is_one_clear_error_exit_2_nothing_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], spec_text: str, words: list[str]) -> None:
    spec_path = tmp_path / 'spec.yaml'
    spec_path.write_text(spec_text)
    out = tmp_path / 'out'
    assert main(['run', str(spec_path), '--out', str(out), '--no-progress']) == 2
    error = capsys.readouterr().err
    assert error.startswith('cobra_sweep: error:') and error.count('\n') == 1
    for word in words:
        assert word in error
    assert not out.exists()


def test_trial_metrics_on_made_up_samples() -> None:
    """COM moving 0.5 m along +y in 2 cycles of 1 s, one joint at a steady 3 W, a body turning
    0.1 rad: speed, stride, direction, CoT = work / (m g d), drift, peaks, sinkage."""
    from cobra_sweeps.trial import STANDARD_GRAVITY_M_S2, TrialSamples, trial_metrics
    dt_s, count = 0.01, 201
    t = np.arange(count) * dt_s
    yaw = 0.05 * t  # 0.1 rad over the 2 s window
    axis = np.stack([np.cos(yaw), np.sin(yaw)], axis=1)
    link_xy = axis[:, None, :] * np.array([0.2, 0.0, -0.2])[None, :, None]  # head first, along the axis
    samples = TrialSamples(
        com_m=[np.array([0.0, 0.25 * k * dt_s, 0.05]) for k in range(count)],
        link_xy_m=list(link_xy), lowest_link_z_m=[0.03] * count,
        power_w=[np.array([3.0, 0.0])] * count, torque_nm=[np.array([1.5, -0.0])] * count,
        normal_force_n=[10.0] * (count - 1) + [25.0])
    metrics = trial_metrics(samples, dt_s, cycles=2, frequency_hz=1.0, mass_kg=4.0, rest_height_m=0.04)
    assert metrics['speed_m_s'] == pytest.approx(0.25)
    assert metrics['stride_m_per_cycle'] == pytest.approx(0.25)
    assert metrics['travel_direction_rad'] == pytest.approx(math.pi / 2)
    assert metrics['heading_drift_rad'] == pytest.approx(0.1, rel=1e-6)
    assert metrics['cost_of_transport'] == pytest.approx(3.0 * count * dt_s / (4.0 * STANDARD_GRAVITY_M_S2 * 0.5))
    assert metrics['peak_joint_power_w'] == 3.0 and metrics['peak_joint_torque_nm'] == 1.5
    assert metrics['peak_normal_force_n'] == 25.0 and metrics['sinkage_m'] == pytest.approx(0.01)


@pytest.mark.parametrize('make_out', [
    lambda tmp: (tmp / 'a_file').write_text('x') and tmp / 'a_file',
    lambda tmp: (tmp / 'a_file').write_text('x') and tmp / 'a_file' / 'sweep',
])
def test_an_out_that_is_or_lies_under_a_file_exits_2_before_ray_starts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, make_out) -> None:
    import cobra_sweeps.runner
    started = []
    monkeypatch.setattr(cobra_sweeps.runner, 'init_ray', lambda *args: started.append(args) or False)
    spec_path = tmp_path / 'spec.yaml'
    spec_path.write_text('space: {frequency_hz: [0.4]}\n')
    out = make_out(tmp_path)
    assert main(['run', str(spec_path), '--out', str(out), '--no-progress']) == 2
    error = capsys.readouterr().err
    assert error.startswith('cobra_sweep: error: --out') and error.count('\n') == 1, error
    assert 'file' in error and 'give a folder' in error
    assert started == []
    assert (tmp_path / 'a_file').read_text() == 'x'


def spec_file(tmp_path: Path, name: str, fixed: dict, space: dict) -> Path:
    import yaml
    path = tmp_path / f'{name}.yaml'
    path.write_text(yaml.safe_dump({'name': name, 'trial_function': 'sweep_test_trials:count_calls',
                                    'fixed': fixed, 'space': space}))
    return path


def test_another_spec_into_an_out_folder_is_refused_and_force_starts_over(
        local_ray: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    calls = tmp_path / 'calls'
    calls.mkdir()
    out = tmp_path / 'out'
    short = spec_file(tmp_path, 'short', {'calls_dir': str(calls), 'duration_s': 1.0}, {'x': [1, 2], 'y': [5]})
    assert main(['run', str(short), '--out', str(out), '--no-progress']) == 0
    assert (out / 'metrics_vs_y.png').exists()
    capsys.readouterr()
    # more grid values of the same experiment: allowed, only the new point runs
    extended = spec_file(tmp_path, 'short', {'calls_dir': str(calls), 'duration_s': 1.0}, {'x': [1, 2, 3], 'y': [5]})
    assert main(['run', str(extended), '--out', str(out), '--no-progress', '--no-plots']) == 0
    assert len(pd.read_parquet(out / TABLE_NAME)) == 3 and len(list(calls.iterdir())) == 3
    capsys.readouterr()

    long = spec_file(tmp_path, 'long', {'calls_dir': str(calls), 'duration_s': 30.0, 'y': 5}, {'x': [1, 2]})
    assert main(['run', str(long), '--out', str(out), '--no-progress']) == 2
    error = capsys.readouterr().err
    assert error.count('\n') == 1 and 'holds the results of another sweep (short' in error, error
    assert 'fixed.duration_s: 1.0 there, 30.0 here' in error and 'new --out' in error and '--force' in error
    assert len(pd.read_parquet(out / TABLE_NAME)) == 3  # untouched

    killed_write = out / f'.{TABLE_NAME}.k1ll3d.parquet'  # the temporary of a run killed mid-write
    killed_write.write_bytes(b'PAR1')
    assert main(['run', str(long), '--out', str(out), '--no-progress', '--force']) == 0
    assert not killed_write.exists()
    table = pd.read_parquet(out / TABLE_NAME)
    assert sorted(table['x']) == [1, 2] and (table['duration_s'] == 30.0).all()
    assert not (out / 'metrics_vs_y.png').exists() and (out / 'metrics_vs_x.png').exists()
    assert main(['run', str(long), '--out', str(out), '--no-progress', '--no-plots']) == 0  # resumes


def test_an_out_folder_with_a_table_but_no_spec_record_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(TEST_DIR))
    out = tmp_path / 'out'
    out.mkdir()
    pd.DataFrame({'trial_key': ['k'], 'x': [1]}).to_parquet(out / TABLE_NAME)
    spec = spec_file(tmp_path, 's', {'calls_dir': str(tmp_path)}, {'x': [1]})
    assert main(['run', str(spec), '--out', str(out), '--no-progress']) == 2
    assert 'no sweep_spec.yaml' in capsys.readouterr().err


def test_ctrl_c_keeps_the_finished_trials_in_one_line_and_the_rerun_resumes(tmp_path: Path) -> None:
    """SIGINT to the whole process group (as Ctrl-C in a terminal) once one trial's row is on disk."""
    import os
    import signal
    import subprocess
    import time
    calls = tmp_path / 'calls'
    calls.mkdir()
    release = tmp_path / 'release'
    spec = tmp_path / 'spec.yaml'
    spec.write_text(f"trial_function: 'sweep_test_trials:first_then_wait'\n"
                    f"fixed: {{calls_dir: '{calls}', release_file: '{release}'}}\nspace: {{x: [1, 2, 3]}}\n")
    out = tmp_path / 'out'
    command = [sys.executable, '-m', 'cobra_sweeps.cli', 'run', str(spec), '--out', str(out), '--num-cpus', '2',
               '--no-progress', '--no-plots']
    env = {**os.environ, 'PYTHONPATH': os.pathsep.join([str(TEST_DIR), *sys.path])}
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + 300.0
        while not (out / TABLE_NAME).exists():  # the first trial's row is written as soon as it finishes
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, 'no trial finished'
            time.sleep(0.1)
        os.killpg(process.pid, signal.SIGINT)
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, stderr
    assert 'Traceback' not in stderr + stdout and 'KeyboardInterrupt' not in stderr, stderr
    interrupted = [line for line in stderr.splitlines() if 'interrupted' in line]
    assert interrupted == [f'cobra_sweep: interrupted: 1 finished trials kept in {out / TABLE_NAME}; run the '
                           'same command again to resume (they are not run again)'], stderr
    assert pd.read_parquet(out / TABLE_NAME)['x'].tolist() == [1]

    release.touch()
    resumed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert sorted(pd.read_parquet(out / TABLE_NAME)['x']) == [1, 2, 3]
    assert sorted(p.name.split('_')[0] for p in calls.iterdir()).count('1') == 1  # not run again
