"""Bringup node set and launch-argument parsing (no ROS graph), and runner parameter formatting."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from cobra_bringup import runner
from cobra_bringup.node_set import (LAUNCH_ARGUMENTS, PEER_WAIT_S, TERRAINS, BringupError,
                                    NodeSpec, default_bag_path, node_set, parse_arguments)
from cobra_gaits.sidewinding import DIRECTIONS

PACKAGE = Path(__file__).resolve().parents[1]
CONFIG_DIR = PACKAGE / 'config'
URDF = PACKAGE.parent / 'cobra_description' / 'urdf' / 'cobra.urdf'


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Relative bag paths land in tmp_path; the robot model comes from the source URDF."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv('COBRA_URDF', str(URDF))


@pytest.fixture
def full_config(tmp_path: Path) -> Path:
    """The real config files plus (empty) driver and odometry files, whether or not they exist yet."""
    config = tmp_path / 'config'
    config.mkdir()
    for path in CONFIG_DIR.glob('*.yaml'):
        shutil.copy(path, config / path.name)
    for name in ('driver.yaml', 'odometry.yaml'):
        if not (config / name).exists():
            (config / name).write_text('')
    return config


def _nodes(*words: str, config: Path = CONFIG_DIR) -> list[NodeSpec]:
    return node_set(parse_arguments(words), config)


def _by_name(nodes: list[NodeSpec]) -> dict[str, NodeSpec]:
    return {node.name: node for node in nodes}


def _write_csv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / 'traj.csv'
    path.write_text(text)
    return path


# --- parse_arguments ---------------------------------------------------------------------------

def test_parse_arguments_defaults():
    values = parse_arguments([])
    assert values == {argument.name: argument.default for argument in LAUNCH_ARGUMENTS}
    assert values['use_sim'] == 'false'
    assert values['record'] == 'true'
    assert values['gait'] == 'gait1'
    assert values['direction'] == 'left'
    assert values['duration'] == '0.0'
    assert values['bag_path'] == ''


def test_parse_arguments_overrides_given_values_only():
    values = parse_arguments(['use_sim:=true', 'gait:=gait2', 'csv_file:=a:=b.csv'])
    assert values['use_sim'] == 'true'
    assert values['gait'] == 'gait2'
    assert values['csv_file'] == 'a:=b.csv'
    assert values['record'] == 'true'


def test_parse_arguments_rejects_unknown_name():
    with pytest.raises(BringupError, match="unknown launch argument 'speed'; known: use_sim, record"):
        parse_arguments(['speed:=3'])


@pytest.mark.parametrize('word', ['use_sim=true', 'use_sim', ':=true'])
def test_parse_arguments_rejects_malformed_word(word):
    with pytest.raises(BringupError, match=f"malformed launch argument '{word}': write name:=value"):
        parse_arguments([word])


@pytest.mark.parametrize('word, message', [
    ('use_sim:=maybe', 'use_sim:=maybe is not one of true, false'),
    ('direction:=up', 'direction:=up is not one of left, right'),
    ('terrain:=lava', f"terrain:=lava is not one of {', '.join(TERRAINS)}"),
    ('log_level:=loud', 'log_level:=loud is not one of debug, info, warn, error, fatal'),
])
def test_parse_arguments_rejects_bad_choice(word, message):
    with pytest.raises(BringupError, match=message):
        parse_arguments([word])


# --- node_set: simulation ----------------------------------------------------------------------

def test_sim_mode_runs_logger_first_then_gait_and_sim():
    nodes = _nodes('use_sim:=true')
    assert [(n.package, n.executable, n.name) for n in nodes] == [
        ('cobra_logger', 'logger_node', 'logger'),
        ('cobra_gaits', 'gait_node', 'gait_node'),
        ('cobra_sim', 'sim_node', 'sim_node'),
        ('cobra_description', 'state_publisher_node', 'state_publisher'),
        ('cobra_gaits', 'path_forecast_node', 'path_forecast'),
    ]


def test_sim_mode_uses_sim_time_everywhere():
    nodes = _by_name(_nodes('use_sim:=true'))
    assert nodes['sim_node'].parameters['use_sim_time'] is True
    assert nodes['gait_node'].parameters['use_sim_time'] is True
    assert nodes['logger'].parameters['use_sim_time'] is True


def test_sim_node_parameters_come_from_arguments():
    sim = _by_name(_nodes('use_sim:=true', 'duration:=12.5', 'real_time_factor:=0'))['sim_node']
    assert sim.parameters['duration_s'] == 12.5
    assert sim.parameters['real_time_factor'] == 0.0
    assert sim.parameters['terrain'] == 'rigid'
    assert sim.params_files == (CONFIG_DIR / 'sim.yaml',)


@pytest.mark.parametrize('duration, ends_run', [('0.0', False), ('0', False), ('5', True), ('0.001', True)])
def test_sim_ends_run_iff_duration_positive(duration, ends_run):
    nodes = _nodes('use_sim:=true', f'duration:={duration}')
    assert [n.name for n in nodes if n.ends_run] == (['sim_node'] if ends_run else [])


def test_sim_waits_for_the_gait_always_and_for_the_recorder_only_when_recording():
    recorded = _by_name(_nodes('use_sim:=true'))['sim_node'].parameters
    assert recorded['wait_for_peers_s'] == PEER_WAIT_S > 0.0
    assert recorded['wait_for_commands'] is True and recorded['wait_for_recorder'] is True
    unrecorded = _by_name(_nodes('use_sim:=true', 'record:=false'))['sim_node'].parameters
    assert unrecorded['wait_for_peers_s'] == PEER_WAIT_S
    assert unrecorded['wait_for_commands'] is True and unrecorded['wait_for_recorder'] is False


def test_record_false_has_no_logger():
    nodes = _nodes('use_sim:=true', 'record:=false')
    assert [n.name for n in nodes] == ['gait_node', 'sim_node', 'state_publisher', 'path_forecast']
    assert all(n.package != 'cobra_logger' for n in nodes)


def test_gait_node_gets_gait_and_direction():
    gait = _by_name(_nodes('use_sim:=true', 'gait:=gait2', 'direction:=right'))['gait_node']
    assert gait.parameters == {'gait': 'gait2', 'direction': 'right', 'use_sim_time': True,
                               'command_subscriber_nodes': ['sim_node', 'logger']}
    assert gait.params_files == (CONFIG_DIR / 'gait.yaml',)


@pytest.mark.parametrize('word, node, parameter, valid', [
    ('direction:=Right', 'gait_node', 'direction', tuple(DIRECTIONS)),
    ('terrain:=RIGID', 'sim_node', 'terrain', TERRAINS),
])
def test_choice_given_in_capitals_reaches_node_as_valid_value(word, node, parameter, valid):
    """parse_arguments accepts choices case-insensitively; the nodes only know lowercase values."""
    try:
        nodes = _nodes('use_sim:=true', word)
    except BringupError as error:  # rejecting the word up front is also correct
        assert word in str(error)
    else:
        assert _by_name(nodes)[node].parameters[parameter] in valid


# --- node_set: hardware ------------------------------------------------------------------------

def test_hardware_mode_runs_driver_and_odometry(full_config):
    nodes = _nodes(config=full_config)
    assert [(n.package, n.executable, n.name) for n in nodes] == [
        ('cobra_logger', 'logger_node', 'logger'),
        ('cobra_gaits', 'gait_node', 'gait_node'),
        ('cobra_driver', 'driver_node', 'joint_driver'),
        ('cobra_odometry', 'odometry_node', 'odometry'),
        ('cobra_description', 'state_publisher_node', 'state_publisher'),
        ('cobra_gaits', 'path_forecast_node', 'path_forecast'),
    ]
    by_name = _by_name(nodes)
    assert by_name['joint_driver'].params_files == (full_config / 'driver.yaml',)
    assert by_name['odometry'].params_files == (full_config / 'odometry.yaml',)
    assert by_name['gait_node'].parameters['use_sim_time'] is False
    assert by_name['logger'].parameters['use_sim_time'] is False
    assert not any(n.ends_run for n in nodes)


@pytest.mark.parametrize('missing', ['driver.yaml', 'odometry.yaml', 'logger.yaml'])
def test_hardware_mode_missing_parameter_file_is_named(full_config, missing):
    (full_config / missing).unlink()
    with pytest.raises(BringupError, match='missing parameter file') as error:
        _nodes(config=full_config)
    assert str(full_config / missing) in str(error.value)


def test_sim_mode_missing_sim_yaml_is_named(full_config):
    (full_config / 'sim.yaml').unlink()
    with pytest.raises(BringupError) as error:
        _nodes('use_sim:=true', config=full_config)
    assert str(full_config / 'sim.yaml') in str(error.value)


def test_missing_gait_yaml_is_reported_as_bringup_error(tmp_path):
    empty = tmp_path / 'empty_config'
    empty.mkdir()
    with pytest.raises(BringupError, match='missing parameter file') as error:
        _nodes('use_sim:=true', config=empty)
    assert str(empty / 'gait.yaml') in str(error.value)


# --- node_set: argument and file errors --------------------------------------------------------

def test_unknown_gait_lists_choices():
    with pytest.raises(BringupError, match="unknown gait 'gait7': choose one of gait1, gait2, csv"):
        _nodes('use_sim:=true', 'gait:=gait7')


def test_csv_gait_without_csv_file_is_refused():
    with pytest.raises(BringupError, match='gait:=csv needs csv_file:='):
        _nodes('use_sim:=true', 'gait:=csv')


def test_csv_gait_with_malformed_csv_names_the_file(tmp_path):
    path = _write_csv(tmp_path, 'time_s,joint_1\n0.0,0.1\n1.0,oops\n')
    with pytest.raises(BringupError, match='non-numeric value') as error:
        _nodes('use_sim:=true', 'gait:=csv', f'csv_file:={path}')
    assert f'{path}:3:' in str(error.value)


def test_csv_gait_with_missing_csv_names_the_file(tmp_path):
    with pytest.raises(BringupError, match='trajectory CSV not found') as error:
        _nodes('use_sim:=true', 'gait:=csv', 'csv_file:=nowhere.csv')
    assert str(tmp_path / 'nowhere.csv') in str(error.value)


def test_csv_gait_passes_absolute_csv_path(tmp_path):
    _write_csv(tmp_path, 'time_s,joint_1,joint_11\n0.0,0.1,0.2\n1.0,0.3,0.4\n')
    gait = _by_name(_nodes('use_sim:=true', 'gait:=csv', 'csv_file:=traj.csv'))['gait_node']
    assert gait.parameters['gait'] == 'csv'
    assert gait.parameters['csv_file'] == str(tmp_path / 'traj.csv')


def test_existing_bag_path_is_refused(tmp_path):
    (tmp_path / 'old_bag').mkdir()
    with pytest.raises(BringupError, match='already exists: choose a new bag_path'):
        _nodes('use_sim:=true', f'bag_path:={tmp_path / "old_bag"}')


def test_existing_bag_path_is_fine_without_recording(tmp_path):
    (tmp_path / 'old_bag').mkdir()
    nodes = _nodes('use_sim:=true', 'record:=false', f'bag_path:={tmp_path / "old_bag"}')
    assert [n.name for n in nodes] == ['gait_node', 'sim_node', 'state_publisher', 'path_forecast']


def test_bag_path_is_resolved_absolute(tmp_path):
    logger = _by_name(_nodes('use_sim:=true', 'bag_path:=runs/bag1'))['logger']
    assert logger.parameters['bag_path'] == str(tmp_path / 'runs' / 'bag1')
    assert logger.params_files == (CONFIG_DIR / 'logger.yaml',)


def test_default_bag_path_is_absolute_under_bags(tmp_path):
    bag = Path(str(_by_name(_nodes('use_sim:=true'))['logger'].parameters['bag_path']))
    assert bag.is_absolute()
    assert bag.parent == tmp_path / 'bags'
    assert bag.name.startswith('sidewind_')
    assert default_bag_path('sidewind.launch.py').parts[0] == 'bags'


def test_missing_params_file_is_refused(tmp_path):
    with pytest.raises(BringupError, match='does not exist') as error:
        _nodes('use_sim:=true', f'params_file:={tmp_path / "extra.yaml"}')
    assert str(tmp_path / 'extra.yaml') in str(error.value)


def test_params_file_is_applied_after_defaults_for_every_node(tmp_path):
    extra = tmp_path / 'extra.yaml'
    extra.write_text('{}\n')
    for node in _nodes('use_sim:=true', f'params_file:={extra}'):
        assert len(node.params_files) == 2
        assert node.params_files[0].parent == CONFIG_DIR
        assert node.params_files[-1] == extra


@pytest.mark.parametrize('word, message', [
    ('duration:=soon', 'duration:=soon is not a number'),
    ('real_time_factor:=fast', 'real_time_factor:=fast is not a number'),
])
def test_non_numbers_are_refused(word, message):
    """Ranges are the sim node's parameter descriptors' (checked by prestart), not node_set's."""
    with pytest.raises(BringupError, match=message):
        _nodes('use_sim:=true', word)


