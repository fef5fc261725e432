"""Serpenoid shape space and elliptic gaits of the geometric-mechanics paper §III."""

from __future__ import annotations

import numpy as np
import pytest

from cobra_gaits.predictor.curve import PredictorError, shapes_from_joint_angles
from cobra_gaits.predictor.serpenoid import (EllipticGait, gait_coefficients, gait_shapes, serpenoid_joint_angles_rad,
                                             serpenoid_shapes)


def test_shape_follows_the_serpenoid_curvature() -> None:
    n_vertices = 401
    w1, w2, xi = 3.0, -2.0, 1.3
    shape = serpenoid_shapes(np.array([[w1, w2]]), xi, n_vertices, length_m=2.0)[0]
    edges = np.diff(shape, axis=0)
    np.testing.assert_allclose(np.linalg.norm(edges, axis=1), 2.0 / (n_vertices - 1))
    angles = np.unwrap(np.arctan2(edges[:, 1], edges[:, 0]))
    s_vertex = np.arange(1, n_vertices - 1) / (n_vertices - 1)
    curvature_per_body_length = np.diff(angles) * (n_vertices - 1)
    expected = w1 * np.sin(2 * np.pi * xi * s_vertex) + w2 * np.cos(2 * np.pi * xi * s_vertex)
    np.testing.assert_allclose(curvature_per_body_length, expected, atol=2e-3)


def test_elliptic_gait_is_a_closed_loop_of_the_given_ellipse() -> None:
    gait = EllipticGait(sigma=0.5, x_c=1.0, y_c=-2.0, theta_rad=np.pi / 2, a=2.0, xi=1.0)
    coefficients = gait_coefficients(gait, 40)
    assert coefficients.shape == (41, 2)
    np.testing.assert_array_equal(coefficients[0], coefficients[-1])
    np.testing.assert_allclose(coefficients[0], [1.0, 0.0])  # R_90 (a, 0) + centre
    np.testing.assert_allclose(coefficients[10], [1.0 - 1.0, -2.0])  # R_90 (0, a sigma) + centre
    np.testing.assert_allclose(coefficients[:-1].mean(axis=0), [1.0, -2.0], atol=1e-12)  # centred


def test_circular_gait_is_a_wave_travelling_along_the_body() -> None:
    gait = EllipticGait(sigma=1.0, x_c=0.0, y_c=0.0, theta_rad=0.0, a=3.0, xi=1.0)
    coefficients = gait_coefficients(gait, 8)
    s = np.linspace(0, 1, 9)
    first = coefficients[0, 0] * np.sin(2 * np.pi * s) + coefficients[0, 1] * np.cos(2 * np.pi * s)
    later = coefficients[1, 0] * np.sin(2 * np.pi * s) + coefficients[1, 1] * np.cos(2 * np.pi * s)
    np.testing.assert_allclose(later[:-1], first[1:], atol=1e-12)  # shifted by 1/8 body length per 1/8 cycle


def test_joint_angles_rebuild_the_same_shape() -> None:
    coefficients = gait_coefficients(EllipticGait(0.3, 0.5, 0.2, 1.0, 4.0, 0.8), 10)
    shapes = serpenoid_shapes(coefficients, 0.8, 12, length_m=0.92)
    joints = serpenoid_joint_angles_rad(coefficients, 0.8, 10)
    rebuilt = shapes_from_joint_angles(joints, 0.92 / 11)
    for shape, other in zip(shapes, rebuilt):
        distances_a = np.linalg.norm(shape[:, None] - shape[None], axis=-1)
        distances_b = np.linalg.norm(other[:, None] - other[None], axis=-1)
        np.testing.assert_allclose(distances_a, distances_b, atol=1e-12)


@pytest.mark.parametrize('gait, message', [
    (EllipticGait(1.5, 0, 0, 0, 1, 1), 'sigma'),
    (EllipticGait(0.5, 0, 0, 0, -1, 1), 'a \\(semi-axis\\)'),
    (EllipticGait(0.5, 0, 0, 0, 1, 0), 'xi'),
    (EllipticGait(0.5, float('nan'), 0, 0, 1, 1), 'finite'),
])
def test_bad_gait_parameters_are_refused(gait: EllipticGait, message: str) -> None:
    with pytest.raises(PredictorError, match=message):
        gait_shapes(gait)
