"""Sparse SCM height field: 16 x 16-node tiles allocated on first contact.

The patch's node grid is implicit (node (i, j) at x0 + i Δ, y0 + j Δ); a small dense directory
(one int per tile, 9 m x 8 m at Δ = 0.01 m is 2850 entries) maps a tile to its slot in a node
pool that only grows when soil is touched. Untouched nodes read as the undeformed level. A node
lookup is two shifts and one directory read, so a step's cost depends only on the nodes under
the bodies, never on how much terrain was disturbed before (no map whose size slows lookups).
"""

from __future__ import annotations

import numpy as np
from numba import njit

TILE_SHIFT = 4
TILE_NODES = 1 << TILE_SHIFT           # 16 nodes per tile side
TILE_MASK = TILE_NODES - 1
NODES_PER_TILE = TILE_NODES * TILE_NODES

# Float fields of a node (columns of HeightField.node_f).
F_LEVEL_INITIAL = 0   # level the sinkage is measured from (raised/lowered by bulldozing) [m]
F_LEVEL = 1           # current surface height [m]
F_SINKAGE_PLASTIC = 2  # permanent sinkage [m]
F_SIGMA_YIELD = 3     # largest pressure this node yielded at [Pa]
F_SHEAR = 4           # Janosi shear displacement j [m]
F_SIGMA = 5           # this step's normal pressure incl. damping [Pa]
F_TAU = 6             # this step's shear stress [Pa]
F_SINKAGE = 7         # total sinkage (loaded: this step's; else plastic) [m]
F_STEP_PLASTIC = 8    # plastic sinkage added this step [m]
N_FLOAT_FIELDS = 9

# Integer fields (columns of HeightField.node_i); stamps avoid clearing flags every step.
I_LOADED_STEP = 0     # step index at which the node was last under load
I_EROSION_STEP = 1    # step index at which the node was last in the erosion domain
I_RIM_MARK = 2        # unique (step, patch) code of the last patch rim it belonged to
I_BODY = 3            # body that loaded it last
N_INT_FIELDS = 4


@njit(cache=True, inline='always')
def node_slot(i: int, j: int, tile_dir: np.ndarray) -> int:
    """Pool row of node (i, j), or -1 while its tile is unallocated (undeformed soil)."""
    tile = tile_dir[i >> TILE_SHIFT, j >> TILE_SHIFT]
    if tile < 0:
        return -1
    return tile * NODES_PER_TILE + ((i & TILE_MASK) << TILE_SHIFT) + (j & TILE_MASK)


@njit(cache=True)
def allocate_tiles_around(node_i_index: np.ndarray, node_j_index: np.ndarray, count: int, radius_nodes: int,
                          max_i: int, max_j: int, tile_dir: np.ndarray, tiles_used: np.ndarray,
                          tile_capacity: int) -> int:
    """Allocate every tile within `radius_nodes` of the given nodes; returns the tiles still needed
    beyond `tile_capacity` (0 when all fit; then the caller grows the pool and calls again)."""
    shortfall = 0
    for k in range(count):
        i0 = max(node_i_index[k] - radius_nodes, 0) >> TILE_SHIFT
        i1 = min(node_i_index[k] + radius_nodes, max_i) >> TILE_SHIFT
        j0 = max(node_j_index[k] - radius_nodes, 0) >> TILE_SHIFT
        j1 = min(node_j_index[k] + radius_nodes, max_j) >> TILE_SHIFT
        for ti in range(i0, i1 + 1):
            for tj in range(j0, j1 + 1):
                if tile_dir[ti, tj] < 0:
                    if tiles_used[0] < tile_capacity:
                        tile_dir[ti, tj] = tiles_used[0]
                        tiles_used[0] += 1
                    else:
                        shortfall += 1
    return shortfall


class HeightField:
    """Tile directory + node pool of one flat patch (frame: world x, y; z up)."""

    def __init__(self, cells_x: int, cells_y: int, spacing_m: float, min_corner_xy_m: tuple[float, float],
                 reference_level_m: float, initial_tile_capacity: int = 16) -> None:
        self.max_i = cells_x             # node indices 0..cells_x inclusive
        self.max_j = cells_y
        self.spacing_m = spacing_m
        self.min_corner_xy_m = min_corner_xy_m
        self.reference_level_m = reference_level_m
        self.tile_dir = np.full(((cells_x >> TILE_SHIFT) + 1, (cells_y >> TILE_SHIFT) + 1), -1, dtype=np.int64)
        self.tiles_used = np.zeros(1, dtype=np.int64)
        self.tile_capacity = 0
        self.node_f = np.empty((0, N_FLOAT_FIELDS))
        self.node_i = np.empty((0, N_INT_FIELDS), dtype=np.int64)
        self.grow(initial_tile_capacity)

    def _blank_nodes(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        f = np.zeros((count, N_FLOAT_FIELDS))
        f[:, F_LEVEL_INITIAL] = self.reference_level_m
        f[:, F_LEVEL] = self.reference_level_m
        i = np.full((count, N_INT_FIELDS), -1, dtype=np.int64)
        return f, i

    def grow(self, min_tile_capacity: int) -> None:
        """Make room for at least `min_tile_capacity` tiles (doubling: amortised O(1) per tile)."""
        if min_tile_capacity <= self.tile_capacity:
            return
        new_capacity = max(min_tile_capacity, 2 * self.tile_capacity)
        f, i = self._blank_nodes((new_capacity - self.tile_capacity) * NODES_PER_TILE)
        self.node_f = np.concatenate([self.node_f, f])
        self.node_i = np.concatenate([self.node_i, i])
        self.tile_capacity = new_capacity

    def ensure_allocated(self, node_i_index: np.ndarray, node_j_index: np.ndarray, count: int,
                         radius_nodes: int) -> None:
        while True:
            shortfall = allocate_tiles_around(node_i_index, node_j_index, count, radius_nodes, self.max_i,
                                              self.max_j, self.tile_dir, self.tiles_used, self.tile_capacity)
            if shortfall == 0:
                return
            self.grow(self.tile_capacity + shortfall)

    @property
    def allocated_tiles(self) -> int:
        return int(self.tiles_used[0])

    @property
    def allocated_nodes(self) -> int:
        return self.allocated_tiles * NODES_PER_TILE

    def allocated_node_indices(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(i, j, pool row) of every node in an allocated tile that lies inside the patch."""
        ti, tj = np.nonzero(self.tile_dir >= 0)
        tiles = self.tile_dir[ti, tj]
        local = np.arange(NODES_PER_TILE)
        i = (ti[:, None] << TILE_SHIFT) + (local[None, :] >> TILE_SHIFT)
        j = (tj[:, None] << TILE_SHIFT) + (local[None, :] & TILE_MASK)
        rows = tiles[:, None] * NODES_PER_TILE + local[None, :]
        inside = (i <= self.max_i) & (j <= self.max_j)
        return i[inside], j[inside], rows[inside]

    def node_xy_m(self, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (self.min_corner_xy_m[0] + i * self.spacing_m, self.min_corner_xy_m[1] + j * self.spacing_m)
