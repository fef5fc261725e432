"""What the gait node plays, built from its declared parameter values (no ROS here).

The node calls `make_gait_source` after `declare_parameters`; a pre-start validator can call it
with the same values to refuse a too-fast gait, a bad CSV or a gait the robot cannot play
(an LTS twist gait on COBRA, a sidewinding preset on the T-Snake) before any node starts.

LTS (`gait: lts`, seed 002): `LtsSource` samples cobra_gaits.lts.LtsJointGenerator at the node's
own time, with the LTS time step set to the node period (1 / rate_hz), and blends it in from the
straight pose and back out over ramp_duration_s, as the other sources do. Twist joints are
continuous: on a twisting gait their commands grow without bound, so the straight pose a stop
ramps down to has each twist joint at the multiple of 2 pi nearest its angle when the stop began
(never unwinding many turns at once).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from cobra_description.robot_model import Joint
from cobra_gaits.lts import (PRESET_NAMES, LinearTwistParams, LtsGait, LtsJointGenerator,
                             RollingVectorParams, lts_preset, with_time_step)
from cobra_gaits.presets import CMD_VEL_GAIT, CSV_GAIT, LTS_GAIT
from cobra_gaits.sidewinding import GaitError, SidewindingGenerator, SidewindingParams, StartStopRamp
from cobra_gaits.speed_limit import check_sidewinding_speed
from cobra_gaits.trajectory_csv import TrajectoryReplay, load_replay

RETUNABLE = ('frequency_hz', 'amplitude_vertical_rad', 'amplitude_horizontal_rad', 'direction',
             'ramp_duration_s', 'amplitude_slew_rad_s')
LTS_OVERRIDES = {'lts_a0_rad_s': 'a0_rad_s', 'lts_a1_rad_m_s': 'a1_rad_m_s',
                 'lts_omega_t_rad_s': 'temporal_frequency_rad_s'}  # gait_node parameter -> LTS field
TWIST_JOINT_SUFFIX = '_twist'  # m{i}_twist, the contract's T-Snake names
MAX_SPEED_WINDOW_S = 60.0  # the LTS speed check samples one period of the gait, at most this long
SMOOTHSTEP_MAX_SLOPE = 1.5  # max of d/dx (3x^2 - 2x^3): the ramp envelope's steepest rate x ramp_duration_s


def has_twist_joints(joints: Sequence[Joint]) -> bool:
    """True for a robot that can roll its body (the T-Snake); COBRA has pitch and yaw joints only."""
    return any(joint.name.endswith(TWIST_JOINT_SUFFIX) for joint in joints)


def lts_gait_from_values(values: Mapping[str, Any]) -> LtsGait:
    """The LTS gait of `lts_preset` with the overrides given (absent, None or NaN = the preset's),
    sampled at the node period."""
    name = values['lts_preset']
    if name not in PRESET_NAMES:
        raise GaitError(f"unknown lts_preset '{name}': choose one of {', '.join(PRESET_NAMES)}")
    gait = lts_preset(name)
    given = {field: float(values[parameter]) for parameter, field in LTS_OVERRIDES.items()
             if values.get(parameter) is not None and not math.isnan(float(values[parameter]))}
    if 'temporal_frequency_rad_s' in given:
        gait = replace(gait, curve=replace(gait.curve, temporal_frequency_rad_s=given['temporal_frequency_rad_s']))
    twist_given = {field: value for field, value in given.items() if field != 'temporal_frequency_rad_s'}
    if isinstance(gait.twist, RollingVectorParams):
        if any(value != 0.0 for value in twist_given.values()):
            raise GaitError(f"lts_preset '{name}' is the rolling-vector baseline (head and tail roll "
                            'speeds, no linear twist): lts_a0_rad_s and lts_a1_rad_m_s do not apply to it; '
                            'leave them unset or choose a linear-twist preset')
    elif twist_given:
        gait = replace(gait, twist=replace(gait.twist, **twist_given))
    return with_time_step(gait.validated(), 1.0 / float(values['rate_hz']))


class LtsSource:
    """An LTS gait for the gait node: `advance(dt)` each tick, `positions()` in the generator's
    joint order; `ramp` starts (blend in from straight) and stops (blend out to straight).

    The gait's own time runs only while the ramp is running (as a CSV replay's), so a stop
    freezes the shape and shrinks it to the straight pose, and a start resumes where it stopped.
    """

    def __init__(self, gait: LtsGait, ramp_duration_s: float) -> None:
        self.generator = LtsJointGenerator(gait)
        self.gait = self.generator.gait
        self.ramp = StartStopRamp(ramp_duration_s)
        self.time_s = 0.0
        self.is_twist = np.array([name.endswith(TWIST_JOINT_SUFFIX) for name in self.generator.joint_names])
        self._straight_rad = np.zeros(len(self.generator.joint_names))  # what envelope 0 means
        self._gait_rad: np.ndarray | None = None  # the generator at time_s (cached per tick)

    @property
    def joint_names(self) -> list[str]:
        return list(self.generator.joint_names)

    def advance(self, dt_s: float) -> None:
        if dt_s < 0.0:
            raise GaitError('time step must not be negative')
        self.ramp.advance(dt_s)
        if self.ramp.running and dt_s > 0.0:
            self.time_s += dt_s
            self._gait_rad = None

    def gait_positions(self) -> np.ndarray:
        """The generator's angles at the gait time [rad] (no ramp)."""
        if self._gait_rad is None:
            self._gait_rad = self.generator.positions_rad(self.time_s)
        return self._gait_rad

    def positions(self) -> np.ndarray:
        """Joint positions [rad]: straight + envelope (gait - straight)."""
        gait_rad = self.gait_positions()
        envelope = self.ramp.envelope
        if envelope == 1.0:  # fully in the gait: a later stop unwinds each twist by at most pi
            self._straight_rad = np.where(self.is_twist, 2.0 * math.pi * np.round(gait_rad / (2.0 * math.pi)), 0.0)
            return gait_rad.copy()
        return self._straight_rad + envelope * (gait_rad - self._straight_rad)


