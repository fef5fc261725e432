"""The launch files' own logic, against stand-in `launch`/`launch_ros` modules (not on PyPI here).

sidewind.launch.py, lts.launch.py and tumble.launch.py (links to the first: the file's own name
picks its defaults) are each checked against node_set.

What the stand-ins can honestly show: the declared arguments, that validation is the runner's
(same node set, same refusals, before any Node action exists), and what the exit handler does
for each way a node ends. What they cannot show: `ros2 launch`'s exit code. From launch's Jazzy
source, an exception raised by an event handler makes LaunchService.run shut down and return 1,
and a SystemExit from the OpaqueFunction leaves the process with its code (2); both were checked
once with launch 3.4.3 / launch_ros 0.26 sources (see the bringup README).
"""

from __future__ import annotations

import importlib.util
import signal
import sys
import types
from pathlib import Path

import pytest

from cobra_bringup.node_set import LAUNCH_FILES, NodeSpec, launch_arguments, node_set, parse_arguments

REPO_ROOT = Path(__file__).resolve().parents[1]
LAUNCH_DIR = REPO_ROOT / 'launch'
LAUNCH_FILE = LAUNCH_DIR / 'sidewind.launch.py'
BRINGUP_SHARE = REPO_ROOT / 'src' / 'cobra_bringup'  # holds config/ like the installed share


class Recorded:
    """A stand-in action: keeps what it was built with."""

    def __init__(self, *args, **kwargs) -> None:
        self.args, self.kwargs = args, kwargs


class FindPackageShare(Recorded):
    def perform(self, context) -> str:
        return str(BRINGUP_SHARE)


def _module(name: str, **members) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(members)
    return module