# --- runner: parameter formatting and command line ---------------------------------------------

@pytest.mark.parametrize('value, text', [
    (True, 'true'), (False, 'false'), (20.0, '20.0'), (0.0, '0.0'), (1.5e-7, '1.5e-07'),
    (15, '15'), (0, '0'), ('gait2', 'gait2'), ('/tmp/bag', '/tmp/bag'),
])
def test_format_parameter(value, text):
    assert runner.format_parameter(value) == text


def _fake_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, packages: tuple[str, ...]) -> Path:
    prefix = tmp_path / 'install'
    for package in packages:
        executable = prefix / package / 'lib' / package
        executable.mkdir(parents=True)
        for name in ('logger_node', 'gait_node', 'sim_node'):
            (executable / name).write_text('#!/bin/sh\n')
            (executable / name).chmod(0o755)
    monkeypatch.setattr(runner, 'package_prefix', lambda package: prefix / package)
    return prefix


def test_command_line_carries_name_namespace_files_and_parameters(tmp_path, monkeypatch):
    prefix = _fake_install(tmp_path, monkeypatch, ('cobra_sim',))
    sim = _by_name(_nodes('use_sim:=true', 'duration:=20'))['sim_node']
    words = runner.command_line(sim, '/robot1/', 'debug')
    assert words[:7] == [sys.executable, str(prefix / 'cobra_sim' / 'lib' / 'cobra_sim' / 'sim_node'), '--ros-args',
                         '-r', '__node:=sim_node', '--log-level', 'debug']
    assert words[7:9] == ['-r', '__ns:=/robot1']
    assert words[9:11] == ['--params-file', str(CONFIG_DIR / 'sim.yaml')]
    parameters = [words[i + 1] for i, word in enumerate(words) if word == '-p']
    assert 'duration_s:=20.0' in parameters
    assert 'use_sim_time:=true' in parameters
    assert 'terrain:=rigid' in parameters


