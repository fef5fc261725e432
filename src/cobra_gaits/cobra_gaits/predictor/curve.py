"""Polygonal-curve body of the geometric predictor (the geometric-mechanics paper §II-B1): vertices, tangents, weights.

A body is an (N, d) array of vertex positions [m] (d = 2 planar, d = 3 spatial); a shape sequence
is (T + 1, N, d). Vertices are the dissipation elements (joints / wheel contacts of the robot),
each with a weight w_k and a unit tangent T_k. No rclpy here: plain numpy, planning-speed.
"""

from __future__ import annotations

import numpy as np


class PredictorError(ValueError):
    """Inputs the predictor cannot work with; the message names the problem and the fix."""


def as_shape_sequence(shapes_m: np.ndarray) -> np.ndarray:
    """Validate and return a (T + 1, N, d) float array of body vertex positions [m]."""
    shapes = np.asarray(shapes_m, dtype=float)
    if shapes.ndim != 3 or shapes.shape[2] not in (2, 3):
        raise PredictorError(f'shapes must be an array (T+1, N, 2 or 3) of vertex positions, got shape {shapes.shape}')
    if shapes.shape[0] < 2 or shapes.shape[1] < 2:
        raise PredictorError('need at least 2 shapes of at least 2 vertices, '
                             f'got {shapes.shape[0]} x {shapes.shape[1]}')
    if not np.all(np.isfinite(shapes)):
        raise PredictorError('shapes contain NaN or inf: give finite vertex positions')
    return shapes


def vertex_tangents(shapes_m: np.ndarray) -> np.ndarray:
    """Unit tangents T_k at every vertex: central differences inside, one-sided at the ends.

    Works on (..., N, d); a vertex whose neighbours coincide gets a zero tangent (isotropic there).
    """
    points = np.asarray(shapes_m, dtype=float)
    chords = np.empty_like(points)
    chords[..., 1:-1, :] = points[..., 2:, :] - points[..., :-2, :]
    chords[..., 0, :] = points[..., 1, :] - points[..., 0, :]
    chords[..., -1, :] = points[..., -1, :] - points[..., -2, :]
    norms = np.linalg.norm(chords, axis=-1, keepdims=True)
    return np.divide(chords, norms, out=np.zeros_like(chords), where=norms > 0.0)


def uniform_weights(n_vertices: int, total_weight: float = 1.0) -> np.ndarray:
    """Equal weights summing to `total_weight` (equal module masses, the paper's robot)."""
    if n_vertices < 2:
        raise PredictorError(f'n_vertices must be >= 2, got {n_vertices}')
    return np.full(n_vertices, total_weight / n_vertices)


def as_weights(weights: np.ndarray | None, n_shapes: int, n_vertices: int) -> np.ndarray:
    """Per-shape vertex weights (T + 1, N) from None (uniform), (N,) or (T + 1, N); all >= 0, sum > 0."""
    if weights is None:
        return np.broadcast_to(uniform_weights(n_vertices), (n_shapes, n_vertices))
    array = np.asarray(weights, dtype=float)
    if array.shape == (n_vertices,):
        array = np.broadcast_to(array, (n_shapes, n_vertices))
    if array.shape != (n_shapes, n_vertices):
        raise PredictorError(f'weights must have shape ({n_vertices},) or ({n_shapes}, {n_vertices}), '
                             f'got {array.shape}')
    if not np.all(np.isfinite(array)) or np.any(array < 0.0):
        raise PredictorError('weights must be finite and >= 0 (a lifted vertex has weight 0)')
    if np.any(array.sum(axis=1) <= 0.0):
        raise PredictorError('every shape needs some weight on the ground: at least one weight > 0 per shape')
    return array


def center_of_mass(shapes_m: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted centroid of every shape, (..., d)."""
    w = np.asarray(weights, dtype=float)
    return np.einsum('...k,...kd->...d', w, shapes_m) / w.sum(axis=-1)[..., None]


def shapes_from_turning_angles(edge_angles_rad: np.ndarray, edge_length_m: float) -> np.ndarray:
    """Planar polygon vertices (..., E + 1, 2) from absolute edge directions (..., E), first vertex at 0."""
    angles = np.asarray(edge_angles_rad, dtype=float)
    steps = edge_length_m * np.stack((np.cos(angles), np.sin(angles)), axis=-1)
    vertices = np.zeros(angles.shape[:-1] + (angles.shape[-1] + 1, 2))
    np.cumsum(steps, axis=-2, out=vertices[..., 1:, :])
    return vertices


def shapes_from_joint_angles(joint_angles_rad: np.ndarray, link_length_m: float) -> np.ndarray:
    """Planar shapes (T, J + 2, 2) of a chain of J + 1 equal links from relative joint angles (T, J).

    Vertices are the link ends (joints and the two tips); the first link points along +x.
    """
    joints = np.atleast_2d(np.asarray(joint_angles_rad, dtype=float))
    if not np.all(np.isfinite(joints)):
        raise PredictorError('joint angles contain NaN or inf')
    if link_length_m <= 0.0:
        raise PredictorError(f'link_length_m must be > 0, got {link_length_m}')
    edge_angles = np.concatenate((np.zeros(joints.shape[:-1] + (1,)), np.cumsum(joints, axis=-1)), axis=-1)
    return shapes_from_turning_angles(edge_angles, link_length_m)


def embed_3d(shapes_m: np.ndarray) -> np.ndarray:
    """Planar shapes (..., N, 2) as spatial ones with z = 0 (to run the SE(3) solve on them)."""
    shapes = np.asarray(shapes_m, dtype=float)
    return np.concatenate((shapes, np.zeros(shapes.shape[:-1] + (1,))), axis=-1)
