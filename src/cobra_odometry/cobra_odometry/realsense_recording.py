"""Writes a synthetic D435i recording with pyrealsense2's software device and recorder.

Used by the tests (and handy for demos without a camera): gyro, accel, color and depth streams
with known content, so a playback through the node can be checked sample by sample.
librealsense 2.59's recorder only writes rosbag2 SQLite files, so `path` must end in `.db3`.
The recorder stores each frame with its arrival (system) time and real-time playback replays
that timing, hence frames are pushed paced at their nominal rate (`pace=True`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

Signal = Callable[[float], tuple[float, float, float]]


def default_gyro(t_s: float) -> tuple[float, float, float]:
    return (0.1 * np.sin(2.0 * t_s), 0.2, -0.05 * t_s)


def default_accel(t_s: float) -> tuple[float, float, float]:
    # linear in t so that linear interpolation onto gyro stamps is exact
    return (0.5 + 0.3 * t_s, -9.81, 0.2 - 0.1 * t_s)


@dataclass(frozen=True)
class SyntheticRecording:
    duration_s: float = 1.5
    gyro_hz: int = 200
    accel_hz: int = 63
    color_size: tuple[int, int, int] = (64, 48, 30)  # width, height, fps
    depth_size: tuple[int, int, int] = (64, 48, 30)
    device_start_s: float = 1000.0
    serial: str = '000000000042'


def _intrinsics(rs, width: int, height: int):
    intrinsics = rs.intrinsics()
    intrinsics.width, intrinsics.height = width, height
    intrinsics.ppx, intrinsics.ppy = width / 2, height / 2
    intrinsics.fx = intrinsics.fy = float(width)
    intrinsics.model = rs.distortion.brown_conrady
    intrinsics.coeffs = [0.0] * 5
    return intrinsics


def _video_stream(rs, stream, uid: int, size: tuple[int, int, int], fmt, bpp: int):
    width, height, fps = size
    spec = rs.video_stream()
    spec.type, spec.index, spec.uid = stream, 0, uid
    spec.width, spec.height, spec.fps, spec.bpp, spec.fmt = width, height, fps, bpp, fmt
    spec.intrinsics = _intrinsics(rs, width, height)
    return spec


def write_synthetic_recording(path: str | Path, spec: SyntheticRecording = SyntheticRecording(),
                              gyro: Signal = default_gyro, accel: Signal = default_accel,
                              pace: bool = True) -> None:
    """Record `spec.duration_s` of synthetic D435i data to `path` (.db3)."""
    import pyrealsense2 as rs
    if not str(path).endswith('.db3'):
        raise ValueError(f'{path}: librealsense 2.59 records only to .db3 (rosbag2 SQLite) files')
    device = rs.software_device()
    device.register_info(rs.camera_info.name, 'Intel RealSense D435I (synthetic)')
    device.register_info(rs.camera_info.serial_number, spec.serial)
    motion = device.add_sensor('Motion Module')
    motion_profiles = {}
    for kind, stream, uid, fps in (('gyro', rs.stream.gyro, 1, spec.gyro_hz),
                                   ('accel', rs.stream.accel, 2, spec.accel_hz)):
        stream_spec = rs.motion_stream()
        stream_spec.type, stream_spec.index, stream_spec.uid = stream, 0, uid
        stream_spec.fps, stream_spec.fmt = fps, rs.format.motion_xyz32f
        motion_profiles[kind] = motion.add_motion_stream(stream_spec).as_motion_stream_profile()
    depth_sensor = device.add_sensor('Stereo Module')
    depth_profile = depth_sensor.add_video_stream(
        _video_stream(rs, rs.stream.depth, 3, spec.depth_size, rs.format.z16, 2)).as_video_stream_profile()
    depth_sensor.add_read_only_option(rs.option.depth_units, 0.001)
    color_sensor = device.add_sensor('RGB Camera')
    color_profile = color_sensor.add_video_stream(
        _video_stream(rs, rs.stream.color, 4, spec.color_size, rs.format.rgb8, 3)).as_video_stream_profile()

    events: list[tuple[float, str, int]] = []
    for kind, rate in (('gyro', spec.gyro_hz), ('accel', spec.accel_hz),
                       ('color', spec.color_size[2]), ('depth', spec.depth_size[2])):
        period = 1.0 / rate
        events += [(i * period, kind, i) for i in range(int(spec.duration_s * rate))]
    events.sort()

    recorder = rs.recorder(str(path), device)
    sensors = recorder.query_sensors()
    for sensor in sensors:
        sensor.open(sensor.get_stream_profiles())
        sensor.start(lambda frame: None)
    wall_start = time.monotonic()
    for t_s, kind, index in events:
        if pace:
            delay = t_s - (time.monotonic() - wall_start)
            if delay > 0:
                time.sleep(delay)
        stamp_ms = (spec.device_start_s + t_s) * 1e3
        if kind in ('gyro', 'accel'):
            frame = rs.software_motion_frame()
            vector = rs.vector()
            vector.x, vector.y, vector.z = (gyro if kind == 'gyro' else accel)(t_s)
            frame.data, frame.profile = vector, motion_profiles[kind]
            frame.timestamp, frame.domain, frame.frame_number = stamp_ms, rs.timestamp_domain.hardware_clock, index
            motion.on_motion_frame(frame)
        else:
            profile = color_profile if kind == 'color' else depth_profile
            width, height, _ = spec.color_size if kind == 'color' else spec.depth_size
            if kind == 'color':
                pixels = np.full((height, width, 3), index % 256, np.uint8)
            else:
                pixels = np.full((height, width), 1000 + index, np.uint16)
            frame = rs.software_video_frame()
            frame.pixels, frame.profile = pixels, profile
            frame.bpp, frame.stride = pixels.itemsize * (3 if kind == 'color' else 1), pixels.strides[0]
            frame.timestamp, frame.domain, frame.frame_number = stamp_ms, rs.timestamp_domain.hardware_clock, index
            (color_sensor if kind == 'color' else depth_sensor).on_video_frame(frame)
    for sensor in sensors:
        sensor.stop()
        sensor.close()
    del recorder  # the file is finalised when the recorder is destroyed
