"""SCM bulldozing and the sparse height field: volume conserved, berms at the repose angle, memory
and per-step work bounded by the area under the bodies."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cobra_soil import (BodyGeometry, BulldozingParams, CollisionShape, GridParams, ScmParams, ScmTerrain,
                            SoilParams)
from cobra_soil.heightfield import NODES_PER_TILE, TILE_NODES

DT_S = 1e-3
SPACING_M = 0.02


def _press_plate(terrain: ScmTerrain, depth_m: float, speed_m_s: float, hold_steps: int) -> list[float]:
    """Push a level plate straight down (prescribed motion), hold it; soil volume after each step."""
    position = np.array([[0.5 * SPACING_M, 0.5 * SPACING_M, 0.01]])
    rotation = np.eye(3)[None]
    velocity = np.array([[0.0, 0.0, -speed_m_s]])
    omega = np.zeros((1, 3))
    volumes = []
    steps = int(round(depth_m / (speed_m_s * DT_S)))
    for _ in range(steps):
        terrain.step(position, rotation, velocity, omega, DT_S)
        position[0, 2] -= speed_m_s * DT_S
        volumes.append(terrain.soil_volume_m3())
    velocity[:] = 0.0
    for _ in range(hold_steps):
        terrain.step(position, rotation, velocity, omega, DT_S)
        volumes.append(terrain.soil_volume_m3())
    return volumes


def _dense(terrain: ScmTerrain) -> tuple[np.ndarray, np.ndarray]:
    """Plastic surface (level without the elastic sinkage of loaded nodes) and loaded flags on the
    stored nodes' bounding box (other nodes are undeformed)."""
    snapshot = terrain.heightmap()
    i0, j0 = snapshot.i.min() - 1, snapshot.j.min() - 1
    shape = (snapshot.i.max() - i0 + 2, snapshot.j.max() - j0 + 2)
    level = np.full(shape, terrain.params.grid.reference_level_m)
    loaded = np.zeros(shape, dtype=bool)
    level[snapshot.i - i0, snapshot.j - j0] = snapshot.z_m + snapshot.sinkage_m - snapshot.plastic_sinkage_m
    loaded[snapshot.i - i0, snapshot.j - j0] = snapshot.loaded
    return level, loaded


def _params(bulldozing: BulldozingParams, size_m: float = 2.0) -> ScmParams:
    return ScmParams(soil=SoilParams(), grid=GridParams(size_x_m=size_m, size_y_m=size_m, spacing_m=SPACING_M),
                     bulldozing=bulldozing)


def test_bulldozing_conserves_volume_and_erodes_berms_to_the_erosion_angle() -> None:
    bulldozing = BulldozingParams()   # thesis: 25°, flow factor 1, 2 iterations, 3 rings
    assert bulldozing.erosion_iterations == 2 and bulldozing.erosion_propagations == 3
    plate = BodyGeometry('plate', 5.0, (CollisionShape('box', (0.06, 0.06, 0.01)),))
    terrain = ScmTerrain(_params(bulldozing), [plate])
    volumes = _press_plate(terrain, depth_m=0.02, speed_m_s=0.05, hold_steps=20)
    # Every cubic metre pressed out from under the plate is somewhere in the berm.
    assert np.max(np.abs(volumes)) < 1e-12
    level, loaded = _dense(terrain)
    rut_m3 = -level[loaded].sum() * SPACING_M ** 2
    berm_m3 = level[level > 0].sum() * SPACING_M ** 2
    assert rut_m3 > 1e-4
    assert berm_m3 == pytest.approx(rut_m3, rel=1e-6)
    # No slope above the erosion angle between neighbouring nodes that are not under the plate.
    limit_m = SPACING_M * math.tan(math.radians(bulldozing.erosion_angle_deg))
    for axis in (0, 1):
        step_m = np.abs(np.diff(level, axis=axis))
        free = ~(loaded[1:, :] | loaded[:-1, :]) if axis == 0 else ~(loaded[:, 1:] | loaded[:, :-1])
        assert step_m[free].max() <= limit_m * (1 + 1e-3)
    # ...while the berm is really there and the rut wall under the plate's edge stays steep.
    assert level.max() > 0.2 * limit_m
    assert np.abs(np.diff(level, axis=0)).max() > limit_m


