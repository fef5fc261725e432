"""Soil files: Chrono's names and order are accepted; every bad value is refused with one error
that names the parameter, the file and the allowed range."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from cobra_soil import (BodyGeometry, CollisionShape, ScmParams, ScmTerrain, SoilConfigError, SoilParams,
                            load_compliant_params, load_scm_params)

REPO_ROOT = Path(__file__).resolve().parents[3]
LOOSE_SAND = REPO_ROOT / 'config' / 'soil' / 'loose_sand.yaml'
COMPLIANT = REPO_ROOT / 'config' / 'soil' / 'compliant_ground.yaml'


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / 'soil.yaml'
    path.write_text(yaml.safe_dump(data))
    return path


def _loose_sand() -> dict:
    return yaml.safe_load(LOOSE_SAND.read_text())


def test_shipped_files_load_with_the_thesis_values() -> None:
    params = load_scm_params(LOOSE_SAND)
    assert params.soil == SoilParams(0.05e6, 25.0, 0.6, 25.0, 28.0, 0.04, 2.5e6, 5.0e3)   # Chrono's order
    assert (params.grid.size_x_m, params.grid.size_y_m, params.grid.spacing_m) == (9.0, 8.0, 0.02)
    b = params.bulldozing
    assert (b.enabled, b.erosion_angle_deg, b.flow_factor, b.erosion_iterations, b.erosion_propagations) == \
        (True, 25.0, 1.0, 2, 3)
    compliant = load_compliant_params(COMPLIANT)
    assert (compliant.normal_stiffness_n_m, compliant.friction_static, compliant.friction_dynamic) == (1e4, 0.5, 0.3)


def test_set_soil_parameters_list_in_chrono_order_equals_the_named_form(tmp_path: Path) -> None:
    data = _loose_sand()
    soil = data.pop('soil')
    data['SetSoilParameters'] = [soil[k] for k in ('Bekker_Kphi', 'Bekker_Kc', 'Bekker_n', 'Mohr_cohesion',
                                                   'Mohr_friction', 'Janosi_shear', 'elastic_K', 'damping_R')]
    assert load_scm_params(_write(tmp_path, data)).soil == load_scm_params(LOOSE_SAND).soil


def test_elastic_stiffness_is_clamped_to_kphi_as_chrono_does(tmp_path: Path) -> None:
    data = _loose_sand()
    data['soil']['elastic_K'] = 1.0e3
    assert load_scm_params(_write(tmp_path, data)).soil.elastic_k_pa_m == data['soil']['Bekker_Kphi']


@pytest.mark.parametrize(('section', 'key', 'value', 'range_text'), [
    ('soil', 'Bekker_Kphi', -1.0, '[0.0, inf]'),
    ('soil', 'Bekker_n', 0.0, '(0.0, 3.0]'),
    ('soil', 'Mohr_cohesion', -5.0, '[0.0, inf]'),
    ('soil', 'Mohr_friction', 95.0, '[0.0, 89.0]'),
    ('soil', 'Janosi_shear', 0.0, '(0.0, inf]'),
    ('soil', 'damping_R', -1.0, '[0.0, inf]'),
    ('soil', 'elastic_K', 'stiff', 'a number'),
    ('grid', 'spacing_m', 0.0, '[0.0001, 1.0]'),
    ('grid', 'size_x_m', -9.0, '(0.0, 1000.0]'),
    ('bulldozing', 'erosion_angle', 90.0, '(0.0, 89.0]'),
    ('bulldozing', 'flow_factor', -0.5, '[0.0, 10.0]'),
    ('bulldozing', 'erosion_iterations', 2.5, 'an integer'),
    ('bulldozing', 'erosion_propagations', -1, '[0, 50]'),
    ('numerics', 'stick_stiffness_fraction', 0.0, '(0.0, 1.0]'),
    ('numerics', 'stick_damping_fraction', 0.7, '[0.0, 0.6666666666666666)'),
    ('numerics', 'stick_stiffness_fraction', 0.9, 'below 4/3 - 2 stick_damping_fraction = 0.8333'),
    ('numerics', 'pressure_direction', 'radial', "one of 'surface_normal', 'vertical'"),
    ('numerics', 'max_pressure_tilt_deg', 90.0, '(0.0, 85.0]'),
])
def test_bad_value_names_parameter_file_and_range(tmp_path: Path, section: str, key: str, value: object,
                                                  range_text: str) -> None:
    data = _loose_sand()
    data[section][key] = value
    path = _write(tmp_path, data)
    with pytest.raises(SoilConfigError) as error:
        load_scm_params(path)
    message = str(error.value)
    assert f"'{key}'" in message and str(path) in message and range_text in message


def test_spacing_that_does_not_divide_the_patch_is_refused(tmp_path: Path) -> None:
    data = _loose_sand()
    data['grid']['spacing_m'] = 0.03   # 8 m / 0.03 m is not a whole number of cells
    path = _write(tmp_path, data)
    with pytest.raises(SoilConfigError, match=r"'size_y_m' = 8.0 .*whole multiple of spacing_m = 0.03") as error:
        load_scm_params(path)
    assert str(path) in str(error.value)


def test_missing_unknown_and_unreadable_inputs_are_refused_by_name(tmp_path: Path) -> None:
    data = _loose_sand()
    del data['soil']['Janosi_shear']
    with pytest.raises(SoilConfigError, match="'Janosi_shear' is missing"):
        load_scm_params(_write(tmp_path, data))
    data = _loose_sand()
    data['soil']['Bekker_Kphii'] = 1.0
    with pytest.raises(SoilConfigError, match="unknown parameter 'Bekker_Kphii'"):
        load_scm_params(_write(tmp_path, data))
    with pytest.raises(SoilConfigError, match='cannot read'):
        load_scm_params(tmp_path / 'no_such_soil.yaml')
    compliant = yaml.safe_load(COMPLIANT.read_text())
    compliant['compliant']['friction_dynamic'] = 0.8   # above friction_static
    path = tmp_path / 'compliant.yaml'
    path.write_text(yaml.safe_dump(compliant))
    with pytest.raises(SoilConfigError, match=r"'friction_dynamic' = 0.8 .*\[0.0, 0.5\]"):
        load_compliant_params(path)


def test_the_removed_shear_regularisation_keys_say_what_replaced_them(tmp_path: Path) -> None:
    for key in ('slip_speed_regularisation_m_s', 'shear_damping_cap'):
        data = _loose_sand()
        data['numerics'][key] = 0.25
        with pytest.raises(SoilConfigError, match=f"'{key}' in 'numerics' no longer exists.*stick_stiffness_fraction"):
            load_scm_params(_write(tmp_path, data))


def test_bad_collision_shape_is_refused_by_body_name() -> None:
    with pytest.raises(SoilConfigError, match="body 'link_3' shape 0: kind 'mesh'"):
        ScmTerrain(ScmParams(), [BodyGeometry('link_3', 0.4, (CollisionShape('mesh', (1.0,)),))])
    with pytest.raises(SoilConfigError, match="body 'link_3' shape 0: size_m"):
        ScmTerrain(ScmParams(), [BodyGeometry('link_3', 0.4, (CollisionShape('cylinder', (0.04, -1.0)),))])
