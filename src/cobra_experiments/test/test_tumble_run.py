"""Tumbling physics on the slope world (engine-level): the latched loop rolls downhill on 24°.

Found by python -m cobra_experiments.tumble_report and pinned here: put at rest upright on the slope, the latched
loop (servos holding the curl pose) rolls from 18° up and stays put at 10° (it topples sideways
there instead), where a travelling mode-2 bend wave rolls it; the gait's own sequence
(cobra_gaits.tumbling) curls, latches and rolls on 24°.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cobra_description.robot_model import load_robot_model
from cobra_experiments.tumble_run import TumbleRunConfig, TumbleRunError, run_tumble, summarize

REPO = Path(__file__).resolve().parents[3]
URDF = REPO / 'urdf' / 'cobra.urdf'


@pytest.fixture(scope='module')
def robot():
    return load_robot_model(URDF)


def test_the_latched_loop_rolls_from_rest_on_24_degrees(robot):
    config = TumbleRunConfig(slope_deg=24.0, start='rest', tumble_s=3.0)
    trace = run_tumble(robot, config)
    summary = summarize(trace, config)
    assert summary['rolled'] and summary['turns'] >= 2.0
    assert summary['distance_rolled_m'] > 3.0
    speed = np.array(trace.com_speed_m_s)
    assert speed[-100:].mean() > speed[:100].mean() + 1.0  # it speeds up down the slope
    assert summary['mean_roll_rate_rad_s'] > 0.0  # forward roll about +y carries it down +x
    # rolling, not sliding: v/ω is of the loop's size (1.7 m around: radius 0.27 m), not far above it
    assert 0.2 < summary['effective_radius_m'] < 0.45
    assert all(trace.latched)


def test_the_latched_loop_does_not_roll_from_rest_on_10_degrees(robot):
    config = TumbleRunConfig(slope_deg=10.0, start='rest', tumble_s=3.0)
    summary = summarize(run_tumble(robot, config), config)
    assert not summary['rolled'] and abs(summary['turns']) < 0.5
    assert summary['distance_rolled_m'] < 0.3


def test_a_travelling_bend_wave_rolls_the_loop_where_it_would_not_roll_passively(robot):
    config = TumbleRunConfig(slope_deg=10.0, start='rest', tumble_s=4.0, wave_amplitude_rad=0.4,
                             wave_frequency_hz=1.0)
    summary = summarize(run_tumble(robot, config), config)
    assert summary['rolled'] and summary['distance_rolled_m'] > 1.5  # passive: < 0.3 m (test above)


def test_the_gait_sequence_curls_latches_and_rolls_on_24_degrees(robot):
    config = TumbleRunConfig(slope_deg=24.0, start='sequence', tumble_s=2.0, latch_retry=True)
    trace = run_tumble(robot, config)
    summary = summarize(trace, config)
    events = [text.split(':')[0] for _, text in trace.states]
    assert events[:4] == ['ramp_down', 'curling', 'latching', 'tumbling']
    assert summary['rolled'] and summary['distance_rolled_m'] > 2.0
    assert summary['outcome'] == 'ready'  # released and uncurled afterwards
    # every link that touched the ground while rolling felt more than its share of the weight (impacts)
    peaks = np.array(list(summary['peak_normal_force_n'].values()))
    assert peaks.max() > summary['weight_normal_component_n']


def test_the_gait_sequence_latches_on_level_ground_as_the_gait_node_runs_it(robot):
    """The runner builds the gait node's machine (TumbleMachine.for_robot): it asks for the latch
    once forward kinematics of the measured joints closes the loop. Before, with closure judged by
    the joint tolerance alone, it asked with the frames 30.1 mm apart (the servos' sag), the sim
    refused (capture distance 30 mm) and the sequence aborted after latching_timeout_s."""
    trace = run_tumble(robot, TumbleRunConfig(slope_deg=0.0, start='sequence', tumble_s=1.0))
    events = [text.split(':')[0] for _, text in trace.states]
    assert events[:4] == ['ramp_down', 'curling', 'latching', 'tumbling'], trace.states
    assert trace.latched[-1] or trace.outcome == 'ready'


@pytest.mark.parametrize('changes, message', [
    ({'start': 'sideways'}, "start 'sideways'"),
    ({'tumble_s': 0.0}, 'tumble_s=0.0'),
    ({'friction': -1.0}, 'friction=-1.0'),
])
def test_bad_run_configs_are_refused(robot, changes, message):
    with pytest.raises(TumbleRunError, match=message):
        run_tumble(robot, TumbleRunConfig(**changes))


@pytest.mark.parametrize('arguments, message', [
    (['--slope-deg', '90'], '--slope-deg: slope_deg:=90.0 is not a slope'),
    (['--start', 'sideways'], '--start sideways'),
    (['--tumble-s', '0'], '--tumble-s: tumble_s=0.0'),
    (['--wave-amplitude-rad', '2'], '--wave-amplitude-rad: wave_amplitude_rad=2.0'),
])
def test_tumble_report_refuses_bad_input_and_writes_nothing(tmp_path, arguments, message):
    out = tmp_path / 'report'
    result = subprocess.run([sys.executable, '-m', 'cobra_experiments.tumble_report', *arguments,
                             '--out', str(out)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert message in result.stderr and result.stderr.count('\n') == 1
    assert not out.exists()


def test_tumble_report_writes_json_and_png(tmp_path):
    out = tmp_path / 'report'
    result = subprocess.run([sys.executable, '-m', 'cobra_experiments.tumble_report', '--start', 'rest',
                             '--tumble-s', '3', '--out', str(out)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    report = json.loads((out / 'tumble_report.json').read_text())
    run = report['runs'][0]
    assert run['start'] == 'rest' and run['slope_deg'] == 24.0
    assert set(run['peak_normal_force_n']) == {'base_link', *(f'link_{i}' for i in range(1, 12))}
    assert (out / 'tumble_report.png').read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    assert 'DEM wheel' in result.stdout