def test_command_line_without_namespace_has_no_remap(tmp_path, monkeypatch):
    _fake_install(tmp_path, monkeypatch, ('cobra_gaits',))
    gait = _by_name(_nodes('use_sim:=true'))['gait_node']
    assert not any(word.startswith('__ns:=') for word in runner.command_line(gait, '', 'info'))


def test_command_line_refuses_missing_executable(tmp_path, monkeypatch):
    _fake_install(tmp_path, monkeypatch, ('cobra_gaits',))
    sim = _by_name(_nodes('use_sim:=true'))['sim_node']
    with pytest.raises(BringupError, match='cobra_sim/sim_node is not installed'):
        runner.command_line(sim, '', 'info')


# --- arguments shared with the launch file -----------------------------------------------------

def test_choices_in_any_case_are_accepted_and_lowercased_for_both_front_ends():
    from cobra_bringup.node_set import check_arguments
    assert parse_arguments(['use_sim:=True', 'lockstep:=OFF'])['use_sim'] == 'true'
    assert check_arguments({'use_sim': 'TRUE', 'lockstep': 'On'})['lockstep'] == 'on'


def test_launch_configurations_with_an_unknown_name_are_refused():
    from cobra_bringup.node_set import check_arguments
    with pytest.raises(BringupError, match="unknown launch argument 'duraton'"):
        check_arguments({'duraton': '5'})


