#!/usr/bin/env python3
"""Simulation benchmark: real-time factors of the sim node against bare MuJoCo, in one run.

1. bare:   mj_step on the same generated model in a loop (the sidewinding setpoints written to
           data.ctrl every control period from a precomputed table: no Python per step);
2. engine: CobraSim stepping sidewinding (no ROS);
3. node:   the sim node unpaced (real_time_factor 0) publishing every topic, in three set-ups:
           alone; with the gait and the logger attached, lockstep off (free running); and with
           them in lockstep (the default when unpaced: every command period waits for the
           gait's command and for the logger). Node RTF = sim seconds / wall seconds between the
           node's 'peers present: starting' and 'reached duration_s' log lines (start-up and
           settling excluded). Per process: CPU per sim second, and time ready to run but waiting
           for a CPU (schedstat; on a loaded 2-core machine most of the lockstep wall time); the
           sim's own count of wall time held at lockstep boundaries;
4. latency: joint_commands step -> first joint_states showing the joint move, through DDS,
           with the node paced at real time (--trials 0 skips it).

Every RTF is printed with its ratio to the bare RTF; bare runs before and after the node runs
and their mean is the baseline, so a load change on a shared machine shows as a spread. The
lockstep run also prints the message budget: what the logger recorded per sim second, by topic,
and what the peers add to the sim's CPU per message published, against the 0.35x target's budget.
Run after scripts/setup.sh:  .venv/bin/python scripts/bench/sim_bench.py [--seconds 20]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
for package in (REPO_ROOT / 'src').iterdir():
    sys.path.insert(0, str(package))

from cobra_description.robot_model import load_robot_model  # noqa: E402
from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams  # noqa: E402
from cobra_sim.engine import CobraSim, SimParams  # noqa: E402
from cobra_sim.terrain import RigidGround  # noqa: E402

URDF = REPO_ROOT / 'urdf' / 'cobra.urdf'
GAIT_PARAMS = REPO_ROOT / 'config' / 'gait.yaml'
LOCKSTEP_TARGET_RATIO = 0.35  # node + gait + logger in lockstep against bare MuJoCo (issue 18)
COMMAND_PERIOD_S = 0.01  # the sim node's default command_period_s (lockstep boundaries, /clock period)
LOG_TIME = re.compile(r'^\[\w+\] \[(\d+\.\d+)\]')
HELD = re.compile(r'held (\d+\.\d+) s wall for the')  # the sim's 'reached duration_s' line (lockstep)


def sidewinding_sim() -> tuple[CobraSim, np.ndarray]:
    """A settled sim and a table of sidewinding goals, one row per control period for 10 s."""
    robot = load_robot_model(URDF)
    joints = robot.gait_joints()
    sim = CobraSim(robot, RigidGround(), SimParams(), np.random.default_rng(0))
    sim.settle()
    generator = SidewindingGenerator([j.axis_kind for j in joints], SidewindingParams(0.4, 0.35, 0.7))
    generator.ramp.start()
    rows = []
    for _ in range(round(10.0 / sim.params.control_period_s)):
        generator.advance(sim.params.control_period_s)
        rows.append(generator.positions())
    return sim, np.array(rows)


def bench_bare(seconds: float) -> float:
    """mj_step on the generated model, setpoints from the table: MuJoCo's own speed."""
    sim, table = sidewinding_sim()
    model, data = sim.model, sim.data
    actuators = np.array([model.actuator(j.name).id for j in sim.robot.gait_joints()])
    steps = sim.steps_per_control
    periods = round(seconds / sim.params.control_period_s)
    started = time.perf_counter()
    for period in range(periods):
        data.ctrl[actuators] = table[period % len(table)]
        mujoco.mj_step(model, data, steps)
    return seconds / (time.perf_counter() - started)


def bench_engine(seconds: float) -> float:
    sim, table = sidewinding_sim()
    names = [j.name for j in sim.robot.gait_joints()]
    counter = iter(range(10**9))

    def command(t: float) -> dict[str, float]:
        return dict(zip(names, table[next(counter) % len(table)]))

    started = time.perf_counter()
    sim.run(seconds, command)
    return seconds / (time.perf_counter() - started)


def ros_environment(domain_id: int) -> dict[str, str]:
    return dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST', ROS_DOMAIN_ID=str(domain_id),
                ROS_LOG_DIR=str(REPO_ROOT / 'log' / 'bench'), PYTHONUNBUFFERED='1',
                PYTHONPATH=os.pathsep.join(str(p) for p in (REPO_ROOT / 'src').iterdir()))


def node_words(module: str, *ros_args: str) -> list[str]:
    """A node as a process; `module` may be a file (to measure another version of the sim node)."""
    start = [sys.executable, module] if module.endswith('.py') else [sys.executable, '-m', module]
    return [*start, '--ros-args', *ros_args]


