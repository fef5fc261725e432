"""SCM soil physics: Bekker sinkage of a loaded plate, Janosi shear curve, elastic unload/reload.

Each test runs its own small integrator (semi-implicit Euler, dt = 1 ms as in the thesis) for a
rigid plate whose rotation is locked, as in a plate-load (bevameter) test; loads are ramped
slowly, as in that test, so the result is the soil law and not the plate's dynamic overshoot.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cobra_soil import (BodyGeometry, BulldozingParams, CollisionShape, GridParams, ScmParams, ScmTerrain,
                            SoilParams)

G_M_S2 = 9.81
DT_S = 1e-3
SPACING_M = 0.02
# Plate centres sit half a spacing off the grid so exactly (2 half_x / Δ) x (2 half_y / Δ) nodes
# lie under the plate: loaded area = plate area.
OFFSET_M = 0.5 * SPACING_M


def _params(soil: SoilParams | None = None, bulldozing: bool = False) -> ScmParams:
    return ScmParams(soil=soil or SoilParams(), grid=GridParams(size_x_m=4.0, size_y_m=2.0, spacing_m=SPACING_M),
                     bulldozing=BulldozingParams(enabled=bulldozing))


def _plate(half_x_m: float, half_y_m: float, mass_kg: float) -> BodyGeometry:
    return BodyGeometry('plate', mass_kg, (CollisionShape('box', (half_x_m, half_y_m, 0.01)),))


class PlateRig:
    """One plate (rotation locked) on the soil; vertical motion integrated, horizontal prescribed."""

    def __init__(self, terrain: ScmTerrain, mass_kg: float, half_z_m: float = 0.01) -> None:
        self.terrain = terrain
        self.mass_kg = mass_kg
        self.half_z_m = half_z_m
        self.position = np.array([[OFFSET_M, OFFSET_M, half_z_m]])   # bottom face on the surface
        self.velocity = np.zeros((1, 3))
        self.rotation = np.eye(3)[None]
        self.omega = np.zeros((1, 3))
        self.force = np.zeros(3)

    @property
    def sinkage_m(self) -> float:
        return -(self.position[0, 2] - self.half_z_m)

    def step(self, load_n: float, horizontal_speed_m_s: float = 0.0) -> None:
        self.velocity[0, 0] = horizontal_speed_m_s
        force, _ = self.terrain.step(self.position, self.rotation, self.velocity, self.omega, DT_S)
        self.force = force[0].copy()
        self.velocity[0, 2] += DT_S * (self.force[2] - load_n) / self.mass_kg
        self.position[0, 2] += DT_S * self.velocity[0, 2]
        self.position[0, 0] += DT_S * horizontal_speed_m_s

    def ramp(self, from_n: float, to_n: float, ramp_s: float = 1.5, hold_s: float = 0.5) -> None:
        steps = int(round(ramp_s / DT_S))
        for k in range(steps):
            s = (k + 1) / steps
            self.step(from_n + (to_n - from_n) * s * s * (3.0 - 2.0 * s))
        for _ in range(int(round(hold_s / DT_S))):
            self.step(to_n)


def _bekker_sinkage_m(pressure_pa: float, soil: SoilParams, inv_b_1_m: float) -> float:
    return (pressure_pa / (soil.bekker_kc_pa_m_n1 * inv_b_1_m + soil.bekker_kphi_pa_m_n)) ** (1.0 / soil.bekker_n)


def _points_hull_inv_b(half_x_m: float, half_y_m: float) -> float:
    """Chrono's 1/b = L / 2A of the convex hull of the node points under an aligned plate."""
    wx = 2 * half_x_m - SPACING_M
    wy = 2 * half_y_m - SPACING_M
    return 2 * (wx + wy) / (2 * wx * wy)


