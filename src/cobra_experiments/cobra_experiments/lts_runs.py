"""LTS gaits played on the T-Snake in CobraSim, and the measures of the LTS paper's §IV (no ROS).

reproduce_lts builds the paper's tables and figures on this module. How a gait is played and how
power, yaw and traversal are measured (and why): README, "LTS runs".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path

import numpy as np

from cobra_description.robot_model import default_urdf_path, load_robot_model
from cobra_gaits.lts import LinearTwistParams, LtsGait, LtsJointGenerator, RollingVectorParams
from cobra_sim.engine import CobraSim, SimConfigError, SimParams
from cobra_sim.mjcf import ServoParams
from cobra_sim.terrain import TerrainConfigError, make_terrain

TWIST_SUFFIX = '_twist'
RAMP_DURATION_S = 1.0  # chosen: straight pose -> the gait's t = 0 pose, slower than any servo limit
SETTLE_DURATION_S = 0.5  # chosen: the T-Snake comes to rest on rigid ground well within this
TRACK_DIRECTION = np.array([0.0, 1.0, 0.0])  # world y: across the body at the start, level on the slope
MAX_GAIT_PERIOD_S = 1000.0  # longer than this (incommensurate rates) counts as no period


class LtsRunError(ValueError):
    """A run that cannot be made as asked (bad duration or slope, a URDF that is not the T-Snake, ...)."""


# --------------------------------------------------------------------------------------------
# metric functions (pure)
# --------------------------------------------------------------------------------------------

def output_power_w(efforts_nm: np.ndarray, velocities_rad_s: np.ndarray) -> np.ndarray:
    """p = |τ θ̇| (the LTS paper §IV-B), element-wise."""
    return np.abs(np.asarray(efforts_nm, dtype=float) * np.asarray(velocities_rad_s, dtype=float))


def block_means(samples: np.ndarray, block_size: int) -> np.ndarray:
    """Means of consecutive blocks of `block_size` rows (a trailing partial block is dropped)."""
    if block_size < 1:
        raise LtsRunError(f'block_size must be >= 1, got {block_size}')
    values = np.asarray(samples, dtype=float)
    blocks = len(values) // block_size
    return values[:blocks * block_size].reshape((blocks, block_size) + values.shape[1:]).mean(axis=1)


def load_share_of_top(mean_power_w: np.ndarray, count: int = 2) -> float:
    """Fraction of the total mean power carried by the `count` most-loaded joints (§IV-B2)."""
    power = np.asarray(mean_power_w, dtype=float)
    total = float(power.sum())
    if not total > 0.0:
        raise LtsRunError('no twist-joint power to share: the total mean power is zero')
    return float(np.sort(power)[::-1][:count].sum() / total)


def relative_change(ours: float, reference: float) -> float:
    """(ours - reference) / reference: -0.42 is the paper's "peak power reduced by 42 %"."""
    if reference == 0.0:
        return math.nan
    return (ours - reference) / reference


def body_yaw_rad(body_xy_m: np.ndarray) -> np.ndarray:
    """[M] unwrapped yaw of the body's principal axis, signed from the last body (tail) to the
    first (head), from [M, n, 2] horizontal positions of the links, head first."""
    xy = np.asarray(body_xy_m, dtype=float)
    centred = xy - xy.mean(axis=1, keepdims=True)
    _, _, right = np.linalg.svd(centred)
    axis = right[:, 0, :]  # [M, 2] principal direction of each sample
    tail_to_head = xy[:, 0, :] - xy[:, -1, :]
    axis *= np.where(np.einsum('mi,mi->m', axis, tail_to_head) < 0.0, -1.0, 1.0)[:, None]
    return np.unwrap(np.arctan2(axis[:, 1], axis[:, 0]))


