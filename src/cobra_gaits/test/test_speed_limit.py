"""Gait speed limit: parameters whose peak joint speed exceeds the URDF limit are refused."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cobra_description.robot_model import load_robot_model
from cobra_gaits.presets import load_gait_parameters, preset_params
from cobra_gaits.sidewinding import GaitError, SidewindingGenerator, SidewindingParams
from cobra_gaits.speed_limit import check_sidewinding_speed, peak_wave_speed_rad_s

REPO = Path(__file__).resolve().parents[3]
JOINTS = load_robot_model(REPO / 'urdf' / 'cobra.urdf').gait_joints()
LIMIT_RAD_S = 4.82  # XH540-W270 in urdf/cobra.urdf


def _measured_peak_speed(params: SidewindingParams, retune: dict | None = None,
                         seconds: float = 8.0, dt_s: float = 1e-3) -> float:
    """Largest finite-difference joint speed of the generator started at t = 0 (then retuned)."""
    generator = SidewindingGenerator([j.axis_kind for j in JOINTS], params)
    generator.ramp.start()
    previous, peak = generator.positions(), 0.0
    for step in range(int(seconds / dt_s)):
        if retune and step == int(4.0 / dt_s):
            generator.retune(**retune)
        generator.advance(dt_s)
        current = generator.positions()
        peak = max(peak, float(np.max(np.abs(current - previous))) / dt_s)
        previous = current
    return peak


def test_urdf_limit_is_what_the_check_uses():
    assert {j.limits.velocity_rad_s for j in JOINTS} == {LIMIT_RAD_S}


@pytest.mark.parametrize('gait', ['gait1', 'gait2'])
def test_shipped_presets_are_within_the_limit(gait):
    check_sidewinding_speed(JOINTS, preset_params(load_gait_parameters(REPO / 'config' / 'gait.yaml'), gait))


def test_in_range_parameters_four_times_too_fast_are_refused_naming_joint_and_maximum():
    params = SidewindingParams(frequency_hz=2.0, amplitude_vertical_rad=0.3, amplitude_horizontal_rad=1.5)
    assert _measured_peak_speed(params) > 3.5 * LIMIT_RAD_S  # what the gait would really command
    with pytest.raises(GaitError) as error:
        check_sidewinding_speed(JOINTS, params)
    message = str(error.value)
    assert 'joint_2 (yaw)' in message and '18.85 rad/s' in message and '4.82 rad/s' in message
    assert 'amplitude_horizontal_rad <= 0.384 rad at 2 Hz' in message
    assert 'frequency_hz <= 0.511 Hz at 1.5 rad' in message


def test_the_suggested_maximum_is_within_the_limit_and_just_so():
    at_limit = SidewindingParams(frequency_hz=2.0, amplitude_vertical_rad=0.3, amplitude_horizontal_rad=0.3835)
    check_sidewinding_speed(JOINTS, at_limit)
    assert _measured_peak_speed(at_limit) <= LIMIT_RAD_S
    with pytest.raises(GaitError, match='joint_2'):
        check_sidewinding_speed(JOINTS, SidewindingParams(2.0, 0.3, 0.3845))


def test_predicted_peak_bounds_the_generated_speed_including_the_ramp():
    """A short ramp adds the envelope's rate to the wave: the prediction covers the measurement."""
    params = SidewindingParams(frequency_hz=0.2, amplitude_vertical_rad=0.2, amplitude_horizontal_rad=1.2,
                               ramp_duration_s=0.2)
    predicted = peak_wave_speed_rad_s(1.2, 0.2, 0.2)
    measured = _measured_peak_speed(params)
    assert measured <= predicted
    assert measured > 0.95 * predicted  # tight, not a loose bound
    assert predicted > 2 * math.pi * 0.2 * 1.2 * 4  # the ramp, not the wave, dominates here
    with pytest.raises(GaitError, match='9.03 rad/s.*ramp_duration_s 0.2 s.*ramp_duration_s >= 0.38 s'):
        check_sidewinding_speed(JOINTS, params)
    check_sidewinding_speed(JOINTS, SidewindingParams(0.2, 0.2, 1.2, ramp_duration_s=0.38))


def test_retune_counts_the_amplitude_still_slewing_down_at_the_new_frequency():
    """1.5 rad at 0.4 Hz is fine, 0.3 rad at 2 Hz is fine, but jumping to 2 Hz while the amplitude
    slews down from 1.5 rad at 0.5 rad/s moves the joints far too fast for seconds."""
    before = SidewindingParams(frequency_hz=0.4, amplitude_vertical_rad=0.3, amplitude_horizontal_rad=1.5)
    after = {'frequency_hz': 2.0, 'amplitude_horizontal_rad': 0.3}
    check_sidewinding_speed(JOINTS, before)
    check_sidewinding_speed(JOINTS, SidewindingParams(2.0, 0.3, 0.3))
    assert _measured_peak_speed(before, after) > 3 * LIMIT_RAD_S
    generator = SidewindingGenerator([j.axis_kind for j in JOINTS], before)
    from dataclasses import replace
    with pytest.raises(GaitError, match='slewing from \\+1.5 to \\+0.3 rad') as error:
        check_sidewinding_speed(JOINTS, replace(before, **after), generator.current_amplitudes_rad())
    assert 'change the amplitude first' in str(error.value)


def test_direction_change_slews_through_zero_and_the_slew_adds_to_the_speed():
    """0.7 rad at 1 Hz moves at 4.40 rad/s; reversing it with a 2 rad/s slew adds the slew in
    quadrature: hypot(2.0, 4.40) = 4.83 rad/s, over 4.82 (with 0.5 rad/s: 4.43, fine)."""
    from dataclasses import replace
    params = SidewindingParams(frequency_hz=1.0, amplitude_vertical_rad=0.1, amplitude_horizontal_rad=0.7,
                               amplitude_slew_rad_s=2.0)
    kinds = [j.axis_kind for j in JOINTS]
    check_sidewinding_speed(JOINTS, params)
    reversed_params = replace(params, direction='right')
    measured = _measured_peak_speed(params, {'direction': 'right'})
    predicted = peak_wave_speed_rad_s(0.7, 1.0, 2.0, slew_rad_s=2.0)
    assert 0.99 * predicted < measured <= predicted  # the bound is tight (A is largest at the ends)
    assert predicted > LIMIT_RAD_S
    with pytest.raises(GaitError, match=r'joint_2 .*slewing from \+0.7 to -0.7 rad'):
        check_sidewinding_speed(JOINTS, reversed_params,
                                SidewindingGenerator(kinds, params).current_amplitudes_rad())
    slow_slew = replace(params, amplitude_slew_rad_s=0.5)
    check_sidewinding_speed(JOINTS, replace(slow_slew, direction='right'),
                            SidewindingGenerator(kinds, slow_slew).current_amplitudes_rad())
