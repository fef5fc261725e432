"""Engine-independent DEM outputs: body trace arrays, compact particle snapshots and the summary.

Every backend fills a BodyTrace (bed frame: x downslope, y across, z bed normal) and calls
`summarize`; the same files come out of every engine so runs can be compared.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cobra_dem.scenario import GRAVITY_M_S2, Scenario

SNAPSHOT_QUANTUM_M = 1e-4          # int16 positions: 0.1 mm steps, +-3.27 m range
LIFT_OFF_FRACTION_OF_WEIGHT = 0.02  # normal contact force below 2 % of m g cos(theta) = airborne


@dataclass
class BodyTrace:
    """Samples of the body's state and of the contact load on it (gravity subtracted)."""

    time_s: list[float] = field(default_factory=list)
    position_m: list[np.ndarray] = field(default_factory=list)          # COM, unwrapped
    quaternion_xyzw: list[np.ndarray] = field(default_factory=list)
    velocity_m_s: list[np.ndarray] = field(default_factory=list)
    angular_velocity_rad_s: list[np.ndarray] = field(default_factory=list)
    contact_force_n: list[np.ndarray] = field(default_factory=list)
    contact_torque_nm: list[np.ndarray] = field(default_factory=list)  # about the COM
    sinkage_m: list[float] = field(default_factory=list)

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: np.asarray(values, dtype=float) for name, values in vars(self).items()}


def lift_off_intervals(time_s: np.ndarray, normal_force_n: np.ndarray, threshold_n: float) -> list[list[float]]:
    """[start, end] times of runs of samples whose normal force is below threshold."""
    airborne = normal_force_n < threshold_n
    intervals: list[list[float]] = []
    start: float | None = None
    for t, flying in zip(time_s, airborne):
        if flying and start is None:
            start = float(t)
        elif not flying and start is not None:
            intervals.append([start, float(t)])
            start = None
    if start is not None:
        intervals.append([start, float(time_s[-1])])
    return intervals


def interval_mean_contact_force_n(trace: dict[str, np.ndarray], mass_kg: float,
                                  gravity_direction: tuple[float, float, float]) -> np.ndarray:
    """The contact force on the body averaged over each sample interval [n - 1, 3], from its momentum:
    m (v[k+1] - v[k]) / dt - m g (bed frame; `gravity_direction`: Scenario.gravity_vector). An impact
    between two samples counts with its whole impulse whatever the sampling; an instantaneous sample of
    grain forces (a DEM engine's) or of a stiff contact (MuJoCo's) catches a spike or misses it."""
    gravity = GRAVITY_M_S2 * np.asarray(gravity_direction)
    acceleration = np.diff(trace['velocity_m_s'], axis=0) / np.diff(trace['time_s'])[:, None]
    return mass_kg * (acceleration - gravity)


def summarize(scenario: Scenario, trace: dict[str, np.ndarray]) -> dict[str, Any]:
    """Distance descended, mean speed, slip ratio vs v_ref, peak normal force, lift-off intervals."""
    time_s = trace['time_s']
    position_m = trace['position_m']
    theta = math.radians(scenario.slope_deg)
    elapsed_s = float(time_s[-1] - time_s[0]) if len(time_s) > 1 else 0.0
    along_slope_m = float(position_m[-1, 0] - position_m[0, 0])
    drop_m = float((position_m[-1, 0] - position_m[0, 0]) * math.sin(theta)
                   - (position_m[-1, 2] - position_m[0, 2]) * math.cos(theta))
    mean_speed_m_s = along_slope_m / elapsed_s if elapsed_s > 0 else 0.0
    v_ref = scenario.body.reference_speed_m_s
    normal_force_n = trace['contact_force_n'][:, 2]
    weight_normal_n = scenario.body.shape.mass_kg * GRAVITY_M_S2 * math.cos(theta)
    mean_spin_rad_s = float(np.mean(trace['angular_velocity_rad_s'][:, 1]))
    return {
        'scenario': scenario.name,
        'backend': scenario.backend,
        'slope_deg': scenario.slope_deg,
        'body': scenario.body.kind,
        'motion': scenario.body.motion,
        'grain_motion': scenario.grain_motion,
        'duration_s': elapsed_s,
        'time_step_s': scenario.dt_s,
        'distance_descended_m': along_slope_m,
        'height_lost_m': drop_m,
        'mean_speed_m_s': mean_speed_m_s,
        'reference_speed_m_s': v_ref,
        'slip_ratio_vs_v_ref': 1.0 - mean_speed_m_s / v_ref if v_ref > 0 else float('nan'),
        'mean_angular_speed_rad_s': mean_spin_rad_s,
        'peak_normal_force_n': float(np.max(normal_force_n)),
        'body_weight_normal_n': weight_normal_n,
        'final_sinkage_m': float(trace['sinkage_m'][-1]),
        'max_sinkage_m': float(np.max(trace['sinkage_m'])),
        'lift_off_intervals_s': lift_off_intervals(time_s, normal_force_n,
                                                   LIFT_OFF_FRACTION_OF_WEIGHT * weight_normal_n),
    }


def quantize_positions(positions_m: np.ndarray) -> np.ndarray:
    """float positions -> int16 in SNAPSHOT_QUANTUM_M steps (6 bytes per sphere per frame)."""
    return np.round(positions_m / SNAPSHOT_QUANTUM_M).astype(np.int16)