@pytest.fixture
def launch_file(request, ros_env, tmp_path, monkeypatch) -> types.ModuleType:
    """The launch file (sidewind, or the one a test names by indirect parametrization), imported
    against stand-ins; relative bag paths land in tmp_path."""
    path = LAUNCH_DIR / getattr(request, 'param', 'sidewind.launch.py')
    monkeypatch.chdir(tmp_path)
    if path.name == 'lts.launch.py':  # $COBRA_URDF would replace the T-Snake's URDF too
        monkeypatch.delenv('COBRA_URDF', raising=False)
    else:
        monkeypatch.setenv('COBRA_URDF', str(REPO_ROOT / 'src' / 'cobra_description' / 'urdf' / 'cobra.urdf'))
    stand_ins = {
        'launch': _module('launch', LaunchDescription=Recorded),
        'launch.actions': _module('launch.actions', DeclareLaunchArgument=type('DeclareLaunchArgument', (Recorded,), {}),
                                  EmitEvent=type('EmitEvent', (Recorded,), {}),
                                  OpaqueFunction=type('OpaqueFunction', (Recorded,), {}),
                                  RegisterEventHandler=type('RegisterEventHandler', (Recorded,), {})),
        'launch.event_handlers': _module('launch.event_handlers', OnProcessExit=type('OnProcessExit', (Recorded,), {})),
        'launch.events': _module('launch.events', Shutdown=type('Shutdown', (Recorded,), {})),
        'launch_ros': _module('launch_ros'),
        'launch_ros.actions': _module('launch_ros.actions', Node=type('Node', (Recorded,), {})),
        'launch_ros.substitutions': _module('launch_ros.substitutions', FindPackageShare=FindPackageShare),
    }
    for name, module in stand_ins.items():
        monkeypatch.setitem(sys.modules, name, module)
    spec = importlib.util.spec_from_file_location(path.name.removesuffix('.launch.py') + '_launch', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _setup(launch_file: types.ModuleType, **configurations: str) -> list[Recorded]:
    """launch_setup as ros2 launch runs it: DeclareLaunchArgument has filled in the defaults."""
    values = {a.name: a.default for a in launch_arguments(launch_file.LAUNCH_FILE)} | configurations
    return launch_file.launch_setup(types.SimpleNamespace(launch_configurations=values, is_shutdown=False))


@pytest.mark.parametrize('launch_file', LAUNCH_FILES, indirect=True)
def test_every_argument_is_declared_with_default_and_no_case_sensitive_choices(launch_file):
    entities = launch_file.generate_launch_description().args[0]
    declared = [e for e in entities if type(e).__name__ == 'DeclareLaunchArgument']
    assert [(d.args[0], d.kwargs['default_value']) for d in declared] == \
        [(a.name, a.default) for a in launch_arguments(launch_file.LAUNCH_FILE)]
    assert all(d.kwargs['description'] for d in declared)
    assert all('choices' not in d.kwargs for d in declared)  # launch would refuse use_sim:=True
    assert '(true | false, any case)' in declared[0].kwargs['description']


def test_nodes_are_the_runners_node_set_in_any_case_of_a_choice(launch_file, tmp_path, monkeypatch):
    share = tmp_path / 'share'  # parameter files whose node keys reach any namespace ('/**/gait_node')
    (share / 'config').mkdir(parents=True)
    for path in (BRINGUP_SHARE / 'config').glob('*.yaml'):
        text = '\n' + path.read_text()
        for name in ('gait_node', 'sim_node', 'logger', 'joint_driver', 'odometry'):
            text = text.replace(f'\n{name}:', f'\n/**/{name}:')
        (share / 'config' / path.name).write_text(text)
    monkeypatch.setattr(sys.modules[__name__], 'BRINGUP_SHARE', share)
    actions = _setup(launch_file, use_sim='True', namespace='cobra', frame_prefix='cobra/', bag_path='bag')
    nodes = [a.kwargs for a in actions if type(a).__name__ == 'Node']
    expected = node_set(parse_arguments(['use_sim:=true', 'bag_path:=bag', 'frame_prefix:=cobra/']),
                        BRINGUP_SHARE / 'config')
    assert [n['name'] for n in nodes] == [spec.name for spec in expected]
    assert all(n['namespace'] == 'cobra' for n in nodes)
    sim = next(n for n in nodes if n['name'] == 'sim_node')
    assert sim['parameters'][-1]['frame_prefix'] == 'cobra/'
    assert sim['parameters'][-1]['lockstep'] == 'auto'
    assert sim['parameters'][-1]['command_period_s'] == pytest.approx(0.01)  # linked by prestart
    handlers = [a for a in actions if type(a).__name__ == 'RegisterEventHandler']
    assert len(handlers) == len(nodes)


@pytest.mark.parametrize('configurations, message', [
    ({'duraton': '5'}, "error: unknown launch argument 'duraton'"),
    ({'use_sim': 'maybe'}, 'error: use_sim:=maybe is not one of true, false'),
    ({'use_sim': 'true', 'duration': 'inf'}, "error: sim_node: parameter 'duration_s' = inf is out of range"),
    ({'use_sim': 'true', 'namespace': '1robot'}, 'error: namespace:=1robot is not a valid ROS namespace'),
])
def test_bad_input_exits_2_before_any_node_action_exists(launch_file, capsys, configurations, message):
    with pytest.raises(SystemExit) as exit_:
        _setup(launch_file, **configurations)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_launch_system_configurations_are_not_unknown_arguments(launch_file):
    actions = _setup(launch_file, use_sim='true', record='false', **{'launch-prefix': 'nice'})
    assert [a.kwargs['name'] for a in actions if type(a).__name__ == 'Node'] == [
        'gait_node', 'sim_node', 'state_publisher', 'path_forecast']


SIM = NodeSpec('cobra_sim', 'sim_node', 'sim_node', (), ends_run=True)
GAIT = NodeSpec('cobra_gaits', 'gait_node', 'gait_node', ())


def _exit(launch_file, spec: NodeSpec, code: int, shutting_down: bool):
    return launch_file.on_node_exit(spec, types.SimpleNamespace(returncode=code),
                                    types.SimpleNamespace(is_shutdown=shutting_down))


def test_a_finished_simulation_ends_the_launch_normally(launch_file):
    (emit,) = _exit(launch_file, SIM, 0, False)
    assert emit.kwargs['event'].kwargs['reason'] == 'sim_node finished'
    assert _exit(launch_file, GAIT, 0, True) is None  # stopped by the shutdown, cleanly


@pytest.mark.parametrize('spec, code, shutting_down, message', [
    (SIM, 2, False, "required node 'sim_node' (cobra_sim/sim_node) could not start (exit code 2; its error line"),
    (SIM, 1, False, "required node 'sim_node' (cobra_sim/sim_node) exited with code 1: stopping all nodes"),
    (SIM, -signal.SIGSEGV, False, "required node 'sim_node' (cobra_sim/sim_node) was killed by SIGSEGV"),
    (GAIT, 2, True, "required node 'gait_node' (cobra_gaits/gait_node) could not start (exit code 2"),
    (GAIT, 0, False, "required node 'gait_node' (cobra_gaits/gait_node) exited with code 0"),
    (GAIT, -signal.SIGKILL, True, "node 'gait_node' (cobra_gaits/gait_node) needed SIGKILL to stop"),
    (GAIT, -signal.SIGTERM, True, "node 'gait_node' (cobra_gaits/gait_node) needed SIGTERM to stop"),
    (GAIT, 1, True, "node 'gait_node' (cobra_gaits/gait_node) exited with code 1 while stopping"),
])
def test_a_node_failure_raises_so_ros2_launch_exits_non_zero(launch_file, spec, code, shutting_down, message):
    with pytest.raises(RuntimeError, match=message.replace('(', r'\(').replace(')', r'\)')):
        _exit(launch_file, spec, code, shutting_down)


def test_each_launch_file_has_its_own_defaults():
    defaults = {name: {a.name: a.default for a in launch_arguments(name)} for name in LAUNCH_FILES}
    assert {k: defaults['sidewind.launch.py'][k] for k in ('robot', 'gait', 'use_sim', 'slope_deg')} == \
        {'robot': 'cobra', 'gait': 'gait1', 'use_sim': 'false', 'slope_deg': '0.0'}
    assert {k: defaults['lts.launch.py'][k] for k in ('robot', 'gait', 'lts_preset', 'use_sim', 'slope_deg')} == \
        {'robot': 'tsnake', 'gait': 'lts', 'lts_preset': 'rolling', 'use_sim': 'true', 'slope_deg': '0.0'}
    assert {k: defaults['tumble.launch.py'][k] for k in ('robot', 'gait', 'use_sim', 'slope_deg')} == \
        {'robot': 'cobra', 'gait': 'tumble', 'use_sim': 'true', 'slope_deg': '24.0'}


@pytest.mark.parametrize('launch_file', ['lts.launch.py'], indirect=True)
def test_lts_launch_runs_the_tsnake_gait_and_sim_from_its_urdf(launch_file):
    actions = _setup(launch_file, bag_path='bag', lts_preset='Twisting')
    nodes = {n.kwargs['name']: n.kwargs for n in actions if type(n).__name__ == 'Node'}
    expected = node_set(parse_arguments(['bag_path:=bag', 'lts_preset:=twisting'], 'lts.launch.py'),
                        BRINGUP_SHARE / 'config', 'lts.launch.py')
    assert list(nodes) == [spec.name for spec in expected] == ['logger', 'gait_node', 'sim_node', 'state_publisher']
    gait, sim = nodes['gait_node']['parameters'][-1], nodes['sim_node']['parameters'][-1]
    assert (gait['gait'], gait['lts_preset']) == ('lts', 'twisting')
    assert gait['urdf_path'] == sim['urdf_path'] and Path(gait['urdf_path']).name == 'tsnake.urdf'
    assert sim['slope_deg'] == 0.0


@pytest.mark.parametrize('launch_file', ['tumble.launch.py'], indirect=True)
def test_tumble_launch_runs_the_cobra_tumble_gait_on_a_24_degree_slope(launch_file):
    actions = _setup(launch_file, record='false')
    nodes = {n.kwargs['name']: n.kwargs for n in actions if type(n).__name__ == 'Node'}
    assert list(nodes) == ['gait_node', 'sim_node', 'state_publisher', 'path_forecast']
    assert nodes['gait_node']['parameters'][-1]['gait'] == 'tumble'
    assert nodes['sim_node']['parameters'][-1]['slope_deg'] == 24.0
    assert 'urdf_path' not in nodes['sim_node']['parameters'][-1]  # COBRA: the installed default


@pytest.mark.parametrize('launch_file, configurations, message', [
    ('lts.launch.py', {'use_sim': 'false'}, 'error: robot:=tsnake runs in simulation only'),
    ('lts.launch.py', {'lts_preset': 'spiral'}, 'error: lts_preset:=spiral is not one of conventional'),
    ('lts.launch.py', {'gait': 'gait1'}, 'error: gait:=gait1 is a COBRA sidewinding preset'),
    ('tumble.launch.py', {'robot': 'tsnake'}, 'error: gait:=tumble is the COBRA tumbling latch'),
    ('tumble.launch.py', {'slope_deg': '90'}, 'error: sim_node: slope_deg:=90.0 is not a slope'),
    ('sidewind.launch.py', {'use_sim': 'true', 'gait': 'lts'}, 'COBRA has no twist joints: use robot:=tsnake'),
], indirect=['launch_file'])
def test_bad_robot_gait_and_slope_exit_2_before_any_node_action_exists(launch_file, capsys, configurations,
                                                                        message):
    with pytest.raises(SystemExit) as exit_:
        _setup(launch_file, **configurations)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
