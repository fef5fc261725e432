"""Full pip-mode bringup through the installed workspace: nodes as processes, a real bag.

Needs the colcon install (scripts/setup.sh, which the test command runs first).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
from mcap.reader import make_reader
from rosbags.typesys import Stores, get_typestore


def read_bag(bag: Path, namespace: str = '') -> tuple[dict, Counter, list[float], list[tuple[float, float]]]:
    """(metadata, messages per topic, joint_states header stamps [s], ground-truth head x, y [m])
    with the independent mcap reader; the CDR payload is decoded with rosbags' Jazzy types."""
    typestore = get_typestore(Stores.ROS2_JAZZY)
    metadata = yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    counts: Counter = Counter()
    joint_times, head_xy = [], []
    for relative in metadata['relative_file_paths']:
        with open(bag / relative, 'rb') as handle:
            for _, channel, message in make_reader(handle).iter_messages():
                counts[channel.topic] += 1
                if channel.topic == f'{namespace}/joint_states':
                    stamp = typestore.deserialize_cdr(message.data, 'sensor_msgs/msg/JointState').header.stamp
                    joint_times.append(stamp.sec + stamp.nanosec * 1e-9)
                elif channel.topic == f'{namespace}/ground_truth/odom':
                    position = typestore.deserialize_cdr(message.data, 'nav_msgs/msg/Odometry').pose.pose.position
                    head_xy.append((position.x, position.y))
    return metadata, counts, joint_times, head_xy


def assert_every_node_stopped_on_its_first_signal(process: subprocess.Popen, output: str) -> None:
    """The runner says so when it had to escalate (and then exits non-zero)."""
    assert 'did not stop' not in output and 'needed SIG' not in output, output
    assert 'while stopping' not in output and 'Traceback' not in output, output


def test_simulated_sidewind_records_a_complete_bag(start_runner, tmp_path):
    bag = tmp_path / 'bags' / 'run'
    process = start_runner(tmp_path, 'sidewind.launch.py', 'use_sim:=true', 'duration:=3.0',
                     f'bag_path:={bag}')
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 0, output
    assert_every_node_stopped_on_its_first_signal(process, output)
    metadata, counts, joint_times, _ = read_bag(bag)
    sim_seconds = 3.0
    assert counts['/joint_states'] / sim_seconds >= 450
    assert counts['/ground_truth/odom'] >= 250 and counts['/imu/data'] >= 700
    assert counts['/joint_commands'] >= 100  # 100 Hz of sim time; fewer when the CPU is contended
    assert metadata['storage_identifier'] == 'mcap'
    recorded = {t['topic_metadata']['name']: t['message_count'] for t in metadata['topics_with_message_count']}
    assert recorded['/joint_states'] == counts['/joint_states']
    assert max(joint_times) - min(joint_times) == pytest.approx(sim_seconds, abs=0.01)  # sim time
    assert 'lateral displacement' in output and str(bag) in output


def test_sigint_mid_run_leaves_a_readable_bag(start_runner, tmp_path):
    bag = tmp_path / 'bag'
    process = start_runner(tmp_path, 'sidewind.launch.py', 'use_sim:=true', f'bag_path:={bag}')
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(bag.glob('*.mcap')):
        time.sleep(0.2)  # the first split closes after its duration
    time.sleep(1.0)
    os.killpg(process.pid, signal.SIGINT)
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 0, output
    assert_every_node_stopped_on_its_first_signal(process, output)
    metadata, counts, _, _ = read_bag(bag)
    assert counts['/joint_states'] > 1000
    assert metadata['message_count'] == sum(counts.values())
    assert not (bag / '.recording').exists()


