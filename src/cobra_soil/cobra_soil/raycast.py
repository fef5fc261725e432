"""Vertical rays from SCM nodes against the bodies' primitives, solved analytically.

Chrono casts each node's ray upward from 0.4 m below to 0.1 m above the current soil level
through its collision system and keeps the first (lowest) hit; for the convex primitives a
snake link is made of, the lowest point where a vertical line enters the shape has a closed
form, so no mesh or collision library is involved and no primitive is dropped.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .heightfield import F_LEVEL, F_LEVEL_INITIAL, F_SINKAGE_PLASTIC, MAX_NODE_INDEX, node_key, node_slot
from .shapes import BOX, CAPSULE, SPHERE

NO_HIT = np.inf


@njit(cache=True, inline='always')
def _sphere_entry(px: float, py: float, pz: float, dx: float, dy: float, dz: float, r: float) -> float:
    b = px * dx + py * dy + pz * dz
    c = px * px + py * py + pz * pz - r * r
    disc = b * b - c
    if disc < 0.0:
        return NO_HIT
    return -b - math.sqrt(disc)


@njit(cache=True, inline='always')
def _cylinder_interval(px: float, py: float, pz: float, dx: float, dy: float, dz: float, r: float,
                       half_length: float) -> tuple[float, float]:
    """Parameter interval of the line inside a z-axis cylinder (empty: lo > hi)."""
    lo = -np.inf
    hi = np.inf
    a = dx * dx + dy * dy
    c = px * px + py * py - r * r
    if a < 1e-14:
        if c > 0.0:
            return NO_HIT, -NO_HIT
    else:
        b = px * dx + py * dy
        disc = b * b - a * c
        if disc < 0.0:
            return NO_HIT, -NO_HIT
        root = math.sqrt(disc)
        lo = (-b - root) / a
        hi = (-b + root) / a
    if abs(dz) < 1e-14:
        if abs(pz) > half_length:
            return NO_HIT, -NO_HIT
    else:
        t1 = (-half_length - pz) / dz
        t2 = (half_length - pz) / dz
        if t1 > t2:
            t1, t2 = t2, t1
        lo = max(lo, t1)
        hi = min(hi, t2)
    return lo, hi


@njit(cache=True)
def lowest_entry_z(kind: int, size: np.ndarray, center: np.ndarray, rotation: np.ndarray, x: float,
                   y: float) -> float:
    """World z where the vertical line through (x, y) first enters the shape from below (inf: miss).

    With the line p(t) = (x, y, t), the shape-frame point is R^T((x, y, 0) - c) + t R^T e_z, so the
    line parameter is the world height itself.
    """
    wx = x - center[0]
    wy = y - center[1]
    wz = -center[2]
    px = rotation[0, 0] * wx + rotation[1, 0] * wy + rotation[2, 0] * wz
    py = rotation[0, 1] * wx + rotation[1, 1] * wy + rotation[2, 1] * wz
    pz = rotation[0, 2] * wx + rotation[1, 2] * wy + rotation[2, 2] * wz
    dx = rotation[2, 0]
    dy = rotation[2, 1]
    dz = rotation[2, 2]
    if kind == SPHERE:
        return _sphere_entry(px, py, pz, dx, dy, dz, size[0])
    if kind == BOX:
        lo = -np.inf
        hi = np.inf
        for axis in range(3):
            p = px if axis == 0 else (py if axis == 1 else pz)
            d = dx if axis == 0 else (dy if axis == 1 else dz)
            h = size[axis]
            if abs(d) < 1e-14:
                if abs(p) > h:
                    return NO_HIT
            else:
                t1 = (-h - p) / d
                t2 = (h - p) / d
                if t1 > t2:
                    t1, t2 = t2, t1
                lo = max(lo, t1)
                hi = min(hi, t2)
        return lo if lo <= hi else NO_HIT
    r = size[0]
    half_length = size[1]
    lo, hi = _cylinder_interval(px, py, pz, dx, dy, dz, r, half_length)
    best = lo if lo <= hi else NO_HIT
    if kind == CAPSULE:   # convex union of the cylinder and its two end spheres
        best = min(best, _sphere_entry(px, py, pz - half_length, dx, dy, dz, r))
        best = min(best, _sphere_entry(px, py, pz + half_length, dx, dy, dz, r))
    return best


@njit(cache=True)
def surface_normal_in(kind: int, size: np.ndarray, center: np.ndarray, rotation: np.ndarray, x: float, y: float,
                      z: float) -> tuple[float, float, float]:
    """Unit inward normal (world) of the shape's surface at the surface point (x, y, z): the
    direction in which soil pressure pushes the body there (a wheel's rim: towards the axle)."""
    wx = x - center[0]
    wy = y - center[1]
    wz = z - center[2]
    px = rotation[0, 0] * wx + rotation[1, 0] * wy + rotation[2, 0] * wz   # shape frame
    py = rotation[0, 1] * wx + rotation[1, 1] * wy + rotation[2, 1] * wz
    pz = rotation[0, 2] * wx + rotation[1, 2] * wy + rotation[2, 2] * wz
    nx = 0.0
    ny = 0.0
    nz = 0.0
    if kind == SPHERE:
        nx, ny, nz = px, py, pz
    elif kind == BOX:   # the face the point lies on: the axis where it is closest to the half size
        best = -np.inf
        for axis in range(3):
            p = px if axis == 0 else (py if axis == 1 else pz)
            gap = abs(p) - size[axis]
            if gap > best:
                best = gap
                nx = p if axis == 0 else 0.0
                ny = p if axis == 1 else 0.0
                nz = p if axis == 2 else 0.0
    elif kind == CAPSULE:
        nx, ny, nz = px, py, pz - min(max(pz, -size[1]), size[1])
    else:   # cylinder: side or end cap, whichever surface the point is nearer to
        radial = math.sqrt(px * px + py * py)
        if abs(radial - size[0]) <= abs(abs(pz) - size[1]):
            nx, ny = px, py
        else:
            nz = pz
    length = math.sqrt(nx * nx + ny * ny + nz * nz)
    if length == 0.0:
        return 0.0, 0.0, 1.0
    nx /= -length
    ny /= -length
    nz /= -length
    return (rotation[0, 0] * nx + rotation[0, 1] * ny + rotation[0, 2] * nz,
            rotation[1, 0] * nx + rotation[1, 1] * ny + rotation[1, 2] * nz,
            rotation[2, 0] * nx + rotation[2, 1] * ny + rotation[2, 2] * nz)


@njit(cache=True)
def shape_half_extent(kind: int, size: np.ndarray, rotation: np.ndarray, axis: int) -> float:
    """Half width of the shape's world AABB along world axis `axis`."""
    if kind == SPHERE:
        return size[0]
    if kind == BOX:
        return (abs(rotation[axis, 0]) * size[0] + abs(rotation[axis, 1]) * size[1]
                + abs(rotation[axis, 2]) * size[2])
    a = rotation[axis, 2]
    if kind == CAPSULE:
        return abs(a) * size[1] + size[0]
    return abs(a) * size[1] + size[0] * math.sqrt(max(0.0, 1.0 - a * a))


@njit(cache=True)
def row_y_range(kind: int, size: np.ndarray, center: np.ndarray, rotation: np.ndarray, x: float,
                z_cut: float) -> tuple[float, float]:
    """Conservative y-interval where the vertical lines at this x can meet the part of the shape
    below z_cut (only that part can load soil); (inf, -inf) if none, (-inf, inf) if not bounded
    here (boxes: the AABB applies). Cylinders are bounded by the capsule containing them."""
    if kind == BOX:
        return -np.inf, np.inf
    r = size[0]
    if kind == SPHERE:
        depth = z_cut - center[2]
        if depth <= -r:
            return np.inf, -np.inf
        rho = r if depth >= 0.0 else math.sqrt(r * r - depth * depth)
        dx = x - center[0]
        if abs(dx) > rho:
            return np.inf, -np.inf
        half = math.sqrt(rho * rho - dx * dx)
        return center[1] - half, center[1] + half
    # Segment P(t) = c + (2t - 1) h a, t in [0, 1], inflated by r.
    h = size[1]
    ax = rotation[0, 2] * h
    ay = rotation[1, 2] * h
    az = rotation[2, 2] * h
    t_lo = 0.0
    t_hi = 1.0
    # Submerged part: P_z(t) - r < z_cut, with P_z(t) = c_z - a_z + 2 a_z t.
    base_z = center[2] - az - r - z_cut
    if abs(az) < 1e-15:
        if base_z >= 0.0:
            return np.inf, -np.inf
    elif az > 0.0:
        t_hi = min(t_hi, -base_z / (2.0 * az))
    else:
        t_lo = max(t_lo, -base_z / (2.0 * az))
    if t_lo > t_hi:
        return np.inf, -np.inf
    lowest_axis_z = min(center[2] - az + 2.0 * az * t_lo, center[2] - az + 2.0 * az * t_hi)
    rho = r
    if lowest_axis_z > z_cut:
        rho = math.sqrt(max(0.0, r * r - (lowest_axis_z - z_cut) ** 2))
    # Row: |x - P_x(t)| <= rho.
    base_x = center[0] - ax - x
    if abs(ax) < 1e-15:
        if abs(base_x) > rho:
            return np.inf, -np.inf
    else:
        t1 = (-rho - base_x) / (2.0 * ax)
        t2 = (rho - base_x) / (2.0 * ax)
        if t1 > t2:
            t1, t2 = t2, t1
        t_lo = max(t_lo, t1)
        t_hi = min(t_hi, t2)
    if t_lo > t_hi:
        return np.inf, -np.inf
    y1 = center[1] - ay + 2.0 * ay * t_lo
    y2 = center[1] - ay + 2.0 * ay * t_hi
    return min(y1, y2) - rho, max(y1, y2) + rho


@njit(cache=True)
def world_shape_poses(body_position: np.ndarray, body_rotation: np.ndarray, shape_position: np.ndarray,
                      shape_rotation: np.ndarray, body_start: np.ndarray, out_center: np.ndarray,
                      out_rotation: np.ndarray) -> None:
    for b in range(body_start.shape[0] - 1):
        for s in range(body_start[b], body_start[b + 1]):
            for r in range(3):
                out_center[s, r] = body_position[b, r]
                for c in range(3):
                    out_center[s, r] += body_rotation[b, r, c] * shape_position[s, c]
                    acc = 0.0
                    for k in range(3):
                        acc += body_rotation[b, r, k] * shape_rotation[s, k, c]
                    out_rotation[s, r, c] = acc


@njit(cache=True)
def body_aabbs(kind: np.ndarray, size: np.ndarray, center: np.ndarray, rotation: np.ndarray,
               body_start: np.ndarray, margin_m: float, out_aabb: np.ndarray) -> None:
    """[n_bodies, 6] = (x_min, y_min, z_min, x_max, y_max, z_max); empty bodies get +inf mins."""
    for b in range(body_start.shape[0] - 1):
        for axis in range(3):
            out_aabb[b, axis] = np.inf
            out_aabb[b, axis + 3] = -np.inf
        for s in range(body_start[b], body_start[b + 1]):
            for axis in range(3):
                e = shape_half_extent(kind[s], size[s], rotation[s], axis)
                out_aabb[b, axis] = min(out_aabb[b, axis], center[s, axis] - e - margin_m)
                out_aabb[b, axis + 3] = max(out_aabb[b, axis + 3], center[s, axis] + e + margin_m)


@njit(cache=True, inline='always')
def _hash(key: int, mask: int) -> int:
    """Slot of a node_key: both node indices mixed into the low bits (a spatial hash)."""
    return (((key >> 31) * 73856093) ^ ((key & 0x7FFFFFFF) * 19349663)) & mask


@njit(cache=True)
def cast_rays(kind: np.ndarray, size: np.ndarray, center: np.ndarray, rotation: np.ndarray,
              body_start: np.ndarray, aabb: np.ndarray, min_x: float, min_y: float, spacing: float,
              reference_level: float, max_level: float, window_up: float, window_down: float,
              tile_dir: np.ndarray, tile_origin: np.ndarray, node_f: np.ndarray, hash_key: np.ndarray,
              hash_z: np.ndarray, hash_body: np.ndarray, hash_shape: np.ndarray, hit_slots: np.ndarray,
              hit_i: np.ndarray, hit_j: np.ndarray, counters: np.ndarray, row_cull: bool = True) -> int:
    """Collect this step's loaded nodes in an open-addressing hash keyed by node index.

    A node is a hit when the lowest body surface over it lies inside Chrono's window around the
    current level and below the node's plastic surface (else the elastic trial is <= 0 and the
    node carries nothing); where bodies overlap, the lowest surface wins, as a ray from below
    would report (`hash_shape`: the shape whose surface it is, for the surface normal).
    counters: [0] hits of the previous call (slots to clear), [1] ray casts,
    [2] 1 + the first body beyond the nodes' index range (non-finite or farther than
    MAX_NODE_INDEX - 1024 spacings; then nothing is cast and 0 returned), 0 if none,
    [3:7] least and largest i, least and largest j of the hits.
    Returns the number of hits, or -(rays needed) when the hash is too small (nothing changed
    except the clearing; the caller grows it and calls again).
    """
    for k in range(counters[0]):
        hash_key[hit_slots[k]] = -1
    counters[0] = 0
    counters[1] = 0
    counters[2] = 0
    n_bodies = body_start.shape[0] - 1
    capacity = hash_key.shape[0]
    mask = capacity - 1
    candidates = 0
    reach = float(MAX_NODE_INDEX - 1024)
    for b in range(n_bodies):
        if not ((aabb[b, 0] - min_x) / spacing > -reach and (aabb[b, 3] - min_x) / spacing < reach
                and (aabb[b, 1] - min_y) / spacing > -reach and (aabb[b, 4] - min_y) / spacing < reach
                and aabb[b, 2] == aabb[b, 2]):   # NaN fails every comparison
            counters[2] = b + 1
            return 0
        if aabb[b, 2] >= max_level:   # above the highest soil anywhere: cannot load a node
            continue
        i0 = int(math.ceil((aabb[b, 0] - min_x) / spacing))
        i1 = int(math.floor((aabb[b, 3] - min_x) / spacing))
        j0 = int(math.ceil((aabb[b, 1] - min_y) / spacing))
        j1 = int(math.floor((aabb[b, 4] - min_y) / spacing))
        if i1 >= i0 and j1 >= j0:
            candidates += (i1 - i0 + 1) * (j1 - j0 + 1)
    if 2 * candidates > capacity:
        return -candidates
    n_hits = 0
    rays = 0
    i_lo = MAX_NODE_INDEX
    i_hi = -MAX_NODE_INDEX
    j_lo = MAX_NODE_INDEX
    j_hi = -MAX_NODE_INDEX
    for b in range(n_bodies):
        if aabb[b, 2] >= max_level:
            continue
        i0 = int(math.ceil((aabb[b, 0] - min_x) / spacing))
        i1 = int(math.floor((aabb[b, 3] - min_x) / spacing))
        j0 = int(math.ceil((aabb[b, 1] - min_y) / spacing))
        j1 = int(math.floor((aabb[b, 4] - min_y) / spacing))
        body_z_min = aabb[b, 2]
        for i in range(i0, i1 + 1):
            x = min_x + i * spacing
            row_j0 = j0
            row_j1 = j1
            if row_cull:   # only the nodes under the body's part below the highest soil
                y_lo = np.inf
                y_hi = -np.inf
                for s in range(body_start[b], body_start[b + 1]):
                    lo, hi = row_y_range(kind[s], size[s], center[s], rotation[s], x, max_level)
                    y_lo = min(y_lo, lo)
                    y_hi = max(y_hi, hi)
                if y_lo > y_hi:
                    continue
                if y_lo > -np.inf:
                    row_j0 = max(j0, int(math.ceil((y_lo - min_y) / spacing)))
                if y_hi < np.inf:
                    row_j1 = min(j1, int(math.floor((y_hi - min_y) / spacing)))
            for j in range(row_j0, row_j1 + 1):
                slot = node_slot(i, j, tile_dir, tile_origin)
                if slot < 0:
                    level = reference_level
                    plastic_surface = reference_level
                else:
                    level = node_f[slot, F_LEVEL]
                    plastic_surface = node_f[slot, F_LEVEL_INITIAL] - node_f[slot, F_SINKAGE_PLASTIC]
                if body_z_min >= plastic_surface:
                    continue
                rays += 1
                y = min_y + j * spacing
                z_hit = NO_HIT
                hit_shape = -1
                for s in range(body_start[b], body_start[b + 1]):
                    z_shape = lowest_entry_z(kind[s], size[s], center[s], rotation[s], x, y)
                    if z_shape < z_hit:
                        z_hit = z_shape
                        hit_shape = s
                if not (z_hit < plastic_surface and z_hit >= level - window_down and z_hit <= level + window_up):
                    continue
                key = node_key(i, j)
                h = _hash(key, mask)
                while True:
                    if hash_key[h] == -1:
                        hash_key[h] = key
                        hash_z[h] = z_hit
                        hash_body[h] = b
                        hash_shape[h] = hit_shape
                        hit_slots[n_hits] = h
                        hit_i[n_hits] = i
                        hit_j[n_hits] = j
                        n_hits += 1
                        i_lo = min(i_lo, i)
                        i_hi = max(i_hi, i)
                        j_lo = min(j_lo, j)
                        j_hi = max(j_hi, j)
                        break
                    if hash_key[h] == key:
                        if z_hit < hash_z[h]:
                            hash_z[h] = z_hit
                            hash_body[h] = b
                            hash_shape[h] = hit_shape
                        break
                    h = (h + 1) & mask
    counters[0] = n_hits
    counters[1] = rays
    counters[3] = i_lo
    counters[4] = i_hi
    counters[5] = j_lo
    counters[6] = j_hi
    return n_hits


@njit(cache=True)
def hash_find(key: int, hash_key: np.ndarray) -> int:
    """Slot of `key` in the hit hash, -1 if absent."""
    mask = hash_key.shape[0] - 1
    h = _hash(key, mask)
    while True:
        k = hash_key[h]
        if k == key:
            return h
        if k == -1:
            return -1
        h = (h + 1) & mask
