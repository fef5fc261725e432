"""What the gait node plays, built from its declared parameter values (no ROS here).

The node calls `make_gait_source` after `declare_parameters`; a pre-start validator can call it
with the same values to refuse a too-fast gait, a bad CSV or a gait the robot cannot play
(an LTS twist gait on COBRA, a sidewinding preset on the T-Snake) before any node starts.

LTS (`gait: lts`, the LTS paper): `LtsSource` samples cobra_gaits.lts.LtsJointGenerator at the node's
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
from cobra_gaits.lts import (PRESET_NAMES, LtsGait, LtsJointGenerator, RollingVectorParams, lts_preset,
                             with_time_step)
from cobra_gaits.presets import CMD_VEL_GAIT, CSV_GAIT, LTS_GAIT
from cobra_gaits.sidewinding import GaitError, SidewindingGenerator, SidewindingParams, StartStopRamp
from cobra_gaits.speed_limit import TWIST_JOINT_SUFFIX, check_lts_gait, check_sidewinding_speed, has_twist_joints
from cobra_gaits.trajectory_csv import TrajectoryReplay, load_replay

RETUNABLE = ('frequency_hz', 'amplitude_vertical_rad', 'amplitude_horizontal_rad', 'direction',
             'ramp_duration_s', 'amplitude_slew_rad_s')
LTS_OVERRIDES = {'lts_a0_rad_s': 'a0_rad_s', 'lts_a1_rad_m_s': 'a1_rad_m_s',
                 'lts_omega_t_rad_s': 'temporal_frequency_rad_s'}  # gait_node parameter -> LTS field


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
