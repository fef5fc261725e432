"""Pre-start validation against the nodes' own parameter declarations (rclpy, no process started)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cobra_bringup.node_set import BringupError, node_set, parse_arguments
from cobra_bringup.prestart import format_parameter, node_ros_arguments, validate_node_set

PACKAGE = Path(__file__).resolve().parents[1]
CONFIG_DIR = PACKAGE / 'config'
URDF = PACKAGE.parent / 'cobra_description' / 'urdf' / 'cobra.urdf'


@pytest.fixture(autouse=True)
def _isolated(ros_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Own ROS domain (the validator's bare nodes join it briefly), bags under tmp_path."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv('COBRA_URDF', str(URDF))


def _validate(*words: str, config_dir: Path = CONFIG_DIR):
    values = parse_arguments(words)
    return validate_node_set(node_set(values, config_dir), values['namespace'])


@pytest.fixture
def any_namespace_config(tmp_path: Path) -> Path:
    """The shipped parameter files with every node key as '/**/<node>' (valid in any namespace)."""
    config = tmp_path / 'config'
    config.mkdir()
    for path in CONFIG_DIR.glob('*.yaml'):
        text = path.read_text()
        for name in ('gait_node', 'sim_node', 'logger', 'joint_driver', 'odometry'):
            text = text.replace(f'\n{name}:', f'\n/**/{name}:')
        (config / path.name).write_text(text)
    return config


def _params_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / 'extra.yaml'
    path.write_text(text)
    return f'params_file:={path}'


def test_valid_sim_set_gives_every_node_its_declared_values():
    specs, values = _validate('use_sim:=true', 'duration:=5', 'lockstep:=off')
    assert set(values) == {'logger', 'gait_node', 'sim_node', 'state_publisher', 'path_forecast'}
    assert values['sim_node']['duration_s'] == 5.0
    assert values['sim_node']['lockstep'] == 'off'  # a string, not the YAML boolean false
    assert values['gait_node']['rate_hz'] == 100.0
    sim = next(spec for spec in specs if spec.name == 'sim_node')
    assert sim.parameters['command_period_s'] == pytest.approx(0.01)  # linked to the gait's rate


@pytest.mark.parametrize('word, message', [
    ('duration:=inf', "sim_node: parameter 'duration_s' = inf is out of range: allowed [0, 1e+06] "
                      '(default 0.0) (set by the launch argument duration:=)'),
    ('duration:=-1', "sim_node: parameter 'duration_s' = -1.0 is out of range"),
    ('real_time_factor:=5000', "sim_node: parameter 'real_time_factor' = 5000.0 is out of range: "
                               'allowed [0, 1000]'),
    ('namespace:=1robot', 'namespace:=1robot is not a valid ROS namespace'),
    ('namespace:=my-robot', 'namespace:=my-robot is not a valid ROS namespace'),
    ('frame_prefix:=/cobra', "frame_prefix:='/cobra' is not a frame prefix"),
])
def test_bad_arguments_are_refused_with_the_nodes_own_ranges(word, message):
    with pytest.raises(BringupError) as error:
        _validate('use_sim:=true', word)
    assert message in str(error.value)


@pytest.mark.parametrize('text, message', [
    ('gait_node:\n  ros__parameters:\n    rate_hz: fast\n',
     "gait_node: parameter 'rate_hz' = 'fast' has the wrong type: it must be a floating-point number"),
    ('gait_node:\n  ros__parameters:\n    rate_hz: 50\n',
     "gait_node: parameter 'rate_hz' = 50 has the wrong type: it must be a floating-point number "
     '(write 50.0, not 50)'),
    ('sim_node:\n  ros__parameters:\n    timestep_s: 0.5\n',
     "sim_node: parameter 'timestep_s' = 0.5 is out of range: allowed [1e-05, 0.01]"),
    ('logger:\n  ros__parameters:\n    split_duration_s: 0.0\n',
     "logger: parameter 'split_duration_s' = 0.0 is out of range"),
    ('gait_node:\n  ros__parameters:\n    rate_hzz: 50.0\n',
     'gait_node: unknown parameter(s) rate_hzz in its parameter files'),
    ('sim_node:\n  ros__parameters:\n    seed: [1, abc]\n', 'logger: rcl refuses its ROS arguments'),
    ('sim_node:\n  ros__parameters:\n    seed: [1\n', 'not valid YAML'),
])
def test_bad_params_file_values_are_refused_before_start(tmp_path, text, message):
    with pytest.raises(BringupError) as error:
        _validate('use_sim:=true', _params_file(tmp_path, text))
    assert message in str(error.value)
    assert '\n' not in str(error.value)


def test_a_wildcard_section_may_set_another_nodes_parameter(tmp_path):
    _, values = _validate('use_sim:=true', _params_file(
        tmp_path, '/**:\n  ros__parameters:\n    rate_hz: 50.0\n    odom_noise_m: 0.01\n'))
    assert values['gait_node']['rate_hz'] == 50.0
    assert values['sim_node']['odom_noise_m'] == 0.01


def test_preset_defined_in_params_file_is_accepted(tmp_path):
    _, values = _validate('use_sim:=true', 'gait:=gait3', _params_file(tmp_path, (
        'gait_node:\n  ros__parameters:\n    preset_names: [gait1, gait2, gait3]\n'
        '    gait3:\n      frequency_hz: 0.2\n      amplitude_vertical_rad: 0.3\n'
        '      amplitude_horizontal_rad: 0.5\n')))
    assert values['gait_node']['frequency_hz'] == 0.2


def test_gait_rate_sets_the_sims_lockstep_period(tmp_path):
    specs, _ = _validate('use_sim:=true', _params_file(
        tmp_path, 'gait_node:\n  ros__parameters:\n    rate_hz: 50.0\n'))
    sim = next(spec for spec in specs if spec.name == 'sim_node')
    assert sim.parameters['command_period_s'] == pytest.approx(0.02)


@pytest.mark.parametrize('value, text', [
    ('', "''"), ('off', "'off'"), ('on', "'on'"), ('5', "'5'"), ('gait2', 'gait2'), ('cobra/', 'cobra/'),
])
def test_strings_stay_strings_on_the_command_line(value, text):
    assert format_parameter(value) == text


def test_ros_arguments_carry_namespace_files_and_overrides():
    values = parse_arguments(['use_sim:=true', 'namespace:=/cobra/', 'frame_prefix:=cobra/'])
    sim = next(spec for spec in node_set(values, CONFIG_DIR) if spec.name == 'sim_node')
    words = node_ros_arguments(sim, values['namespace'])
    assert words[:4] == ['-r', '__node:=sim_node', '-r', '__ns:=/cobra']
    assert '--params-file' in words and 'frame_prefix:=cobra/' in words and "lockstep:='auto'" not in words
    assert 'lockstep:=auto' in words


def test_a_nodes_missing_urdf_is_refused_before_start(tmp_path):
    with pytest.raises(BringupError, match='sim_node: URDF not found: /nonexistent/cobra.urdf'):
        _validate('use_sim:=true', _params_file(
            tmp_path, 'sim_node:\n  ros__parameters:\n    urdf_path: /nonexistent/cobra.urdf\n'))


def test_a_section_that_reaches_no_node_of_the_run_is_refused(tmp_path, any_namespace_config):
    """With namespace:=cobra a plain 'sim_node' key is silently ignored by rcl."""
    with pytest.raises(BringupError, match=r"section 'sim_node' reaches no node of this run .*"
                                           r"write '/\*\*/sim_node' \(any namespace\) or '/cobra/sim_node'"):
        _validate('use_sim:=true', 'namespace:=cobra', _params_file(
            tmp_path, 'sim_node:\n  ros__parameters:\n    odom_noise_m: 0.01\n'), config_dir=any_namespace_config)
    with pytest.raises(BringupError, match="section 'gait_nod' reaches no node"):
        _validate('use_sim:=true', _params_file(tmp_path, 'gait_nod:\n  ros__parameters:\n    rate_hz: 5.0\n'))


@pytest.mark.parametrize('key', ['/cobra/sim_node', '/**/sim_node', '/**', '/*/sim_node', 'joint_driver'])
def test_sections_that_reach_a_node_or_another_modes_node_are_accepted(tmp_path, any_namespace_config, key):
    _validate('use_sim:=true', 'namespace:=cobra', 'record:=false', config_dir=any_namespace_config,
              *[_params_file(tmp_path, f'{key}:\n  ros__parameters:\n    use_sim_time: true\n')])


@pytest.mark.parametrize('words, hint', [
    (('terrain:=scm', 'terrain_file:={missing}'), 'terrain_file:='),  # was terrain:=
    (('terrain:=scm', 'slope_deg:=5'), 'slope_deg:='),
    (('slope_deg:=90',), 'slope_deg:='),
])
def test_the_hint_names_the_launch_argument_that_set_the_refused_value(tmp_path, words, hint):
    words = tuple(word.format(missing=tmp_path / 'no_such_soil.yaml') for word in words)
    with pytest.raises(BringupError) as error:
        _validate('use_sim:=true', 'record:=false', *words)
    assert str(error.value).endswith(f'(set by the launch argument {hint})'), str(error.value)


@pytest.mark.parametrize('slope', ['90', '91'])
def test_slope_deg_names_one_allowed_range_for_90_and_above(slope):
    with pytest.raises(BringupError) as error:
        _validate('use_sim:=true', 'record:=false', f'slope_deg:={slope}')
    assert '0 <= slope_deg < 90' in str(error.value) and '[0, 90]' not in str(error.value), str(error.value)


@pytest.mark.parametrize('robot', ['cobra', 'tsnake'])
def test_cmd_vel_gait_validates_for_both_robots(robot):
    _, values = _validate('use_sim:=true', f'robot:={robot}', 'gait:=cmd_vel')
    assert values['gait_node']['gait'] == 'cmd_vel' and values['navigate_node']['robot'] == robot


@pytest.mark.parametrize('text, message', [
    ('gait_node:\n  ros__parameters:\n    cmd_vel_max_taper: 0.8\n    amplitude_horizontal_rad: 0.9\n',
     'gait_node: cmd_vel: the widest conical wave (1.620 rad'),  # 0.9 rad x 1.8 passes pi/2
    ('navigate_node:\n  ros__parameters:\n    cruise_m_s: 0.0\n',
     'navigate_node: goal controller setting cruise_m_s must be positive, got 0.0'),
])
def test_bad_cmd_vel_values_are_refused_before_start(tmp_path, text, message):
    with pytest.raises(BringupError) as error:
        _validate('use_sim:=true', 'gait:=cmd_vel', _params_file(tmp_path, text))
    assert message in str(error.value)
