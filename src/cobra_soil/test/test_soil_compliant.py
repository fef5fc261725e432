"""Thesis §5 compliant ground with §7 friction: a block on a slope sticks below the friction
angle (the tangential spring holds it, creep bounded) and slides at g(sin θ - μ_d cos θ) above.

The slope is made by tilting gravity (the plane stays z = 0); the block's translation is
integrated with semi-implicit Euler at 1 ms, rotation locked (a low, wide block does not tip).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cobra_soil import BodyGeometry, CollisionShape, CompliantGround, CompliantParams
from cobra_soil.compliant import friction_coefficient

G_M_S2 = 9.81
DT_S = 1e-3
HALF_HEIGHT_M = 0.025


def _slide(slope_deg: float, duration_s: float, params: CompliantParams | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Downhill position and velocity of a 1 kg block, sampled every step."""
    params = params or CompliantParams()
    mass_kg = 1.0
    block = BodyGeometry('block', mass_kg, (CollisionShape('box', (0.05, 0.05, HALF_HEIGHT_M)),))
    ground = CompliantGround(params, [block])
    theta = math.radians(slope_deg)
    gravity = G_M_S2 * np.array([math.sin(theta), 0.0, -math.cos(theta)])
    # Start at the static normal compression so the test sees friction, not an impact.
    depth_m = mass_kg * G_M_S2 * math.cos(theta) / (4 * params.normal_stiffness_n_m)
    position = np.array([[0.0, 0.0, HALF_HEIGHT_M - depth_m]])
    velocity = np.zeros((1, 3))
    rotation = np.eye(3)[None]
    omega = np.zeros((1, 3))
    xs, vs = [], []
    for _ in range(int(round(duration_s / DT_S))):
        force, _ = ground.step(position, rotation, velocity, omega, DT_S)
        velocity[0] += DT_S * (force[0] / mass_kg + gravity)
        position[0] += DT_S * velocity[0]
        xs.append(position[0, 0])
        vs.append(velocity[0, 0])
    return np.array(xs), np.array(vs)


def test_block_below_the_static_friction_angle_sticks_with_bounded_creep() -> None:
    params = CompliantParams()
    slope_deg = 20.0   # tan 20° = 0.36: above μ_d = 0.3, below μ_s = 0.5 -> static friction holds it
    assert params.friction_dynamic < math.tan(math.radians(slope_deg)) < params.friction_static
    x, v = _slide(slope_deg, 3.0, params)
    # Spring stretch that carries the slope load on 4 corners: m g sin θ / (4 k_t) = 0.08 mm.
    stretch_m = G_M_S2 * math.sin(math.radians(slope_deg)) / (4 * params.tangential_stiffness_n_m)
    assert np.abs(x).max() < 3 * stretch_m
    assert abs(x[-1] - x[-1000]) < 1e-3 * stretch_m   # no creep over the last second
    assert abs(v[-1]) < 1e-6


def test_block_above_the_friction_angle_slides_at_g_sin_minus_mu_dynamic_cos() -> None:
    params = CompliantParams()
    slope_deg = 35.0   # tan 35° = 0.70 > μ_s
    theta = math.radians(slope_deg)
    _, v = _slide(slope_deg, 1.5, params)
    expected_m_s2 = G_M_S2 * (math.sin(theta) - params.friction_dynamic * math.cos(theta))
    acceleration_m_s2 = (v[1499] - v[499]) / (1000 * DT_S)
    assert acceleration_m_s2 == pytest.approx(expected_m_s2, rel=0.01)
    assert acceleration_m_s2 > 1.5 * G_M_S2 * (math.sin(theta) - params.friction_static * math.cos(theta))


def test_friction_coefficient_goes_from_static_to_dynamic_around_the_critical_slip_speed() -> None:
    v_c = 1e-3
    assert friction_coefficient(0.0, 0.5, 0.3, v_c) == 0.5
    assert friction_coefficient(v_c, 0.5, 0.3, v_c) == 0.5
    assert 0.3 < friction_coefficient(1.25 * v_c, 0.5, 0.3, v_c) < 0.5
    assert friction_coefficient(1.5 * v_c, 0.5, 0.3, v_c) == 0.3
    assert friction_coefficient(1.0, 0.5, 0.3, v_c) == 0.3


def test_tangential_spring_decays_out_of_contact_and_cylinder_rests_on_its_lowest_rim_points() -> None:
    params = CompliantParams()
    quarter_turn_about_y = ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0), (-1.0, 0.0, 0.0))
    link = BodyGeometry('link', 0.46, (CollisionShape('cylinder', (0.045, 0.068), rotation=quarter_turn_about_y),))
    ground = CompliantGround(params, [link])
    position = np.array([[0.0, 0.0, 0.045 - 0.001]])   # 1 mm into the ground
    rotation = np.eye(3)[None]
    zero = np.zeros((1, 3))
    force, torque = ground.step(position, rotation, np.array([[0.01, 0.0, 0.0]]), zero, DT_S)
    np.testing.assert_allclose(ground.points_m[:, 2], -0.001, atol=1e-12)           # bottom of both end circles
    np.testing.assert_allclose(np.sort(ground.points_m[:, 0]), [-0.068, 0.068], atol=1e-12)
    assert force[0, 2] > 0 and ground.contacts == 2
    spring = ground.spring_m.copy()
    assert np.all(spring[:, 0] > 0)   # stuck and stretched along the slip
    position[0, 2] = 0.1               # lifted off
    ground.step(position, rotation, zero, zero, DT_S)
    np.testing.assert_allclose(ground.spring_m, spring * (1 - DT_S * params.spring_decay_rate_1_s))
