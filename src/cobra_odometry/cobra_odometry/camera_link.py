"""The RealSense connection without rclpy: open, lose and reopen the camera, and its frames as records.

A USB device can take seconds to open or close: in the executor that would hold up the node's
other callbacks and its stop after SIGINT, so opening and closing run on a daemon worker thread,
started by `watchdog` when cobra_odometry.camera_reconnect says so (a reopen is due, or the
camera went silent for frame_timeout_s). Frames arrive on librealsense's threads: IMU samples are
united (gyro + interpolated accel), mapped from the device clock to the node's clock and gated to
be monotonic, then handed to `on_imu` / `on_image` as plain records; the node converts them to
messages. `stop` closes the camera for shutdown and waits (boundedly) for the worker; an open still
under way closes its device when it returns.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cobra_odometry.camera_reconnect import CameraAction, CameraReconnect, CameraState, ReconnectPolicy
from cobra_odometry.clock_mapping import DeviceClockMapper, MonotonicGate
from cobra_odometry.imu_interpolation import ImuUniter
from cobra_odometry.realsense_source import (DeviceNotFoundError, ImageFrame, MotionFrame, RealSenseSource,
                                             StreamConfig, StreamSelectionError, is_recording)

OK, WARN, ERROR = 'ok', 'warn', 'error'  # camera status levels (the node maps them to diagnostics)
STOP_WAIT_S = 0.5  # longest wait in stop() for the worker's open or close (the node stops within 1 s)


@dataclass(frozen=True)
class ImuRecord:
    stamp_s: float                  # node clock
    angular_velocity: np.ndarray    # [rad/s], IMU optical frame
    linear_acceleration: np.ndarray  # [m/s^2]


@dataclass(frozen=True)
class ImageRecord:
    stamp_s: float    # node clock
    frame: ImageFrame
    opening: int      # which open of the device it came from (its intrinsics may differ)


Event = Callable[[str, str, str], None]  # kind, level (info | warn | error), message


class CameraLink:
    """The camera's life: `open_now` at start-up, then `watchdog` every period, `stop` at the end."""

    def __init__(self, device: str, config: StreamConfig, policy: ReconnectPolicy, *, playback_real_time: bool,
                 max_accel_gap_s: float, image_streams: set[str], now_s: Callable[[], float],
                 on_imu: Callable[[ImuRecord], None], on_image: Callable[[ImageRecord], None], on_event: Event,
                 log: Callable[[str], None], open_source: Callable[..., Any] = RealSenseSource) -> None:
        self.device = device
        self._config = config
        self.reconnect = CameraReconnect(policy)
        # a recording played faster than real time keeps its own time base (first frame = now)
        self._fixed_offset = is_recording(device) and not playback_real_time
        self._max_accel_gap_s = max_accel_gap_s
        self._image_streams = image_streams
        self._now_s, self._on_imu, self._on_image = now_s, on_imu, on_image
        self._on_event, self._log, self._open_source = on_event, log, open_source
        self.status: tuple[str, str] = (ERROR, 'not opened yet')
        self.source: Any = None
        self.opening = 0
        self._source_lock = threading.Lock()  # device open/close/replace; frame callbacks never take it
        self._frame_lock = threading.Lock()   # frame callbacks: IMU union, clock mapping, gates
        self._stopping = False
        self._worker: threading.Thread | None = None
        self.uniter = ImuUniter(max_accel_gap_s=max_accel_gap_s)
        self.device_clock = DeviceClockMapper()
        self._gates: dict[str, MonotonicGate] = {}

    def open_now(self) -> None:
        """Open the device and start streaming (blocks while librealsense finds and starts it);
        raises DeviceNotFoundError, StreamSelectionError or RuntimeError."""
        with self._frame_lock:
            self.uniter = ImuUniter(max_accel_gap_s=self._max_accel_gap_s)
            self.device_clock = (DeviceClockMapper(max_slew=0.0, settle_slew=0.0, reanchor_threshold_s=math.inf)
                                 if self._fixed_offset else DeviceClockMapper())
            self._gates = {'imu': MonotonicGate(), 'color': MonotonicGate(), 'depth': MonotonicGate()}
            self.opening += 1
        source = self._open_source(self.device, self._config, self._on_motion, self._on_image_frame)
        try:
            description = source.open()
        except BaseException:
            source.close()  # sensors already started before the failure
            raise
        with self._source_lock:
            accepted = not self._stopping
            if accepted:
                self.source = source
                self.reconnect.opened(time.monotonic())
                self.status = (OK, description)
        if not accepted:
            source.close()  # the node is shutting down: this open came too late
            return
        self._log(f'RealSense streaming: {description}')

    def failed(self, reason: str) -> None:
        delay_s = self.reconnect.failed(time.monotonic())
        self.status = (ERROR, reason)
        self._on_event('camera', 'error', f'RealSense: {reason}; retrying in {delay_s:.1f} s')

    def watchdog(self, now_s: float | None = None) -> None:
        """Decide what the camera needs; opening and closing run on the worker thread."""
        if self._worker is not None and self._worker.is_alive():
            return
        now_s = time.monotonic() if now_s is None else now_s
        source = self.source
        if (source is not None and self.reconnect.state is CameraState.STREAMING
                and source.playback_finished and self.reconnect.playback_finished()):
            self.status = (WARN, f'playback of {self.device} finished')
            self._on_event('camera', 'info', self.status[1])
        action = self.reconnect.poll(now_s)
        if action is not CameraAction.NONE and not self._stopping:
            self._worker = threading.Thread(target=self._run_action, args=(action, now_s),
                                            name='camera_reconnect', daemon=True)
            self._worker.start()

    def _run_action(self, action: CameraAction, now_s: float) -> None:
        if action is CameraAction.CLOSE_LOST:
            silence_s = self.reconnect.silence_s(now_s)
            with self._source_lock:
                source, self.source = self.source, None
            if source is not None:
                source.close()
            if not self._stopping:
                self.failed(f'no IMU frame for {silence_s:.1f} s (camera unplugged or USB reset)')
            return
        try:
            self.open_now()
        except (DeviceNotFoundError, StreamSelectionError, RuntimeError) as error:
            if not self._stopping:
                self.failed(str(error))

    def stop(self) -> None:
        """Close the camera for shutdown; an open still under way closes its device when it returns.
        Waits up to STOP_WAIT_S for an open or close on the worker thread: a process that exits while
        that thread is inside librealsense tears the library down under it (C++ aborts at exit)."""
        with self._source_lock:
            self._stopping = True
            source, self.source = self.source, None
        if source is not None:
            source.close()
        worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(STOP_WAIT_S)

    def _on_motion(self, frame: MotionFrame) -> None:
        received_s = self._now_s()
        self.reconnect.frame_received(time.monotonic())
        with self._frame_lock:
            self.device_clock.observe(frame.device_stamp_s, received_s)
            if frame.kind == 'gyro':
                samples = self.uniter.push_gyro(frame.device_stamp_s, frame.xyz)
            else:
                samples = self.uniter.push_accel(frame.device_stamp_s, frame.xyz)
            for sample in samples:
                stamp_s = self.device_clock.to_ros(sample.stamp_s)
                if self._gates['imu'].accept(stamp_s):
                    self._on_imu(ImuRecord(stamp_s, sample.angular_velocity, sample.linear_acceleration))

    def _on_image_frame(self, frame: ImageFrame) -> None:
        received_s = self._now_s()
        if frame.stream not in self._image_streams:
            return
        with self._frame_lock:
            self.device_clock.observe(frame.device_stamp_s, received_s)
            stamp_s = self.device_clock.to_ros(frame.device_stamp_s)
            if not self._gates[frame.stream].accept(stamp_s):
                return
            opening = self.opening
        self._on_image(ImageRecord(stamp_s, frame, opening))
