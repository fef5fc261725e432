"""ros_entry: parameter errors become one StartupError line; nodes stop on a signal in any state.

The signal tests run a tiny node in a child process (signal handlers are process-wide), and make
the signal arrive at a known point from inside the node, so they do not depend on timing.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from rclpy.node import Node
from rclpy.parameter import Parameter

from cobra_common.ros_entry import StartupError, declare, describe, range_text

SPECS = {
    'rate_hz': (100.0, describe('rate [Hz]', float_range=(1.0, 1000.0))),
    'count': (3, describe('count', int_range=(0, 10))),
    'name': ('a', describe('name')),
    'flag': (True, describe('flag')),
}


def _node_with(ros_node: Node, **overrides: object) -> Node:
    return Node('probe_node', context=ros_node.context,
                parameter_overrides=[Parameter(k, value=v) for k, v in overrides.items()])


def test_declare_returns_defaults_and_overrides(ros_node):
    node = _node_with(ros_node, rate_hz=50.0, flag=False)
    try:
        assert declare(node, SPECS) == {'rate_hz': 50.0, 'count': 3, 'name': 'a', 'flag': False}
    finally:
        node.destroy_node()


@pytest.mark.parametrize('overrides, message', [
    ({'rate_hz': 'fast'}, "probe_node: parameter 'rate_hz' = 'fast' has the wrong type: it must be "
                          'a floating-point number'),
    ({'rate_hz': 50}, "parameter 'rate_hz' = 50 has the wrong type: it must be a floating-point "
                      'number (write 50.0, not 50) in [1, 1000] (default 100.0)'),
    ({'name': 5}, "parameter 'name' = 5 has the wrong type: it must be a string (default 'a')"),
    ({'count': 2.5}, "parameter 'count' = 2.5 has the wrong type: it must be an integer in [0, 10]"),
    ({'count': 20}, "parameter 'count' = 20 is out of range: allowed [0, 10] (default 3)"),
    ({'rate_hz': 5000.0}, "parameter 'rate_hz' = 5000.0 is out of range: allowed [1, 1000]"),
    ({'rate_hz': float('inf')}, "parameter 'rate_hz' = inf is out of range: allowed [1, 1000]"),
    ({'rate_hz': float('nan')}, "parameter 'rate_hz' = nan is out of range"),
])
def test_declare_turns_parameter_exceptions_into_one_startup_error(ros_node, overrides, message):
    node = _node_with(ros_node, **overrides)
    try:
        with pytest.raises(StartupError) as error:
            declare(node, SPECS)
        assert message in str(error.value)
        assert '\n' not in str(error.value)
    finally:
        node.destroy_node()


def test_declare_refuses_non_finite_float_without_range(ros_node):
    node = _node_with(ros_node, gain=float('inf'))
    try:
        with pytest.raises(StartupError, match="parameter 'gain' = inf must be a finite number"):
            declare(node, {'gain': (1.0, describe('gain'))})
    finally:
        node.destroy_node()


def test_range_text():
    assert range_text(describe('x', float_range=(0.0, 1e6))) == '[0, 1e+06]'
    assert range_text(describe('x', int_range=(1, 5))) == '[1, 5]'
    assert range_text(describe('x')) == ''


CHILD = textwrap.dedent('''
    import os, signal, sys, time
    from rclpy.clock import Clock, ClockType
    from rclpy.node import Node
    from cobra_common.ros_entry import StartupError, run_node

    mode = sys.argv[1]

    class Probe(Node):
        def __init__(self):
            super().__init__('probe')
            if mode == 'bad_parameter':
                raise StartupError("probe: parameter 'x' = 5 is out of range: allowed [0, 1]")
            steady = Clock(clock_type=ClockType.STEADY_TIME)
            self.create_timer(0.01, self.tick, clock=steady)
            self.ticks = 0

        def tick(self):
            self.ticks += 1
            if self.ticks == 3:
                os.kill(os.getpid(), signal.SIGTERM if mode == 'sigterm' else signal.SIGINT)
                if mode == 'sigint_in_callback':
                    os.kill(os.getpid(), signal.SIGINT)  # the callback still runs to its end
                    print('callback completed', flush=True)

        def destroy_node(self):
            if mode == 'second_sigint_in_cleanup':
                os.kill(os.getpid(), signal.SIGINT)  # as ros2 launch's forwarded Ctrl-C
                time.sleep(0.2)
                print('cleanup completed', flush=True)
            super().destroy_node()

    raise SystemExit(run_node(Probe, ['probe', '--ros-args', '-r', '__node:=probe']))
''')


def _run_child(ros_env: dict[str, str], tmp_path: Path, mode: str) -> subprocess.CompletedProcess:
    script = tmp_path / 'probe_node.py'
    script.write_text(CHILD)
    return subprocess.run([sys.executable, str(script), mode], env=ros_env, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize('mode', ['sigint', 'sigterm', 'sigint_in_callback', 'second_sigint_in_cleanup'])
def test_node_stops_cleanly_on_a_signal(ros_env, tmp_path, mode):
    result = _run_child(ros_env, tmp_path, mode)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'Traceback' not in result.stderr and 'Exception ignored' not in result.stderr
    if mode == 'second_sigint_in_cleanup':
        assert 'cleanup completed' in result.stdout
    if mode == 'sigint_in_callback':
        assert 'callback completed' in result.stdout


def test_startup_error_is_one_line_and_exit_2(ros_env, tmp_path):
    result = _run_child(ros_env, tmp_path, 'bad_parameter')
    assert result.returncode == 2
    assert result.stderr.strip() == "[ERROR] probe: parameter 'x' = 5 is out of range: allowed [0, 1]"


OWN_LOOP = textwrap.dedent('''
    import os, signal
    from cobra_common.ros_entry import deferred_stop, init_with_stop_signals, stop_requested
    init_with_stop_signals(['loop'])
    steps = 0
    with deferred_stop():
        while not stop_requested():
            steps += 1
            if steps == 3:
                os.kill(os.getpid(), signal.SIGINT)
                print('step completed after the signal', flush=True)
    print(f'stopped after {steps} steps', flush=True)
''')


def test_a_nodes_own_loop_sees_the_signal_as_a_flag(ros_env, tmp_path):
    script = tmp_path / 'own_loop.py'
    script.write_text(OWN_LOOP)
    result = subprocess.run([sys.executable, str(script)], env=ros_env, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ['step completed after the signal', 'stopped after 3 steps']


HUNG_STOP = textwrap.dedent('''
    import os, signal, time
    from cobra_common.ros_entry import deferred_stop, init_with_stop_signals, stop_requested

    def stuck_in_shutdown():
        time.sleep(30)   # a stop that never finishes (the real case: a node hung while stopping)

    init_with_stop_signals(['hung'])
    with deferred_stop():
        os.kill(os.getpid(), signal.SIGINT)
        while not stop_requested():
            pass
    print('stopping', flush=True)
    stuck_in_shutdown()
''')


def test_a_node_hung_after_its_stop_signal_prints_where(ros_env, tmp_path):
    """A node still alive after its stop signal leaves every thread's stack on stderr before the
    runner escalates, so a stop that hangs is diagnosable from the log (found: a gait node that
    needed SIGTERM once under load, with nothing in its output to say why)."""
    script = tmp_path / 'hung.py'
    script.write_text(HUNG_STOP)
    env = dict(ros_env, COBRA_STOP_STACK_DUMP_S='0.5')
    process = subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    stderr_lines: list[str] = []
    for line in process.stderr:                     # read until the dump names the hung function
        stderr_lines.append(line)
        if 'stuck_in_shutdown' in line:
            break
    process.kill()
    process.communicate(timeout=30)
    assert 'Timeout' in ''.join(stderr_lines) and any('stuck_in_shutdown' in line for line in stderr_lines), \
        ''.join(stderr_lines)