def test_lockstep_and_frame_prefix_reach_the_sim():
    sim = _by_name(_nodes('use_sim:=true', 'lockstep:=on', 'frame_prefix:=cobra/'))['sim_node']
    assert sim.parameters['lockstep'] == 'on' and sim.parameters['frame_prefix'] == 'cobra/'
    assert 'frame_prefix' not in _by_name(_nodes('use_sim:=true'))['sim_node'].parameters


def test_frame_prefix_reaches_the_odometry_in_hardware_mode(full_config):
    odometry = _by_name(_nodes('frame_prefix:=cobra/', config=full_config))['odometry']
    assert odometry.parameters == {'frame_prefix': 'cobra/'}


def test_terrain_file_reaches_the_sim_as_an_absolute_path_and_only_when_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sim = _by_name(_nodes('use_sim:=true', 'terrain:=scm', 'terrain_file:=soil/wet_sand.yaml'))['sim_node']
    assert sim.parameters['terrain'] == 'scm'
    assert sim.parameters['terrain_file'] == str(tmp_path / 'soil' / 'wet_sand.yaml')
    assert 'terrain_file' not in _by_name(_nodes('use_sim:=true', 'terrain:=scm'))['sim_node'].parameters


def test_the_gait_holds_its_first_command_for_its_consumers_by_name_and_for_the_logger_only_when_recording():
    """By the names the consumers run under, so that another joint_commands subscriber (an echo)
    does not stand in for one of them."""
    def held_for(*words: str) -> list[str]:
        nodes = _by_name(_nodes(*words))
        held = nodes['gait_node'].parameters['command_subscriber_nodes']
        assert set(held) <= set(nodes)  # each one a node of the set, by its name
        return held

    assert held_for('use_sim:=true') == ['sim_node', 'logger']
    assert held_for('use_sim:=true', 'record:=false') == ['sim_node']
    assert held_for('use_sim:=false') == ['joint_driver', 'logger']
    assert held_for('use_sim:=false', 'record:=false', 'namespace:=cobra') == ['joint_driver']


