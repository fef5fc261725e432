"""Chrono DEM-Engine backend of the DEM tumbling scenario (NVIDIA GPU, PyPI `deme` >= 3.0).

`deme` is imported only inside `load_deme()` (its import needs an NVIDIA driver), so this module
imports, and its pure helpers run, on any machine. The model in DEM-Engine terms and the material
mapping: README, "DEM-Engine backend".
"""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cobra_common.rotations import matrix_from_quaternion, quaternion_from_matrix, random_quaternions

from cobra_dem.body import surface_height_m
from cobra_dem.outputs import DemSample, ProgressCallback, record_samples
from cobra_dem.scenario import (GRAVITY_M_S2, DemeUnavailableError, Scenario, ScenarioError,
                                    clump_sphere_offsets_m, clump_volume_m3, deme_problem)

# importing the LAMMPS backend does not import `lammps`: only its cache folder is shared
from cobra_dem.lammps_backend import DEFAULT_CACHE_DIR

GRAIN_FAMILY, BASE_FAMILY, BODY_PARKED_FAMILY, BODY_SETTLE_FAMILY, BODY_RUN_FAMILY = 0, 1, 2, 3, 4
HCP_SPACING_OF_EXTENT = 1.05         # fill lattice spacing / clump bounding diameter (no initial overlap)
WALL_CLEARANCE_OF_EXTENT = 2.0       # body to x wall, in clump sizes
SETTLE_CHUNK_S = 0.02
BODY_DROP_GAP_M = 5e-4
MIN_DEME_MAJOR_VERSION = 3


# --- pure helpers (no deme) ----------------------------------------------------------------------

def material_properties(scenario: Scenario) -> dict[str, dict[str, float]]:
    """The scenario's materials as DEM-Engine `LoadMaterial` dicts, plus the explicit wheel/terrain pair.

    Returns {'terrain': {E, nu, CoR, mu, Crr}, 'wheel': {...}, 'wheel_terrain': {CoR, mu, Crr}}
    (the pair values go to `SetMaterialPropertyPair`)."""
    def props(material: Any) -> dict[str, float]:
        return {'E': material.youngs_modulus_pa, 'nu': material.poisson_ratio, 'CoR': material.restitution,
                'mu': material.friction, 'Crr': material.rolling_resistance}

    return {'terrain': props(scenario.terrain), 'wheel': props(scenario.wheel),
            'wheel_terrain': {'CoR': scenario.wheel_terrain_restitution, 'mu': scenario.wheel_terrain_friction,
                              'Crr': max(scenario.terrain.rolling_resistance, scenario.wheel.rolling_resistance)}}


def clump_mass_properties(scenario: Scenario, samples_per_axis: int = 80) -> tuple[float, list[float]]:
    """Mass and principal inertia (template frame) of the three-sphere clump: union of the spheres
    (overlaps counted once) at the bed density, by grid quadrature."""
    a, spacing = scenario.bed.sphere_radius_m, scenario.bed.clump_spacing_of_radius
    offsets = clump_sphere_offsets_m(a, spacing)
    lo, hi = offsets.min(axis=0) - a, offsets.max(axis=0) + a
    step = (hi - lo) / samples_per_axis
    axes = [lo[k] + step[k] * (np.arange(samples_per_axis) + 0.5) for k in range(3)]
    grid = np.stack(np.meshgrid(*axes, indexing='ij'), axis=-1).reshape(-1, 3)
    inside = np.zeros(len(grid), dtype=bool)
    for centre in offsets:
        inside |= np.sum((grid - centre) ** 2, axis=1) <= a * a
    points = grid[inside]
    mass = scenario.clump_mass_kg                    # rho x union volume (scenario's quadrature)
    cell_mass = mass / len(points)
    x, y, z = points.T
    moi = [float(cell_mass * np.sum(y * y + z * z)), float(cell_mass * np.sum(x * x + z * z)),
           float(cell_mass * np.sum(x * x + y * y))]
    return float(mass), moi


@dataclass(frozen=True)
class DemeLayout:
    """Where things go in DEM-Engine's walled box (bed frame, metres)."""

    length_m: float          # bed/box length along x (>= the scenario's; no periodic x in DEM-Engine)
    width_m: float
    floor_z_m: float         # box bottom (below the base spheres)
    top_z_m: float           # box top
    n_clumps: int
    hcp_spacing_m: float
    fill_centre_m: tuple[float, float, float]
    fill_half_m: tuple[float, float, float]
    body_x_m: float
    body_y_m: float
    body_parked_z_m: float
    travel_bound_m: float


