#!/usr/bin/env python3
"""Per-message cost of the odometry node's hot paths; prints figures, asserts nothing.

Measures (median of repeated runs, wall time per message on this machine):
  library:  IMU union (gyro/accel push), clock mapping, SLAM pose -> odom estimate, TUM line parse
  node:     the node's own callbacks driven in-process, publishing for real (rclpy, no subscriber):
            gyro frame -> imu/data, accel frame, 640x480 color + depth frame -> image + camera_info,
            PoseStamped -> odom
and the resulting share of one core at 400 Hz gyro + 250 Hz accel + 30 Hz poses + 2 x 30 Hz images.
  stop:     wall time from SIGINT/SIGTERM to process exit of the node started as a process, per mode
            (SLAM topic; use_sim_time with /clock silent; recording streaming + trajectory replay;
            camera missing and retrying), next to a bare rclpy node on the same ros_entry plumbing
            measured in the same run (the ratio is node / bare).

  python scripts/bench/odometry_bench.py [--seconds 1.0] [--stop-repeats 3 | --stop-repeats 0]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
for package in ('cobra_odometry', 'cobra_description', 'cobra_common'):
    sys.path.insert(0, str(REPO / 'src' / package))
# DDS discovery stays on loopback in an own domain (project rule for benchmarks)
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
os.environ.setdefault('ROS_DOMAIN_ID', '87')
os.environ.setdefault('ROS_LOG_DIR', tempfile.mkdtemp(prefix='odometry_bench_log_'))

import numpy as np  # noqa: E402

from cobra_odometry.clock_mapping import DeviceClockMapper  # noqa: E402
from cobra_odometry.imu_interpolation import ImuUniter  # noqa: E402
from cobra_odometry.pose_tracking import OdometryEstimator  # noqa: E402
from cobra_odometry.realsense_source import ImageFrame, Intrinsics, MotionFrame  # noqa: E402
from cobra_odometry.synthetic import SlamScenario, slam_samples  # noqa: E402
from cobra_odometry.trajectory_formats import LineParser, format_tum_line  # noqa: E402
from cobra_odometry.transforms import CameraToBase, optical_frame_of, pose_matrix  # noqa: E402

RATES_HZ = {'gyro': 400, 'accel': 250, 'pose': 30, 'color': 30, 'depth': 30}


def per_call_us(make_calls: Callable[[], Callable[[int], None]], seconds: float, repeats: int = 5) -> float:
    """Median over `repeats` runs of the mean wall time per call [µs]."""
    results = []
    for _ in range(repeats):
        call = make_calls()
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / repeats:
            for _ in range(50):
                call(count)
                count += 1
        results.append((time.perf_counter() - start) / count * 1e6)
    return statistics.median(results)


def library_figures(seconds: float) -> dict[str, float]:
    extrinsic = optical_frame_of(pose_matrix(np.array([0.1, 0.0, 0.05]), np.array([0, 0, 0, 1.0])))
    samples, _ = slam_samples(SlamScenario(duration_s=60.0, position_noise_m=0.002), extrinsic)
    poses = [pose_matrix(s.position, s.quaternion_xyzw) for s in samples]
    lines = [format_tum_line(s) for s in samples]

    def uniter_calls() -> Callable[[int], None]:
        uniter = ImuUniter()

        def call(i: int) -> None:  # 400 Hz gyro with an accel sample every 1.6 gyro samples
            t = i / 400.0
            uniter.push_gyro(t, (0.1, 0.2, 0.3))
            if i % 8 in (0, 2, 3, 5, 6):
                uniter.push_accel(t + 1e-4, (0.0, -9.81, 0.1))
        return call

    def clock_calls() -> Callable[[int], None]:
        mapper = DeviceClockMapper()

        def call(i: int) -> None:
            d = i / 400.0
            mapper.observe(d, d + 5.0 + 0.002 * (i % 7))
            mapper.to_ros(d)
        return call

    def estimator_calls() -> Callable[[int], None]:
        estimator = OdometryEstimator(CameraToBase(extrinsic))
        stamps = [s.stamp_s for s in samples]
        period = stamps[-1] - stamps[0] + 1.0

        def call(i: int) -> None:
            n = i % len(poses)
            estimator.update_pose(stamps[n] + period * (i // len(poses)), poses[n])
        return call

    def parse_calls() -> Callable[[int], None]:
        parser = LineParser('tum')
        return lambda i: parser.parse(lines[i % len(lines)])

    return {
        'gyro push incl. its share of accel (ImuUniter)': per_call_us(uniter_calls, seconds),
        'clock mapping observe + to_ros': per_call_us(clock_calls, seconds),
        'SLAM pose -> odom estimate (OdometryEstimator)': per_call_us(estimator_calls, seconds),
        'TUM line parse': per_call_us(parse_calls, seconds),
    }


def node_figures(seconds: float) -> dict[str, float]:
    import rclpy
    from geometry_msgs.msg import PoseStamped
    from rclpy.parameter import Parameter

    from cobra_odometry.odometry_node import OdometryNode
    rclpy.init(args=['--ros-args', '-p', 'device:=/nonexistent/bench.db3', '-p', 'wait_for_device:=true',
                     '-p', 'retry_initial_s:=60.0', '-p', 'retry_max_s:=60.0'])
    node = OdometryNode()
    node.set_parameters([Parameter('max_linear_speed_m_s', value=1000.0)])
    try:
        # what _open_camera sets up, without a device: the callbacks below are the real ones
        node._source = None
        node._uniter = ImuUniter()
        node._device_clock = DeviceClockMapper()
        from cobra_odometry.clock_mapping import MonotonicGate
        node._gates = {'imu': MonotonicGate(), 'color': MonotonicGate(), 'depth': MonotonicGate()}
        node._camera_info_cache = {}
        intrinsics = Intrinsics(600.0, 600.0, 320.0, 240.0, 'plumb_bob', (0.0,) * 5)
        color = bytes(640 * 480 * 3)
        depth = bytes(640 * 480 * 2)
        clock = {'t': 0.0}

        def gyro_calls() -> Callable[[int], None]:
            def call(i: int) -> None:
                clock['t'] += 1 / 400.0
                node._on_motion(MotionFrame('gyro', clock['t'], (0.1, 0.2, 0.3)))
                if i % 8 in (0, 2, 3, 5, 6):
                    node._on_motion(MotionFrame('accel', clock['t'] + 1e-4, (0.0, -9.81, 0.1)))
            return call

        def image_calls(stream: str, data: bytes, encoding: str, step: int) -> Callable[[], Callable[[int], None]]:
            def make() -> Callable[[int], None]:
                def call(i: int) -> None:
                    clock['t'] += 1e-4
                    node._on_image(ImageFrame(stream, clock['t'], 640, 480, step, encoding, data, intrinsics))
                return call
            return make

        pose_count = {'n': 0}  # stamps keep increasing across repeats

        def pose_calls() -> Callable[[int], None]:
            message = PoseStamped()
            message.pose.orientation.w = 1.0

            def call(i: int) -> None:
                n = pose_count['n'] = pose_count['n'] + 1
                message.header.stamp.sec, message.header.stamp.nanosec = 1000 + n // 30, (n % 30) * 33_000_000
                message.pose.position.z = n * 1e-3
                node._on_pose_message(message)
            return call

        return {
            'gyro frame -> imu/data published (incl. accel share)': per_call_us(gyro_calls, seconds),
            'color 640x480 rgb8 -> image + camera_info published': per_call_us(
                image_calls('color', color, 'rgb8', 640 * 3), seconds),
            'depth 640x480 16UC1 -> image + camera_info published': per_call_us(
                image_calls('depth', depth, '16UC1', 640 * 2), seconds),
            'PoseStamped -> odom published': per_call_us(pose_calls, seconds),
        }
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


BARE_NODE = """
import rclpy.node
from cobra_common.ros_entry import run_node
class Bare(rclpy.node.Node):
    def __init__(self):
        super().__init__('bare')
        self.get_logger().info('bare node spinning')
