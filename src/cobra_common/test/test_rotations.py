"""The project's one rotation module: convention (x, y, z, w), stacking, edges and policies."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cobra_common.rotations import (QuaternionError, checked_unit_quaternion, matrix_about_axis,
                                    matrix_from_quaternion, matrix_from_rotation_vector, matrix_from_rpy,
                                    quaternion_about_z, quaternion_from_matrix, random_quaternions,
                                    rotation_angle_rad, rotation_vector_from_matrix, slope_rotation,
                                    wxyz_from_xyzw, xyzw_from_wxyz, yaw_from_quaternion)

QUARTER_TURN_ABOUT_Z = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])


def test_quaternions_are_scalar_last() -> None:
    q = np.array([0.0, 0.0, math.sqrt(0.5), math.sqrt(0.5)])
    np.testing.assert_allclose(matrix_from_quaternion(q), QUARTER_TURN_ABOUT_Z, atol=1e-12)
    np.testing.assert_allclose(quaternion_from_matrix(QUARTER_TURN_ABOUT_Z), q, atol=1e-12)


def test_round_trip_including_half_turns_keeps_w_non_negative() -> None:
    rng = np.random.default_rng(3)
    rotations = [matrix_from_rpy(*rng.uniform(-math.pi, math.pi, 3)) for _ in range(200)]
    rotations += [np.diag([1.0, -1.0, -1.0]), np.diag([-1.0, 1.0, -1.0]), np.diag([-1.0, -1.0, 1.0])]
    stacked = np.array(rotations)
    quaternions = quaternion_from_matrix(stacked)
    assert quaternions.shape == (len(rotations), 4)
    np.testing.assert_allclose(np.linalg.norm(quaternions, axis=1), 1.0, rtol=1e-12)
    assert np.all(quaternions[:, 3] >= 0.0)
    np.testing.assert_allclose(matrix_from_quaternion(quaternions), stacked, atol=1e-12)


def test_stacks_keep_their_leading_shape_and_quaternions_are_normalised() -> None:
    q = random_quaternions(6, np.random.default_rng(1)).reshape(2, 3, 4)
    assert matrix_from_quaternion(2.0 * q).shape == (2, 3, 3, 3)
    np.testing.assert_allclose(matrix_from_quaternion(2.0 * q), matrix_from_quaternion(q), atol=1e-12)
    assert quaternion_from_matrix(matrix_from_quaternion(q)).shape == (2, 3, 4)


def test_w_first_edge_only_moves_the_scalar() -> None:
    np.testing.assert_array_equal(xyzw_from_wxyz([1.0, 2.0, 3.0, 4.0]), [2.0, 3.0, 4.0, 1.0])
    np.testing.assert_array_equal(wxyz_from_xyzw([[2.0, 3.0, 4.0, 1.0]]), [[1.0, 2.0, 3.0, 4.0]])


def test_rpy_is_urdf_fixed_axis_order() -> None:
    roll, pitch, yaw = 0.3, -0.7, 1.9
    rx = matrix_about_axis((1, 0, 0), roll)
    ry = matrix_about_axis((0, 1, 0), pitch)
    rz = matrix_about_axis((0, 0, 1), yaw)
    np.testing.assert_allclose(matrix_from_rpy(roll, pitch, yaw), rz @ ry @ rx, atol=1e-12)
    np.testing.assert_allclose(matrix_from_rpy(0.0, 0.0, math.pi / 2), QUARTER_TURN_ABOUT_Z, atol=1e-12)


def test_axis_turns_batch_over_angles_and_take_any_axis_length() -> None:
    turns = matrix_about_axis((0.0, 0.0, 5.0), np.array([0.0, math.pi / 2]))
    np.testing.assert_allclose(turns[0], np.eye(3), atol=1e-12)
    np.testing.assert_allclose(turns[1], QUARTER_TURN_ABOUT_Z, atol=1e-12)
    axis, angle = np.array([0.3, -1.2, 0.5]), 2.3
    np.testing.assert_allclose(matrix_about_axis(axis, angle), matrix_about_axis(axis, np.array([angle]))[0],
                               atol=1e-12)  # one angle (the direct formula) = the batched scipy path


def test_rotation_vectors_round_trip_and_half_turn_angle() -> None:
    vector = np.array([0.4, -1.1, 0.7])
    np.testing.assert_allclose(rotation_vector_from_matrix(matrix_from_rotation_vector(vector)), vector, atol=1e-12)
    half_turn = matrix_from_quaternion([0.0, 1.0, 0.0, 0.0])
    np.testing.assert_allclose(np.abs(rotation_vector_from_matrix(half_turn)), [0.0, math.pi, 0.0], atol=1e-9)
    assert rotation_angle_rad(half_turn) == pytest.approx(math.pi)


def test_yaw_of_a_pitched_body_is_its_heading() -> None:
    tilted = matrix_from_rpy(0.0, 0.4, 2.5)
    assert yaw_from_quaternion(quaternion_from_matrix(tilted)) == pytest.approx(2.5)
    yaws = np.array([-3.0, 0.0, 1.0])
    np.testing.assert_allclose(yaw_from_quaternion(quaternion_about_z(yaws)), yaws, atol=1e-12)


def test_nearly_unit_quaternion_is_normalised_and_a_corrupt_one_named() -> None:
    np.testing.assert_allclose(checked_unit_quaternion(np.array([0, 0, 0, 1.004])), [0, 0, 0, 1])
    with pytest.raises(QuaternionError, match='norm'):
        checked_unit_quaternion(np.array([0, 0, 0, 0.5]))
    with pytest.raises(QuaternionError, match='finite'):
        checked_unit_quaternion(np.array([0, 0, np.nan, 1]))


def test_random_quaternions_are_unit_and_seeded() -> None:
    first = random_quaternions(50, np.random.default_rng(9))
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(first, random_quaternions(50, np.random.default_rng(9)))


def test_slope_rotation_points_x_downhill_and_z_along_the_normal() -> None:
    rotation = slope_rotation(30.0)
    np.testing.assert_allclose(rotation[:, 0], [math.cos(math.radians(30)), 0.0, -math.sin(math.radians(30))], atol=1e-12)
    np.testing.assert_allclose(rotation[:, 2], [math.sin(math.radians(30)), 0.0, math.cos(math.radians(30))], atol=1e-12)
