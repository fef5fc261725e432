"""Parameters of the SCM soil and the compliant ground, with validation and YAML loading.

Users of Project Chrono know SCMTerrain's setters; the soil block takes the same names and,
positionally, the same order: SetSoilParameters(Bekker_Kphi, Bekker_Kc, Bekker_n,
Mohr_cohesion, Mohr_friction, Janosi_shear, elastic_K, damping_R) and
SetBulldozingParameters(erosion_angle, flow_factor, erosion_iterations, erosion_propagations).
Every bad value is refused with one `SoilConfigError` naming the parameter, the file and the
allowed range, before any terrain is built.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import yaml
from cobra_common.config_check import ConfigError, Setting

CODE_SOURCE = '<code>'


class SoilConfigError(ConfigError):
    """A soil/terrain parameter is missing, unknown or out of range (names parameter and file)."""


def _fail(source: str, name: str, value: Any, allowed: str) -> SoilConfigError:
    return SoilConfigError.invalid(name, value, allowed, source)


def _check_range(source: str, name: str, value: Any, low: float | None, high: float | None,
                 low_open: bool = False, high_open: bool = False, integer: bool = False) -> None:
    """Raise SoilConfigError unless `value` is a finite number inside the given interval."""
    Setting(name, minimum=low, maximum=high, minimum_open=low_open, maximum_open=high_open, integer=integer,
            number=True).check(value, source, error=SoilConfigError)


@dataclass(frozen=True)
class SoilParams:
    """Chrono's SetSoilParameters, same order; defaults are the thesis's loose sand (Table 1)."""

    bekker_kphi_pa_m_n: float = 0.05e6      # Bekker_Kphi, frictional modulus [Pa/m^n] = N/m^(2+n)
    bekker_kc_pa_m_n1: float = 25.0         # Bekker_Kc, cohesive modulus [Pa/m^(n-1)] = N/m^(1+n)
    bekker_n: float = 0.6                   # Bekker_n, sinkage exponent [-]
    mohr_cohesion_pa: float = 25.0          # Mohr_cohesion [Pa]
    mohr_friction_deg: float = 28.0         # Mohr_friction, internal friction angle [deg]
    janosi_shear_m: float = 0.04            # Janosi_shear, shear modulus k [m]
    elastic_k_pa_m: float = 2.5e6           # elastic_K, elastic stiffness [Pa/m] (clamped to >= Kphi)
    damping_r_pa_s_m: float = 5.0e3         # damping_R, vertical damping [Pa s/m]

    def validated(self, source: str = CODE_SOURCE) -> SoilParams:
        """Checked copy, with elastic_K clamped to at least Kphi as Chrono's setter does."""
        for name, low, high, low_open in (
                ('Bekker_Kphi', 0.0, None, False), ('Bekker_Kc', 0.0, None, False),
                ('Bekker_n', 0.0, 3.0, True), ('Mohr_cohesion', 0.0, None, False),
                ('Mohr_friction', 0.0, 89.0, False), ('Janosi_shear', 0.0, None, True),
                ('elastic_K', 0.0, None, True), ('damping_R', 0.0, None, False)):
            _check_range(source, name, getattr(self, CHRONO_SOIL_KEYS[name]), low, high, low_open=low_open)
        if self.bekker_kphi_pa_m_n + self.bekker_kc_pa_m_n1 <= 0.0:
            raise _fail(source, 'Bekker_Kphi', self.bekker_kphi_pa_m_n,
                        'positive when Bekker_Kc is 0 (the soil would carry no load)')
        return replace(self, elastic_k_pa_m=max(self.elastic_k_pa_m, self.bekker_kphi_pa_m_n))


# Chrono setter name -> field, in setter order.
CHRONO_SOIL_KEYS: dict[str, str] = {
    'Bekker_Kphi': 'bekker_kphi_pa_m_n', 'Bekker_Kc': 'bekker_kc_pa_m_n1', 'Bekker_n': 'bekker_n',
    'Mohr_cohesion': 'mohr_cohesion_pa', 'Mohr_friction': 'mohr_friction_deg',
    'Janosi_shear': 'janosi_shear_m', 'elastic_K': 'elastic_k_pa_m', 'damping_R': 'damping_r_pa_s_m',
}


