"""Gyro/accel union by linear interpolation onto gyro stamps (realsense-ros unite_imu_method 2)."""

import numpy as np
import pytest

from cobra_odometry.imu_interpolation import ImuUniter


def _accel(t: float) -> tuple[float, float, float]:
    return (1.0 + 2.0 * t, -9.81, 0.5 * t)  # linear in t: interpolation must be exact


def test_interpolates_linear_signal_exactly_at_gyro_rate() -> None:
    uniter = ImuUniter()
    out = []
    gyro_stamps = [0.001 + i / 200.0 for i in range(400)]
    accel_stamps = [i / 62.5 for i in range(130)]
    events = sorted([(t, 'g') for t in gyro_stamps] + [(t, 'a') for t in accel_stamps])
    for t, kind in events:
        if kind == 'g':
            out += uniter.push_gyro(t, (0.1, 0.2, t))
        else:
            out += uniter.push_accel(t, _accel(t))
    assert len(out) >= 395
    stamps = np.array([s.stamp_s for s in out])
    assert np.all(np.diff(stamps) > 0)
    assert np.median(np.diff(stamps)) == pytest.approx(0.005)
    for sample in out:
        assert sample.angular_velocity[2] == sample.stamp_s  # gyro passes through untouched
        np.testing.assert_allclose(sample.linear_acceleration, _accel(sample.stamp_s), atol=1e-12)


def test_gyro_before_first_accel_dropped_and_waiting_gyro_released() -> None:
    uniter = ImuUniter()
    assert uniter.push_gyro(0.0, (0, 0, 0)) == []
    assert uniter.counters.dropped_unbracketed == 1
    assert uniter.push_accel(0.01, (0.0, 0.0, 0.0)) == []
    assert uniter.push_gyro(0.015, (1, 1, 1)) == []  # needs the next accel
    out = uniter.push_accel(0.02, (10.0, 0.0, 0.0))
    assert len(out) == 1 and out[0].linear_acceleration[0] == pytest.approx(5.0)


def test_out_of_order_and_gap_counted() -> None:
    uniter = ImuUniter(max_accel_gap_s=0.05)
    uniter.push_accel(0.0, (0.0, 0.0, 0.0))
    uniter.push_gyro(0.01, (0, 0, 0))
    uniter.push_gyro(0.005, (0, 0, 0))
    assert uniter.counters.out_of_order_gyro == 1
    assert uniter.push_accel(0.2, (1.0, 0.0, 0.0)) == []  # 0.2 s accel gap: not interpolated
    assert uniter.counters.dropped_accel_gap == 1
    uniter.push_accel(0.1, (0.0, 0.0, 0.0))
    assert uniter.counters.out_of_order_accel == 1
