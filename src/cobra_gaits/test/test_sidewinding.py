"""Sidewinding generator: the thesis §11 formula, ramps, retuning without steps, validation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cobra_gaits.sidewinding import (PHASE_STEP_RAD, GaitError, SidewindingGenerator,
                                     SidewindingParams, StartStopRamp, sample_sidewinding,
                                     smoothstep)

# joint_1 .. joint_11 head to tail: odd joints pitch, even joints yaw (as in the URDF)
KINDS = ['pitch' if k % 2 == 1 else 'yaw' for k in range(1, 12)]
PITCH = np.array([kind == 'pitch' for kind in KINDS])
DT = 0.001


def _params(**changes) -> SidewindingParams:
    values = dict(frequency_hz=0.4, amplitude_vertical_rad=0.35, amplitude_horizontal_rad=0.70,
                  ramp_duration_s=1.0, amplitude_slew_rad_s=0.5)
    values.update(changes)
    return SidewindingParams(**values)


def _seed_formula(t: float, a_ver: float, a_hor: float, f: float) -> np.ndarray:
    """q_ver = A_ver sin(2 pi f t + pi/6 i), i = 0,2,..; q_hor = A_hor sin(2 pi f t + pi/6 j), j = 1,3,.."""
    k = np.arange(11)
    amplitude = np.where(k % 2 == 0, a_ver, a_hor)
    return amplitude * np.sin(2 * math.pi * f * t + math.pi / 6 * k)


def _run(generator: SidewindingGenerator, seconds: float, dt: float = DT) -> np.ndarray:
    """Positions after each tick over `seconds` (rows), starting from the current state."""
    ticks = int(round(seconds / dt))
    rows = np.empty((ticks, len(KINDS)))
    for index in range(ticks):
        generator.advance(dt)
        rows[index] = generator.positions()
    return rows


def _max_tick_change(previous: np.ndarray, rows: np.ndarray) -> float:
    return float(np.max(np.abs(np.diff(np.vstack([previous, rows]), axis=0))))


def test_phase_step_is_pi_over_6():
    assert PHASE_STEP_RAD == pytest.approx(math.pi / 6)


@pytest.mark.parametrize('t', [1.0, 1.37, 2.5, 3.125])
def test_positions_match_seed_formula_after_ramp(t):
    params = _params(ramp_duration_s=1.0)
    generator = SidewindingGenerator(KINDS, params)
    generator.ramp.start()
    ticks = int(round(t / DT))
    for _ in range(ticks):
        generator.advance(DT)
    assert generator.ramp.envelope == pytest.approx(1.0)
    np.testing.assert_allclose(generator.positions(), _seed_formula(ticks * DT, 0.35, 0.70, 0.4),
                               atol=1e-9)


def test_pitch_joints_carry_vertical_and_yaw_joints_horizontal_amplitude():
    generator = SidewindingGenerator(KINDS, _params(ramp_duration_s=0.5))
    generator.ramp.start()
    _run(generator, 0.5)
    period = _run(generator, 1 / 0.4)
    peaks = np.max(np.abs(period), axis=0)
    np.testing.assert_allclose(peaks[PITCH], 0.35, atol=1e-4)
    np.testing.assert_allclose(peaks[~PITCH], 0.70, atol=1e-4)


def test_neighbouring_joints_lag_by_pi_over_6():
    """At phase zero (t = 0 after the ramp, envelope forced to 1) q_k / A_k = sin(pi/6 k)."""
    generator = SidewindingGenerator(KINDS, _params(frequency_hz=0.0))
    generator.ramp.start()
    _run(generator, 1.0)
    amplitude = np.where(PITCH, 0.35, 0.70)
    np.testing.assert_allclose(generator.positions() / amplitude,
                               np.sin(math.pi / 6 * np.arange(11)), atol=1e-12)


def test_direction_right_negates_yaw_wave_only():
    left = SidewindingGenerator(KINDS, _params(direction='left'))
    right = SidewindingGenerator(KINDS, _params(direction='right'))
    for generator in (left, right):
        generator.ramp.start()
    rows_left, rows_right = _run(left, 1.7), _run(right, 1.7)
    np.testing.assert_allclose(rows_right[:, PITCH], rows_left[:, PITCH], atol=1e-12)
    np.testing.assert_allclose(rows_right[:, ~PITCH], -rows_left[:, ~PITCH], atol=1e-12)
    assert np.max(np.abs(rows_left[:, ~PITCH])) > 0.5


def test_not_started_generator_stays_at_zero():
    generator = SidewindingGenerator(KINDS, _params())
    rows = _run(generator, 0.5)
    assert np.all(rows == 0.0)
    assert generator.ramp.is_idle


def test_ramp_starts_at_zero_and_reaches_full_amplitude_without_step():
    params = _params(ramp_duration_s=2.0)
    generator = SidewindingGenerator(KINDS, params)
    generator.ramp.start()
    start = generator.positions()
    assert np.all(start == 0.0)
    rows = _run(generator, 2.0)
    assert generator.ramp.envelope == pytest.approx(1.0)
    # largest slope: wave 2 pi f A plus ramp 1.5 A / T (smoothstep peak slope)
    bound = DT * (0.70 * 2 * math.pi * 0.4 + 1.5 * 0.70 / 2.0) * 1.01
    assert _max_tick_change(start, rows) <= bound
    # the envelope is still small early in the ramp
    assert np.max(np.abs(rows[99])) < 0.70 * smoothstep(0.1 / 2.0) + 1e-9


def test_envelope_follows_smoothstep_during_ramp():
    generator = SidewindingGenerator(KINDS, _params(ramp_duration_s=2.0))
    generator.ramp.start()
    _run(generator, 0.5)
    assert generator.ramp.envelope == pytest.approx(smoothstep(0.25), abs=1e-9)
    assert smoothstep(0.25) == pytest.approx(0.15625)


def test_stop_ramps_down_to_all_zeros_and_idles():
    generator = SidewindingGenerator(KINDS, _params(ramp_duration_s=1.0))
    generator.ramp.start()
    running = _run(generator, 2.0)
    generator.ramp.stop()
    assert not generator.ramp.is_idle
    rows = _run(generator, 1.0)
    bound = DT * (0.70 * 2 * math.pi * 0.4 + 1.5 * 0.70 / 1.0) * 1.01
    assert _max_tick_change(running[-1], rows) <= bound
    assert np.all(generator.positions() == 0.0)
    assert generator.ramp.is_idle
    assert np.all(_run(generator, 0.2) == 0.0)


def test_restart_after_stop_ramps_in_again():
    generator = SidewindingGenerator(KINDS, _params(ramp_duration_s=0.5))
    generator.ramp.start()
    _run(generator, 1.0)
    generator.ramp.stop()
    _run(generator, 0.5)
    assert generator.ramp.is_idle
    generator.ramp.start()
    rows = _run(generator, 0.5)
    assert np.max(np.abs(rows[0])) < 1e-4
    assert generator.ramp.envelope == pytest.approx(1.0)


def _running_generator(**changes) -> tuple[SidewindingGenerator, np.ndarray]:
    generator = SidewindingGenerator(KINDS, _params(ramp_duration_s=0.5, **changes))
    generator.ramp.start()
    rows = _run(generator, 1.3)
    return generator, rows[-1]


def _step_bound(a_max: float, f_max: float, slew: float = 0.5) -> float:
    return DT * (a_max * 2 * math.pi * f_max + slew) * 1.01


def test_retune_frequency_has_no_step_and_gives_new_period():
    generator, last = _running_generator()
    generator.retune(frequency_hz=1.0)
    rows = _run(generator, 2.0)
    assert _max_tick_change(last, rows) <= _step_bound(0.70, 1.0)
    # a 1 Hz wave repeats every 1000 ticks
    np.testing.assert_allclose(rows[1000:], rows[:1000], atol=1e-9)
    assert generator.params.frequency_hz == 1.0


def test_retune_amplitude_slews_without_step_to_new_amplitude():
    generator, last = _running_generator()
    generator.retune(amplitude_vertical_rad=0.9, amplitude_horizontal_rad=0.2)
    rows = _run(generator, 2.0)
    assert _max_tick_change(last, rows) <= _step_bound(0.9, 0.4)
    period = _run(generator, 1 / 0.4)
    peaks = np.max(np.abs(period), axis=0)
    np.testing.assert_allclose(peaks[PITCH], 0.9, atol=1e-4)
    np.testing.assert_allclose(peaks[~PITCH], 0.2, atol=1e-4)


def test_retune_amplitude_is_rate_limited_by_slew():
    generator, _ = _running_generator(amplitude_slew_rad_s=0.5)
    generator.retune(amplitude_vertical_rad=0.0, amplitude_horizontal_rad=0.0)
    _run(generator, 0.4)  # yaw amplitude 0.70 -> 0.50 at 0.5 rad/s
    period = _run(generator, 0.2)
    assert np.max(np.abs(period[:, ~PITCH])) <= 0.50 + 1e-9
    assert np.max(np.abs(period[:, ~PITCH])) > 0.35
    rows = _run(generator, 2.0)
    assert np.max(np.abs(rows[-200:])) == 0.0


def test_retune_direction_reverses_yaw_wave_without_step():
    generator, last = _running_generator(direction='left')
    reference = SidewindingGenerator(KINDS, _params(ramp_duration_s=0.5, direction='right'))
    reference.ramp.start()
    _run(reference, 1.3)
    generator.retune(direction='right')
    rows = _run(generator, 4.0)
    assert _max_tick_change(last, rows) <= _step_bound(0.70, 0.4)
    expected = _run(reference, 4.0)
    # 0.70 -> -0.70 at 0.5 rad/s takes 2.8 s; afterwards both generators agree
    np.testing.assert_allclose(rows[-500:], expected[-500:], atol=1e-9)
    np.testing.assert_allclose(rows[:, PITCH], expected[:, PITCH], atol=1e-9)


def test_retune_ramp_duration_keeps_envelope_continuous():
    generator = SidewindingGenerator(KINDS, _params(ramp_duration_s=2.0))
    generator.ramp.start()
    _run(generator, 1.0)
    before = generator.ramp.envelope
    generator.retune(ramp_duration_s=4.0)
    assert generator.ramp.envelope == before
    _run(generator, 1.0)
    assert generator.ramp.envelope == pytest.approx(smoothstep(0.75), abs=1e-9)


def test_rejected_retune_keeps_previous_parameters():
    generator, _ = _running_generator()
    with pytest.raises(GaitError, match='frequency_hz'):
        generator.retune(frequency_hz=3.0)
    assert generator.params.frequency_hz == 0.4


@pytest.mark.parametrize('changes, message', [
    ({'direction': 'up'}, "direction must be one of \\['left', 'right'\\], got 'up'"),
    ({'frequency_hz': -0.1}, 'frequency_hz must be within'),
    ({'frequency_hz': 2.5}, 'frequency_hz must be within'),
    ({'frequency_hz': math.nan}, 'frequency_hz must be within'),
    ({'amplitude_vertical_rad': -0.01}, 'amplitude_vertical_rad must be within'),
    ({'amplitude_horizontal_rad': 1.6}, 'amplitude_horizontal_rad must be within'),
    ({'ramp_duration_s': 0.0}, 'must be positive'),
    ({'amplitude_slew_rad_s': -1.0}, 'must be positive'),
])
def test_invalid_parameters_raise(changes, message):
    with pytest.raises(GaitError, match=message):
        SidewindingGenerator(KINDS, _params(**changes))


def test_limits_are_inclusive():
    params = _params(frequency_hz=2.0, amplitude_vertical_rad=math.pi / 2, amplitude_horizontal_rad=0.0)
    assert params.validated() is params


def test_non_pitch_yaw_joint_kind_raises():
    with pytest.raises(GaitError, match="\\['roll'\\]"):
        SidewindingGenerator(['pitch', 'roll'], _params())


def test_negative_time_step_raises():
    generator = SidewindingGenerator(KINDS, _params())
    with pytest.raises(GaitError, match='negative'):
        generator.advance(-0.001)


def test_zero_ramp_duration_raises():
    with pytest.raises(GaitError, match='positive'):
        StartStopRamp(0.0)


def test_smoothstep_clamps_and_is_symmetric():
    assert smoothstep(-1.0) == 0.0
    assert smoothstep(2.0) == 1.0
    assert smoothstep(0.5) == 0.5
    assert smoothstep(0.3) + smoothstep(0.7) == pytest.approx(1.0)


def test_sample_sidewinding_shape_and_times():
    times, rows = sample_sidewinding(KINDS, _params(ramp_duration_s=1.0), duration_s=3.0, rate_hz=100.0)
    assert times.shape == (301,)
    assert rows.shape == (301, 11)
    np.testing.assert_allclose(times, np.arange(301) * 0.01)
    assert times[-1] == pytest.approx(3.0)
    assert np.all(rows[0] == 0.0)
    for index in (150, 222, 300):
        np.testing.assert_allclose(rows[index], _seed_formula(times[index], 0.35, 0.70, 0.4), atol=1e-9)


@pytest.mark.parametrize('duration, rate', [(0.0, 100.0), (-1.0, 100.0), (1.0, 0.0), (1.0, -5.0)])
def test_sample_sidewinding_rejects_non_positive_duration_or_rate(duration, rate):
    with pytest.raises(GaitError, match='duration and rate must be positive'):
        sample_sidewinding(KINDS, _params(), duration, rate)


def test_sample_sidewinding_without_ramp_is_the_steady_wave_from_t0():
    times, rows = sample_sidewinding(KINDS, _params(ramp_duration_s=1.0), duration_s=1.0, rate_hz=100.0,
                                     ramp_in=False)
    for index in (0, 30, 100):
        np.testing.assert_allclose(rows[index], _seed_formula(times[index], 0.35, 0.70, 0.4), atol=1e-9)
