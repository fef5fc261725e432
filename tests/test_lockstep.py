"""Lockstep end to end: sim, gait and logger as real processes, unpaced (real_time_factor 0).

The sim steps past a command boundary only once the gait's command for it arrived and the
logger kept up, so an unpaced run records every message the rates promise and two runs of the
same seed record the same joint states, however loaded the machine is.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from mcap.reader import make_reader

from cobra_common.interface_types import cobra_typestore
from cobra_common.node_process import start_node as start, stop_node as stop

REPO_ROOT = Path(__file__).resolve().parents[1]
URDF = REPO_ROOT / 'urdf' / 'cobra.urdf'
GAIT_PARAMS = REPO_ROOT / 'config' / 'gait.yaml'
DURATION_S = 2.0
JOINT_STATES_PERIOD_NS = 2_000_000
COMMAND_PERIOD_NS = 10_000_000
TYPESTORE = cobra_typestore()  # Jazzy's types and cobra_interfaces (contact/forces)




def record_unpaced_run(ros_env: dict[str, str], bag: Path, *gait_args: str) -> str:
    """One lockstepped run of DURATION_S (`gait_args`: more gait parameters); returns the sim's output."""
    logger = start(ros_env, 'cobra_logger.logger_node', '-p', f'bag_path:={bag}', '-p', 'use_sim_time:=true',
                   '-p', 'discovery_period_s:=0.2')
    gait = start(ros_env, 'cobra_gaits.gait_node', '--params-file', str(GAIT_PARAMS),
                 '-p', f'urdf_path:={URDF}', '-p', 'use_sim_time:=true', '-p', 'command_subscriber_nodes:=[sim_node, logger]',
                 *gait_args)
    sim = start(ros_env, 'cobra_sim.sim_node', '-p', f'urdf_path:={URDF}', '-p', 'real_time_factor:=0.0',
                '-p', f'duration_s:={DURATION_S}', '-p', 'settle_duration_s:=0.5', '-p', 'seed:=7',
                '-p', 'wait_for_peers_s:=120.0', '-p', 'odom_noise_m:=0.01')
    try:
        sim_output, _ = sim.communicate(timeout=300)
    finally:
        sim_output = stop(sim) if sim.poll() is None else locals().get('sim_output', '')
        gait_output = stop(gait)
        logger_output = stop(logger)
    assert sim.returncode == 0, sim_output
    assert logger.returncode == 0 and gait.returncode == 0, gait_output + logger_output
    return sim_output


def read_bag(bag: Path) -> dict[str, list]:
    """Decoded messages by topic, through the independent mcap reader."""
    metadata = yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    messages: dict[str, list] = {}
    for relative in metadata['relative_file_paths']:
        with open(bag / relative, 'rb') as handle:
            for schema, channel, message in make_reader(handle).iter_messages():
                decoded = TYPESTORE.deserialize_cdr(message.data, schema.name)
                messages.setdefault(channel.topic, []).append(decoded)
    return messages


def stamp_ns(message) -> int:
    return message.header.stamp.sec * 1_000_000_000 + message.header.stamp.nanosec


def test_unpaced_runs_are_complete_and_identical(ros_env, tmp_path):
    runs = []
    for index in range(2):
        output = record_unpaced_run(ros_env, tmp_path / f'run_{index}')
        assert 'lockstep: each 0.01 s boundary waits' in output and 'peers present: starting' in output, output
        runs.append(read_bag(tmp_path / f'run_{index}'))

    for messages in runs:
        joint_stamps = [stamp_ns(m) for m in messages['/joint_states']]
        expected = [k * JOINT_STATES_PERIOD_NS for k in range(1, round(DURATION_S * 500) + 1)]
        assert sorted(joint_stamps) == expected, 'joint_states lost or repeated'
        command_stamps = sorted(stamp_ns(m) for m in messages['/joint_commands'])
        # t = 0 included: the sim holds /clock there until the gait's first command arrives; the last
        # is for the boundary after the end (the gait publishes one period ahead: command_lead_periods)
        expected_commands = [k * COMMAND_PERIOD_NS for k in range(0, round(DURATION_S * 100) + 2)]
        assert command_stamps == expected_commands, 'a joint_commands period is missing or repeated'

    first, second = ([(stamp_ns(m), list(m.position)) for m in run['/joint_states']] for run in runs)
    assert sorted(first) == sorted(second)
    # the robot moved (a run that never left the start pose would be trivially identical)
    start_pose, end_pose = sorted(first)[0][1], sorted(first)[-1][1]
    assert max(abs(a - b) for a, b in zip(start_pose, end_pose)) > 0.1


def test_the_command_lead_changes_when_the_gait_computes_not_what_the_robot_does(ros_env, tmp_path):
    """command_lead_periods 1 (the default) hides the /clock -> joint_commands round trip from a
    lockstepped sim; the sim applies each command at its stamp, so the joint states are those of a
    gait that computes each command at its own boundary (0)."""
    record_unpaced_run(ros_env, tmp_path / 'lead_0', '-p', 'command_lead_periods:=0')
    record_unpaced_run(ros_env, tmp_path / 'lead_1')
    at_boundary, ahead = (read_bag(tmp_path / name) for name in ('lead_0', 'lead_1'))
    assert max(stamp_ns(m) for m in at_boundary['/joint_commands']) == round(DURATION_S * 1e9)
    assert max(stamp_ns(m) for m in ahead['/joint_commands']) == round(DURATION_S * 1e9) + COMMAND_PERIOD_NS
    first, second = (sorted((stamp_ns(m), list(m.position)) for m in run['/joint_states'])
                     for run in (at_boundary, ahead))
    assert len(first) == round(DURATION_S * 500) and first == second
