"""The tumbling-latch sequence (thesis §2.3, §16-17) as a pure state machine (no ROS).

sidewinding -> ramp_down -> curling -> latching -> tumbling -> releasing -> uncurling -> ready,
and from any state -> aborted with a reason; every transient state has a timeout, so a failure
never leaves a curled or half-latched robot waiting. What each state does: README, "Tumbling-latch
sequence".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

from cobra_description.robot_model import Joint, RobotModel
from cobra_gaits.curl_pose import curl_pose, latch_gap
from cobra_gaits.sidewinding import GaitError, SidewindingGenerator

MIN_JERK_PEAK_SPEED = 1.875  # peak of d/dt of 10t^3 - 15t^4 + 6t^5: peak speed = 1.875 * distance / T
MIN_MOVE_DURATION_S = 0.5


class TumbleState(str, Enum):
    SIDEWINDING = 'sidewinding'
    RAMP_DOWN = 'ramp_down'
    CURLING = 'curling'
    LATCHING = 'latching'
    TUMBLING = 'tumbling'
    RELEASING = 'releasing'
    UNCURLING = 'uncurling'
    READY = 'ready'
    ABORTED = 'aborted'


@dataclass(frozen=True)
class TumbleParams:
    """Speeds, tolerance and timeouts of the sequence (the gait node's tumble.* parameters)."""

    curl_speed_rad_s: float = 0.6  # peak joint speed while curling, uncurling and aborting
    joint_tolerance_rad: float = 0.15  # measured vs target: the loop counts as closed / straight
    closure_distance_m: float = 0.02  # latch frames (FK of measured joints) this close: the loop is closed
    sag_correction_gain_1_s: float = 2.0  # integral gain of the sag correction after the curl move [1/s]
    max_sag_correction_rad: float = 0.3  # largest correction added to a joint's curl target [rad]
    wave_amplitude_rad: float = 0.3  # tumbling: travelling bend wave on the pitch joints; 0 = passive
    wave_frequency_hz: float = 1.0  # its frequency; the sign sets the direction it travels round the loop
    ramp_down_timeout_s: float = 10.0  # the sidewinding ramp must be down by then
    curling_timeout_s: float = 3.0  # after the interpolation ends, for the measured joints to arrive
    latching_timeout_s: float = 3.0  # latch/set true -> latch/state true
    tumbling_timeout_s: float = 120.0  # release by itself after this long
    releasing_timeout_s: float = 3.0  # latch/set false -> latch/state false
    uncurling_timeout_s: float = 3.0  # after the interpolation ends, for the measured joints to arrive
    start_after_s: float = 0.0  # > 0: start the sequence by itself after this long sidewinding; 0 = on tumble/start

    def validated(self) -> TumbleParams:
        for name, value in vars(self).items():
            if name in ('wave_amplitude_rad', 'start_after_s') and value == 0.0:
                continue
            if not (math.isfinite(value) and (value > 0.0 or (name == 'wave_frequency_hz' and value < 0.0))):
                raise GaitError(f'tumble parameter {name} must be a '
                                f"{'non-zero' if name == 'wave_frequency_hz' else 'positive'} number, got {value}")
        return self


def travelling_wave_rad(pitch_signs: np.ndarray, amplitude_rad: float, frequency_hz: float,
                        time_s: float) -> np.ndarray:
    """Joint offsets of a mode-2 bend wave travelling round the loop's pitch joints (two bends round
    the loop; pitch_signs: each joint's axis sign, 0 for non-pitch joints), faded in over 1 s; zero
    when amplitude_rad is 0 (passive tumbling)."""
    pitch_signs = np.asarray(pitch_signs, dtype=float)
    amplitude = amplitude_rad * min(1.0, max(time_s, 0.0))
    pitch = np.flatnonzero(pitch_signs)
    offsets = np.zeros(len(pitch_signs))
    if amplitude == 0.0 or len(pitch) == 0:
        return offsets
    phase = 4.0 * math.pi * np.arange(len(pitch)) / len(pitch) + 2.0 * math.pi * frequency_hz * time_s
    offsets[pitch] = amplitude * pitch_signs[pitch] * np.cos(phase)
    return offsets


def min_jerk(progress: float) -> float:
    """0 -> 1 with zero velocity and acceleration at both ends (no jerk into the servos)."""
    x = min(max(progress, 0.0), 1.0)
    return x * x * x * (10.0 + x * (-15.0 + 6.0 * x))


class JointMove:
    """Minimum-jerk move of every joint from `start` to `goal`, no joint above its speed limit."""

    def __init__(self, start_rad: np.ndarray, goal_rad: np.ndarray, speed_limits_rad_s: np.ndarray) -> None:
        self.start_rad = np.array(start_rad, dtype=float)
        self.goal_rad = np.array(goal_rad, dtype=float)
        needed_s = MIN_JERK_PEAK_SPEED * np.abs(self.goal_rad - self.start_rad) / speed_limits_rad_s
        self.duration_s = max(MIN_MOVE_DURATION_S, float(needed_s.max(initial=0.0)))

    def positions(self, elapsed_s: float) -> np.ndarray:
        return self.start_rad + (self.goal_rad - self.start_rad) * min_jerk(elapsed_s / self.duration_s)


class TumbleMachine:
    """The sequence; call `advance` every control tick, then read `positions_rad` and the requests.

    `latch_request` / `torque_request` are None or the value to send with latch/set / torque/set;
    the caller takes them with `take_requests()` and reports answers with `latch_answered`.
    """

    @classmethod
    def for_robot(cls, model: RobotModel, joints: Sequence[Joint], sidewinding: SidewindingGenerator,
                  params: TumbleParams, yaw_splay_rad: float = 0.0) -> TumbleMachine:
        """The machine as the gait node runs it on `model`: the curl pose solved from the URDF,
        closure judged by forward kinematics of the measured joints, targets within the joint
        limits, the wave on the pitch joints (raises CurlPoseError if no curl pose exists)."""
        names = [j.name for j in joints]
        pose = curl_pose(model, joints, yaw_splay_rad)
        velocity_limits = np.array([j.limits.velocity_rad_s if j.limits else math.inf for j in joints])
        limits = (np.array([j.limits.lower_rad if j.limits else -math.inf for j in joints]),
                  np.array([j.limits.upper_rad if j.limits else math.inf for j in joints]))
        return cls(names, pose.positions_rad, velocity_limits, sidewinding, params,
                   latch_gap_m=lambda q: latch_gap(model, dict(zip(names, q.tolist())))[0],
                   position_limits_rad=limits,
                   pitch_signs=np.array([j.axis_sign if j.axis_kind == 'pitch' else 0.0 for j in joints]))

    def __init__(self, joint_names: Sequence[str], curl_pose_rad: np.ndarray,
                 velocity_limits_rad_s: np.ndarray, sidewinding: SidewindingGenerator,
                 params: TumbleParams, latch_gap_m: Callable[[np.ndarray], float] | None = None,
                 position_limits_rad: tuple[np.ndarray, np.ndarray] | None = None,
                 pitch_signs: np.ndarray | None = None) -> None:
        """latch_gap_m: distance of the latch frames at given joint angles (forward kinematics);
        None = judge closure by the joint tolerance alone. position_limits_rad: (lower, upper)
        bounds of the sag-corrected targets. pitch_signs: the URDF axis sign of each pitch joint,
        0 for the others (where the tumbling wave goes; None = no wave)."""
        self.joint_names = list(joint_names)
        self.curl_pose_rad = np.asarray(curl_pose_rad, dtype=float)
        self.hold_rad = self.curl_pose_rad.copy()  # curl pose + sag correction: what the loop holds
        self._latch_gap_m = latch_gap_m
        self._pitch_signs = np.zeros(len(self.curl_pose_rad)) if pitch_signs is None else np.asarray(pitch_signs, float)
        wave_speed_rad_s = 2.0 * math.pi * abs(params.wave_frequency_hz) * params.wave_amplitude_rad
        slowest = np.asarray(velocity_limits_rad_s, dtype=float)[np.flatnonzero(self._pitch_signs)]
        if len(slowest) and wave_speed_rad_s > slowest.min():
            raise GaitError(f'tumbling wave too fast for the servos: 2 pi x {abs(params.wave_frequency_hz):g} Hz x '
                            f'{params.wave_amplitude_rad:g} rad = {wave_speed_rad_s:.2f} rad/s, URDF velocity limit '
                            f'{slowest.min():g} rad/s: lower wave_frequency_hz or wave_amplitude_rad')
        self._position_limits_rad = position_limits_rad or (np.full(len(self.curl_pose_rad), -np.inf),
                                                            np.full(len(self.curl_pose_rad), np.inf))
        self.straight_rad = np.zeros(len(self.joint_names))
        self.params = params.validated()
        self._speed_limits_rad_s = np.minimum(np.asarray(velocity_limits_rad_s, dtype=float),
                                              params.curl_speed_rad_s)
        self.sidewinding = sidewinding
        self.state = TumbleState.SIDEWINDING
        self.abort_reason = ''
        self.positions_rad = sidewinding.positions()
        self._elapsed_s = 0.0
        self._auto_started = False
        self._sidewound_s = 0.0  # time spent sidewinding (ramp running), for start_after_s
        self._move: JointMove | None = None
        self._move_start_s = 0.0  # aborted: state time at which the move to straight began
        self._latch_engaged = False  # the newest latch/state
        self._latch_request: bool | None = None
        self._torque_request: bool | None = None
        self._latch_answer = ''
        self.events: list[str] = []  # transitions and their reasons, for the log; the caller drains it

    # ---- requests (services) ----

    def request_start(self) -> tuple[bool, str]:
        """tumble/start: from sidewinding or ready, ramp down, curl, latch, tumble."""
        if self.state not in (TumbleState.SIDEWINDING, TumbleState.READY):
            return False, f"tumble/start needs state sidewinding or ready, the state is '{self.status_text}'"
        self.sidewinding.ramp.stop()
        self._enter(TumbleState.RAMP_DOWN, 'start requested: ramping the sidewinding down')
        return True, 'ramping down, then curling and latching; watch tumble/state'

    def request_release(self) -> tuple[bool, str]:
        """tumble/release: from tumbling, open the latch and uncurl."""
        if self.state != TumbleState.TUMBLING:
            return False, f"tumble/release needs state tumbling, the state is '{self.status_text}'"
        self._begin_release('release requested')
        return True, 'releasing the latch, then uncurling to straight'

    def request_abort(self, reason: str = 'abort requested') -> tuple[bool, str]:
        """tumble/abort (or any failure): straight, latch opened, torque on."""
        if self.state == TumbleState.ABORTED:
            return True, f'already {self.status_text}'
        self.abort_reason = reason
        self.sidewinding.ramp.stop()
        self.sidewinding.ramp.advance(self.sidewinding.ramp.duration_s)  # idle: a restart ramps up from 0
        # latched: straightening would pull against the latch, so hold until it reads open (at most
        # releasing_timeout_s, then straighten anyway: abort means straight)
        self._move = None if self._latch_engaged else \
            JointMove(self.positions_rad, self.straight_rad, self._speed_limits_rad_s)
        self._move_start_s = 0.0
        self._latch_request, self._torque_request = False, True
        self._enter(TumbleState.ABORTED, reason)
        return True, f'aborting: {reason}; moving to straight, latch open, torque on'

    def request_sidewind(self) -> tuple[bool, str]:
        """gait/start in tumble mode: from ready or aborted (straight, unlatched), sidewind again."""
        if self.state not in (TumbleState.READY, TumbleState.ABORTED, TumbleState.SIDEWINDING):
            return False, f"sidewinding resumes from ready or aborted, the state is '{self.status_text}'"
        if self.state == TumbleState.ABORTED and (
                self._move is None or self._elapsed_s < self._move_start_s + self._move.duration_s):
            return False, 'still moving to straight after the abort: retry in a moment'
        self.sidewinding.ramp.start()
        if self.state != TumbleState.SIDEWINDING:
            self.abort_reason = ''
            self._enter(TumbleState.SIDEWINDING, 'sidewinding resumed')
        return True, 'sidewinding (ramping up)'

    def latch_answered(self, engage: bool, success: bool, message: str) -> None:
        """The latch/set answer: kept for the failure reason (the state decides by latch/state)."""
        self._latch_answer = f"latch/set {str(engage).lower()} answered {'ok' if success else 'refused'}" \
                             f"{': ' + message if message else ''}"

    def take_requests(self) -> tuple[bool | None, bool | None]:
        """(latch/set value, torque/set value) to send now, each None when there is nothing to send."""
        requests = (self._latch_request, self._torque_request)
        self._latch_request = self._torque_request = None
        return requests

    @property
    def status_text(self) -> str:
        """The tumble/state message: the state name, or 'aborted: <reason>'."""
        if self.state == TumbleState.ABORTED:
            return f'aborted: {self.abort_reason}'
        return self.state.value

    # ---- the control tick ----

    def advance(self, dt_s: float, measured_rad: np.ndarray | None, latch_engaged: bool | None) -> np.ndarray:
        """One control tick of dt_s; returns the joint targets [rad] (also in positions_rad)."""
        if dt_s < 0.0:
            raise GaitError('time step must not be negative')
        self._elapsed_s += dt_s
        if latch_engaged is not None:
            self._latch_engaged = latch_engaged
        handler = getattr(self, f'_tick_{self.state.value}')
        handler(dt_s, measured_rad, latch_engaged)
        return self.positions_rad

    def _tick_sidewinding(self, dt_s: float, measured_rad: np.ndarray | None, latch: bool | None) -> None:
        self.sidewinding.advance(dt_s)
        self.positions_rad = self.sidewinding.positions()
        if not self.sidewinding.ramp.is_idle:
            self._sidewound_s += dt_s
        if not self._auto_started and 0.0 < self.params.start_after_s <= self._sidewound_s:
            self._auto_started = True  # once: after a release the robot waits for tumble/start
            self.sidewinding.ramp.stop()
            self._enter(TumbleState.RAMP_DOWN, f'start after {self.params.start_after_s:g} s of sidewinding '
                                               '(start_after_s): ramping the sidewinding down')

    def _tick_ramp_down(self, dt_s: float, measured_rad: np.ndarray | None, latch: bool | None) -> None:
        self.sidewinding.advance(dt_s)
        self.positions_rad = self.sidewinding.positions()
        if self.sidewinding.ramp.is_idle:
            self._move = JointMove(self.positions_rad, self.curl_pose_rad, self._speed_limits_rad_s)
            self.hold_rad = self.curl_pose_rad.copy()
            self._enter(TumbleState.CURLING, f'curling to the curl pose in {self._move.duration_s:.2f} s')
        elif self._elapsed_s > self.params.ramp_down_timeout_s:
            self.request_abort(f'ramp down did not finish within {self.params.ramp_down_timeout_s:g} s '
                               f'(ramp_down_timeout_s)')

    def _tick_curling(self, dt_s: float, measured_rad: np.ndarray | None, latch: bool | None) -> None:
        if self._elapsed_s < self._move.duration_s:
            self.positions_rad = self._move.positions(self._elapsed_s)
            return
        self.positions_rad = self.hold_rad.copy()
        if self._loop_closed(measured_rad):
            self._latch_request = True
            self._latch_answer = ''
            self._enter(TumbleState.LATCHING, 'loop closed: latch/set true, waiting for latch/state')
        elif self._elapsed_s > self._move.duration_s + self.params.curling_timeout_s:
            self.request_abort(f'loop did not close: {self._closure_text(measured_rad)} '
                               f'{self.params.curling_timeout_s:g} s after the curl (curling_timeout_s)')
        else:
            self._correct_sag(dt_s, measured_rad)
            self.positions_rad = self.hold_rad.copy()

    def _tick_latching(self, dt_s: float, measured_rad: np.ndarray | None, latch: bool | None) -> None:
        self.positions_rad = self.hold_rad.copy()
        if latch:
            self._enter(TumbleState.TUMBLING, 'latched: tumbling (holding the curl)')
        elif self._elapsed_s > self.params.latching_timeout_s:
            answer = f' ({self._latch_answer})' if self._latch_answer else ' (latch/set not answered)'
            self.request_abort(f'latch did not confirm within {self.params.latching_timeout_s:g} s '
                               f'(latching_timeout_s){answer}')

    def _tick_tumbling(self, dt_s: float, measured_rad: np.ndarray | None, latch: bool | None) -> None:
        self.positions_rad = self.hold_rad + self.wave_offsets_rad(self._elapsed_s)
        if latch is False:  # it read true to get here
            self.request_abort('latch opened while tumbling')
        elif self._elapsed_s > self.params.tumbling_timeout_s:
            self._begin_release(f'tumbling for {self.params.tumbling_timeout_s:g} s (tumbling_timeout_s)')

    def _tick_releasing(self, dt_s: float, measured_rad: np.ndarray | None, latch: bool | None) -> None:
        # positions_rad stays the last tumbling command (a wave's offsets included): no step
        if latch is False:
            self._move = JointMove(self.positions_rad, self.straight_rad, self._speed_limits_rad_s)
            self._enter(TumbleState.UNCURLING, f'latch open: uncurling in {self._move.duration_s:.2f} s')
        elif self._elapsed_s > self.params.releasing_timeout_s:
            answer = f' ({self._latch_answer})' if self._latch_answer else ''
            self.request_abort(f'latch did not open within {self.params.releasing_timeout_s:g} s '
                               f'(releasing_timeout_s){answer}')

    def _tick_uncurling(self, dt_s: float, measured_rad: np.ndarray | None, latch: bool | None) -> None:
        self.positions_rad = self._move.positions(self._elapsed_s)
        if self._elapsed_s < self._move.duration_s:
            return
        if self._within_tolerance(measured_rad, self.straight_rad):
            self._enter(TumbleState.READY, 'straight: ready (tumble/start curls again, gait/start sidewinds)')
        elif self._elapsed_s > self._move.duration_s + self.params.uncurling_timeout_s:
            self.request_abort(f'did not straighten: {self._worst_joint(measured_rad, self.straight_rad)} '
                               f'{self.params.uncurling_timeout_s:g} s after the uncurl (uncurling_timeout_s)')

    def _tick_ready(self, dt_s: float, measured_rad: np.ndarray | None, latch: bool | None) -> None:
        self.positions_rad = self.straight_rad.copy()

    def _tick_aborted(self, dt_s: float, measured_rad: np.ndarray | None, latch: bool | None) -> None:
        if self._move is None:  # waiting for the latch to open (positions_rad: held)
            if latch and self._elapsed_s <= self.params.releasing_timeout_s:
                return
            if latch:
                self.events.append(f'aborted: latch still closed after {self.params.releasing_timeout_s:g} s '
                                   '(releasing_timeout_s): straightening anyway')
            self._move = JointMove(self.positions_rad, self.straight_rad, self._speed_limits_rad_s)
            self._move_start_s = self._elapsed_s
        self.positions_rad = self._move.positions(self._elapsed_s - self._move_start_s)

    def wave_offsets_rad(self, time_s: float) -> np.ndarray:
        """The tumbling wave (travelling_wave_rad) with this machine's parameters."""
        return travelling_wave_rad(self._pitch_signs, self.params.wave_amplitude_rad,
                                   self.params.wave_frequency_hz, time_s)

    # ---- helpers ----

    def _begin_release(self, why: str) -> None:
        self._latch_request = False
        self._latch_answer = ''
        self._enter(TumbleState.RELEASING, f'{why}: latch/set false, waiting for latch/state false')

    def _enter(self, state: TumbleState, reason: str) -> None:
        self.state = state
        self._elapsed_s = 0.0
        self.events.append(f'{state.value}: {reason}')

    def _correct_sag(self, dt_s: float, measured_rad: np.ndarray | None) -> None:
        """Integrate what the measured joints lack into the held command (bounded, within limits)."""
        if measured_rad is None:
            return
        correction = self.hold_rad - self.curl_pose_rad + \
            self.params.sag_correction_gain_1_s * dt_s * (self.curl_pose_rad - measured_rad)
        limit = self.params.max_sag_correction_rad
        self.hold_rad = np.clip(self.curl_pose_rad + np.clip(correction, -limit, limit), *self._position_limits_rad)

    def _loop_closed(self, measured_rad: np.ndarray | None) -> bool:
        return self._within_tolerance(measured_rad, self.curl_pose_rad) and \
            (self._latch_gap_m is None or self._latch_gap_m(measured_rad) <= self.params.closure_distance_m)

    def _closure_text(self, measured_rad: np.ndarray | None) -> str:
        if measured_rad is None or self._latch_gap_m is None:
            return self._worst_joint(measured_rad, self.curl_pose_rad)
        return (f'latch frames {self._latch_gap_m(measured_rad):.3f} m apart (closure_distance_m '
                f'{self.params.closure_distance_m:g} m); {self._worst_joint(measured_rad, self.curl_pose_rad)}')

    def _within_tolerance(self, measured_rad: np.ndarray | None, target_rad: np.ndarray) -> bool:
        return measured_rad is not None and \
            float(np.max(np.abs(measured_rad - target_rad), initial=0.0)) <= self.params.joint_tolerance_rad

    def _worst_joint(self, measured_rad: np.ndarray | None, target_rad: np.ndarray) -> str:
        if measured_rad is None:
            return 'no joint_states received'
        errors = np.abs(measured_rad - target_rad)
        worst = int(np.argmax(errors))
        return (f'{self.joint_names[worst]} is {errors[worst]:.3f} rad from its target '
                f'(tolerance {self.params.joint_tolerance_rad:g} rad)')
