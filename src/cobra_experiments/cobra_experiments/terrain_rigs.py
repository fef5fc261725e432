"""Test rigs for the terrain validation: bodies driven on `cobra_soil` terrains through their public API.

Each rig is its own small integrator (semi-implicit Euler at the thesis's 1 ms step, rotation
locked unless it is prescribed), as a bevameter or a single-wheel test stand holds its specimen:
- `PlateRig`: a rigid plate loaded vertically (free vertical DOF) and dragged at a prescribed speed;
- `run_wheel`: the single-wheel test, the wheel's vertical DOF free under its load, forward speed
  v = r ω (1 - i) and spin ω prescribed, measuring sinkage, drawbar pull and driving torque;
- `run_link_hold`: a COBRA-sized link settled on the soil, then free to slide under a constant side
  load or tilted gravity (the patch stays flat; gravity tilts);
- `run_block_on_slope`: a block on the compliant ground under tilted gravity.
Loads are ramped (smoothstep) so results are the soil law, not the specimen's overshoot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from cobra_soil import (BodyGeometry, BulldozingParams, CollisionShape, CompliantGround, CompliantParams,
                        GridParams, ScmParams, ScmTerrain)

G_M_S2 = 9.81
DT_S = 1e-3
# Shape axis (local z) along the body's y: a wheel rolling along x about y.
AXIS_ALONG_Y = ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.0, -1.0, 0.0))
# Shape axis along the body's x: a COBRA link lying with its axis horizontal.
AXIS_ALONG_X = ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0), (-1.0, 0.0, 0.0))


def smoothstep(s: float) -> float:
    s = min(max(s, 0.0), 1.0)
    return s * s * (3.0 - 2.0 * s)


def patch_b_m(terrain: ScmTerrain) -> float:
    """SCM's b = 2A/L of the loaded nodes' convex hull (what the terrain used for k_c/b), from the
    public height-map snapshot; nan without a 2-D patch."""
    snapshot = terrain.heightmap()
    points = np.column_stack([snapshot.x_m[snapshot.loaded], snapshot.y_m[snapshot.loaded]])
    if points.shape[0] < 3:
        return math.nan
    try:
        hull = ConvexHull(points)
    except QhullError:   # collinear points: no 2-D patch
        return math.nan
    return 2.0 * hull.volume / hull.area   # 2-D hull: volume = area, area = perimeter


# ------------------------------------------------------------------------------------ plate

class PlateRig:
    """A box plate (rotation locked) on SCM soil: vertical motion integrated, horizontal prescribed.

    The plate centre sits half a spacing off the grid so exactly (length/Δ) x (width/Δ) nodes lie
    under it: the loaded area is the plate's area.
    """

    def __init__(self, params: ScmParams, length_x_m: float, width_y_m: float, mass_kg: float) -> None:
        self.half_z_m = 0.01
        spacing = params.grid.spacing_m
        plate = BodyGeometry('plate', mass_kg, (CollisionShape('box', (0.5 * length_x_m, 0.5 * width_y_m,
                                                                       self.half_z_m)),))
        self.terrain = ScmTerrain(params, [plate])
        self.mass_kg = mass_kg
        self.area_m2 = length_x_m * width_y_m
        self.position = np.array([[0.5 * spacing, 0.5 * spacing, self.half_z_m]])
        self.velocity = np.zeros((1, 3))
        self.rotation = np.eye(3)[None]
        self.omega = np.zeros((1, 3))
        self.force_n = np.zeros(3)
        self.travel_m = 0.0

    @property
    def sinkage_m(self) -> float:
        return -(self.position[0, 2] - self.half_z_m)

    def step(self, load_n: float, speed_x_m_s: float = 0.0) -> None:
        self.velocity[0, 0] = speed_x_m_s
        force, _ = self.terrain.step(self.position, self.rotation, self.velocity, self.omega, DT_S)
        self.force_n = force[0].copy()
        self.velocity[0, 2] += DT_S * (self.force_n[2] - load_n) / self.mass_kg
        self.position[0, 2] += DT_S * self.velocity[0, 2]
        self.position[0, 0] += DT_S * speed_x_m_s
        self.travel_m += DT_S * speed_x_m_s

    def ramp(self, from_n: float, to_n: float, ramp_s: float = 1.5, hold_s: float = 0.5) -> None:
        steps = int(round(ramp_s / DT_S))
        for k in range(steps):
            self.step(from_n + (to_n - from_n) * smoothstep((k + 1) / steps))
        for _ in range(int(round(hold_s / DT_S))):
            self.step(to_n)


def plate_params(soil: object, spacing_m: float) -> ScmParams:
    """A 2 m x 1 m patch of the given SoilParams, bulldozing off (the closed forms have none)."""
    return ScmParams(soil=soil, grid=GridParams(size_x_m=2.0, size_y_m=1.0, spacing_m=spacing_m),
                     bulldozing=BulldozingParams(enabled=False))


@dataclass(frozen=True)
class DragTrace:
    """Plate dragged at constant speed: traction and normal load against travel."""

    speed_m_s: float
    travel_m: np.ndarray
    traction_n: np.ndarray        # soil force against the drag (positive resists)
    normal_n: np.ndarray


def run_plate_drag(params: ScmParams, length_x_m: float, width_y_m: float, load_n: float, speed_m_s: float,
                   travel_m: float) -> DragTrace:
    """Load a plate, then drag it along its length at a constant speed (vertical DOF free)."""
    rig = PlateRig(params, length_x_m, width_y_m, load_n / G_M_S2)
    rig.ramp(0.0, load_n)
    steps = int(round(travel_m / (speed_m_s * DT_S)))
    every = max(1, steps // 2000)
    travel, traction, normal = [], [], []
    rig.travel_m = 0.0
    for k in range(steps):
        rig.step(load_n, speed_m_s)
        if k % every == every - 1 or k == steps - 1:
            travel.append(rig.travel_m)
            traction.append(-rig.force_n[0])
            normal.append(rig.force_n[2])
    return DragTrace(speed_m_s, np.array(travel), np.array(traction), np.array(normal))


# ------------------------------------------------------------------------------------ wheel

@dataclass(frozen=True)
class WheelRun:
    """Single-wheel test at one slip: means over the measuring window (after the wheel left its
    start rut and its contact is fresh soil)."""

    slip: float
    sinkage_m: float
    drawbar_pull_n: float
    torque_nm: float
    normal_load_n: float
    patch_b_m: float
    travel_m: np.ndarray
    sinkage_trace_m: np.ndarray
    drawbar_pull_trace_n: np.ndarray


@dataclass(frozen=True)
class WheelSetup:
    """The wheel and how it is run (thesis wheel: r 0.20 m, width 0.12 m)."""

    radius_m: float = 0.20
    width_m: float = 0.12
    load_n: float = 6.0 * G_M_S2          # the thesis's 6 kg wheel
    speed_m_s: float = 0.1                # forward speed v (ω = v / (r (1 - i)))
    spacing_m: float = 0.005
    settle_s: float = 1.5                 # load ramped over 1 s at rest, then held
    travel_m: float = 0.5
    measure_from_m: float = 0.3           # the start rut is ±0.1 m long; the contact is fresh soil after this


def wheel_params(soil: object, numerics: object, setup: WheelSetup) -> ScmParams:
    length = setup.travel_m + 1.0
    cells = math.ceil(length / setup.spacing_m)
    return ScmParams(soil=soil, numerics=numerics,
                     grid=GridParams(size_x_m=cells * setup.spacing_m, size_y_m=0.4, spacing_m=setup.spacing_m,
                                     center_xy_m=(0.5 * cells * setup.spacing_m - 0.5, 0.0)),
                     bulldozing=BulldozingParams(enabled=False))


def _new_wheel(params: ScmParams, setup: WheelSetup) -> tuple[ScmTerrain, float]:
    mass_kg = setup.load_n / G_M_S2
    wheel = BodyGeometry('wheel', mass_kg, (CollisionShape('cylinder', (setup.radius_m, 0.5 * setup.width_m),
                                                           rotation=AXIS_ALONG_Y),))
    return ScmTerrain(params, [wheel]), mass_kg


def run_wheel_at_rest(params: ScmParams, setup: WheelSetup) -> tuple[float, float]:
    """Wheel pressed straight down by its load: (sinkage m, SCM patch b m)."""
    terrain, mass_kg = _new_wheel(params, setup)
    position = np.array([[0.0, 0.5 * setup.spacing_m, setup.radius_m]])
    _settle_wheel(terrain, mass_kg, position, setup)
    return setup.radius_m - position[0, 2], patch_b_m(terrain)


def _settle_wheel(terrain: ScmTerrain, mass_kg: float, position: np.ndarray, setup: WheelSetup) -> np.ndarray:
    velocity = np.zeros((1, 3))
    rotation = np.eye(3)[None]
    omega = np.zeros((1, 3))
    ramp_steps = int(round(1.0 / DT_S))
    for k in range(int(round(setup.settle_s / DT_S))):
        load = setup.load_n * smoothstep((k + 1) / ramp_steps)
        force, _ = terrain.step(position, rotation, velocity, omega, DT_S)
        velocity[0, 2] += DT_S * (force[0, 2] - load) / mass_kg
        position[0, 2] += DT_S * velocity[0, 2]
    return velocity


def run_wheel(params: ScmParams, setup: WheelSetup, slip: float) -> WheelRun:
    """Settle the wheel at rest, then drive it at slip i: v and ω prescribed, vertical DOF free.

    Drawbar pull is the soil's force along the travel (+x); driving torque is what the axle must
    supply about +y to hold ω against the soil.
    """
    terrain, mass_kg = _new_wheel(params, setup)
    position = np.array([[0.0, 0.5 * setup.spacing_m, setup.radius_m]])
    velocity = _settle_wheel(terrain, mass_kg, position, setup)
    rotation = np.eye(3)[None]
    omega = np.zeros((1, 3))
    omega[0, 1] = setup.speed_m_s / (setup.radius_m * (1.0 - slip))
    velocity[0, 0] = setup.speed_m_s
    steps = int(round(setup.travel_m / (setup.speed_m_s * DT_S)))
    start_x = position[0, 0]
    travel = np.empty(steps)
    sinkage = np.empty(steps)
    pull = np.empty(steps)
    torque = np.empty(steps)
    normal = np.empty(steps)
    for k in range(steps):
        force, torque_origin = terrain.step(position, rotation, velocity, omega, DT_S)
        velocity[0, 2] += DT_S * (force[0, 2] - setup.load_n) / mass_kg
        position[0, 2] += DT_S * velocity[0, 2]
        position[0, 0] += DT_S * setup.speed_m_s
        travel[k] = position[0, 0] - start_x
        sinkage[k] = setup.radius_m - position[0, 2]
        pull[k] = force[0, 0]
        torque[k] = -torque_origin[0, 1]
        normal[k] = force[0, 2]
    window = travel >= setup.measure_from_m
    return WheelRun(slip=slip, sinkage_m=float(sinkage[window].mean()), drawbar_pull_n=float(pull[window].mean()),
                    torque_nm=float(torque[window].mean()), normal_load_n=float(normal[window].mean()),
                    patch_b_m=patch_b_m(terrain), travel_m=travel[::10], sinkage_trace_m=sinkage[::10],
                    drawbar_pull_trace_n=pull[::10])


def rigid_unloading(params: ScmParams, elastic_k_pa_m: float = 1e10) -> ScmParams:
    """The same soil with (nearly) rigid unloading: no elastic rebound carrying the rear of a wheel."""
    return replace(params, soil=replace(params.soil, elastic_k_pa_m=elastic_k_pa_m))


# ------------------------------------------------------------------------------------- link

LINK_MASS_KG = 0.464        # a COBRA module (URDF)
LINK_RADIUS_M = 0.045
LINK_HALF_LENGTH_M = 0.068


@dataclass(frozen=True)
class HoldTrace:
    """A link on the soil under a constant side load (or tilted gravity) after settling."""

    time_s: np.ndarray
    displacement_m: np.ndarray      # along the side load, from where it was released
    normal_load_n: float            # soil's vertical force when released
    contact_area_m2: float          # loaded nodes x Δ² when released
    side_load_n: float
    sinkage_m: float = 0.0          # of the link's lowest line below the soil level when released

    @property
    def final_displacement_m(self) -> float:
        return float(self.displacement_m[-1])

    def creep_m_s(self, over_s: float = 1.0) -> float:
        """Mean speed over the last `over_s` seconds."""
        k = int(np.searchsorted(self.time_s, self.time_s[-1] - over_s))
        return float((self.displacement_m[-1] - self.displacement_m[k]) / (self.time_s[-1] - self.time_s[k]))


def run_link_hold(params: ScmParams, side_load_fraction: float = 0.0, tilt_deg: float = 0.0, hold_s: float = 5.0,
                  along_axis: bool = False, ramp_s: float = 2.0, axis_on_node_row: bool = True) -> HoldTrace:
    """Settle the link (axis along x, rotation locked) on the soil under gravity, then free its
    horizontal motion and ramp up a side load (smoothstep over `ramp_s`, then held `hold_s`), as a
    shear test or a tilting table loads: `side_load_fraction` x F_n tan φ as an applied force, or
    gravity tilted by `tilt_deg` (the patch stays flat). Across the link's axis (+y) unless
    `along_axis` (+x). The axis lies over a node row, or midway between two (`axis_on_node_row`
    false): a contact a few nodes wide meets fresh soil sooner in one placement than in the other.
    A step load would overshoot to ~2 j* (a mass on a softening spring): rig dynamics, not the soil law."""
    link = BodyGeometry('link', LINK_MASS_KG, (CollisionShape('cylinder', (LINK_RADIUS_M, LINK_HALF_LENGTH_M),
                                                              rotation=AXIS_ALONG_X),))
    terrain = ScmTerrain(params, [link])
    spacing = params.grid.spacing_m
    direction = np.array([1.0, 0.0, 0.0]) if along_axis else np.array([0.0, 1.0, 0.0])
    position = np.array([[0.5 * spacing, 0.0 if axis_on_node_row else 0.5 * spacing, LINK_RADIUS_M]])
    velocity = np.zeros((1, 3))
    rotation = np.eye(3)[None]
    omega = np.zeros((1, 3))
    settle_ramp = int(round(0.5 / DT_S))
    force = np.zeros((1, 3))
    for k in range(int(round(1.5 / DT_S))):   # settle: vertical only, gravity ramped in
        force, _ = terrain.step(position, rotation, velocity, omega, DT_S)
        velocity[0, 2] += DT_S * (force[0, 2] / LINK_MASS_KG - G_M_S2 * smoothstep((k + 1) / settle_ramp))
        position[0, 2] += DT_S * velocity[0, 2]
    normal_n = float(force[0, 2])
    area = float(terrain.contact_nodes_per_body[0]) * spacing * spacing
    sinkage_at_release = params.grid.reference_level_m - (position[0, 2] - LINK_RADIUS_M)
    tan_phi = math.tan(math.radians(params.soil.mohr_friction_deg))
    side_load = side_load_fraction * normal_n * tan_phi
    tilt = math.radians(tilt_deg)
    start = position[0, :2].copy()
    ramp_steps = max(1, int(round(ramp_s / DT_S)))
    steps = ramp_steps + int(round(hold_s / DT_S))
    time = np.empty(steps)
    displacement = np.empty(steps)
    for k in range(steps):
        u = smoothstep((k + 1) / ramp_steps)
        angle = u * tilt
        acceleration_load = (u * side_load / LINK_MASS_KG + G_M_S2 * math.sin(angle)) * direction
        acceleration_load[2] = -G_M_S2 * math.cos(angle)
        force, _ = terrain.step(position, rotation, velocity, omega, DT_S)
        velocity[0] += DT_S * (force[0] / LINK_MASS_KG + acceleration_load)
        position[0] += DT_S * velocity[0]
        time[k] = (k + 1) * DT_S
        displacement[k] = (position[0, :2] - start) @ direction[:2]
    applied = side_load + LINK_MASS_KG * G_M_S2 * math.sin(tilt)
    return HoldTrace(time, displacement, normal_n, area, applied, sinkage_at_release)


def run_link_drag_across(params: ScmParams, speed_m_s: float = 0.01, distance_m: float = 0.10) -> tuple[float, float]:
    """The settled link dragged across its axis at a constant speed (vertical DOF free): the mean
    and the largest horizontal / vertical force over the last 40 % of the travel (steady state)."""
    link = BodyGeometry('link', LINK_MASS_KG, (CollisionShape('cylinder', (LINK_RADIUS_M, LINK_HALF_LENGTH_M),
                                                              rotation=AXIS_ALONG_X),))
    terrain = ScmTerrain(params, [link])
    spacing = params.grid.spacing_m
    position = np.array([[0.5 * spacing, 0.5 * spacing, LINK_RADIUS_M]])
    velocity = np.zeros((1, 3))
    rotation = np.eye(3)[None]
    omega = np.zeros((1, 3))
    settle_ramp = int(round(0.5 / DT_S))
    for k in range(int(round(1.5 / DT_S))):
        force, _ = terrain.step(position, rotation, velocity, omega, DT_S)
        velocity[0, 2] += DT_S * (force[0, 2] / LINK_MASS_KG - G_M_S2 * smoothstep((k + 1) / settle_ramp))
        position[0, 2] += DT_S * velocity[0, 2]
    steps = int(round(distance_m / (speed_m_s * DT_S)))
    velocity[0, 1] = speed_m_s
    ratios = []
    for k in range(steps):
        force, _ = terrain.step(position, rotation, velocity, omega, DT_S)
        velocity[0, 2] += DT_S * (force[0, 2] / LINK_MASS_KG - G_M_S2)
        position[0, 2] += DT_S * velocity[0, 2]
        position[0, 1] += DT_S * speed_m_s
        if k >= 0.6 * steps and force[0, 2] > 0:
            ratios.append(-force[0, 1] / force[0, 2])
    return float(np.mean(ratios)), float(np.max(ratios))


def link_params(params: ScmParams) -> ScmParams:
    """The soil file as the robot sees it (its spacing, bulldozing and numerics) on a 1 m patch."""
    size_m = round(1.0 / params.grid.spacing_m) * params.grid.spacing_m   # a whole number of cells
    return replace(params, grid=replace(params.grid, size_x_m=size_m, size_y_m=size_m, center_xy_m=(0.0, 0.0)))


# -------------------------------------------------------------------------- compliant block

def run_block_on_slope(params: CompliantParams, slope_deg: float, duration_s: float) -> tuple[np.ndarray, np.ndarray]:
    """Downhill position and velocity, every step, of a 1 kg block (0.1 x 0.1 x 0.05 m, rotation
    locked) on the compliant ground under gravity tilted by `slope_deg`, started at its static
    normal compression so the result is friction, not an impact."""
    mass_kg = 1.0
    half_height_m = 0.025
    block = BodyGeometry('block', mass_kg, (CollisionShape('box', (0.05, 0.05, half_height_m)),))
    ground = CompliantGround(params, [block])
    theta = math.radians(slope_deg)
    gravity = G_M_S2 * np.array([math.sin(theta), 0.0, -math.cos(theta)])
    depth_m = mass_kg * G_M_S2 * math.cos(theta) / (4 * params.normal_stiffness_n_m)   # 4 corner points
    position = np.array([[0.0, 0.0, params.ground_level_m + half_height_m - depth_m]])
    velocity = np.zeros((1, 3))
    rotation = np.eye(3)[None]
    omega = np.zeros((1, 3))
    steps = int(round(duration_s / DT_S))
    xs = np.empty(steps)
    vs = np.empty(steps)
    for k in range(steps):
        force, _ = ground.step(position, rotation, velocity, omega, DT_S)
        velocity[0] += DT_S * (force[0] / mass_kg + gravity)
        position[0] += DT_S * velocity[0]
        xs[k] = position[0, 0]
        vs[k] = velocity[0, 0]
    return xs, vs


RIM_SAMPLE_RADIUS_M = 1e-3   # the small spheres that sample a rim (their lowest point is on the rim)


def sampled_rim(mass_kg: float, radius_m: float, width_m: float, points_per_rim: int
                ) -> tuple[BodyGeometry, list[float]]:
    """A wheel (axis along the body's y) as `points_per_rim` small spheres on each of its two rim
    circles, and the ground area each stands for (arc length x half the width), for
    `CompliantGround(..., point_area_m2=...)`: the §5 law then acts over the whole penetrated arc
    as a per-area foundation."""
    ring = radius_m - RIM_SAMPLE_RADIUS_M
    angles = 2.0 * math.pi * np.arange(points_per_rim) / points_per_rim
    spheres = tuple(CollisionShape('sphere', (RIM_SAMPLE_RADIUS_M,),
                                   (ring * math.cos(phi), side * 0.5 * width_m, ring * math.sin(phi)))
                    for side in (-1.0, 1.0) for phi in angles)
    area_m2 = 2.0 * math.pi * radius_m / points_per_rim * 0.5 * width_m
    return BodyGeometry('wheel', mass_kg, spheres), [area_m2] * len(spheres)


def rolling_rim_wrench(params: CompliantParams, mass_kg: float, radius_m: float, width_m: float, sinkage_m: float,
                       speed_m_s: float, points_per_rim: int, rolls: int = 200) -> tuple[float, float]:
    """The sampled rim rolled at a prescribed speed (ω = v / r, no slip) with its bottom `sinkage_m`
    below the compliant ground, frictionless (the normal law alone): mean vertical force [N] and
    mean moment of the ground about the axle against the rolling [N m], averaged over `rolls`
    steps across one sample spacing (the sampling's phase). The mass sets only the explicit
    damping cap (CompliantParams.explicit_damping_cap)."""
    geometry, areas = sampled_rim(mass_kg, radius_m, width_m, points_per_rim)
    ground = CompliantGround(replace(params, friction_static=0.0, friction_dynamic=0.0), [geometry],
                             point_area_m2=areas)
    omega = speed_m_s / radius_m
    spacing_rad = 2.0 * math.pi / points_per_rim
    loads, moments = [], []
    for k in range(rolls):
        spin = spacing_rad * k / rolls
        c, s = math.cos(spin), math.sin(spin)
        rotation = np.array([[[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]])   # about +y: rolling towards +x
        position = np.array([[0.0, 0.0, params.ground_level_m + radius_m - sinkage_m]])
        force, torque = ground.step(position, rotation, np.array([[speed_m_s, 0.0, 0.0]]),
                                    np.array([[0.0, omega, 0.0]]), DT_S)
        loads.append(force[0, 2])
        moments.append(-torque[0, 1])
    return float(np.mean(loads)), float(np.mean(moments))
