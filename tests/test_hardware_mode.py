"""Hardware mode with nothing plugged in, through both front ends: one error line per missing
device naming its fix, the failing node named, every other node stopped quietly with exit 0.

Found under the real `ros2 launch`: after the driver's good "serial port not found" line, the gait,
odometry and path-forecast nodes died with KeyboardInterrupt tracebacks (launch's SIGINT landed in
their imports and in ros_entry.shield_cleanup) and launch printed four "process has died" errors.

The pip-mode runner runs as a user starts it. The launch file runs under the real Jazzy launch
(launch 3.4.3, launch_ros/ros2launch 0.26.6, from third_party/ros2_launch) through
`ros2launch.api.launch_a_launch_file`, which is what `ros2 launch` calls. Needs the colcon
install (scripts/setup.sh, which the test command runs first).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
ROS2_LAUNCH = REPO_ROOT / 'third_party' / 'ros2_launch'
INSTALLED_LAUNCH_FILE = (REPO_ROOT / 'install' / 'cobra_bringup' / 'share' / 'cobra_bringup' / 'launch'
                         / 'sidewind.launch.py')
SERIAL_PORT_LINE = "[ERROR] serial port '/dev/ttyCOBRA' not found"
CAMERA_LINE = '[ERROR] no RealSense camera found'
CAMERA_LIBRARY_LINE = '[ERROR] RealSense: pyrealsense2 cannot be loaded'  # a machine without libusb-1.0-0
ROS2_LAUNCH_MAIN = '''
import sys
from ros2launch.api import launch_a_launch_file
sys.exit(launch_a_launch_file(launch_file_path=sys.argv[1], launch_file_arguments=sys.argv[2:],
                              noninteractive=True))
'''


def _assert_one_line_per_missing_device(output: str) -> None:
    assert output.count(SERIAL_PORT_LINE) == 1, output
    assert 'pass -p port:=' in output  # the driver's line names the fix
    # the odometry node reports its missing camera unless the stop reached it first (then it stops quietly)
    assert output.count(CAMERA_LINE) + output.count(CAMERA_LIBRARY_LINE) <= 1, output
    assert 'Traceback' not in output and 'KeyboardInterrupt' not in output, output


def _odometry_reported(output: str) -> bool:
    return CAMERA_LINE in output or CAMERA_LIBRARY_LINE in output


def test_runner_names_the_failing_node_and_stops_the_others_quietly(start_runner, tmp_path):
    process = start_runner(tmp_path, 'sidewind.launch.py', 'use_sim:=false', 'record:=false')
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 1, output
    _assert_one_line_per_missing_device(output)
    assert ("[run] error: required node 'joint_driver' (cobra_driver/driver_node) could not start "
            '(exit code 2; its error line is above; python -m cobra_bringup.preflight checks every device at '
            'once): stopping all nodes') in output
    named = set(re.findall(r"\[run\] error: (?:required )?node '(\w+)'", output))
    assert named == ({'joint_driver', 'odometry'} if _odometry_reported(output) else {'joint_driver'}), output
    assert 'while stopping' not in output and 'needed SIG' not in output, output


def test_ros2_launch_names_the_failing_node_and_stops_the_others_quietly(ros_env, tmp_path):
    if not INSTALLED_LAUNCH_FILE.exists():
        pytest.fail('the workspace is not built: run scripts/setup.sh (scripts/test.sh does)')
    (tmp_path / 'ros2_launch.py').write_text(ROS2_LAUNCH_MAIN)
    setup = REPO_ROOT / 'install' / 'setup.bash'
    command = (f'source {setup} && exec {sys.executable} {tmp_path / "ros2_launch.py"} {INSTALLED_LAUNCH_FILE} '
               'use_sim:=false record:=false')
    process = subprocess.run(['bash', '-c', command], cwd=tmp_path, env=dict(ros_env, PYTHONPATH=str(ROS2_LAUNCH)),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=180)
    output = process.stdout
    assert process.returncode == 1, output
    _assert_one_line_per_missing_device(output)
    assert ("Caught exception in launch (see debug for traceback): required node 'joint_driver' "
            '(cobra_driver/driver_node) could not start (exit code 2; its error line is above; '
            'python -m cobra_bringup.preflight checks every device at once): stopping all nodes') in output
    died = set(re.findall(r'\[ERROR\] \[(\w+)-\d+\]: process has died', output))
    assert died == ({'driver_node', 'odometry_node'} if _odometry_reported(output) else {'driver_node'}), output
    finished = set(re.findall(r'\[INFO\] \[(\w+)-\d+\]: process has finished cleanly', output))
    assert finished | died == {'gait_node', 'driver_node', 'odometry_node', 'state_publisher_node',
                               'path_forecast_node'}, output
