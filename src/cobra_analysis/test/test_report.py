"""The report end to end from bags written here with rosbags (known stride, frequency, lag,
contact, sinkage, tumbling, twist power), and its bad input: one error line, exit 2, no output."""

from __future__ import annotations

import html
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from rosbags.rosbag2 import StoragePlugin, Writer

from cobra_analysis.report import main
from cobra_analysis.synthetic import COBRA_LINKS, TSNAKE_JOINTS, TYPESTORE, SyntheticRun, write_bag

GAIT1 = {'cobra.gait.gait': 'gait1', 'cobra.gait.frequency_hz': '0.5', 'cobra.git_rev': 'abc1234'}


def run_report(args: list[str | Path]) -> int:
    return main([str(a) for a in args])


def load(out: Path) -> dict:
    return json.loads((out / 'metrics.json').read_text())


def by_label(metrics: dict) -> dict[str, dict]:
    return {bag['label']: bag for bag in metrics['bags']}


@pytest.fixture(scope='module')
def sim_robot_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """A sim bag (MCAP, ground truth, contact forces, heightmap, gait parameters in custom_data),
    the same gait on the 'robot' (sqlite3, namespace /cobra, wall-clock stamps, odom only, another
    direction of travel) and a sim run that strides 0.12 m and turns 3 deg per cycle."""
    root = tmp_path_factory.mktemp('report')
    sim = write_bag(root / 'sim_run', SyntheticRun(duration_s=14.0, contact_links=COBRA_LINKS, heightmap=True,
                                                   custom_data={**GAIT1, 'cobra.terrain': 'scm',
                                                                'cobra.launch_file': 'sidewind.launch.py'}))
    robot = write_bag(root / 'robot_run', SyntheticRun(duration_s=14.0, storage='sqlite3', ground_truth=False,
                                                       namespace='cobra', start_time_s=1.7e9,
                                                       heading_rad=math.pi / 2 + 0.5,
                                                       custom_data={'cobra.robot': 'cobra'}))
    turning = write_bag(root / 'turning', SyntheticRun(duration_s=14.0, stride_m=0.12, custom_data=GAIT1,
                                                       heading_drift_rad_per_cycle=math.radians(3.0)))
    out = root / 'out'
    assert run_report([sim, robot, turning, '--out', out, '--label', 'robot_run=:gait1', '--git-rev', 'test-rev']) == 0
    return out, load(out)


def test_stride_speed_and_cycles_of_a_sim_bag(sim_robot_report):
    _, metrics = sim_robot_report
    sim = by_label(metrics)['sim_run']
    assert sim['class'] == 'sim' and sim['gait_id'] == 'gait1'
    assert sim['gait']['frequency_hz'] == 0.5
    assert sim['gait']['frequency_source'].startswith('bag gait parameters')
    assert sim['gait']['start_stamp_s'] == pytest.approx(1.01)  # first non-zero command (100 Hz after t = 1 s)
    assert (sim['gait']['cycles'], sim['gait']['steady_cycles']) == (6, 5)  # the ramp's cycle is left out
    loco = sim['locomotion']
    assert loco['stride_per_cycle_m'] == pytest.approx([0.1] * 5, abs=1e-4)
    assert loco['mean_step_m'] == pytest.approx(loco['mean_stride_m'], rel=1e-3)   # straight: nothing cancels
    assert loco['mean_speed_m_s'] == pytest.approx(0.05, abs=1e-4)
    assert loco['heading_drift_deg_per_cycle'] == pytest.approx(0.0, abs=0.05)
    assert loco['travel_direction_deg'] == pytest.approx([90.0] * 5, abs=0.1)
    assert sim['head_topic'] == '/ground_truth/odom'


def test_joint_tracking_finds_the_lag(sim_robot_report):
    _, metrics = sim_robot_report
    tracking = by_label(metrics)['sim_run']['tracking']
    assert [t['joint'] for t in tracking] == [f'joint_{i}' for i in range(1, 12)]
    for joint in tracking:
        assert joint['lag_s'] == pytest.approx(0.05, abs=1e-3)
        assert joint['rms_error_rad'] == pytest.approx(0.5 * math.sqrt(2) * math.sin(math.pi * 0.5 * 0.05), rel=0.03)


