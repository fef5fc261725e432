"""clock_origin:=wall end to end: sim, gait and logger as processes, unpaced in lockstep.

The sim's clock starts at the wall-clock time of its t = 0 (a whole second), so the bag holds
real dates (Foxglove shows the run's date, not 1970), and nothing that counts sim time breaks:
duration_s, lockstep boundaries (the gait's ticks land on them), joint_states every 2 ms, the
bag's start and duration, the run summary.
"""

from __future__ import annotations

import time
from pathlib import Path

import yaml
from mcap.reader import make_reader
from rosbags.typesys import Stores, get_typestore

from cobra_bringup.run_summary import summarize
from cobra_common.node_process import start_node as start, stop_node as stop

REPO_ROOT = Path(__file__).resolve().parents[1]
URDF = REPO_ROOT / 'urdf' / 'cobra.urdf'
GAIT_PARAMS = REPO_ROOT / 'config' / 'gait.yaml'
DURATION_S = 1.0
JOINT_STATES_PERIOD_NS = 2_000_000
COMMAND_PERIOD_NS = 10_000_000
NS_PER_S = 1_000_000_000
TYPESTORE = get_typestore(Stores.ROS2_JAZZY)




def stamp_ns(message) -> int:
    return message.header.stamp.sec * NS_PER_S + message.header.stamp.nanosec


def test_a_wall_clock_origin_gives_dated_complete_lockstepped_bags(ros_env, tmp_path):
    bag = tmp_path / 'run'
    wall_before_ns = time.time_ns()
    logger = start(ros_env, 'cobra_logger.logger_node', '-p', f'bag_path:={bag}', '-p', 'use_sim_time:=true',
                   '-p', 'discovery_period_s:=0.2')
    gait = start(ros_env, 'cobra_gaits.gait_node', '--params-file', str(GAIT_PARAMS),
                 '-p', f'urdf_path:={URDF}', '-p', 'use_sim_time:=true', '-p', 'command_subscriber_nodes:=[sim_node, logger]')
    sim = start(ros_env, 'cobra_sim.sim_node', '-p', f'urdf_path:={URDF}', '-p', 'real_time_factor:=0.0',
                '-p', f'duration_s:={DURATION_S}', '-p', 'settle_duration_s:=0.5',
                '-p', 'wait_for_peers_s:=120.0', '-p', 'clock_origin:=wall')
    try:
        sim_output, _ = sim.communicate(timeout=300)
    finally:
        sim_output = stop(sim) if sim.poll() is None else locals().get('sim_output', '')
        gait_output, logger_output = stop(gait), stop(logger)
    wall_after_ns = time.time_ns()
    assert sim.returncode == 0 and f'reached duration_s = {DURATION_S:g} s' in sim_output, sim_output
    assert logger.returncode == 0 and gait.returncode == 0, gait_output + logger_output

    metadata = yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    stamps: dict[str, list[int]] = {}
    log_times: list[int] = []
    for relative in metadata['relative_file_paths']:
        with open(bag / relative, 'rb') as handle:
            for schema, channel, message in make_reader(handle).iter_messages():
                log_times.append(message.log_time)
                if channel.topic in ('/joint_states', '/joint_commands', '/ground_truth/odom'):
                    stamps.setdefault(channel.topic, []).append(
                        stamp_ns(TYPESTORE.deserialize_cdr(message.data, schema.name)))

    joint_stamps = sorted(stamps['/joint_states'])
    origin_ns = joint_stamps[0] - JOINT_STATES_PERIOD_NS
    assert origin_ns % NS_PER_S == 0, 'the origin is a whole second'
    assert wall_before_ns - NS_PER_S <= origin_ns <= wall_after_ns, 'the origin is the wall clock of the start'
    steps = round(DURATION_S * NS_PER_S / JOINT_STATES_PERIOD_NS)
    assert joint_stamps == [origin_ns + k * JOINT_STATES_PERIOD_NS for k in range(1, steps + 1)]
    boundaries = [origin_ns + k * COMMAND_PERIOD_NS for k in range(1, round(DURATION_S * 100) + 1)]
    assert set(boundaries) <= set(stamps['/joint_commands']), 'the gait ticked off the lockstep boundaries'
    # the bag starts at the run, not in 1970 (no message logged at 0 before the first stamp)
    assert min(log_times) >= origin_ns
    assert metadata['starting_time']['nanoseconds_since_epoch'] >= origin_ns
    # the last joint_commands is the one for the first boundary after the end: the gait on sim time
    # publishes each command one period ahead of the /clock that triggers it (command_lead_periods)
    assert metadata['duration']['nanoseconds'] <= DURATION_S * NS_PER_S + COMMAND_PERIOD_NS
    assert max(stamps['/joint_commands']) == origin_ns + round(DURATION_S * NS_PER_S) + COMMAND_PERIOD_NS

    summary = summarize(bag, 0.4)
    assert abs(summary.duration_s - DURATION_S) < 0.02
    assert not [line for line in summary.problems if line.startswith('PROBLEM')], summary.problems
