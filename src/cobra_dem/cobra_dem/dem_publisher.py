"""The DEM node's core: DEM frames -> plain records of what to publish and log, and when; no rclpy.

cobra_dem.dem_node only converts these records to messages. Per body sample it publishes
/clock, ground_truth/odom, odom (the same pose with the sim's floor covariance: no VIO noise
here), contact/forces (the body's wrench), /tf and, when the frame has one, terrain/heightmap, in that order;
diagnostics every DIAGNOSTICS_PERIOD_S of wall time (a DEM second can take hours) and at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from cobra_common.heightmap_cloud import pack_heightmap
from cobra_common.peer_wait import PeerState, PeerWait
from cobra_dem.ros_mode import DemFrame, format_duration, progress_values
from cobra_dem.scenario import Scenario

FRAMES_PER_ROUND = 20       # samples published per loop round (services stay served)
DIAGNOSTICS_PERIOD_S = 1.0  # wall time
# odom = ground truth in a DEM run; the sim's floor on its VIO-like covariance (position, rotation)
ODOM_POSE_COVARIANCE: tuple[float, ...] = tuple(
    1e-6 if i in (0, 7, 14) else 1e-4 if i in (21, 28, 35) else 0.0 for i in range(36))
Vector3 = tuple[float, float, float]


class FrameSource(Protocol):
    """What the publisher needs of ros_mode.SampleStream (a worker thread running the engine)."""

    def take(self, max_frames: int) -> list[DemFrame]: ...

    @property
    def exhausted(self) -> bool: ...


@dataclass(frozen=True)
class BodyRecord:
    """One body sample in odom: /clock, both odometries, the contact wrench and /tf come from it."""

    stamp_ns: int
    position_m: Vector3
    orientation_xyzw: tuple[float, float, float, float]
    linear_velocity_m_s: Vector3    # of the body origin, in body axes
    angular_velocity_rad_s: Vector3
    force_n: Vector3                # grains on the body, in body axes
    torque_nm: Vector3              # about the body origin


@dataclass(frozen=True)
class HeightmapRecord:
    stamp_ns: int
    data: bytes   # cobra_common.heightmap_cloud points
    count: int


@dataclass(frozen=True)
class DiagnosticsRecord:
    stamp_ns: int
    message: str
    values: dict[str, str]


@dataclass
class Round:
    """What one loop round publishes (samples in order) and logs."""

    samples: list[tuple[BodyRecord, HeightmapRecord | None]] = field(default_factory=list)
    diagnostics: DiagnosticsRecord | None = None
    logs: list[str] = field(default_factory=list)      # info lines
    warnings: list[str] = field(default_factory=list)
    progress: str | None = None                         # the newest progress line (logged throttled)


def _vector(values: Sequence[float]) -> Vector3:
    x, y, z = (float(v) for v in values)
    return x, y, z


def body_record(frame: DemFrame) -> BodyRecord:
    body = frame.body
    x, y, z, w = (float(v) for v in body.orientation_xyzw)
    return BodyRecord(round(frame.t_s * 1e9), _vector(body.position_m), (x, y, z, w),
                      _vector(body.linear_velocity_m_s), _vector(body.angular_velocity_rad_s),
                      _vector(body.force_n), _vector(body.torque_nm))


class DemPublisher:
    """Takes the engine's frames once the peers are present and says what to publish.

    `start(now_s)` starts the engine (through `make_source`); `step(now_s, missing_peers)` is one
    loop round. `now_s` is wall time [s] of any monotonic clock.
    """

    def __init__(self, scenario: Scenario, make_source: Callable[[], FrameSource],
                 wait_for_peers_s: float) -> None:
        self.scenario = scenario
        self._make_source = make_source
        self._wait_for_peers_s = wait_for_peers_s
        self.source: FrameSource | None = None
        self._peer_wait: PeerWait | None = None
        self.finished = False
        self.published = 0
        self.last_frame: DemFrame | None = None
        self.started_s = 0.0
        self._first_sample_s: float | None = None
        self._diagnostics_due_s = 0.0

    def start(self, now_s: float) -> None:
        self.source = self._make_source()
        self.started_s = now_s
        if self._wait_for_peers_s > 0.0:
            self._peer_wait = PeerWait.starting(now_s, self._wait_for_peers_s)

    def step(self, now_s: float, missing_peers: Callable[[], list[str]]) -> Round:
        """One round: up to FRAMES_PER_ROUND samples once the peers are present (or waited for
        long enough); diagnostics when due; `finished` once the engine's run is over."""
        if self.source is None:
            self.start(now_s)
        out = Round()
        if self._peers_ready(now_s, missing_peers, out):
            frames = self.source.take(FRAMES_PER_ROUND)
            for frame in frames:
                self._take(frame, now_s, out)
            if not frames and self.source.exhausted:
                self.finished = True
        if self.finished or now_s >= self._diagnostics_due_s:
            self._diagnostics_due_s = now_s + DIAGNOSTICS_PERIOD_S
            out.diagnostics = self.diagnostics(now_s)
        if self.finished:
            out.logs.append(f'reached duration_s = {self.scenario.duration_s:g} s of sim time '
                            f'({self.published} samples) in {now_s - self.started_s:.1f} s wall')
        return out

    def _peers_ready(self, now_s: float, missing_peers: Callable[[], list[str]], out: Round) -> bool:
        wait = self._peer_wait
        if wait is None or not wait.waiting:
            return True
        missing = missing_peers()
        state = wait.poll(missing, now_s)
        if state is PeerState.GAVE_UP:
            out.warnings.append(f"gave up waiting for subscribers on {', '.join(missing)}: starting")
        return state is not PeerState.WAITING

    def _take(self, frame: DemFrame, now_s: float, out: Round) -> None:
        if self._first_sample_s is None:
            self._first_sample_s = now_s
            out.logs.append('first DEM sample: publishing')
        record = body_record(frame)
        heightmap = None
        if frame.heightmap is not None:
            data, count = pack_heightmap(frame.heightmap)
            heightmap = HeightmapRecord(record.stamp_ns, data, count)
        out.samples.append((record, heightmap))
        self.published += 1
        self.last_frame = frame
        progress = self.progress(now_s)
        out.progress = (f"t = {frame.t_s:.3f} / {self.scenario.duration_s:g} s "
                        f"({progress['progress_percent']:.0f} %), ETA {format_duration(progress['eta_s'])}")

    def progress(self, now_s: float) -> dict[str, float]:
        t_s = self.last_frame.t_s if self.last_frame is not None else 0.0
        running_s = now_s - self._first_sample_s if self._first_sample_s is not None else 0.0
        return progress_values(t_s, self.scenario.duration_s, running_s)

    def diagnostics(self, now_s: float) -> DiagnosticsRecord:
        frame, sc = self.last_frame, self.scenario
        progress = self.progress(now_s)
        if self.finished:
            phase = 'done: duration reached'
        elif frame is None:
            phase = 'settling the bed and the body (no sample yet)'
        else:
            phase = 'running'
        values = {
            'terrain': 'dem',
            'backend': sc.backend,
            'scenario': sc.name,
            'sim_time_s': f'{frame.t_s if frame else 0.0:.4f}',
            'duration_s': f'{sc.duration_s:g}',
            'progress_percent': f"{progress['progress_percent']:.1f}",
            'eta_s': f"{progress['eta_s']:.0f}",
            'real_time_factor': f"{progress['real_time_factor']:.2g}",
            'wall_elapsed_s': f'{now_s - self.started_s:.1f}',
            'samples_published': str(self.published),
            'time_step_s': f'{sc.dt_s:.3g}',
            'sinkage_m': f'{frame.sinkage_m:.4f}' if frame else 'nan',
        }
        return DiagnosticsRecord(round(frame.t_s * 1e9) if frame else 0, phase, values)