def write_outputs(out_dir: Path, scenario: Scenario, trace: dict[str, np.ndarray],
                  snapshot_times_s: list[float], snapshots_m: list[np.ndarray],
                  sphere_radius_m: np.ndarray, clump_id: np.ndarray) -> dict[str, Any]:
    """trajectory.npz, particles.npz (int16 frames at 10 FPS) and summary.json; returns the summary."""
    out_dir.mkdir(parents=True, exist_ok=True)
    np.savez(out_dir / 'trajectory.npz', **trace)
    np.savez_compressed(out_dir / 'particles.npz', time_s=np.asarray(snapshot_times_s),
                        positions_q=np.stack([quantize_positions(s) for s in snapshots_m]) if snapshots_m
                        else np.zeros((0, 0, 3), np.int16),
                        quantum_m=SNAPSHOT_QUANTUM_M, radius_m=sphere_radius_m.astype(np.float32),
                        clump_id=clump_id.astype(np.int32))
    summary = summarize(scenario, trace)
    (out_dir / 'summary.json').write_text(json.dumps(summary, indent=2) + '\n')
    return summary


def bed_statistics(positions_m: np.ndarray, radius_m: np.ndarray, clump_id: np.ndarray, length_m: float,
                   width_m: float, floor_m: float, surface_m: float, samples: int = 200_000,
                   seed: int = 0) -> dict[str, float]:
    """Packing fraction of the bulk slab (floor + 1 radius .. surface - 2 radii, Monte Carlo over the
    union of spheres, periodic in x-y) and the largest overlap between spheres of different clumps."""
    from scipy.spatial import cKDTree

    r_max = float(radius_m.max())
    z_lo, z_hi = floor_m + r_max, surface_m - 2.0 * r_max
    wrapped = positions_m.copy()
    wrapped[:, 0] %= length_m
    wrapped[:, 1] %= width_m
    z_box = float(wrapped[:, 2].max() - min(wrapped[:, 2].min(), 0.0)) * 4 + 1.0
    shifted = wrapped - np.array([0.0, 0.0, min(wrapped[:, 2].min(), 0.0)])
    tree = cKDTree(shifted, boxsize=[length_m, width_m, z_box])
    rng = np.random.default_rng(seed)
    points = rng.uniform([0, 0, z_lo], [length_m, width_m, z_hi], size=(samples, 3))
    points[:, 2] -= min(wrapped[:, 2].min(), 0.0)
    distance, index = tree.query(points, k=1)
    inside = distance <= radius_m[index]
    pairs = tree.query_pairs(2.0 * r_max, output_type='ndarray')
    pairs = pairs[clump_id[pairs[:, 0]] != clump_id[pairs[:, 1]]]
    gap = np.linalg.norm(_periodic_delta(shifted[pairs[:, 0]] - shifted[pairs[:, 1]], length_m, width_m), axis=1)
    overlap = radius_m[pairs[:, 0]] + radius_m[pairs[:, 1]] - gap
    return {'packing_fraction': float(inside.mean()), 'slab_low_m': z_lo, 'slab_high_m': z_hi,
            'max_overlap_m': float(max(overlap.max(initial=0.0), 0.0)),
            'max_overlap_of_radius': float(max(overlap.max(initial=0.0), 0.0) / r_max)}


def _periodic_delta(delta: np.ndarray, length_m: float, width_m: float) -> np.ndarray:
    out = delta.copy()
    out[:, 0] -= np.round(out[:, 0] / length_m) * length_m
    out[:, 1] -= np.round(out[:, 1] / width_m) * width_m
    return out


ProgressCallback = Callable[[float, float], None]  # (sim time [s], wall time since the first sample [s])


@dataclass
class DemSample:
    """One body sample of a running scenario (bed frame: x downslope, y across, z bed normal).

    `body` holds the body's state arrays (LammpsRun.body_state()); `grain_positions_m` (unwrapped grain sphere
    centres, [n, 3]) is set on rank 0 every output_interval_s and None otherwise, so a consumer can
    publish or store frames without gathering the bed itself."""

    t_s: float
    body: dict[str, np.ndarray]
    sinkage_m: float               # surface_m - the body's lowest point
    surface_m: float               # the undisturbed bed surface under the body's start (bed z)
    grain_positions_m: np.ndarray | None
    grain_radius_m: np.ndarray
    grain_clump_id: np.ndarray
    bed_length_m: float
    bed_width_m: float
    rank: int = 0          # this process's MPI rank (only rank 0 should write or publish)
    ranks: int = 1         # MPI world size
    final: bool = False    # the last sample of duration_s (the run is still open while it is handled)


def record_samples(samples: Iterable[DemSample], scenario: Scenario, out_dir: Path,
                   progress: ProgressCallback | None = None) -> dict[str, Any]:
    """Consume a backend's samples to the end; rank 0 writes trajectory.npz, particles.npz and
    summary.json at the final one and returns the summary (other ranks: {})."""
    trace = BodyTrace()
    snapshot_times: list[float] = []
    snapshots: list[np.ndarray] = []
    summary: dict[str, Any] = {}
    started: float | None = None
    for sample in samples:
        if started is None:
            started = time.monotonic()
        trace.time_s.append(sample.t_s)
        for name, value in sample.body.items():
            getattr(trace, name).append(value)
        trace.sinkage_m.append(sample.sinkage_m)
        if sample.grain_positions_m is not None:
            snapshot_times.append(sample.t_s)
            snapshots.append(sample.grain_positions_m)
        if progress is not None and sample.rank == 0:
            progress(sample.t_s, time.monotonic() - started)
        if sample.final and sample.rank == 0:
            summary = write_outputs(out_dir, scenario, trace.arrays(), snapshot_times, snapshots,
                                    sample.grain_radius_m, sample.grain_clump_id)
            summary['wall_time_s'] = time.monotonic() - started
            summary['ranks'] = sample.ranks
    return summary
