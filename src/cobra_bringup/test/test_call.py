"""`python -m cobra_bringup.call`: the pip-mode stand-in for `ros2 service call` on our services."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest
from std_srvs.srv import SetBool, Trigger

from cobra_bringup.call import resolve


def call(ros_env: dict[str, str], *words: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, '-m', 'cobra_bringup.call', *words], env=ros_env,
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def served(ros_node):
    """Trigger /tumble/start (succeeds), SetBool /cobra/latch/set (refuses false), spun in a thread."""
    import rclpy
    received: list[object] = []

    def trigger(request, response):
        received.append('start')
        response.success, response.message = True, 'ramping down'
        return response

    def set_bool(request, response):
        received.append(request.data)
        response.success, response.message = request.data, f'latch {request.data}'
        return response

    ros_node.create_service(Trigger, '/tumble/start', trigger)
    ros_node.create_service(SetBool, '/cobra/latch/set', set_bool)
    executor = rclpy.executors.SingleThreadedExecutor()
    executor.add_node(ros_node)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    yield received
    executor.shutdown()


def test_relative_names_resolve_in_the_namespace():
    assert resolve('latch/set', 'cobra') == '/cobra/latch/set'
    assert resolve('latch/set', '/cobra/') == '/cobra/latch/set'
    assert resolve('latch/set', '') == '/latch/set'
    assert resolve('/tumble/start', 'cobra') == '/tumble/start'


def test_trigger_and_set_bool_are_called_and_answered(ros_env, served):
    result = call(ros_env, 'tumble/start')
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '/tumble/start: success: ramping down'
    result = call(ros_env, 'latch/set', 'true', '--namespace', 'cobra')
    assert (result.returncode, result.stdout.strip()) == (0, '/cobra/latch/set: success: latch True')
    result = call(ros_env, '/cobra/latch/set', 'false')
    assert (result.returncode, result.stdout.strip()) == (1, '/cobra/latch/set: refused: latch False')
    assert served == ['start', True, False]


@pytest.mark.parametrize('words, message', [
    (['latch/set', '--namespace', 'cobra'], 'is a std_srvs/SetBool service: give true or false'),
    (['tumble/start', 'true'], "is a std_srvs/Trigger service: it takes no value (got 'true')"),
    (['gait/start', '--timeout', '0.5'], 'no service /gait/start within 0.5 s in ROS_DOMAIN_ID'),
])
def test_bad_calls_exit_2_with_one_message_and_call_nothing(ros_env, served, words, message):
    result = call(ros_env, *words)
    assert result.returncode == 2
    assert result.stderr.startswith('error: ') and message in result.stderr, result.stderr
    assert served == []


def test_only_the_service_is_required(capsys):
    """argparse called `value` required (nargs='*' without a default); a Trigger takes none."""
    from cobra_bringup.call import main
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert 'the following arguments are required: service\n' in error, error
    assert error.startswith('usage: python -m cobra_bringup.call ') and '[value]' in error, error