def test_contact_and_sinkage_sections(sim_robot_report):
    _, metrics = sim_robot_report
    sim = by_label(metrics)['sim_run']
    contact = sim['contact']
    assert contact['links'] == list(COBRA_LINKS)
    assert contact['contact_fraction'] == pytest.approx([2 / 3] * 12, abs=0.02)  # sin > -0.5: 2/3 of a cycle
    assert contact['peak_force_n'] == pytest.approx(1.5 * 6.0 * 9.81 / 12, rel=1e-3)
    assert sim['sinkage']['max_sinkage_m'] == pytest.approx(0.02, rel=1e-5)
    assert 'tumbling' in sim['absent'] and 'twist' in sim['absent']


def test_robot_bag_class_frequency_and_absent_sections(sim_robot_report):
    out, metrics = sim_robot_report
    robot = by_label(metrics)['robot_run']
    assert robot['class'] == 'robot' and robot['gait_id'] == 'gait1'  # gait from --label
    assert robot['gait']['frequency_source'] == 'dominant frequency of joint_commands'
    assert robot['gait']['frequency_hz'] == pytest.approx(0.5, abs=1e-3)
    assert robot['head_topic'] == '/cobra/odom'
    assert robot['locomotion']['stride_per_cycle_m'] == pytest.approx([0.1] * 5, abs=1e-3)
    assert robot['contact'] is None and robot['sinkage'] is None
    page = (out / 'index.html').read_text()
    assert 'Not in this report: no contact/forces topic' in page
    assert 'Not in this report: no terrain/heightmap topic' in page


def test_heading_drift(sim_robot_report):
    _, metrics = sim_robot_report
    turning = by_label(metrics)['turning']['locomotion']
    assert turning['heading_drift_deg_per_cycle'] == pytest.approx(3.0, abs=0.05)
    assert turning['yaw_drift_deg_per_cycle'] == pytest.approx(3.0, abs=0.05)


def test_comparisons_of_the_same_gait(sim_robot_report):
    _, metrics = sim_robot_report
    comparisons = {c['other']: c for c in metrics['comparisons']}
    assert set(comparisons) == {'robot_run', 'turning'}
    robot = comparisons['robot_run']
    assert robot['reference'] == 'sim_run'
    assert robot['stride_ratio'] == pytest.approx(1.0, abs=1e-2)
    assert robot['shape_error_strides'] == pytest.approx(0.0, abs=0.01)
    assert robot['ate_rmse_m'] < 0.005  # the same path in another direction: Umeyama aligns it away
    assert robot['rpe_delta_s'] == pytest.approx(2.0)
    turning = comparisons['turning']
    assert turning['stride_ratio'] == pytest.approx(1.2, abs=1e-2)
    assert turning['ate_rmse_m'] > 0.02  # 20 % longer strides: 0.13 m apart after 6.5 cycles
    assert metrics['performance_ratio'] == []
    assert 'needs >= 2 gaits' in metrics['performance_ratio_absent']


def test_page_provenance_and_figures(sim_robot_report):
    out, metrics = sim_robot_report
    page = (out / 'index.html').read_text()
    images = re.findall(r'<img src="([^"]+)"', page)
    assert 'sim_run_trajectory.png' in images and 'sim_run_contact.png' in images and 'comparison_0.png' in images
    for image in images:
        assert (out / image).read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    assert metrics['provenance']['report_git_rev'] == 'test-rev'
    assert metrics['provenance']['bag_git_revs'] == {'sim_run': 'abc1234', 'robot_run': None, 'turning': 'abc1234'}
    assert by_label(metrics)['sim_run']['gait_parameters'] == {'gait': 'gait1', 'frequency_hz': 0.5}
    assert not list(out.parent.glob('.out.partial-*'))


