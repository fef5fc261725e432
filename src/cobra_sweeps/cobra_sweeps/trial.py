"""One sweep trial: a headless CobraSim run of a sidewinding gait on a terrain, and its metrics.

No ROS graph and no Ray here: `run_trial(params)` is a plain function (the sweep runner ships it
to Ray workers; tests and the calibration call it directly), deterministic for the same params.
How a trial is played and what each metric measures: README, "A trial".
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from cobra_description.robot_model import RobotModel, default_urdf_path, load_robot_model
from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams
from cobra_sim.engine import CobraSim, SimParams
from cobra_experiments.lts_runs import body_yaw_rad, yaw_rate_rad_s
from cobra_sim.terrain import TERRAINS, TerrainConfigError, default_terrain_file, make_terrain

STANDARD_GRAVITY_M_S2 = 9.80665
TERRAIN_OVERRIDE_PREFIX = 'terrain.'  # params 'terrain.<dotted key>' override the terrain YAML
GAIT_KEYS = ('frequency_hz', 'amplitude_vertical_rad', 'amplitude_horizontal_rad', 'direction',
             'phase_step_rad', 'ramp_duration_s')
RUN_KEYS = ('terrain', 'terrain_file', 'slope_deg', 'duration_s', 'settle_s', 'urdf', 'seed')
TRIAL_DEFAULTS: dict[str, Any] = {
    'terrain': 'rigid', 'terrain_file': '', 'slope_deg': 0.0, 'duration_s': 5.0, 'settle_s': 0.5,
    'urdf': '', 'seed': 0,
    'frequency_hz': 0.4, 'amplitude_vertical_rad': 0.35, 'amplitude_horizontal_rad': 0.70,  # gait1
    'direction': 'left', 'phase_step_rad': math.pi / 6, 'ramp_duration_s': 1.0,
}
METRICS = ('speed_m_s', 'stride_m_per_cycle', 'heading_drift_rad', 'travel_direction_rad',
           'cost_of_transport', 'peak_joint_torque_nm', 'peak_joint_power_w', 'peak_normal_force_n',
           'sinkage_m', 'measured_s', 'head_height_m', 'head_stride_m_per_cycle')


class TrialError(ValueError):
    """Trial parameters that cannot give a run (unknown key or terrain, bad override, ...)."""


def is_terrain_override(key: str) -> bool:
    return key.startswith(TERRAIN_OVERRIDE_PREFIX)


def check_param_keys(keys: list[str]) -> None:
    """Every key is a gait key, a run key or a terrain override; else a TrialError naming it."""
    known = set(GAIT_KEYS) | set(RUN_KEYS)
    unknown = sorted(k for k in keys if k not in known and not is_terrain_override(k))
    if unknown:
        raise TrialError(f'unknown trial parameter(s) {unknown}: use one of {sorted(known)} or '
                         f"'{TERRAIN_OVERRIDE_PREFIX}<key.in.terrain.yaml>' (e.g. terrain.soil.Bekker_Kphi)")


def terrain_file_for(terrain: str, terrain_file: str) -> Path | None:
    """The parameter file the terrain reads: the given one, else the registry's default."""
    if terrain not in TERRAINS:
        raise TrialError(f"unknown terrain '{terrain}': choose one of {', '.join(sorted(TERRAINS))} "
                         f'(cobra_sim.terrain registry)')
    return Path(terrain_file) if terrain_file else default_terrain_file(terrain)


def overridden_terrain_yaml(terrain: str, terrain_file: str, overrides: Mapping[str, Any]) -> dict:
    """The terrain YAML with `overrides` ({'soil.Bekker_Kphi': 3e4}) set; each key must exist."""
    path = terrain_file_for(terrain, terrain_file)
    if path is None:
        raise TrialError(f"terrain '{terrain}' reads no parameter file, so {sorted(overrides)} cannot "
                         f'override anything: drop those keys or choose a terrain with a file')
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        raise TrialError(f'terrain file {path}: {error}') from error
    for dotted, value in overrides.items():
        node = data
        parts = dotted.split('.')
        for part in parts[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict) or parts[-1] not in node:
            raise TrialError(f"'{TERRAIN_OVERRIDE_PREFIX}{dotted}' names no key of terrain file {path}: "
                             f'use a dotted path to an existing key (e.g. soil.Bekker_Kphi)')
        node[parts[-1]] = value.item() if isinstance(value, np.generic) else value
    return data


@lru_cache(maxsize=4)
def cached_robot(urdf: str) -> RobotModel:
    return load_robot_model(Path(urdf) if urdf else default_urdf_path())


@dataclass
class TrialSamples:
    """Per-control-period samples of the measured window."""

    com_m: list[np.ndarray]
    link_xy_m: list[np.ndarray]
    lowest_link_z_m: list[float]
    power_w: list[np.ndarray]
    torque_nm: list[np.ndarray]
    normal_force_n: list[float]
    head_height_m: list[float] = field(default_factory=list)  # base_link origin along the ground normal
    head_xy_m: list[np.ndarray] = field(default_factory=list)  # base_link origin in the world xy plane


