"""What a run was, written into its bag: the logger's `custom_data` (metadata.yaml custom_data).

cobra_analysis reads these keys to identify a bag without guessing from its commands; the keys: the
package README, "cobra_bringup.run_metadata". Values are strings, numbers written with repr so they
parse back exactly. No ROS imports: node_set calls it for both front ends.
"""

from __future__ import annotations

import math
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cobra_gaits.lts import LinearTwistParams, lts_preset
from cobra_gaits.presets import CSV_GAIT, LTS_GAIT, TUMBLE_GAIT

PREFIX = 'cobra.'
GAIT_PREFIX = PREFIX + 'gait.'
SIM_CLASS, ROBOT_CLASS = 'sim', 'robot'  # cobra_analysis's class names
PRESET_FIELDS = ('frequency_hz', 'amplitude_vertical_rad', 'amplitude_horizontal_rad')
LTS_FIELDS = ('lts_a0_rad_s', 'lts_a1_rad_m_s', 'lts_omega_t_rad_s')
GAIT_SCALARS = ('rate_hz', 'ramp_duration_s')  # gait_node parameters recorded when a file sets them
GIT_TIMEOUT_S = 5.0


def git_revision(directory: Path | None = None) -> str | None:
    """`git describe --always --dirty` of the checkout holding `directory` (default: this
    package's sources), or None when it is not in a git checkout or git is missing."""
    where = directory if directory is not None else Path(__file__).resolve().parent
    try:
        result = subprocess.run(['git', 'describe', '--always', '--dirty'], cwd=where, capture_output=True,
                                text=True, timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    revision = result.stdout.strip()
    return revision if result.returncode == 0 and revision else None


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def gait_entries(gait: str, direction: str, lts_preset_name: str, csv_file: str,
                 gait_parameters: Mapping[str, Any]) -> dict[str, Any]:
    """The gait node's parameters as far as the bringup knows them before it starts.

    `gait_parameters` is the merged gait_node section of config/gait.yaml and params_file
    (cobra_gaits.presets.load_gait_parameters): a top-level frequency_hz or amplitude there
    overrides the preset's, as in the gait node.
    """
    entries: dict[str, Any] = {'gait': gait, 'direction': direction}
    entries.update({name: gait_parameters[name] for name in GAIT_SCALARS if _number(gait_parameters.get(name))})
    tumble = gait_parameters.get('tumble')
    if gait == TUMBLE_GAIT:  # the sidewinding it plays before (and between) the sequences
        sidewinding = tumble.get('sidewinding_preset', 'gait1') if isinstance(tumble, Mapping) else 'gait1'
        entries['tumble.sidewinding_preset'] = sidewinding
        gait = sidewinding
    preset = gait_parameters.get(gait)
    if gait not in (CSV_GAIT, LTS_GAIT, TUMBLE_GAIT) and isinstance(preset, Mapping):
        for name in PRESET_FIELDS:
            value = gait_parameters.get(name, preset.get(name))
            if _number(value):
                entries[name] = float(value)
    elif gait == LTS_GAIT:
        preset_gait = lts_preset(lts_preset_name)  # the gait node's defaults (declare_lts_parameters)
        twist = preset_gait.twist if isinstance(preset_gait.twist, LinearTwistParams) else LinearTwistParams()
        defaults = {'lts_a0_rad_s': twist.a0_rad_s, 'lts_a1_rad_m_s': twist.a1_rad_m_s,
                    'lts_omega_t_rad_s': preset_gait.curve.temporal_frequency_rad_s}
        entries['lts_preset'] = lts_preset_name
        for name in LTS_FIELDS:
            value = gait_parameters.get(name)
            entries[name] = float(value if _number(value) else defaults[name])
        if entries['lts_omega_t_rad_s']:  # one backbone wave period is the LTS gait cycle
            entries['frequency_hz'] = abs(entries['lts_omega_t_rad_s']) / (2.0 * math.pi)
    elif gait == CSV_GAIT and csv_file:
        entries['csv_file'] = csv_file
    return entries


def run_custom_data(launch_file: str, robot: str, use_sim: bool, terrain: str, slope_deg: float,
                    terrain_file: str, gait: Mapping[str, Any], git_rev: str | None) -> list[str]:
    """The logger's custom_data parameter: `key=value` strings, keys as in the package README."""
    data: dict[str, Any] = {'launch_file': launch_file, 'robot': robot,
                            'class': SIM_CLASS if use_sim else ROBOT_CLASS}
    if use_sim:
        data['terrain'] = f'{terrain} {slope_deg:g} deg' if slope_deg else terrain
        data['slope_deg'] = float(slope_deg)
        if terrain_file:
            data['terrain_file'] = terrain_file
    if git_rev:
        data['git_rev'] = git_rev
    entries = [f'{PREFIX}{key}={_text(value)}' for key, value in data.items()]
    return entries + [f'{GAIT_PREFIX}{key}={_text(value)}' for key, value in gait.items()]