def point_on_body_xy_m(body_xy_m: np.ndarray, body_arc_m: np.ndarray, arc_m: float) -> np.ndarray:
    """[M, 2] horizontal position of the backbone point at arc length `arc_m` from the head, from
    the link origins [M, n, 2] at arc lengths `body_arc_m` (the T-Snake's pieces are straight
    between joint points, so linear interpolation between neighbouring origins is exact)."""
    arcs = np.asarray(body_arc_m, dtype=float)
    k = int(np.clip(np.searchsorted(arcs, arc_m) - 1, 0, len(arcs) - 2))
    fraction = (arc_m - arcs[k]) / (arcs[k + 1] - arcs[k])
    xy = np.asarray(body_xy_m, dtype=float)
    return xy[:, k] + fraction * (xy[:, k + 1] - xy[:, k])


def yaw_rate_rad_s(times_s: np.ndarray, yaw_rad: np.ndarray) -> float:
    """Least-squares slope of yaw over time."""
    times = np.asarray(times_s, dtype=float)
    if len(times) < 2 or times[-1] <= times[0]:
        raise LtsRunError('a yaw rate needs samples spanning a time interval')
    return float(np.polyfit(times, np.asarray(yaw_rad, dtype=float), 1)[0])


def ground_plane_distance_m(displacement_m: np.ndarray, slope_deg: float = 0.0) -> np.ndarray:
    """Length of displacements [.., 3] after removing the part along the ground's normal; the
    ground descends along +x at `slope_deg` (the slope world of issue 9)."""
    slope = math.radians(slope_deg)
    normal = np.array([math.sin(slope), 0.0, math.cos(slope)])
    d = np.asarray(displacement_m, dtype=float)
    in_plane = d - np.einsum('...i,i->...', d, normal)[..., None] * normal
    return np.linalg.norm(in_plane, axis=-1)


def track_progress_m(displacement_m: np.ndarray, track_direction: np.ndarray = TRACK_DIRECTION) -> np.ndarray:
    """|d . u|: how far displacements [.., 3] got along a straight track of unit direction u."""
    return np.abs(np.asarray(displacement_m, dtype=float) @ np.asarray(track_direction, dtype=float))


def traversal_time_s(times_s: np.ndarray, distance_m: np.ndarray, track_length_m: float) -> float | None:
    """First time the distance reaches `track_length_m` (linear between samples), None if never."""
    distance = np.asarray(distance_m, dtype=float)
    times = np.asarray(times_s, dtype=float)
    reached = np.flatnonzero(distance >= track_length_m)
    if len(reached) == 0:
        return None
    k = int(reached[0])
    if k == 0:
        return float(times[0])
    fraction = (track_length_m - distance[k - 1]) / (distance[k] - distance[k - 1])
    return float(times[k - 1] + fraction * (times[k] - times[k - 1]))


def dominant_period_s(times_s: np.ndarray, signal: np.ndarray) -> float:
    """Period of the strongest non-zero frequency of a uniformly sampled signal (Hann window,
    8x zero padding, parabolic peak interpolation): to compare a joint angle's period early and
    late in a run (§IV-A)."""
    times = np.asarray(times_s, dtype=float)
    values = np.asarray(signal, dtype=float)
    if len(values) < 8:
        raise LtsRunError('a period needs at least 8 samples')
    step = float(times[1] - times[0])
    padded = 8 * len(values)
    spectrum = np.abs(np.fft.rfft((values - values.mean()) * np.hanning(len(values)), padded))
    spectrum[0] = 0.0
    k = int(np.argmax(spectrum))
    if 0 < k < len(spectrum) - 1:
        left, centre, right = spectrum[k - 1], spectrum[k], spectrum[k + 1]
        denominator = left - 2.0 * centre + right
        offset = 0.5 * (left - right) / denominator if denominator != 0.0 else 0.0
    else:
        offset = 0.0
    frequency_hz = (k + offset) / (padded * step)
    return math.inf if frequency_hz <= 0.0 else 1.0 / frequency_hz