def test_dem_terrain_runs_the_dem_node_alone_with_the_logger(tmp_path):
    nodes = _by_name(_nodes('use_sim:=true', 'terrain:=dem', 'slope_deg:=20', 'duration:=0.5',
                            f'terrain_file:={tmp_path / "bed.yaml"}', f'bag_path:={tmp_path / "bag"}'))
    assert set(nodes) == {'logger', 'dem_node'}
    dem = nodes['dem_node']
    assert (dem.package, dem.executable, dem.ends_run) == ('cobra_dem', 'dem_node', True)
    assert dem.parameters['scenario_file'] == str(tmp_path / 'bed.yaml')
    assert dem.parameters['scenario_overrides'] == 'slope_deg=20' and dem.parameters['duration_s'] == 0.5
    assert dem.parameters['wait_for_peers_s'] > 0  # the logger's subscriptions must see the first sample
    custom = nodes['logger'].parameters['custom_data']
    assert 'cobra.robot=wheel' in custom and not any(entry.startswith('cobra.gait') for entry in custom)


def test_dem_terrain_without_the_simulation_is_refused():
    with pytest.raises(BringupError, match='terrain:=dem is a simulated terrain: add use_sim:=true'):
        _nodes('terrain:=dem')


# --- combinations that mean nothing ------------------------------------------------------------