def section_of(page: str, label: str) -> str:
    """The page's section of one bag (its h2 up to the next h2)."""
    begin = page.index(f'<h2 id="{label}">')
    end = page.find('<h2', begin + 1)
    return page[begin:end if end > 0 else len(page)]


def test_page_names_robot_terrain_gait_class_and_topic_counts(sim_robot_report):
    out, metrics = sim_robot_report
    page = (out / 'index.html').read_text()
    assert page.index('<table') == page.index('<table id="summary">')  # the summary table comes first
    summary = page[page.index('<table id="summary">'):page.index('</table>')]
    assert ('<td><a href="#sim_run">sim_run</a></td><td>sim</td><td>cobra (from the joint names)</td><td>scm</td>'
            '<td>gait1</td>') in summary
    assert ('<td><a href="#robot_run">robot_run</a></td><td>robot</td><td>cobra</td>'
            '<td>the real ground (robot run)</td><td>gait1</td>') in summary
    assert summary.count('<td>ok</td>') == 2 and summary.count('<td>not checked (no ground truth)</td>') == 1
    bags = by_label(metrics)
    assert (bags['sim_run']['robot'], bags['sim_run']['terrain']) == ('cobra (from the joint names)', 'scm')
    sim = section_of(page, 'sim_run')
    assert '<th>launch file</th><td>sidewind.launch.py</td>' in sim
    assert '<td>/joint_states</td><td>7000</td><td>500.0</td>' in sim  # 14 s at 500 Hz
    assert '<td>/cobra/joint_states</td><td>7000</td>' in section_of(page, 'robot_run')
    assert '<td>cobra.terrain</td><td>scm</td>' in sim


def test_times_count_from_the_gait_start_and_the_date_is_given_once(sim_robot_report):
    """The robot bag has wall-clock stamps (1.7e9 s): its page shows the date of its gait start once
    and every other time since it, never raw epoch seconds."""
    out, metrics = sim_robot_report
    robot = section_of((out / 'index.html').read_text(), 'robot_run')
    assert robot.count('2023-11-14 22:13:21.010 UTC') == 1  # 1.7e9 s + the 1.01 s before the first command
    assert not re.search(r'\b1[67]\d{8}(\.\d+)?\b', robot), 'an epoch stamp on the page'
    assert 'from t = 2.00 s' in robot  # joint tracking from the first steady cycle, 2 s after the gait start
    assert by_label(metrics)['robot_run']['tracking_window_since_gait_start_s'][0] == pytest.approx(2.0, abs=0.01)
    sim = section_of((out / 'index.html').read_text(), 'sim_run')
    assert 'sim time 1.010 s (the clock started at 0: no date)' in sim


def figures_on(page: str) -> list[tuple[list[dict[str, str]], str, str]]:
    """(axes labels, src, alt) of every figure the report emits."""
    return [(json.loads(html.unescape(axes)), src, html.unescape(alt)) for axes, src, alt in
            re.findall(r'<figure data-axes="([^"]*)"><img src="([^"]+)" alt="([^"]*)"></figure>', page)]


def test_every_figure_axis_is_labelled_and_described(sim_robot_report):
    out, _ = sim_robot_report
    page = (out / 'index.html').read_text()
    figures = figures_on(page)
    assert len(figures) == len(re.findall(r'<img ', page)) >= 10
    for axes, src, alt in figures:
        assert alt != src and len(alt) > 40, alt
        for ax in axes:
            if ax['kind'] == 'colorbar':
                assert ax['x'] or ax['y'], f'{src}: a colour bar without a label'
            else:
                assert ax['x'] and ax['y'], f'{src}: axes {ax} lack a label'
    tracking = next(axes for axes, src, _ in figures if src == 'sim_run_tracking.png')
    panels = [ax for ax in tracking if ax['title'].startswith('joint_')]
    assert len(panels) == 11
    assert {(ax['x'], ax['y']) for ax in panels} == {('time since gait start [s]', 'angle [deg]')}
    contact = next(axes for axes, src, _ in figures if src == 'sim_run_contact.png')
    assert [ax['y'] for ax in contact if ax['kind'] == 'colorbar'] == ['mean contact force |F| [N]']


