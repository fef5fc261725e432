"""cobra_experiments.lts_runs: the LTS paper's §IV measures, and the twist-load ordering in a short T-Snake run."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dataclasses import replace

from cobra_gaits.lts import BackboneCurveParams, LinearTwistParams, RollingVectorParams, lts_preset
from cobra_experiments.lts_runs import (LtsRunError, RunConfig, block_means, body_yaw_rad, dominant_period_s,
                                gait_period_s, ground_plane_distance_m, lateral_angle_periods_s,
                                load_share_of_top, output_power_w, point_on_body_xy_m, relative_change, run_gait,
                                time_scaled_twist, track_progress_m, traversal_time_s, whole_periods_s,
                                yaw_rate_rad_s)

REPRODUCE_MODULE = ('-m', 'cobra_experiments.reproduce_lts')
SHORT_RUN_S = 5.0  # sim seconds per gait: a few seconds, well under one twist period of either gait


def test_rolling_vector_concentrates_twist_power_in_two_joints_lts_spreads_it():
    """§IV-B in a short sim: the baseline's buffer (twist joints 3 and 4) carries nearly all the
    twist power, the in-place LTS turn spreads it over all six twist joints."""
    records = {name: run_gait(lts_preset(name), RunConfig(duration_s=SHORT_RUN_S))
               for name in ('in_place_load', 'rolling_vector')}
    lts, baseline = (records[name].twist_mean_power_w() for name in ('in_place_load', 'rolling_vector'))
    assert records['rolling_vector'].twist_joint_names == [f'm{i}_twist' for i in range(1, 7)]
    assert len(records['rolling_vector'].control_times_s) == round(SHORT_RUN_S / 0.002)
    assert lts.sum() > 0.05 and baseline.sum() > 0.05  # both gaits really load the twist joints [W]
    share_lts, share_baseline = load_share_of_top(lts), load_share_of_top(baseline)
    assert share_baseline > 0.95
    assert share_baseline > share_lts + 0.1
    assert set(np.argsort(baseline)[-2:]) == {2, 3}  # the buffer's joints 3 and 4
    assert (lts / lts.sum())[[0, 1, 4, 5]].sum() > 0.15  # the outer four joints share the LTS load
    assert (baseline / baseline.sum())[[0, 1, 4, 5]].sum() < 0.02  # and stay idle in the baseline
    # the chosen servo tracks the twist targets (the power is that of the commanded motion)
    for record in records.values():
        assert np.abs(record.twist_tracking_error_rad).max() < 0.05
        assert np.all(record.saturated_fraction == 0.0)


def test_rolling_with_positive_a0_runs_against_sidewinding_with_positive_omega_t():
    """Pins the sign convention §IV-D depends on: the body rolls about +e1 (head -> tail, robot -x)
    at a0, so with the ground below it a0 > 0 carries it towards +y; conventional sidewinding with
    omega_t > 0 travels towards -y. So a0 = -0.8 adds to omega_t = +0.5, a0 = +0.8 opposes it."""
    def velocity_m_s(gait) -> np.ndarray:
        record = run_gait(gait, RunConfig(duration_s=SHORT_RUN_S))
        return (record.com_m[-1] - record.com_m[0]) / record.sample_times_s[-1]

    sidewinding = velocity_m_s(lts_preset('conventional'))
    rolling_only = velocity_m_s(replace(lts_preset('rolling'), curve=BackboneCurveParams(),
                                        twist=LinearTwistParams(0.8, 0.0)))
    assert sidewinding[1] < -0.02 and abs(sidewinding[0]) < 0.5 * abs(sidewinding[1])  # ~ k_b omega_t = 0.04 m/s
    assert rolling_only[1] > 0.02  # ~ a0 x radius = 0.8 x 0.035 m/s
    combined = {a0: velocity_m_s(replace(lts_preset('rolling'), twist=LinearTwistParams(a0, 0.0)))[1]
                for a0 in (0.8, -0.8)}
    assert combined[-0.8] < 1.5 * sidewinding[1]  # faster along -y than sidewinding alone
    assert abs(combined[0.8]) < 0.5 * abs(sidewinding[1])  # the two motions nearly cancel


def test_output_power_is_the_magnitude_of_torque_times_speed():
    np.testing.assert_allclose(output_power_w([2.0, -2.0, 0.5], [-3.0, -3.0, 0.0]), [6.0, 6.0, 0.0])


def test_block_means_average_whole_blocks_and_drop_the_rest():
    samples = np.arange(10.0).reshape(5, 2)  # rows (0,1) (2,3) (4,5) (6,7) (8,9)
    np.testing.assert_allclose(block_means(samples, 2), [[1.0, 2.0], [5.0, 6.0]])
    with pytest.raises(LtsRunError):
        block_means(samples, 0)


def test_load_share_of_top_two_and_relative_change():
    assert load_share_of_top(np.array([1.0, 4.0, 2.0, 3.0])) == pytest.approx(0.7)
    assert load_share_of_top(np.array([0.0, 0.0, 5.0, 0.0])) == pytest.approx(1.0)
    with pytest.raises(LtsRunError, match='zero'):
        load_share_of_top(np.zeros(6))
    assert relative_change(5.76, 9.89) == pytest.approx(-0.4176, abs=1e-4)  # the paper's -42 %


def test_body_yaw_follows_a_turning_chain_through_the_wrap_and_points_tail_to_head():
    times = np.linspace(0.0, 20.0, 201)
    rate = 0.3  # rad/s: 6 rad in all, across +-pi
    yaw = 2.5 + rate * times
    arc = np.linspace(0.0, -1.2, 7)  # head first, the body behind it
    direction = np.stack([np.cos(yaw), np.sin(yaw)], -1)
    wobble = 0.03 * np.sin(np.linspace(0.0, 4 * math.pi, 7))[None, :, None] * direction[:, None, ::-1]
    xy = np.array([1.0, -2.0]) + arc[None, :, None] * direction[:, None, :] + wobble
    measured = body_yaw_rad(xy)
    assert np.max(np.abs(np.diff(measured))) < 0.1  # unwrapped
    np.testing.assert_allclose(measured - measured[0], yaw - yaw[0], atol=0.05)
    assert math.cos(measured[0] - 2.5) > 0.99  # tail -> head, not the reverse
    assert yaw_rate_rad_s(times, measured) == pytest.approx(rate, rel=0.01)


def test_point_on_body_interpolates_along_the_straight_piece_between_joint_points():
    arcs = np.array([0.0, 0.1, 0.3, 0.5])
    xy = np.array([[[0.0, 0.0], [-0.1, 0.0], [-0.1, -0.2], [-0.3, -0.2]]] * 2)
    np.testing.assert_allclose(point_on_body_xy_m(xy, arcs, 0.2), [[-0.1, -0.1]] * 2)
    np.testing.assert_allclose(point_on_body_xy_m(xy, arcs, 0.5), [[-0.3, -0.2]] * 2)
    np.testing.assert_allclose(point_on_body_xy_m(xy, arcs, 0.0), [[0.0, 0.0]] * 2)


def test_traversal_time_interpolates_and_is_none_when_the_track_is_not_covered():
    times = np.array([0.0, 1.0, 2.0, 3.0])
    distance = np.array([0.0, 0.5, 1.5, 2.5])
    assert traversal_time_s(times, distance, 2.0) == pytest.approx(2.5)
    assert traversal_time_s(times, distance, 3.0) is None


def test_track_progress_counts_only_the_track_direction():
    displacement = np.array([[0.0, 0.0, 0.0], [3.0, -1.5, -1.0], [-0.2, 2.0, 0.1]])
    np.testing.assert_allclose(track_progress_m(displacement), [0.0, 1.5, 2.0])  # world y, either way


def test_ground_plane_distance_drops_the_slope_normal_only():
    slope = 20.0
    fall_line = np.array([math.cos(math.radians(slope)), 0.0, -math.sin(math.radians(slope))])
    normal = np.array([math.sin(math.radians(slope)), 0.0, math.cos(math.radians(slope))])
    assert ground_plane_distance_m(2.0 * fall_line, slope) == pytest.approx(2.0)
    assert ground_plane_distance_m(np.array([0.0, 1.5, 0.0]) + 0.3 * normal, slope) == pytest.approx(1.5)
    assert ground_plane_distance_m(np.array([3.0, 4.0, 7.0])) == pytest.approx(5.0)


def test_dominant_period_of_a_sampled_sine():
    times = np.arange(0.0, 60.0, 0.02)
    assert dominant_period_s(times, 0.4 * np.sin(2 * math.pi * times / 7.3) + 0.1) == pytest.approx(7.3, rel=0.01)


def test_gait_period_is_where_every_piece_twist_and_the_wave_repeat():
    assert gait_period_s(lts_preset('in_place_load')) == pytest.approx(2 * math.pi / 0.2)  # rates 0.6 .. -0.6 by 0.2
    assert gait_period_s(lts_preset('rolling_vector')) == pytest.approx(2 * math.pi / 0.4)
    assert gait_period_s(lts_preset('rolling')) == pytest.approx(2 * math.pi / 0.1)  # omega_t 0.5, a0 0.8
    assert gait_period_s(lts_preset('conventional')) == pytest.approx(2 * math.pi / 0.5)
    assert gait_period_s(lts_preset('twisting')) is None  # a0 = -1, a1 L0 = 0.30825: no short period
    gait = lts_preset('in_place_load')
    assert whole_periods_s(gait, 40.0) == pytest.approx(2 * 2 * math.pi / 0.2, abs=0.02)


def test_lateral_angle_periods_follow_the_piece_behind_each_module():
    """twisting preset: piece k rolls at a0 + a1 k L0 = -1 + 0.30825 k rad/s."""
    expected = 2 * math.pi / np.abs(-1.0 + 1.5 * 0.2055 * np.arange(1, 7))
    np.testing.assert_allclose(lateral_angle_periods_s(lts_preset('twisting')), expected)
    assert np.all(np.isinf(lateral_angle_periods_s(lts_preset('conventional'))))  # no rolling at all


def test_time_scaling_multiplies_every_rolling_speed():
    lts = time_scaled_twist(lts_preset('in_place_load'), 0.5)
    assert isinstance(lts.twist, LinearTwistParams)
    assert (lts.twist.a0_rad_s, lts.twist.a1_rad_m_s) == pytest.approx((0.3, -0.6 / (6 * 0.2055)))
    baseline = time_scaled_twist(lts_preset('rolling_vector'), 0.75)
    assert isinstance(baseline.twist, RollingVectorParams)
    assert (baseline.twist.head_roll_rad_s, baseline.twist.tail_roll_rad_s) == pytest.approx((0.3, -0.3))
    with pytest.raises(LtsRunError, match='> 0'):
        time_scaled_twist(baseline, 0.0)


@pytest.mark.parametrize('config,words', [
    (RunConfig(duration_s=0.0), 'duration_s'),
    (RunConfig(duration_s=1.0, slope_deg=90.0), 'slope_deg'),
    (RunConfig(duration_s=1.0, ramp_duration_s=-1.0), 'ramp_duration_s'),
    (RunConfig(duration_s=1.0, stop_distance_m=0.0), 'stop_distance_m'),
])
def test_bad_run_config_is_refused_naming_the_field(config, words):
    with pytest.raises(LtsRunError, match=words):
        run_gait(lts_preset('conventional'), config)


@pytest.mark.parametrize('options,words', [
    (['--sections', 'a,x'], '--sections'),
    (['--slope-deg', '90'], '--slope-deg'),
    (['--track-m', '0'], '--track-m'),
])
def test_reproduce_script_refuses_bad_options_with_exit_2_and_writes_nothing(tmp_path, options, words):
    out = tmp_path / 'lts_paper'
    result = subprocess.run([sys.executable, *REPRODUCE_MODULE, '--out', str(out), *options],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert words in result.stderr
    assert list(tmp_path.iterdir()) == []
