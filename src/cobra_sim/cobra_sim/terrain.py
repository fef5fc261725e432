"""Terrain models behind one small interface, so adding one is adding a class, not editing the sim.

Terrains are found by name in `TERRAINS` (the registry) and imported on first use; a *wrench
terrain* returns world forces and torques on the robot's bodies every physics step. No MuJoCo import
here: the engine hands in plain arrays read from the compiled model. Design notes: the package
README, "Terrains".
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cobra_common.rotations import quaternion_from_matrix, slope_rotation, wxyz_from_xyzw

MIN_IMPEDANCE = 1.0e-4     # MuJoCo's mjMINIMP: solimp values are clamped to [mjMINIMP, mjMAXIMP]
MAX_IMPEDANCE = 0.9999     # MuJoCo's mjMAXIMP
IDENTITY_ROTATION = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


class TerrainConfigError(ValueError):
    """A terrain name, terrain file or start pose that cannot give a valid run."""


@dataclass(frozen=True)
class BodyShape:
    """One collision shape of a robot body, in MuJoCo's conventions (geom_size, body-frame pose).

    kind: 'sphere' (r,) | 'capsule' / 'cylinder' (r, half length along local z) |
    'box' (half sizes); a mesh arrives as the 'box' of its bounding box in the geom frame.
    """

    kind: str
    size_m: tuple[float, ...]
    position_m: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rotation: tuple[tuple[float, float, float], ...] = IDENTITY_ROTATION  # columns = shape axes in body axes


@dataclass(frozen=True)
class RobotBody:
    """What a wrench terrain knows of one robot body: its name, mass and collision shapes."""

    name: str
    mass_kg: float
    shapes: tuple[BodyShape, ...]


@dataclass(frozen=True)
class BodyState:
    """World-frame state of the robot's bodies at the start of a physics step (after mj_step1).

    The engine rewrites the arrays of the state it hands `wrenches` in place every step: copy what
    you keep."""

    position_m: np.ndarray          # [n_bodies, 3] body-frame ORIGINS (MuJoCo xpos)
    rotation: np.ndarray            # [n_bodies, 3, 3] body-to-world (xmat)
    linear_velocity_m_s: np.ndarray   # [n_bodies, 3] of the body origins, world axes
    angular_velocity_rad_s: np.ndarray  # [n_bodies, 3] world axes


@dataclass(frozen=True)
class RobotContactParameters:
    """MuJoCo contact parameters for each robot collision geom (direct-form solref)."""

    solref: np.ndarray  # [n_geoms, 2]: (-stiffness·dmax², -damping·dmax)
    solimp: np.ndarray  # [n_geoms, 5]: (d0, dmax, width [m], midpoint, power)


def check_slope_deg(slope_deg: float) -> float:
    """The slope [deg] if it can be ground (0 <= slope_deg < 90), else a TerrainConfigError."""
    if not math.isfinite(slope_deg) or not 0.0 <= slope_deg < 90.0:
        raise TerrainConfigError(f'slope_deg:={slope_deg} is not a slope: use 0 <= slope_deg < 90 '
                                 f'(degrees; 24 is the thesis tumbling slope)')
    return float(slope_deg)


class TerrainModel:
    name = 'base'
    applies_wrenches = False  # True: `setup` once, then `wrenches` every physics step
    has_heightmap = False     # True: `heightmap()` returns the deformed nodes
    slope_deg = 0.0           # ground tilt about world y, descending along +x (rigid ground only)

    def surface_rotation(self) -> np.ndarray:
        """The ground's orientation in the world (z = surface normal): the robot starts lying on
        the ground with this root orientation, its lowest point START_CLEARANCE_M off the surface."""
        return slope_rotation(self.slope_deg)

    def world_xml(self) -> str:
        """MJCF elements added to <worldbody>."""
        return ''

    def option_attributes(self) -> dict[str, str]:
        """MJCF <option> attributes this terrain needs (e.g. the friction cone)."""
        return {}

    def robot_geom_attributes(self, link_mass_kg: float, timestep_s: float) -> dict[str, str]:
        """MJCF attributes of a robot collision geom belonging to a link of this mass."""
        return {}

    def friction_impratio(self, link_masses_kg: Sequence[float], gravity_m_s2: float) -> float | None:
        """MuJoCo's impratio for the compiled model (frictional / normal regularisation), or None to
        keep MuJoCo's 1; `link_masses_kg`: the robot links that touch the ground."""
        return None

    def robot_contact_parameters(self, inverse_mass_per_kg: np.ndarray, contacts_at_rest: np.ndarray,
                                 timestep_s: float) -> RobotContactParameters | None:
        """Per-geom solref/solimp set on the compiled model, or None to keep the MJCF's.

        `inverse_mass_per_kg` is MuJoCo's constant approximation of each geom's body inverse mass
        (body_invweight0, translation), the diagonal MuJoCo scales its contact regularisation with;
        `contacts_at_rest` is how many contact points MuJoCo makes for that shape lying on a plane.
        """
        return None

    def check_start(self, names: Sequence[str], xy_m: np.ndarray) -> None:
        """Raise TerrainConfigError if bodies starting at these world (x, y) [m] cannot be hosted
        (e.g. off the soil patch). Called before anything is built (the node's parameter check,
        from the URDF's zero pose) and again by `setup` with the compiled model's state."""

    def setup(self, bodies: Sequence[RobotBody], initial_state: BodyState, timestep_s: float) -> None:
        """Called once by the engine with the compiled model's robot bodies (the rows of every
        later `wrenches` call) and their initial state; raises TerrainConfigError for a start
        the terrain cannot host (e.g. off the soil patch)."""

    def wrenches(self, state: BodyState, dt_s: float) -> tuple[np.ndarray, np.ndarray]:
        """(force [n,3] N, torque about each body ORIGIN [n,3] N·m), world axes, for this step;
        updates the terrain state. Only called when `applies_wrenches`."""
        n = len(state.position_m)
        return np.zeros((n, 3)), np.zeros((n, 3))

    def heightmap(self) -> Any | None:
        """The deformed nodes (an object with x_m, y_m, z_m, sinkage_m, pressure_pa arrays), or None."""
        return None

    def diagnostics(self) -> dict[str, str]:
        """Key/values for the sim's diagnostics (sinkage, contact counts, ...)."""
        return {}

    def step_timing_s(self) -> dict[str, float]:
        """Wall time of the last `wrenches` call by phase (for the benchmark); empty if not split."""
        return {}


