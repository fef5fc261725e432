"""The report's algorithms on series with known answers (no bags, no ROS)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cobra_analysis import metrics as m


def test_dominant_frequency_between_fft_bins():
    times = np.arange(0.0, 30.0, 0.01)  # 30 s: FFT bins are 0.033 Hz apart
    values = np.column_stack([0.4 * np.sin(2 * np.pi * 0.37 * times - k) for k in range(5)])
    assert m.dominant_frequency_hz(times, values) == pytest.approx(0.37, abs=1e-4)


def test_dominant_frequency_ignores_a_linear_drift():
    times = np.arange(0.0, 20.0, 0.01)
    values = (0.3 * np.sin(2 * np.pi * 1.2 * times) + 0.5 * times)[:, None]
    assert m.dominant_frequency_hz(times, values) == pytest.approx(1.2, abs=1e-3)


def test_gait_start_is_the_first_non_zero_command():
    times = np.arange(0.0, 3.0, 0.01)
    positions = np.zeros((len(times), 3))
    positions[times >= 1.25, 1] = 0.2
    assert m.gait_start_s(times, positions) == pytest.approx(1.25)
    assert m.gait_start_s(times, np.zeros((len(times), 3))) is None


def test_cycles_of_the_ramp_and_ramp_down_are_not_steady():
    frequency = 0.5
    times = np.arange(0.0, 16.0, 0.01)
    envelope = np.clip(times / 2.0, 0, 1) * np.clip((16.0 - times) / 2.0, 0, 1)  # 2 s ramp up, 2 s down
    positions = (envelope * 0.5 * np.sin(2 * np.pi * frequency * times))[:, None]
    cycles = m.gait_cycles(0.0, 16.0, frequency, times, positions)
    assert len(cycles.bounds_s) == 9
    assert cycles.steady.tolist() == [False, True, True, True, True, True, True, False]


def test_locomotion_stride_drift_and_speed():
    frequency, stride = 0.5, 0.1
    times = np.arange(0.0, 20.0, 0.01)
    cycles = m.GaitCycles(0.0, frequency, np.arange(0.0, 20.5, 2.0), np.ones(10), np.ones(10, dtype=bool))
    drift = math.radians(2.0)  # the travel direction turns 2 deg per cycle
    direction = drift * times * frequency
    speed = stride * frequency
    xy = np.column_stack([np.cumsum(speed * np.cos(direction)) * 0.01, np.cumsum(speed * np.sin(direction)) * 0.01])
    loco = m.locomotion(times, xy, direction, cycles)
    assert loco.stride_m == pytest.approx(np.full(9, stride), rel=2e-3)
    assert loco.heading_drift_rad_per_cycle == pytest.approx(drift, rel=1e-2)
    assert loco.heading_drift_stderr_rad_per_cycle < 1e-3 * drift  # a straight turn: the fit has no residual
    assert loco.too_few_cycles is None
    assert loco.yaw_drift_rad_per_cycle == pytest.approx(drift, rel=1e-2)
    # the steps turn 2 deg per cycle: over 9 cycles they cancel a little in the mean vector
    assert loco.mean_step_m == pytest.approx(stride, rel=2e-3)
    cancel = 1 - abs(sum(np.exp(1j * drift * k) for k in range(9))) / 9
    assert loco.steps_cancel == pytest.approx(cancel, abs=2e-3) and 0.003 < loco.steps_cancel < 0.02
    assert loco.path_speed_m_s == pytest.approx(speed, rel=2e-3)
    assert loco.cycle_paths_m.shape == (9, m.PHASE_POINTS, 2)


def test_two_steady_cycles_are_too_few_to_judge_spread_and_drift():
    """Two points fit any line and give a meaningless STD: the issue's 'drift per cycle' through two
    cycles and 'STD 0.03 cm' are not reported; the stride (a mean) still is."""
    times = np.linspace(0.0, 4.0, 401)
    cycles = m.GaitCycles(0.0, 0.5, np.array([0.0, 2.0, 4.0]), np.ones(2), np.ones(2, dtype=bool))
    xy = np.column_stack([np.zeros_like(times), 0.05 * times + 0.001 * np.sin(np.pi * times / 4.0)])
    loco = m.locomotion(times, xy, np.zeros_like(times), cycles)
    assert loco.stride_m == pytest.approx([0.101, 0.099])
    assert loco.mean_stride_m == pytest.approx(0.1)
    assert loco.stride_std_m is None and loco.heading_drift_rad_per_cycle is None
    assert loco.heading_drift_stderr_rad_per_cycle is None
    assert loco.too_few_cycles.startswith('2 steady cycles are too few to judge')


def test_drift_slope_and_its_standard_error():
    values = np.array([0.0, 1.0, 2.0, 3.0]) * 0.05 + np.array([0.01, -0.01, -0.01, 0.01])
    slope, error = m.drift_slope(values)
    assert slope == pytest.approx(0.05)
    # residuals (+-0.01) after the fit: SSR 4e-4 over 2 dof, Sxx = 5
    assert error == pytest.approx(math.sqrt(4e-4 / 2 / 5.0))
    assert m.drift_slope(np.array([0.0, 1.0])) == (pytest.approx(1.0), None)
    assert m.drift_slope(np.array([0.0])) == (None, None)


def test_one_cycle_mean_of_a_periodic_speed_is_flat_to_the_end():
    """The mean over one whole cycle of a periodic speed is its mean everywhere it is defined; the
    old np.convolve(mode='same') padded with zeros and fell over the last half cycle (1.25 s at
    0.4 Hz), like a stop ramp the run never had."""
    rate_hz, frequency = 50.0, 0.4
    times = np.arange(0.0, 20.0, 1.0 / rate_hz)
    speed = 0.07 + 0.015 * np.sin(2 * np.pi * frequency * times)
    window = int(round(rate_hz / frequency))
    mean, offset = m.one_cycle_mean(speed, window)
    assert mean == pytest.approx(np.full(len(speed) - window + 1, 0.07), abs=1e-4)
    assert offset == (window - 1) // 2  # each mean sits at the middle of its window
    padded = np.convolve(speed, np.ones(window) / window, mode='same')
    assert padded[-1] < 0.05  # what the report drew before: 30 % low at the end
    assert m.one_cycle_mean(speed[:10], window)[0].size == 0  # shorter than a cycle: nothing to draw


def test_tracking_rms_and_lag_of_a_delayed_sine():
    frequency, amplitude, lag = 0.5, 0.4, 0.03
    commands_t = np.arange(0.0, 12.0, 0.01)
    states_t = np.arange(0.0, 12.0, 0.002)
    wave = lambda t: amplitude * np.sin(2 * np.pi * frequency * t) * np.clip(t / 2.0, 0, 1)  # noqa: E731 ramp in
    result = m.joint_tracking(commands_t, ('j',), wave(commands_t)[:, None], states_t, ('j', 'other'),
                              np.column_stack([wave(states_t - lag), np.zeros(len(states_t))]), 4.0, 12.0, frequency)
    assert [r.joint for r in result] == ['j']
    # |A sin(wt) - A sin(w(t - lag))| has RMS A * sqrt(2) * sin(w lag / 2)
    assert result[0].rms_error_rad == pytest.approx(amplitude * math.sqrt(2) * math.sin(math.pi * frequency * lag),
                                                    rel=0.02)
    assert result[0].lag_s == pytest.approx(lag, abs=5e-4)


def test_tracking_lag_is_unbiased_by_a_start_ramp():
    """A growing amplitude in the window pulled the plain cross-correlation peak 2.5 ms early."""
    times = np.arange(0.0, 20.0, 0.002)
    wave = lambda t: 0.5 * np.clip((t - 1.0) / 2.0, 0, 1) * np.sin(2 * np.pi * 0.5 * (t - 1.0) - 0.6)  # noqa: E731
    assert m.tracking_lag_s(times, wave(times), wave(times - 0.05), 0.5) == pytest.approx(0.05, abs=2e-4)


def test_no_lag_for_a_command_without_a_wave():
    times = np.arange(0.0, 5.0, 0.002)
    assert m.tracking_lag_s(times, 0.6 * times, 0.6 * (times - 0.05), 0.5) is None


def test_shape_error_ignores_size_and_direction_but_not_shape():
    phase = np.linspace(0.0, 1.0, m.PHASE_POINTS)
    path = np.column_stack([phase, 0.2 * np.sin(2 * np.pi * phase)])[None]
    angle = 0.7
    rotated = path @ np.array([[math.cos(angle), math.sin(angle)], [-math.sin(angle), math.cos(angle)]])
    assert m.shape_error(path, 3.0 * rotated) == pytest.approx(0.0, abs=1e-12)
    flatter = np.column_stack([phase, 0.1 * np.sin(2 * np.pi * phase)])[None]
    # the cross-track wave differs by 0.1 stride in amplitude: RMS 0.1 / sqrt(2)
    assert m.shape_error(path, flatter) == pytest.approx(0.1 / math.sqrt(2), rel=0.02)


def test_performance_ratio_matches_the_definition():
    strides = {('g1', 'sim'): 0.10, ('g2', 'sim'): 0.20, ('g3', 'sim'): 0.30,
               ('g1', 'robot'): 0.10, ('g2', 'robot'): 0.10, ('g3', 'robot'): 0.30, ('g4', 'sim'): 0.5}
    ratio = m.performance_ratio(strides, 'robot', 'sim')
    assert ratio.gaits == ['g1', 'g2', 'g3']  # g4 was not run on the robot
    delta_robot = np.array([[1, 1, 1 / 3], [1, 1, 1 / 3], [3, 3, 1]])
    delta_sim = np.array([[1, 0.5, 1 / 3], [2, 1, 2 / 3], [3, 1.5, 1]])
    expected = delta_robot / delta_sim
    assert ratio.xi == pytest.approx(expected)
    off = expected[~np.eye(3, dtype=bool)]
    assert ratio.off_diagonal_mean == pytest.approx(off.mean())
    assert ratio.off_diagonal_std == pytest.approx(off.std())
    with pytest.raises(m.MetricsError, match='fewer than 2 gaits'):
        m.performance_ratio({('g1', 'sim'): 0.1, ('g1', 'robot'): 0.1}, 'robot', 'sim')


def test_contact_profile_and_distribution():
    frequency = 1.0
    times = np.arange(0.0, 10.0, 0.01)
    cycles = m.GaitCycles(0.0, frequency, np.arange(0.0, 10.5, 1.0), np.ones(10), np.ones(10, dtype=bool))
    phase = times % 1.0
    forces = {'link_2': (times, np.where(phase < 0.25, 4.0, 0.0)),  # touches a quarter of each cycle
              'link_1': (times, np.where(phase >= 0.5, 2.0, 0.0))}  # half of each cycle
    profile = m.contact_profile(forces, cycles)
    assert profile.links == ['link_1', 'link_2']
    assert profile.contact_fraction == pytest.approx([0.5, 0.25])
    assert profile.contact_share == pytest.approx([2 / 3, 1 / 3])
    quarter = m.PHASE_BINS // 4  # the bin holding phase 0.25 is partly in contact
    assert profile.mean_force_n[1, :quarter] == pytest.approx(4.0)
    assert profile.mean_force_n[1, quarter + 1:] == pytest.approx(0.0)
    assert profile.peak_force_n == 4.0


def test_intervals_hold_until_the_next_sample():
    times = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    assert m.intervals(times, np.array([False, True, True, False, True]), 6.0) == [(1.0, 3.0), (4.0, 6.0)]


def test_twist_power_and_top_two_share():
    times = np.arange(0.0, 4.0, 0.01)
    names = ('m1_twist', 'm1_lateral', 'm2_twist', 'm3_twist')
    velocity = np.tile([2.0, 5.0, -1.0, 0.5], (len(times), 1))
    effort = np.tile([1.5, 9.0, 2.0, -8.0], (len(times), 1))
    powers = m.twist_power(times, names, velocity, effort, 1.0, 4.0)
    assert [(p.joint, p.mean_power_w) for p in powers] == [('m1_twist', 3.0), ('m2_twist', 2.0), ('m3_twist', 4.0)]
    assert m.top_two_share(powers) == pytest.approx(7.0 / 9.0)