raise SystemExit(run_node(Bare))
"""


def _stop_seconds(command: list[str], ready: str, stop_signal: int, settle_s: float, env: dict[str, str]) -> float:
    """Start a node, wait for `ready` in its output (+ settle_s), signal it, time until it exits."""
    with tempfile.TemporaryFile('w+') as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            deadline = time.monotonic() + 60.0
            while True:
                log.seek(0)
                if ready in log.read():
                    break
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(f'{command} did not get ready:\n{log.read()[-2000:]}')
                time.sleep(0.05)
            time.sleep(settle_s)
            start = time.monotonic()
            os.killpg(process.pid, stop_signal)
            code = process.wait(timeout=30.0)
            elapsed_s = time.monotonic() - start
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        if code != 0:
            log.seek(0)
            raise RuntimeError(f'{command} exited {code}:\n{log.read()[-2000:]}')
        return elapsed_s


def stop_figures(repeats: int) -> dict[str, tuple[float, float]]:
    """Median and max signal-to-exit time [s] per mode."""
    from cobra_description.robot_model import load_robot_model
    from cobra_odometry.realsense_recording import SyntheticRecording, write_synthetic_recording
    from cobra_odometry.trajectory_formats import write_trajectory

    work = Path(tempfile.mkdtemp(prefix='odometry_bench_stop_'))
    recording = work / 'synthetic_d435i.db3'
    write_synthetic_recording(recording, SyntheticRecording(duration_s=20.0))
    samples, _ = slam_samples(SlamScenario(duration_s=20.0), optical_frame_of(
        load_robot_model().transform('base_link', 'camera_link')))
    trajectory = work / 'CameraTrajectory.txt'
    write_trajectory(trajectory, samples, 'tum')
    env = {**os.environ, 'PYTHONPATH': os.pathsep.join(
        [str(REPO / 'src' / name) for name in ('cobra_odometry', 'cobra_description', 'cobra_common')]
        + [os.environ.get('PYTHONPATH', '')])}
    node = [sys.executable, '-m', 'cobra_odometry.odometry_node', '--ros-args']
    size = ['-p', 'color_width:=64', '-p', 'color_height:=48', '-p', 'depth_width:=64', '-p', 'depth_height:=48']
    modes = {
        'bare rclpy node (ros_entry.run_node), SIGINT': (
            [sys.executable, '-c', BARE_NODE], 'bare node spinning', signal.SIGINT),
        'SLAM topic, camera off, SIGINT': (
            node + ['-p', 'camera_enabled:=false'], 'odom from topic', signal.SIGINT),
        'use_sim_time, /clock silent, SIGTERM': (
            node + ['-p', 'camera_enabled:=false', '-p', 'use_sim_time:=true'], 'odom from topic', signal.SIGTERM),
        'recording streaming + trajectory replay, SIGINT': (
            node + ['-p', f'device:={recording}', *size, '-p', 'pose_source:=file',
                    '-p', f'trajectory_file:={trajectory}', '-p', 'trajectory_mode:=replay',
                    '-p', 'replay_wait_for_subscriber:=false'], 'RealSense streaming', signal.SIGINT),
        'camera missing, retrying every 0.1 s, SIGTERM': (
            node + ['-p', f'device:={work / "absent.db3"}', '-p', 'wait_for_device:=true',
                    '-p', 'retry_initial_s:=0.1', '-p', 'retry_max_s:=0.1', '-p', 'pose_source:=none'],
            'retrying in', signal.SIGTERM),
    }
    figures = {}
    for name, (command, ready, stop_signal) in modes.items():
        times = [_stop_seconds(command, ready, stop_signal, 1.0, env) for _ in range(repeats)]
        figures[name] = (statistics.median(times), max(times))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description='odometry hot-path cost per message')
    parser.add_argument('--seconds', type=float, default=1.0, help='measuring time per figure [s]')
    parser.add_argument('--stop-repeats', type=int, default=3,
                        help='signal-to-exit runs per mode (0 = skip the stop figures)')
    args = parser.parse_args()
    print('library hot paths (µs per message):')
    for name, value in library_figures(args.seconds).items():
        print(f'  {name:55s} {value:8.1f}')
    node = node_figures(args.seconds)
    print('node callbacks, publishing with rclpy (µs per message):')
    for name, value in node.items():
        print(f'  {name:55s} {value:8.1f}')
    values = list(node.values())
    load_us_per_s = (RATES_HZ['gyro'] * values[0] + RATES_HZ['color'] * values[1]
                     + RATES_HZ['depth'] * values[2] + RATES_HZ['pose'] * values[3])
    print(f'one-core share at 400 Hz gyro (+250 Hz accel), 30 Hz color, 30 Hz depth, 30 Hz poses: '
          f'{load_us_per_s / 1e4:.1f} %')
    if args.stop_repeats > 0:
        figures = stop_figures(args.stop_repeats)
        bare_s = next(iter(figures.values()))[0]
        print(f'signal -> process exit (s, median / max of {args.stop_repeats}; ratio = median / bare median):')
        for name, (median_s, max_s) in figures.items():
            print(f'  {name:55s} {median_s:6.3f} / {max_s:6.3f}   {median_s / bare_s:5.2f}x')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