def test_flow_factor_scales_the_moved_volume_and_disabling_bulldozing_moves_none() -> None:
    plate = BodyGeometry('plate', 5.0, (CollisionShape('box', (0.06, 0.06, 0.01)),))
    rut_and_volume = {}
    for name, bulldozing in (('half', BulldozingParams(flow_factor=0.5)), ('off', BulldozingParams(enabled=False))):
        terrain = ScmTerrain(_params(bulldozing), [plate])
        volumes = _press_plate(terrain, depth_m=0.01, speed_m_s=0.05, hold_steps=2)
        level, loaded = _dense(terrain)
        rut_and_volume[name] = (-level[loaded].sum() * SPACING_M ** 2, volumes[-1])
    rut, volume = rut_and_volume['half']
    assert volume == pytest.approx(-0.5 * rut, rel=1e-6)   # half the pressed volume reappears
    rut, volume = rut_and_volume['off']
    assert volume == pytest.approx(-rut, rel=1e-9)          # pure compaction


def _link(name: str) -> BodyGeometry:
    """A COBRA module: cylinder r 0.045 m, 0.136 m long, axis along the body x."""
    quarter_turn_about_y = ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0), (-1.0, 0.0, 0.0))
    return BodyGeometry(name, 0.46, (CollisionShape('cylinder', (0.045, 0.068), rotation=quarter_turn_about_y),))


def test_a_full_patch_with_a_body_in_one_corner_allocates_only_the_touched_region() -> None:
    params = ScmParams(grid=GridParams(size_x_m=9.0, size_y_m=8.0, spacing_m=SPACING_M))
    terrain = ScmTerrain(params, [_link('link')])
    position = np.array([[-4.3, -3.8, 0.045 - 0.01]])   # 1 cm into the soil near the (-x, -y) corner
    rotation = np.eye(3)[None]
    zero = np.zeros((1, 3))
    for _ in range(5):
        terrain.step(position, rotation, zero, zero, DT_S)
    snapshot = terrain.heightmap()
    assert snapshot.loaded.sum() > 10
    all_nodes = (params.grid.cells_x + 1) * (params.grid.cells_y + 1)
    # Touched region: loaded nodes, grown by the bulldozing reach (rim + rings + 1), rounded to tiles.
    reach = params.bulldozing.erosion_propagations + 2
    loaded_i, loaded_j = snapshot.i[snapshot.loaded], snapshot.j[snapshot.loaded]
    tiles_i = np.arange((loaded_i.min() - reach) // TILE_NODES, (loaded_i.max() + reach) // TILE_NODES + 1)
    tiles_j = np.arange((loaded_j.min() - reach) // TILE_NODES, (loaded_j.max() + reach) // TILE_NODES + 1)
    assert terrain.field.allocated_nodes <= len(tiles_i) * len(tiles_j) * NODES_PER_TILE
    assert terrain.field.allocated_nodes < 0.01 * all_nodes
    allocated_tiles = terrain.field.allocated_tile_indices()
    assert set(allocated_tiles[:, 0]) <= set(tiles_i) and set(allocated_tiles[:, 1]) <= set(tiles_j)


def test_step_work_depends_on_the_nodes_under_the_body_not_on_the_disturbed_area() -> None:
    params = ScmParams(grid=GridParams(size_x_m=9.0, size_y_m=8.0, spacing_m=SPACING_M))
    terrain = ScmTerrain(params, [_link('link')])
    rotation = np.eye(3)[None]
    zero = np.zeros((1, 3))

    def press_at(x_m: float, y_m: float) -> tuple[int, int, int]:
        position = np.array([[x_m, y_m, 0.045 - 0.01]])
        terrain.step(position, rotation, zero, zero, DT_S)
        stats = terrain.last_stats
        return stats.ray_casts, stats.hits, stats.erosion_nodes

    before = press_at(-4.0, -3.5)
    nodes_before = terrain.field.allocated_nodes
    for k in range(300):   # plough a 6 m furrow across the patch
        press_at(-3.0 + 0.02 * k, 0.0)
    assert terrain.field.allocated_nodes > 10 * nodes_before
    # The same press on fresh soil elsewhere casts the same rays and touches the same nodes.
    assert press_at(3.0, 3.5) == before