@dataclass(frozen=True)
class RigidGroundParams:
    """Thesis §7 rigid ground: f_n = s(d, w)(k d + b ḋ), mu_s 0.5, mu_d 0.3, v_c 1e-3 m/s."""

    stiffness_n_m: float = 1.0e4
    damping_n_s_m: float = 1.0e3
    smoothing_width_m: float = 1.0e-3
    friction_static: float = 0.5
    friction_dynamic: float = 0.3
    critical_slip_speed_m_s: float = 1.0e-3
    # MuJoCo friction cone, not from the paper: 'elliptic' is Coulomb's isotropic cone;
    # 'pyramidal' steps ~1.6x faster but its 4-edge pyramid gives only mu/sqrt(2) on the
    # diagonals of the contact frame. The normal law is mapped exactly for both.
    friction_cone: str = 'elliptic'
    # Rolling resistance [m] (MuJoCo's rolling friction: torque = this x normal force), not from the
    # paper: its law has none, so a straight snake of cylinders rolls on about its long axis after a
    # stop (20 s and more on flat ground). 0.5 mm on the 45 mm shells is a rolling coefficient of
    # 0.011, a hard shell on hard ground. Below ~6 cm/s of rolling MuJoCo's regularisation makes it
    # viscous. Elliptic cone only (a pyramid's rolling edges share its sliding regulariser and carry
    # ~4 % of this); 0, or the pyramidal cone, gives the paper's law alone (condim 3, a faster step).
    rolling_resistance_m: float = 5.0e-4


