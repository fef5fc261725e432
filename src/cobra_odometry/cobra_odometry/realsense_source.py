"""RealSense D435i (or a recording of one) as plain-Python motion and image frames.

No rclpy here: the node converts these frames to messages. Frames arrive on librealsense's own
threads (one per sensor), through the callbacks given to `RealSenseSource`; they are copied out
of librealsense's buffers before the callback returns.

`device` selects the source: '' = the first RealSense found, a serial number = that camera, a
path to an existing file = playback of a RealSense recording. librealsense 2.59 writes
recordings as rosbag2 SQLite (`.db3`; its recorder refuses other extensions); older `.bag`
(ROS 1) recordings play back if the installed librealsense still reads them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

GYRO_RATES_HZ = (200, 400)  # D435i (BMI055)
ACCEL_RATES_HZ = (63, 250)
ENCODINGS = {'rgb8': 'rgb8', 'bgr8': 'bgr8', 'rgba8': 'rgba8', 'bgra8': 'bgra8',
             'y8': 'mono8', 'y16': 'mono16', 'z16': '16UC1'}
DISTORTION_MODELS = {'brown_conrady': 'plumb_bob', 'inverse_brown_conrady': 'plumb_bob',
                     'modified_brown_conrady': 'plumb_bob', 'none': 'plumb_bob',
                     'kannala_brandt4': 'equidistant'}


class DeviceNotFoundError(RuntimeError):
    """No camera / recording matching the `device` parameter."""


class StreamSelectionError(RuntimeError):
    """The camera or recording does not offer the configured stream modes."""


class RealSenseLibraryError(RuntimeError):
    """pyrealsense2 is not installed or cannot load its native libraries (libusb)."""


def import_pyrealsense2():  # -> the pyrealsense2 module (untyped C extension)
    """pyrealsense2, or one RealSenseLibraryError that says what to install: without Debian's
    libusb-1.0-0 its import fails with a bare ImportError deep in the node's start."""
    try:
        import pyrealsense2
    except ImportError as error:
        fix = ("install Debian's libusb-1.0-0 (apt-get install libusb-1.0-0)" if 'libusb' in str(error)
               else 'install the pinned pyrealsense2 (requirements/robot.txt; scripts/setup.sh does)')
        raise RealSenseLibraryError(f'pyrealsense2 cannot be loaded ({error}): {fix}') from None
    return pyrealsense2


@dataclass(frozen=True)
class StreamConfig:
    gyro_fps: int = 200
    accel_fps: int = 63
    enable_color: bool = True
    color_width: int = 640
    color_height: int = 480
    color_fps: int = 30
    enable_depth: bool = True
    depth_width: int = 640
    depth_height: int = 480
    depth_fps: int = 30
    global_time: bool = True
    playback_real_time: bool = True


@dataclass(frozen=True)
class MotionFrame:
    kind: str  # 'gyro' | 'accel'
    device_stamp_s: float
    xyz: tuple[float, float, float]  # rad/s or m/s^2, in the IMU optical frame


@dataclass(frozen=True)
class Intrinsics:
    fx: float
    fy: float
    ppx: float
    ppy: float
    distortion_model: str  # ROS name (plumb_bob, equidistant)
    coefficients: tuple[float, ...]


@dataclass(frozen=True)
class ImageFrame:
    stream: str  # 'color' | 'depth'
    device_stamp_s: float
    width: int
    height: int
    step: int
    encoding: str  # ROS sensor_msgs encoding
    data: bytes
    intrinsics: Intrinsics


def is_recording(device: str) -> bool:
    return bool(device) and (os.path.isfile(device) or device.endswith(('.bag', '.db3')))


