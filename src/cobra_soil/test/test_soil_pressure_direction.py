"""numerics.pressure_direction: 'vertical' (Chrono) against 'surface_normal' (the stress along the body's
inward surface normal at the ray hit, on the surface area of the node's cell there).

Frictionless, cohesionless soil (φ = 0, c = 0) so that only the normal stress acts: then the
surface-normal forces of a cylinder's rim all pass through its axis (no torque about it), the
vertical forces equal Chrono's, and a rim pushed forward through the soil meets a backward force
(compaction resistance) that the vertical model cannot produce.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from cobra_soil import (BodyGeometry, BulldozingParams, CollisionShape, GridParams, ScmParams, ScmTerrain,
                        SoilParams)
from cobra_soil.params import ScmNumerics
from cobra_soil.raycast import lowest_entry_z, surface_normal_in
from cobra_soil.shapes import SHAPE_KINDS

AXIS_ALONG_Y = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])   # shape z -> world y
RADIUS_M = 0.2
HALF_WIDTH_M = 0.06


def _terrain(direction: str, max_tilt_deg: float = 60.0) -> ScmTerrain:
    soil = SoilParams(mohr_cohesion_pa=0.0, mohr_friction_deg=0.0)
    params = ScmParams(soil=soil, grid=GridParams(size_x_m=2.0, size_y_m=1.0, spacing_m=0.005),
                       bulldozing=BulldozingParams(enabled=False), numerics=ScmNumerics(pressure_direction=direction,
                                                             max_pressure_tilt_deg=max_tilt_deg))
    wheel = BodyGeometry('wheel', 6.0, (CollisionShape('cylinder', (RADIUS_M, HALF_WIDTH_M), rotation=AXIS_ALONG_Y),))
    return ScmTerrain(params, [wheel])


def _push_forward(direction: str, depth_m: float = 0.02, travel_m: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """The wheel's axle held at a depth, translated (not rolled) forward; last step's force and torque."""
    terrain = _terrain(direction)
    position = np.array([[0.0, 0.0025, RADIUS_M - depth_m]])
    velocity = np.array([[0.1, 0.0, 0.0]])
    force = torque = np.zeros((1, 3))
    for _ in range(int(round(travel_m / 1e-4))):
        force, torque = terrain.step(position, np.eye(3)[None], velocity, np.zeros((1, 3)), 1e-3)
        position[0, 0] += 1e-4
    return force[0].copy(), torque[0].copy()


def test_the_default_is_chronos_vertical_pressure() -> None:
    assert ScmNumerics().pressure_direction == 'vertical' and ScmNumerics().pressure_tilt_tan == 0.0


def test_surface_normal_pressure_is_radial_on_a_rim_and_resists_the_motion_where_vertical_cannot() -> None:
    vertical_force, vertical_torque = _push_forward('vertical')
    normal_force, normal_torque = _push_forward('surface_normal')
    assert vertical_force[2] > 10.0
    assert normal_force[2] == pytest.approx(vertical_force[2], rel=1e-9)       # vertical part is Chrono's
    assert vertical_force[0] == 0.0                                             # no shear (φ = c = 0)
    # front of the rim compacts soil: along its normal that pushes the wheel back (compaction resistance)
    assert normal_force[0] < -0.05 * normal_force[2]
    # radial forces pass through the axle; the vertical ones lean on the front half and twist the wheel
    assert abs(normal_torque[1]) < 1e-9 * normal_force[2] * RADIUS_M
    assert abs(vertical_torque[1]) > 0.02 * vertical_force[2] * RADIUS_M


def test_a_symmetric_rut_gives_no_net_horizontal_force() -> None:
    terrain = _terrain('surface_normal')
    position = np.array([[0.0, 0.0025, RADIUS_M - 0.01]])
    force, torque = terrain.step(position, np.eye(3)[None], np.zeros((1, 3)), np.zeros((1, 3)), 1e-3)
    assert force[0, 2] > 1.0
    assert abs(force[0, 0]) < 1e-9 * force[0, 2] and abs(force[0, 1]) < 1e-9 * force[0, 2]
    assert np.all(np.abs(torque[0]) < 1e-9 * force[0, 2])


@pytest.mark.parametrize('kind', ['sphere', 'capsule', 'cylinder', 'box'])
def test_the_normal_at_a_ray_hit_is_the_shapes_inward_normal(kind: str) -> None:
    rng = np.random.default_rng(3)
    size = {'sphere': np.array([0.05, 0.0, 0.0]), 'capsule': np.array([0.03, 0.06, 0.0]),
            'cylinder': np.array([0.04, 0.07, 0.0]), 'box': np.array([0.05, 0.03, 0.02])}[kind]
    code = SHAPE_KINDS[kind]
    checked = 0
    for _ in range(40):
        rotation = Rotation.random(random_state=rng).as_matrix()
        center = np.array([0.0, 0.0, 0.1])
        x, y = rng.uniform(-0.04, 0.04, 2)
        z = lowest_entry_z(code, size, center, rotation, x, y)
        if not math.isfinite(z):
            continue
        normal = np.array(surface_normal_in(code, size, center, rotation, x, y, z))
        assert np.linalg.norm(normal) == pytest.approx(1.0)
        # a point a little inside along the normal is inside the shape; a little outside is not
        local_in = rotation.T @ (np.array([x, y, z]) + 1e-4 * normal - center)
        local_out = rotation.T @ (np.array([x, y, z]) - 1e-4 * normal - center)
        assert _inside(kind, size, local_in) and not _inside(kind, size, local_out)
        checked += 1
    assert checked >= 10


def _inside(kind: str, size: np.ndarray, p: np.ndarray) -> bool:
    if kind == 'sphere':
        return bool(np.linalg.norm(p) < size[0])
    if kind == 'box':
        return bool(np.all(np.abs(p) < size))
    if kind == 'capsule':
        axis_point = np.array([0.0, 0.0, min(max(p[2], -size[1]), size[1])])
        return bool(np.linalg.norm(p - axis_point) < size[0])
    return bool(math.hypot(p[0], p[1]) < size[0] and abs(p[2]) < size[1])


def test_the_tilt_bound_caps_the_horizontal_part() -> None:
    terrain = _terrain('surface_normal', max_tilt_deg=10.0)
    position = np.array([[0.0, 0.0025, RADIUS_M - 0.03]])
    velocity = np.array([[0.1, 0.0, 0.0]])
    for _ in range(300):
        force, _ = terrain.step(position, np.eye(3)[None], velocity, np.zeros((1, 3)), 1e-3)
        position[0, 0] += 1e-4
    assert -force[0, 0] <= math.tan(math.radians(10.0)) * force[0, 2] * (1 + 1e-9)