def lateral_angle_periods_s(gait: LtsGait) -> np.ndarray:
    """[n] period 2 pi / |omega_r| of the rigid piece behind each module (k = 1..n): with
    omega_t = 0 the module's lateral axis e_a turns with that piece's twist, so its lateral angle
    repeats at that period (our method; inf where the piece does not roll). §IV-A's "periodic"."""
    rates = np.abs(gait.twist.rolling_speed_rad_s(gait.geometry.piece_centres_m[1:]))
    with np.errstate(divide='ignore'):
        return np.where(rates > 1e-12, 2.0 * math.pi / rates, math.inf)


def gait_period_s(gait: LtsGait) -> float | None:
    """Smallest T > 0 after which the joint angles repeat: every rigid piece's twist rate and the
    curve's omega_t are whole multiples of 2 pi / T (rates rounded to 1e-6 rad/s). None when the
    gait does not move, or the rates give no period under MAX_GAIT_PERIOD_S."""
    rates = list(gait.twist.rolling_speed_rad_s(gait.geometry.piece_centres_m)) + [gait.curve.temporal_frequency_rad_s]
    fractions = [Fraction(abs(r)).limit_denominator(1_000_000) for r in rates if abs(r) > 1e-9]
    if not fractions:
        return None
    common = fractions[0]
    for value in fractions[1:]:  # gcd of fractions: gcd(numerators) / lcm(denominators)
        common = Fraction(math.gcd(common.numerator * value.denominator, value.numerator * common.denominator),
                          common.denominator * value.denominator)
    period = 2.0 * math.pi / float(common)
    return period if period <= MAX_GAIT_PERIOD_S else None


def whole_periods_s(gait: LtsGait, at_least_s: float) -> float:
    """The shortest whole number of gait periods (on the command grid) lasting >= at_least_s;
    at_least_s itself, on the command grid, for a gait without a period."""
    step = gait.time_step_s
    period = gait_period_s(gait)
    duration = at_least_s if period is None else math.ceil(at_least_s / period - 1e-9) * period
    return math.ceil(duration / step - 1e-6) * step


def time_scaled_twist(gait: LtsGait, factor: float) -> LtsGait:
    """The gait with every rolling speed multiplied by `factor`: with omega_t = 0 the gait is a
    function of (rolling speed x time) only, so this plays it `factor` times faster (used to match
    the baseline's yaw rate to the LTS's, §IV-B)."""
    if not (math.isfinite(factor) and factor > 0.0):
        raise LtsRunError(f'time-scale factor must be > 0, got {factor}')
    twist = gait.twist
    if isinstance(twist, RollingVectorParams):
        scaled = replace(twist, head_roll_rad_s=twist.head_roll_rad_s * factor,
                         tail_roll_rad_s=twist.tail_roll_rad_s * factor)
    else:
        scaled = LinearTwistParams(twist.a0_rad_s * factor, twist.a1_rad_m_s * factor)
    return replace(gait, twist=scaled).validated()


# --------------------------------------------------------------------------------------------
# simulated runs
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RunConfig:
    """One engine-driven run of a gait on the T-Snake (times in sim seconds)."""

    duration_s: float
    slope_deg: float = 0.0  # rigid ground tilted to descend along +x; the robot starts head downhill
    timestep_s: float = 0.001
    control_period_s: float = 0.002
    servo: ServoParams = field(default_factory=ServoParams)  # the sim's default servo (chosen)
    ramp_duration_s: float = RAMP_DURATION_S
    settle_duration_s: float = SETTLE_DURATION_S
    record_period_s: float = 0.02  # link positions and COM sampled this often
    stop_distance_m: float | None = None  # end early once the COM's track progress reaches this
    urdf_path: Path | None = None  # None: the installed/source urdf/tsnake.urdf

    def validated(self) -> RunConfig:
        for name in ('duration_s', 'timestep_s', 'control_period_s', 'record_period_s'):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0.0):
                raise LtsRunError(f'{name} must be > 0, got {value}')
        if not (math.isfinite(self.ramp_duration_s) and self.ramp_duration_s >= 0.0):
            raise LtsRunError(f'ramp_duration_s must be >= 0, got {self.ramp_duration_s}')
        if not (math.isfinite(self.slope_deg) and 0.0 <= self.slope_deg < 90.0):
            raise LtsRunError(f'slope_deg must be in [0, 90), got {self.slope_deg}')
        if self.stop_distance_m is not None and not self.stop_distance_m > 0.0:
            raise LtsRunError(f'stop_distance_m must be > 0 or None, got {self.stop_distance_m}')
        return self


