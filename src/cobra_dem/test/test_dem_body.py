"""The DEM tumbling body (issue 11): the thesis's wheel and the latched COBRA loop from the URDF.

Pure geometry and mass properties, no DEM engine: what both backends and the rigid reference build on.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cobra_description.robot_model import default_urdf_path, load_robot_model
from cobra_common.rotations import quaternion_from_matrix
from cobra_dem.body import BodyShape
from cobra_dem.scenario import ScenarioError, load_scenario, rigid_slope_acceleration_m_s2, scenario_from_dict

REPO_ROOT = Path(__file__).resolve().parents[3]


def loop_scenario(**bed: float) -> object:
    return scenario_from_dict({'body': {'kind': 'cobra_loop'}, 'bed': dict({'length_m': 0.8}, **bed)}).validate()


@pytest.fixture(scope='module')
def loop() -> BodyShape:
    return loop_scenario().body.shape


def mesh_checks(shape: BodyShape) -> tuple[np.ndarray, float]:
    """Per-face outward test, watertightness, and the enclosed volume (divergence theorem)."""
    v, f = shape.mesh()
    p0, p1, p2 = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    edges = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1)
    _, counts = np.unique(edges, axis=0, return_counts=True)
    assert np.all(counts == 2)                                            # closed (watertight)
    volume = float(np.sum(np.einsum('ij,ij->i', p0, np.cross(p1, p2)))) / 6.0
    return np.cross(p1 - p0, p2 - p0), volume


def test_wheel_is_the_thesis_wheel() -> None:
    shape = scenario_from_dict({}).validate().body.shape
    m, r, w = 6.0, 0.20, 0.12
    assert shape.mass_kg == m and shape.rolling_radius_m == r
    np.testing.assert_allclose(shape.principal_inertia_kg_m2, [m * (0.4 * r * r + w * w / 12), 0.75 * m * r * r,
                                                               m * (0.4 * r * r + w * w / 12)])
    normals, volume = mesh_checks(shape)
    v, f = shape.mesh()
    centroids = v[f].mean(axis=1)
    assert np.all(np.einsum('ij,ij->i', normals, centroids) > 0)          # every face points out (convex)
    # 180-gon: area ratio sin(2 pi/N) N / (2 pi) = 0.99980
    assert volume == pytest.approx(math.pi * r * r * w, rel=5e-4)
    assert np.allclose(np.abs(v[:, 1]).max(), 0.5 * w) and np.allclose(np.hypot(v[:, 0], v[:, 2]).max(), r)
    centres, radii, masses = shape.contact_spheres()
    assert masses.sum() == pytest.approx(m)
    assert np.max(np.hypot(centres[:, 0], centres[:, 2]) + radii) == pytest.approx(r)   # the rim touches r
    # axisymmetric: the lowest point is r below the centre whatever the spin
    quarter = quaternion_from_matrix(np.array([[0.0, 0, 1], [0, 1, 0], [-1, 0, 0]]))
    assert shape.lowest_z_m(np.array([0, 0, 0.3]), quarter) == pytest.approx(0.1)


def test_cobra_loop_carries_the_urdf_mass_in_a_closed_barrel(loop: BodyShape) -> None:
    model = load_robot_model(default_urdf_path())
    assert loop.mass_kg == pytest.approx(model.total_mass_kg)             # 6.0 kg
    ixx, iyy, izz = loop.principal_inertia_kg_m2
    # nearly a ring in the x-z plane: perpendicular axes I_yy ~ I_xx + I_zz (the links' own thickness
    # breaks it a little: measured 0.402 vs 0.408)
    assert iyy == pytest.approx(ixx + izz, rel=0.03)
    assert ixx > 0 and izz > 0
    # a ring of the chain's length: radius L / (2 pi) on the link axes + the link radius 0.045 m
    # (measured 0.3156 vs 0.3161; the polygon's hull perimeter is within 0.2 % of the circle's)
    assert loop.rolling_radius_m == pytest.approx(model.chain_length_m() / (2 * math.pi) + 0.045, rel=0.02)
    assert loop.width_m == pytest.approx(0.09)                            # one link diameter: a planar curl
    # closed: every link's end meets another link's end (the latch gap of the curl is <= 5 mm)
    ends = loop.capsule_ends_m.reshape(-1, 3)
    gaps = np.linalg.norm(ends[:, None, :] - ends[None, :, :], axis=2)
    np.fill_diagonal(gaps, np.inf)
    for k in range(len(ends)):
        gaps[k, k ^ 1] = np.inf                                           # not the other end of the same link
    assert np.max(np.min(gaps, axis=1)) < 0.005
    # body frame: principal, origin at the centre of mass; the spheres LAMMPS sees carry the mass there
    centres, _radii, masses = loop.contact_spheres()
    assert masses.sum() == pytest.approx(loop.mass_kg)
    assert np.linalg.norm(masses @ centres / masses.sum()) < 5e-4        # measured 0.27 mm (the latch servo)


def test_cobra_loop_mesh_is_its_link_cylinders(loop: BodyShape) -> None:
    normals, volume = mesh_checks(loop)
    lengths = np.linalg.norm(loop.capsule_ends_m[:, 1] - loop.capsule_ends_m[:, 0], axis=1)
    exact = float(np.sum(math.pi * loop.capsule_radius_m ** 2 * lengths))
    polygon = 24 / (2 * math.pi) * math.sin(2 * math.pi / 24)            # 24-gon cross-sections: 0.9886
    assert volume == pytest.approx(exact * polygon, rel=1e-6)


def test_cobra_loop_starts_head_down_and_rests_on_the_grains(loop: BodyShape) -> None:
    start = quaternion_from_matrix(loop.start_rotation)
    ends_z = (loop.capsule_ends_m @ loop.start_rotation.T)[:, :, 2]
    lying = np.flatnonzero(np.isclose(ends_z.max(axis=1), ends_z.min(), atol=1e-4))
    assert lying.tolist() == [0, len(ends_z) - 1]        # head_link and link_11 lie flat: the latched side
    assert loop.lowest_z_m(np.zeros(3), start) == pytest.approx(ends_z.min() - 0.045)
    # a flat layer of 3 mm spheres at z = 0: the rest height leaves the loop touching, not overlapping
    grid = np.stack(np.meshgrid(np.arange(-0.4, 0.4, 0.006), np.arange(-0.06, 0.06, 0.006), indexing='ij'), axis=-1)
    grains = np.column_stack([grid.reshape(-1, 2), np.zeros(grid.size // 2)])
    height = loop.rest_height_m(grains, 0.003, 0.0, 0.0)
    assert height is not None
    ends = loop.capsule_ends_m @ loop.start_rotation.T + [0.0, 0.0, height]
    a, b = ends[:, 0][:, None, :], ends[:, 1][:, None, :]
    t = np.clip(np.einsum('kgi,kgi->kg', grains[None] - a, b - a) / np.sum((b - a) ** 2, axis=2), 0.0, 1.0)
    distance = np.linalg.norm(grains[None] - (a + t[..., None] * (b - a)), axis=2) - loop.capsule_radius_m[:, None]
    assert distance.min() == pytest.approx(0.003, abs=2e-4)               # sampled every 2 mm along the axes
    # and it sits on the layer: its lowest point one grain radius above the centres
    assert height + loop.lowest_z_m(np.zeros(3), start) == pytest.approx(0.003, abs=2e-4)


def test_cobra_loop_rolls_slower_than_the_wheel_law_only_by_its_inertia() -> None:
    scenario = loop_scenario()
    shape = scenario.body.shape
    # I_yy / (m r^2) = 0.67 for the loop vs the wheel's 0.75: a rolling loop accelerates faster
    assert shape.principal_inertia_kg_m2[1] / (shape.mass_kg * shape.rolling_radius_m ** 2) == pytest.approx(0.673,
                                                                                                              abs=0.01)
    assert rigid_slope_acceleration_m_s2(scenario) > rigid_slope_acceleration_m_s2(scenario_from_dict({}))
    assert scenario.body.reference_speed_m_s == pytest.approx(math.pi / 4 * shape.rolling_radius_m)


def test_loop_scenario_file_extends_the_wheel_one() -> None:
    cobra = load_scenario(REPO_ROOT / 'config' / 'dem' / 'tumble_cobra.yaml')
    wheel = load_scenario(REPO_ROOT / 'config' / 'dem' / 'tumble_slope.yaml')
    assert cobra.body.kind == 'cobra_loop' and cobra.name == 'tumble_cobra'
    assert cobra.bed.length_m == 0.8 and cobra.bed.depth_m == wheel.bed.depth_m   # merged key by key
    assert cobra.terrain == wheel.terrain and cobra.slope_deg == wheel.slope_deg


def test_bad_bodies_are_refused_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r'bed.length_m = 0.3 is too short for the cobra_loop, whose lowest clump layer alone spans 0.399 m.*make it > 0.425 m'):
        scenario_from_dict({'body': {'kind': 'cobra_loop'}, 'bed': {'length_m': 0.3}}).validate()
    with pytest.raises(ScenarioError, match=r"'body.kind' = 'barrel' is invalid: must be one of \['wheel', 'cobra_loop'\] \(\"wheel\""):
        scenario_from_dict({'body': {'kind': 'barrel'}}).validate()
    boxed = tmp_path / 'boxed.urdf'
    text = default_urdf_path().read_text()
    boxed.write_text(text.replace('<cylinder radius="0.045" length="0.2"/>', '<box size="0.2 0.09 0.09"/>'))
    with pytest.raises(ScenarioError, match="link 'head_link' has a box collision shape.*cylinders or spheres"):
        scenario_from_dict({'body': {'kind': 'cobra_loop', 'urdf': str(boxed)}, 'bed': {'length_m': 0.8}}).validate()
    with pytest.raises(ScenarioError, match='URDF not found'):
        scenario_from_dict({'body': {'kind': 'cobra_loop', 'urdf': str(tmp_path / 'none.urdf')}}).validate()
    looped = tmp_path / 'a.yaml'
    looped.write_text('extends: a.yaml\n')
    with pytest.raises(ScenarioError, match='loops back'):
        load_scenario(looped)
