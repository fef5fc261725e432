"""Sparse SCM height field without an edge: 16 x 16-node tiles allocated on first contact.

The node grid is implicit and unbounded (node (i, j) at x0 + i Δ, y0 + j Δ for any integers
i, j, negative too); a small dense directory (one int per tile; the configured patch, 9 m x 8 m
at Δ = 0.01 m, is 2850 entries) maps a tile to its slot in a node pool that only grows when soil
is touched. The directory covers a rectangle of tiles (`tile_origin` is its lowest tile index)
and grows, copying only itself, when a body reaches soil beyond it, so soil exists wherever the
robot goes; the patch size only sets the directory's first extent. Untouched nodes, inside or
outside the directory, read as the undeformed level. A node lookup is two shifts, two
subtractions and one directory read, so a step's cost depends only on the nodes under the
bodies, never on how much terrain was disturbed before (no map whose size slows lookups).
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
F_TAU_X = 9           # shear stress the node holds on the body it carries, world x [Pa] (elastic-plastic)
F_TAU_Y = 10          # ... world y [Pa]
N_FLOAT_FIELDS = 11

# Integer fields (columns of HeightField.node_i); stamps avoid clearing flags every step.
I_LOADED_STEP = 0     # step index at which the node was last under load
I_EROSION_STEP = 1    # step index at which the node was last in the erosion domain
I_RIM_MARK = 2        # unique (step, patch) code of the last patch rim it belonged to
I_BODY = 3            # body that loaded it last
N_INT_FIELDS = 4


# Node indices stay within +-MAX_NODE_INDEX (hash keys and shifts stay inside int64): +-21000 km at
# Δ = 0.02 m, +-107 km at the smallest spacing allowed (1e-4 m).
MAX_NODE_INDEX = (1 << 30) - 1
_KEY_OFFSET = 1 << 30


@njit(cache=True, inline='always')
def node_key(i: int, j: int) -> int:
    """A unique non-negative int64 for node (i, j) (|i|, |j| <= MAX_NODE_INDEX)."""
    return ((i + _KEY_OFFSET) << 31) + (j + _KEY_OFFSET)


@njit(cache=True, inline='always')
def node_slot(i: int, j: int, tile_dir: np.ndarray, tile_origin: np.ndarray) -> int:
    """Pool row of node (i, j), or -1 while its tile is unallocated (undeformed soil)."""
    ti = (i >> TILE_SHIFT) - tile_origin[0]
    tj = (j >> TILE_SHIFT) - tile_origin[1]
    if ti < 0 or tj < 0 or ti >= tile_dir.shape[0] or tj >= tile_dir.shape[1]:
        return -1
    tile = tile_dir[ti, tj]
    if tile < 0:
        return -1
    return tile * NODES_PER_TILE + ((i & TILE_MASK) << TILE_SHIFT) + (j & TILE_MASK)


@njit(cache=True)
def allocate_tiles_around(node_i_index: np.ndarray, node_j_index: np.ndarray, count: int, radius_nodes: int,
                          tile_dir: np.ndarray, tile_origin: np.ndarray, tiles_used: np.ndarray,
                          tile_capacity: int) -> int:
    """Allocate every tile within `radius_nodes` of the given nodes (the directory must cover them);
    returns the tiles still needed beyond `tile_capacity` (0 when all fit; then the caller grows
    the pool and calls again)."""
    shortfall = 0
    for k in range(count):
        i0 = ((node_i_index[k] - radius_nodes) >> TILE_SHIFT) - tile_origin[0]
        i1 = ((node_i_index[k] + radius_nodes) >> TILE_SHIFT) - tile_origin[0]
        j0 = ((node_j_index[k] - radius_nodes) >> TILE_SHIFT) - tile_origin[1]
        j1 = ((node_j_index[k] + radius_nodes) >> TILE_SHIFT) - tile_origin[1]
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
    """Tile directory + node pool of unbounded flat soil (frame: world x, y; z up).

    `cells_x` x `cells_y` cells from `min_corner_xy_m` (the configured patch) is only the
    directory's first extent; node (0, 0) sits at that corner.
    """

    def __init__(self, cells_x: int, cells_y: int, spacing_m: float, min_corner_xy_m: tuple[float, float],
                 reference_level_m: float, initial_tile_capacity: int = 16) -> None:
        self.spacing_m = spacing_m
        self.min_corner_xy_m = min_corner_xy_m
        self.reference_level_m = reference_level_m
        self.tile_origin = np.zeros(2, dtype=np.int64)   # tile index of tile_dir[0, 0]
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

    def cover_tiles(self, tile_i_min: int, tile_i_max: int, tile_j_min: int, tile_j_max: int) -> None:
        """Grow the directory to cover these tile indices (inclusive), with room to spare: each
        growth at least doubles the extent on the side that grows, so a body walking straight
        re-copies the directory O(log distance) times."""
        lo_i, lo_j = int(self.tile_origin[0]), int(self.tile_origin[1])
        hi_i, hi_j = lo_i + self.tile_dir.shape[0] - 1, lo_j + self.tile_dir.shape[1] - 1
        if tile_i_min >= lo_i and tile_j_min >= lo_j and tile_i_max <= hi_i and tile_j_max <= hi_j:
            return
        span_i, span_j = self.tile_dir.shape
        new_lo_i = min(lo_i, tile_i_min - span_i) if tile_i_min < lo_i else lo_i
        new_hi_i = max(hi_i, tile_i_max + span_i) if tile_i_max > hi_i else hi_i
        new_lo_j = min(lo_j, tile_j_min - span_j) if tile_j_min < lo_j else lo_j
        new_hi_j = max(hi_j, tile_j_max + span_j) if tile_j_max > hi_j else hi_j
        grown = np.full((new_hi_i - new_lo_i + 1, new_hi_j - new_lo_j + 1), -1, dtype=np.int64)
        grown[lo_i - new_lo_i:lo_i - new_lo_i + span_i, lo_j - new_lo_j:lo_j - new_lo_j + span_j] = self.tile_dir
        self.tile_dir = grown
        self.tile_origin = np.array([new_lo_i, new_lo_j], dtype=np.int64)

    def ensure_allocated(self, node_i_index: np.ndarray, node_j_index: np.ndarray, count: int,
                         radius_nodes: int, bounds: tuple[int, int, int, int] | None = None) -> None:
        """Allocate the tiles within `radius_nodes` of the first `count` nodes (growing the
        directory and the pool as needed); `bounds` = (least i, largest i, least j, largest j)
        of those nodes when the caller knows them."""
        if count == 0:
            return
        if bounds is None:
            bounds = (int(node_i_index[:count].min()), int(node_i_index[:count].max()),
                      int(node_j_index[:count].min()), int(node_j_index[:count].max()))
        self.cover_tiles((bounds[0] - radius_nodes) >> TILE_SHIFT, (bounds[1] + radius_nodes) >> TILE_SHIFT,
                         (bounds[2] - radius_nodes) >> TILE_SHIFT, (bounds[3] + radius_nodes) >> TILE_SHIFT)
        while True:
            shortfall = allocate_tiles_around(node_i_index, node_j_index, count, radius_nodes, self.tile_dir,
                                              self.tile_origin, self.tiles_used, self.tile_capacity)
            if shortfall == 0:
                return
            self.grow(self.tile_capacity + shortfall)

    @property
    def allocated_tiles(self) -> int:
        return int(self.tiles_used[0])

    @property
    def allocated_nodes(self) -> int:
        return self.allocated_tiles * NODES_PER_TILE

    def allocated_tile_indices(self) -> np.ndarray:
        """[k, 2] tile indices (ti, tj) of the allocated tiles (tile of node (i, j): (i >> 4, j >> 4))."""
        return np.argwhere(self.tile_dir >= 0) + self.tile_origin

    def allocated_node_indices(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(i, j, pool row) of every node in an allocated tile."""
        ti, tj = np.nonzero(self.tile_dir >= 0)
        tiles = self.tile_dir[ti, tj]
        local = np.arange(NODES_PER_TILE)
        i = ((ti + self.tile_origin[0])[:, None] << TILE_SHIFT) + (local[None, :] >> TILE_SHIFT)
        j = ((tj + self.tile_origin[1])[:, None] << TILE_SHIFT) + (local[None, :] & TILE_MASK)
        rows = tiles[:, None] * NODES_PER_TILE + local[None, :]
        return i.ravel(), j.ravel(), rows.ravel()

    def node_xy_m(self, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (self.min_corner_xy_m[0] + i * self.spacing_m, self.min_corner_xy_m[1] + j * self.spacing_m)
