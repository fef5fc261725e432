"""camera_link: the RealSense connection without rclpy or a device (a fake source): records from
frames, a lost camera closed and reported, an open that returns after stop closes its device, stop
waits for the worker thread."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import numpy as np

from cobra_odometry import camera_link
from cobra_odometry.camera_link import ERROR, OK, WARN, CameraLink, ImageRecord, ImuRecord
from cobra_odometry.camera_reconnect import CameraState, ReconnectPolicy
from cobra_odometry.realsense_source import StreamConfig


class FakeSource:
    def __init__(self, device, config, on_motion, on_image, gate: threading.Event | None = None) -> None:
        self.on_motion, self.on_image, self.gate = on_motion, on_image, gate
        self.closed = False
        self.playback_finished = False

    def open(self) -> str:
        if self.gate is not None:
            self.gate.wait(30.0)
        return 'fake D435i'

    def close(self) -> None:
        self.closed = True


def link(**overrides) -> tuple[CameraLink, dict[str, list]]:
    out: dict[str, list] = {'imu': [], 'image': [], 'events': [], 'log': [], 'sources': []}

    def open_source(*args):
        source = FakeSource(*args, **overrides)
        out['sources'].append(source)
        return source
    camera = CameraLink('', StreamConfig(), ReconnectPolicy(0.5, 1.5, 2.0), playback_real_time=True,
                        max_accel_gap_s=0.1, image_streams={'color'}, now_s=time.monotonic,
                        on_imu=out['imu'].append, on_image=out['image'].append,
                        on_event=lambda *event: out['events'].append(event), log=out['log'].append,
                        open_source=open_source)
    return camera, out


def motion(kind: str, stamp_s: float, xyz) -> SimpleNamespace:
    return SimpleNamespace(kind=kind, device_stamp_s=stamp_s, xyz=np.array(xyz, dtype=float))


def test_frames_become_monotonic_records_of_the_streams_asked_for():
    camera, out = link()
    camera.open_now()
    assert camera.status == (OK, 'fake D435i') and out['log'] == ['RealSense streaming: fake D435i']
    source = out['sources'][0]
    for i in range(6):
        source.on_motion(motion('accel', 100.0 + 0.01 * i, [0.0, 0.0, 9.8]))
        source.on_motion(motion('gyro', 100.005 + 0.01 * i, [0.1, 0.0, 0.0]))
    assert out['imu'] and all(isinstance(record, ImuRecord) for record in out['imu'])
    stamps = [record.stamp_s for record in out['imu']]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
    assert np.allclose(out['imu'][-1].linear_acceleration, [0.0, 0.0, 9.8])
    image = SimpleNamespace(stream='color', device_stamp_s=100.06)
    source.on_image(image)
    source.on_image(SimpleNamespace(stream='depth', device_stamp_s=100.07))  # not asked for
    assert [record.frame for record in out['image']] == [image] and isinstance(out['image'][0], ImageRecord)
    assert out['image'][0].opening == 1


def test_a_silent_camera_is_closed_reported_and_reopened_after_the_backoff():
    camera, out = link()
    camera.open_now()
    camera.reconnect.opened(time.monotonic() - 10.0)  # streaming, but silent for 10 s
    camera.watchdog()
    camera._worker.join(30.0)
    assert out['sources'][0].closed and camera.source is None
    assert camera.status[0] == ERROR and 'no IMU frame for' in camera.status[1]
    assert out['events'][-1][:2] == ('camera', 'error') and 'retrying in 0.5 s' in out['events'][-1][2]
    camera.watchdog(camera.reconnect.next_attempt_s)
    camera._worker.join(30.0)
    assert camera.reconnect.state is CameraState.STREAMING and camera.opening == 2 and camera.source is out['sources'][1]


def test_a_finished_playback_is_reported_once():
    camera, out = link()
    camera.open_now()
    out['sources'][0].playback_finished = True
    camera.watchdog()
    camera.watchdog()
    assert camera.status[0] == WARN and 'finished' in camera.status[1]
    assert [event[2] for event in out['events']] == [camera.status[1]]


def test_an_open_that_returns_after_stop_closes_its_device():
    gate = threading.Event()
    camera, out = link(gate=gate)
    opener = threading.Thread(target=camera.open_now)
    opener.start()
    while not out['sources']:
        time.sleep(0.001)
    camera.stop()
    gate.set()
    opener.join(30.0)
    assert out['sources'][0].closed and camera.source is None and out['log'] == []


def test_stop_waits_for_an_open_on_the_worker_thread(monkeypatch):
    """A reopen in flight on the worker at SIGTERM: stop returns only once it is out of the device's
    open (which then closes the device itself), not while the thread is still inside librealsense."""
    monkeypatch.setattr(camera_link, 'STOP_WAIT_S', 30.0)   # the node's 0.5 s bound, made long to judge by
    gate = threading.Event()
    camera, out = link(gate=gate)
    camera.failed('not there yet')
    camera.watchdog(camera.reconnect.next_attempt_s)   # the reopen is due: the worker opens
    while not out['sources']:
        time.sleep(0.001)
    stopper = threading.Thread(target=camera.stop)
    stopper.start()
    stopper.join(0.5)
    assert stopper.is_alive()   # still waiting: the worker is inside open()
    gate.set()
    stopper.join(30.0)
    assert not stopper.is_alive() and not camera._worker.is_alive()
    assert out['sources'][0].closed and camera.source is None