@pytest.mark.parametrize('words, message', [
    (['use_sim:=true', 'gait:=gait9'], "unknown gait 'gait9'"),
    (['use_sim:=true', 'speed:=3'], "unknown launch argument 'speed'"),
    (['use_sim=true'], "malformed launch argument 'use_sim=true'"),
    (['use_sim:=maybe'], 'use_sim:=maybe is not one of'),
    (['use_sim:=true', 'gait:=csv'], 'gait:=csv needs csv_file'),
    (['use_sim:=true', 'duration:=soon'], 'duration:=soon is not a number'),
    (['use_sim:=true', 'duration:=inf'], "sim_node: parameter 'duration_s' = inf is out of range: "
                                        'allowed [0, 1e+06]'),
    (['use_sim:=true', 'real_time_factor:=5000'], "sim_node: parameter 'real_time_factor' = 5000.0 "
                                                  'is out of range: allowed [0, 1000]'),
    (['use_sim:=true', 'namespace:=9lives'], 'namespace:=9lives is not a valid ROS namespace'),
    (['use_sim:=true', 'bag_path:=/etc/hostname/bag'], 'bag_path /etc/hostname/bag cannot be created: '
                                                       '/etc/hostname is not a directory'),
])
def test_bad_arguments_fail_clearly_and_leave_nothing_behind(start_runner, tmp_path, words, message):
    process = start_runner(tmp_path, 'sidewind.launch.py', *words)
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 2, output
    assert message in output
    assert '[run] starting' not in output and 'Traceback' not in output
    assert not (tmp_path / 'bags').exists()


@pytest.mark.parametrize('params, message', [
    ('gait_node:\n  ros__parameters:\n    rate_hz: fast\n',
     "gait_node: parameter 'rate_hz' = 'fast' has the wrong type: it must be a floating-point number"),
    ('sim_node:\n  ros__parameters:\n    servo_kp_nm_rad: 5000.0\n',
     "sim_node: parameter 'servo_kp_nm_rad' = 5000.0 is out of range: allowed [0, 1000]"),
    ('sim_node:\n  ros__parameters:\n    urdf_path: /nonexistent/cobra.urdf\n',
     'sim_node: URDF not found: /nonexistent/cobra.urdf'),
])
def test_bad_params_file_is_refused_before_any_node_starts(start_runner, tmp_path, params, message):
    override = tmp_path / 'override.yaml'
    override.write_text(params)
    process = start_runner(tmp_path, 'sidewind.launch.py', 'use_sim:=true', f'params_file:={override}')
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 2, output
    assert message in output and '[run] starting' not in output
    assert not (tmp_path / 'bags').exists()


@pytest.mark.parametrize('content, message', [
    (b'\xef\xbb\xbftime_s,joint_1\n0.0,0.1\n1.0,0.2\n', ':1: starts with a UTF-8 byte-order mark'),
    (b'time_s,joint_1\n0.0,0.1\n1.0,\xb0\n', ':3: not UTF-8 text'),
    (None, 'is a directory'),
])
def test_unusable_csv_is_refused_precisely(start_runner, tmp_path, content, message):
    trajectory = tmp_path / 'gait.csv'
    if content is None:
        trajectory.mkdir()
    else:
        trajectory.write_bytes(content)
    process = start_runner(tmp_path, 'sidewind.launch.py', 'use_sim:=true', 'gait:=csv',
                     f'csv_file:={trajectory}')
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 2, output
    assert message in output and str(trajectory) in output and '[run] starting' not in output
    assert not (tmp_path / 'bags').exists()


def test_malformed_csv_is_refused_before_anything_starts(start_runner, tmp_path):
    trajectory = tmp_path / 'gait.csv'
    trajectory.write_text('time_s,joint_1,joint_2\n0.0,0.1,0.2\n0.01,0.1\n')
    process = start_runner(tmp_path, 'sidewind.launch.py', 'use_sim:=true', 'gait:=csv',
                     f'csv_file:={trajectory}')
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 2
    assert f'{trajectory}:3' in output and '[run] starting' not in output
    assert not (tmp_path / 'bags').exists()


