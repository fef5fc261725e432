"""T-Snake LTS through the pip-mode runner: lts.launch.py with the sim, a real bag, the summary.

Needs the colcon install (scripts/setup.sh). One short unpaced run (CPU is shared): twisting
sidewinding, whose continuous twist joints turn steadily (rolling sidewinding has equal twist
on every piece, so its twist joints stay at 0 and the roll shows in the bending joints).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from mcap.reader import make_reader
from rosbags.typesys import Stores, get_typestore

TSNAKE_NAMES = [f'm{i}_{kind}' for i in range(1, 7) for kind in ('dorsal', 'twist', 'lateral')]
TWIST = [index for index, name in enumerate(TSNAKE_NAMES) if name.endswith('_twist')]



def joint_messages(bag: Path) -> dict[str, list[tuple[float, list[str], np.ndarray]]]:
    """(header stamp [s], names, positions) of every joint_commands and joint_states message."""
    typestore = get_typestore(Stores.ROS2_JAZZY)
    metadata = yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    found: dict[str, list] = {'/joint_commands': [], '/joint_states': []}
    for relative in metadata['relative_file_paths']:
        with open(bag / relative, 'rb') as handle:
            for _, channel, message in make_reader(handle).iter_messages():
                if channel.topic in found:
                    state = typestore.deserialize_cdr(message.data, 'sensor_msgs/msg/JointState')
                    found[channel.topic].append((state.header.stamp.sec + state.header.stamp.nanosec * 1e-9,
                                                 list(state.name), np.array(state.position)))
    return found


def test_lts_launch_drives_the_tsnake_twist_joints_in_the_sim(start_runner, tmp_path):
    bag = tmp_path / 'bag'
    process = start_runner(tmp_path, 'lts.launch.py', 'use_sim:=true', 'duration:=3',
                     'real_time_factor:=0', 'record:=true', 'lts_preset:=twisting', f'bag_path:={bag}')
    output, _ = process.communicate(timeout=180)
    assert process.returncode == 0, output
    assert 'did not stop' not in output and 'needed SIG' not in output and 'Traceback' not in output
    found = joint_messages(bag)
    commands, states = found['/joint_commands'], found['/joint_states']
    assert len(commands) >= 290 and len(states) >= 1450  # 100 Hz and 500 Hz over 3 s of sim time
    assert all(names == TSNAKE_NAMES for _, names, _ in commands)
    assert set(TSNAKE_NAMES) <= set(states[-1][1])
    commanded_twist = np.array([positions[TWIST] for _, _, positions in commands])
    assert np.all(np.diff(commanded_twist, axis=0) >= -1e-12)  # a1 > 0 here: every twist joint winds on
    assert np.all(commanded_twist[-1] > 0.6)  # (a1 L0) t, blended in over the 2 s ramp
    measured = dict(zip(states[-1][1], states[-1][2]))
    measured_twist = np.array([measured[TSNAKE_NAMES[index]] for index in TWIST])
    assert np.all(measured_twist > 0.5), measured_twist  # the sim follows: continuous joints, not clamped
    assert 'robot                 tsnake: 18 joints commanded (m1_dorsal .. m6_lateral)' in output
    assert 'LOSS' not in output and 'PROBLEM' not in output


@pytest.mark.parametrize('words, message', [
    (['use_sim:=false'], 'error: robot:=tsnake runs in simulation only (there is no T-Snake hardware driver)'),
    (['use_sim:=true', 'lts_preset:=twisting', 'duration:=1', 'params_file:={override}'],
     "error: gait_node: gait too fast for the servos: the start/stop ramp of lts_preset 'twisting'"),
])
def test_bad_lts_bringup_exits_2_before_any_node_starts(start_runner, tmp_path, words, message):
    override = tmp_path / 'override.yaml'
    override.write_text('gait_node:\n  ros__parameters:\n    ramp_duration_s: 0.3\n')
    process = start_runner(tmp_path, 'lts.launch.py', *(w.format(override=override) for w in words))
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 2, output
    assert message in output and '[run] starting' not in output and 'Traceback' not in output
    assert not (tmp_path / 'bags').exists()
