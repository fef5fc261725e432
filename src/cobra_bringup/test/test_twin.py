"""The sim twin of a recorded run (cobra_bringup.twin).

ROS-free: the replay the twin plans, played through the gait node's own CSV replay, commands
exactly what the bag recorded after the lead-in; bad input is one line, exit 2, nothing written.
End to end (the colcon install: scripts/setup.sh): a lockstepped sim bag twinned onto its own
terrain reproduces itself; twinned onto SCM it strides shorter (the thesis's finding); a
robot-class bag recorded from the driver's servo-bus emulator twins end to end.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml

from cobra_analysis.bag_reader import read_bag
from cobra_analysis.synthetic import SyntheticRun, write_bag
from cobra_bringup import twin
from cobra_description.robot_model import default_urdf_path, load_robot_model
from cobra_gaits.trajectory_csv import load_replay
from cobra_sim.clock_origin import origin_grid_ns

REPO_ROOT = Path(__file__).resolve().parents[3]
SETUP = REPO_ROOT / 'install' / 'setup.bash'
# short runs: the gait ramps in over 0.5 s and the sim settles 0.5 s (the twin gets the same file)
QUICK_PARAMETERS = {'/**/gait_node': {'ros__parameters': {'ramp_duration_s': 0.5}},
                    '/**/sim_node': {'ros__parameters': {'settle_duration_s': 0.5}}}
SOURCE_DURATION_S = 5.6  # 2 whole cycles of gait1 (0.4 Hz) after the ramp


def velocity_limits(robot: str = 'cobra') -> dict[str, float]:
    return {j.name: j.limits.velocity_rad_s for j in load_robot_model(default_urdf_path(robot)).gait_joints()}


# ------------------------------------------------------------------ ROS-free


@pytest.fixture
def synthetic_bag(tmp_path: Path) -> Path:
    return write_bag(tmp_path / 'recorded', SyntheticRun(duration_s=4.0, gait_start_s=0.5, ramp_s=1.0,
                                                         start_time_s=1.7e9, heading_rad=0.3))


def test_the_replay_commands_what_the_bag_recorded_after_the_lead_in(synthetic_bag: Path, tmp_path: Path) -> None:
    run = twin.read_recorded_run(synthetic_bag)
    assert run.robot == 'cobra'  # from the joint names: the synthetic bag has no custom_data
    replay = twin.plan_replay(run, velocity_limits())
    assert replay.rate_hz == 100.0 and replay.lead_in_s > replay.ramp_duration_s
    csv_path = tmp_path / 'replay.csv'
    twin._write_csv(csv_path, run, replay)
    # the gait node's CSV path: load (with its speed check for this ramp), start, tick at the rate
    player = load_replay(csv_path, velocity_limits(), replay.ramp_duration_s, loop=False)
    player.ramp.start()
    period = 1.0 / replay.rate_hz
    ticks = round(replay.duration_s / period) + 1
    commanded = []
    for tick in range(ticks):
        player.advance(0.0 if tick == 0 else period)
        commanded.append(player.positions())
    lead_in_ticks = round(replay.lead_in_s / period)
    replayed = np.array(commanded[lead_in_ticks:lead_in_ticks + len(run.command_times_s)])
    assert replayed.shape == run.command_positions_rad.shape
    assert np.abs(replayed - run.command_positions_rad).max() < 1e-8
    # during the lead-in the ramp blends from the straight pose to the first command
    assert np.abs(commanded[0]).max() == 0.0


def test_the_start_pose_and_a_non_zero_first_command_come_from_the_bag(tmp_path: Path) -> None:
    bag = write_bag(tmp_path / 'mid_gait', SyntheticRun(duration_s=3.0, gait_start_s=-1.0, ramp_s=0.5,
                                                        heading_rad=0.3, start_time_s=5.0))
    run = twin.read_recorded_run(bag)
    assert run.start_pose is not None and run.start_pose[:2] == pytest.approx((0.0, 0.0), abs=0.03)
    assert set(run.start_joint_positions_rad) == {f'joint_{i}' for i in range(1, 12)}
    assert np.abs(run.command_positions_rad[0]).max() > 0.1  # recorded mid-gait
    replay = twin.plan_replay(run, velocity_limits())
    np.testing.assert_array_equal(replay.positions_rad[0], run.command_positions_rad[0])  # held through the ramp
    load_replay_path = tmp_path / 'r.csv'
    twin._write_csv(load_replay_path, run, replay)
    load_replay(load_replay_path, velocity_limits(), replay.ramp_duration_s, loop=False)  # passes the speed check


def test_commands_faster_than_the_servos_are_refused(tmp_path: Path) -> None:
    bag = write_bag(tmp_path / 'fast', SyntheticRun(duration_s=2.0, frequency_hz=3.0, amplitude_rad=0.5,
                                                    ramp_s=0.1))
    with pytest.raises(twin.TwinInputError, match=r'over its URDF velocity limit 4\.82 rad/s'):
        twin.plan_replay(twin.read_recorded_run(bag), velocity_limits())


def test_custom_data_names_the_source_and_keeps_its_gait(synthetic_bag: Path) -> None:
    run = twin.read_recorded_run(synthetic_bag)
    run = twin.RecordedRun(**{**run.__dict__, 'custom_data': {
        'cobra.class': 'robot', 'cobra.robot': 'cobra', 'cobra.gait.gait': 'gait1', 'cobra.gait.frequency_hz': '0.4'}})
    replay = twin.plan_replay(run, velocity_limits())
    entries = dict(e.split('=', 1) for e in twin.twin_custom_data(run, 'ab' * 32, {'terrain': 'scm'}, replay))
    assert entries['cobra.class'] == 'sim' and entries['cobra.terrain'] == 'scm'
    assert entries['cobra.gait.gait'] == 'gait1' and entries['cobra.gait.frequency_hz'] == '0.4'
    assert entries['cobra.twin_of.name'] == 'recorded'
    assert entries['cobra.twin_of.path'] == str(synthetic_bag.resolve())
    assert entries['cobra.twin_of.sha256'] == 'ab' * 32
    assert entries['cobra.twin_of.custom_data.cobra.class'] == 'robot'
    assert float(entries['cobra.twin.lead_in_s']) == replay.lead_in_s


def test_a_sim_source_twins_onto_its_own_terrain_unless_told(synthetic_bag: Path) -> None:
    run = twin.read_recorded_run(synthetic_bag)
    sloped = twin.RecordedRun(**{**run.__dict__, 'custom_data': {
        'cobra.class': 'sim', 'cobra.terrain': 'rigid 24 deg', 'cobra.slope_deg': '24.0'}})
    assert twin.twin_arguments([], sloped) == {'real_time_factor': '0.0', 'terrain': 'rigid', 'slope_deg': '24.0'}
    assert twin.twin_arguments(['terrain:=scm'], sloped) == {'real_time_factor': '0.0', 'terrain': 'scm'}
    assert twin.twin_arguments([], run) == {'real_time_factor': '0.0'}  # a robot bag: the launch default (rigid)


@pytest.mark.parametrize('words, message', [
    (['gait:=gait2'], 'gait:=gait2 is not a twin argument'),
    (['bag_path:=x'], 'use --out DIR'),
    (['colour:=red'], "unknown launch argument 'colour'"),
    (['terrain'], "malformed launch argument 'terrain'"),
    (['terrain:=dem'], 'terrain:=dem simulates the DEM wheel alone'),
])
def test_arguments_the_bag_fixes_are_refused(synthetic_bag: Path, words: list[str], message: str) -> None:
    with pytest.raises(twin.TwinInputError, match=re.escape(message)):
        twin.twin_arguments(words, twin.read_recorded_run(synthetic_bag))


@pytest.mark.parametrize('case', ['not_a_bag', 'missing', 'no_commands', 'unknown_terrain', 'out_exists'])
def test_bad_input_is_one_line_exit_2_and_nothing_written(case: str, tmp_path: Path, capsys) -> None:
    bag = tmp_path / 'bag'
    words: list[str] = []
    if case == 'not_a_bag':
        bag.mkdir()
        (bag / 'notes.txt').write_text('not a bag\n')
    elif case == 'no_commands':
        write_bag(bag, SyntheticRun(duration_s=1.0, omit_topics=('joint_commands',)))
    elif case in ('unknown_terrain', 'out_exists'):
        write_bag(bag, SyntheticRun(duration_s=1.0))
        words = ['terrain:=sand'] if case == 'unknown_terrain' else []
    out = tmp_path / 'out'
    if case == 'out_exists':
        out.mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    assert twin.main([str(bag), *words, '--out', str(out)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.count('\n') == 0 and error.startswith('error: '), error
    expected = {'not_a_bag': 'no rosbag2 bag', 'missing': 'no such bag',
                'no_commands': 'no joint_commands recorded', 'unknown_terrain': 'terrain:=sand is not one of',
                'out_exists': 'exists: choose a new directory'}[case]
    assert expected in error
    assert sorted(p.name for p in tmp_path.iterdir()) == before


# ------------------------------------------------------------------ end to end (installed workspace)


def installed(ros_env: dict[str, str], cwd: Path, module: str, *words: str, timeout_s: float = 600.0
              ) -> subprocess.CompletedProcess[str]:
    """`python -m module words` as a user runs it: the install sourced, the sources not on the path."""
    if not SETUP.exists():
        pytest.fail('the workspace is not built: run scripts/setup.sh (scripts/test.sh does)')
    command = f'source {SETUP} && exec {sys.executable} -m {module} ' + ' '.join(words)
    return subprocess.run(['bash', '-c', command], cwd=cwd, env=dict(ros_env, PYTHONPATH=''), text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout_s)


def without_node_logs(output: str) -> str:
    return '\n'.join(line for line in output.splitlines() if not re.match(r'\[(INFO|WARN)\] \[', line))


def shifted(times_s: np.ndarray, values: np.ndarray, at_s: np.ndarray) -> np.ndarray:
    return np.column_stack([np.interp(at_s, times_s, values[:, i]) for i in range(values.shape[1])])


def metric(output: str, label: str) -> str:
    match = re.search(rf'^  {re.escape(label)}\s+(.+)$', output, re.MULTILINE)
    assert match, output
    return match.group(1)


@pytest.fixture
def quick_params(tmp_path: Path) -> Path:
    path = tmp_path / 'quick.yaml'
    path.write_text(yaml.safe_dump(QUICK_PARAMETERS))
    return path


def test_a_sim_bag_twins_onto_its_own_terrain_exactly_and_onto_scm_with_a_shorter_stride(
        ros_env: dict[str, str], tmp_path: Path, quick_params: Path) -> None:
    source = tmp_path / 'recorded_rigid'
    result = installed(ros_env, tmp_path, 'cobra_bringup.runner', 'sidewind.launch.py', 'use_sim:=true',
                       f'duration:={SOURCE_DURATION_S}', 'real_time_factor:=0', f'params_file:={quick_params}',
                       f'bag_path:={source}')
    assert result.returncode == 0, result.stdout

    same = installed(ros_env, tmp_path, 'cobra_bringup.twin', str(source), f'params_file:={quick_params}',
                     '--out', str(tmp_path / 'twin_rigid'))
    assert same.returncode == 0, same.stdout
    print(without_node_logs(same.stdout))
    recorded, replayed = read_bag(source), read_bag(tmp_path / 'twin_rigid' / 'twin_rigid')
    lead_in_s = float(replayed.custom_data['cobra.twin.lead_in_s'])
    assert replayed.custom_data['cobra.terrain'] == 'rigid'  # the source's own, not named on the command line
    assert replayed.custom_data['cobra.twin_of.path'] == str(source.resolve())
    assert replayed.custom_data['cobra.twin_of.custom_data.cobra.gait.gait'] == 'gait1'
    assert re.fullmatch(r'[0-9a-f]{64}', replayed.custom_data['cobra.twin_of.sha256'])
    # the same commands, lead_in_s later; lockstep: every message of both runs is there, so row k of
    # the source is row k + lead-in of the twin (for the stamps: floats of a wall-clock origin, 0.2 us apart)
    commands_offset = round(lead_in_s * 100.0)
    replayed_rows = replayed.joint_commands.position_rad[commands_offset:]
    np.testing.assert_allclose(replayed_rows[:len(recorded.joint_commands.times_s)],
                               recorded.joint_commands.position_rad, rtol=0.0, atol=1e-8)
    # ... and the same joint states and ground truth (the twin's robot only rested longer before)
    for series, rate_hz in (('joint_states', 500.0), ('head', 100.0)):
        a, b = getattr(recorded, series), getattr(replayed, series)
        values_a = a.position_rad if series == 'joint_states' else a.position_m
        values_b = b.position_rad if series == 'joint_states' else b.position_m
        offset = round(lead_in_s * rate_hz)
        twin_times = b.times_s[offset:offset + len(a.times_s)] - b.times_s[offset]
        assert np.abs(twin_times - (a.times_s - a.times_s[0])).max() < 1e-6
        difference = np.abs(values_b[offset:offset + len(a.times_s)] - values_a).max()
        print(f'{series}: largest difference twin - recorded {difference:.2e}')
        assert difference < 1e-5, (series, difference)
    assert recorded.head.position_m[-1, 1] > 0.2  # it did sidewind: the check above compares motion
    assert float(metric(same.stdout, 'stride ratio (twin / recorded)')) == pytest.approx(1.0, abs=1e-4)
    assert metric(same.stdout, 'ATE (Umeyama SE(3), RMSE)') == '0.00 cm'
    metrics = json.loads((tmp_path / 'twin_rigid' / 'report' / 'metrics.json').read_text())
    assert metrics['comparisons'][0]['reference'] == 'recorded_rigid'
    assert (tmp_path / 'twin_rigid' / twin.CSV_NAME).is_file()

    soil = installed(ros_env, tmp_path, 'cobra_bringup.twin', str(source), 'terrain:=scm',
                     f'params_file:={quick_params}', '--out', str(tmp_path / 'twin_scm'))
    assert soil.returncode == 0, soil.stdout
    print(without_node_logs(soil.stdout))
    stride_ratio = float(metric(soil.stdout, 'stride ratio (twin / recorded)'))
    print(f'stride ratio SCM / rigid of the twin: {stride_ratio:.3f}')
    assert stride_ratio < 0.99  # the thesis: a shorter stride on loose sand than on rigid ground
    assert float(metric(soil.stdout, 'ATE (Umeyama SE(3), RMSE)').removesuffix(' cm')) > 0.1
    assert read_bag(tmp_path / 'twin_scm' / 'twin_scm').custom_data['cobra.terrain'] == 'scm'


def test_a_robot_bag_from_the_driver_emulator_twins_end_to_end(ros_env: dict[str, str], ros_node, tmp_path: Path,
                                                              quick_params: Path) -> None:
    import rclpy
    from rclpy.qos import QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
    from sensor_msgs.msg import JointState

    from cobra_bringup.node_set import node_set, parse_arguments
    from cobra_bringup.prestart import node_ros_arguments
    from cobra_common.node_process import start_node, stop_node
    from cobra_driver.emulator import cobra_bus

    emulator = cobra_bus(link_path=tmp_path / 'ttyCOBRA')
    emulator.start()
    robot_params = tmp_path / 'robot.yaml'
    robot_params.write_text(yaml.safe_dump({
        **QUICK_PARAMETERS,
        '/**/joint_driver': {'ros__parameters': {'port': emulator.port, 'rate_hz': 100.0,
                                                 'packet_timeout_margin_ms': 20.0}}}))
    source = tmp_path / 'robot_run'
    # the hardware bringup's own node set and provenance (class robot), without the camera's odometry
    specs = node_set(parse_arguments(['use_sim:=false', f'bag_path:={source}', f'params_file:={robot_params}']),
                     REPO_ROOT / 'config')
    wanted = {'logger': None, 'joint_driver': None, 'gait_node': None}
    for spec in specs:
        if spec.name in wanted:
            wanted[spec.name] = spec
    # the gait's first command waits for the driver, the logger and this test's probe
    gait_parameters = wanted['gait_node'].parameters
    wanted['gait_node'] = replace(wanted['gait_node'], parameters={
        **gait_parameters, 'command_subscriber_nodes': [*gait_parameters['command_subscriber_nodes'], 'test_probe']})
    commands: list[JointState] = []
    states: list[JointState] = []
    ros_node.create_subscription(JointState, 'joint_commands', commands.append,
                                 QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE))
    ros_node.create_subscription(JointState, 'joint_states', states.append, qos_profile_sensor_data)
    processes = {}
    try:
        for name in ('logger', 'joint_driver', 'gait_node'):  # the logger first, as the runner starts it
            spec = wanted[name]
            processes[name] = start_node(ros_env, f'{spec.package}.{spec.executable}', *node_ros_arguments(spec, ''))
        deadline = time.monotonic() + 180.0
        while (len(commands) < 300 or not states) and time.monotonic() < deadline:
            rclpy.spin_once(ros_node, timeout_sec=0.1)
            assert all(p.poll() is None for p in processes.values()), \
                {n: stop_node(p) for n, p in processes.items()}
        assert len(commands) >= 300 and states, (len(commands), len(states))
    finally:
        outputs = {name: stop_node(processes[name]) for name in ('gait_node', 'joint_driver', 'logger')
                   if name in processes}
        emulator.stop()
    assert all(processes[name].returncode == 0 for name in processes), outputs
    recorded = read_bag(source)
    assert recorded.custom_data['cobra.class'] == 'robot' and recorded.head is None  # no camera: no odometry
    assert recorded.joint_states is not None and len(recorded.joint_commands.times_s) >= 300

    # the twin in a ROS domain of its own (it claims one, as when a user runs it): this test's probe
    # still subscribes to joint_commands in this one, and the twin's gait, which holds its first
    # command until two subscriptions matched (the sim's and the logger's), would count the probe
    # for the logger; the logger, subscribing once it discovers the topic, then missed the first
    # commands (24 at t = 0.24 s of sim time, with the busy loops of a loaded machine and without)
    own_domain = {name: value for name, value in ros_env.items() if name != 'ROS_DOMAIN_ID'}
    result = installed(own_domain, tmp_path, 'cobra_bringup.twin', str(source), f'params_file:={quick_params}',
                       '--out', str(tmp_path / 'robot_twin'))
    assert result.returncode == 0, result.stdout
    print(without_node_logs(result.stdout))
    replayed = read_bag(tmp_path / 'robot_twin' / 'twin_rigid')
    assert replayed.custom_data['cobra.class'] == 'sim'
    assert replayed.custom_data['cobra.twin_of.custom_data.cobra.class'] == 'robot'
    assert replayed.head is not None and np.ptp(replayed.head.position_m[:, 1]) > 0.05  # the twin sidewinds
    # the robot's commands (wall-clock stamps), replayed on the sim's command ticks after the lead-in
    lead_in_s = float(replayed.custom_data['cobra.twin.lead_in_s'])
    c0, c1 = recorded.joint_commands, replayed.joint_commands
    # the twin's bag holds every command of the twin from its first, at the sim's t = 0 (the /clock
    # origin is a whole multiple of origin_grid_ns), one per period: its first stamp is CSV time 0
    period_s = 1.0 / float(replayed.custom_data['cobra.twin.rate_hz'])
    grid_s = origin_grid_ns(round(period_s * 1e9)) * 1e-9
    missing = round((c1.times_s[0] % grid_s) / period_s) % round(grid_s / period_s)
    assert missing == 0, f"the twin's bag lacks its first {missing} joint_commands (first stamp {c1.times_s[0]!r})"
    assert np.abs(np.diff(c1.times_s) - period_s).max() < 1e-6, np.diff(c1.times_s)
    assert c1.times_s[-1] - c1.times_s[0] >= lead_in_s + c0.times_s[-1] - c0.times_s[0] - 1e-6
    twin_t = c1.times_s - c1.times_s[0] - lead_in_s
    inside = (twin_t >= 0.0) & (twin_t <= c0.times_s[-1] - c0.times_s[0])
    expected = shifted(c0.times_s - c0.times_s[0], c0.position_rad, twin_t[inside])
    np.testing.assert_allclose(c1.position_rad[inside], expected, atol=1e-5)  # stamps: CSV keeps 1 us
    assert 'not computed' in metric(result.stdout, 'stride ratio (twin / recorded)')  # no head track to compare
    assert (tmp_path / 'robot_twin' / 'report' / 'index.html').is_file()
    assert not math.isnan(float(replayed.custom_data['cobra.twin.rate_hz']))


def test_each_comparison_line_gives_its_own_reason() -> None:
    metrics = {'comparisons': [{'stride_ratio': None, 'shape_error_strides': None, 'ate_rmse_m': 0.0123,
                                'rpe_rmse_m': None, 'absent': {'stride': 'no stride', 'ate_rpe': 'no track'}}],
               'performance_ratio': [], 'performance_ratio_absent': 'needs >= 2 gaits'}
    lines = twin.comparison_lines(metrics)
    assert lines[0].endswith('not computed (no stride)') and lines[1].endswith('not computed (no stride)')
    assert lines[2].endswith('1.23 cm') and lines[3].endswith('not computed (no track)')
    assert lines[4].endswith('not computed (needs >= 2 gaits)')


def test_the_twin_starts_where_the_recorded_run_did(synthetic_bag: Path) -> None:
    run = twin.read_recorded_run(synthetic_bag)
    robot = twin.RecordedRun(**{**run.__dict__, 'start_pose': (1.5, -2.0, 0.03, 7.0)})
    assert twin.start_xy_yaw(robot) == pytest.approx((1.5, -2.0, 7.0 - 2 * math.pi))  # heading wrapped
    # a sim bag: its sim's own start (the settled first pose would move every generation of twins)
    settled = twin.RecordedRun(**{**robot.__dict__, 'custom_data': {'cobra.class': 'sim'},
                                  'start_pose': (5.4e-6, 0.0, 0.044, 1e-5)})
    assert twin.start_xy_yaw(settled) == (0.0, 0.0, 0.0)
    moved = twin.RecordedRun(**{**settled.__dict__, 'start_pose': (1.0, -2.0, 0.044, 1.0)})  # start_x_m ... set
    assert twin.start_xy_yaw(moved) == (1.0, -2.0, 1.0)
    # a sim bag that settled 2.3 cm down a slope from where its sim put the head: the sim's own start
    sloped = twin.RecordedRun(**{**settled.__dict__, 'start_pose': (0.023, 0.0, 0.044, 0.0),
                                 'sim_start_xy_yaw': (0.0, 0.0, 0.0)})
    assert twin.start_xy_yaw(sloped) == (0.0, 0.0, 0.0)
    replay = twin.plan_replay(robot, velocity_limits())
    entries = dict(e.split('=', 1) for e in twin.twin_custom_data(robot, '0' * 64, {'terrain': 'rigid'}, replay))
    twin_of_twin = twin.RecordedRun(**{**robot.__dict__, 'custom_data': {**entries}})
    assert twin.start_xy_yaw(twin_of_twin) == pytest.approx(twin.start_xy_yaw(robot))


def test_a_sim_bag_says_where_its_sim_started(tmp_path: Path) -> None:
    """The sim's start_xy_yaw diagnostic, not the settled first pose (which settling moved), is where
    the twin starts; a garbled one is refused with the fix."""
    run = SyntheticRun(duration_s=2.0, gait_start_s=0.5, ramp_s=0.5, heading_rad=0.0,
                       custom_data={'cobra.class': 'sim'}, sim_diagnostics={'start_xy_yaw': '0.5 -0.25 0.125'})
    recorded = twin.read_recorded_run(write_bag(tmp_path / 'sim', run))
    assert recorded.sim_start_xy_yaw == (0.5, -0.25, 0.125)
    assert twin.start_xy_yaw(recorded) == (0.5, -0.25, 0.125)
    garbled = write_bag(tmp_path / 'garbled', replace(run, sim_diagnostics={'start_xy_yaw': '0.5 west'}))
    with pytest.raises(twin.TwinInputError, match="start_xy_yaw diagnostic reads '0.5 west'"):
        twin.read_recorded_run(garbled)


# ------------------------------------------------------------------ the latch


def test_latch_changes_are_the_flips_of_latch_state_and_shift_with_the_lead_in(synthetic_bag: Path) -> None:
    times = np.array([10.0, 10.1, 12.3, 12.4, 20.05, 20.1])
    assert twin.latch_changes_s(times, [False, False, True, True, False, False], synthetic_bag) == (12.3, 20.05)
    assert twin.latch_changes_s(times[:2], [False, False], synthetic_bag) == ()
    with pytest.raises(twin.TwinInputError, match='already true in its first message'):
        twin.latch_changes_s(times, [True, True, False, False, True, True], synthetic_bag)
    run = replace(twin.read_recorded_run(synthetic_bag), latch_changes_s=(-0.05, 1.25, 2.5))
    replay = twin.plan_replay(run, velocity_limits())
    # recorded after the first command; a flip seen before it is set at it
    assert replay.latch_schedule_s == pytest.approx((replay.lead_in_s, replay.lead_in_s + 1.25,
                                                     replay.lead_in_s + 2.5))


TUMBLE_SOURCE_S = 32.0  # the whole tumble sequence (tests/test_tumble_bringup.py): latched ~10 s, released


def test_a_tumble_bag_twins_with_its_latching_replayed(ros_env: dict[str, str], tmp_path: Path) -> None:
    """The latch is set by a service call, which a bag does not hold: the twin reads latch/state's
    flips and the sim sets the latch at those sim times (latch_schedule_s), so the twinned loop
    closes, rolls down the slope latched and opens again as the recorded one did."""
    source = tmp_path / 'recorded_tumble'
    result = installed(ros_env, tmp_path, 'cobra_bringup.runner', 'tumble.launch.py', f'duration:={TUMBLE_SOURCE_S}',
                       'real_time_factor:=0', f'bag_path:={source}')
    assert result.returncode == 0, result.stdout
    replayed_run = installed(ros_env, tmp_path, 'cobra_bringup.twin', str(source), '--out', str(tmp_path / 'twin'))
    assert replayed_run.returncode == 0, replayed_run.stdout
    assert 'latch set at' in replayed_run.stdout
    # the run summary names the bag where it ends up, not the staging folder it was recorded in
    assert re.search(rf"^  bag +{re.escape(str(tmp_path / 'twin' / 'twin_rigid'))}$", replayed_run.stdout, re.M)
    recorded, replayed = read_bag(source), read_bag(tmp_path / 'twin' / 'twin_rigid')  # the source's slope
    lead_in_s = float(replayed.custom_data['cobra.twin.lead_in_s'])
    assert replayed.custom_data['cobra.slope_deg'] == recorded.custom_data['cobra.slope_deg']

    def flips(bag) -> np.ndarray:  # type: ignore[no-untyped-def]
        first_command_s = bag.joint_commands.times_s[0]
        return np.array(twin.latch_changes_s(bag.latch_state.times_s, bag.latch_state.values, bag.path)) \
            - first_command_s

    # the twin's sim started where the source's did (its start_xy_yaw diagnostic), not at the first pose,
    # which settling had moved down the slope: a twin started there settled again, 2.5 cm further down
    assert recorded.diagnostics['start_xy_yaw'] == '0.0 0.0 0.0'
    first_recorded_m = recorded.head.position_m[np.searchsorted(recorded.head.times_s, recorded.joint_commands.times_s[0])]
    first_replayed_m = replayed.head.position_m[np.searchsorted(
        replayed.head.times_s, replayed.joint_commands.times_s[0] + lead_in_s)]
    print(f'head at the first recorded command: twin - recorded {first_replayed_m - first_recorded_m} m')
    assert np.abs(first_replayed_m - first_recorded_m)[:2].max() < 0.01

    recorded_flips, replayed_flips = flips(recorded), flips(replayed)
    assert len(recorded_flips) == 2, recorded_flips  # latched, then released
    # engaged and released where the recorded run did, on the twin's clock (lead-in later); latch/state
    # samples at 10 Hz between changes, so the recorded flip is known to its first message after the change
    np.testing.assert_allclose(replayed_flips - lead_in_s, recorded_flips, atol=0.02)

    def downhill_while_latched(bag, flips_s: np.ndarray) -> float:  # type: ignore[no-untyped-def]
        at = bag.joint_commands.times_s[0] + flips_s
        x = np.interp(at, bag.head.times_s, bag.head.position_m[:, 0])
        return float(x[1] - x[0])

    recorded_roll = downhill_while_latched(recorded, recorded_flips)
    replayed_roll = downhill_while_latched(replayed, replayed_flips)
    print(f'head moved downhill while latched: recorded {recorded_roll:.3f} m, twin {replayed_roll:.3f} m')
    assert recorded_roll > 0.2 and replayed_roll > 0.2  # the latched loop rolled in both
    assert replayed_roll == pytest.approx(recorded_roll, rel=0.1)
