"""Soil Contact Model (Chrono SCM) for rigid bodies made of primitives: pressure, shear, bulldozing.

One `ScmTerrain.step` does what Chrono's SCMLoader::ComputeInternalForces does, from the body
state at the start of the step (explicit coupling): reset → rays → contact patches → per node
pressure, damping and shear → force and torque per body → bulldozing. What matches Chrono and
what differs on purpose, and why: the package README.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from .bulldozing import bulldoze
from .heightfield import (F_LEVEL, F_LEVEL_INITIAL, F_SHEAR, F_SIGMA, F_SIGMA_YIELD, F_SINKAGE,
                          F_SINKAGE_PLASTIC, F_STEP_PLASTIC, F_TAU, F_TAU_X, F_TAU_Y, I_BODY, I_LOADED_STEP,
                          MAX_NODE_INDEX, TILE_NODES, TILE_SHIFT, HeightField, allocate_tiles_around, node_key,
                          node_slot)
from .params import ScmParams
from .raycast import body_aabbs, cast_rays, hash_find, surface_normal_in, world_shape_poses
from .shapes import BodyGeometry, check_body_state, pack_shapes

_DI = (1, -1, 0, 0)
_DJ = (0, 0, 1, -1)


@njit(cache=True, inline='always')
def _turns_left(points_i: np.ndarray, points_j: np.ndarray, o: int, a: int, b: int) -> bool:
    """o -> a -> b turns counter-clockwise (a stays on the hull being built)."""
    ax = points_i[a] - points_i[o]
    ay = points_j[a] - points_j[o]
    bx = points_i[b] - points_i[o]
    by = points_j[b] - points_j[o]
    return ax * by - ay * bx > 0


@njit(cache=True)
def _hull_area_perimeter(points_i: np.ndarray, points_j: np.ndarray, scratch: np.ndarray) -> tuple[float, float]:
    """Area and perimeter (grid units) of the convex hull of grid points sorted by (i, j)."""
    n = points_i.shape[0]
    if n < 3:
        if n == 2:
            length = math.hypot(points_i[1] - points_i[0], points_j[1] - points_j[0])
            return 0.0, 2.0 * length
        return 0.0, 0.0
    size = 0
    for k in range(n):   # lower hull (Andrew's monotone chain)
        while size >= 2 and not _turns_left(points_i, points_j, scratch[size - 2], scratch[size - 1], k):
            size -= 1
        scratch[size] = k
        size += 1
    lower = size + 1
    for k in range(n - 2, -1, -1):   # upper hull
        while size >= lower and not _turns_left(points_i, points_j, scratch[size - 2], scratch[size - 1], k):
            size -= 1
        scratch[size] = k
        size += 1
    area2 = 0.0
    perimeter = 0.0
    for k in range(size - 1):   # last entry repeats the first point
        a = scratch[k]
        b = scratch[k + 1]
        area2 += points_i[a] * points_j[b] - points_i[b] * points_j[a]
        perimeter += math.hypot(points_i[b] - points_i[a], points_j[b] - points_j[a])
    return 0.5 * abs(area2), perimeter


@njit(cache=True)
def contact_patches(n_hits: int, hit_i: np.ndarray, hit_j: np.ndarray, hit_slots: np.ndarray,
                    hash_key: np.ndarray, hash_hit: np.ndarray, spacing: float,
                    patch_of_hit: np.ndarray, patch_order: np.ndarray, patch_start: np.ndarray,
                    patch_inv_b: np.ndarray, patch_area: np.ndarray) -> int:
    """4-connected flood fill of the hit nodes; per patch 1/b = L / (2 A) from the convex hull of
    its node points (0 for patches under 1e-6 m², as Chrono). Returns the number of patches."""
    for k in range(n_hits):
        hash_hit[hit_slots[k]] = k
        patch_of_hit[k] = -1
    n_patches = 0
    n_ordered = 0
    hull_scratch = np.empty(2 * n_hits + 2, dtype=np.int64)
    row_lo = np.empty(n_hits + 1, dtype=np.int64)   # a 4-connected patch spans at most its node count
    row_hi = np.empty(n_hits + 1, dtype=np.int64)
    pi = np.empty(2 * n_hits + 2, dtype=np.float64)
    pj = np.empty(2 * n_hits + 2, dtype=np.float64)
    for seed in range(n_hits):
        if patch_of_hit[seed] != -1:
            continue
        p = n_patches
        n_patches += 1
        patch_start[p] = n_ordered
        patch_of_hit[seed] = p
        patch_order[n_ordered] = seed
        n_ordered += 1
        head = patch_start[p]
        while head < n_ordered:
            k = patch_order[head]
            head += 1
            for d in range(4):
                ni = hit_i[k] + _DI[d]
                nj = hit_j[k] + _DJ[d]
                h = hash_find(node_key(ni, nj), hash_key)
                if h < 0:
                    continue
                m = hash_hit[h]
                if patch_of_hit[m] != -1:
                    continue
                patch_of_hit[m] = p
                patch_order[n_ordered] = m
                n_ordered += 1
        # Hull of grid points = hull of each row's two extreme points, already sorted by (i, j):
        # O(patch nodes), no sort.
        begin = patch_start[p]
        i_min = hit_i[patch_order[begin]]
        i_max = i_min
        for q in range(begin, n_ordered):
            i_min = min(i_min, hit_i[patch_order[q]])
            i_max = max(i_max, hit_i[patch_order[q]])
        rows = i_max - i_min + 1
        for r in range(rows):
            row_lo[r] = MAX_NODE_INDEX + 1
            row_hi[r] = -MAX_NODE_INDEX - 1
        for q in range(begin, n_ordered):
            m = patch_order[q]
            r = hit_i[m] - i_min
            row_lo[r] = min(row_lo[r], hit_j[m])
            row_hi[r] = max(row_hi[r], hit_j[m])
        n_points = 0
        for r in range(rows):
            if row_hi[r] < row_lo[r]:
                continue
            pi[n_points] = i_min + r
            pj[n_points] = row_lo[r]
            n_points += 1
            if row_hi[r] != row_lo[r]:
                pi[n_points] = i_min + r
                pj[n_points] = row_hi[r]
                n_points += 1
        area, perimeter = _hull_area_perimeter(pi[:n_points], pj[:n_points], hull_scratch)
        area *= spacing * spacing
        perimeter *= spacing
        patch_area[p] = area
        patch_inv_b[p] = perimeter / (2.0 * area) if area >= 1e-6 else 0.0
    patch_start[n_patches] = n_ordered
    return n_patches


@njit(cache=True)
def soil_forces(n_hits: int, hit_i: np.ndarray, hit_j: np.ndarray, hit_slots: np.ndarray, hash_z: np.ndarray,
                hash_body: np.ndarray, hash_shape: np.ndarray, kind: np.ndarray, size: np.ndarray,
                shape_center: np.ndarray, shape_rotation: np.ndarray, pressure_tilt_tan: float,
                patch_of_hit: np.ndarray, patch_inv_b: np.ndarray, min_x: float,
                min_y: float, spacing: float, tile_dir: np.ndarray, tile_origin: np.ndarray, node_f: np.ndarray,
                node_i: np.ndarray, step: int, prev_rows: np.ndarray, n_prev: int, loaded_rows: np.ndarray,
                body_position: np.ndarray, body_velocity: np.ndarray, body_omega: np.ndarray, kphi: float,
                kc: float, n_exp: float, cohesion: float, tan_phi: float, janosi_k: float, elastic_k: float,
                damping_r: float, dt: float, body_mass: np.ndarray, stick_stiffness_fraction: float,
                stick_damping_fraction: float, reset_shear: bool, out_force: np.ndarray, out_torque: np.ndarray,
                out_nodes: np.ndarray, out_max_sinkage: np.ndarray, out_stick_stiffness: np.ndarray,
                out_stick_damping: np.ndarray) -> None:
    """Per loaded node: sinkage, elastic/plastic pressure, damping, Janosi shear; sum per body.

    Pressure direction: with `pressure_tilt_tan` = 0 the node pushes vertically with σ Δ² (Chrono).
    Otherwise it pushes along the body's inward surface normal m at the hit, on the surface area
    the node's cell covers there, Δ² / m_z: force σ Δ² (m_x/m_z, m_y/m_z, 1), so the vertical part
    is Chrono's and the horizontal part is the stress's own (a rim's compaction resistance, a rut
    wall holding a link), its ratio to the vertical bounded by `pressure_tilt_tan` (a wall steeper
    than that carries no Bekker pressure: the law is a plate's).

    Shear (second pass) is elastic-plastic per node: the node keeps the shear stress vector it
    exerts on its body; each step it changes by -k_t v_t dt (a stick spring on the slip of this
    step), a damper -c_t v_t is added, and the result is held within Janosi's strength
    τ_J = (c + σ tan φ)(1 - exp(-j/k)), j = ∫|v_t| dt as Chrono. Sliding, the stress sits on τ_J
    against the slip, whatever the speed (Janosi against displacement); below τ_J the node
    sticks, so a load the soil can carry brings the body to rest instead of a creep. k_t and c_t
    are per body, shared by its loaded nodes: Σ k_t A = stick_stiffness_fraction m / dt² and
    Σ c_t A = stick_damping_fraction m / dt, the largest the explicitly integrated body takes
    without ringing (see README). A node entering contact, or changing body, starts unstressed.
    """
    node_area = spacing * spacing
    for q in range(n_prev):   # last step's loads are released; surface springs back elastically
        r = prev_rows[q]
        node_f[r, F_SIGMA] = 0.0
        node_f[r, F_TAU] = 0.0
        node_f[r, F_STEP_PLASTIC] = 0.0
        node_f[r, F_SINKAGE] = node_f[r, F_SINKAGE_PLASTIC]
        node_f[r, F_LEVEL] = node_f[r, F_LEVEL_INITIAL] - node_f[r, F_SINKAGE_PLASTIC]
    out_force[:] = 0.0
    out_torque[:] = 0.0
    out_nodes[:] = 0
    out_max_sinkage[:] = 0.0
    for k in range(n_hits):
        h = hit_slots[k]
        i = hit_i[k]
        j = hit_j[k]
        b = hash_body[h]
        z_hit = hash_z[h]
        s = node_slot(i, j, tile_dir, tile_origin)
        loaded_rows[k] = s
        if node_i[s, I_LOADED_STEP] != step - 1 or node_i[s, I_BODY] != b:   # (re)entering contact
            node_f[s, F_TAU_X] = 0.0
            node_f[s, F_TAU_Y] = 0.0
        sinkage = node_f[s, F_LEVEL_INITIAL] - z_hit
        sinkage_plastic = node_f[s, F_SINKAGE_PLASTIC]
        sigma = elastic_k * (sinkage - sinkage_plastic)   # > 0: only such nodes are hits
        x = min_x + i * spacing
        y = min_y + j * spacing
        rx = x - body_position[b, 0]
        ry = y - body_position[b, 1]
        rz = z_hit - body_position[b, 2]
        vx = body_velocity[b, 0] + body_omega[b, 1] * rz - body_omega[b, 2] * ry
        vy = body_velocity[b, 1] + body_omega[b, 2] * rx - body_omega[b, 0] * rz
        vz = body_velocity[b, 2] + body_omega[b, 0] * ry - body_omega[b, 1] * rx
        slip = math.sqrt(vx * vx + vy * vy)
        node_f[s, F_SHEAR] += slip * dt
        step_plastic = 0.0
        if sigma > node_f[s, F_SIGMA_YIELD]:
            bekker = (kc * patch_inv_b[patch_of_hit[k]] + kphi) * sinkage ** n_exp
            if sigma > bekker:   # on the yield curve: plastic flow
                sigma = bekker
                node_f[s, F_SIGMA_YIELD] = bekker
                new_plastic = sinkage - bekker / elastic_k
                step_plastic = new_plastic - sinkage_plastic
                node_f[s, F_SINKAGE_PLASTIC] = new_plastic
        sigma = max(0.0, sigma - damping_r * vz)
        # Janosi strength of the node (the shear stress it can hold now)
        tau = (cohesion + sigma * tan_phi) * (1.0 - math.exp(-node_f[s, F_SHEAR] / janosi_k))
        fz = sigma * node_area
        fx = 0.0
        fy = 0.0
        if pressure_tilt_tan > 0.0 and fz > 0.0:
            shape = hash_shape[h]
            mx, my, mz = surface_normal_in(kind[shape], size[shape], shape_center[shape], shape_rotation[shape],
                                           x, y, z_hit)
            horizontal = math.sqrt(mx * mx + my * my)
            if horizontal > 0.0:
                ratio = horizontal / mz if mz > 0.0 else np.inf
                ratio = min(ratio, pressure_tilt_tan) * fz / horizontal
                fx = mx * ratio
                fy = my * ratio
                out_force[b, 0] += fx
                out_force[b, 1] += fy
        out_force[b, 2] += fz
        out_torque[b, 0] += ry * fz - rz * fy
        out_torque[b, 1] += rz * fx - rx * fz
        out_torque[b, 2] += rx * fy - ry * fx
        out_nodes[b] += 1
        out_max_sinkage[b] = max(out_max_sinkage[b], sinkage)
        node_f[s, F_SIGMA] = sigma
        node_f[s, F_TAU] = tau
        node_f[s, F_SINKAGE] = sinkage
        node_f[s, F_STEP_PLASTIC] = step_plastic
        node_f[s, F_LEVEL] = z_hit
        node_i[s, I_LOADED_STEP] = step
        node_i[s, I_BODY] = b
    for b in range(out_nodes.shape[0]):   # per node stick stiffness [Pa/m] and damping [Pa s/m]
        if out_nodes[b] > 0:
            out_stick_stiffness[b] = stick_stiffness_fraction * body_mass[b] / (dt * dt * node_area * out_nodes[b])
            out_stick_damping[b] = stick_damping_fraction * body_mass[b] / (dt * node_area * out_nodes[b])
        else:
            out_stick_stiffness[b] = 0.0
            out_stick_damping[b] = 0.0
    for k in range(n_hits):
        h = hit_slots[k]
        b = hash_body[h]
        s = loaded_rows[k]
        rx = min_x + hit_i[k] * spacing - body_position[b, 0]
        ry = min_y + hit_j[k] * spacing - body_position[b, 1]
        rz = hash_z[h] - body_position[b, 2]
        vx = body_velocity[b, 0] + body_omega[b, 1] * rz - body_omega[b, 2] * ry
        vy = body_velocity[b, 1] + body_omega[b, 2] * rx - body_omega[b, 0] * rz
        stiffness_dt = out_stick_stiffness[b] * dt
        elastic_x = node_f[s, F_TAU_X] - stiffness_dt * vx
        elastic_y = node_f[s, F_TAU_Y] - stiffness_dt * vy
        tau_x = elastic_x - out_stick_damping[b] * vx
        tau_y = elastic_y - out_stick_damping[b] * vy
        magnitude = math.sqrt(tau_x * tau_x + tau_y * tau_y)
        strength = node_f[s, F_TAU]
        if magnitude > strength:   # slides: stress on the Janosi strength, the spring keeps it
            scale = strength / magnitude
            tau_x *= scale
            tau_y *= scale
            elastic_x = tau_x
            elastic_y = tau_y
            magnitude = strength
        node_f[s, F_TAU_X] = elastic_x
        node_f[s, F_TAU_Y] = elastic_y
        node_f[s, F_TAU] = magnitude
        fx = tau_x * node_area
        fy = tau_y * node_area
        out_force[b, 0] += fx
        out_force[b, 1] += fy
        out_torque[b, 0] -= rz * fy
        out_torque[b, 1] += rz * fx
        out_torque[b, 2] += rx * fy - ry * fx
    if reset_shear:
        for q in range(n_prev):
            if node_i[prev_rows[q], I_LOADED_STEP] != step:
                node_f[prev_rows[q], F_SHEAR] = 0.0


# Scalars handed to the fused kernels in one array each (a numba call costs ~0.14 µs per argument).
G_MIN_X, G_MIN_Y, G_SPACING, G_REFERENCE, G_MAX_LEVEL, G_WINDOW_UP, G_WINDOW_DOWN, G_MARGIN = range(8)
(S_KPHI, S_KC, S_N, S_COHESION, S_TAN_PHI, S_JANOSI_K, S_ELASTIC_K, S_DAMPING_R, S_STICK_STIFFNESS,
 S_STICK_DAMPING, S_PRESSURE_TILT_TAN) = range(11)


@njit(cache=True)
def rays_phase(position: np.ndarray, rotation: np.ndarray, shape_position: np.ndarray, shape_rotation: np.ndarray,
               kind: np.ndarray, size: np.ndarray, body_start: np.ndarray, grid: np.ndarray,
               shape_center_out: np.ndarray, shape_rotation_out: np.ndarray, aabb: np.ndarray,
               tile_dir: np.ndarray, tile_origin: np.ndarray, node_f: np.ndarray, hash_key: np.ndarray,
               hash_z: np.ndarray, hash_body: np.ndarray, hash_shape: np.ndarray, hit_slots: np.ndarray,
               hit_i: np.ndarray, hit_j: np.ndarray, counters: np.ndarray) -> int:
    """Shape poses, body AABBs and the rays of one step in one call (see cast_rays for the result)."""
    world_shape_poses(position, rotation, shape_position, shape_rotation, body_start, shape_center_out,
                      shape_rotation_out)
    body_aabbs(kind, size, shape_center_out, shape_rotation_out, body_start, grid[G_MARGIN], aabb)
    return cast_rays(kind, size, shape_center_out, shape_rotation_out, body_start, aabb, grid[G_MIN_X],
                     grid[G_MIN_Y], grid[G_SPACING], grid[G_REFERENCE], grid[G_MAX_LEVEL], grid[G_WINDOW_UP],
                     grid[G_WINDOW_DOWN], tile_dir, tile_origin, node_f, hash_key, hash_z, hash_body, hash_shape,
                     hit_slots, hit_i, hit_j, counters)


@njit(cache=True)
def soil_phase(n_hits: int, hit_i: np.ndarray, hit_j: np.ndarray, hit_slots: np.ndarray, hash_key: np.ndarray,
               hash_hit: np.ndarray, hash_z: np.ndarray, hash_body: np.ndarray, hash_shape: np.ndarray,
               kind: np.ndarray, size: np.ndarray, shape_center: np.ndarray, shape_rotation: np.ndarray,
               patch_of_hit: np.ndarray,
               patch_order: np.ndarray, patch_start: np.ndarray, patch_inv_b: np.ndarray, patch_area: np.ndarray,
               grid: np.ndarray, tile_dir: np.ndarray, tile_origin: np.ndarray, tiles_used: np.ndarray,
               tile_capacity: int, radius_nodes: int, node_f: np.ndarray, node_i: np.ndarray, step: int,
               prev_rows: np.ndarray, n_prev: int, loaded_rows: np.ndarray, position: np.ndarray,
               velocity: np.ndarray, omega: np.ndarray, soil: np.ndarray, dt: float, body_mass: np.ndarray,
               reset_shear: bool, out_force: np.ndarray, out_torque: np.ndarray, out_nodes: np.ndarray,
               out_max_sinkage: np.ndarray, out_stick_stiffness: np.ndarray,
               out_stick_damping: np.ndarray) -> tuple[int, int]:
    """Allocate the touched tiles, then patches and node forces, in one call: (tiles short, 0) when
    the node pool must grow first (nothing else changed; call again), else (0, patches)."""
    shortfall = allocate_tiles_around(hit_i, hit_j, n_hits, radius_nodes, tile_dir, tile_origin, tiles_used,
                                      tile_capacity)
    if shortfall > 0:
        return shortfall, 0
    n_patches = contact_patches(n_hits, hit_i, hit_j, hit_slots, hash_key, hash_hit, grid[G_SPACING],
                                patch_of_hit, patch_order, patch_start, patch_inv_b, patch_area)
    soil_forces(n_hits, hit_i, hit_j, hit_slots, hash_z, hash_body, hash_shape, kind, size, shape_center,
                shape_rotation, soil[S_PRESSURE_TILT_TAN], patch_of_hit, patch_inv_b, grid[G_MIN_X],
                grid[G_MIN_Y], grid[G_SPACING], tile_dir, tile_origin, node_f, node_i, step, prev_rows, n_prev,
                loaded_rows, position, velocity, omega, soil[S_KPHI], soil[S_KC], soil[S_N], soil[S_COHESION],
                soil[S_TAN_PHI], soil[S_JANOSI_K], soil[S_ELASTIC_K], soil[S_DAMPING_R], dt, body_mass,
                soil[S_STICK_STIFFNESS], soil[S_STICK_DAMPING], reset_shear, out_force, out_torque, out_nodes,
                out_max_sinkage, out_stick_stiffness, out_stick_damping)
    return 0, n_patches


@dataclass(frozen=True)
class ScmStepStats:
    """What the last step did (for diagnostics and the benchmark)."""

    ray_casts: int
    hits: int
    contact_patches: int
    erosion_nodes: int
    allocated_nodes: int
    ray_casting_s: float
    soil_update_s: float
    bulldozing_s: float


@dataclass(frozen=True)
class HeightmapSnapshot:
    """Deformed or loaded nodes (world frame): what terrain/heightmap publishes."""

    x_m: np.ndarray
    y_m: np.ndarray
    z_m: np.ndarray
    sinkage_m: np.ndarray           # total (elastic + plastic) where loaded, else plastic
    plastic_sinkage_m: np.ndarray
    pressure_pa: np.ndarray
    loaded: np.ndarray
    i: np.ndarray
    j: np.ndarray


def _pow2_at_least(n: int) -> int:
    return 1 << max(10, int(math.ceil(math.log2(max(n, 1)))))


class ScmTerrain:
    """SCM soil under rigid bodies made of primitives.

    Frames and units: world frame, z up; the soil is flat at `grid.reference_level_m` everywhere
    (nodes at `grid.center_xy_m` - size/2 + (i, j) Δ for any integers i, j). `step` takes, for the
    n bodies given at construction (same order): body-frame origin positions [n,3] m, rotations body-to-world [n,3,3], linear velocities of
    the body origins [n,3] m/s and angular velocities [n,3] rad/s, both in world axes, and the
    step dt_s; it returns the world force [n,3] N and the torque [n,3] N·m about each body's
    ORIGIN exerted by the soil, and updates the soil. Loads come from the state at the start of
    the step and are meant to be held over it (Chrono's explicit coupling).
    """

    def __init__(self, params: ScmParams, bodies: Sequence[BodyGeometry]) -> None:
        self.params = params.validated()
        self.shapes = pack_shapes(bodies)
        grid = self.params.grid
        self.n_bodies = len(bodies)
        self.min_x_m = grid.center_xy_m[0] - 0.5 * grid.size_x_m
        self.min_y_m = grid.center_xy_m[1] - 0.5 * grid.size_y_m
        tile_area_m2 = (TILE_NODES * grid.spacing_m) ** 2
        self.field = HeightField(grid.cells_x, grid.cells_y, grid.spacing_m, (self.min_x_m, self.min_y_m),
                                 grid.reference_level_m,
                                 max(16, int(math.ceil(self.params.numerics.reserved_area_m2 / tile_area_m2))))
        self.max_level_m = grid.reference_level_m
        self._step_index = 0
        self._rim_mark_base = 0
        n_shapes = self.shapes.kind.shape[0]
        self._shape_center = np.zeros((n_shapes, 3))
        self._shape_rotation = np.zeros((n_shapes, 3, 3))
        self._aabb = np.zeros((self.n_bodies, 6))
        self._force = np.zeros((self.n_bodies, 3))
        self._torque = np.zeros((self.n_bodies, 3))
        self._counters = np.zeros(7, dtype=np.int64)   # cast_rays' counters
        self.contact_nodes_per_body = np.zeros(self.n_bodies, dtype=np.int64)   # last step, per body
        self.max_sinkage_per_body_m = np.zeros(self.n_bodies)                    # last step, per body
        # last step, per body: stiffness [Pa/m] and damping [Pa s/m] of each loaded node's stick spring
        self.stick_stiffness_per_node_pa_m = np.zeros(self.n_bodies)
        self.stick_damping_per_node_pa_s_m = np.zeros(self.n_bodies)
        self._n_patches = 0
        self._prev_rows = np.zeros(0, dtype=np.int64)
        self._n_prev = 0
        self._alloc_hits(1024)
        self._alloc_domain(4096)
        self._last_stats_raw = (0, 0, 0, 0, 0.0, 0.0, 0.0)
        numerics, soil = self.params.numerics, self.params.soil
        self._grid_scalars = np.array([self.min_x_m, self.min_y_m, grid.spacing_m, grid.reference_level_m,
                                       self.max_level_m, numerics.ray_window_up_m, numerics.ray_window_down_m,
                                       numerics.active_box_margin_m])
        self._soil_scalars = np.array([soil.bekker_kphi_pa_m_n, soil.bekker_kc_pa_m_n1, soil.bekker_n,
                                       soil.mohr_cohesion_pa, math.tan(math.radians(soil.mohr_friction_deg)),
                                       soil.janosi_shear_m, soil.elastic_k_pa_m, soil.damping_r_pa_s_m,
                                       numerics.stick_stiffness_fraction, numerics.stick_damping_fraction,
                                       numerics.pressure_tilt_tan])
        self._reset_shear = numerics.reset_shear_on_release
        bulldozing = self.params.bulldozing
        # nodes bulldozing may touch around a loaded one (rim + rings + their neighbours): allocated up front
        self._bulldozing_reach_nodes = bulldozing.erosion_propagations + 2 if bulldozing.enabled else 0
        self._erosion_step_m = grid.spacing_m * math.tan(math.radians(bulldozing.erosion_angle_deg))

    def _alloc_hits(self, capacity: int) -> None:
        capacity = _pow2_at_least(capacity)
        self._hash_key = np.full(capacity, -1, dtype=np.int64)
        self._hash_z = np.zeros(capacity)
        self._hash_body = np.zeros(capacity, dtype=np.int64)
        self._hash_shape = np.zeros(capacity, dtype=np.int64)
        self._hash_hit = np.zeros(capacity, dtype=np.int64)
        self._hit_slots = np.zeros(capacity, dtype=np.int64)
        self._hit_i = np.zeros(capacity, dtype=np.int64)
        self._hit_j = np.zeros(capacity, dtype=np.int64)
        self._patch_of_hit = np.zeros(capacity, dtype=np.int64)
        self._patch_order = np.zeros(capacity, dtype=np.int64)
        self._patch_start = np.zeros(capacity + 1, dtype=np.int64)
        self._patch_inv_b = np.zeros(capacity)
        self._patch_area = np.zeros(capacity)
        self._loaded_rows = np.zeros(capacity, dtype=np.int64)
        self._counters[0] = 0

    def _alloc_domain(self, capacity: int) -> None:
        self._domain_rows = np.zeros(capacity, dtype=np.int64)
        self._domain_i = np.zeros(capacity, dtype=np.int64)
        self._domain_j = np.zeros(capacity, dtype=np.int64)
        self._domain_neighbours = np.zeros((capacity, 4), dtype=np.int64)

    @property
    def spacing_m(self) -> float:
        return self.params.grid.spacing_m

    def _refuse_unreachable(self, body: int, pos: np.ndarray) -> None:
        """A body beyond the nodes' index range (or not finite): one clear error."""
        reach_m = (MAX_NODE_INDEX - 1024) * self.spacing_m
        raise ValueError(f"body '{self.shapes.names[body]}' is at {tuple(float(v) for v in pos[body])} m: the soil "
                         f'reaches {reach_m / 1000:.0f} km from its origin at spacing {self.spacing_m} m (a body '
                         f'that far off, or not finite, has diverged; check the simulation)')

    def step(self, position_m: np.ndarray, rotation: np.ndarray, linear_velocity_m_s: np.ndarray,
             angular_velocity_rad_s: np.ndarray, dt_s: float) -> tuple[np.ndarray, np.ndarray]:
        """Soil wrenches on the bodies for this step: (force [n,3] N, torque about origin [n,3] N·m).

        The returned arrays are reused by the next call: copy them if you keep them.
        """
        pos, rot, vel, omega = check_body_state(self.n_bodies, position_m, rotation, linear_velocity_m_s,
                                                angular_velocity_rad_s, dt_s)
        field = self.field
        shapes = self.shapes
        self._step_index += 1
        grid = self._grid_scalars
        grid[G_MAX_LEVEL] = self.max_level_m
        t0 = time.perf_counter()
        counters = self._counters
        while True:
            n_hits = rays_phase(pos, rot, shapes.position_m, shapes.rotation, shapes.kind, shapes.size_m,
                                shapes.body_start, grid, self._shape_center, self._shape_rotation, self._aabb,
                                field.tile_dir, field.tile_origin, field.node_f, self._hash_key, self._hash_z,
                                self._hash_body, self._hash_shape, self._hit_slots, self._hit_i, self._hit_j,
                                counters)
            if counters[2]:
                self._refuse_unreachable(int(counters[2]) - 1, pos)
            if n_hits >= 0:
                break
            self._alloc_hits(4 * -n_hits)
        t1 = time.perf_counter()
        radius = self._bulldozing_reach_nodes
        if n_hits:
            field.cover_tiles((int(counters[3]) - radius) >> TILE_SHIFT, (int(counters[4]) + radius) >> TILE_SHIFT,
                              (int(counters[5]) - radius) >> TILE_SHIFT, (int(counters[6]) + radius) >> TILE_SHIFT)
        while True:
            shortfall, n_patches = soil_phase(
                n_hits, self._hit_i, self._hit_j, self._hit_slots, self._hash_key, self._hash_hit, self._hash_z,
                self._hash_body, self._hash_shape, shapes.kind, shapes.size_m, self._shape_center,
                self._shape_rotation, self._patch_of_hit, self._patch_order, self._patch_start, self._patch_inv_b,
                self._patch_area, grid, field.tile_dir, field.tile_origin, field.tiles_used, field.tile_capacity,
                radius, field.node_f, field.node_i, self._step_index, self._prev_rows, self._n_prev,
                self._loaded_rows, pos, vel, omega, self._soil_scalars, dt_s, shapes.mass_kg, self._reset_shear,
                self._force, self._torque, self.contact_nodes_per_body, self.max_sinkage_per_body_m,
                self.stick_stiffness_per_node_pa_m, self.stick_damping_per_node_pa_s_m)
            if shortfall == 0:
                break
            field.grow(field.tile_capacity + shortfall)
        self._n_patches = n_patches
        # Swap the loaded-row lists: this step's loads are released at the start of the next.
        self._prev_rows, self._loaded_rows = self._loaded_rows, self._prev_rows
        if self._loaded_rows.shape[0] < self._prev_rows.shape[0]:
            self._loaded_rows = np.zeros(self._prev_rows.shape[0], dtype=np.int64)
        self._n_prev = n_hits
        t2 = time.perf_counter()
        n_domain = 0
        if radius and n_patches > 0:
            bulldozing = self.params.bulldozing
            bound = n_hits * (2 * bulldozing.erosion_propagations + 3) ** 2
            if self._domain_rows.shape[0] < bound:
                self._alloc_domain(max(bound, 2 * self._domain_rows.shape[0]))
            n_domain, self.max_level_m = bulldoze(
                self._patch_order, self._patch_start, n_patches, self._hit_i, self._hit_j, field.tile_dir,
                field.tile_origin, field.node_f, field.node_i, self._step_index, self._rim_mark_base,
                bulldozing.flow_factor, bulldozing.erosion_propagations, bulldozing.erosion_iterations,
                self._erosion_step_m, self._domain_rows, self._domain_i, self._domain_j, self._domain_neighbours,
                self.max_level_m)
            self._rim_mark_base += n_patches
        t3 = time.perf_counter()
        self._last_stats_raw = (int(counters[1]), n_hits, n_patches, n_domain, t1 - t0, t2 - t1, t3 - t2)
        return self._force, self._torque

    @property
    def last_stats(self) -> ScmStepStats:
        """What the last step did (built on demand: a step does not pay for it)."""
        rays, hits, patches, domain, rays_s, soil_s, bulldozing_s = self._last_stats_raw
        return ScmStepStats(rays, hits, patches, domain, self.field.allocated_nodes, rays_s, soil_s, bulldozing_s)

    def contact_patch_areas_m2(self) -> np.ndarray:
        """Convex-hull area of each contact patch of the last step (copy)."""
        return self._patch_area[:self._n_patches].copy()

    def heightmap(self) -> HeightmapSnapshot:
        """Every node that differs from the undeformed soil or carries load now."""
        field = self.field
        i, j, rows = field.allocated_node_indices()
        f = field.node_f[rows]
        loaded = field.node_i[rows, I_LOADED_STEP] == self._step_index
        deformed = (loaded | (f[:, F_SINKAGE_PLASTIC] != 0.0)
                    | (f[:, F_LEVEL_INITIAL] != self.params.grid.reference_level_m))
        x, y = field.node_xy_m(i[deformed], j[deformed])
        return HeightmapSnapshot(x_m=x, y_m=y, z_m=f[deformed, F_LEVEL], sinkage_m=f[deformed, F_SINKAGE],
                                 plastic_sinkage_m=f[deformed, F_SINKAGE_PLASTIC],
                                 pressure_pa=f[deformed, F_SIGMA], loaded=loaded[deformed], i=i[deformed],
                                 j=j[deformed])

    def soil_volume_m3(self) -> float:
        """Volume of soil above the reference level (negative for a net rut), elastic part excluded:
        Σ (level_initial - z_plastic - reference) Δ² over the stored nodes (others are undeformed)."""
        _, _, rows = self.field.allocated_node_indices()
        f = self.field.node_f[rows]
        height = f[:, F_LEVEL_INITIAL] - f[:, F_SINKAGE_PLASTIC] - self.params.grid.reference_level_m
        return float(height.sum() * self.spacing_m ** 2)
