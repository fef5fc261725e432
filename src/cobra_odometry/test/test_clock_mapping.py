"""Device clock -> ROS time: offset from the fastest frames, slewed, ordered, re-anchored on resets."""

import numpy as np
import pytest

from cobra_odometry.clock_mapping import DeviceClockMapper, MonotonicGate


def test_converges_to_min_latency_offset_without_reordering() -> None:
    rng = np.random.default_rng(1)
    mapper = DeviceClockMapper()
    true_offset = 1000.0
    stamps = []
    device = np.arange(0.0, 20.0, 0.005)
    for d in device:
        latency = 0.002 + rng.exponential(0.004)
        mapper.observe(d, d + true_offset + latency)
        stamps.append(mapper.to_ros(d))
    stamps = np.array(stamps)
    assert np.all(np.diff(stamps) > 0)
    assert mapper.offset_s - true_offset == pytest.approx(0.002, abs=0.001)
    assert mapper.reanchors == 0


def test_tracks_drift_with_bounded_slew() -> None:
    mapper = DeviceClockMapper()
    previous = None
    for d in np.arange(0.0, 60.0, 0.01):
        mapper.observe(d, d * (1 + 5e-5) + 3.0)  # 50 ppm drift
        stamp = mapper.to_ros(d)
        if previous is not None:
            assert 0.0 < stamp - previous < 0.0101
        previous = stamp
    assert mapper.to_ros(60.0) == pytest.approx(60.0 * (1 + 5e-5) + 3.0, abs=1e-3)


def test_device_reset_reanchors() -> None:
    mapper = DeviceClockMapper()
    for d in np.arange(100.0, 101.0, 0.01):
        mapper.observe(d, d + 5.0)
    assert mapper.observe(0.0, 106.0) is True
    assert mapper.to_ros(0.0) == pytest.approx(106.0)
    assert mapper.reanchors == 1


def test_monotonic_gate() -> None:
    gate = MonotonicGate()
    assert [gate.accept(t) for t in (1.0, 2.0, 2.0, 1.5, 3.0)] == [True, True, False, False, True]
    assert gate.rejected == 2
