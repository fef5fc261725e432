"""dem_publisher: the DEM node's core, with a fake engine (no rclpy, no LAMMPS): frames become
records in order once the peers are present, diagnostics say the phase, the run ends exhausted."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import yaml

from cobra_dem.dem_publisher import FRAMES_PER_ROUND, ODOM_POSE_COVARIANCE, DemPublisher
from cobra_dem.ros_mode import BodyFields, DemFrame, SurfaceHeightmap
from cobra_dem.scenario import scenario_from_dict

SCENARIO = scenario_from_dict(yaml.safe_load(
    (Path(__file__).parent / 'data' / 'dem_tiny.yaml').read_text())).validate()


def frame(t_s: float, heightmap: bool = False) -> DemFrame:
    body = BodyFields(t_s, np.array([t_s, 0.0, 0.05]), np.array([0.0, 0.0, 0.0, 1.0]), np.array([0.1, 0, 0]),
                      np.zeros(3), np.array([0.0, 0.0, 9.8]), np.zeros(3))
    one = np.array([0.0])
    surface = SurfaceHeightmap(one, one, one, one, one) if heightmap else None
    return DemFrame(t_s, body, 0.002, surface, False)


class FakeSource:
    def __init__(self, frames: list[DemFrame]) -> None:
        self.frames = frames
        self.ended = False

    def take(self, max_frames: int) -> list[DemFrame]:
        taken, self.frames = self.frames[:max_frames], self.frames[max_frames:]
        return taken

    @property
    def exhausted(self) -> bool:
        return self.ended and not self.frames


def test_frames_wait_for_the_peers_then_become_records_in_order_and_the_run_ends():
    source = FakeSource([frame(0.0, heightmap=True), frame(0.01)])
    core = DemPublisher(SCENARIO, lambda: source, wait_for_peers_s=5.0)
    missing = ['odom']
    first = core.step(100.0, lambda: missing)
    assert first.samples == [] and first.diagnostics is not None
    assert first.diagnostics.message == 'settling the bed and the body (no sample yet)'
    missing.clear()
    out = core.step(100.1, lambda: missing)
    assert [body.stamp_ns for body, _ in out.samples] == [0, 10_000_000]
    body, heightmap = out.samples[0]
    assert body.position_m == (0.0, 0.0, 0.05) and body.force_n == (0.0, 0.0, 9.8)
    assert heightmap is not None and heightmap.count == 1 and len(heightmap.data) == 20
    assert out.samples[1][1] is None
    assert out.logs == ['first DEM sample: publishing'] and out.progress.startswith('t = 0.010 / ')
    assert not core.finished and out.diagnostics is None  # the next diagnostics are 1 s of wall away
    source.ended = True
    last = core.step(100.2, lambda: missing)
    assert core.finished and last.samples == []
    assert last.diagnostics.message == 'done: duration reached'
    assert last.diagnostics.values['samples_published'] == '2'
    assert last.diagnostics.stamp_ns == 10_000_000
    assert last.logs[-1].startswith('reached duration_s = ')


def test_a_missing_peer_is_given_up_on_at_the_timeout_with_a_warning():
    core = DemPublisher(SCENARIO, lambda: FakeSource([frame(0.0)]), wait_for_peers_s=2.0)
    assert core.step(0.0, lambda: ['odom']).samples == []
    out = core.step(2.0, lambda: ['odom'])
    assert out.warnings == ['gave up waiting for subscribers on odom: starting']
    assert len(out.samples) == 1


def test_a_round_publishes_at_most_frames_per_round():
    source = FakeSource([frame(i * 0.01) for i in range(FRAMES_PER_ROUND + 5)])
    core = DemPublisher(SCENARIO, lambda: source, wait_for_peers_s=0.0)
    assert len(core.step(0.0, lambda: []).samples) == FRAMES_PER_ROUND
    assert len(core.step(0.1, lambda: []).samples) == 5


def test_odom_covariance_is_the_sims_floor():
    covariance = np.array(ODOM_POSE_COVARIANCE).reshape(6, 6)
    assert np.array_equal(np.diag(covariance), [1e-6] * 3 + [1e-4] * 3)
    assert np.count_nonzero(covariance) == 6
