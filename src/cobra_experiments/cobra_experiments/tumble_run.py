"""Tumbling runs on the slope world, engine-level (no ROS): what the latched COBRA loop does.

Two starts, 'sequence' (the gait's own tumbling sequence from straight) and 'rest' (a latched curl
put at rest on the slope), and what is measured while latched: the package README,
"cobra_experiments.tumble_run".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import mujoco
import numpy as np
from cobra_common.rotations import matrix_from_quaternion, slope_rotation
from cobra_description.robot_model import RobotModel
from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams
from cobra_gaits.tumbling import JointMove, TumbleMachine, TumbleParams, TumbleState, travelling_wave_rad
from cobra_sim.engine import CobraSim, SimParams
from cobra_sim.terrain import RigidGround, RigidGroundParams

GRAVITY_M_S2 = 9.81
GAIT_PERIOD_S = 0.01  # the gait node's default period (100 Hz)
TOPPLED_TILT_DEG = 60.0  # loop plane this far from upright: it fell onto its side
STARTS = ('sequence', 'rest')
# DEM tumbling (the thesis §19-23, §28): wheel stand-in of the closed loop
DEM_WHEEL = {'slope_deg': 24.0, 'radius_m': 0.20, 'width_m': 0.12, 'mass_kg': 6.0,
             'prescribed_roll_rate_rad_s': math.pi / 4, 'reference_speed_m_s': math.pi / 4 * 0.20,
             'friction': 0.6, 'rolling_resistance': 0.02}


class TumbleRunError(ValueError):
    """A run configuration that cannot give a tumbling run."""


@dataclass(frozen=True)
class TumbleRunConfig:
    slope_deg: float = 24.0
    start: str = 'sequence'
    tumble_s: float = 8.0  # how long to let it tumble once latched [s]
    friction: float = 0.5  # the thesis §7 ground's μ_s
    yaw_splay_rad: float = 0.0  # curl pose option (cobra_gaits.curl_pose)
    curl_speed_rad_s: float = 0.6  # TumbleParams default: peak joint speed of the curl
    limp: bool = False  # torque off once latched (only the weld keeps the loop closed)
    latch_retry: bool = False  # repeat latch/set true every gait tick while latching (the machine sends it once)
    # optional shape wave while latched: a mode-2 bend wave on the pitch joints travelling round the
    # loop, δ_k = A cos(4πk/n + 2π f t) (k-th pitch joint of n, ramped in over 1 s); 0 = passive
    wave_amplitude_rad: float = 0.0
    wave_frequency_hz: float = 1.0

    def validated(self) -> TumbleRunConfig:
        if self.start not in STARTS:
            raise TumbleRunError(f"start '{self.start}': use one of {', '.join(STARTS)}")
        if not (math.isfinite(self.tumble_s) and 0.0 < self.tumble_s <= 600.0):
            raise TumbleRunError(f'tumble_s={self.tumble_s}: use 0 < tumble_s <= 600 [s]')
        if not (math.isfinite(self.friction) and self.friction > 0.0):
            raise TumbleRunError(f'friction={self.friction}: use a positive Coulomb coefficient')
        if not (math.isfinite(self.wave_amplitude_rad) and 0.0 <= self.wave_amplitude_rad <= 0.5):
            raise TumbleRunError(f'wave_amplitude_rad={self.wave_amplitude_rad}: use 0 <= A <= 0.5 rad '
                                 f'(the curl pose leaves ~0.45 rad to the joint limits)')
        if not (math.isfinite(self.curl_speed_rad_s) and 0.0 < self.curl_speed_rad_s <= 4.82):
            raise TumbleRunError(f'curl_speed_rad_s={self.curl_speed_rad_s}: use 0 < speed <= 4.82 rad/s '
                                 f'(the XH540 limit)')
        if not (math.isfinite(self.wave_frequency_hz) and 0.0 < self.wave_frequency_hz <= 3.0):
            raise TumbleRunError(f'wave_frequency_hz={self.wave_frequency_hz}: use 0 < f <= 3 Hz')
        return self


@dataclass
class TumbleTrace:
    """Samples every gait period from the start of the run; `latched` marks the tumbling window."""

    time_s: list[float] = field(default_factory=list)
    com_along_m: list[float] = field(default_factory=list)  # COM displacement down the slope
    com_speed_m_s: list[float] = field(default_factory=list)  # COM velocity along the slope
    roll_rate_rad_s: list[float] = field(default_factory=list)  # head angular velocity about world y
    tilt_deg: list[float] = field(default_factory=list)  # loop plane vs upright: 0 rolling upright, 90 lying on its side
    latched: list[bool] = field(default_factory=list)
    states: list[tuple[float, str]] = field(default_factory=list)  # (time, machine event)
    link_names: list[str] = field(default_factory=list)
    peak_normal_n: np.ndarray | None = None  # [links] while latched, sampled every control period
    latched_at_s: float | None = None
    outcome: str = ''
    weight_normal_n: float = 0.0  # m g cos(slope): the static normal load of the whole robot


def downhill_and_normal(slope_deg: float) -> tuple[np.ndarray, np.ndarray]:
    rotation = slope_rotation(slope_deg)
    return rotation[:, 0], rotation[:, 2]


def make_sim(robot: RobotModel, slope_deg: float, friction: float) -> CobraSim:
    ground = RigidGround(RigidGroundParams(friction_static=friction), slope_deg=slope_deg)
    return CobraSim(robot, ground, SimParams(settle_duration_s=0.5), np.random.default_rng(0))


def shape_wave(robot: RobotModel, config: TumbleRunConfig, time_s: float) -> np.ndarray:
    """Offsets [rad] of the gait joints for the optional travelling bend wave: the gait node's own
    (cobra_gaits.tumbling.travelling_wave_rad); zero when off."""
    signs = np.array([j.axis_sign if j.axis_kind == 'pitch' else 0.0 for j in robot.gait_joints()])
    return travelling_wave_rad(signs, config.wave_amplitude_rad, config.wave_frequency_hz, time_s)


def _machine(robot: RobotModel, config: TumbleRunConfig) -> TumbleMachine:
    """The gait node's machine (closure by forward kinematics, sag correction within the limits);
    the optional wave is this runner's own (`shape_wave`), so the machine's is off."""
    joints = robot.gait_joints()
    sidewinding = SidewindingGenerator([j.axis_kind for j in joints], SidewindingParams(0.5, 0.0, 0.0))
    return TumbleMachine.for_robot(robot, joints, sidewinding,
                                   TumbleParams(curl_speed_rad_s=config.curl_speed_rad_s, tumbling_timeout_s=1e6,
                                                wave_amplitude_rad=0.0), config.yaw_splay_rad)


class _Recorder:
    def __init__(self, sim: CobraSim, slope_deg: float) -> None:
        self.sim = sim
        self.downhill, self.normal = downhill_and_normal(slope_deg)
        self.com_start = sim.center_of_mass()
        self.trace = TumbleTrace(link_names=sim.robot_body_names)
        self.trace.peak_normal_n = np.zeros(len(self.trace.link_names))
        self.trace.weight_normal_n = sim.robot.total_mass_kg * GRAVITY_M_S2 * float(self.normal[2])  # cos θ

    def control_period(self) -> None:
        """One control period; peak normal forces are tracked while latched."""
        self.sim.step_control_period()
        if self.sim.latched:
            normal = self.sim.contact_wrenches_world()[:, :3] @ self.normal
            np.maximum(self.trace.peak_normal_n, normal, out=self.trace.peak_normal_n)

    def sample(self) -> None:
        sim, trace = self.sim, self.trace
        rotation = matrix_from_quaternion(sim.head_pose()[1])
        omega_world = rotation @ sim.head_velocity_local()[1]
        mujoco.mj_subtreeVel(sim.model, sim.data)  # subtree_linvel is not filled by mj_step
        com_velocity = sim.data.subtree_linvel[sim.root_body_id]
        trace.time_s.append(sim.time_s)
        trace.com_along_m.append(float((sim.center_of_mass() - self.com_start) @ self.downhill))
        trace.com_speed_m_s.append(float(com_velocity @ self.downhill))
        trace.roll_rate_rad_s.append(float(omega_world[1]))
        # the loop closes in the head's x-z plane: its axis is the head's y axis, world y when upright
        trace.tilt_deg.append(math.degrees(math.acos(min(1.0, abs(float(rotation[1, 1]))))))
        trace.latched.append(sim.latched)
        if sim.latched and trace.latched_at_s is None:
            trace.latched_at_s = sim.time_s


def _advance(recorder: _Recorder, seconds: float, command: Callable[[], None] | None = None) -> None:
    sim = recorder.sim
    periods = round(GAIT_PERIOD_S / sim.params.control_period_s)
    for _ in range(round(seconds / GAIT_PERIOD_S)):
        if command is not None:
            command()
        for _ in range(periods):
            recorder.control_period()
        recorder.sample()


def run_sequence(robot: RobotModel, config: TumbleRunConfig) -> TumbleTrace:
    """The gait's sequence from straight on the slope, latched tumbling for tumble_s, release."""
    sim = make_sim(robot, config.slope_deg, config.friction)
    sim.settle()
    machine = _machine(robot, config)
    recorder = _Recorder(sim, config.slope_deg)
    index = [sim.joint_names.index(name) for name in machine.joint_names]
    machine.request_start()

    def tick() -> None:
        targets = machine.advance(GAIT_PERIOD_S, sim.joint_positions()[index], sim.latched)
        if machine.state == TumbleState.TUMBLING and recorder.trace.latched_at_s is not None:
            targets = targets + shape_wave(robot, config, sim.time_s - recorder.trace.latched_at_s)
        sim.set_targets(dict(zip(machine.joint_names, targets)))
        latch, torque = machine.take_requests()
        if latch is None and config.latch_retry and machine.state == TumbleState.LATCHING and not sim.latched:
            latch = True  # a refusal changes nothing in the sim, so asking again is safe
        if latch is not None:
            machine.latch_answered(latch, sim.set_latched(latch), f'{sim.latch_frames_distance_m():.3f} m')
        if torque is not None:
            sim.set_torque_enabled(torque)
        for event in machine.events:
            recorder.trace.states.append((sim.time_s, event))
        machine.events.clear()

    tumbling_s = 0.0
    for _ in range(round(60.0 / GAIT_PERIOD_S)):  # curl and latch: bounded by the machine's timeouts
        _advance(recorder, GAIT_PERIOD_S, tick)
        if machine.state in (TumbleState.TUMBLING, TumbleState.ABORTED):
            break
    if machine.state == TumbleState.TUMBLING:
        if config.limp:
            sim.set_torque_enabled(False)
        while tumbling_s < config.tumble_s - 1e-9:
            _advance(recorder, GAIT_PERIOD_S, tick)
            tumbling_s += GAIT_PERIOD_S
        if config.limp:
            sim.set_torque_enabled(True)
        machine.request_release()
        for _ in range(round(10.0 / GAIT_PERIOD_S)):
            _advance(recorder, GAIT_PERIOD_S, tick)
            if machine.state in (TumbleState.READY, TumbleState.ABORTED):
                break
    recorder.trace.outcome = machine.status_text
    return recorder.trace