@dataclass(frozen=True)
class GridParams:
    """Node spacing Δ and the flat soil's level. The soil has no edge: the 9 m x 8 m patch centred
    on `center_xy_m` (Chrono's patch, centred as Chrono does) fixes where the nodes lie (node
    (0, 0) at its corner) and how much node directory is set up front; bodies anywhere get soil."""

    size_x_m: float = 9.0
    size_y_m: float = 8.0
    spacing_m: float = 0.02
    center_xy_m: tuple[float, float] = (0.0, 0.0)
    # Undeformed soil level in the engine's world frame. The thesis put Chrono's patch at
    # z = -0.5 m in Chrono's world; our engine's ground is z = 0, so the default is 0.
    reference_level_m: float = 0.0

    def validated(self, source: str = CODE_SOURCE) -> GridParams:
        _check_range(source, 'spacing_m', self.spacing_m, 1e-4, 1.0)
        _check_range(source, 'size_x_m', self.size_x_m, 0.0, 1000.0, low_open=True)
        _check_range(source, 'size_y_m', self.size_y_m, 0.0, 1000.0, low_open=True)
        _check_range(source, 'reference_level_m', self.reference_level_m, -1e3, 1e3)
        if len(self.center_xy_m) != 2:
            raise _fail(source, 'center_xy_m', self.center_xy_m, 'a list of two numbers [x, y]')
        for value in self.center_xy_m:
            _check_range(source, 'center_xy_m', value, -1e4, 1e4)
        for name, size in (('size_x_m', self.size_x_m), ('size_y_m', self.size_y_m)):
            cells = size / self.spacing_m
            if abs(cells - round(cells)) > 1e-6 * max(1.0, cells):
                raise _fail(source, name, size, f'a whole multiple of spacing_m = {self.spacing_m} '
                            f'({size} / {self.spacing_m} = {cells:.6g} cells)')
            if round(cells) > 200_000:
                raise _fail(source, name, size, f'at most 200000 cells of spacing_m = {self.spacing_m}')
        return replace(self, center_xy_m=(float(self.center_xy_m[0]), float(self.center_xy_m[1])))

    @property
    def cells_x(self) -> int:
        return int(round(self.size_x_m / self.spacing_m))

    @property
    def cells_y(self) -> int:
        return int(round(self.size_y_m / self.spacing_m))


@dataclass(frozen=True)
class BulldozingParams:
    """Chrono's SetBulldozingParameters order; values of thesis §12.1 (on in the thesis)."""

    erosion_angle_deg: float = 25.0
    flow_factor: float = 1.0
    erosion_iterations: int = 2
    erosion_propagations: int = 3
    enabled: bool = True

    def validated(self, source: str = CODE_SOURCE) -> BulldozingParams:
        _check_range(source, 'erosion_angle', self.erosion_angle_deg, 0.0, 89.0, low_open=True)
        _check_range(source, 'flow_factor', self.flow_factor, 0.0, 10.0)
        _check_range(source, 'erosion_iterations', self.erosion_iterations, 0, 1000, integer=True)
        _check_range(source, 'erosion_propagations', self.erosion_propagations, 0, 50, integer=True)
        if not isinstance(self.enabled, bool):
            raise _fail(source, 'enabled', self.enabled, 'true or false')
        return replace(self, erosion_iterations=int(self.erosion_iterations),
                       erosion_propagations=int(self.erosion_propagations))


PRESSURE_DIRECTIONS = ('surface_normal', 'vertical')