def test_static_plate_settles_to_bekker_sinkage_and_doubling_load_scales_by_2_pow_1_over_n() -> None:
    soil = SoilParams()   # thesis loose sand
    half_m = 0.1
    area_m2 = (2 * half_m) ** 2
    mass_kg = 10.0
    sinkages = []
    for load_factor in (1.0, 2.0):
        rig = PlateRig(ScmTerrain(_params(soil), [_plate(half_m, half_m, mass_kg)]), mass_kg)
        weight_n = load_factor * mass_kg * G_M_S2
        rig.ramp(0.0, weight_n)
        assert rig.force[2] == pytest.approx(weight_n, rel=1e-3)   # at rest on the soil
        # Analytic Bekker sinkage with the plate's own b = 2A/L = half width (Bekker's b).
        analytic_m = _bekker_sinkage_m(weight_n / area_m2, soil, 1.0 / half_m)
        assert rig.sinkage_m == pytest.approx(analytic_m, rel=0.02)
        sinkages.append(rig.sinkage_m)
    assert sinkages[1] / sinkages[0] == pytest.approx(2.0 ** (1.0 / soil.bekker_n), rel=0.02)


def test_plate_width_changes_sinkage_in_cohesive_soil_as_b_from_the_contact_patch_predicts() -> None:
    # A soil where K_c / b dominates: the same load on the same area sinks less under a narrow
    # plate (Bekker's modulus K_c / b + K_phi grows as b shrinks), by the ratio b predicts.
    soil = SoilParams(bekker_kphi_pa_m_n=1.0e4, bekker_kc_pa_m_n1=2.0e4, bekker_n=0.8, elastic_k_pa_m=5e6)
    mass_kg = 10.0
    weight_n = mass_kg * G_M_S2
    results = {}
    for half_x, half_y in ((0.1, 0.1), (0.2, 0.05)):
        rig = PlateRig(ScmTerrain(_params(soil), [_plate(half_x, half_y, mass_kg)]), mass_kg)
        rig.ramp(0.0, weight_n)
        expected_m = _bekker_sinkage_m(weight_n / 0.04, soil, _points_hull_inv_b(half_x, half_y))
        assert rig.sinkage_m == pytest.approx(expected_m, rel=0.02)
        results[(half_x, half_y)] = rig.sinkage_m
    predicted_ratio = ((soil.bekker_kc_pa_m_n1 * _points_hull_inv_b(0.1, 0.1) + soil.bekker_kphi_pa_m_n)
                       / (soil.bekker_kc_pa_m_n1 * _points_hull_inv_b(0.2, 0.05) + soil.bekker_kphi_pa_m_n)
                       ) ** (1.0 / soil.bekker_n)
    assert predicted_ratio < 0.75
    assert results[(0.2, 0.05)] / results[(0.1, 0.1)] == pytest.approx(predicted_ratio, rel=0.02)


def test_dragging_a_loaded_plate_follows_the_janosi_curve_to_mohr_coulomb() -> None:
    soil = SoilParams()
    half_x_m, half_y_m = 0.3, 0.1
    length_m = 2 * half_x_m
    mass_kg = 20.0
    weight_n = mass_kg * G_M_S2
    area_m2 = 4 * half_x_m * half_y_m
    rig = PlateRig(ScmTerrain(_params(soil), [_plate(half_x_m, half_y_m, mass_kg)]), mass_kg)
    rig.ramp(0.0, weight_n)
    speed_m_s = 0.05
    k_m = soil.janosi_shear_m
    tan_phi = math.tan(math.radians(soil.mohr_friction_deg))
    ratios = {}
    displacement_m = 0.0
    for _ in range(int(round(5 * k_m / (speed_m_s * DT_S)))):
        rig.step(weight_n, speed_m_s)
        displacement_m += speed_m_s * DT_S
        tau_max_area_n = soil.mohr_cohesion_pa * area_m2 + rig.force[2] * tan_phi   # (c + p tan φ) A
        ratios[round(displacement_m / k_m, 3)] = -rig.force[0] / tau_max_area_n
    # Janosi for a plate: nodes under it from the start slipped s, nodes that entered at the
    # front slipped uniformly 0..s (Wong's integration over the contact length).
    sampled = []
    for s_over_k in (0.25, 0.5, 1.0, 2.0, 3.0, 5.0):
        s = s_over_k * k_m
        expected = ((length_m - s) / length_m * (1 - math.exp(-s / k_m))
                    + (s - k_m * (1 - math.exp(-s / k_m))) / length_m)
        assert ratios[s_over_k] == pytest.approx(expected, rel=0.03, abs=0.005), s_over_k
        sampled.append(ratios[s_over_k])
    assert sampled == sorted(sampled)   # rises (nodes entering at the front add a ripple of one Δ)
    assert sampled[2] == pytest.approx(1 - math.exp(-1), abs=0.05)   # ~63 % of the maximum at s = k
    assert sampled[-1] > 0.9                                          # toward c + p tan φ