def smoothing_step(depth_over_width: np.ndarray | float) -> np.ndarray:
    """The law's s(d, w) as a function of x = d / w: 0 at first touch, 1 from d = w on, zero slope
    at both ends (the properties Simscape documents; the thesis gives no formula, so the cubic
    smoothstep 3x² − 2x³ is our choice)."""
    x = np.clip(np.asarray(depth_over_width, dtype=float), 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


def paper_normal_force_n(depth_m: np.ndarray | float, depth_rate_m_s: np.ndarray | float,
                         params: RigidGroundParams) -> np.ndarray:
    """f_n = s(d, w)(k d + b ḋ) for a penetration d > 0, never pulling (clipped at zero)."""
    depth = np.asarray(depth_m, dtype=float)
    force = smoothing_step(depth / params.smoothing_width_m) * (
        params.stiffness_n_m * depth + params.damping_n_s_m * np.asarray(depth_rate_m_s, dtype=float))
    return np.where(depth > 0.0, np.maximum(force, 0.0), 0.0)


def impedance_curve(x: np.ndarray, dmax: float, midpoint: np.ndarray | float,
                    power: np.ndarray | float) -> np.ndarray:
    """MuJoCo's solimp impedance I(x), x = depth/width, for d0 = MIN_IMPEDANCE (as getimpedance
    in engine_core_constraint.c: a·x^p up to the midpoint, 1 − b·(1 − x)^p after it)."""
    x = np.clip(x, 0.0, 1.0)
    low = x ** power / midpoint ** (power - 1.0)
    high = 1.0 - (1.0 - x) ** power / (1.0 - midpoint) ** (power - 1.0)
    return MIN_IMPEDANCE + np.where(x <= midpoint, low, high) * (dmax - MIN_IMPEDANCE)


_MIDPOINTS = np.geomspace(1.0e-3, 0.9, 40)[:, None, None]
_POWERS = np.linspace(1.0, 5.0, 81)[None, :, None]
_FIT_POINTS = np.linspace(0.0, 1.0, 101)[None, None, :]


def static_stiffness_scale(impedance: np.ndarray, ratio: float) -> np.ndarray:
    """Factor on k_c·d of the static contact force at impedance I under `RigidGround`'s mapping:
    I²/((1 − I)·c·I_max), with c = dt·b_c·Â (`ratio`) and I_max = c/(1 + c)."""
    dmax = min(ratio / (1.0 + ratio), MAX_IMPEDANCE)
    return impedance ** 2 / ((1.0 - impedance) * ratio * dmax)


def fit_impedance_shape(ratio: float) -> tuple[float, float]:
    """(midpoint, power) of solimp whose static stiffness scale follows s(d, w) best (max error
    over 0 ≤ d ≤ w, grid search)."""
    dmax = min(ratio / (1.0 + ratio), MAX_IMPEDANCE)
    impedance = impedance_curve(_FIT_POINTS, dmax, _MIDPOINTS, _POWERS)
    error = np.max(np.abs(static_stiffness_scale(impedance, ratio) - smoothing_step(_FIT_POINTS)), axis=2)
    row, column = np.unravel_index(int(np.argmin(error)), error.shape)
    return float(_MIDPOINTS[row, 0, 0]), float(_POWERS[0, column, 0])


class RigidGround(TerrainModel):
    """A plane through the world origin (z = 0, or tilted by `slope_deg` about world y so that it
    descends along +x; gravity stays −z, so odom stays gravity-aligned) on which MuJoCo's soft contact reproduces the thesis's penalty law.

    MuJoCo solves, per contact row, (A + R) f = aref − a0 with aref = −B v − K·I·r and
    R = (1 − I)/I · Â (I the solimp impedance at the depth, Â MuJoCo's diagonal approximation of
    A = J M⁻¹ Jᵀ from body_invweight0). Choosing B = 1/dt, K·I_max = k/(dt·b) and
    R = 1/(dt·b_c), i.e. I_max = c/(1 + c) with c = dt·b_c·Â, makes that equation *exactly*
    f = k_c d + b_c ḋ(t + dt) — the paper's spring–damper with the damper taken implicitly
    (backward Euler), whatever the effective mass A of the contact. That is the only stable way
    to apply b = 1e3 N·s/m to a 0.46 kg module at dt = 1 ms (b·dt/m ≈ 2.2: an explicit damper
    diverges); the sub-millisecond fast mode of the overdamped law (m/b ≈ 0.46 ms) is thereby
    resolved as an instantaneous velocity relaxation, the slow creep (b/k = 0.1 s) exactly.

    Per link, not per contact point: k and b are split evenly over the contact points MuJoCo
    makes for the link's shape lying on the plane (`contacts_at_rest`: 2 for a cylinder), so a
    module lying level penetrates as the paper's single-contact law says.

    The smoothing s(d, w) is shaped through solimp's impedance curve (fitted, a few % off s);
    within 0 < d < w the damper's scale follows the same curve but lies above s (see README).

    Friction: one Coulomb coefficient per contact, the static mu_s, with an elliptic cone.
    MuJoCo cannot express mu_d; below sliding its soft friction creeps (v = F_t / (b impratio)
    for a link with tangential load F_t), and `friction_impratio` sets that creep to the thesis
    law's own below v_c (v = v_c F_t / (mu_s m g)) for a link of the median mass. The compliant
    terrain models carry the Stribeck-like law.
    """

    name = 'rigid'

    def __init__(self, params: RigidGroundParams | None = None, slope_deg: float = 0.0) -> None:
        self.params = params or RigidGroundParams()
        self.slope_deg = check_slope_deg(slope_deg)

    @classmethod
    def from_file(cls, terrain_file: Path | None, slope_deg: float = 0.0) -> RigidGround:
        """The registry's factory: the rigid ground takes its parameters from code, no file."""
        return cls(slope_deg=slope_deg)

    def world_xml(self) -> str:
        quat = ' '.join(f'{v:.12g}' for v in wxyz_from_xyzw(quaternion_from_matrix(self.surface_rotation())))
        friction = ' '.join(f'{key}="{value}"' for key, value in self._friction_attributes().items())
        return f'<geom name="ground" type="plane" size="0 0 0.05" quat="{quat}" {friction} rgba="0.6 0.55 0.45 1"/>'

    def option_attributes(self) -> dict[str, str]:
        if self.params.friction_cone not in ('elliptic', 'pyramidal'):
            raise ValueError(f"friction_cone '{self.params.friction_cone}': use 'elliptic' or 'pyramidal'")
        return {'cone': self.params.friction_cone}

    def friction_impratio(self, link_masses_kg: Sequence[float], gravity_m_s2: float) -> float | None:
        """impratio = mu_s m g / (b v_c): the thesis's regularised friction rises as mu_s f_n / v_c
        below the critical slip speed, MuJoCo's as b · impratio / n per contact (n contacts share
        the link's load, so n cancels); equal for a link of the median mass m. Elliptic cone only
        (MuJoCo applies impratio to elliptic cones)."""
        p = self.params
        if p.friction_cone != 'elliptic' or not len(link_masses_kg):
            return None
        mass_kg = float(np.median(np.asarray(link_masses_kg, dtype=float)))
        return p.friction_static * mass_kg * gravity_m_s2 / (p.damping_n_s_m * p.critical_slip_speed_m_s)

    def normal_regularisation_per_inverse_mass(self) -> float:
        """R_normal / ((1 − I)/I · Â): 1 for an elliptic cone. A pyramid's 2 (condim − 1) edges share
        R_py = 2 mu² R0 with R0 = (1 − I)/I · Â (1 + mu²) (mj_makeImpedance, mj_diagApprox: the
        first edge is n + mu t1), and summing the edge rows gives the normal row
        R_py / (2 (condim − 1)) = mu² (1 + mu²)/(condim − 1) · (1 − I)/I · Â."""
        if self.params.friction_cone == 'elliptic':
            return 1.0
        mu = self.params.friction_static
        return mu * mu * (1.0 + mu * mu) / (self._condim() - 1)

    def robot_geom_attributes(self, link_mass_kg: float, timestep_s: float) -> dict[str, str]:
        return {
            **self._friction_attributes(),
            'priority': '1',  # the robot geom's solref/solimp/friction win over the ground's
        }

    def _friction_attributes(self) -> dict[str, str]:
        """friction and condim: sliding mu_s; no torsional friction (MuJoCo's cylinder-on-plane
        contact already resists pivoting with several points); the rolling resistance, if any."""
        p = self.params
        rolling_m = p.rolling_resistance_m if self._condim() == 6 else 0.0
        return {'friction': f'{p.friction_static} 0 {rolling_m:.12g}', 'condim': str(self._condim())}

    def _condim(self) -> int:
        """6 (rolling friction rows) with a rolling resistance on the elliptic cone, else 3."""
        resistance_m = self.params.rolling_resistance_m
        if not (math.isfinite(resistance_m) and resistance_m >= 0.0):
            raise TerrainConfigError(f'rolling_resistance_m {resistance_m}: use a length >= 0 '
                                     f'(m; 0 = no rolling resistance)')
        return 6 if resistance_m > 0.0 and self.params.friction_cone == 'elliptic' else 3

    def robot_contact_parameters(self, inverse_mass_per_kg: np.ndarray, contacts_at_rest: np.ndarray,
                                 timestep_s: float) -> RobotContactParameters:
        p = self.params
        inverse_mass = np.asarray(inverse_mass_per_kg, dtype=float)
        contacts = np.asarray(contacts_at_rest, dtype=float)
        damping_per_contact = p.damping_n_s_m / contacts
        ratio = timestep_s * damping_per_contact * inverse_mass * self.normal_regularisation_per_inverse_mass()
        dmax = np.minimum(ratio / (1.0 + ratio), MAX_IMPEDANCE)
        stiffness = p.stiffness_n_m / (timestep_s * p.damping_n_s_m * dmax)  # K with K·I_max = k/(dt·b)
        damping = 1.0 / timestep_s
        solref = np.stack([-stiffness * dmax ** 2, np.full_like(dmax, -damping) * dmax], axis=1)
        shapes = {}
        solimp = np.empty((len(dmax), 5))
        for row, value in enumerate(ratio):
            key = round(float(value), 9)
            if key not in shapes:
                shapes[key] = fit_impedance_shape(float(value))
            midpoint, power = shapes[key]
            solimp[row] = (MIN_IMPEDANCE, dmax[row], p.smoothing_width_m, midpoint, power)
        return RobotContactParameters(solref, solimp)


@dataclass(frozen=True)
class TerrainEntry:
    """A registered terrain: how to build it and which parameter file it reads by default."""

    factory: str        # 'module:attribute', a callable (terrain_file: Path | None) -> TerrainModel
    default_file: str   # file name under config/soil/; '' = the terrain takes no parameter file
    description: str
    supports_slope: bool = False  # True: the factory also takes slope_deg= (a tilted plane)


TERRAINS: dict[str, TerrainEntry] = {
    'rigid': TerrainEntry('cobra_sim.terrain:RigidGround.from_file', '',
                          'plane (optionally sloped) with MuJoCo contacts mapped onto the thesis §7 law',
                          supports_slope=True),
    'scm': TerrainEntry('cobra_sim.terrain_soil:ScmGround.from_file', 'loose_sand.yaml',
                        "Soil Contact Model (Bekker-Wong, Janosi-Hanamoto, bulldozing) on a height field"),
    'compliant': TerrainEntry('cobra_sim.terrain_soil:CompliantGroundModel.from_file', 'compliant_ground.yaml',
                              'thesis §5 penalty + tangential spring contact on a plane'),
}


def register_terrain(name: str, entry: TerrainEntry) -> None:
    """Add a terrain under `name` (a plug-in module calls this; the sim loop needs no edit)."""
    TERRAINS[name] = entry


def terrain_config_dirs() -> list[Path]:
    """Where default terrain files are looked for: cobra_soil's config/soil (installed, then
    beside its sources)."""
    from cobra_soil.params import soil_config_dirs
    return soil_config_dirs()


def default_terrain_file(name: str) -> Path | None:
    """The terrain's default parameter file, or None (none needed, or none found: the model's
    built-in defaults, which equal that file's values, apply)."""
    entry = TERRAINS[name]
    if not entry.default_file:
        return None
    for directory in terrain_config_dirs():
        if (directory / entry.default_file).is_file():
            return directory / entry.default_file
    return None


def _resolve(factory: str) -> Callable[[Path | None], TerrainModel]:
    module_name, _, attribute = factory.partition(':')
    target: Any = importlib.import_module(module_name)
    for part in attribute.split('.'):
        target = getattr(target, part)
    return target


def _declared_terrain(path: Path) -> str | None:
    """The `terrain:` key of a parameter file, or None (unreadable files are the loader's to report)."""
    import yaml
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        return None
    return data.get('terrain') if isinstance(data, dict) and isinstance(data.get('terrain'), str) else None


def make_terrain(name: str, terrain_file: str | Path | None = None, slope_deg: float = 0.0) -> TerrainModel:
    """The terrain `name` with its parameters from `terrain_file` ('' or None: its default file),
    tilted by `slope_deg` (only terrains whose entry supports_slope: the rigid plane).

    Raises TerrainConfigError naming the parameter (terrain, terrain_file or slope_deg) and the file.
    """
    if name not in TERRAINS:
        raise TerrainConfigError(f"unknown terrain '{name}' (parameter terrain): choose one of "
                                 f"{', '.join(sorted(TERRAINS))}")
    entry = TERRAINS[name]
    check_slope_deg(slope_deg)
    if slope_deg and not entry.supports_slope:
        supported = ', '.join(f'terrain:={n}' for n in sorted(TERRAINS) if TERRAINS[n].supports_slope)
        raise TerrainConfigError(f'slope_deg:={slope_deg:g} is only supported on {supported} '
                                 f'(terrain:={name} is level): set slope_deg:=0 or use {supported}')
    if terrain_file and not entry.default_file:
        raise TerrainConfigError(f"terrain '{name}' takes no terrain_file (got {terrain_file}): "
                                 f"leave terrain_file empty")
    path = Path(terrain_file) if terrain_file else default_terrain_file(name)
    declared = _declared_terrain(path) if path is not None else None
    if declared is not None and declared != name:
        raise TerrainConfigError(f"terrain_file {path} is a file for terrain '{declared}' (its 'terrain' key), "
                                 f"not for terrain:={name}: pass terrain:={declared} or a {name} file")
    try:
        factory = _resolve(entry.factory)
        return factory(path, slope_deg=float(slope_deg)) if entry.supports_slope else factory(path)
    except TerrainConfigError:
        raise
    except ValueError as error:  # the soil library's SoilConfigError names file, parameter and range
        raise TerrainConfigError(f'terrain_file for terrain:={name}: {error}') from error
