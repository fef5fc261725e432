"""node_entry: a node process stops quietly, exit 0, on a stop signal at any point of its life.

Found under `ros2 launch` with use_sim:=false and nothing plugged in: the driver exited 2 and
launch's SIGINT reached the gait, odometry and path-forecast nodes while they were still
importing (KeyboardInterrupt tracebacks in scipy) or while the odometry node cleaned up after its
own start-up error (a KeyboardInterrupt in ros_entry.shield_cleanup, exit -2 instead of 2).

Each case runs a child process that sends itself the signal at a known point, so nothing
depends on timing.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2]

# a node module whose import takes a while: the stop arrives in the middle of it
SLOW_IMPORT_NODE = textwrap.dedent('''
    import os, signal, sys
    for signum in {signals}:
        os.kill(os.getpid(), signum)
    import json, decimal  # the import goes on after the signals (here: more imports)
    print('import finished', flush=True)

    def main():
        print('main ran', flush=True)
        return 0
''')

ENTRY = textwrap.dedent('''
    import sys
    sys.path.insert(0, sys.argv[1])
    from cobra_common.node_entry import run_node_module
    raise SystemExit(run_node_module(sys.argv[2]))
''')


def _run_entry(ros_env: dict[str, str], tmp_path: Path, module_source: str) -> subprocess.CompletedProcess:
    (tmp_path / 'probe_module.py').write_text(module_source)
    (tmp_path / 'entry.py').write_text(ENTRY)
    return subprocess.run([sys.executable, str(tmp_path / 'entry.py'), str(tmp_path), 'probe_module'],
                          env=ros_env, capture_output=True, text=True, timeout=120)


def _assert_quiet(result: subprocess.CompletedProcess, code: int = 0) -> None:
    assert result.returncode == code, result.stdout + result.stderr
    assert 'Traceback' not in result.stderr and 'Exception ignored' not in result.stderr, result.stderr
    assert 'KeyboardInterrupt' not in result.stderr, result.stderr


@pytest.mark.parametrize('signals', ['[signal.SIGINT]', '[signal.SIGTERM]',
                                     '[signal.SIGINT, signal.SIGINT]', '[signal.SIGTERM, signal.SIGINT]'])
def test_a_stop_during_the_node_modules_import_exits_0_without_starting_it(ros_env, tmp_path, signals):
    result = _run_entry(ros_env, tmp_path, SLOW_IMPORT_NODE.format(signals=signals))
    _assert_quiet(result)
    assert result.stdout.splitlines() == ['import finished']  # the import completed, main never ran


def test_without_a_stop_main_runs_and_gives_the_exit_code(ros_env, tmp_path):
    result = _run_entry(ros_env, tmp_path, 'def main():\n    print("main ran")\n    return 3\n')
    assert result.returncode == 3 and result.stdout.splitlines() == ['main ran']


def test_a_stop_in_main_before_the_nodes_own_handling_exits_0(ros_env, tmp_path):
    result = _run_entry(ros_env, tmp_path, textwrap.dedent('''
        import os, signal, time
        def main():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(30)   # interrupted: the stop raises here
            return 5
    '''))
    _assert_quiet(result)


def test_a_signal_blocked_since_the_process_started_is_delivered_and_quiet(ros_env, tmp_path):
    """The runner starts nodes with the stop signals blocked: one sent before any code of ours ran
    waits, pending, and ends the node quietly once the entry point unblocks it."""
    (tmp_path / 'probe_module.py').write_text('def main():\n    print("main ran")\n    return 0\n')
    (tmp_path / 'entry.py').write_text(ENTRY)
    blocked_start = textwrap.dedent('''
        import os, signal, subprocess, sys
        def block():
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_BLOCK, (signal.SIGINT, signal.SIGTERM))
        child = subprocess.Popen([sys.executable, '-c',
                                  'import os, signal, sys; os.kill(os.getpid(), signal.SIGINT); '
                                  'os.execv(sys.executable, [sys.executable] + sys.argv[1:])', *sys.argv[1:]],
                                 preexec_fn=block)
        raise SystemExit(child.wait())
    ''')
    (tmp_path / 'start.py').write_text(blocked_start)
    result = subprocess.run([sys.executable, str(tmp_path / 'start.py'), str(tmp_path / 'entry.py'), str(tmp_path),
                             'probe_module'], env=ros_env, capture_output=True, text=True, timeout=120)
    _assert_quiet(result)
    assert 'main ran' not in result.stdout


RUN_NODE_CHILD = textwrap.dedent('''
    import os, signal, sys, time
    from rclpy.node import Node
    from cobra_common.ros_entry import StartupError, run_node

    mode = sys.argv[1]

    class SignalOnWrite:
        """stderr that receives the stop signal while the start-up error is being printed."""
        def __init__(self, stream):
            self.stream = stream
        def write(self, text):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.1)
            return self.stream.write(text)
        def flush(self):
            self.stream.flush()
        def fileno(self):
            return self.stream.fileno()

    class Probe(Node):
        def __init__(self):
            super().__init__('probe')
            if mode == 'startup_error_then_stop':
                sys.stderr = SignalOnWrite(sys.stderr)
                raise StartupError('no RealSense camera found: plug it in')

        def destroy_node(self):
            if mode == 'first_signal_in_cleanup':
                os.kill(os.getpid(), signal.SIGINT)  # launch's SIGINT as the node ends on its own
                time.sleep(0.2)
                print('cleanup completed', flush=True)
            super().destroy_node()

    raise SystemExit(run_node(Probe, ['probe', '--ros-args', '-r', '__node:=probe'], spin=lambda node: None))
''')


def _run_node_child(ros_env: dict[str, str], tmp_path: Path, mode: str) -> subprocess.CompletedProcess:
    (tmp_path / 'probe_node.py').write_text(RUN_NODE_CHILD)
    return subprocess.run([sys.executable, str(tmp_path / 'probe_node.py'), mode], env=ros_env,
                          capture_output=True, text=True, timeout=120)


def test_a_stop_while_the_startup_error_is_reported_keeps_exit_2_and_one_line(ros_env, tmp_path):
    result = _run_node_child(ros_env, tmp_path, 'startup_error_then_stop')
    _assert_quiet(result, code=2)
    assert result.stderr.strip() == '[ERROR] no RealSense camera found: plug it in'


def test_a_first_stop_during_the_cleanup_is_only_recorded(ros_env, tmp_path):
    result = _run_node_child(ros_env, tmp_path, 'first_signal_in_cleanup')
    _assert_quiet(result)
    assert 'cleanup completed' in result.stdout


def test_a_second_signal_inside_the_handler_does_nothing(ros_env, tmp_path):
    """Two SIGINTs at once (ros2 launch: terminal + forwarded): the second can run the handler again
    inside the first's shield_cleanup; it must not raise there."""
    script = textwrap.dedent('''
        from cobra_common import node_entry
        try:
            node_entry.on_stop_signal(2, None)
        except KeyboardInterrupt:
            print('first raised')
        node_entry.on_stop_signal(2, None)   # the nested call
        print('second quiet')
    ''')
    result = subprocess.run([sys.executable, '-c', script], env=ros_env, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ['first raised', 'second quiet']


def _console_scripts(setup_py: Path) -> dict[str, str]:
    """name -> 'module:function' of a package's console_scripts."""
    for node in ast.walk(ast.parse(setup_py.read_text())):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == 'console_scripts':
                    return dict(tuple(part.strip() for part in ast.literal_eval(item).split('='))
                                for item in value.elts)
    return {}


def test_every_node_executable_enters_through_node_entry():
    """A node whose console script imported its module directly would be back to tracebacks."""
    nodes = {}
    for setup_py in sorted(SRC.glob('cobra_*/setup.py')):
        package = setup_py.parent.name
        for name, target in _console_scripts(setup_py).items():
            if name.endswith('_node'):  # every ROS node's executable is named <something>_node
                nodes[name] = target
                assert target == f'{package}.entry_points:{name}', f'{setup_py}: {name} = {target}'
                entry = (setup_py.parent / package / 'entry_points.py').read_text()
                assert f"run_node_module('{package}.{name}')" in entry
                assert (setup_py.parent / package / f'{name}.py').exists()
    assert {'gait_node', 'driver_node', 'odometry_node', 'sim_node', 'logger_node', 'path_forecast_node',
            'state_publisher_node', 'dem_node'} <= set(nodes)
