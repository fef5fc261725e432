"""Module edges of the latched COBRA loop (cobra_dem.body, module_edge_height_m): a ring standing
proud of the link shell at every joint, the contact geometry the real loop has and the smooth
link cylinders lack (the loop's skid on DEM sand: cobra_experiments.loop_friction)."""

from __future__ import annotations

import numpy as np
import pytest

from cobra_common.rotations import quaternion_from_matrix
from cobra_dem.body import BodyError, BodySpec, module_edge_spheres


def test_one_ring_per_joint_of_a_closed_chain_on_the_shell() -> None:
    # a closed square of four capsules (radius 45 mm): four joints, one ring each
    corners = np.array([[0.0, 0.0, 0.0], [0.2, 0.0, 0.0], [0.2, 0.0, 0.2], [0.0, 0.0, 0.2]])
    ends = np.stack([corners, np.roll(corners, -1, axis=0)], axis=1)
    centres = module_edge_spheres(ends, np.full(4, 0.045), 0.008)
    per_ring = int(np.ceil(2 * np.pi * 0.045 / 0.008))
    assert len(centres) == 4 * per_ring
    distance_to_corner = np.min(np.linalg.norm(centres[:, None, :] - corners[None], axis=2), axis=1)
    np.testing.assert_allclose(distance_to_corner, 0.045, atol=1e-9)   # on the shell: 8 mm proud


def test_edges_change_the_contact_geometry_not_the_mass() -> None:
    smooth = BodySpec(kind='cobra_loop').shape
    edged = BodySpec(kind='cobra_loop', module_edge_height_m=0.008).shape
    assert edged.mass_kg == smooth.mass_kg
    assert edged.principal_inertia_kg_m2 == smooth.principal_inertia_kg_m2
    centres, radii, masses = edged.contact_spheres()
    assert len(centres) == len(smooth.contact_spheres()[0]) + len(edged.edge_centres_m)
    assert len(edged.edge_centres_m) == 12 * int(np.ceil(2 * np.pi * 0.045 / 0.008))   # 12 joints incl. the latch
    assert masses[-len(edged.edge_centres_m):].sum() < 1e-3
    start = quaternion_from_matrix(smooth.start_rotation)     # lying on its flat head-tail side
    assert edged.lowest_z_m(np.zeros(3), start) == pytest.approx(smooth.lowest_z_m(np.zeros(3), start) - 0.008,
                                                                 abs=1.5e-3)
    assert edged.width_m == pytest.approx(smooth.width_m + 2 * 0.008, abs=1e-3)
    # DEM-Engine's mesh carries them too: one collar (r 45 + 8 mm, 16 mm long) per joint
    smooth_vertices, _ = smooth.mesh()
    edged_vertices, _ = edged.mesh()
    assert len(edged.edge_collar_ends_m) == 12
    assert len(edged_vertices) == len(smooth_vertices) * 2
    np.testing.assert_allclose(np.linalg.norm(np.diff(edged.edge_collar_ends_m, axis=1), axis=2), 0.016)


def test_a_negative_edge_height_is_refused() -> None:
    with pytest.raises(BodyError, match='module_edge_height_m'):
        BodySpec(kind='cobra_loop', module_edge_height_m=-0.01).shape
