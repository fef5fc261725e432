#!/usr/bin/env python3
"""How many sensor_msgs/JointState messages per second the logger records without losing one.

For each target rate a fresh logger process records `joint_states` (1 s splits, so file
rotations happen during the window) while this process publishes 11-joint JointStates (reliable,
depth 1000) for --seconds; then the logger is stopped with SIGINT and its bag is counted.
Prints one line per rate and the highest loss-free rate. Run from the repository root with the
workspace venv active:  python scripts/bench/logger_bench.py
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIRS = [str(p) for p in sorted((REPO_ROOT / 'src').iterdir()) if (p / 'package.xml').exists()]


def isolated_env(domain_id: int, log_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        'ROS_AUTOMATIC_DISCOVERY_RANGE': 'LOCALHOST',
        'ROS_DOMAIN_ID': str(domain_id),
        'ROS_LOG_DIR': str(log_dir),
        'PYTHONPATH': os.pathsep.join(PACKAGE_DIRS + [os.environ.get('PYTHONPATH', '')]),
    }


def run_rate(node, rate_hz: float, seconds: float, work_dir: Path, env: dict[str, str]) -> tuple[int, int, float, float]:
    """(published, recorded, achieved rate [1/s], logger CPU incl. startup per publish second [%])."""
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from rosbags.rosbag2 import Reader
    from sensor_msgs.msg import JointState

    bag_dir = work_dir / f'bag_{int(rate_hz)}'
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    logger = subprocess.Popen(
        [sys.executable, '-m', 'cobra_logger.logger_node', '--ros-args', '-p', f'bag_path:={bag_dir}',
         '-p', 'topics:=[joint_states]', '-p', 'split_duration_s:=1.0', '-p', 'discovery_period_s:=0.2'],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    publisher = node.create_publisher(JointState, '/joint_states', QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE))
    deadline = time.monotonic() + 30.0
    while publisher.get_subscription_count() == 0:
        if time.monotonic() > deadline:
            raise RuntimeError('the logger never subscribed; is the venv active?')
        time.sleep(0.05)
    names = [f'joint_{i + 1}' for i in range(11)]
    count = int(rate_hz * seconds)
    start = time.monotonic()
    next_send = start
    for seq in range(count):
        publisher.publish(JointState(name=names, position=[float(seq)] * 11, velocity=[0.0] * 11, effort=[0.0] * 11))
        next_send += 1.0 / rate_hz
        delay = next_send - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    achieved = count / (time.monotonic() - start)
    node.destroy_publisher(publisher)
    os.killpg(logger.pid, signal.SIGINT)
    logger.wait(timeout=60)
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    recorded = 0
    if bag_dir.exists():
        with Reader(bag_dir) as reader:
            recorded = reader.message_count
    return count, recorded, achieved, 100.0 * cpu_s / (count / achieved)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rates', type=float, nargs='+', default=[500, 1000, 1500, 2000, 3000])
    parser.add_argument('--seconds', type=float, default=4.0)
    parser.add_argument('--domain-id', type=int, default=142, help='ROS domain used only by this benchmark')
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix='logger_bench_') as tmp:
        work_dir = Path(tmp)
        env = isolated_env(args.domain_id, work_dir / 'ros_log')
        os.environ.update({k: env[k] for k in ('ROS_AUTOMATIC_DISCOVERY_RANGE', 'ROS_DOMAIN_ID', 'ROS_LOG_DIR')})
        import rclpy
        rclpy.init()
        node = rclpy.create_node('logger_bench_publisher')
        best = 0.0
        try:
            for rate_hz in args.rates:
                published, recorded, achieved, cpu = run_rate(node, rate_hz, args.seconds, work_dir, env)
                lost = published - recorded
                print(f'target {rate_hz:6.0f} Hz: published {published} at {achieved:6.0f}/s, '
                      f'recorded {recorded}, lost {lost}, logger CPU {cpu:.0f} % (incl. startup)', flush=True)
                if lost == 0:
                    best = max(best, achieved)
        finally:
            node.destroy_node()
            rclpy.shutdown()
    print(f'logger sustains {best:.0f} JointState msgs/s without loss '
          f'(highest loss-free rate tried; contract needs 500 Hz at real time factor 1)')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