def travel_bound_m(scenario: Scenario) -> float:
    """Upper bound of the body's run along x: frictionless sliding from rest, plus v_ref t when its
    spin is prescribed (a DEM body is slower than either, thesis §28)."""
    sliding_m = 0.5 * GRAVITY_M_S2 * math.sin(math.radians(scenario.slope_deg)) * scenario.duration_s ** 2
    spin_m = scenario.body.reference_speed_m_s * scenario.duration_s if scenario.body.motion == 'prescribed' else 0.0
    return sliding_m + spin_m


def deme_layout(scenario: Scenario) -> DemeLayout:
    """Box, fill and body placement for DEM-Engine (pure: testable without a GPU)."""
    bed, body = scenario.bed, scenario.body
    reach_x, _, reach_z = (float(v) for v in body.shape.half_extent_m())
    a, extent = bed.sphere_radius_m, bed.clump_extent_m
    clearance = WALL_CLEARANCE_OF_EXTENT * extent
    body_x = max(body.start_x_m, reach_x + clearance)
    travel = travel_bound_m(scenario)
    length = max(bed.length_m, body_x + travel + reach_x + clearance)
    n_clumps = max(1, round(bed.fill_packing * length * bed.width_m * bed.depth_m
                            / clump_volume_m3(a, bed.clump_spacing_of_radius)))
    spacing = HCP_SPACING_OF_EXTENT * extent
    margin = 0.5 * spacing
    inner_x, inner_y = length - 2 * margin, bed.width_m - 2 * margin
    if inner_x <= 0 or inner_y <= 0:
        raise ScenarioError(f'the DEM-Engine bed {length:.3f} x {bed.width_m} m has no room for {extent * 1e3:.1f} mm '
                            'clumps: make bed.width_m larger or bed.sphere_radius_m smaller')
    site_density = math.sqrt(2.0) / spacing ** 3               # HCP sites per m^3
    fill_height = n_clumps / (inner_x * inner_y * site_density)
    half_height = 0.5 * (1.3 * fill_height + 2 * spacing)      # generous: the lowest n_clumps sites are kept
    z_low = a + 0.55 * extent                                   # clump centres clear of the base spheres
    fill_centre = (0.5 * length, 0.5 * bed.width_m, z_low + half_height)
    fill_half = (0.5 * inner_x, 0.5 * inner_y, half_height)
    fill_top = z_low + 2 * half_height + extent
    parked_z = fill_top + reach_z + 2 * extent
    return DemeLayout(length_m=length, width_m=bed.width_m, floor_z_m=-2.0 * a,
                      top_z_m=parked_z + reach_z + 0.05, n_clumps=n_clumps, hcp_spacing_m=spacing,
                      fill_centre_m=fill_centre, fill_half_m=fill_half, body_x_m=body_x,
                      body_y_m=0.5 * bed.width_m, body_parked_z_m=parked_z, travel_bound_m=travel)


def base_sphere_centres_m(scenario: Scenario, length_m: float) -> np.ndarray:
    """Rough base: grain-sized spheres on a square lattice at z = 0 (the LAMMPS backend's base)."""
    a, width = scenario.bed.sphere_radius_m, scenario.bed.width_m
    nx, ny = max(1, round(length_m / (2 * a))), max(1, round(width / (2 * a)))
    i, j = np.meshgrid(np.arange(nx), np.arange(ny), indexing='ij')
    return np.stack([(i.ravel() + 0.5) * length_m / nx, (j.ravel() + 0.5) * width / ny, np.zeros(i.size)], axis=1)


def clump_sphere_centres_m(centres_m: np.ndarray, quaternions_xyzw: np.ndarray, offsets_m: np.ndarray) -> np.ndarray:
    """Sphere centres [n * k, 3] (clump-major) of n clumps at centres/orientations with template offsets [k, 3]."""
    rotations = matrix_from_quaternion(np.asarray(quaternions_xyzw, dtype=float).reshape(-1, 4))
    return (np.asarray(centres_m, float)[:, None, :] + np.einsum('nij,kj->nki', rotations, offsets_m)).reshape(-1, 3)