class RealSenseSource:
    def __init__(self, device: str, config: StreamConfig,
                 on_motion: Callable[[MotionFrame], None],
                 on_image: Callable[[ImageFrame], None]) -> None:
        self.device = device
        self.config = config
        self._on_motion = on_motion
        self._on_image = on_image
        self._sensors: list = []
        self._device = None
        self._playback = None
        self.description = ''

    def open(self) -> str:
        """Find the device, open the configured streams and start delivering frames."""
        rs = import_pyrealsense2()
        context = rs.context()
        if is_recording(self.device):
            if not os.path.isfile(self.device):
                raise DeviceNotFoundError(f"recording '{self.device}' does not exist: pass an "
                                          'existing RealSense recording (device:=/path/file.db3)')
            device = context.load_device(self.device)
            self._playback = device.as_playback()
            self._playback.set_real_time(self.config.playback_real_time)
            strict = False
        else:
            devices = list(context.query_devices())
            serials = [d.get_info(rs.camera_info.serial_number) for d in devices]
            if not devices:
                raise DeviceNotFoundError(
                    'no RealSense camera found: plug in the D435i (USB 3), check `lsusb` for '
                    '8086:0b3a and the udev rules, or pass device:=<recording.db3>')
            if self.device and self.device not in serials:
                raise DeviceNotFoundError(f"no RealSense with serial '{self.device}' "
                                          f'(connected: {serials}): fix device:=<serial>')
            device = devices[serials.index(self.device) if self.device else 0]
            strict = True
        self._device = device
        selections = select_profiles(device, self.config, strict)
        for sensor, profiles in selections:
            if sensor.supports(rs.option.global_time_enabled) and self._playback is None:
                sensor.set_option(rs.option.global_time_enabled, 1.0 if self.config.global_time else 0.0)
            sensor.open(profiles)
            sensor.start(self._dispatch)
            self._sensors.append(sensor)
        name = device.get_info(rs.camera_info.name) if device.supports(rs.camera_info.name) else '?'
        serial = (device.get_info(rs.camera_info.serial_number)
                  if device.supports(rs.camera_info.serial_number) else '?')
        streams = ', '.join(str(p) for _, ps in selections for p in ps)
        self.description = (f"{name} serial {serial}"
                            f"{' (playback of ' + self.device + ')' if self._playback else ''}: {streams}")
        return self.description

    @property
    def playback_finished(self) -> bool:
        if self._playback is None:
            return False
        import pyrealsense2 as rs
        return self._playback.current_status() == rs.playback_status.stopped

    def close(self) -> None:
        for sensor in self._sensors:
            for action in (sensor.stop, sensor.close):
                try:
                    action()
                except RuntimeError:
                    pass  # already stopped, or the device is gone
        self._sensors.clear()
        self._device = None
        self._playback = None

    def _dispatch(self, frame) -> None:
        try:
            if frame.is_motion_frame():
                data = frame.as_motion_frame().get_motion_data()
                kind = 'gyro' if frame.get_profile().stream_name().lower().startswith('gyro') else 'accel'
                self._on_motion(MotionFrame(kind, frame.get_timestamp() * 1e-3, (data.x, data.y, data.z)))
            elif frame.is_video_frame():
                self._on_image(_image_frame(frame))
        except Exception as error:  # noqa: BLE001 - an exception must not kill librealsense's thread
            print(f'[cobra_odometry] dropped a RealSense frame: {error!r}', flush=True)


def _image_frame(frame) -> ImageFrame:
    video = frame.as_video_frame()
    profile = video.get_profile().as_video_stream_profile()
    fmt = str(profile.format()).split('.')[-1]
    encoding = ENCODINGS.get(fmt)
    if encoding is None:
        raise StreamSelectionError(f'unsupported RealSense pixel format {fmt}')
    intr = profile.get_intrinsics()
    model = str(intr.model).split('.')[-1]
    stream = 'depth' if encoding == '16UC1' else 'color'
    return ImageFrame(stream, video.get_timestamp() * 1e-3, video.get_width(), video.get_height(),
                      video.get_stride_in_bytes(), encoding, bytes(video.get_data()),
                      Intrinsics(intr.fx, intr.fy, intr.ppx, intr.ppy,
                                 DISTORTION_MODELS.get(model, 'plumb_bob'), tuple(intr.coeffs)))


def select_profiles(device, config: StreamConfig, strict: bool) -> list[tuple[object, list]]:
    """Profiles per sensor: exact modes on a camera; on a recording whatever it holds per stream."""
    import pyrealsense2 as rs
    wanted = {
        rs.stream.gyro: (None, None, config.gyro_fps, rs.format.motion_xyz32f, True),
        rs.stream.accel: (None, None, config.accel_fps, rs.format.motion_xyz32f, True),
        rs.stream.color: (config.color_width, config.color_height, config.color_fps,
                          rs.format.rgb8, config.enable_color),
        rs.stream.depth: (config.depth_width, config.depth_height, config.depth_fps,
                          rs.format.z16, config.enable_depth),
    }
    chosen: dict = {}
    offered: dict = {}
    for sensor in device.query_sensors():
        for profile in sensor.get_stream_profiles():
            stream = profile.stream_type()
            if stream not in wanted or not wanted[stream][4] or profile.stream_index() > 1:
                continue
            offered.setdefault(stream, []).append(str(profile))
            width, height, fps, fmt, _ = wanted[stream]
            matches = profile.fps() == fps and profile.format() == fmt
            if width is not None and profile.is_video_stream_profile():
                video = profile.as_video_stream_profile()
                matches = matches and video.width() == width and video.height() == height
            if matches or (not strict and stream not in chosen):
                chosen[stream] = (sensor, profile)
    missing = [s for s, spec in wanted.items() if spec[4] and s not in chosen]
    if missing:
        names = ', '.join(str(s).split('.')[-1] for s in missing)
        raise StreamSelectionError(
            f'the device offers no matching mode for {names}: offered '
            f'{ {str(k).split(".")[-1]: v[:6] for k, v in offered.items()} }; fix the *_fps / '
            f'*_width / *_height parameters (D435i gyro {GYRO_RATES_HZ} Hz, accel {ACCEL_RATES_HZ} Hz)'
            + ('' if strict else ' or disable the stream (enable_color / enable_depth)'))
    by_sensor: dict = {}
    for sensor, profile in chosen.values():
        key = sensor.get_info(rs.camera_info.name)
        by_sensor.setdefault(key, (sensor, []))[1].append(profile)
    return list(by_sensor.values())