@dataclass
class RunRecord:
    """What a run measured. Control-rate arrays have one row per 2 ms control period."""

    gait: LtsGait
    config: RunConfig
    joint_names: list[str]
    twist_joint_names: list[str]
    control_times_s: np.ndarray  # [N] gait time at the end of each control period
    twist_power_w: np.ndarray  # [N, n_twist] |τ θ̇|
    twist_tracking_error_rad: np.ndarray  # [N, n_twist] position - commanded target
    max_abs_tracking_error_rad: np.ndarray  # [n_joints] largest |position - commanded target| over the run
    max_abs_effort_nm: np.ndarray  # [n_joints] over the run
    effort_limit_nm: np.ndarray  # [n_joints] the URDF's
    saturated_fraction: np.ndarray  # [n_joints] share of control periods at >= 99 % of the limit
    sample_times_s: np.ndarray  # [M] gait time of each record sample
    body_xy_m: np.ndarray  # [M, n_bodies, 2] link origins, head first
    com_m: np.ndarray  # [M, 3] centre of mass
    reached_stop_distance: bool = False

    @property
    def control_periods_per_command(self) -> int:
        return max(1, round(self.gait.time_step_s / self.config.control_period_s))

    def twist_mean_power_w(self) -> np.ndarray:
        return self.twist_power_w.mean(axis=0)

    def twist_peak_power_w(self) -> np.ndarray:
        """Largest mean over one command step, per twist joint (see the module docstring)."""
        return block_means(self.twist_power_w, self.control_periods_per_command).max(axis=0)

    def yaw_rate_rad_s(self) -> float:
        return yaw_rate_rad_s(self.sample_times_s, body_yaw_rad(self.body_xy_m))

    @property
    def body_arc_m(self) -> np.ndarray:
        """Arc length from the head of each recorded link origin: the head tip, then the joint
        points s_i = (i - 1/2) L0 (urdf/tsnake.urdf puts each piece's frame at its front joint)."""
        return np.concatenate([[0.0], self.gait.geometry.joint_arc_lengths_m])

    def turning_centre_wander_m(self) -> float:
        """Largest distance of the body point at the gait's turning centre s0 from its mean
        position: ~0 for a turn about s0 (§III-C4, Eq. (15)); nan for a gait without s0."""
        centre = getattr(self.gait.twist, 'turning_centre_m', None)
        if centre is None:
            return math.nan
        xy = point_on_body_xy_m(self.body_xy_m, self.body_arc_m, centre)
        return float(np.max(np.linalg.norm(xy - xy.mean(axis=0), axis=1)))

    def distance_m(self) -> np.ndarray:
        """[M] COM distance from the gait start, in the ground plane (any direction)."""
        return ground_plane_distance_m(self.com_m - self.com_m[0], self.config.slope_deg)

    def track_progress_m(self) -> np.ndarray:
        """[M] COM progress along the track (world y) since the gait start."""
        return track_progress_m(self.com_m - self.com_m[0])

    def downhill_drift_m(self) -> float:
        """Net COM displacement along the fall line (+x, tilted with the slope; on level ground
        simply x), at the end of the run: how far the robot slid or crept downhill."""
        slope = math.radians(self.config.slope_deg)
        fall_line = np.array([math.cos(slope), 0.0, -math.sin(slope)])
        return float((self.com_m[-1] - self.com_m[0]) @ fall_line)

    def traversal_time_s(self, track_length_m: float) -> float | None:
        return traversal_time_s(self.sample_times_s, self.track_progress_m(), track_length_m)

    def heading_of_travel_rad(self) -> float:
        """Direction of the COM's net horizontal displacement (world yaw, 0 = +x)."""
        d = self.com_m[-1] - self.com_m[0]
        return math.atan2(d[1], d[0])