def test_namespaced_run_moves_the_robot_on_sim_time(start_runner, tmp_path):
    """namespace:=cobra: every topic under /cobra, /clock global, so the gait ticks and the robot moves."""
    bag = tmp_path / 'bag'
    process = start_runner(tmp_path, 'sidewind.launch.py', 'use_sim:=true', 'duration:=4.0',
                     'namespace:=cobra', 'frame_prefix:=cobra/', f'bag_path:={bag}')
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 0, output
    assert_every_node_stopped_on_its_first_signal(process, output)
    _, counts, joint_times, head_xy = read_bag(bag, '/cobra')
    assert counts['/cobra/joint_commands'] >= 100 and not counts['/joint_commands']
    assert min(joint_times) >= 0.0 and max(joint_times) - min(joint_times) == pytest.approx(4.0, abs=0.01)
    assert max(joint_times) > 3.9  # stamped with sim time, not 0
    moved_m = max(((x - head_xy[0][0]) ** 2 + (y - head_xy[0][1]) ** 2) ** 0.5 for x, y in head_xy)
    assert moved_m > 0.01, f'the head moved only {moved_m * 1000:.2f} mm'
    assert 'distance (net)' in output and 'PROBLEM' not in output


def test_hardware_mode_without_the_robot_is_a_clear_error_not_a_hang(start_runner, tmp_path):
    process = start_runner(tmp_path, 'sidewind.launch.py', 'use_sim:=false', 'record:=false')
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 1
    assert "serial port '/dev/ttyCOBRA' not found" in output
    assert 'could not start' in output and 'stopping all nodes' in output


def test_the_venv_python_runs_the_bringup_without_sourcing_the_workspace(ros_env, tmp_path):
    # a plain shell: no activated venv, no `source install/setup.bash` (scripts/setup.sh's .pth
    # puts the installed packages on the venv's path and their prefixes on AMENT_PREFIX_PATH)
    plain = {'HOME': os.environ.get('HOME', '/root'), 'PATH': '/usr/bin:/bin',
             'ROS_DOMAIN_ID': ros_env['ROS_DOMAIN_ID'], 'ROS_AUTOMATIC_DISCOVERY_RANGE': 'LOCALHOST',
             'ROS_LOG_DIR': str(tmp_path / 'log')}
    venv_python = Path(sys.prefix) / 'bin' / 'python'
    process = subprocess.run([str(venv_python), '-m', 'cobra_bringup.runner', 'sidewind.launch.py', 'use_sim:=true',
                              'duration:=3.0', 'real_time_factor:=0.0', 'record:=false'],
                             cwd=tmp_path, env=plain, capture_output=True, text=True, timeout=300)
    output = process.stdout + process.stderr
    assert process.returncode == 0, output
    assert 'reached duration_s = 3 s of sim time' in output, output


def test_a_moved_checkout_runs_the_bringup_from_where_it_now_is(ros_env, tmp_path):
    """The workspace registration is relative to the venv: a checkout built in one place and run
    from another (moved, mounted elsewhere) uses its own install/, and nodes start even though
    their entry scripts' shebangs name the old venv path. Moved cheaply: a venv whose python and
    lib/ link to this one's, beside a copy of install/."""
    moved = tmp_path / 'moved'
    venv = moved / '.venv'
    (venv / 'bin').mkdir(parents=True)
    shutil.copy(Path(sys.prefix) / 'pyvenv.cfg', venv / 'pyvenv.cfg')
    (venv / 'bin' / 'python').symlink_to(Path(sys.prefix) / 'bin' / 'python')
    (venv / 'lib').symlink_to(Path(sys.prefix) / 'lib')     # site-packages and the ROS wheels' libraries
    shutil.copytree(REPO_ROOT / 'install', moved / 'install', symlinks=True)
    plain = {'HOME': os.environ.get('HOME', '/root'), 'PATH': '/usr/bin:/bin',
             'ROS_DOMAIN_ID': ros_env['ROS_DOMAIN_ID'], 'ROS_AUTOMATIC_DISCOVERY_RANGE': 'LOCALHOST',
             'ROS_LOG_DIR': str(tmp_path / 'log')}
    process = subprocess.run([str(venv / 'bin' / 'python'), '-m', 'cobra_bringup.runner', 'sidewind.launch.py',
                              'use_sim:=true', 'duration:=3.0', 'real_time_factor:=0.0', 'record:=false'],
                             cwd=tmp_path, env=plain, capture_output=True, text=True, timeout=300)
    output = process.stdout + process.stderr
    assert process.returncode == 0, output
    assert 'reached duration_s = 3 s of sim time' in output, output
    # the moved install's files, not the original checkout's (an absolute registration found those)
    assert f"from {moved / 'install' / 'cobra_description'}" in output, output