def test_comparison_is_linked_from_the_top_side_by_side_with_shape_and_error_over_time(sim_robot_report):
    out, _ = sim_robot_report
    page = (out / 'index.html').read_text()
    assert page.index('<a href="#comparison">') < page.index('<h2')
    assert page.index('<h2 id="comparison">') < page.index('<h2 id="sim_run">')
    side = page[page.index('<table id="side-by-side">'):]
    side = side[:side.index('</table>')]
    assert '<th>stride</th><td>10.00 cm</td><td>10.00 cm</td><td>11.96 cm</td>' in side  # turning: |mean vector| < 12
    assert '<th>terrain</th><td>scm</td><td>the real ground (robot run)</td><td>not recorded</td>' in side
    comparison = {src: axes for axes, src, _ in figures_on(page)}['comparison_0.png']
    labels = {(ax['x'], ax['y']) for ax in comparison}
    assert labels == {('along travel [strides]', 'across travel [strides]'), ('x [m]', 'y [m]'),
                      ('time since gait start [s]', 'position error [cm]')}


def test_performance_ratio_heat_map(tmp_path):
    bags = []
    for name, stride in (('sim_g1', 0.1), ('sim_g2', 0.2), ('robot_g1', 0.1), ('robot_g2', 0.1)):
        bags.append(write_bag(tmp_path / name, SyntheticRun(duration_s=8.0, frequency_hz=1.0, ramp_s=1.0,
                                                            stride_m=stride, state_rate_hz=100.0)))
    labels = [f'{name}={name.split("_")[0]}:{name.split("_")[1]}' for name in ('sim_g1', 'sim_g2', 'robot_g1', 'robot_g2')]
    out = tmp_path / 'out'
    assert run_report([*bags, '--out', out, *[w for label in labels for w in ('--label', label)]]) == 0
    metrics = load(out)
    [ratio] = metrics['performance_ratio']
    assert (ratio['class_x'], ratio['class_y'], ratio['gaits']) == ('sim', 'robot', ['g1', 'g2'])
    # δ_sim(g1, g2) = 0.1 / 0.2, δ_robot(g1, g2) = 1: Ξ = [[1, 0.5], [2, 1]]
    assert np.array(ratio['xi']) == pytest.approx(np.array([[1.0, 0.5], [2.0, 1.0]]), rel=2e-3)
    assert ratio['off_diagonal_mean'] == pytest.approx(1.25, rel=2e-3)
    assert ratio['off_diagonal_std'] == pytest.approx(0.75, rel=2e-3)
    assert (out / 'performance_ratio_0.png').exists()


def test_tumbling_and_twist_power_sections(tmp_path):
    tumbling = write_bag(tmp_path / 'tumble', SyntheticRun(duration_s=10.0, stride_m=0.0, wiggle_m=0.0,
                                                           tumble_interval_s=(6.0, 9.0), contact_links=COBRA_LINKS,
                                                           state_rate_hz=100.0))
    powers = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    tsnake = write_bag(tmp_path / 'tsnake', SyntheticRun(duration_s=10.0, joint_names=TSNAKE_JOINTS,
                                                         twist_power_w=powers, frequency_hz=0.4))
    out = tmp_path / 'out'
    assert run_report([tumbling, tsnake, '--out', out]) == 0
    metrics = by_label(load(out))
    [span] = metrics['tumble']['tumbling']
    assert (span['begin_s'], span['end_s'], span['source']) == (6.0, 9.0, 'tumble/state = tumbling')
    assert span['mean_speed_m_s'] == pytest.approx(0.5, rel=0.02)
    assert span['height_drop_m'] == pytest.approx(0.2 * 0.5 * 3.0, rel=0.02)
    assert span['peak_angular_speed_rad_s'] == pytest.approx(2.0)
    assert span['peak_link_force_n'] == pytest.approx(1.5 * 6.0 * 9.81 / 12, rel=1e-3)
    twist = metrics['tsnake']['twist_power']
    assert [j['joint'] for j in twist['joints']] == [f'm{i}_twist' for i in range(1, 7)]
    # the measured twist lags 0.05 s behind the gait start, so 0.04 s of 8.99 s carry no power
    assert [j['mean_power_w'] for j in twist['joints']] == pytest.approx([p * (1 - 0.04 / 8.99) for p in powers],
                                                                          rel=2e-3)
    assert twist['top_two_share'] == pytest.approx(11.0 / 21.0)
    assert metrics['tsnake']['gait']['frequency_hz'] == pytest.approx(0.4, abs=1e-3)
    assert [t['lag_s'] for t in metrics['tsnake']['tracking'] if t['joint'].endswith('_twist')] == [None] * 6
    assert (out / 'tumble_tumbling.png').exists() and (out / 'tsnake_twist_power.png').exists()
    assert metrics['tumble']['absent']['twist'] == ('no twist joints (m1_twist, m2_twist, …) in joint_states '
                                                   '(a T-Snake bag has them)')
    assert not re.search(r'\{[a-z_]+\}', (out / 'index.html').read_text())  # no unformatted placeholder


