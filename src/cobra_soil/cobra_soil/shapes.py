"""Collision primitives of the robot's bodies, in MuJoCo's conventions, packed for the kernels.

Sizes follow MuJoCo's geom `size` (what the engine adapter reads from `model.geom_size`):
sphere (radius,), capsule and cylinder (radius, half_length) along the shape's local z,
box (half_x, half_y, half_z). Pose is in the body frame: the shape's centre and the rotation
whose columns are the shape's axes expressed in body axes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .params import SoilConfigError

SPHERE, CAPSULE, CYLINDER, BOX = 0, 1, 2, 3
SHAPE_KINDS: dict[str, int] = {'sphere': SPHERE, 'capsule': CAPSULE, 'cylinder': CYLINDER, 'box': BOX}
_SIZE_COUNT = {SPHERE: 1, CAPSULE: 2, CYLINDER: 2, BOX: 3}


@dataclass(frozen=True)
class CollisionShape:
    """One primitive: kind ('sphere'|'capsule'|'cylinder'|'box'), MuJoCo size [m], body-frame pose."""

    kind: str
    size_m: tuple[float, ...]
    position_m: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rotation: tuple[tuple[float, float, float], ...] = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


@dataclass(frozen=True)
class BodyGeometry:
    """A robot body as the terrain sees it: name, mass and collision primitives."""

    name: str
    mass_kg: float
    shapes: tuple[CollisionShape, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class PackedShapes:
    """Flat arrays of all shapes, grouped by body (shapes of body b: start[b]:start[b+1])."""

    kind: np.ndarray          # [m] int64 shape code
    size_m: np.ndarray        # [m, 3] (unused entries 0)
    position_m: np.ndarray    # [m, 3] body frame
    rotation: np.ndarray      # [m, 3, 3] shape-to-body
    body_start: np.ndarray    # [n_bodies + 1] int64
    mass_kg: np.ndarray       # [n_bodies]
    names: tuple[str, ...]


def pack_shapes(bodies: Sequence[BodyGeometry]) -> PackedShapes:
    """Validate and flatten; raises SoilConfigError naming the body and shape at fault."""
    kinds: list[int] = []
    sizes: list[list[float]] = []
    positions: list[np.ndarray] = []
    rotations: list[np.ndarray] = []
    start = [0]
    masses = []
    for body in bodies:
        if not (np.isfinite(body.mass_kg) and body.mass_kg > 0.0):
            raise SoilConfigError(f"body '{body.name}': mass_kg = {body.mass_kg} must be > 0")
        masses.append(float(body.mass_kg))
        for index, shape in enumerate(body.shapes):
            where = f"body '{body.name}' shape {index}"
            if shape.kind not in SHAPE_KINDS:
                raise SoilConfigError(f"{where}: kind '{shape.kind}' is not supported; "
                                      f"use one of {sorted(SHAPE_KINDS)}")
            code = SHAPE_KINDS[shape.kind]
            size = [float(v) for v in shape.size_m]
            if len(size) < _SIZE_COUNT[code] or not all(np.isfinite(v) and v > 0 for v in size[:_SIZE_COUNT[code]]):
                raise SoilConfigError(f"{where}: size_m = {shape.size_m} must hold {_SIZE_COUNT[code]} "
                                      f"positive numbers (MuJoCo geom size of a {shape.kind})")
            rotation = np.asarray(shape.rotation, dtype=float).reshape(3, 3)
            if not np.allclose(rotation.T @ rotation, np.eye(3), atol=1e-6):
                raise SoilConfigError(f'{where}: rotation is not orthonormal')
            kinds.append(code)
            sizes.append((size[:_SIZE_COUNT[code]] + [0.0, 0.0, 0.0])[:3])
            positions.append(np.asarray(shape.position_m, dtype=float).reshape(3))
            rotations.append(rotation)
        start.append(len(kinds))
    m = len(kinds)
    return PackedShapes(
        kind=np.asarray(kinds, dtype=np.int64).reshape(m),
        size_m=np.asarray(sizes, dtype=float).reshape(m, 3),
        position_m=np.asarray(positions, dtype=float).reshape(m, 3),
        rotation=np.asarray(rotations, dtype=float).reshape(m, 3, 3),
        body_start=np.asarray(start, dtype=np.int64),
        mass_kg=np.asarray(masses, dtype=float),
        names=tuple(b.name for b in bodies),
    )


def check_body_state(n_bodies: int, position_m: np.ndarray, rotation: np.ndarray,
                     linear_velocity_m_s: np.ndarray, angular_velocity_rad_s: np.ndarray,
                     dt_s: float) -> tuple[np.ndarray, ...]:
    """The four per-step arrays as contiguous float64 of the right shapes (ValueError if not)."""
    if not dt_s > 0.0:
        raise ValueError(f'dt_s = {dt_s} must be > 0')
    out = []
    for name, array, shape in (('position_m', position_m, (n_bodies, 3)), ('rotation', rotation, (n_bodies, 3, 3)),
                               ('linear_velocity_m_s', linear_velocity_m_s, (n_bodies, 3)),
                               ('angular_velocity_rad_s', angular_velocity_rad_s, (n_bodies, 3))):
        a = np.ascontiguousarray(array, dtype=np.float64)
        if a.shape != shape:
            raise ValueError(f'{name} has shape {a.shape}, expected {shape}')
        out.append(a)
    return tuple(out)
