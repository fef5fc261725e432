"""The compiled wrench-terrain coupling against the rigid-body formulas written out with numpy."""

from __future__ import annotations

import numpy as np

from cobra_sim.wrench_coupling import apply_wrenches, body_state_into


def test_body_state_moves_the_com_velocity_to_each_origin_and_copies_pose_and_spin() -> None:
    rng = np.random.default_rng(3)
    n_bodies = 6
    xpos, xmat, cvel, subtree_com = (rng.normal(size=(n_bodies, 3)), rng.normal(size=(n_bodies, 9)),
                                     rng.normal(size=(n_bodies, 6)), rng.normal(size=(n_bodies, 3)))
    ids = np.array([1, 2, 4, 5], dtype=np.int64)
    roots = np.array([1, 1, 4, 4], dtype=np.int64)
    out = [np.full((4, 3), np.nan), np.full((4, 3, 3), np.nan), np.full((4, 3), np.nan), np.full((4, 3), np.nan)]
    body_state_into(xpos, xmat, cvel, subtree_com, ids, roots, *out)
    position, rotation, linear, angular = out
    np.testing.assert_array_equal(position, xpos[ids])
    np.testing.assert_array_equal(rotation, xmat[ids].reshape(-1, 3, 3))
    np.testing.assert_array_equal(angular, cvel[ids, :3])
    np.testing.assert_allclose(linear, cvel[ids, 3:] + np.cross(cvel[ids, :3], xpos[ids] - subtree_com[roots]),
                               rtol=0, atol=1e-12)


def test_wrenches_about_the_origin_are_applied_at_the_com_and_kept_as_given() -> None:
    rng = np.random.default_rng(4)
    n_bodies = 5
    ids = np.array([1, 3, 4], dtype=np.int64)
    force, torque = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    xpos, xipos = rng.normal(size=(n_bodies, 3)), rng.normal(size=(n_bodies, 3))
    kept = np.zeros((3, 6))
    xfrc_applied = np.full((n_bodies, 6), 7.0)
    apply_wrenches(force, torque, xipos, xpos, ids, kept, xfrc_applied)
    np.testing.assert_array_equal(kept, np.hstack([force, torque]))
    np.testing.assert_array_equal(xfrc_applied[ids, :3], force)
    np.testing.assert_allclose(xfrc_applied[ids, 3:], torque - np.cross(xipos[ids] - xpos[ids], force), atol=1e-12)
    np.testing.assert_array_equal(xfrc_applied[[0, 2]], 7.0)   # bodies the terrain does not touch keep theirs
    # the same wrench about the COM: moment balance about any point is unchanged
    point = rng.normal(size=3)
    about_point_from_origin = torque + np.cross(xpos[ids] - point, force)
    about_point_from_com = xfrc_applied[ids, 3:] + np.cross(xipos[ids] - point, force)
    np.testing.assert_allclose(about_point_from_com, about_point_from_origin, atol=1e-12)
