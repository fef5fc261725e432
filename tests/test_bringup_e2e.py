"""Full pip-mode bringup through the installed workspace: nodes as processes, a real bag.

Needs the colcon install (scripts/setup.sh, which the test command runs first).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml
from mcap.reader import make_reader
from rosbags.typesys import Stores, get_typestore

REPO_ROOT = Path(__file__).resolve().parents[1]
SETUP = REPO_ROOT / 'install' / 'setup.bash'


def runner(ros_env: dict[str, str], cwd: Path, *words: str) -> subprocess.Popen:
    """The runner as a user starts it: installed workspace sourced, sources not on the path."""
    if not SETUP.exists():
        pytest.fail('the workspace is not built: run scripts/setup.sh (scripts/test.sh does)')
    env = dict(ros_env, PYTHONPATH='')
    command = f'source {SETUP} && exec python -m cobra_bringup.runner ' + ' '.join(words)
    return subprocess.Popen(['bash', '-c', command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)


def read_bag(bag: Path) -> tuple[dict, Counter, list[float]]:
    """(metadata, messages per topic, joint_states header stamps [s]) with the independent mcap
    reader; the CDR payload is decoded with rosbags' Jazzy types."""
    typestore = get_typestore(Stores.ROS2_JAZZY)
    metadata = yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    counts: Counter = Counter()
    joint_times = []
    for relative in metadata['relative_file_paths']:
        with open(bag / relative, 'rb') as handle:
            for _, channel, message in make_reader(handle).iter_messages():
                counts[channel.topic] += 1
                if channel.topic == '/joint_states':
                    stamp = typestore.deserialize_cdr(message.data, 'sensor_msgs/msg/JointState').header.stamp
                    joint_times.append(stamp.sec + stamp.nanosec * 1e-9)
    return metadata, counts, joint_times


def test_simulated_sidewind_records_a_complete_bag(ros_env, tmp_path):
    bag = tmp_path / 'bags' / 'run'
    process = runner(ros_env, tmp_path, 'sidewind.launch.py', 'use_sim:=true', 'duration:=3.0',
                     f'bag_path:={bag}')
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 0, output
    metadata, counts, joint_times = read_bag(bag)
    sim_seconds = 3.0
    assert counts['/joint_states'] / sim_seconds >= 450
    assert counts['/ground_truth/odom'] >= 250 and counts['/imu/data'] >= 700
    assert counts['/joint_commands'] >= 100  # 100 Hz of sim time; fewer when the CPU is contended
    assert metadata['storage_identifier'] == 'mcap'
    recorded = {t['topic_metadata']['name']: t['message_count'] for t in metadata['topics_with_message_count']}
    assert recorded['/joint_states'] == counts['/joint_states']
    assert max(joint_times) - min(joint_times) == pytest.approx(sim_seconds, abs=0.01)  # sim time
    assert 'lateral displacement' in output and str(bag) in output


def test_sigint_mid_run_leaves_a_readable_bag(ros_env, tmp_path):
    bag = tmp_path / 'bag'
    process = runner(ros_env, tmp_path, 'sidewind.launch.py', 'use_sim:=true', f'bag_path:={bag}')
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(bag.glob('*.mcap')):
        time.sleep(0.2)  # the first split closes after its duration
    time.sleep(1.0)
    os.killpg(process.pid, signal.SIGINT)
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 0, output
    metadata, counts, _ = read_bag(bag)
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
])
def test_bad_arguments_fail_clearly_and_leave_nothing_behind(ros_env, tmp_path, words, message):
    process = runner(ros_env, tmp_path, 'sidewind.launch.py', *words)
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 2
    assert message in output
    assert not (tmp_path / 'bags').exists()


def test_malformed_csv_is_refused_before_anything_starts(ros_env, tmp_path):
    trajectory = tmp_path / 'gait.csv'
    trajectory.write_text('time_s,joint_1,joint_2\n0.0,0.1,0.2\n0.01,0.1\n')
    process = runner(ros_env, tmp_path, 'sidewind.launch.py', 'use_sim:=true', 'gait:=csv',
                     f'csv_file:={trajectory}')
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 2
    assert f'{trajectory}:3' in output and 'starting' not in output
    assert not (tmp_path / 'bags').exists()


def test_a_dying_node_stops_the_bringup_and_is_named(ros_env, tmp_path):
    override = tmp_path / 'broken.yaml'
    override.write_text('sim_node:\n  ros__parameters:\n    urdf_path: /nonexistent/cobra.urdf\n')
    process = runner(ros_env, tmp_path, 'sidewind.launch.py', 'use_sim:=true', 'record:=false',
                     f'params_file:={override}')
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 1
    assert 'URDF not found: /nonexistent/cobra.urdf' in output
    assert "required node 'sim_node' (cobra_sim/sim_node) exited with code 2" in output


def test_hardware_mode_without_the_robot_is_a_clear_error_not_a_hang(ros_env, tmp_path):
    process = runner(ros_env, tmp_path, 'sidewind.launch.py', 'use_sim:=false', 'record:=false')
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 1
    assert "serial port '/dev/ttyCOBRA' not found" in output
    assert 'exited with code' in output and 'stopping all nodes' in output
