"""Gait presets as stored in the gait node's parameter file (config/gait.yaml)."""

from __future__ import annotations

from pathlib import Path

import yaml

from cobra_gaits.sidewinding import GaitError, SidewindingParams

GAIT_NODE_NAME = 'gait_node'
CSV_GAIT = 'csv'
PRESET_FIELDS = ('frequency_hz', 'amplitude_vertical_rad', 'amplitude_horizontal_rad')


def load_gait_parameters(params_file: str | Path) -> dict:
    """The `gait_node: ros__parameters:` block of a ROS parameter file."""
    path = Path(params_file)
    if not path.is_file():
        raise GaitError(f'gait parameter file not found: {path}')
    try:
        document = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as error:
        raise GaitError(f'{path}: not valid YAML: {error}') from error
    sections = document.items() if isinstance(document, dict) else ()
    for key, section in sections:
        if str(key).strip('/').split('/')[-1] == GAIT_NODE_NAME and isinstance(section, dict):
            return dict(section.get('ros__parameters') or {})
    raise GaitError(f'{path}: no "{GAIT_NODE_NAME}:" section with ros__parameters')


def preset_params(parameters: dict, gait: str) -> SidewindingParams:
    """Sidewinding parameters of a named preset, with the file's direction and ramp settings."""
    names = list(parameters.get('preset_names', []))
    if gait not in names:
        raise GaitError(f"unknown gait '{gait}': choose one of {names + [CSV_GAIT]}")
    preset = parameters.get(gait, {})
    missing = [field for field in PRESET_FIELDS if field not in preset]
    if missing:
        raise GaitError(f"preset '{gait}' lacks {missing} in the gait parameter file")
    return SidewindingParams(
        **{field: float(preset[field]) for field in PRESET_FIELDS},
        direction=str(parameters.get('direction', 'left')),
        ramp_duration_s=float(parameters.get('ramp_duration_s', 2.0)),
        amplitude_slew_rad_s=float(parameters.get('amplitude_slew_rad_s', 0.5)),
    ).validated()


def available_gaits(parameters: dict) -> list[str]:
    return list(parameters.get('preset_names', [])) + [CSV_GAIT]
