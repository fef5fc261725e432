"""Runner supervision with stand-in node processes: how nodes stop decides the exit code.

The runner runs in a child process (it installs signal handlers); the stand-ins say 'ready' once
their own handlers are in place, so every signal in these tests lands at a known state.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import textwrap

import pytest

STAND_IN = textwrap.dedent('''
    import signal, sys, time
    behaviour = sys.argv[1]
    def stop(signum, frame):
        raise SystemExit(3 if behaviour == 'fails_on_stop' else 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN if behaviour in ('ignores_sigint', 'stubborn') else stop)
    signal.signal(signal.SIGTERM, signal.SIG_IGN if behaviour == 'stubborn' else signal.SIG_DFL)
    sys.stdout.write(f'ready {behaviour}\\n')  # one write: print() writes text and newline apart,
    sys.stdout.flush()                         # which interleave with the other processes' lines
    while True:
        time.sleep(0.05)
''')

RUNNER = textwrap.dedent('''
    import sys
    from cobra_bringup.node_set import NodeSpec
    from cobra_bringup.runner import Runner
    stop_timeout_s, stand_in, *behaviours = sys.argv[1:]
    specs = [NodeSpec('fake', 'stand_in', name, ()) for name in behaviours]
    commands = [[sys.executable, stand_in, name] for name in behaviours]
    raise SystemExit(Runner(specs, '', 'info', stop_timeout_s=float(stop_timeout_s), commands=commands).run())
''')


def start_runner(ros_env, tmp_path, stop_timeout_s: float, *behaviours: str) -> subprocess.Popen:
    (tmp_path / 'stand_in.py').write_text(STAND_IN)
    (tmp_path / 'runner.py').write_text(RUNNER)
    process = subprocess.Popen(
        [sys.executable, str(tmp_path / 'runner.py'), str(stop_timeout_s), str(tmp_path / 'stand_in.py'),
         *behaviours], env=ros_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen = ''
    for line in process.stdout:
        seen += line  # lines of several processes may interleave: look for the words anywhere
        if set(behaviours) <= set(re.findall(r'ready (\w+)', seen)):
            return process
    pytest.fail('stand-ins did not start')


def wait_for_line(process: subprocess.Popen, text: str) -> str:
    seen = ''
    for line in process.stdout:
        seen += line
        if text in line:
            return seen
    pytest.fail(f'runner never said {text!r}: {seen}')


def finish(process: subprocess.Popen) -> str:
    output, _ = process.communicate(timeout=60)
    return output


def test_nodes_that_stop_on_sigint_give_exit_0(ros_env, tmp_path):
    process = start_runner(ros_env, tmp_path, 30.0, 'obedient', 'also_obedient')
    process.send_signal(signal.SIGINT)
    output = finish(process)
    assert process.returncode == 0, output
    assert 'needed' not in output and 'did not stop' not in output


def test_a_node_that_needs_sigkill_fails_the_run_and_is_named(ros_env, tmp_path):
    process = start_runner(ros_env, tmp_path, 0.5, 'obedient', 'stubborn')
    process.send_signal(signal.SIGINT)
    output = finish(process)
    assert process.returncode == 1, output
    assert 'stubborn did not stop within 0.5 s of SIGINT: sending SIGTERM' in output
    assert 'stubborn did not stop within 0.5 s of SIGTERM: sending SIGKILL' in output
    assert "node 'stubborn' needed SIGKILL to stop" in output
    assert "'obedient'" not in output


def test_second_ctrl_c_sends_sigterm_at_once_and_fails_the_run(ros_env, tmp_path):
    process = start_runner(ros_env, tmp_path, 300.0, 'ignores_sigint')
    process.send_signal(signal.SIGINT)
    wait_for_line(process, 'SIGINT: stopping all nodes')
    process.send_signal(signal.SIGINT)  # the 300 s stop timeout cannot be what escalates
    output = finish(process)
    assert process.returncode == 1, output
    assert 'SIGINT again: sending SIGTERM to ignores_sigint now' in output
    assert "node 'ignores_sigint' needed SIGTERM to stop" in output


def test_a_node_exiting_non_zero_while_stopping_fails_the_run(ros_env, tmp_path):
    process = start_runner(ros_env, tmp_path, 30.0, 'fails_on_stop')
    process.send_signal(signal.SIGINT)
    output = finish(process)
    assert process.returncode == 1, output
    assert "node 'fails_on_stop' exited with code 3 while stopping" in output


def test_simulation_without_ros_domain_id_claims_a_locked_free_one(monkeypatch, tmp_path):
    from cobra_bringup import runner
    from cobra_common import ros_domain
    monkeypatch.delenv('ROS_DOMAIN_ID', raising=False)
    monkeypatch.setenv('TMPDIR', str(tmp_path))  # a lock directory of its own
    first = ros_domain.claim_domain_id()  # another run already holds the lowest id
    environment, claim = runner.simulation_environment()
    try:
        assert environment['ROS_DOMAIN_ID'] == str(claim.domain_id) != str(first.domain_id)
        assert environment['ROS_AUTOMATIC_DISCOVERY_RANGE'] == 'LOCALHOST'
        with ros_domain.claim_domain_id() as third:  # held for the run's lifetime
            assert third.domain_id not in (first.domain_id, claim.domain_id)
    finally:
        claim.release()
        first.release()


def test_simulation_keeps_a_ros_domain_id_from_the_environment(monkeypatch):
    from cobra_bringup import runner
    monkeypatch.setenv('ROS_DOMAIN_ID', '42')
    environment, claim = runner.simulation_environment()
    assert environment['ROS_DOMAIN_ID'] == '42' and claim is None


def test_a_python_without_ros_gets_one_message_naming_the_venv(monkeypatch, capsys):
    """install/setup.bash sourced in a shell whose python is the system's: no traceback, exit 2."""
    from cobra_bringup import runner
    monkeypatch.setitem(sys.modules, 'ament_index_python', None)  # import fails as without ROS 2
    monkeypatch.setitem(sys.modules, 'ament_index_python.packages', None)
    assert runner.main(['sidewind.launch.py', 'use_sim:=true']) == runner.EXIT_BAD_ARGUMENTS
    error = capsys.readouterr().err
    assert error.count('\n') == 1 and 'has no ROS 2' in error and '.venv/bin/python -m cobra_bringup.runner' in error
