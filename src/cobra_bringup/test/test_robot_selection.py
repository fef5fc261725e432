"""robot:=cobra|tsnake, gait:=lts|tumble, lts_preset and slope_deg through node_set and the
pre-start check (no process started), and the per-launch-file defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from cobra_bringup import runner
from cobra_bringup.node_set import BringupError, node_set, parse_arguments
from cobra_bringup.prestart import validate_node_set

PACKAGE = Path(__file__).resolve().parents[1]
CONFIG_DIR = PACKAGE / 'config'


@pytest.fixture(autouse=True)
def _isolated(ros_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Own ROS domain, bags under tmp_path, URDFs by robot name (no $COBRA_URDF override)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv('COBRA_URDF', raising=False)


def _specs(*words: str, launch_file: str = 'sidewind.launch.py') -> dict:
    return {spec.name: spec for spec in node_set(parse_arguments(words, launch_file), CONFIG_DIR, launch_file)}


def test_tsnake_gives_gait_and_sim_its_urdf_and_cobra_keeps_the_default():
    specs = _specs('robot:=tsnake', 'use_sim:=true', 'gait:=lts', 'lts_preset:=in_place')
    gait, sim = specs['gait_node'].parameters, specs['sim_node'].parameters
    assert Path(gait['urdf_path']).name == 'tsnake.urdf' and gait['urdf_path'] == sim['urdf_path']
    assert Path(gait['urdf_path']).is_absolute() and Path(gait['urdf_path']).is_file()
    assert gait['lts_preset'] == 'in_place' and 'urdf_path' not in specs['logger'].parameters
    cobra = _specs('use_sim:=true')
    assert 'urdf_path' not in cobra['gait_node'].parameters and 'lts_preset' not in cobra['gait_node'].parameters


def test_lts_launch_defaults_need_no_argument():
    specs = _specs(launch_file='lts.launch.py')
    assert (specs['gait_node'].parameters['gait'], specs['gait_node'].parameters['lts_preset']) == ('lts', 'rolling')
    assert 'sim_node' in specs and Path(specs['sim_node'].parameters['urdf_path']).name == 'tsnake.urdf'
    assert str(specs['logger'].parameters['bag_path']).split('/')[-1].startswith('lts_')


def test_tumble_launch_defaults_run_the_sim_on_a_24_degree_slope():
    specs = _specs(launch_file='tumble.launch.py')
    assert specs['gait_node'].parameters['gait'] == 'tumble'
    assert specs['sim_node'].parameters['slope_deg'] == 24.0


@pytest.mark.parametrize('words, launch_file, message', [
    (['robot:=tsnake'], 'sidewind.launch.py', 'robot:=tsnake runs in simulation only (there is no T-Snake '
                                              'hardware driver): add use_sim:=true'),
    (['use_sim:=false'], 'lts.launch.py', 'robot:=tsnake runs in simulation only'),
    (['use_sim:=true', 'gait:=lts'], 'sidewind.launch.py', 'gait:=lts is a twist gait and COBRA has no twist '
                                                           'joints: use robot:=tsnake'),
    (['robot:=tsnake'], 'tumble.launch.py', 'gait:=tumble is the COBRA tumbling latch: use robot:=cobra'),
    (['gait:=gait2'], 'lts.launch.py', 'gait:=gait2 is a COBRA sidewinding preset'),
    (['slope_deg:=5'], 'sidewind.launch.py', 'slope_deg:=5 tilts the simulated ground: it needs use_sim:=true'),
    (['robot:=nao'], 'sidewind.launch.py', 'robot:=nao is not one of cobra, tsnake'),
    (['lts_preset:=spiral'], 'lts.launch.py', 'lts_preset:=spiral is not one of conventional, rolling'),
])
def test_impossible_robot_gait_pairs_are_refused_with_the_fix(words, launch_file, message):
    with pytest.raises(BringupError) as error:
        _specs(*words, launch_file=launch_file)
    assert message in str(error.value)


def test_a_cobra_urdf_override_is_not_taken_for_the_tsnake(monkeypatch):
    monkeypatch.setenv('COBRA_URDF', str(PACKAGE.parent / 'cobra_description' / 'urdf' / 'cobra.urdf'))
    specs = _specs(launch_file='lts.launch.py')
    assert Path(specs['gait_node'].parameters['urdf_path']).name == 'tsnake.urdf'


def test_a_cobra_csv_is_refused_for_the_tsnake(tmp_path):
    path = tmp_path / 'cobra.csv'
    path.write_text('time_s,joint_1\n0.0,0.0\n1.0,0.1\n')
    with pytest.raises(BringupError, match='joint_1'):
        _specs('gait:=csv', f'csv_file:={path}', launch_file='lts.launch.py')


def _validate(*words: str, launch_file: str = 'lts.launch.py'):
    values = parse_arguments(words, launch_file)
    return validate_node_set(node_set(values, CONFIG_DIR, launch_file), values['namespace'])


def test_prestart_declares_the_lts_gait_with_its_preset_values():
    _, values = _validate('lts_preset:=twisting')
    gait = values['gait_node']
    assert (gait['gait'], gait['lts_preset'], gait['lts_a0_rad_s'], gait['lts_a1_rad_m_s']) == \
        ('lts', 'twisting', -1.0, 1.5)
    assert values['sim_node']['urdf_path'] == gait['urdf_path']


@pytest.mark.parametrize('params, message', [
    ('gait_node:\n  ros__parameters:\n    lts_a0_rad_s: 9.0\n',
     "gait_node: parameter 'lts_a0_rad_s' = 9.0 is out of range: allowed [-5, 5]"),
    ('gait_node:\n  ros__parameters:\n    ramp_duration_s: 0.1\n',
     "gait_node: gait too fast for the servos: the start/stop ramp of lts_preset 'rolling'"),
])
def test_a_bad_lts_params_file_is_refused_before_any_node_starts(tmp_path, params, message):
    path = tmp_path / 'extra.yaml'
    path.write_text(params)
    with pytest.raises(BringupError) as error:
        _validate(f'params_file:={path}')
    assert message in str(error.value)


def test_runner_usage_shows_the_launch_files_defaults(capsys):
    assert runner.main(['lts.launch.py', '--help']) == 0
    text = capsys.readouterr().out
    assert 'arguments (defaults of lts.launch.py):' in text and '  robot:=tsnake (cobra | tsnake)' in text
    assert 'tumble.launch.py: robot:=cobra, gait:=tumble, slope_deg:=24.0, use_sim:=true' in text