def curled_on_level_ground(robot: RobotModel, config: TumbleRunConfig) -> np.ndarray:
    """qpos of the loop curled by the gait's move on level ground, at the first instant after the
    move that its latch frames are within capture (a standing loop later topples sideways)."""
    sim = make_sim(robot, 0.0, config.friction)
    sim.settle()
    machine = _machine(robot, config)
    move = JointMove(np.zeros(len(machine.joint_names)), machine.curl_pose_rad,
                     np.minimum(4.82, config.curl_speed_rad_s))
    sim.run(math.ceil(move.duration_s / GAIT_PERIOD_S) * GAIT_PERIOD_S,
            lambda t: dict(zip(machine.joint_names, move.positions(t))))
    for _ in range(round(3.0 / GAIT_PERIOD_S)):
        if sim.latch_frames_distance_m() <= sim.latch_capture_distance_m:
            return sim.data.qpos.copy()
        sim.run(GAIT_PERIOD_S)
    raise TumbleRunError(f'the curl on level ground did not close: latch frames '
                         f'{sim.latch_frames_distance_m():.3f} m apart')


def run_from_rest(robot: RobotModel, config: TumbleRunConfig) -> TumbleTrace:
    """The latched loop put at rest, upright, on the slope; tumble_s of what it does."""
    qpos = curled_on_level_ground(robot, config)
    sim = make_sim(robot, config.slope_deg, config.friction)
    sim.restart_at_rest(qpos, slope_rotation(config.slope_deg))
    recorder = _Recorder(sim, config.slope_deg)
    if not sim.set_latched(True):
        raise TumbleRunError(f'latch out of reach at rest: {sim.latch_frames_distance_m():.3f} m')
    if config.limp:
        sim.set_torque_enabled(False)
    recorder.sample()
    curl = dict(zip([j.name for j in robot.gait_joints()], sim.joint_positions()))
    names = list(curl)
    held = np.array([curl[name] for name in names])

    def wave() -> None:
        sim.set_targets(dict(zip(names, held + shape_wave(robot, config, sim.time_s))))

    _advance(recorder, config.tumble_s, wave if config.wave_amplitude_rad else None)
    recorder.trace.outcome = 'latched at rest on the slope'
    return recorder.trace