def test_unloading_leaves_plastic_sinkage_and_reloading_to_the_same_load_sinks_no_further() -> None:
    soil = SoilParams()
    half_m = 0.1
    mass_kg = 10.0
    weight_n = mass_kg * G_M_S2
    terrain = ScmTerrain(_params(soil), [_plate(half_m, half_m, mass_kg)])
    rig = PlateRig(terrain, mass_kg)
    rig.ramp(0.0, weight_n)
    loaded_sinkage_m = rig.sinkage_m
    plastic_m = terrain.heightmap().plastic_sinkage_m.max()
    elastic_m = weight_n / 0.04 / soil.elastic_k_pa_m
    # Unload: ramp the load off, then lift the plate away and look at the soil.
    rig.ramp(weight_n, 0.0)
    assert rig.sinkage_m == pytest.approx(loaded_sinkage_m - elastic_m, rel=0.02)
    rig.position[0, 2] += 0.05
    rig.velocity[:] = 0.0
    rig.step(0.0)
    snapshot = terrain.heightmap()
    under = (np.abs(snapshot.x_m - OFFSET_M) < half_m) & (np.abs(snapshot.y_m - OFFSET_M) < half_m)
    assert under.sum() == 100 and not snapshot.loaded.any()
    np.testing.assert_allclose(-snapshot.z_m[under], loaded_sinkage_m - elastic_m, rtol=0.02)
    assert -snapshot.z_m[under].max() > 0.8 * loaded_sinkage_m   # mostly permanent: a rut stays
    # Reload: put the plate back on the rut and ramp to the same load.
    rig.position[0, 2] = rig.half_z_m - (loaded_sinkage_m - elastic_m)
    rig.ramp(0.0, weight_n)
    assert rig.sinkage_m == pytest.approx(loaded_sinkage_m, rel=0.005)
    assert terrain.heightmap().plastic_sinkage_m.max() <= plastic_m * 1.002


def test_damping_opposes_vertical_velocity_and_soil_never_pulls() -> None:
    soil = SoilParams()
    terrain = ScmTerrain(_params(soil), [_plate(0.1, 0.1, 10.0)])
    position = np.array([[OFFSET_M, OFFSET_M, 0.01 - 0.005]])
    rotation = np.eye(3)[None]
    zero = np.zeros((1, 3))
    static = terrain.step(position, rotation, zero, zero, DT_S)[0][0, 2]
    # Same sinkage, moving down at 0.1 m/s: the elastic trial is below the yield pressure now,
    # so the only change is R v A.
    down = terrain.step(position, rotation, np.array([[0.0, 0.0, -0.1]]), zero, DT_S)[0][0, 2]
    assert down - static == pytest.approx(soil.damping_r_pa_s_m * 0.1 * 0.04, rel=1e-6)
    up = terrain.step(position, rotation, np.array([[0.0, 0.0, 100.0]]), zero, DT_S)[0][0, 2]
    assert up == 0.0
