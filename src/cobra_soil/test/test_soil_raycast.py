"""Analytic vertical rays against the primitives, and how node forces become body wrenches."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from cobra_soil import BodyGeometry, CollisionShape, GridParams, ScmParams, ScmTerrain
from cobra_soil.raycast import body_aabbs, lowest_entry_z
from cobra_soil.shapes import BOX, CAPSULE, CYLINDER, SPHERE


def _inside(kind: int, size: np.ndarray, local: np.ndarray) -> np.ndarray:
    """Points [k, 3] in the shape frame inside the shape (brute-force reference)."""
    x, y, z = local.T
    if kind == SPHERE:
        return x * x + y * y + z * z <= size[0] ** 2
    if kind == BOX:
        return (np.abs(x) <= size[0]) & (np.abs(y) <= size[1]) & (np.abs(z) <= size[2])
    radial = x * x + y * y <= size[0] ** 2
    if kind == CYLINDER:
        return radial & (np.abs(z) <= size[1])
    zc = np.clip(z, -size[1], size[1])
    return x * x + y * y + (z - zc) ** 2 <= size[0] ** 2


@pytest.mark.parametrize('kind', [SPHERE, CAPSULE, CYLINDER, BOX])
def test_lowest_entry_matches_a_dense_sampling_of_the_vertical_line(kind: int) -> None:
    rng = np.random.default_rng(kind)
    heights = np.linspace(-0.5, 0.5, 20001)   # 50 µm samples
    checked_hits = 0
    for _ in range(40):
        size = np.array([0.04, 0.07, 0.03]) * rng.uniform(0.5, 1.5, 3)
        center = rng.uniform(-0.05, 0.05, 3)
        rotation = Rotation.random(random_state=rng).as_matrix()
        for _ in range(10):
            x, y = rng.uniform(-0.07, 0.07, 2)
            z = lowest_entry_z(kind, size, center, rotation, x, y)
            world = np.column_stack([np.full_like(heights, x), np.full_like(heights, y), heights])
            inside = _inside(kind, size, (world - center) @ rotation)
            if not inside.any():
                assert z == np.inf
                continue
            checked_hits += 1
            assert z == pytest.approx(heights[np.argmax(inside)], abs=6e-5)
    assert checked_hits > 80


def test_aabb_bounds_every_shape() -> None:
    rng = np.random.default_rng(7)
    kinds = np.array([SPHERE, CAPSULE, CYLINDER, BOX])
    size = np.tile([0.04, 0.07, 0.03], (4, 1))
    center = rng.uniform(-0.1, 0.1, (4, 3))
    rotation = Rotation.random(4, random_state=rng).as_matrix()
    aabb = np.zeros((4, 6))
    body_aabbs(kinds, size, center, rotation, np.arange(5), 0.0, aabb)
    for s, kind in enumerate(kinds):
        samples = rng.uniform(-0.2, 0.2, (200000, 3))
        points = samples[_inside(int(kind), size[s], samples)] @ rotation[s].T + center[s]
        assert np.all(points >= aabb[s, :3] - 1e-12) and np.all(points <= aabb[s, 3:] + 1e-12)
        assert np.all(points.min(axis=0) - aabb[s, :3] < 0.01)   # and is tight


def _terrain(bodies: list[BodyGeometry]) -> ScmTerrain:
    return ScmTerrain(ScmParams(grid=GridParams(size_x_m=2.0, size_y_m=2.0, spacing_m=0.02)), bodies)


def test_torque_is_about_the_body_origin() -> None:
    # A plate whose shape sits 0.3 m ahead of the body origin: the soil's push-up acts there.
    plate = BodyGeometry('arm', 1.0, (CollisionShape('box', (0.1, 0.1, 0.01), position_m=(0.3, 0.0, 0.0)),))
    terrain = _terrain([plate])
    position = np.array([[0.01, 0.01, 0.01 - 0.004]])
    zero = np.zeros((1, 3))
    force, torque = terrain.step(position, np.eye(3)[None], zero, zero, 1e-3)
    assert force[0, 2] > 0
    np.testing.assert_allclose(torque[0], [0.0, -0.3 * force[0, 2], 0.0], atol=1e-9 * force[0, 2])


def test_a_node_under_two_bodies_loads_only_the_lower_one() -> None:
    low = BodyGeometry('low', 1.0, (CollisionShape('box', (0.1, 0.1, 0.01)),))
    high = BodyGeometry('high', 1.0, (CollisionShape('box', (0.1, 0.1, 0.01)),))
    terrain = _terrain([low, high])
    position = np.array([[0.01, 0.01, 0.01 - 0.004], [0.01, 0.01, 0.01 - 0.002]])
    zeros = np.zeros((2, 3))
    force, _ = terrain.step(position, np.repeat(np.eye(3)[None], 2, axis=0), zeros, zeros, 1e-3)
    assert force[0, 2] > 0 and force[1, 2] == 0.0
    assert terrain.last_stats.hits == 100
    assert list(terrain.contact_nodes_per_body) == [100, 0]
    assert terrain.max_sinkage_per_body_m[0] == pytest.approx(0.004)
    assert terrain.contact_patch_areas_m2() == pytest.approx([0.18 ** 2])   # hull of the node points


def test_slip_drags_the_soil_shear_against_the_motion_and_rotation_adds_its_point_velocity() -> None:
    plate = BodyGeometry('plate', 1.0, (CollisionShape('box', (0.1, 0.1, 0.01)),))
    terrain = _terrain([plate])
    position = np.array([[0.01, 0.01, 0.01 - 0.004]])
    rotation = np.eye(3)[None]
    zero = np.zeros((1, 3))
    terrain.step(position, rotation, zero, zero, 1e-3)
    force, _ = terrain.step(position, rotation, np.array([[0.1, -0.1, 0.0]]), zero, 1e-3)
    assert force[0, 0] < 0 and force[0, 1] > 0 and force[0, 0] == pytest.approx(-force[0, 1])
    # Spinning about the vertical through the origin (fresh soil: the nodes above still hold the
    # stress of that slip): shear resists the spin, no net force.
    terrain = _terrain([plate])
    terrain.step(position, rotation, zero, zero, 1e-3)
    terrain.step(position, rotation, zero, np.array([[0.0, 0.0, 2.0]]), 1e-3)   # j > 0 everywhere but the centre
    force, torque = terrain.step(position, rotation, zero, np.array([[0.0, 0.0, 2.0]]), 1e-3)
    assert torque[0, 2] < 0
    np.testing.assert_allclose(force[0, :2], 0.0, atol=1e-9 * abs(torque[0, 2]))


def test_shear_displacement_is_kept_after_release_as_chrono_unless_reset_is_asked() -> None:
    from dataclasses import replace
    plate = BodyGeometry('plate', 1.0, (CollisionShape('box', (0.1, 0.1, 0.01)),))
    shear_after_regrip = {}
    for reset in (False, True):
        params = ScmParams(grid=GridParams(size_x_m=2.0, size_y_m=2.0, spacing_m=0.02))
        params = replace(params, numerics=replace(params.numerics, reset_shear_on_release=reset))
        terrain = ScmTerrain(params, [plate])
        down = np.array([[0.01, 0.01, 0.01 - 0.004]])
        up = down + [[0.0, 0.0, 0.05]]
        rotation = np.eye(3)[None]
        zero = np.zeros((1, 3))
        slide = np.array([[0.2, 0.0, 0.0]])
        for _ in range(100):   # 2 cm of slip with the plate held in place (a spinning wheel)
            terrain.step(down, rotation, slide, zero, 1e-3)
        terrain.step(up, rotation, zero, zero, 1e-3)     # released
        force, _ = terrain.step(down, rotation, np.array([[0.01, 0.0, 0.0]]), zero, 1e-3)   # gripped again
        shear_after_regrip[reset] = -force[0, 0]
    # Kept: j = 2 cm -> 1 - e^(-0.5) of the maximum at once; reset: j = 10 µm -> almost nothing.
    assert shear_after_regrip[False] > 30 * shear_after_regrip[True] > 0


def test_step_refuses_arrays_of_the_wrong_shape() -> None:
    terrain = _terrain([BodyGeometry('a', 1.0, (CollisionShape('sphere', (0.05,)),))])
    with pytest.raises(ValueError, match=r'rotation has shape \(1, 3\), expected \(1, 3, 3\)'):
        terrain.step(np.zeros((1, 3)), np.zeros((1, 3)), np.zeros((1, 3)), np.zeros((1, 3)), 1e-3)


def test_row_culling_finds_exactly_the_hits_of_the_full_active_box() -> None:
    from cobra_soil import raycast
    rng = np.random.default_rng(3)
    kinds = ('sphere', 'capsule', 'cylinder', 'box')
    bodies = [BodyGeometry(f'b{k}', 1.0, (CollisionShape(kinds[k % 4], (0.03, 0.06, 0.02)),
                                          CollisionShape(kinds[(k + 1) % 4], (0.02, 0.04, 0.03),
                                                         position_m=(0.05, 0.0, 0.0))))
              for k in range(8)]
    terrain = _terrain(bodies)
    zeros = np.zeros((8, 3))
    rotations = Rotation.random(8, random_state=rng).as_matrix()
    positions = np.column_stack([rng.uniform(-0.6, 0.6, (8, 2)), rng.uniform(-0.01, 0.04, 8)])
    for _ in range(3):   # make ruts and berms first
        terrain.step(positions, rotations, zeros, zeros, 1e-3)
    rotations = Rotation.random(8, random_state=rng).as_matrix()
    hit_sets = []
    for row_cull in (True, False):
        field = terrain.field
        args = (terrain.shapes.kind, terrain.shapes.size_m, terrain._shape_center, terrain._shape_rotation,
                terrain.shapes.body_start, terrain._aabb, terrain.min_x_m, terrain.min_y_m, 0.02, 0.0,
                terrain.max_level_m, 0.1, 0.4, field.tile_dir, field.tile_origin, field.node_f, terrain._hash_key,
                terrain._hash_z, terrain._hash_body, terrain._hash_shape, terrain._hit_slots, terrain._hit_i, terrain._hit_j,
                terrain._counters)
        raycast.world_shape_poses(positions, rotations, terrain.shapes.position_m, terrain.shapes.rotation,
                                  terrain.shapes.body_start, terrain._shape_center, terrain._shape_rotation)
        raycast.body_aabbs(terrain.shapes.kind, terrain.shapes.size_m, terrain._shape_center,
                           terrain._shape_rotation, terrain.shapes.body_start, 0.0, terrain._aabb)
        n = raycast.cast_rays(*args, row_cull)
        slots = terrain._hit_slots[:n]
        hit_sets.append((set(zip(terrain._hit_i[:n], terrain._hit_j[:n], terrain._hash_body[slots],
                                 terrain._hash_z[slots])), int(terrain._counters[1])))
    (culled, culled_rays), (full, full_rays) = hit_sets
    assert len(full) > 50
    assert culled == full and culled_rays < full_rays