def run_tumble(robot: RobotModel, config: TumbleRunConfig) -> TumbleTrace:
    config = config.validated()
    return run_sequence(robot, config) if config.start == 'sequence' else run_from_rest(robot, config)


def rolling_wheel_acceleration_m_s2(slope_deg: float, inertia_ratio: float) -> float:
    """a = g sin θ / (1 + I/(m r²)) of a wheel rolling without slip or losses."""
    return GRAVITY_M_S2 * math.sin(math.radians(slope_deg)) / (1.0 + inertia_ratio)


def summarize(trace: TumbleTrace, config: TumbleRunConfig) -> dict:
    """The figures of a run: rolling speed, roll rate, distance, peak normal forces, vs DEM."""
    time_s = np.array(trace.time_s)
    latched = np.array(trace.latched, dtype=bool)
    summary: dict = {'start': config.start, 'slope_deg': config.slope_deg, 'friction': config.friction,
                     'limp': config.limp, 'wave_amplitude_rad': config.wave_amplitude_rad,
                     'wave_frequency_hz': config.wave_frequency_hz, 'outcome': trace.outcome,
                     'events': trace.states, 'latched_at_s': trace.latched_at_s}
    if not latched.any():
        summary['rolled'] = False
        return summary
    window = np.flatnonzero(latched)
    t = time_s[window] - time_s[window[0]]
    along = np.array(trace.com_along_m)[window]
    speed = np.array(trace.com_speed_m_s)[window]
    roll = np.array(trace.roll_rate_rad_s)[window]
    tilt = np.array(trace.tilt_deg)[window]
    toppled = np.flatnonzero(tilt > TOPPLED_TILT_DEG)
    distance_m = float(along[-1] - along[0])
    turns = float(np.sum(roll) * GAIT_PERIOD_S / (2.0 * math.pi))
    moving = np.abs(roll) > 0.5
    radius = np.abs(speed[moving] / roll[moving]) if moving.any() else np.array([])
    per_second = []
    for second in range(int(math.floor(t[-1])) + 1):
        rows = (t >= second) & (t < second + 1)
        if rows.any():
            per_second.append({'t_s': second, 'com_speed_m_s': round(float(speed[rows].mean()), 4),
                               'roll_rate_rad_s': round(float(roll[rows].mean()), 3)})
    fit = np.polyfit(t, speed, 1) if len(t) > 2 else (0.0, 0.0)
    summary.update({
        'max_tilt_deg': round(float(tilt.max()), 1),
        'toppled_after_s': round(float(t[toppled[0]]), 2) if len(toppled) else None,
        'com_along_at_latch_m': round(float(along[0]), 4),  # already travelled while curling
        'com_speed_at_latch_m_s': round(float(speed[0]), 4),
        'rolled': bool(turns >= 1.0),
        'tumbling_duration_s': round(float(t[-1]), 3),
        'distance_rolled_m': round(distance_m, 4),
        'turns': round(turns, 2),
        'mean_com_speed_m_s': round(distance_m / max(float(t[-1]), 1e-9), 4),
        'final_com_speed_m_s': round(float(speed[-round(1.0 / GAIT_PERIOD_S):].mean()), 4),
        'mean_roll_rate_rad_s': round(float(roll.mean()), 3),
        'final_roll_rate_rad_s': round(float(roll[-round(1.0 / GAIT_PERIOD_S):].mean()), 3),
        'com_acceleration_fit_m_s2': round(float(fit[0]), 4),
        'effective_radius_m': round(float(np.median(radius)), 4) if len(radius) else None,
        'per_second': per_second,
        'peak_normal_force_n': {name: round(float(value), 2)
                                for name, value in zip(trace.link_names, trace.peak_normal_n)},
        'peak_normal_force_max_n': round(float(trace.peak_normal_n.max()), 2),
        'weight_normal_component_n': round(trace.weight_normal_n, 2),
    })
    summary['ideal_ring_acceleration_m_s2'] = round(rolling_wheel_acceleration_m_s2(config.slope_deg, 1.0), 4)
    summary['dem_wheel'] = {**DEM_WHEEL, 'ideal_wheel_acceleration_m_s2 (I=0.75 m r^2)':
                            round(rolling_wheel_acceleration_m_s2(DEM_WHEEL['slope_deg'], 0.75), 4)}
    return summary