def lts_speed_window_s(gait: LtsGait) -> float:
    """One period of the slowest motion in the gait (curve wave, piece roll speeds), capped at
    MAX_SPEED_WINDOW_S; at least one time step."""
    rates = [abs(gait.curve.temporal_frequency_rad_s),
             *np.abs(gait.twist.rolling_speed_rad_s(gait.geometry.piece_centres_m))]
    periods = [2.0 * math.pi / rate for rate in rates if rate > 1e-9]
    return min(max(periods, default=gait.time_step_s), MAX_SPEED_WINDOW_S)


def lts_motion_bounds(gait: LtsGait, ramp_duration_s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(steady peak speed [rad/s], peak speed with a start/stop ramp [rad/s], largest |angle| [rad])
    per joint, sampled from the generator at the gait's time step over `lts_speed_window_s`.

    The steady speed is the commands' own: the change between consecutive commands over the
    node period. A ramp adds envelope' x (gait - straight) <= 1.5 / ramp_duration_s x D, with D the
    largest |angle| for a bending joint; for a twist joint the largest |angle| but at most pi (a
    stop unwinds to the nearest full turn), plus what the joint twists during one ramp.
    """
    generator = LtsJointGenerator(gait)
    step_s = gait.time_step_s
    times = np.arange(int(math.ceil(lts_speed_window_s(gait) / step_s)) + 1) * step_s
    angles = np.stack([generator.positions_rad(float(t)) for t in times])
    steady = np.max(np.abs(np.diff(angles, axis=0)), axis=0) / step_s if len(times) > 1 else np.zeros(angles.shape[1])
    largest = np.max(np.abs(angles), axis=0)
    is_twist = np.array([name.endswith(TWIST_JOINT_SUFFIX) for name in generator.joint_names])
    blend = np.where(is_twist, np.minimum(largest, math.pi) + steady * ramp_duration_s, largest)
    return steady, steady + SMOOTHSTEP_MAX_SLOPE / ramp_duration_s * blend, largest


def check_lts_gait(joints: Sequence[Joint], gait: LtsGait, ramp_duration_s: float, preset: str) -> None:
    """GaitError naming the joint, the figure and the fix when the gait leaves a joint's URDF
    range or moves it faster than its URDF velocity limit (ramps included)."""
    by_name = {joint.name: joint for joint in joints}
    names = gait.geometry.joint_names()
    steady, ramped, largest = lts_motion_bounds(gait, ramp_duration_s)
    what = (f"lts_preset '{preset}' (omega_t {gait.curve.temporal_frequency_rad_s:g} rad/s, "
            + (f'a0 {gait.twist.a0_rad_s:g} rad/s, a1 {gait.twist.a1_rad_m_s:g} rad/(m s))'
               if isinstance(gait.twist, LinearTwistParams) else 'rolling-vector baseline)'))
    for index, name in enumerate(names):
        limits = by_name[name].limits
        if limits is None:
            continue
        if not name.endswith(TWIST_JOINT_SUFFIX) and largest[index] > max(-limits.lower_rad, limits.upper_rad):
            raise GaitError(f'{what} bends {name} to {largest[index]:.3f} rad, outside its URDF range '
                            f'[{limits.lower_rad:g}, {limits.upper_rad:g}] rad: choose another preset')
        if steady[index] > limits.velocity_rad_s:
            raise GaitError(
                f'gait too fast for the servos: {what} moves {name} at up to {steady[index]:.2f} rad/s; '
                f'its URDF velocity limit is {limits.velocity_rad_s:g} rad/s. Use smaller |lts_a0_rad_s|, '
                '|lts_a1_rad_m_s| or |lts_omega_t_rad_s|')
        if ramped[index] > limits.velocity_rad_s:
            min_ramp_s = SMOOTHSTEP_MAX_SLOPE * (ramped[index] - steady[index]) * ramp_duration_s \
                / (limits.velocity_rad_s - steady[index])
            raise GaitError(
                f'gait too fast for the servos: the start/stop ramp of {what} moves {name} at up to '
                f'{ramped[index]:.2f} rad/s with ramp_duration_s {ramp_duration_s:g} s; its URDF velocity '
                f'limit is {limits.velocity_rad_s:g} rad/s. Use ramp_duration_s >= {min_ramp_s:.2f} s')


def make_lts_source(values: Mapping[str, Any], joints: Sequence[Joint]) -> tuple[list[str], LtsSource]:
    """The LTS source for a robot with twist joints whose gait joints are the LTS joint vector."""
    if not has_twist_joints(joints):
        raise GaitError('gait:=lts needs twist joints (m{i}_twist): COBRA has no twist joints: '
                        'use robot:=tsnake (urdf_path: the T-Snake URDF)')
    gait = lts_gait_from_values(values)
    names = gait.geometry.joint_names()
    robot_names = [joint.name for joint in joints]
    if robot_names != names:
        raise GaitError(f'gait:=lts drives the T-Snake joints {names[0]} .. {names[-1]} '
                        f'({len(names)}, dorsal/twist/lateral per module), but the URDF has '
                        f'{robot_names}: use the T-Snake URDF (robot:=tsnake)')
    check_lts_gait(joints, gait, float(values['ramp_duration_s']), values['lts_preset'])
    return names, LtsSource(gait, float(values['ramp_duration_s']))


def make_gait_source(values: Mapping[str, Any], joints: Sequence[Joint]
                     ) -> tuple[list[str], SidewindingGenerator | TrajectoryReplay | LtsSource]:
    """(joint names commanded, source) for the gait node's parameter values; GaitError when the
    gait would exceed a joint's URDF limits, the CSV is unusable or the robot cannot play it."""
    if values['gait'] == CSV_GAIT:
        limits = {j.name: j.limits.velocity_rad_s if j.limits else math.inf for j in joints}
        replay = load_replay(values['csv_file'], limits, values['ramp_duration_s'], values['csv_loop'])
        return list(replay.trajectory.joint_names), replay
    if values['gait'] == LTS_GAIT:
        return make_lts_source(values, joints)
    if values['gait'] == CMD_VEL_GAIT:  # both robots; imported here: cobra_gaits.cmd_vel builds on this module
        from cobra_gaits.cmd_vel import make_cmd_vel_source
        return make_cmd_vel_source(values, joints)
    if has_twist_joints(joints):
        raise GaitError(f"gait:={values['gait']} is a COBRA sidewinding preset (pitch/yaw joints); this "
                        'URDF is the T-Snake (dorsal/twist/lateral joints): use gait:=lts with '
                        'lts_preset:=conventional for its sidewinding')
    params = SidewindingParams(**{name: values[name] for name in RETUNABLE}).validated()
    check_sidewinding_speed(joints, params)
    return [j.name for j in joints], SidewindingGenerator([j.axis_kind for j in joints], params)