def test_a_bag_missing_topics_gives_a_report_without_those_sections(tmp_path):
    no_commands = write_bag(tmp_path / 'no_commands', SyntheticRun(duration_s=6.0, omit_topics=('joint_commands',)))
    no_odom = write_bag(tmp_path / 'no_odom', SyntheticRun(duration_s=6.0, omit_topics=('odom', 'ground_truth/odom')))
    out = tmp_path / 'out'
    assert run_report([no_commands, no_odom, '--out', out]) == 0
    metrics = by_label(load(out))
    assert metrics['no_commands']['absent']['gait'].startswith('no joint_commands topic')
    assert metrics['no_commands']['locomotion'] is None and metrics['no_commands']['tracking'] == []
    assert metrics['no_odom']['absent']['locomotion'].startswith('no odom or ground_truth/odom topic')
    assert len(metrics['no_odom']['tracking']) == 11
    page = (out / 'index.html').read_text()
    assert 'Not in this report: no joint_commands topic' in page
    assert (out / 'no_commands_trajectory.png').exists()


def _truncated_bag(path: Path) -> Path:
    write_bag(path, SyntheticRun(duration_s=4.0, state_rate_hz=100.0))
    mcap = next(path.glob('*.mcap'))
    data = mcap.read_bytes()
    mcap.write_bytes(data[:len(data) // 2])
    return path


def _empty_bag(path: Path) -> Path:
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        writer.add_connection('/joint_states', 'sensor_msgs/msg/JointState', typestore=TYPESTORE)
    return path


def _garbage_bag(path: Path) -> Path:
    path.mkdir()
    (path / 'metadata.yaml').write_text('rosbag2_bagfile_information: [not closed')
    return path


def _unrelated_bag(path: Path) -> Path:
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        connection = writer.add_connection('/chatter', 'std_msgs/msg/String', typestore=TYPESTORE)
        writer.write(connection, 1, TYPESTORE.serialize_cdr(TYPESTORE.types['std_msgs/msg/String']('hi'),
                                                            'std_msgs/msg/String'))
    return path


def _empty_directory(path: Path) -> Path:
    path.mkdir()
    return path


@pytest.mark.parametrize('make_bag, message', [
    (_empty_directory, 'an empty directory, not a bag'),
    (_truncated_bag, 'cannot read the bag'),
    (_empty_bag, 'the bag holds no messages'),
    (_garbage_bag, 'cannot read the bag'),
    (_unrelated_bag, 'none of the topics the report reads has a message'),
])
def test_a_bad_bag_is_one_error_line_naming_it_and_exit_2(tmp_path, capsys, make_bag, message):
    good = write_bag(tmp_path / 'good', SyntheticRun(duration_s=4.0, state_rate_hz=100.0))
    bad = make_bag(tmp_path / 'bad_bag')
    out = tmp_path / 'out'
    assert run_report([good, bad, '--out', out]) == 2
    error = capsys.readouterr().err
    assert error.count('\n') == 1 and error.startswith(f'error: {bad}: ') and message in error
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ['bad_bag', 'good']  # no staging directory left


def test_cli_bad_arguments_exit_2(tmp_path):
    good = write_bag(tmp_path / 'good', SyntheticRun(duration_s=4.0, state_rate_hz=100.0))
    taken = tmp_path / 'taken'
    taken.mkdir()
    (taken / 'keep.txt').write_text('x')
    cases = [
        ([good, '--out', taken], 'exists and is not empty'),
        ([good, '--out', tmp_path / 'o1', '--label', 'nonsense'], 'is not BAG=CLASS:GAIT'),
        ([good, '--out', tmp_path / 'o2', '--label', 'other=sim:g'], "names 'other', which is none of the bags"),
        ([tmp_path / 'missing', '--out', tmp_path / 'o3'], 'no such bag'),
    ]
    for args, message in cases:
        result = subprocess.run([sys.executable, '-m', 'cobra_analysis.report', *map(str, args)],
                                capture_output=True, text=True, timeout=120,
                                env={**os.environ, 'PYTHONPATH': os.pathsep.join(sys.path)})
        assert result.returncode == 2, result.stderr
        assert message in result.stderr and result.stderr.count('\n') == 1, result.stderr
    assert (taken / 'keep.txt').exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ['good', 'taken']


def test_force_replaces_an_old_report(tmp_path):
    good = write_bag(tmp_path / 'good', SyntheticRun(duration_s=4.0, state_rate_hz=100.0))
    out = tmp_path / 'out'
    out.mkdir()
    (out / 'old.txt').write_text('old')
    assert run_report([good, '--out', out, '--force']) == 0
    assert (out / 'index.html').exists() and not (out / 'old.txt').exists()


def test_a_split_logger_bag_with_an_unrecovered_split(tmp_path):
    """cobra_logger's layout: several closed MCAP splits listed in metadata.yaml, and (after a
    crash) an open split in .recording/ that the report cannot read and says so."""
    from rosbags.highlevel import AnyReader

    from cobra_logger.split_bag import SplitBagWriter

    source = write_bag(tmp_path / 'source', SyntheticRun(duration_s=8.0, state_rate_hz=100.0))
    now = [0.0]
    writer = SplitBagWriter(tmp_path / 'logged', split_duration_s=2.0, monotonic=lambda: now[0])
    with AnyReader([source], default_typestore=TYPESTORE) as reader:
        for connection in reader.connections:
            writer.add_topic(connection.topic, connection.msgtype)
        for connection, timestamp_ns, raw in reader.messages():
            now[0] = timestamp_ns * 1e-9  # wall clock = bag time: a split every 2 s
            writer.write(connection.topic, timestamp_ns, raw)
    writer.close()
    logged = tmp_path / 'logged'
    assert len(list(logged.glob('*.mcap'))) == 4
    (logged / '.recording').mkdir()
    out = tmp_path / 'out'
    assert run_report([logged, '--out', out]) == 0
    bag = load(out)['bags'][0]
    assert bag['storage'] == 'mcap'
    assert bag['message_counts']['/joint_states'] == 800
    assert bag['locomotion']['stride_per_cycle_m'] == pytest.approx([0.1] * 2, abs=1e-3)
    # two steady cycles: no STD and no drift fitted through two points
    assert bag['locomotion']['stride_std_m'] is None and bag['locomotion']['heading_drift_deg_per_cycle'] is None
    assert bag['locomotion']['too_few_cycles'].startswith('2 steady cycles are too few to judge')
    assert '<th>heading drift (slope of the travel direction)</th><td>too few cycles to judge (2 steady; needs ≥ 3)' \
        in (out / 'index.html').read_text()
    assert bag['warnings'] == [f'{logged} has an open split in .recording/ (a recording cut off): its messages '
                               f'are not in this report; run `python -m cobra_logger.recover {logged}` to add them']
    assert 'python -m cobra_logger.recover' in (out / 'index.html').read_text()


def test_a_run_that_fell_says_so_on_the_page_in_gait_time(tmp_path):
    """The ground check's PROBLEM lines on the page (one line on top, the details folded) count
    time from the gait start like the rest of the page; they printed raw epoch stamps before."""
    fell = write_bag(tmp_path / 'fell', SyntheticRun(duration_s=14.0, tumble_interval_s=(2.0, 12.0),
                                                     tumble_speed_m_s=0.5, start_time_s=1.7e9,
                                                     custom_data={'cobra.terrain': 'rigid'}))
    out = tmp_path / 'out'
    assert run_report([fell, '--out', out]) == 1
    page = (out / 'index.html').read_text()
    assert '<p class="problem">PROBLEM: 1 body went through or off the ground' in page
    assert '<td>PROBLEM: see the bag</td>' in page
    [line] = load(out)['ground_problems']['fell']
    assert re.search(r'at t = \d+\.\d\d s since the gait start it was', line), line
    assert not re.search(r'\b1[67]\d{8}(\.\d+)?\b', page.split('<body>')[1]), 'an epoch stamp on the page'


def test_terrain_and_robot_from_custom_data_diagnostics_or_joint_names():
    from types import SimpleNamespace

    from cobra_analysis.report import robot_of, terrain_of

    def analysis(custom_data: dict, diagnostics: dict, bag_class: str = 'sim', joints: tuple = ()) -> object:
        states = SimpleNamespace(names=joints) if joints else None
        return SimpleNamespace(bag=SimpleNamespace(custom_data=custom_data, diagnostics=diagnostics,
                                                   joint_states=states, joint_commands=None), bag_class=bag_class)
    assert terrain_of(analysis({'cobra.terrain': 'rigid', 'cobra.slope_deg': '15.0'}, {})) == 'rigid, slope 15 deg'
    assert terrain_of(analysis({'cobra.terrain': 'rigid 15 deg', 'cobra.slope_deg': '15.0'}, {})) == 'rigid 15 deg'
    assert terrain_of(analysis({}, {'terrain': 'scm', 'terrain_file': '/x/soil/loose_sand.yaml', 'slope_deg': '0'})) \
        == 'scm (loose_sand.yaml) (sim diagnostics)'
    assert terrain_of(analysis({}, {}, 'robot')) == 'the real ground (robot run)'
    assert terrain_of(analysis({}, {})) == 'not recorded'
    assert robot_of(analysis({'cobra.robot': 'tsnake'}, {})) == 'tsnake'
    assert robot_of(analysis({}, {}, joints=TSNAKE_JOINTS)) == 'tsnake (from the joint names)'
    assert robot_of(analysis({}, {})) == 'not recorded'


def test_a_turning_run_says_why_its_stride_is_shorter_than_its_step(tmp_path):
    """Steps of 0.12 m turning 40 deg per cycle: over 5 steady cycles the mean displacement vector
    is 0.12 |sum e^(i 40 k)| / 5 = 0.069 m, and the page says the turn cancels 42 % of the step."""
    turning = write_bag(tmp_path / 'circling', SyntheticRun(duration_s=14.0, stride_m=0.12, custom_data=GAIT1,
                                                            heading_drift_rad_per_cycle=math.radians(40.0)))
    out = tmp_path / 'out'
    assert run_report([turning, '--out', out]) == 0
    loco = by_label(load(out))['circling']['locomotion']
    assert loco['mean_step_m'] == pytest.approx(0.12, rel=0.03)
    expected = 1 - abs(sum(complex(math.cos(math.radians(40.0 * k)), math.sin(math.radians(40.0 * k)))
                           for k in range(5))) / 5
    assert 1 - loco['mean_stride_m'] / loco['mean_step_m'] == pytest.approx(expected, abs=0.03)
    page = next(out.glob('*.html')).read_text()
    assert f'The stride is {100 * expected:.0f} % shorter than the step' in page