def build_sim(params: Mapping[str, Any]) -> CobraSim:
    """The sim of a trial: terrain (with overrides written to a temporary file), robot, seed."""
    overrides = {k[len(TERRAIN_OVERRIDE_PREFIX):]: v for k, v in params.items() if is_terrain_override(k)}
    terrain_name = str(params['terrain'])
    try:
        if overrides:
            data = overridden_terrain_yaml(terrain_name, str(params['terrain_file']), overrides)
            with tempfile.TemporaryDirectory() as directory:
                path = Path(directory) / 'terrain.yaml'
                path.write_text(yaml.safe_dump(data))
                terrain = make_terrain(terrain_name, path, float(params['slope_deg']))
        else:
            terrain_file_for(terrain_name, '')  # an unknown name gets the TrialError wording
            terrain = make_terrain(terrain_name, str(params['terrain_file']) or None, float(params['slope_deg']))
    except TerrainConfigError as error:
        raise TrialError(str(error)) from error
    sim_params = SimParams(settle_duration_s=float(params['settle_s']))
    return CobraSim(cached_robot(str(params['urdf'])), terrain, sim_params,
                    np.random.default_rng(int(params['seed'])))


def run_trial(params: Mapping[str, Any]) -> dict[str, float]:
    """Metrics (METRICS) of one headless run; missing params take TRIAL_DEFAULTS."""
    check_param_keys(list(params))
    full = {**TRIAL_DEFAULTS, **params}
    gait = SidewindingParams(**{k: (str(full[k]) if k == 'direction' else float(full[k])) for k in GAIT_KEYS}).validated()
    if gait.frequency_hz <= 0.0:
        raise TrialError('frequency_hz must be > 0 for a sweep trial (a stride needs a cycle)')
    sim = build_sim(full)
    generator = SidewindingGenerator([j.axis_kind for j in sim.robot.gait_joints()], gait)
    generator.ramp.start()

    def next_targets(dt_s: float) -> np.ndarray:
        generator.advance(dt_s)
        return generator.positions()

    return play_gait(sim, next_targets, float(full['duration_s']), gait.frequency_hz, gait.ramp_duration_s)


def play_gait(sim: CobraSim, next_targets: Callable[[float], np.ndarray], duration_s: float, frequency_hz: float,
              ramp_duration_s: float, observe: Callable[[CobraSim, np.ndarray], None] | None = None
              ) -> dict[str, float]:
    """Settle, then play `next_targets(dt)` (gait-joint positions after advancing dt) through the
    ramp and a measured window of whole cycles; the METRICS of that window.

    Any gait source plays here (the sidewinding generator, a serpenoid shape sequence, ...).
    `observe(sim, gait_joint_targets)` runs after every control period (e.g. to record a bag)."""
    sim.settle()
    joints = sim.robot.gait_joints()
    index = np.array([sim.joint_names.index(j.name) for j in joints])
    dt_s = sim.params.control_period_s
    cycles = max(1, math.ceil(duration_s * frequency_hz - 1e-9))
    measured_periods = round(cycles / frequency_hz / dt_s)
    ramp_periods = math.ceil(ramp_duration_s / dt_s)
    normal = sim.terrain.surface_rotation()[:, 2]
    rest_height_m = -sim.robot.lowest_point_m()
    samples = TrialSamples([], [], [], [], [], [])
    targets = sim.targets_rad.copy()
    for period in range(ramp_periods + measured_periods):
        targets[index] = next_targets(dt_s)
        sim.targets_rad[:] = targets
        sim.step_control_period()
        if observe is not None:
            observe(sim, targets[index])
        if period < ramp_periods - 1:  # the last ramp period's end state opens the window
            continue
        state = sim.body_state()
        torque = sim.joint_efforts()
        samples.com_m.append(sim.center_of_mass())
        samples.link_xy_m.append(state.position_m[:, :2].copy())
        heights = state.position_m @ normal
        samples.lowest_link_z_m.append(float(heights.min()))
        head_position_m = sim.head_pose()[0]
        samples.head_height_m.append(float(head_position_m @ normal))
        samples.head_xy_m.append(head_position_m[:2].copy())
        samples.torque_nm.append(np.abs(torque))
        samples.power_w.append(np.abs(torque * sim.joint_velocities()))
        samples.normal_force_n.append(float((sim.contact_wrenches_world()[:, :3] @ normal).max(initial=0.0)))
    return trial_metrics(samples, dt_s, cycles, frequency_hz,
                         float(sim.model.body_mass[sim.root_body_id:].sum()), rest_height_m)


def trial_metrics(samples: TrialSamples, dt_s: float, cycles: int, frequency_hz: float,
                  mass_kg: float, rest_height_m: float) -> dict[str, float]:
    """The METRICS of a measured window (pure: tested on made-up samples)."""
    com = np.array(samples.com_m)
    displacement = com[-1, :2] - com[0, :2]
    distance_m = float(np.linalg.norm(displacement))
    measured_s = cycles / frequency_hz
    times = np.arange(len(com)) * dt_s
    yaw = body_yaw_rad(np.array(samples.link_xy_m))
    work_j = float(np.sum(samples.power_w) * dt_s)
    return {
        'speed_m_s': distance_m / measured_s,
        'stride_m_per_cycle': distance_m / cycles,
        'heading_drift_rad': yaw_rate_rad_s(times, yaw) * measured_s,
        'travel_direction_rad': float(math.atan2(displacement[1], displacement[0])),
        'cost_of_transport': work_j / (mass_kg * STANDARD_GRAVITY_M_S2 * distance_m) if distance_m > 0 else math.inf,
        'peak_joint_torque_nm': float(np.max(samples.torque_nm)),
        'peak_joint_power_w': float(np.max(samples.power_w)),
        'peak_normal_force_n': float(max(samples.normal_force_n)),
        'sinkage_m': float(np.median(rest_height_m - np.array(samples.lowest_link_z_m))),
        'measured_s': measured_s,
        'head_height_m': float(np.median(samples.head_height_m)) if samples.head_height_m else math.nan,
        'head_stride_m_per_cycle': (float(np.linalg.norm(samples.head_xy_m[-1] - samples.head_xy_m[0])) / cycles
                                    if samples.head_xy_m else math.nan),
    }
