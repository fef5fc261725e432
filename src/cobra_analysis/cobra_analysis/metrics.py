"""The report's numbers, from numpy series (no ROS, no plotting): gait timing, stride per cycle,
heading drift, speed, cycle-normalised trajectories, joint tracking, contact profiles, sinkage,
tumbling, twist power, and the comparisons between bags (stride ratio, shape error, the
geometric-mechanics paper's §V-C performance ratio Ξ). ATE/RPE are in `trajectory_error` (evo).

Conventions: times are header stamps [s]; a gait cycle k spans [start + k/f, start + (k+1)/f) from
the gait start (first non-zero command); a cycle is *steady* when its command amplitude is at
least STEADY_AMPLITUDE_FRACTION of the run's full amplitude, which leaves out the start ramp, a
ramp-down and a retune to smaller amplitude.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

STEADY_AMPLITUDE_FRACTION = 0.95
PHASE_POINTS = 101          # samples of one normalised gait cycle
PHASE_BINS = 50             # bins of a per-link force profile over one cycle
CONTACT_THRESHOLD_N = 0.1   # a link with a larger contact force is touching
MIN_WAVE_RAD = 1e-3        # a detrended command with less STD has no lag to measure
MAX_LAG_S = 0.5             # joint-tracking lag search range (and at most half a gait cycle)
MIN_CYCLES_TO_JUDGE = 3     # fewer steady cycles: no spread (STD) and no drift slope (two points fit any line)
TWIST_JOINT = re.compile(r'^m(\d+)_twist$')


class MetricsError(ValueError):
    """Data that cannot give the metric asked for (too short, no overlap)."""


# ---------------------------------------------------------------- timing

def gait_start_s(times_s: np.ndarray, positions_rad: np.ndarray, tolerance_rad: float = 1e-9) -> float | None:
    """Stamp of the first command with a non-zero joint position, None if every command is zero."""
    moving = np.nanmax(np.abs(np.nan_to_num(positions_rad)), axis=1) > tolerance_rad
    index = int(np.argmax(moving))
    return float(times_s[index]) if moving.size and moving[index] else None


def uniform_grid(start_s: float, end_s: float, rate_hz: float) -> np.ndarray:
    """Sample times [start, end] at rate_hz (end included when on the grid)."""
    count = int(math.floor((end_s - start_s) * rate_hz + 1e-9)) + 1
    return start_s + np.arange(max(count, 0)) / rate_hz


def resample(times_s: np.ndarray, values: np.ndarray, grid_s: np.ndarray) -> np.ndarray:
    """Linear interpolation of each column onto grid_s (NaN samples skipped per column)."""
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        finite = np.isfinite(values)
        return np.interp(grid_s, times_s[finite], values[finite]) if finite.any() else np.full(len(grid_s), np.nan)
    return np.column_stack([resample(times_s, values[:, column], grid_s) for column in range(values.shape[1])])


def dominant_frequency_hz(times_s: np.ndarray, values: np.ndarray, min_hz: float = 0.05,
                          max_hz: float = 20.0) -> float | None:
    """Peak of the summed (linearly detrended, Hann-windowed) power spectra of the columns,
    refined by a parabola through the peak bin and its neighbours; None without a clear peak."""
    values = np.asarray(values, dtype=float).reshape(len(times_s), -1)
    if len(times_s) < 16 or times_s[-1] - times_s[0] <= 0:
        return None
    rate_hz = (len(times_s) - 1) / (times_s[-1] - times_s[0])
    grid = uniform_grid(float(times_s[0]), float(times_s[-1]), rate_hz)
    sampled = np.nan_to_num(resample(times_s, values, grid).reshape(len(grid), -1))
    x = np.arange(len(grid))
    design = np.column_stack([x, np.ones_like(x)])
    coefficients, *_ = np.linalg.lstsq(design, sampled, rcond=None)
    detrended = (sampled - design @ coefficients) * np.hanning(len(grid))[:, None]
    power = (np.abs(np.fft.rfft(detrended, axis=0)) ** 2).sum(axis=1)
    frequencies = np.fft.rfftfreq(len(grid), 1.0 / rate_hz)
    band = np.nonzero((frequencies >= min_hz) & (frequencies <= max_hz))[0]
    if band.size == 0 or power[band].max() <= 0:
        return None
    peak = int(band[np.argmax(power[band])])
    # zoom in on the peak: the windowed DTFT power, three rounds of a 21-point search, each
    # narrowing to two steps around the best (the FFT bin alone is 1 / record length wide)
    seconds = grid - grid[0]
    best, width = peak * rate_hz / len(grid), rate_hz / len(grid)
    for _ in range(3):
        candidates = best + np.linspace(-width, width, 21)
        candidates = candidates[candidates > 0]
        powers = [float(np.sum(np.abs(np.exp(-2j * np.pi * f * seconds) @ detrended) ** 2)) for f in candidates]
        best = float(candidates[int(np.argmax(powers))])
        width /= 10.0
    return best


@dataclass
class GaitCycles:
    start_s: float
    frequency_hz: float
    bounds_s: np.ndarray       # cycle k = [bounds[k], bounds[k+1])
    amplitude_rad: np.ndarray  # per cycle: the largest half peak-to-peak command of any bounded joint
    steady: np.ndarray         # per cycle: full amplitude (ramps excluded)

    @property
    def steady_indices(self) -> np.ndarray:
        return np.nonzero(self.steady)[0]


def bounded_joint_columns(names: tuple[str, ...]) -> list[int]:
    """Joints whose command oscillates (twist joints of T-Snake turn on, the latch is no gait joint)."""
    return [i for i, name in enumerate(names) if not TWIST_JOINT.match(name) and name != 'latch_joint']


def gait_cycles(start_s: float, end_s: float, frequency_hz: float, command_times_s: np.ndarray,
                command_positions_rad: np.ndarray) -> GaitCycles:
    """Whole gait cycles from the start up to end_s, each with its command amplitude and whether
    it is steady (amplitude >= STEADY_AMPLITUDE_FRACTION of the 90th percentile of all cycles)."""
    count = int(math.floor((end_s - start_s) * frequency_hz + 1e-9))
    bounds = start_s + np.arange(count + 1) / frequency_hz
    amplitudes = np.zeros(count)
    positions = np.asarray(command_positions_rad, dtype=float)
    for k in range(count):
        inside = (command_times_s >= bounds[k]) & (command_times_s < bounds[k + 1])
        if inside.any():
            rows = positions[inside]
            amplitudes[k] = float(np.nanmax((np.nanmax(rows, axis=0) - np.nanmin(rows, axis=0)) / 2.0))
    reference = float(np.percentile(amplitudes, 90)) if count else 0.0
    steady = amplitudes >= STEADY_AMPLITUDE_FRACTION * reference if reference > 0 else np.zeros(count, bool)
    return GaitCycles(start_s, frequency_hz, bounds, amplitudes, steady)


# ---------------------------------------------------------------- locomotion

@dataclass
class Locomotion:
    """Stride = |mean displacement vector| of the head per steady cycle: the head's net
    displacement over the steady cycles divided by their number (the head stands in for the
    papers' centre of mass, ΔCOM: it adds the body's turn per cycle times its lever arm). Spread and drift need at least
    MIN_CYCLES_TO_JUDGE steady cycles; with fewer they are None and `too_few_cycles` says why."""
    stride_m: np.ndarray            # per steady cycle: |displacement|
    stride_vectors_m: np.ndarray    # (K, 2)
    mean_stride_m: float            # |mean displacement vector| of the head per steady cycle
    stride_std_m: float | None      # population STD of the per-cycle |displacement|
    travel_direction_rad: np.ndarray  # per steady cycle
    heading_drift_rad_per_cycle: float | None  # least-squares slope of the travel direction over steady cycles
    heading_drift_stderr_rad_per_cycle: float | None  # standard error of that slope (None below 3 cycles)
    yaw_drift_rad_per_cycle: float      # mean change of head yaw (same phase) per steady cycle
    mean_speed_m_s: float            # net steady displacement / steady time
    path_speed_m_s: float            # head path length / time over the steady cycles
    cycle_paths_m: np.ndarray        # (K, PHASE_POINTS, 2): head path of each steady cycle from its
                                     # start, x along the mean travel direction
    distance_m: float                # net, gait start to end
    too_few_cycles: str | None = None  # why spread and drift are not judged, None when they are

    @property
    def mean_step_m(self) -> float:
        """Mean of each steady cycle's |displacement|: the step the body makes per cycle. The stride
        (|mean displacement vector|) is shorter when the steps rotate, i.e. the body turns."""
        return float(np.mean(self.stride_m))

    @property
    def steps_cancel(self) -> float:
        """1 − stride / step: the share of the per-cycle steps that turning cancels (0 straight)."""
        step = self.mean_step_m
        return 1.0 - self.mean_stride_m / step if step > 0 else 0.0


def _rotation(angle_rad: float) -> np.ndarray:
    c, s = math.cos(angle_rad), math.sin(angle_rad)
    return np.array([[c, -s], [s, c]])


def locomotion(head_times_s: np.ndarray, head_xy_m: np.ndarray, head_yaw_rad: np.ndarray,
               cycles: GaitCycles) -> Locomotion:
    """Stride, heading drift, speed and cycle paths over the steady cycles (MetricsError if none)."""
    steady = cycles.steady_indices
    steady = steady[(cycles.bounds_s[steady] >= head_times_s[0]) & (cycles.bounds_s[steady + 1] <= head_times_s[-1])]
    if steady.size == 0:
        raise MetricsError('no steady gait cycle inside the head track')
    at_bounds = resample(head_times_s, head_xy_m, cycles.bounds_s)
    yaw_bounds = np.interp(cycles.bounds_s, head_times_s, head_yaw_rad)
    vectors = at_bounds[steady + 1] - at_bounds[steady]
    strides = np.linalg.norm(vectors, axis=1)
    mean_vector = vectors.mean(axis=0)
    directions = np.unwrap(np.arctan2(vectors[:, 1], vectors[:, 0]))
    drift, drift_stderr = drift_slope(directions)
    yaw_drift = float(np.mean(yaw_bounds[steady + 1] - yaw_bounds[steady]))
    period = 1.0 / cycles.frequency_hz
    mean_direction = math.atan2(mean_vector[1], mean_vector[0])
    to_travel = _rotation(-mean_direction)
    phase = np.linspace(0.0, 1.0, PHASE_POINTS)
    paths = np.empty((len(steady), PHASE_POINTS, 2))
    path_length = 0.0
    for row, k in enumerate(steady):
        times = cycles.bounds_s[k] + phase * period
        xy = resample(head_times_s, head_xy_m, times)
        paths[row] = (xy - xy[0]) @ to_travel.T
        inside = (head_times_s >= cycles.bounds_s[k]) & (head_times_s <= cycles.bounds_s[k + 1])
        track = head_xy_m[inside]
        path_length += float(np.linalg.norm(np.diff(track, axis=0), axis=1).sum()) if len(track) > 1 else 0.0
    steady_time = len(steady) * period
    distance = float(np.linalg.norm(head_xy_m[-1] - resample(head_times_s, head_xy_m, np.array([cycles.start_s]))[0]))
    judged = len(steady) >= MIN_CYCLES_TO_JUDGE
    too_few = None if judged else (f'{len(steady)} steady cycle{"s" if len(steady) != 1 else ""} are too few to '
                                   f'judge spread and drift (they need at least {MIN_CYCLES_TO_JUDGE}): record a '
                                   'longer run')
    return Locomotion(strides, vectors, float(np.linalg.norm(mean_vector)), float(np.std(strides)) if judged else None,
                      directions, drift if judged else None, drift_stderr if judged else None, yaw_drift,
                      float(np.linalg.norm(vectors.sum(axis=0)) / steady_time), path_length / steady_time, paths,
                      distance, too_few)


def drift_slope(values: np.ndarray) -> tuple[float | None, float | None]:
    """Least-squares slope of values over their index, and its standard error (None without the
    points to estimate it: a slope needs 2, its error 3)."""
    count = len(values)
    if count < 2:
        return None, None
    index = np.arange(count, dtype=float)
    slope, intercept = np.polyfit(index, values, 1)
    if count < 3:
        return float(slope), None
    residual = values - (slope * index + intercept)
    spread = float(np.sum((index - index.mean()) ** 2))
    return float(slope), float(math.sqrt(float(np.sum(residual ** 2)) / (count - 2) / spread))


def one_cycle_mean(values: np.ndarray, window: int) -> tuple[np.ndarray, int]:
    """Mean of every whole `window` of samples (one gait cycle of them), and the index of the
    sample each mean is centred on; only where a whole window exists (no zero padding at the ends,
    which dragged the mean down over the last half cycle)."""
    if window < 1 or len(values) < window:
        return np.zeros(0), 0
    sums = np.cumsum(np.concatenate([[0.0], np.asarray(values, dtype=float)]))
    return (sums[window:] - sums[:-window]) / window, (window - 1) // 2


def speed_series(times_s: np.ndarray, position_m: np.ndarray, rate_hz: float = 50.0) -> tuple[np.ndarray, np.ndarray]:
    """(grid, |velocity|) of a position track resampled at rate_hz (central differences)."""
    grid = uniform_grid(float(times_s[0]), float(times_s[-1]), rate_hz)
    if len(grid) < 3:
        return grid, np.zeros(len(grid))
    sampled = resample(times_s, position_m, grid)
    return grid, np.linalg.norm(np.gradient(sampled, grid, axis=0).reshape(len(grid), -1), axis=1)


def normalised_cycle_shape(cycle_paths_m: np.ndarray) -> np.ndarray:
    """Mean cycle path divided by its own stride (end point at (1, 0)), centred: the gait's shape
    independent of its size, for comparing a sim and a robot run of the same gait."""
    mean_path = cycle_paths_m.mean(axis=0)
    stride = float(np.linalg.norm(mean_path[-1]))
    if stride <= 0:
        raise MetricsError('the mean cycle path has zero stride: no shape to normalise')
    angle = math.atan2(mean_path[-1, 1], mean_path[-1, 0])
    shape = (mean_path @ _rotation(-angle).T) / stride
    return shape - shape.mean(axis=0)


def shape_error(cycle_paths_a_m: np.ndarray, cycle_paths_b_m: np.ndarray) -> float:
    """RMS distance between the two normalised cycle shapes, in strides (0 = same shape)."""
    a, b = normalised_cycle_shape(cycle_paths_a_m), normalised_cycle_shape(cycle_paths_b_m)
    return float(np.sqrt(np.mean(np.sum((a - b) ** 2, axis=1))))


# ---------------------------------------------------------------- joints

@dataclass
class JointTracking:
    joint: str
    rms_error_rad: float
    lag_s: float | None      # measured behind commanded (> 0); None: no wave in the command
    max_error_rad: float


def tracking_lag_s(grid_s: np.ndarray, commanded: np.ndarray, measured: np.ndarray, max_lag_s: float) -> float | None:
    """Delay of measured behind commanded: the peak of their normalised cross-correlation
    (detrended; the commanded window fixed and |lag| <= max_lag_s away from both ends, so every
    candidate lag sums the same samples and a growing amplitude, e.g. the start ramp, does not pull
    the peak), refined by a parabola; None when the command has no wave to correlate (a constant
    or a steady ramp, e.g. a T-Snake twist joint turning on)."""
    step = float(grid_s[1] - grid_s[0])
    seconds = grid_s - grid_s[0]
    a = commanded - np.polyval(np.polyfit(seconds, commanded, 1), seconds)
    if np.std(a) < MIN_WAVE_RAD:
        return None
    b = measured - np.polyval(np.polyfit(seconds, measured, 1), seconds)
    reach = max(1, min(int(max_lag_s / step), (len(a) - 2) // 3))
    window = np.zeros_like(a)
    window[reach:len(a) - reach] = a[reach:len(a) - reach]
    size = 1 << int(math.ceil(math.log2(2 * len(a))))
    correlation = np.fft.irfft(np.conj(np.fft.rfft(window, size)) * np.fft.rfft(b, size), size)
    lags = np.arange(-reach, reach + 1)
    energy = np.concatenate([[0.0], np.cumsum(b * b)])
    inside = len(a) - 2 * reach  # samples of the fixed window
    shifted_energy = energy[reach + lags + inside] - energy[reach + lags]
    values = correlation[lags % size] / np.sqrt(np.maximum(shifted_energy, 1e-300))
    peak = int(np.argmax(values))
    offset = 0.0
    if 0 < peak < len(values) - 1:
        left, centre, right = values[peak - 1:peak + 2]
        denominator = left - 2 * centre + right
        offset = 0.5 * (left - right) / denominator if denominator < 0 else 0.0
    return float((lags[peak] + offset) * step)


def joint_tracking(command_times_s: np.ndarray, command_names: tuple[str, ...], commanded_rad: np.ndarray,
                   state_times_s: np.ndarray, state_names: tuple[str, ...], measured_rad: np.ndarray,
                   start_s: float, end_s: float, frequency_hz: float | None) -> list[JointTracking]:
    """Per joint present in both: RMS and peak of measured - commanded, and the lag, on the
    joint-state grid between start_s and end_s (commands interpolated)."""
    rate_hz = min(1000.0, (len(state_times_s) - 1) / max(state_times_s[-1] - state_times_s[0], 1e-9))
    begin = max(start_s, float(command_times_s[0]), float(state_times_s[0]))
    end = min(end_s, float(command_times_s[-1]), float(state_times_s[-1]))
    grid = uniform_grid(begin, end, rate_hz)
    if len(grid) < 8:
        raise MetricsError('commands and joint states overlap by fewer than 8 samples')
    max_lag = min(MAX_LAG_S, 0.5 / frequency_hz) if frequency_hz else MAX_LAG_S
    results = []
    for column, name in enumerate(command_names):
        if name not in state_names:
            continue
        commanded = resample(command_times_s, commanded_rad[:, column], grid)
        measured = resample(state_times_s, measured_rad[:, state_names.index(name)], grid)
        if not (np.isfinite(commanded).all() and np.isfinite(measured).all()):
            continue
        error = measured - commanded
        results.append(JointTracking(name, float(np.sqrt(np.mean(error ** 2))),
                                     tracking_lag_s(grid, commanded, measured, max_lag), float(np.max(np.abs(error)))))
    return results


@dataclass
class TwistPower:
    joint: str
    mean_power_w: float   # mean |effort x velocity|
    peak_power_w: float


def twist_power(times_s: np.ndarray, names: tuple[str, ...], velocity_rad_s: np.ndarray, effort_nm: np.ndarray,
                start_s: float, end_s: float) -> list[TwistPower]:
    """Output power |τ·θ̇| of every m{i}_twist joint between start_s and end_s (LTS paper Fig. 7)."""
    inside = (times_s >= start_s) & (times_s <= end_s)
    results = []
    for column, name in sorted(((c, n) for c, n in enumerate(names) if TWIST_JOINT.match(n)),
                               key=lambda item: int(TWIST_JOINT.match(item[1]).group(1))):
        power = np.abs(effort_nm[inside, column] * velocity_rad_s[inside, column])
        power = power[np.isfinite(power)]
        if power.size:
            results.append(TwistPower(name, float(power.mean()), float(power.max())))
    return results


def top_two_share(powers: list[TwistPower]) -> float:
    """Share of the total mean twist power taken by the two most-loaded joints (paper: 45.1 %)."""
    means = sorted((p.mean_power_w for p in powers), reverse=True)
    total = sum(means)
    return float(sum(means[:2]) / total) if total > 0 else 0.0


# ---------------------------------------------------------------- contact, sinkage, tumbling

def link_order(link: str) -> tuple[int, str]:
    """base_link/head first, then link_1 … in number order, anything else after by name."""
    match = re.search(r'(\d+)$', link)
    if link in ('base_link', 'head_link'):
        return (-1, link)
    return (int(match.group(1)), link) if match else (10_000, link)


@dataclass
class ContactProfile:
    links: list[str]
    phase: np.ndarray            # bin centres [0, 1)
    mean_force_n: np.ndarray     # (links, PHASE_BINS): contact force over one steady gait cycle
    contact_fraction: np.ndarray  # per link: share of steady time with force > threshold
    contact_share: np.ndarray    # per link: its share of all link-contact time (sums to 1)
    mean_force_per_link_n: np.ndarray
    peak_force_n: float


def contact_profile(forces: dict[str, tuple[np.ndarray, np.ndarray]], cycles: GaitCycles,
                    threshold_n: float = CONTACT_THRESHOLD_N) -> ContactProfile:
    """Per link (times, |force|) over the steady cycles: mean force per phase bin, contact shares."""
    steady = cycles.steady_indices
    if steady.size == 0:
        raise MetricsError('no steady gait cycle to fold the contact forces on')
    links = sorted(forces, key=link_order)
    profile = np.zeros((len(links), PHASE_BINS))
    fraction, mean_force = np.zeros(len(links)), np.zeros(len(links))
    peak = 0.0
    period = 1.0 / cycles.frequency_hz
    for row, link in enumerate(links):
        times, magnitude = forces[link]
        inside = np.zeros(len(times), dtype=bool)
        for k in steady:
            inside |= (times >= cycles.bounds_s[k]) & (times < cycles.bounds_s[k + 1])
        if not inside.any():
            continue
        phase = ((times[inside] - cycles.start_s) / period) % 1.0
        bins = np.minimum((phase * PHASE_BINS).astype(int), PHASE_BINS - 1)
        sums = np.bincount(bins, weights=magnitude[inside], minlength=PHASE_BINS)
        counts = np.bincount(bins, minlength=PHASE_BINS)
        profile[row] = np.divide(sums, counts, out=np.zeros(PHASE_BINS), where=counts > 0)
        fraction[row] = float(np.mean(magnitude[inside] > threshold_n))
        mean_force[row] = float(magnitude[inside].mean())
        peak = max(peak, float(magnitude[inside].max()))
    share = fraction / fraction.sum() if fraction.sum() > 0 else fraction
    return ContactProfile(links, (np.arange(PHASE_BINS) + 0.5) / PHASE_BINS, profile, fraction, share, mean_force, peak)


def intervals(times_s: np.ndarray, active: np.ndarray, end_s: float) -> list[tuple[float, float]]:
    """[begin, end) spans where a sampled state is active (a state holds until the next sample)."""
    spans: list[tuple[float, float]] = []
    begin = None
    for t, value in zip(times_s, active):
        if value and begin is None:
            begin = float(t)
        elif not value and begin is not None:
            spans.append((begin, float(t)))
            begin = None
    if begin is not None:
        spans.append((begin, float(end_s)))
    return spans


@dataclass
class Tumbling:
    begin_s: float
    end_s: float
    source: str                 # which topic marked it
    mean_speed_m_s: float
    peak_speed_m_s: float
    height_drop_m: float
    mean_angular_speed_rad_s: float | None
    peak_angular_speed_rad_s: float | None
    peak_total_force_n: float | None
    peak_link_force_n: float | None


def tumbling(begin_s: float, end_s: float, source: str, head_times_s: np.ndarray, head_position_m: np.ndarray,
             angular_velocity_rad_s: np.ndarray | None, total_force: tuple[np.ndarray, np.ndarray] | None,
             peak_link_force_n: float | None) -> Tumbling:
    """Rolling speed, height drop, angular speed and normal force over one tumbling span."""
    inside = (head_times_s >= begin_s) & (head_times_s <= end_s)
    if inside.sum() < 3:
        raise MetricsError(f'fewer than 3 head samples while tumbling ({begin_s:.2f}-{end_s:.2f} s)')
    _, speed = speed_series(head_times_s[inside], head_position_m[inside])
    z = head_position_m[inside, 2]
    angular = (np.linalg.norm(angular_velocity_rad_s[inside], axis=1)
               if angular_velocity_rad_s is not None else None)
    force_peak = None
    if total_force is not None:
        force_times, force_total = total_force
        window = (force_times >= begin_s) & (force_times <= end_s)
        force_peak = float(force_total[window].max()) if window.any() else None
    return Tumbling(begin_s, end_s, source, float(speed.mean()), float(speed.max()), float(z[0] - z.min()),
                    float(angular.mean()) if angular is not None else None,
                    float(angular.max()) if angular is not None else None, force_peak, peak_link_force_n)


# ---------------------------------------------------------------- between bags

@dataclass
class PerformanceRatio:
    """The geometric-mechanics paper §V-C: δ((i,j),X) = ΔCOM_i / ΔCOM_j; Ξ_ij = δ((i,j),X) / δ((i,j),Y)."""
    class_x: str
    class_y: str
    gaits: list[str]
    xi: np.ndarray               # (n, n), diagonal 1
    off_diagonal_mean: float
    off_diagonal_std: float      # population STD (ddof = 0) over the n(n-1) off-diagonal cells


def performance_ratio(stride_m: dict[tuple[str, str], float], class_x: str, class_y: str) -> PerformanceRatio:
    """Ξ over the gaits that have a non-zero stride in both classes (MetricsError if < 2)."""
    gaits = sorted({gait for gait, cls in stride_m if cls == class_x and (gait, class_y) in stride_m
                    and stride_m[(gait, class_x)] > 0 and stride_m[(gait, class_y)] > 0})
    if len(gaits) < 2:
        raise MetricsError(f'fewer than 2 gaits run in both {class_x} and {class_y}')
    x = np.array([stride_m[(g, class_x)] for g in gaits])
    y = np.array([stride_m[(g, class_y)] for g in gaits])
    xi = (x[:, None] / x[None, :]) / (y[:, None] / y[None, :])
    off = xi[~np.eye(len(gaits), dtype=bool)]
    return PerformanceRatio(class_x, class_y, gaits, xi, float(off.mean()), float(off.std()))
