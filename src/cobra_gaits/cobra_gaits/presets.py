"""Gait presets as stored in the gait node's parameter files (config/gait.yaml, a params_file).

The gait node gets the defaults file and optionally a user's params_file, in that order, the
way ROS applies several `--params-file`s: a later file overrides single values of an earlier one,
so a params_file may add presets (extend `preset_names` and define them) or retune one field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from cobra_gaits.sidewinding import GaitError, SidewindingParams

GAIT_NODE_NAME = 'gait_node'
CSV_GAIT = 'csv'
LTS_GAIT = 'lts'  # an LTS twist gait of cobra_gaits.lts (T-Snake only), chosen by lts_preset
TUMBLE_GAIT = 'tumble'  # the tumbling-latch sequence (COBRA only)
CMD_VEL_GAIT = 'cmd_vel'  # follow geometry_msgs/Twist on cmd_vel (cobra_gaits.cmd_vel; both robots)
BUILT_IN_GAITS = (CSV_GAIT, LTS_GAIT, TUMBLE_GAIT, CMD_VEL_GAIT)  # gait names besides the parameter files' presets
PRESET_FIELDS = ('frequency_hz', 'amplitude_vertical_rad', 'amplitude_horizontal_rad')
WILDCARD_SECTIONS = ('/**', '**')


def _is_gait_section(key: object) -> bool:
    """`gait_node`, `/ns/gait_node`, `/**/gait_node` or the all-nodes wildcard `/**`."""
    text = str(key)
    return text in WILDCARD_SECTIONS or text.strip('/').split('/')[-1] == GAIT_NODE_NAME


def _merged(base: dict, override: dict) -> dict:
    """Deep merge: nested keys (`gait1: {frequency_hz: ..}`) override one by one, as in ROS."""
    result = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = _merged(result[key], value)
        else:
            result[key] = value
    return result


def _read_sections(path: Path) -> list[dict]:
    if path.is_dir():
        raise GaitError(f'gait parameter file {path} is a directory: give a YAML parameter file')
    if not path.is_file():
        raise GaitError(f'gait parameter file not found: {path}')
    try:
        document = yaml.safe_load(path.read_text(encoding='utf-8')) or {}
    except UnicodeDecodeError as error:
        raise GaitError(f'{path}: not UTF-8 text ({error.reason} at byte {error.start}): '
                        'save the parameter file as UTF-8') from error
    except yaml.YAMLError as error:
        raise GaitError(f'{path}: not valid YAML: {error}') from error
    if not isinstance(document, dict):
        raise GaitError(f'{path}: a ROS parameter file is a mapping of node names, '
                        f'got a {type(document).__name__}')
    sections = []
    for key, section in document.items():
        if _is_gait_section(key) and isinstance(section, dict):
            parameters = section.get('ros__parameters') or {}
            if not isinstance(parameters, dict):
                raise GaitError(f'{path}: "{key}: ros__parameters:" must be a mapping of names to values')
            sections.append(parameters)
    return sections


def load_gait_parameters(*params_files: str | Path) -> dict[str, Any]:
    """The gait node's `ros__parameters` from one or more parameter files, later files winning.

    A file without a gait_node section (say a params_file for the sim only) adds nothing; at
    least one of the files must have one.
    """
    if not params_files:
        raise GaitError('no gait parameter file given')
    merged: dict[str, Any] = {}
    found = False
    for params_file in params_files:
        for section in _read_sections(Path(params_file)):
            merged, found = _merged(merged, section), True
    if not found:
        names = ', '.join(str(Path(p)) for p in params_files)
        raise GaitError(f'{names}: no "{GAIT_NODE_NAME}:" section with ros__parameters')
    return merged


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise GaitError(f'{what} must be a number, got {value!r}')
    return float(value)


def preset_params(parameters: dict, gait: str) -> SidewindingParams:
    """Sidewinding parameters of a named preset, with the file's direction and ramp settings."""
    names = list(parameters.get('preset_names', []))
    if gait not in names:
        raise GaitError(f"unknown sidewinding preset '{gait}': choose one of {names}")
    preset = parameters.get(gait, {})
    if not isinstance(preset, dict):
        raise GaitError(f"preset '{gait}' must be a mapping of {list(PRESET_FIELDS)}, got {preset!r}")
    missing = [field for field in PRESET_FIELDS if field not in preset]
    if missing:
        raise GaitError(f"preset '{gait}' lacks {missing} in the gait parameter file")
    return SidewindingParams(
        **{field: _number(preset[field], f'{gait}.{field}') for field in PRESET_FIELDS},
        direction=str(parameters.get('direction', 'left')),
        ramp_duration_s=_number(parameters.get('ramp_duration_s', 2.0), 'ramp_duration_s'),
        amplitude_slew_rad_s=_number(parameters.get('amplitude_slew_rad_s', 0.5), 'amplitude_slew_rad_s'),
    ).validated()


def available_gaits(parameters: dict) -> list[str]:
    """Preset names the merged parameters define, then 'csv', 'lts', 'tumble' and 'cmd_vel'."""
    return list(parameters.get('preset_names', [])) + list(BUILT_IN_GAITS)
