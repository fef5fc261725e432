"""SCM bulldozing: displaced soil moved to each contact patch's rim, then eroded to the repose angle.

Follows Chrono's SCMLoader: (1) the plastic sinkage added this step under a patch, times the
flow factor, is spread evenly over the patch's rim (4-neighbours not under load); (2) the
erosion domain is the union of rims grown by `erosion_propagations` rings of unloaded nodes;
(3) each of `erosion_iterations` sweeps moves, between a domain node and each unloaded
4-neighbour, (|Δh| - Δ tan(erosion angle)) / 8 from the higher node to the lower one.
Deliberate differences: no "mass remainder" and no clamping of a rim raise to the body above
it (Chrono's heuristic, marked "rethink this" in its source, does not conserve volume); every
transfer here is pairwise, so with flow factor 1 the soil volume is conserved to round-off.
A raised rim node that touches a body simply becomes a loaded node in the next step.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .heightfield import (F_LEVEL, F_LEVEL_INITIAL, F_STEP_PLASTIC, I_EROSION_STEP, I_LOADED_STEP,
                          I_RIM_MARK, node_slot)

_DI = (1, -1, 0, 0)
_DJ = (0, 0, 1, -1)


@njit(cache=True)
def bulldoze(patch_order: np.ndarray, patch_start: np.ndarray, n_patches: int, hit_i: np.ndarray,
             hit_j: np.ndarray, tile_dir: np.ndarray, tile_origin: np.ndarray, node_f: np.ndarray,
             node_i: np.ndarray, step: int, rim_mark_base: int, flow_factor: float, propagations: int,
             iterations: int, max_height_step_m: float, domain_rows: np.ndarray, domain_i: np.ndarray,
             domain_j: np.ndarray, domain_neighbours: np.ndarray, max_level: float) -> tuple[int, float]:
    """Run one step of bulldozing; returns (erosion domain size, new highest soil level).

    Every node within erosion_propagations + 2 of a loaded node must be allocated (the caller's
    HeightField.ensure_allocated radius)."""
    n_domain = 0
    for p in range(n_patches):
        rim_code = rim_mark_base + p
        rim_begin = n_domain
        displaced = 0.0
        n_rim = 0
        for q in range(patch_start[p], patch_start[p + 1]):
            k = patch_order[q]
            i = hit_i[k]
            j = hit_j[k]
            displaced += node_f[node_slot(i, j, tile_dir, tile_origin), F_STEP_PLASTIC]
            for d in range(4):
                ni = i + _DI[d]
                nj = j + _DJ[d]
                s = node_slot(ni, nj, tile_dir, tile_origin)
                if node_i[s, I_LOADED_STEP] == step or node_i[s, I_RIM_MARK] == rim_code:
                    continue
                node_i[s, I_RIM_MARK] = rim_code
                # A node on the rims of two patches is raised by both but listed once.
                domain_rows[n_domain] = s
                domain_i[n_domain] = ni
                domain_j[n_domain] = nj
                n_domain += 1
                n_rim += 1
        raise_m = flow_factor * displaced / n_rim if n_rim > 0 else 0.0
        keep = rim_begin
        for q in range(rim_begin, rim_begin + n_rim):
            s = domain_rows[q]
            node_f[s, F_LEVEL_INITIAL] += raise_m
            node_f[s, F_LEVEL] += raise_m
            if node_i[s, I_EROSION_STEP] != step:   # first time in this step's domain
                node_i[s, I_EROSION_STEP] = step
                domain_rows[keep] = s
                domain_i[keep] = domain_i[q]
                domain_j[keep] = domain_j[q]
                keep += 1
        n_domain = keep
    # Erosion only moves soil downhill without overshoot, so the highest level is set here.
    for q in range(n_domain):
        max_level = max(max_level, node_f[domain_rows[q], F_LEVEL_INITIAL])
    front_begin = 0
    front_end = n_domain
    for _ in range(propagations):
        for q in range(front_begin, front_end):
            i = domain_i[q]
            j = domain_j[q]
            for d in range(4):
                ni = i + _DI[d]
                nj = j + _DJ[d]
                s = node_slot(ni, nj, tile_dir, tile_origin)
                if node_i[s, I_LOADED_STEP] == step or node_i[s, I_EROSION_STEP] == step:
                    continue
                node_i[s, I_EROSION_STEP] = step
                domain_rows[n_domain] = s
                domain_i[n_domain] = ni
                domain_j[n_domain] = nj
                n_domain += 1
        front_begin = front_end
        front_end = n_domain
    # Neighbours that take part in erosion (inside the patch, not under load), looked up once.
    for q in range(n_domain):
        for d in range(4):
            ni = domain_i[q] + _DI[d]
            nj = domain_j[q] + _DJ[d]
            t = node_slot(ni, nj, tile_dir, tile_origin)
            if t >= 0 and node_i[t, I_LOADED_STEP] == step:
                t = -1
            domain_neighbours[q, d] = t
    for _ in range(iterations):
        for q in range(n_domain):
            s = domain_rows[q]
            for d in range(4):
                t = domain_neighbours[q, d]
                if t < 0:
                    continue
                dy = node_f[s, F_LEVEL] - node_f[t, F_LEVEL]
                move = 0.125 * (abs(dy) - max_height_step_m)
                if move <= 0.0:
                    continue
                if dy < 0.0:
                    move = -move
                node_f[s, F_LEVEL] -= move
                node_f[s, F_LEVEL_INITIAL] -= move
                node_f[t, F_LEVEL] += move
                node_f[t, F_LEVEL_INITIAL] += move
    return n_domain, max_level