def log_time(output: str, text: str) -> float:
    line = next(line for line in output.splitlines() if text in line)
    return float(LOG_TIME.match(line).group(1))


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (Linux /proc)."""
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def runqueue_seconds(pid: int) -> float:
    """Time the process's threads have spent ready to run but waiting for a CPU so far
    (/proc/<pid>/task/*/schedstat, second field): on a loaded machine, where wall time goes."""
    total_ns = 0
    for task in Path(f'/proc/{pid}/task').iterdir():
        try:
            total_ns += int((task / 'schedstat').read_text().split()[1])
        except (OSError, IndexError, ValueError):  # a thread that ended meanwhile
            continue
    return total_ns * 1e-9


@dataclass
class NodeRun:
    """One sim node run: its RTF, each process's CPU seconds per sim second in the window, and
    (with the logger) the messages it recorded per sim second, by topic."""

    rtf: float
    cpu_s_per_sim_s: dict[str, float]
    recorded_per_sim_s: dict[str, float]
    runqueue_s_per_sim_s: dict[str, float]  # ready but waiting for a CPU (all threads)
    held_wall_s_per_sim_s: float            # the sim held at lockstep boundaries (its own count)


def recorded_counts(bag: Path) -> dict[str, int]:
    """Messages per topic in the logger's bag (its metadata.yaml, written when it stops)."""
    import yaml
    info = yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    return {entry['topic_metadata']['name']: int(entry['message_count'])
            for entry in info['topics_with_message_count']}


def bench_node(seconds: float, domain_id: int, sim_module: str, peers: bool, lockstep: str,
               sim_args: list[str], logger_args: list[str] = (), gait_args: list[str] = ()) -> NodeRun:
    """RTF of the sim node between its start (peers present) and reaching duration_s, and the
    CPU every process used in that window (read from /proc when the sim logs those two lines)."""
    env = ros_environment(domain_id)
    processes: dict[str, subprocess.Popen] = {}
    lines: list[str] = []
    cpu_at_start: dict[str, float] = {}
    cpu_at_end: dict[str, float] = {}
    start_text = 'peers present: starting' if peers else 'settled'
    with tempfile.TemporaryDirectory() as bag_root:
        if peers:
            processes['logger'] = subprocess.Popen(node_words(
                'cobra_logger.logger_node', '-p', f'bag_path:={bag_root}/bag', '-p', 'use_sim_time:=true',
                '-p', 'discovery_period_s:=0.2', *(word for arg in logger_args for word in ('-p', arg))),
                env=env, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True)
            processes['gait'] = subprocess.Popen(node_words(
                'cobra_gaits.gait_node', '--params-file', str(GAIT_PARAMS), '-p', f'urdf_path:={URDF}',
                '-p', 'use_sim_time:=true', *(word for arg in gait_args for word in ('-p', arg))), env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            sim = subprocess.Popen(node_words(
                sim_module, '-p', f'urdf_path:={URDF}', '-p', 'real_time_factor:=0.0',
                '-p', f'duration_s:={seconds}', '-p', f'lockstep:={lockstep}',
                '-p', f'wait_for_peers_s:={60.0 if peers else 0.0}', '-p', f'wait_for_recorder:={peers}',
                '-p', f'wait_for_commands:={peers}', '-p', 'use_sim_time:=true',
                *(word for arg in sim_args for word in ('-p', arg))),
                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            watched = {'sim': sim, **processes}
            for line in sim.stdout:
                lines.append(line)
                for text, snapshot in ((start_text, cpu_at_start), ('reached duration_s', cpu_at_end)):
                    if text in line and not snapshot:
                        snapshot.update({name: cpu_seconds(p.pid) for name, p in watched.items()})
                        snapshot.update({f'{name} runqueue': runqueue_seconds(p.pid) for name, p in watched.items()})
            returncode = sim.wait(timeout=900)
        finally:
            for process in processes.values():
                os.killpg(process.pid, signal.SIGINT)
            for process in processes.values():
                process.wait(timeout=60)
        counts = recorded_counts(Path(bag_root) / 'bag') if peers else {}
    output = ''.join(lines)
    if returncode != 0 or not cpu_at_end:
        raise RuntimeError(output)
    wall_s = log_time(output, 'reached duration_s') - log_time(output, start_text)
    per_sim_s = {name: (cpu_at_end[name] - cpu_at_start[name]) / seconds for name in cpu_at_end}
    held = HELD.findall(next(line for line in output.splitlines() if 'reached duration_s' in line))
    return NodeRun(seconds / wall_s, {name: v for name, v in per_sim_s.items() if not name.endswith(' runqueue')},
                   {topic: count / seconds for topic, count in counts.items()},
                   {name.removesuffix(' runqueue'): v for name, v in per_sim_s.items() if name.endswith(' runqueue')},
                   sum(float(value) for value in held) / seconds)


def bench_latency(trials: int, domain_id: int) -> list[float]:
    os.environ.update(ros_environment(domain_id))
    import rclpy
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState

    process = subprocess.Popen(node_words('cobra_sim.sim_node', '-p', f'urdf_path:={URDF}',
                                          '-p', 'real_time_factor:=1.0', '-p', 'settle_duration_s:=0.5'),
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
    parser.add_argument('--trials', type=int, default=30, help='latency trials (0 = skip)')
    parser.add_argument('--domain-id', type=int, default=97)
    parser.add_argument('--sim-node', default='cobra_sim.sim_node',
                        help='sim node module, or a .py file (e.g. an older version, for before/after)')
    parser.add_argument('--sim-arg', action='append', default=[], metavar='NAME:=VALUE',
                        help='extra sim node parameter for the node runs, e.g. contact_forces_period_s:=0.0 '
                             '(to measure what a topic costs); repeatable')
    parser.add_argument('--gait-arg', action='append', default=[], metavar='NAME:=VALUE',
                        help='one more gait parameter, e.g. command_lead_periods:=0 (repeatable)')
    parser.add_argument('--logger-arg', action='append', default=[], metavar='NAME:=VALUE',
                        help="extra logger parameter, e.g. \"topics:=[joint_states,contact/forces/*]\" to record "
                             "an older sim node's topics; repeatable")
    options = parser.parse_args()
    bare_before = bench_bare(options.seconds)
    engine_rtf = bench_engine(options.seconds)
    node_runs = [
        ('node alone (no subscribers)', False, 'off'),
        ('node + gait + logger, lockstep off', True, 'off'),
        ('node + gait + logger, lockstep (default unpaced)', True, 'auto'),
    ]
    node_results = [bench_node(options.seconds, options.domain_id, options.sim_node, peers, lockstep,
                               options.sim_arg, options.logger_arg, options.gait_arg)
                    for _, peers, lockstep in node_runs]
    bare_after = bench_bare(options.seconds)
    bare = 0.5 * (bare_before + bare_after)
    print(f'bare MuJoCo mj_step   RTF {bare:6.1f}  (before {bare_before:.1f}, after {bare_after:.1f})')
    print(f'engine (CobraSim)     RTF {engine_rtf:6.1f}  = {engine_rtf / bare:.2f} x bare')
    for (label, _, _), result in zip(node_runs, node_results):
        print(f'{label:48s} RTF {result.rtf:6.1f}  = {result.rtf / bare:.2f} x bare')
    print(f'CPU per sim second [s] (bare MuJoCo: {1.0 / bare:.3f}; wall: 1 / RTF):')
    for (label, _, _), result in zip(node_runs, node_results):
        cpu = '  '.join(f'{name} {seconds:.3f}' for name, seconds in result.cpu_s_per_sim_s.items())
        print(f'  {label:46s} wall {1.0 / result.rtf:.3f}  {cpu}')
    print('Where the wall time goes, per sim second [s]: each process ready but waiting for a CPU (all its '
          'threads; the machine\'s other load shows here), and the sim held at lockstep boundaries:')
    for (label, _, _), result in zip(node_runs, node_results):
        waits = '  '.join(f'{name} {seconds:.3f}' for name, seconds in result.runqueue_s_per_sim_s.items())
        print(f'  {label:46s} waiting for a CPU: {waits}  held: {result.held_wall_s_per_sim_s:.3f}')
    lockstep = node_results[-1]
    if lockstep.recorded_per_sim_s:  # the message budget: what the logger took per sim second
        rates = sorted(lockstep.recorded_per_sim_s.items(), key=lambda item: -item[1])
        print(f'messages recorded per sim second (lockstep run; /clock is not recorded: '
              f'{1.0 / COMMAND_PERIOD_S:.0f} more): {sum(r for _, r in rates):.0f}: '
              + ', '.join(f'{topic} {rate:.0f}' for topic, rate in rates if rate >= 0.5))
        # the sim is the lockstep's critical path: what its peers add to its CPU, against the target's budget
        published = sum(rate for topic, rate in rates if topic != '/joint_commands') + 1.0 / COMMAND_PERIOD_S
        added_s = lockstep.cpu_s_per_sim_s['sim'] - node_results[0].cpu_s_per_sim_s['sim']
        print(f'the peers add {added_s:.3f} s to the sim\'s CPU per sim second ({published:.0f} messages published '
              f'to them, {1e6 * added_s / published:.0f} µs each, shared caches and the commands taken included); '
              f'{LOCKSTEP_TARGET_RATIO:g} x bare leaves the sim {1.0 / (LOCKSTEP_TARGET_RATIO * bare):.3f} s per '
              f'sim second in all, its own CPU {lockstep.cpu_s_per_sim_s["sim"]:.3f} s and the holds included')
    if options.trials:
        latencies_ms = sorted(1e3 * t for t in bench_latency(options.trials, options.domain_id))
        print(f'latency joint_commands -> joint_states motion (RTF 1): '
              f'p50 {statistics.median(latencies_ms):.1f} ms, '
              f'p95 {latencies_ms[int(0.95 * (len(latencies_ms) - 1))]:.1f} ms, max {latencies_ms[-1]:.1f} ms '
              f'over {len(latencies_ms)} steps')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