@dataclass(frozen=True)
class ScmNumerics:
    """Ray window and regularisations (Chrono: rays from 0.4 m below to 0.1 m above the level)."""

    ray_window_up_m: float = 0.1          # Chrono's SetTestHeight default
    ray_window_down_m: float = 0.4        # Chrono's m_test_offset_down - m_test_offset_up
    active_box_margin_m: float = 0.0      # analytic rays need none; a margin only costs rays
    # Shear sticks below Janosi's strength (ours, not Chrono's; see README "Shear that holds
    # still"): per body, the loaded nodes' stick springs add up to stick_stiffness_fraction m / dt²
    # and their dampers to stick_damping_fraction m / dt. The engine integrates them explicitly;
    # the check in `validated` keeps them stable for an effective mass down to m / 3 (a cylinder
    # rolling on its contact line).
    stick_stiffness_fraction: float = 0.15
    stick_damping_fraction: float = 0.25
    # Chrono never resets the Janosi shear displacement j of a node; true resets it when the
    # node leaves contact (j then counts the slip of the current contact only).
    reset_shear_on_release: bool = False
    # Node storage reserved at start; beyond it the pool doubles (amortised O(1) per node, but the
    # step that doubles copies the stored nodes once). Reserve the area a run will disturb to
    # keep every step's cost flat.
    reserved_area_m2: float = 1.0
    # Direction of each node's normal stress (see README, "Which way the pressure pushes"):
    # 'vertical' (default) is Chrono's SCMTerrain; 'surface_normal' (ours) pushes along the body's
    # inward surface normal at the ray hit on the surface area the node's cell covers there
    # (vertical part = Chrono's; horizontal part at most tan(max_pressure_tilt_deg) x vertical).
    pressure_direction: str = 'vertical'
    max_pressure_tilt_deg: float = 60.0

    @property
    def pressure_tilt_tan(self) -> float:
        """Largest horizontal/vertical ratio of a node's pressure force (0: vertical, Chrono)."""
        if self.pressure_direction == 'vertical':
            return 0.0
        return math.tan(math.radians(self.max_pressure_tilt_deg))

    def validated(self, source: str = CODE_SOURCE) -> ScmNumerics:
        _check_range(source, 'ray_window_up_m', self.ray_window_up_m, 0.0, 10.0, low_open=True)
        _check_range(source, 'ray_window_down_m', self.ray_window_down_m, 0.0, 10.0, low_open=True)
        _check_range(source, 'active_box_margin_m', self.active_box_margin_m, 0.0, 10.0)
        _check_range(source, 'stick_stiffness_fraction', self.stick_stiffness_fraction, 0.0, 1.0, low_open=True)
        _check_range(source, 'stick_damping_fraction', self.stick_damping_fraction, 0.0, 2.0 / 3.0,
                     high_open=True)
        # Explicit spring-damper on m/3: a = 3 fraction_k, b = 3 fraction_c stable iff b < 2, a < 4 - 2b.
        if self.stick_stiffness_fraction + 2.0 * self.stick_damping_fraction >= 4.0 / 3.0:
            raise _fail(source, 'stick_stiffness_fraction', self.stick_stiffness_fraction,
                        f'below 4/3 - 2 stick_damping_fraction = {4.0 / 3.0 - 2.0 * self.stick_damping_fraction:.4g} '
                        '(else the explicitly integrated stick spring rings on a rolling body)')
        _check_range(source, 'reserved_area_m2', self.reserved_area_m2, 0.0, 1e6)
        if self.pressure_direction not in PRESSURE_DIRECTIONS:
            raise _fail(source, 'pressure_direction', self.pressure_direction,
                        f"one of {', '.join(repr(d) for d in PRESSURE_DIRECTIONS)}")
        _check_range(source, 'max_pressure_tilt_deg', self.max_pressure_tilt_deg, 0.0, 85.0, low_open=True)
        if not isinstance(self.reset_shear_on_release, bool):
            raise _fail(source, 'reset_shear_on_release', self.reset_shear_on_release, 'true or false')
        return self


@dataclass(frozen=True)
class ScmParams:
    """Everything an `ScmTerrain` needs; `source` is the file it came from (for messages)."""

    soil: SoilParams = field(default_factory=SoilParams)
    grid: GridParams = field(default_factory=GridParams)
    bulldozing: BulldozingParams = field(default_factory=BulldozingParams)
    numerics: ScmNumerics = field(default_factory=ScmNumerics)
    source: str = CODE_SOURCE

    def validated(self) -> ScmParams:
        return replace(self, soil=self.soil.validated(self.source), grid=self.grid.validated(self.source),
                       bulldozing=self.bulldozing.validated(self.source),
                       numerics=self.numerics.validated(self.source))