# --- DEM-Engine -----------------------------------------------------------------------------------

def load_deme() -> Any:
    """Import `deme` (>= 3.0) or raise DemeUnavailableError naming the fix."""
    problem = deme_problem()
    if problem:
        raise DemeUnavailableError(problem)
    try:
        import deme
    except (ImportError, OSError) as error:
        raise DemeUnavailableError(
            f'`import deme` failed ({error}): DEM-Engine needs a working NVIDIA driver (libcuda.so.1, CUDA 12.8 '
            'capable) and its CUDA wheels: `pip install "deme[cuda12]"`, or use backend lammps') from error
    version = str(getattr(deme, '__version__', '0'))
    if int(version.split('.')[0] or 0) < MIN_DEME_MAJOR_VERSION:
        raise DemeUnavailableError(f'deme {version} is installed; this backend uses the deme 3 API: '
                                   '`pip install -U "deme[cuda12]"`, or use backend lammps')
    return deme


@dataclass
class DemeTimings:
    """Wall times of a run (s) and the dynamic step counts they cover."""

    init_s: float = 0.0            # Initialize(): JIT compile of the CUDA kernels included
    settle_s: float = 0.0          # bed settling dynamics
    run_dynamics_s: float = 0.0    # body settle + run dynamics (DoDynamicsThenSync only)
    run_steps: int = 0
    grain_spheres: int = 0         # the bed's grain spheres (what the throughput counts)
    bed_length_m: float = 0.0      # the walled box's length (no periodic x here: see deme_layout)