@pytest.mark.parametrize('launch_file, words, message', [
    # accepted with exit 0 before: only the DEM wheel ran
    ('sidewind.launch.py', ('use_sim:=true', 'robot:=tsnake', 'gait:=lts', 'terrain:=dem'),
     "terrain:=dem runs the DEM scenario's body alone"),
    ('sidewind.launch.py', ('use_sim:=true', 'terrain:=dem', 'real_time_factor:=0'), 'real_time_factor:=0 would be'),
    ('lts.launch.py', ('terrain:=dem',), "robot:=tsnake (lts.launch.py's default), gait:=lts (lts.launch.py's "
                                         'default) would be ignored'),
    ('tumble.launch.py', ('terrain:=dem',), "gait:=tumble (tumble.launch.py's default) would be ignored"),
    ('sidewind.launch.py', ('terrain:=scm',), 'terrain:=scm sets the simulation, and use_sim:=false runs the real '
                                              'robot: add use_sim:=true'),
    ('sidewind.launch.py', ('duration:=5', 'lockstep:=on'), 'duration:=5, lockstep:=on set the simulation'),
    ('sidewind.launch.py', ('terrain_file:=soil.yaml',), 'terrain_file:=soil.yaml sets the simulation'),
    ('sidewind.launch.py', ('use_sim:=true', 'lts_preset:=twisting'),
     'lts_preset:=twisting chooses an LTS gait, but gait:=gait1'),
    ('sidewind.launch.py', ('use_sim:=true', 'csv_file:=gait.csv'), 'csv_file:=gait.csv is replayed by gait:=csv'),
])
def test_a_setting_no_node_would_read_is_refused(launch_file, words, message):
    with pytest.raises(BringupError) as error:
        node_set(parse_arguments([*words, 'record:=false'], launch_file), CONFIG_DIR, launch_file)
    assert message in str(error.value) and '\n' not in str(error.value), str(error.value)


@pytest.mark.parametrize('launch_file, words', [
    ('sidewind.launch.py', ('use_sim:=true', 'terrain:=dem', 'duration:=0.5', 'real_time_factor:=1.0')),
    ('sidewind.launch.py', ('use_sim:=false', 'real_time_factor:=1', 'duration:=0')),  # the defaults, spelled out
    ('lts.launch.py', ('lts_preset:=twisting', 'terrain:=scm')),
])
def test_settings_that_are_read_or_default_are_accepted(launch_file, words, full_config):
    assert node_set(parse_arguments([*words, 'record:=false'], launch_file), full_config, launch_file)


@pytest.mark.parametrize('robot', ['cobra', 'tsnake'])
def test_cmd_vel_gait_runs_the_navigate_node_instead_of_the_path_forecast(robot):
    nodes = _nodes('use_sim:=true', f'robot:={robot}', 'gait:=cmd_vel', 'frame_prefix:=r1/')
    names = [node.name for node in nodes]
    assert 'navigate_node' in names and 'path_forecast' not in names
    navigate = _by_name(nodes)['navigate_node']
    assert (navigate.package, navigate.executable) == ('cobra_gaits', 'navigate_node')
    assert {k: navigate.parameters[k] for k in ('use_sim_time', 'robot', 'frame_prefix')} == \
        {'use_sim_time': True, 'robot': robot, 'frame_prefix': 'r1/'}
    assert ('urdf_path' in navigate.parameters) == (robot == 'tsnake')  # the T-Snake's URDF by path
    assert _by_name(nodes)['gait_node'].parameters['gait'] == 'cmd_vel'


def test_cmd_vel_gait_on_the_robot_uses_wall_time(full_config):
    navigate = _by_name(_nodes('gait:=cmd_vel', config=full_config))['navigate_node']
    assert navigate.parameters['use_sim_time'] is False