@dataclass(frozen=True)
class CompliantParams:
    """Thesis §5 compliant contact with the §7 numbers (k, b, mu_s, mu_d, critical slip speed).

    k_t, d_t and the decay rate alpha are not given in the thesis: k_t = k_n and d_t = d_n
    (isotropic), alpha = 50 1/s (the spring forgets a past stick in ~20 ms) are our choices.
    Damping is capped per body at explicit_damping_cap * m / dt (sum over its contacts) because
    the engine integrates these forces explicitly: the thesis's b = 1e3 N s/m on a 0.46 kg link
    at 1 ms would give b dt / m = 2.2 and chatter. contact_point_area_m2 is the ground area one
    contact point of the law stands for (default: the thesis's effective contact area A_eff of
    §10–14); it is used only where a surface is sampled at many points (`CompliantGround`'s
    point_area_m2), which makes the law a per-area foundation (cobra_soil README).
    """

    normal_stiffness_n_m: float = 1.0e4
    normal_damping_n_s_m: float = 1.0e3
    tangential_stiffness_n_m: float = 1.0e4
    tangential_damping_n_s_m: float = 1.0e3
    friction_static: float = 0.5
    friction_dynamic: float = 0.3
    critical_slip_speed_m_s: float = 1.0e-3
    spring_decay_rate_1_s: float = 50.0
    explicit_damping_cap: float = 0.5
    ground_level_m: float = 0.0
    contact_point_area_m2: float = 5.5e-3
    source: str = CODE_SOURCE

    @property
    def foundation_stiffness_pa_m(self) -> float:
        """k_n per area where a surface is sampled densely: the Winkler foundation's stiffness."""
        return self.normal_stiffness_n_m / self.contact_point_area_m2

    @property
    def foundation_damping_pa_s_m(self) -> float:
        """d_n per area where a surface is sampled densely: the foundation's damping."""
        return self.normal_damping_n_s_m / self.contact_point_area_m2

    def validated(self) -> CompliantParams:
        s = self.source
        _check_range(s, 'normal_stiffness_n_m', self.normal_stiffness_n_m, 0.0, None, low_open=True)
        _check_range(s, 'normal_damping_n_s_m', self.normal_damping_n_s_m, 0.0, None)
        _check_range(s, 'tangential_stiffness_n_m', self.tangential_stiffness_n_m, 0.0, None, low_open=True)
        _check_range(s, 'tangential_damping_n_s_m', self.tangential_damping_n_s_m, 0.0, None)
        _check_range(s, 'friction_static', self.friction_static, 0.0, 10.0)
        _check_range(s, 'friction_dynamic', self.friction_dynamic, 0.0, self.friction_static)
        _check_range(s, 'critical_slip_speed_m_s', self.critical_slip_speed_m_s, 0.0, 10.0, low_open=True)
        _check_range(s, 'spring_decay_rate_1_s', self.spring_decay_rate_1_s, 0.0, 1e4)
        _check_range(s, 'explicit_damping_cap', self.explicit_damping_cap, 0.0, 2.0, low_open=True)
        _check_range(s, 'ground_level_m', self.ground_level_m, -1e3, 1e3)
        _check_range(s, 'contact_point_area_m2', self.contact_point_area_m2, 0.0, 10.0, low_open=True)
        return self


# ------------------------------------------------------------------------------------------ YAML

def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text()
    except OSError as exc:
        raise SoilConfigError(f'{path}: cannot read the soil file ({exc.strerror}); '
                              f'give an existing file (see config/soil/)') from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SoilConfigError(f'{path}: not valid YAML ({exc}); fix the file') from exc
    if not isinstance(data, dict):
        raise SoilConfigError(f'{path}: expected a mapping at the top level, got {type(data).__name__}')
    return data


def _section(data: dict[str, Any], key: str, source: str) -> dict[str, Any]:
    value = data.get(key, {})
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SoilConfigError(f"{source}: section '{key}' must be a mapping, got {type(value).__name__}")
    return value


def _reject_unknown(section: dict[str, Any], allowed: list[str], where: str, source: str) -> None:
    for key in section:
        if key not in allowed:
            raise SoilConfigError(f"{source}: unknown parameter '{key}' in {where}; "
                                  f"allowed: {', '.join(allowed)}")


