"""Run provenance the bringup hands the logger (custom_data), checked against what the gait node
will really run with (prestart's declared values) and against what cobra_analysis reads."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import pytest
from rosbags.typesys import get_typestore, Stores

from cobra_analysis.analysis import SIM_CLASS
from cobra_analysis.bag_reader import gait_parameters, read_custom_data
from cobra_bringup.node_set import node_set, parse_arguments
from cobra_bringup.prestart import validate_node_set
from cobra_bringup.run_metadata import git_revision
from cobra_bringup.runner import gait_cycle_frequency_hz
from cobra_logger.bag_metadata import parse_custom_data
from cobra_logger.split_bag import SplitBagWriter

PACKAGE = Path(__file__).resolve().parents[1]
CONFIG_DIR = PACKAGE / 'config'
URDF = PACKAGE.parent / 'cobra_description' / 'urdf' / 'cobra.urdf'


@pytest.fixture(autouse=True)
def _isolated(ros_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv('COBRA_URDF', str(URDF))


def _validated(*words: str, launch_file: str = 'sidewind.launch.py') -> tuple[dict[str, str], dict]:
    """(the logger's custom_data as the logger parses it, every node's declared values)."""
    arguments = parse_arguments(words, launch_file)
    specs, values = validate_node_set(node_set(arguments, CONFIG_DIR, launch_file), arguments['namespace'])
    logger = next(spec for spec in specs if spec.name == 'logger')
    custom_data = parse_custom_data(logger.parameters['custom_data'])
    assert values['logger']['custom_data'] == custom_data  # reached the logger through --ros-args intact
    return custom_data, values


def test_a_sim_run_records_the_gait_the_gait_node_runs_and_analysis_reads_it(tmp_path):
    custom_data, values = _validated('use_sim:=true', 'gait:=gait2', 'direction:=right', 'slope_deg:=10')
    gait = values['gait_node']
    assert custom_data['cobra.launch_file'] == 'sidewind.launch.py'
    assert custom_data['cobra.robot'] == 'cobra'
    assert custom_data['cobra.terrain'] == 'rigid 10 deg' and float(custom_data['cobra.slope_deg']) == 10.0
    recorded = {key.removeprefix('cobra.gait.'): value for key, value in custom_data.items()
                if key.startswith('cobra.gait.')}
    for name in ('frequency_hz', 'amplitude_vertical_rad', 'amplitude_horizontal_rad', 'rate_hz',
                 'ramp_duration_s'):
        assert float(recorded[name]) == gait[name], name
    assert recorded['gait'] == gait['gait'] == 'gait2' and recorded['direction'] == gait['direction'] == 'right'

    bag = tmp_path / 'bag'  # the consumer's view: a bag written with it, read by cobra_analysis
    writer = SplitBagWriter(bag, custom_data=custom_data)
    writer.add_topic('/latch/state', 'std_msgs/msg/Bool')
    store = get_typestore(Stores.ROS2_JAZZY)
    writer.write('/latch/state', 1, bytes(store.serialize_cdr(store.types['std_msgs/msg/Bool'](True), 'std_msgs/msg/Bool')))
    writer.close()
    read = read_custom_data(bag)
    assert read['cobra.class'] == SIM_CLASS
    assert gait_parameters(read)['frequency_hz'] == 0.3 == gait_cycle_frequency_hz(gait)
    assert gait_parameters(read)['gait'] == 'gait2'


def test_a_params_file_preset_override_is_what_gets_recorded(tmp_path):
    extra = tmp_path / 'extra.yaml'
    extra.write_text('/**/gait_node:\n  ros__parameters:\n    gait1:\n      frequency_hz: 0.25\n')
    custom_data, values = _validated('use_sim:=true', f'params_file:={extra}')
    assert float(custom_data['cobra.gait.frequency_hz']) == values['gait_node']['frequency_hz'] == 0.25


def test_an_lts_run_records_the_preset_and_its_backbone_wave_frequency():
    custom_data, values = _validated(launch_file='lts.launch.py')
    gait = values['gait_node']
    assert custom_data['cobra.gait.gait'] == 'lts' and custom_data['cobra.gait.lts_preset'] == gait['lts_preset']
    for name in ('lts_a0_rad_s', 'lts_a1_rad_m_s', 'lts_omega_t_rad_s'):
        assert float(custom_data[f'cobra.gait.{name}']) == gait[name], name
    assert math.isclose(float(custom_data['cobra.gait.frequency_hz']), gait_cycle_frequency_hz(gait))
    assert custom_data['cobra.robot'] == 'tsnake' and custom_data['cobra.launch_file'] == 'lts.launch.py'


def test_a_tumble_run_records_the_sidewinding_it_plays_first():
    """The report finds the gait cycle of a tumbling bag's sidewinding from the preset's frequency
    (without it, it guessed 0.03 Hz from the whole run's commands)."""
    custom_data, values = _validated(launch_file='tumble.launch.py')
    gait = values['gait_node']
    assert custom_data['cobra.gait.gait'] == 'tumble'
    assert custom_data['cobra.gait.tumble.sidewinding_preset'] == gait['tumble']['sidewinding_preset'] == 'gait1'
    assert float(custom_data['cobra.gait.frequency_hz']) == 0.4  # gait1, config/gait.yaml
    assert custom_data['cobra.terrain'] == 'rigid 24 deg'


def test_a_robot_run_is_class_robot_without_terrain():
    arguments = parse_arguments(['use_sim:=false'])
    logger = next(spec for spec in node_set(arguments, CONFIG_DIR) if spec.name == 'logger')
    custom_data = parse_custom_data(logger.parameters['custom_data'])
    assert custom_data['cobra.class'] == 'robot'
    assert not {'cobra.terrain', 'cobra.slope_deg'} & set(custom_data)


def test_git_revision_is_describe_dirty_in_a_checkout_and_absent_outside(tmp_path):
    assert git_revision(tmp_path) is None  # not a checkout
    repo = tmp_path / 'repo'
    repo.mkdir()
    git = ['git', '-C', str(repo), '-c', 'user.name=t', '-c', 'user.email=t@example.com']
    subprocess.run([*git, 'init', '-q'], check=True)
    (repo / 'f.txt').write_text('a')
    subprocess.run([*git, 'add', 'f.txt'], check=True)
    subprocess.run([*git, 'commit', '-q', '-m', 'x'], check=True)
    head = subprocess.run([*git, 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True,
                          check=True).stdout.strip()
    assert git_revision(repo) == head
    (repo / 'f.txt').write_text('b')
    assert git_revision(repo) == f'{head}-dirty'
