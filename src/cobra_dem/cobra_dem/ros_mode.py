"""DEM run -> the sim's ROS topics, as plain numbers (no rclpy: cobra_dem.dem_node wraps them), so
consumers cannot tell the DEM terrain from the sim's. Frames (p_odom = R_slope (p_bed - origin_bed))
and message conventions: README, "ROS mode".
"""

from __future__ import annotations

import math
import queue
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np
import yaml

from cobra_common.rotations import matrix_from_quaternion, quaternion_from_matrix, slope_rotation

SampleT = TypeVar('SampleT')
FrameT = TypeVar('FrameT')


class OverrideError(ValueError):
    """A `key=value` scenario override that cannot be read (names the fix)."""


def parse_overrides(pairs: list[str]) -> dict[str, Any]:
    """`key=value` strings (value parsed as YAML, keys nested with dots) -> {key: value}, as
    python -m cobra_experiments.dem_run's --set takes them."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition('=')
        if not sep or not key.strip():
            raise OverrideError(f'scenario override {pair!r}: write key=value (e.g. body.motion=free)')
        try:
            out[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError as error:
            raise OverrideError(f'scenario override {pair!r}: the value is not YAML ({error})') from error
    return out


# --- frames -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class OdomPlacement:
    """Where the DEM bed frame lies in odom: p_odom = rotation (p_bed - origin_bed_m)."""

    slope_deg: float
    origin_bed_m: np.ndarray   # [3] bed-frame point at the odom origin
    rotation: np.ndarray       # [3, 3] bed axes -> odom axes (cobra_common.rotations.slope_rotation)
    bed_length_m: float        # periods of the bed (x, y), for the heightmap window
    bed_width_m: float

    @classmethod
    def from_first_sample(cls, slope_deg: float, body_position_bed_m: np.ndarray, surface_m: float,
                          bed_length_m: float, bed_width_m: float) -> 'OdomPlacement':
        """Anchor odom on the undisturbed surface (the backend's surface_m) under the body's first sample."""
        position = np.asarray(body_position_bed_m, dtype=float)
        return cls(float(slope_deg), np.array([position[0], position[1], surface_m]), slope_rotation(slope_deg),
                   float(bed_length_m), float(bed_width_m))

    def points(self, points_bed_m: np.ndarray) -> np.ndarray:
        """[n, 3] (or [3]) bed-frame points in odom."""
        return (np.asarray(points_bed_m, dtype=float) - self.origin_bed_m) @ self.rotation.T

    def vectors(self, vectors_bed: np.ndarray) -> np.ndarray:
        """[n, 3] (or [3]) bed-frame free vectors (velocity, force) in odom axes."""
        return np.asarray(vectors_bed, dtype=float) @ self.rotation.T

    def surface_z_m(self, x_odom_m: np.ndarray) -> np.ndarray:
        """Height of the undisturbed bed surface (the plane through the odom origin whose normal is
        the bed's z axis) above the odom point (x, y): descending along +x."""
        return -np.asarray(x_odom_m, dtype=float) * math.tan(math.radians(self.slope_deg))


@dataclass(frozen=True)
class BodyFields:
    """One body sample as the sim's messages carry it (odom pose, body-axes twist and wrench)."""

    t_s: float
    position_m: np.ndarray            # body origin (COM) in odom
    orientation_xyzw: np.ndarray      # body axes in odom
    linear_velocity_m_s: np.ndarray   # of the body origin, in body axes
    angular_velocity_rad_s: np.ndarray  # in body axes
    force_n: np.ndarray               # grains on the body, in body axes
    torque_nm: np.ndarray             # about the body origin, in body axes


def body_fields(placement: OdomPlacement, t_s: float, body: Mapping[str, np.ndarray]) -> BodyFields:
    """A backend body state (bed frame: position_m, quaternion_xyzw, velocity_m_s,
    angular_velocity_rad_s, contact_force_n, contact_torque_nm) as message fields."""
    bed_from_body = matrix_from_quaternion(body['quaternion_xyzw'])
    odom_from_body = placement.rotation @ bed_from_body
    to_body = bed_from_body.T     # bed-frame vector -> body axes (R_odom^T R_slope = R_bed^T)
    return BodyFields(
        t_s=float(t_s),
        position_m=placement.points(body['position_m']),
        orientation_xyzw=quaternion_from_matrix(odom_from_body),
        linear_velocity_m_s=to_body @ np.asarray(body['velocity_m_s'], dtype=float),
        angular_velocity_rad_s=to_body @ np.asarray(body['angular_velocity_rad_s'], dtype=float),
        force_n=to_body @ np.asarray(body['contact_force_n'], dtype=float),
        torque_nm=to_body @ np.asarray(body['contact_torque_nm'], dtype=float))


# --- heightmap --------------------------------------------------------------------------------

@dataclass(frozen=True)
class SurfaceHeightmap:
    """The particle surface on an odom x-y grid: the fields cobra_common.heightmap_cloud.pack_heightmap
    packs (one point per cell holding grains)."""

    x_m: np.ndarray
    y_m: np.ndarray
    z_m: np.ndarray
    sinkage_m: np.ndarray
    pressure_pa: np.ndarray


def wrap_into_window(values: np.ndarray, centre: float, period: float) -> np.ndarray:
    """Periodic images of `values` inside [centre - period / 2, centre + period / 2)."""
    low = centre - 0.5 * period
    return low + np.mod(np.asarray(values, dtype=float) - low, period)


def surface_heightmap(placement: OdomPlacement, grain_positions_bed_m: np.ndarray, grain_radius_m: np.ndarray,
                      body_position_bed_m: np.ndarray, cell_m: float) -> SurfaceHeightmap:
    """Highest grain top per cell_m x cell_m cell of odom x-y (cells aligned with odom's axes).

    Grain centres (unwrapped) are first brought into the bed period centred on the body (x) and on
    the odom origin (y), then placed in odom; a sphere's top is its centre + radius along odom z.
    """
    if not cell_m > 0.0:
        raise ValueError(f'heightmap cell size {cell_m} m must be > 0')
    centres = np.array(grain_positions_bed_m, dtype=float, copy=True).reshape(-1, 3)
    if len(centres) == 0:
        empty = np.zeros(0)
        return SurfaceHeightmap(empty, empty, empty, empty, empty)
    centres[:, 0] = wrap_into_window(centres[:, 0], float(body_position_bed_m[0]), placement.bed_length_m)
    centres[:, 1] = wrap_into_window(centres[:, 1], float(placement.origin_bed_m[1]), placement.bed_width_m)
    odom = placement.points(centres)
    tops_m = odom[:, 2] + np.broadcast_to(np.asarray(grain_radius_m, dtype=float), (len(odom),))
    cells = np.floor(odom[:, :2] / cell_m).astype(np.int64)
    keys, inverse = np.unique(cells, axis=0, return_inverse=True)
    highest_m = np.full(len(keys), -np.inf)
    np.maximum.at(highest_m, inverse.ravel(), tops_m)
    x_m, y_m = (keys[:, 0] + 0.5) * cell_m, (keys[:, 1] + 0.5) * cell_m
    return SurfaceHeightmap(x_m, y_m, highest_m, placement.surface_z_m(x_m) - highest_m, np.zeros(len(keys)))


# --- one frame per sample --------------------------------------------------------------------

@dataclass(frozen=True)
class DemFrame:
    """Everything the node publishes for one backend sample."""

    t_s: float
    body: BodyFields
    sinkage_m: float
    heightmap: SurfaceHeightmap | None    # set when a heightmap is due and the sample has grains
    final: bool


class DemFrameBuilder:
    """Backend sample -> DemFrame. Anchors odom at the first sample (OdomPlacement) and makes a
    heightmap at the first sample carrying grain positions at or after each multiple of
    heightmap_period_s (the backend gathers grains only every output_interval_s, so a shorter
    period gives one per snapshot). A sample is duck-typed: t_s, body, sinkage_m,
    grain_positions_m, grain_radius_m, bed_length_m, bed_width_m, surface_m, final (outputs.DemSample)."""

    def __init__(self, slope_deg: float, heightmap_period_s: float, cell_m: float) -> None:
        self.slope_deg = slope_deg
        self.heightmap_period_s = heightmap_period_s
        self.cell_m = cell_m
        self.placement: OdomPlacement | None = None
        self._next_heightmap_s = 0.0

    def __call__(self, sample: Any) -> DemFrame:
        position_bed_m = np.asarray(sample.body['position_m'], dtype=float)
        if self.placement is None:
            self.placement = OdomPlacement.from_first_sample(self.slope_deg, position_bed_m, sample.surface_m,
                                                             sample.bed_length_m,
                                                             sample.bed_width_m)
        heightmap = None
        if (self.heightmap_period_s > 0.0 and sample.grain_positions_m is not None
                and sample.t_s >= self._next_heightmap_s - 1e-9):
            heightmap = surface_heightmap(self.placement, sample.grain_positions_m, sample.grain_radius_m,
                                          position_bed_m, self.cell_m)
            periods_done = math.floor(sample.t_s / self.heightmap_period_s + 1e-6)
            self._next_heightmap_s = (periods_done + 1) * self.heightmap_period_s
        return DemFrame(float(sample.t_s), body_fields(self.placement, sample.t_s, sample.body),
                        float(sample.sinkage_m), heightmap, bool(sample.final))


# --- progress ---------------------------------------------------------------------------------

def progress_values(sim_time_s: float, duration_s: float, wall_elapsed_s: float) -> dict[str, float]:
    """Fraction done, real-time factor and ETA [s wall] of a run (ETA nan before any progress)."""
    fraction = min(1.0, sim_time_s / duration_s) if duration_s > 0.0 else 1.0
    eta_s = wall_elapsed_s * (1.0 - fraction) / fraction if fraction > 0.0 else float('nan')
    rtf = sim_time_s / wall_elapsed_s if wall_elapsed_s > 0.0 else 0.0
    return {'progress_percent': 100.0 * fraction, 'eta_s': eta_s, 'real_time_factor': rtf}


def format_duration(seconds: float) -> str:
    """`1m05s`, or `?` when unknown."""
    if not math.isfinite(seconds):
        return '?'
    return f'{int(seconds // 60)}m{int(seconds % 60):02d}s'


# --- background run ---------------------------------------------------------------------------

class SampleStream(Generic[SampleT, FrameT]):
    """Runs a DEM sample generator in a daemon thread and hands converted frames over a queue.

    The engine's steps are long C calls that hold no Python signal handler: run in the main
    thread, a stop signal would wait for the current chunk (seconds to minutes). Here the main
    thread keeps serving ROS and signals; `stop` asks the worker to close the generator (which
    closes the engine) at the next sample and, once a first sample came, calls `interrupt` to cut
    the running engine chunk short (before it, the backend may be settling a bed that it caches:
    cutting that short would cache an unsettled bed, so the worker is then left to die with the
    process). Exceptions of the generator or `convert` are re-raised by `take`.
    """

    def __init__(self, samples: Callable[[], Iterator[SampleT]], convert: Callable[[SampleT], FrameT],
                 queue_size: int = 4) -> None:
        self._samples = samples
        self._convert = convert
        self._queue: queue.Queue[FrameT] = queue.Queue(maxsize=queue_size)
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._done = threading.Event()
        self.samples_taken = 0      # samples the generator yielded so far (worker thread)
        self._thread = threading.Thread(target=self._run, name='dem-samples', daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        iterator: Iterator[SampleT] | None = None
        try:
            iterator = self._samples()
            for sample in iterator:
                self.samples_taken += 1
                if self._stop.is_set():
                    break
                frame = self._convert(sample)
                while not self._stop.is_set():
                    try:
                        self._queue.put(frame, timeout=0.05)
                        break
                    except queue.Full:
                        continue
                if self._stop.is_set():
                    break
        except BaseException as error:  # noqa: BLE001 (handed to the main thread by take())
            self._error = error
        finally:
            close = getattr(iterator, 'close', None)
            if close is not None:
                try:
                    close()
                except BaseException as error:  # noqa: BLE001
                    self._error = self._error or error
            self._done.set()

    def take(self, max_frames: int) -> list[FrameT]:
        """Up to max_frames frames ready now (never blocks); raises the worker's error, if any,
        once its frames are taken."""
        frames: list[FrameT] = []
        while len(frames) < max_frames:
            try:
                frames.append(self._queue.get_nowait())
            except queue.Empty:
                break
        if not frames and self._error is not None:
            error, self._error = self._error, None
            raise error
        return frames

    @property
    def exhausted(self) -> bool:
        """The generator ended (or failed) and every frame was taken."""
        return self._done.is_set() and self._queue.empty() and self._error is None

    def stop(self, interrupt: Callable[[], None] | None, wait_s: float) -> bool:
        """Ask the worker to end; True when it ended (generator closed) within wait_s. Before the
        first sample it is not waited for: nothing may cut that engine call short."""
        self._stop.set()
        if not self._thread.is_alive():
            return True
        if self.samples_taken == 0:
            return False
        if interrupt is not None:
            interrupt()
        self._thread.join(timeout=wait_s)
        return not self._thread.is_alive()
