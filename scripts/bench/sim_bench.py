#!/usr/bin/env python3
"""Rigid-ground simulation benchmark: prints real-time factors and command-to-state latency.

1. engine: CobraSim stepping sidewinding at 1 ms, no ROS, pinned to one core;
2. node: the sim node publishing every topic, unpaced (real_time_factor 0), pinned to one core;
3. latency: joint_commands step -> first joint_states showing the joint move, through DDS,
   with the node paced at real time.

Run after scripts/setup.sh:  .venv/bin/python scripts/bench/sim_bench.py [--seconds 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
for package in (REPO_ROOT / 'src').iterdir():
    sys.path.insert(0, str(package))

from cobra_description.robot_model import load_robot_model  # noqa: E402
from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams  # noqa: E402
from cobra_sim.engine import CobraSim, SimParams  # noqa: E402
from cobra_sim.terrain import RigidGround  # noqa: E402

URDF = REPO_ROOT / 'urdf' / 'cobra.urdf'
CORE = 0


def bench_engine(seconds: float) -> float:
    os.sched_setaffinity(0, {CORE})
    robot = load_robot_model(URDF)
    joints = robot.gait_joints()
    sim = CobraSim(robot, RigidGround(), SimParams(), np.random.default_rng(0))
    sim.settle()
    generator = SidewindingGenerator([j.axis_kind for j in joints], SidewindingParams(0.4, 0.35, 0.7))
    generator.ramp.start()
    names = [j.name for j in joints]

    def command(t: float) -> dict[str, float]:
        generator.advance(sim.params.control_period_s)
        return dict(zip(names, generator.positions()))

    started = time.perf_counter()
    sim.run(seconds, command)
    return seconds / (time.perf_counter() - started)


def ros_environment(domain_id: int) -> dict[str, str]:
    return dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST', ROS_DOMAIN_ID=str(domain_id),
                ROS_LOG_DIR=str(REPO_ROOT / 'log' / 'bench'),
                PYTHONPATH=os.pathsep.join(str(p) for p in (REPO_ROOT / 'src').iterdir()))


def sim_command(*parameters: str) -> list[str]:
    words = ['taskset', '-c', str(CORE), sys.executable, '-m', 'cobra_sim.sim_node', '--ros-args',
             '-p', f'urdf_path:={URDF}']
    for parameter in parameters:
        words += ['-p', parameter]
    return words


def bench_node(seconds: float, domain_id: int) -> tuple[float, float]:
    """(RTF, wall seconds) of the node running `seconds` of sim time flat out."""
    started = time.perf_counter()
    result = subprocess.run(sim_command('real_time_factor:=0.0', f'duration_s:={seconds}'),
                            env=ros_environment(domain_id), capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(result.stdout + result.stderr)
    wall = time.perf_counter() - started
    settle_line = next(line for line in result.stdout.splitlines() + result.stderr.splitlines()
                       if 'settled' in line)
    settle_wall = float(settle_line.split(' in ')[-1].split(' s wall')[0])
    return seconds / (wall - settle_wall), wall


def bench_latency(trials: int, domain_id: int) -> list[float]:
    os.environ.update(ros_environment(domain_id))
    import rclpy
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState

    process = subprocess.Popen(sim_command('real_time_factor:=1.0', 'settle_duration_s:=0.5'),
                               env=ros_environment(domain_id), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    rclpy.init()
    node = rclpy.create_node('latency_bench')
    latest: list[JointState] = []
    node.create_subscription(JointState, 'joint_states', lambda m: latest.append(m),
                             QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT))
    commands = node.create_publisher(JointState, 'joint_commands',
                                     QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE))
    latencies = []
    try:
        while not latest or commands.get_subscription_count() == 0:
            rclpy.spin_once(node, timeout_sec=0.1)
        target = 0.0
        for _ in range(trials):
            time.sleep(0.3)
            while rclpy.spin_once(node, timeout_sec=0.0) is None and latest and len(latest) > 1:
                latest.pop(0)
            start_position = latest[-1].position[1]
            target = 0.4 if target <= 0.0 else -0.4
            latest.clear()
            sent = time.perf_counter()
            commands.publish(JointState(name=['joint_2'], position=[target]))
            while True:
                rclpy.spin_once(node, timeout_sec=0.01)
                if latest and abs(latest[-1].position[1] - start_position) > 1e-3:
                    latencies.append(time.perf_counter() - sent)
                    break
                if time.perf_counter() - sent > 2.0:
                    raise RuntimeError('no joint motion within 2 s of the command')
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
        process.terminate()
        process.wait(timeout=15)
    return latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--seconds', type=float, default=20.0, help='sim seconds per RTF run')
    parser.add_argument('--trials', type=int, default=30, help='latency trials')
    parser.add_argument('--domain-id', type=int, default=97)
    options = parser.parse_args()
    engine_rtf = bench_engine(options.seconds)
    print(f'engine  real-time factor (1 ms steps, sidewinding, 1 core): {engine_rtf:6.1f}  (target >= 20)')
    node_rtf, wall = bench_node(options.seconds, options.domain_id)
    print(f'node    real-time factor (all topics published, 1 core):  {node_rtf:6.1f}  '
          f'({options.seconds:g} sim s in {wall:.1f} s wall incl. start-up)')
    latencies_ms = sorted(1e3 * t for t in bench_latency(options.trials, options.domain_id))
    print(f'latency joint_commands -> joint_states motion (RTF 1): '
          f'p50 {statistics.median(latencies_ms):.1f} ms, '
          f'p95 {latencies_ms[int(0.95 * (len(latencies_ms) - 1))]:.1f} ms, max {latencies_ms[-1]:.1f} ms '
          f'over {len(latencies_ms)} steps')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