def _number_or_value(value: Any) -> Any:
    """PyYAML reads `2.5e6` (no dot before e, no sign) as a string; take it as the number it is."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    if isinstance(value, list):
        return tuple(_number_or_value(v) for v in value)
    return value


def _dataclass_from(section: dict[str, Any], cls: type, key_to_field: dict[str, str], where: str,
                    source: str) -> Any:
    _reject_unknown(section, list(key_to_field), where, source)
    kwargs = {key_to_field[k]: _number_or_value(v) for k, v in section.items()}
    return cls(**kwargs)


_GRID_KEYS = {f.name: f.name for f in fields(GridParams)}
_BULLDOZING_KEYS = {'erosion_angle': 'erosion_angle_deg', 'flow_factor': 'flow_factor',
                    'erosion_iterations': 'erosion_iterations',
                    'erosion_propagations': 'erosion_propagations', 'enabled': 'enabled'}
_NUMERICS_KEYS = {f.name: f.name for f in fields(ScmNumerics)}
_REMOVED_NUMERICS_KEYS = ('slip_speed_regularisation_m_s', 'shear_damping_cap')   # issue 17
_COMPLIANT_KEYS = {f.name: f.name for f in fields(CompliantParams) if f.name != 'source'}


def load_scm_params(path: str | Path) -> ScmParams:
    """Read a soil YAML (see config/soil/loose_sand.yaml); raises SoilConfigError naming the file.

    The `soil` section takes Chrono's eight names (all required: a soil half-specified would
    silently be loose sand), or `SetSoilParameters: [8 values]` in Chrono's setter order.
    """
    path = Path(path)
    source = str(path)
    data = _read_yaml(path)
    _reject_unknown(data, ['terrain', 'soil', 'SetSoilParameters', 'grid', 'bulldozing', 'numerics'],
                    'the top level', source)
    if data.get('terrain', 'scm') != 'scm':
        raise SoilConfigError(f"{source}: parameter 'terrain' = {data.get('terrain')!r} is invalid: "
                              f"must be 'scm' for an SCM soil file")
    chrono_names = list(CHRONO_SOIL_KEYS)
    if 'soil' in data and 'SetSoilParameters' in data:
        raise SoilConfigError(f"{source}: give either 'soil' or 'SetSoilParameters', not both")
    if 'SetSoilParameters' in data:
        values = data['SetSoilParameters']
        if not isinstance(values, list) or len(values) != 8:
            raise SoilConfigError(f"{source}: parameter 'SetSoilParameters' must be a list of 8 numbers "
                                  f"in Chrono's order: {', '.join(chrono_names)}")
        soil_section = dict(zip(chrono_names, values))
    else:
        soil_section = _section(data, 'soil', source)
        _reject_unknown(soil_section, chrono_names, "'soil'", source)
        missing = [k for k in chrono_names if k not in soil_section]
        if missing:
            raise SoilConfigError(f"{source}: parameter '{missing[0]}' is missing from 'soil'; "
                                  f"all of {', '.join(chrono_names)} are required")
    soil = SoilParams(**{CHRONO_SOIL_KEYS[k]: _number_or_value(v) for k, v in soil_section.items()})
    grid = _dataclass_from(_section(data, 'grid', source), GridParams, _GRID_KEYS, "'grid'", source)
    bulldozing = _dataclass_from(_section(data, 'bulldozing', source), BulldozingParams, _BULLDOZING_KEYS,
                                 "'bulldozing'", source)
    numerics_section = _section(data, 'numerics', source)
    for removed in _REMOVED_NUMERICS_KEYS:
        if removed in numerics_section:
            raise SoilConfigError(f"{source}: parameter '{removed}' in 'numerics' no longer exists: the shear "
                                  'regularisation it set was replaced by a stick spring (stick_stiffness_fraction, '
                                  'stick_damping_fraction; see cobra_soil README); delete the line')
    numerics = _dataclass_from(numerics_section, ScmNumerics, _NUMERICS_KEYS, "'numerics'", source)
    return ScmParams(soil=soil, grid=grid, bulldozing=bulldozing, numerics=numerics, source=source).validated()


def load_compliant_params(path: str | Path) -> CompliantParams:
    """Read a compliant-ground YAML (see config/soil/compliant_ground.yaml)."""
    path = Path(path)
    source = str(path)
    data = _read_yaml(path)
    _reject_unknown(data, ['terrain', 'compliant'], 'the top level', source)
    if data.get('terrain', 'compliant') != 'compliant':
        raise SoilConfigError(f"{source}: parameter 'terrain' = {data.get('terrain')!r} is invalid: "
                              f"must be 'compliant' for a compliant-ground file")
    section = _section(data, 'compliant', source)
    params = _dataclass_from(section, CompliantParams, _COMPLIANT_KEYS, "'compliant'", source)
    return replace(params, source=source).validated()


def soil_config_dirs(source_first: bool = False) -> list[Path]:
    """Where the shipped soil files (config/soil) are: cobra_soil's share folder when installed,
    then the folder beside its sources (that one first with `source_first`: the files that match
    the library imported from a source checkout)."""
    from cobra_common.paths import package_config_dirs
    dirs = package_config_dirs('cobra_soil', 'soil', Path(__file__).resolve().parents[1])
    return dirs[::-1] if source_first else dirs
