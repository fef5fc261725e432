"""The rigid-slope reference of the DEM wheel (cobra_dem.rigid_reference, MuJoCo): rolling laws."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip('mujoco')

from cobra_dem.rigid_reference import rigid_body_trace  # noqa: E402
from cobra_dem.scenario import GRAVITY_M_S2, rigid_slope_acceleration_m_s2, scenario_from_dict  # noqa: E402


def test_free_wheel_rolls_at_the_rolling_acceleration() -> None:
    scenario = scenario_from_dict({'body': {'motion': 'free'}})
    trace = rigid_body_trace(scenario, duration_s=0.5, sample_interval_s=0.01)
    assert len(trace['time_s']) == 51 and trace['time_s'][-1] == pytest.approx(0.5)
    accel_m_s2 = 2.0 * np.polyfit(trace['time_s'], trace['position_m'][:, 0], 2)[0]
    # g sin 24 / (1 + 0.75) = 2.278 m/s^2 (mu 0.5 > the 0.19 rolling needs): measured 2.2775
    assert accel_m_s2 == pytest.approx(rigid_slope_acceleration_m_s2(scenario), rel=0.01)
    # rolling, not sliding: v = omega r
    np.testing.assert_allclose(trace['velocity_m_s'][-1, 0], trace['angular_velocity_rad_s'][-1, 1] * 0.2, rtol=0.01)


def test_prescribed_wheel_rolls_at_v_ref_held_by_friction() -> None:
    scenario = scenario_from_dict({'body': {'motion': 'prescribed'}})
    trace = rigid_body_trace(scenario, duration_s=0.5, sample_interval_s=0.01)
    late = trace['time_s'] > 0.2
    theta = math.radians(scenario.slope_deg)
    # v = omega_r r = 0.157 m/s; the contact holds m g sin(theta) = 23.9 N uphill, F_n = m g cos(theta)
    assert np.mean(trace['velocity_m_s'][late, 0]) == pytest.approx(scenario.body.reference_speed_m_s, rel=0.02)
    assert np.mean(trace['contact_force_n'][late, 0]) == pytest.approx(-6.0 * GRAVITY_M_S2 * math.sin(theta), rel=0.02)
    assert np.mean(trace['contact_force_n'][late, 2]) == pytest.approx(6.0 * GRAVITY_M_S2 * math.cos(theta), rel=0.02)


def test_interval_mean_contact_force_follows_the_rolling_law() -> None:
    """From the momentum alone: rolling without slip, the ground holds m g sin θ · (I / m r²) / (1 + I / m r²)
    uphill (I_yy = 0.75 m r²) and carries m g cos θ, as MuJoCo's own contact force says."""
    from cobra_dem.outputs import interval_mean_contact_force_n
    scenario = scenario_from_dict({'body': {'motion': 'free'}})
    trace = rigid_body_trace(scenario, duration_s=0.5, sample_interval_s=0.01)
    force = interval_mean_contact_force_n(trace, 6.0, scenario.gravity_vector)
    assert force.shape == (50, 3)
    theta = math.radians(scenario.slope_deg)
    late = trace['time_s'][1:] > 0.1
    assert np.mean(force[late, 0]) == pytest.approx(-6.0 * GRAVITY_M_S2 * math.sin(theta) * 0.75 / 1.75, rel=0.02)
    assert np.mean(force[late, 2]) == pytest.approx(6.0 * GRAVITY_M_S2 * math.cos(theta), rel=0.01)
    np.testing.assert_allclose(force[late, 2], trace['contact_force_n'][1:][late, 2], rtol=0.02)


def test_interval_mean_contact_force_of_a_constant_acceleration() -> None:
    from cobra_dem.outputs import interval_mean_contact_force_n
    t = np.linspace(0.0, 1.0, 11)
    velocity = np.stack([1.5 * t, np.zeros_like(t), np.zeros_like(t)], axis=1)   # 1.5 m/s² down the slope
    force = interval_mean_contact_force_n({'time_s': t, 'velocity_m_s': velocity}, 2.0,
                                         scenario_from_dict({'slope_deg': 30.0}).gravity_vector)
    np.testing.assert_allclose(force, np.tile([2.0 * (1.5 - GRAVITY_M_S2 * 0.5), 0.0,
                                               2.0 * GRAVITY_M_S2 * math.cos(math.radians(30.0))], (10, 1)), atol=1e-9)