def build_sim(config: RunConfig) -> CobraSim:
    """CobraSim of the T-Snake on rigid ground, level or sloped (from its URDF, as the sim node builds it)."""
    robot = load_robot_model(config.urdf_path or default_urdf_path('tsnake'))
    params = SimParams(timestep_s=config.timestep_s, control_period_s=config.control_period_s,
                       settle_duration_s=config.settle_duration_s, servo=config.servo)
    try:
        return CobraSim(robot, make_terrain('rigid', '', slope_deg=config.slope_deg), params,
                        np.random.default_rng(0))
    except (SimConfigError, TerrainConfigError) as error:
        raise LtsRunError(str(error)) from error


def run_gait(gait: LtsGait, config: RunConfig, continuous: bool = False) -> RunRecord:
    """Settle, ramp to the gait's first pose, play the gait for `config.duration_s` and measure.
    `continuous` plays the "existing" continuous integration's angles instead of ours (§IV-A)."""
    config = config.validated()
    gait = gait.validated()
    generator = LtsJointGenerator(gait)
    angles_at = ((lambda t: generator.continuous_angles_rad(t).ravel()) if continuous
                 else generator.positions_rad)
    sim = build_sim(config)
    names = generator.joint_names
    if sim.joint_names != names:
        raise LtsRunError(f'the URDF joints {sim.joint_names} are not the T-Snake joint vector {names}')
    twist_index = np.array([i for i, name in enumerate(names) if name.endswith(TWIST_SUFFIX)])
    effort_limit = np.array([sim.robot.joint(name).limits.effort_nm for name in names])
    sim.settle()

    start_pose = angles_at(0.0)
    ramp_periods = round(config.ramp_duration_s / config.control_period_s)
    for k in range(ramp_periods):
        sim.set_targets(dict(zip(names, start_pose * ((k + 1) / ramp_periods))))
        sim.step_control_period()

    per_command = max(1, round(gait.time_step_s / config.control_period_s))
    per_record = max(1, round(config.record_period_s / config.control_period_s))
    periods = round(config.duration_s / config.control_period_s)
    times = np.empty(periods)
    power = np.empty((periods, len(twist_index)))
    error = np.empty((periods, len(twist_index)))
    max_effort = np.zeros(len(names))
    max_error = np.zeros(len(names))
    saturated = np.zeros(len(names))
    sample_times, body_xy, com = [0.0], [sim.body_state().position_m[:, :2].copy()], [sim.center_of_mass()]
    targets = start_pose
    reached = False
    done = periods
    for k in range(periods):
        if k % per_command == 0:
            targets = angles_at((k // per_command) * gait.time_step_s)
            sim.set_targets(dict(zip(names, targets)))
        sim.step_control_period()
        effort = sim.joint_efforts()
        times[k] = (k + 1) * config.control_period_s
        power[k] = output_power_w(effort[twist_index], sim.joint_velocities()[twist_index])
        joint_error = sim.joint_positions() - targets
        error[k] = joint_error[twist_index]
        np.maximum(max_error, np.abs(joint_error), out=max_error)
        np.maximum(max_effort, np.abs(effort), out=max_effort)
        saturated += np.abs(effort) >= 0.99 * effort_limit
        if (k + 1) % per_record == 0:
            sample_times.append(times[k])
            body_xy.append(sim.body_state().position_m[:, :2].copy())
            com.append(sim.center_of_mass())
            if config.stop_distance_m is not None:
                if track_progress_m(com[-1] - com[0]) >= config.stop_distance_m:
                    reached, done = True, k + 1
                    break
    return RunRecord(gait, config, names, [names[i] for i in twist_index], times[:done], power[:done],
                     error[:done], max_error, max_effort, effort_limit, saturated / max(done, 1),
                     np.array(sample_times), np.array(body_xy), np.array(com), reached)