def scenario_samples(scenario: Scenario, cache_dir: Path = DEFAULT_CACHE_DIR, log: Callable[[str], None] = print,
                     timings: DemeTimings | None = None) -> Iterator[DemSample]:
    """Build the bed, settle it, drop and settle the body, tilt gravity and yield a DemSample every
    body_sample_interval_s up to duration_s (same samples as the LAMMPS backend's generator)."""
    deme = load_deme()
    sc, body, shape = scenario, scenario.body, scenario.body.shape
    timings = timings if timings is not None else DemeTimings()
    layout = deme_layout(sc)
    a, extent = sc.bed.sphere_radius_m, sc.bed.clump_extent_m
    props = material_properties(sc)

    solver = deme.DEMSolver([0])                              # one GPU, both workers (demos: DEMSolver([device]))
    solver.SetVerbosity('ERROR')
    terrain = solver.LoadMaterial(props['terrain'])
    body_material = solver.LoadMaterial(props['wheel'])
    for name, value in props['wheel_terrain'].items():
        solver.SetMaterialPropertyPair(name, body_material, terrain, value)
    solver.InstructBoxDomainDimension((0.0, layout.length_m), (0.0, layout.width_m), (layout.floor_z_m, layout.top_z_m))
    solver.InstructBoxDomainBoundingBC('top_open', terrain)

    offsets = clump_sphere_offsets_m(a, sc.bed.clump_spacing_of_radius)
    clump_mass, clump_moi = clump_mass_properties(sc)
    template = solver.LoadClumpType(clump_mass, clump_moi, [a] * 3, offsets.tolist(), terrain)
    sites = np.asarray(deme.HCPSampler(layout.hcp_spacing_m).SampleBox(list(layout.fill_centre_m),
                                                                       list(layout.fill_half_m)), dtype=float)
    if len(sites) < layout.n_clumps:
        raise ScenarioError(f'the HCP fill gave {len(sites)} sites for {layout.n_clumps} clumps: make bed.depth_m '
                            'or bed.fill_packing smaller')
    sites = sites[np.argsort(sites[:, 2], kind='stable')[:layout.n_clumps]]
    grains = solver.AddClumps(template, sites.tolist())
    grains.SetFamily(GRAIN_FAMILY)

    base_centres = base_sphere_centres_m(sc, layout.length_m)
    base_template = solver.LoadSphereType(sc.bed.density_kg_m3 * 4.0 / 3.0 * math.pi * a ** 3, a, terrain)
    base = solver.AddClumps(base_template, base_centres.tolist())
    base.SetFamily(BASE_FAMILY)
    solver.SetFamilyFixed(BASE_FAMILY)
    solver.DisableContactBetweenFamilies(BASE_FAMILY, BASE_FAMILY)

    with tempfile.TemporaryDirectory(prefix='cobra_deme_') as tmp:
        obj_path = Path(tmp) / f'{body.kind}.obj'
        obj_path.write_text(shape.mesh_obj())              # principal frame, origin at the COM
        body_mesh = solver.AddWavefrontMeshObject(str(obj_path), body_material, False, False)
    body_mesh.SetMass(shape.mass_kg)
    body_mesh.SetMOI(list(shape.principal_inertia_kg_m2))
    body_mesh.SetFamily(BODY_PARKED_FAMILY)
    body_mesh.SetInitPos([layout.body_x_m, layout.body_y_m, layout.body_parked_z_m])
    solver.SetFamilyFixed(BODY_PARKED_FAMILY)
    solver.DisableContactBetweenFamilies(BODY_PARKED_FAMILY, GRAIN_FAMILY)
    solver.DisableContactBetweenFamilies(BODY_PARKED_FAMILY, BASE_FAMILY)
    # settle on the level bed: no spin, no sideways motion, translation otherwise free
    solver.SetFamilyPrescribedAngVel(BODY_SETTLE_FAMILY, '0', '0', '0', False)
    solver.SetFamilyPrescribedLinVel(BODY_SETTLE_FAMILY, 'none', '0', 'none', False)
    spin_y = repr(float(body.angular_speed_rad_s)) if body.motion == 'prescribed' else 'none'
    solver.SetFamilyPrescribedAngVel(BODY_RUN_FAMILY, '0', spin_y, '0', False)
    solver.SetFamilyPrescribedLinVel(BODY_RUN_FAMILY, 'none', '0', 'none', False)

    grain_tracker = solver.Track(grains)
    body_tracker = solver.Track(body_mesh)
    max_speed = solver.CreateInspector('clump_max_absv')
    solver.SetTimeStepSize(sc.dt_s)
    solver.SetGravitationalAcceleration([0.0, 0.0, -GRAVITY_M_S2])
    # the margin must cover the spinning rim (centrifuge.py's advice for prescribed rotation)
    solver.SetExpandSafetyAdder(max(0.5, 2.0 * body.reference_speed_m_s))
    log(sc.time_step_report())
    log(f'DEM-Engine {getattr(deme, "__version__", "?")}: {layout.n_clumps} clumps ({3 * layout.n_clumps} spheres) + '
        f'{len(base_centres)} base spheres in a {layout.length_m:.3f} x {layout.width_m} m walled box (x wall to wall: '
        f'no periodic x, body travel bound {layout.travel_bound_m:.2f} m); JIT-compiling kernels (minutes on a '
        'cold cache)')
    started = time.monotonic()
    solver.Initialize()
    solver.DoDynamicsThenSync(0.0)                         # synchronized stance (pyDEME_WheelDPSimplified.py)
    timings.init_s = time.monotonic() - started
    grain_tracker.SetOriQ(random_quaternions(layout.n_clumps, np.random.default_rng(sc.bed.seed)).tolist())

    # 1) settle the bed under bed-normal gravity
    started = time.monotonic()
    t_s, vmax = 0.0, float('inf')
    while True:
        solver.DoDynamicsThenSync(SETTLE_CHUNK_S)
        t_s += SETTLE_CHUNK_S
        vmax = float(max_speed.GetValue())
        if (t_s >= sc.bed.settle_time_s and vmax < sc.bed.settle_speed_m_s) or t_s >= sc.bed.settle_max_time_s:
            break
    timings.settle_s = time.monotonic() - started
    log(f'settled {layout.n_clumps} clumps in {t_s:.2f} s simulated (fastest sphere {vmax:.3g} m/s), '
        f'{timings.settle_s:.1f} s wall; Initialize {timings.init_s:.1f} s')

    def grain_spheres() -> np.ndarray:
        return clump_sphere_centres_m(np.asarray(grain_tracker.Positions(), float),
                                      np.asarray(grain_tracker.OrientationQuaternions(), float), offsets)

    spheres = grain_spheres()
    reach_x, reach_y, _ = (float(v) for v in shape.half_extent_m())
    surface_m = surface_height_m(spheres, a, (layout.body_x_m - reach_x, layout.body_x_m + reach_x),
                                 (layout.body_y_m - reach_y, layout.body_y_m + reach_y), extent)
    start_xyzw = quaternion_from_matrix(shape.start_rotation)
    rest = shape.rest_height_m(spheres, a, layout.body_x_m, layout.body_y_m)
    z_centre = (rest + BODY_DROP_GAP_M if rest is not None
                else surface_m - shape.lowest_z_m(np.zeros(3), start_xyzw))
    body_tracker.SetPos([layout.body_x_m, layout.body_y_m, z_centre])
    body_tracker.SetOriQ([float(v) for v in start_xyzw])
    body_tracker.SetVel([0.0, 0.0, 0.0])
    body_tracker.SetAngVel([0.0, 0.0, 0.0])
    body_tracker.SetFamily(BODY_SETTLE_FAMILY)
    log(f'bed surface {surface_m * 1e3:.1f} mm; the {body.kind} settles {body.settle_time_s} s on the level bed '
        'before the slope')

    # 2) the body settles without spin; 3) slope + motion from t = 0
    chunk_started = time.monotonic()
    solver.DoDynamicsThenSync(body.settle_time_s)
    timings.run_dynamics_s += time.monotonic() - chunk_started
    timings.run_steps += max(1, round(body.settle_time_s / sc.dt_s))
    theta = math.radians(sc.slope_deg)
    solver.SetGravitationalAcceleration([GRAVITY_M_S2 * math.sin(theta), 0.0, -GRAVITY_M_S2 * math.cos(theta)])
    body_tracker.SetFamily(BODY_RUN_FAMILY)

    grain_radius_m = np.full(3 * layout.n_clumps, a)
    timings.grain_spheres, timings.bed_length_m = len(grain_radius_m), layout.length_m
    grain_clump_id = np.repeat(np.arange(1, layout.n_clumps + 1, dtype=np.int32), 3)
    sample_steps = max(1, round(sc.body_sample_interval_s / sc.dt_s))
    samples_per_snapshot = max(1, round(sc.output_interval_s / (sample_steps * sc.dt_s)))
    total_samples = math.ceil(sc.duration_s / (sample_steps * sc.dt_s))
    for k in range(total_samples + 1):
        if k > 0:
            chunk_started = time.monotonic()
            solver.DoDynamicsThenSync(sample_steps * sc.dt_s)
            timings.run_dynamics_s += time.monotonic() - chunk_started
            timings.run_steps += sample_steps
        forces, torques = body_tracker.ContactWrenches()
        state = {'position_m': np.asarray(body_tracker.Pos(), float),
                 'quaternion_xyzw': np.asarray(body_tracker.OriQ(), float),
                 'velocity_m_s': np.asarray(body_tracker.Vel(), float),
                 'angular_velocity_rad_s': np.asarray(body_tracker.AngVelGlobal(), float),
                 'contact_force_n': np.asarray(forces[0], float),
                 'contact_torque_nm': np.asarray(torques[0], float)}
        positions = grain_spheres() if k % samples_per_snapshot == 0 else None
        yield DemSample(t_s=k * sample_steps * sc.dt_s, body=state, surface_m=surface_m,
                        sinkage_m=surface_m - shape.lowest_z_m(state['position_m'], state['quaternion_xyzw']),
                        grain_positions_m=positions, grain_radius_m=grain_radius_m, grain_clump_id=grain_clump_id,
                        bed_length_m=layout.length_m, bed_width_m=layout.width_m, final=k == total_samples)


def run_scenario(scenario: Scenario, out_dir: Path, cache_dir: Path = DEFAULT_CACHE_DIR,
                 progress: ProgressCallback | None = None, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run scenario_samples to the end and write trajectory.npz, particles.npz and summary.json
    (outputs.py's writers: the LAMMPS backend's formats); returns the summary with timings."""
    timings = DemeTimings()
    summary = record_samples(scenario_samples(scenario, cache_dir, log=log, timings=timings),
                             scenario, out_dir, progress)
    summary.update({
        'deme_init_s': timings.init_s, 'deme_settle_s': timings.settle_s,
        'deme_run_dynamics_s': timings.run_dynamics_s, 'deme_run_steps': timings.run_steps,
        'deme_grain_spheres': timings.grain_spheres, 'deme_bed_length_m': timings.bed_length_m,
        'deme_sphere_steps_per_s': (timings.grain_spheres * timings.run_steps / timings.run_dynamics_s
                                    if timings.run_dynamics_s > 0 else float('nan'))})
    return summary
