#!/usr/bin/env python3
"""Benchmark the joint driver against the servo-bus emulator and print where the time goes.

Starts `servo_emulator` and `driver_node` as separate processes (own ROS domain, loopback
discovery), streams 100 Hz joint commands like the gait node, and reports: achieved rate,
p50/p99/max period (from the joint_states read stamps over the whole run and from the
driver's own 5 s window), missed deadlines, failed reads, bus bytes per cycle, wire time per
cycle at the configured baud rate (the physical floor) and the driver's CPU use.

CPU per cycle against the bare SDK, measured in the same run against the same emulator:
* bare: the official SDK's GroupSyncWrite of 12 goal positions + Fast Sync Read
  (GroupSyncRead.fastSyncRead) of the same 12-byte block, CPU from time.process_time around
  the SDK calls. Its port waits for replies in select() (as the driver's does) instead of the
  SDK's busy poll, so the baseline is the SDK's packet work, not time spent spinning while the
  emulator answers.
* driver cycle: the driver's JointDriver.cycle on the same bus (goals from a live 100 Hz
  command stream taken through the command guard, feedback decoded to SI units) plus filling
  and publishing the node's JointState (to a topic without subscribers, so no DDS transport).
  Both run in this process on the same deadline scheduler, in alternating blocks of 250
  cycles, so machine load hits both alike; the printed ratio is driver cycle / bare.
* driver node: afterwards, the whole node process (loop, pacing, rclpy publishing to this
  bench's subscriber, the executor taking 100 Hz commands), CPU from /proc, over the same bare
  figure. Publishing a JointState to a subscriber in another process costs FastDDS about
  0.15 ms of CPU here by itself; that part is ROS transport, not driver code.

With --busy N, N busy-loop processes share the machine with the node run (the camera and
ORB-SLAM3 on the robot's computer); the emulator then runs under SCHED_FIFO 60, as the servos
answer in hardware time whatever the host runs. Without --busy it stays under the ordinary
scheduler, as in every earlier figure (a prompter emulator also makes the bare SDK's reads
cheaper: its CPU per cycle drops from ~0.15 to ~0.10 ms). --loop-priority 0 runs the driver's
loop thread under the ordinary scheduler instead of SCHED_FIFO, for the comparison.

    python scripts/bench/driver_bench.py --seconds 20 [--busy 2] [--loop-priority 0]
"""

from __future__ import annotations

import argparse
import gc
import math
import select
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
SOURCES = [str(p) for p in sorted((REPO / 'src').iterdir()) if (p / 'package.xml').exists()]
sys.path[:0] = SOURCES

import dynamixel_sdk as sdk

from cobra_driver import control_table as ct
from cobra_driver.dynamixel_bus import FeedbackBlock, sync_read_bytes, sync_write_bytes, wire_time_s
from cobra_driver.loop_timing import DeadlineScheduler


def realtime_emulator(pid: int) -> str:
    """Every emulator thread under SCHED_FIFO 60: beside busy neighbours the stand-in must answer as
    the servos do, in hardware time, or its starvation is counted against the driver."""
    try:
        for thread in os.listdir(f'/proc/{pid}/task'):
            os.sched_setscheduler(int(thread), os.SCHED_FIFO, os.sched_param(60))
    except (AttributeError, OSError) as error:
        return f'ordinary scheduler ({error})'
    return 'SCHED_FIFO 60'


def cpu_seconds(pid: int) -> float:
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


class SelectPortHandler(sdk.PortHandler):
    """The SDK's port, waiting for reply bytes in select() instead of polling in a tight loop."""

    def readPort(self, length: int) -> bytes:
        data = super().readPort(length)
        if not data:
            remaining_s = max(0.0, (self.packet_timeout - self.getTimeSinceStart()) / 1000.0)
            select.select([self.ser.fileno()], [], [], min(0.05, remaining_s))
            data = super().readPort(length)
        return data


class BareSdkLoop:
    """The baseline: GroupSyncWrite of the goals + Fast Sync Read of the feedback block, nothing else."""

    def __init__(self, port: str, servo_ids: list[int]) -> None:
        self.handler = SelectPortHandler(port)
        self.handler.openPort()
        self.handler.setBaudRate(4_000_000)
        packet = sdk.PacketHandler(2.0)
        self.goal = ct.ITEMS['goal_position']
        self.write = sdk.GroupSyncWrite(self.handler, packet, self.goal.address, self.goal.size)
        self.read = sdk.GroupSyncRead(self.handler, packet, ct.INDIRECT_DATA_1, FeedbackBlock().length)
        self.servo_ids = servo_ids
        for servo_id in servo_ids:  # set-up as the driver does it: no return delay (default 500 us each)
            packet.write1ByteTxRx(self.handler, servo_id, ct.ITEMS['return_delay_time'].address, 0)
            self.write.addParam(servo_id, list(ct.encode(self.goal, ct.POSITION_CENTRE_TICK)))
            self.read.addParam(servo_id)
        self.cycles = self.failed = 0

    def cycle(self) -> None:
        for servo_id in self.servo_ids:  # a new goal each cycle, as the driver sends
            self.write.changeParam(servo_id, list(ct.encode(self.goal, ct.POSITION_CENTRE_TICK + self.cycles % 16)))
        self.write.txPacket()
        self.failed += self.read.fastSyncRead() != sdk.COMM_SUCCESS
        self.cycles += 1


def fill_joint_state_fallback(message, sample) -> None:  # type: ignore[no-untyped-def]
    """How the node filled its JointState before driver_node.fill_joint_state existed (for before/after runs)."""
    from rclpy.time import Time
    message.header.stamp = Time(nanoseconds=sample.stamp_ns).to_msg()
    message.name = sample.names
    message.position = sample.position_rad
    message.velocity = sample.velocity_rad_s
    message.effort = sample.effort_nm


def joint_state_publishing(driver_node, publisher) -> Callable:  # type: ignore[no-untyped-def]
    """How the node publishes a sample: its JointStateWriter (raw CDR), else (an older node)
    fill_joint_state or the fallback above, then rclpy's publish."""
    writer = getattr(driver_node, 'JointStateWriter', None)
    if writer is not None:
        return writer(publisher).publish
    from sensor_msgs.msg import JointState
    fill, message = getattr(driver_node, 'fill_joint_state', fill_joint_state_fallback), JointState()

    def publish(sample) -> None:  # type: ignore[no-untyped-def]
        fill(message, sample)
        publisher.publish(message)
    return publish


def interleaved_cpu_per_cycle(port: str, joint_count: int, rate_hz: float, seconds: float,
                              block_cycles: int = 250) -> dict[str, float]:
    """CPU seconds per cycle of the bare SDK loop and of the driver's cycle, in alternating blocks."""
    import rclpy
    from rclpy.node import Node
    from rclpy.qos import qos_profile_sensor_data
    from sensor_msgs.msg import JointState

    from cobra_driver import driver_node
    from cobra_driver.driver_config import build_config
    from cobra_driver.driver_core import JointDriver

    rclpy.init()
    node = Node('driver_bench_cycle')
    publisher = node.create_publisher(JointState, 'driver_bench/joint_states_unsubscribed', qos_profile_sensor_data)
    publish_sample = joint_state_publishing(driver_node, publisher)
    servo_ids = list(range(1, joint_count + 2))
    names = [f'joint_{i}' for i in range(1, joint_count + 1)]
    driver = JointDriver(build_config({
        'port': port, 'rate_hz': rate_hz, 'joint_names': names, 'joint_ids': servo_ids[:-1],
        'zero_offsets_rad': [0.0] * joint_count, 'directions': [1] * joint_count, 'latch_id': servo_ids[-1]}))
    driver.start()
    bare = BareSdkLoop(port, servo_ids)
    submit = getattr(driver.commands, 'submit_message', None)
    command = JointState(name=names)
    gc.freeze()  # as the node does once started (both loops profit alike)
    scheduler = DeadlineScheduler(1.0 / rate_hz)
    guard_s = 0.1 / rate_hz
    cpu = {'bare': 0.0, 'driver': 0.0}
    cycles = {'bare': 0, 'driver': 0}
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            for _ in range(block_cycles):
                scheduler.wait()
                start = time.process_time()
                if cycles['driver'] % round(rate_hz / 100.0) == 0:  # 100 Hz commands, as the gait sends
                    phase = 2 * math.pi * 0.4 * cycles['driver'] / rate_hz
                    command.position = [0.5 * math.sin(phase + i * math.pi / 6) for i in range(joint_count)]
                    if submit is not None:
                        submit(command, time.monotonic())
                    else:
                        driver.commands.submit(command.name, command.position, command.velocity, time.monotonic())
                sample = driver.cycle(deadline=scheduler.next_deadline - guard_s)
                if sample is not None:
                    publish_sample(sample)
                cpu['driver'] += time.process_time() - start
                cycles['driver'] += 1
            for _ in range(block_cycles):
                scheduler.wait()
                start = time.process_time()
                bare.cycle()
                cpu['bare'] += time.process_time() - start
                cycles['bare'] += 1
    finally:
        bare.handler.closePort()
        driver.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
    return {'bare_s': cpu['bare'] / cycles['bare'], 'driver_s': cpu['driver'] / cycles['driver'],
            'cycles': float(cycles['bare'] + cycles['driver']), 'bare_failed': float(bare.failed),
            'driver_failed': float(driver.read_failures)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--seconds', type=float, default=60.0, help='measured run time [s]')
    parser.add_argument('--rate', type=float, default=500.0, help='driver loop rate [Hz]')
    parser.add_argument('--baud', type=int, default=4_000_000, help='configured bus baud rate [bit/s]')
    parser.add_argument('--servos', type=int, default=12, help='servos on the bus (11 joints + latch)')
    parser.add_argument('--model-wire', action='store_true',
                        help='emulator delays replies by their wire time at --baud')
    parser.add_argument('--command-rate', type=float, default=100.0,
                        help='joint_commands per second, like the gait node (0 = none)')
    parser.add_argument('--margin-ms', type=float, default=1.0, help='driver packet_timeout_margin_ms')
    parser.add_argument('--domain-id', type=int, default=101 + os.getpid() % 100)
    parser.add_argument('--busy', type=int, default=0, help='busy-loop processes beside the node run')
    parser.add_argument('--loop-priority', type=int, default=50,
                        help="driver loop_priority (SCHED_FIFO priority; 0 = the ordinary scheduler)")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix='driver_bench_'))
    env = {**os.environ, 'ROS_AUTOMATIC_DISCOVERY_RANGE': 'LOCALHOST', 'ROS_DOMAIN_ID': str(args.domain_id),
           'ROS_LOG_DIR': str(tmp / 'ros_log'), 'PYTHONUNBUFFERED': '1',
           'PYTHONPATH': os.pathsep.join(SOURCES + [os.environ.get('PYTHONPATH', '')])}
    os.environ.update({k: env[k] for k in ('ROS_AUTOMATIC_DISCOVERY_RANGE', 'ROS_DOMAIN_ID', 'ROS_LOG_DIR')})
    joint_count = args.servos - 1
    link = tmp / 'ttyBENCH'
    emulator_cmd = [sys.executable, '-m', 'cobra_driver.emulator', '--link', str(link),
                    '--joint-ids', *map(str, range(1, joint_count + 1)), '--latch-id', str(args.servos)]
    if args.model_wire:
        emulator_cmd += ['--wire-baud', str(args.baud)]
    emulator = subprocess.Popen(emulator_cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                start_new_session=True)
    emulator.stdout.readline()
    emulator_scheduling = 'ordinary scheduler'
    try:
        compared = interleaved_cpu_per_cycle(str(link), joint_count, args.rate, max(4.0, min(args.seconds, 20.0)))
    except BaseException:
        os.killpg(emulator.pid, signal.SIGINT)  # the emulator runs in its own session: never leave it behind
        emulator.wait(timeout=10)
        raise
    bare_cpu_s = compared['bare_s']
    names = [f'joint_{i}' for i in range(1, joint_count + 1)]
    driver_cmd = [sys.executable, '-m', 'cobra_driver.driver_node', '--ros-args',
                  '--params-file', str(REPO / 'config' / 'driver.yaml'), '-p', f'port:={link}',
                  '-p', f'rate_hz:={args.rate}', '-p', f'baud_rate:={args.baud}',
                  '-p', f'packet_timeout_margin_ms:={args.margin_ms}', '-p', f'loop_priority:={args.loop_priority}',
                  '-p', f'joint_names:={names}'.replace("'", ''),
                  '-p', f'joint_ids:={list(range(1, joint_count + 1))}',
                  '-p', f'zero_offsets_rad:={[0.0] * joint_count}', '-p', f'directions:={[1] * joint_count}',
                  '-p', f'latch_id:={args.servos}']
    busy = [subprocess.Popen([sys.executable, '-c', 'while True: pass'], start_new_session=True)
            for _ in range(args.busy)]
    if busy:
        emulator_scheduling = realtime_emulator(emulator.pid)
    driver = subprocess.Popen(driver_cmd, env=env, stdout=open(tmp / 'driver.log', 'w'), stderr=subprocess.STDOUT,
                              start_new_session=True)

    import rclpy
    from diagnostic_msgs.msg import DiagnosticArray
    from rclpy.node import Node
    from rclpy.qos import qos_profile_sensor_data
    from sensor_msgs.msg import JointState

    rclpy.init()  # again: the cycle comparison above shut its context down
    node = Node('driver_bench')
    stamps: list[int] = []
    diagnostics: dict[str, str] = {}

    def on_state(message: JointState) -> None:
        stamps.append(message.header.stamp.sec * 1_000_000_000 + message.header.stamp.nanosec)

    def on_diagnostics(message: DiagnosticArray) -> None:
        for status in message.status:
            if status.name == 'joint_driver: bus':
                diagnostics.clear()
                diagnostics.update({kv.key: kv.value for kv in status.values})

    node.create_subscription(JointState, 'joint_states', on_state, qos_profile_sensor_data)
    node.create_subscription(DiagnosticArray, 'diagnostics', on_diagnostics, 10)
    commands = node.create_publisher(JointState, 'joint_commands', 10)
    try:
        deadline = time.monotonic() + 30.0
        while not stamps and time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=0.05)
            if driver.poll() is not None:
                print((tmp / 'driver.log').read_text())
                return 1
        time.sleep(1.0)  # settle
        stamps.clear()
        start_cpu, start_wall = cpu_seconds(driver.pid), time.monotonic()
        start_emulator_cpu = cpu_seconds(emulator.pid)
        baseline = dict(diagnostics)
        next_command = time.monotonic()
        while time.monotonic() - start_wall < args.seconds:
            now = time.monotonic()
            if args.command_rate > 0 and now >= next_command:
                phase = 2 * math.pi * 0.4 * (now - start_wall)
                commands.publish(JointState(name=names, position=[0.5 * math.sin(phase + i * math.pi / 6)
                                                                   for i in range(joint_count)]))
                next_command += 1.0 / args.command_rate
            rclpy.spin_once(node, timeout_sec=max(0.0, min(0.005, next_command - time.monotonic())))
        elapsed = time.monotonic() - start_wall
        measured_stamps = list(stamps)  # the drain below is for the last diagnostics, not for the rate
        driver_cpu_s = cpu_seconds(driver.pid) - start_cpu
        driver_cpu = driver_cpu_s / elapsed * 100.0
        emulator_cpu = (cpu_seconds(emulator.pid) - start_emulator_cpu) / elapsed * 100.0
        load = os.getloadavg()[0]
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            rclpy.spin_once(node, timeout_sec=0.05)
    finally:
        for process in busy:
            process.kill()
        for process in (driver, emulator):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGINT)
        for process in (driver, emulator):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        node.destroy_node()
        rclpy.try_shutdown()

    stamps = measured_stamps
    periods_ms = np.diff(np.asarray(stamps, dtype=np.int64)) / 1e6
    period_ms = 1e3 / args.rate
    block = FeedbackBlock().length
    expected = sync_write_bytes(args.servos, 4) + sync_read_bytes(args.servos, block, fast=True)
    plain = sync_write_bytes(args.servos, 4) + sync_read_bytes(args.servos, block, fast=False)

    def delta(key: str) -> int:
        return int(diagnostics.get(key, 0)) - int(baseline.get(key, 0))

    print(f'\ndriver bench: {args.servos} servos, {args.rate:.0f} Hz target, {args.baud} bps configured, '
          f'{elapsed:.1f} s measured{" (emulator models wire time)" if args.model_wire else ""}')
    print(f'  joint_states received       {len(stamps)}  ({len(stamps) / elapsed:.1f} Hz at the subscriber)')
    if len(periods_ms):
        print(f'  period from read stamps     p50 {np.percentile(periods_ms, 50):.3f}  p99 '
              f'{np.percentile(periods_ms, 99):.3f}  max {periods_ms.max():.3f} ms  (target {period_ms:.3f}; '
              f'{np.mean(np.abs(periods_ms - period_ms) <= 0.5) * 100:.1f} % within +-0.5 ms)')
    print(f'  driver window (last 5 s)    rate {diagnostics.get("rate_hz")} Hz, period p50 '
          f'{diagnostics.get("period_p50_ms")} p99 {diagnostics.get("period_p99_ms")} max '
          f'{diagnostics.get("period_max_ms")} ms, jitter {diagnostics.get("jitter_ms")} ms')
    print(f'  bus time per cycle          p50 {diagnostics.get("bus_p50_ms")}  p99 {diagnostics.get("bus_p99_ms")}  '
          f'max {diagnostics.get("bus_max_ms")} ms')
    print(f'  missed deadlines            {delta("missed_deadlines")}')
    print(f'  failed reads / retries      {delta("read_failures")} / {delta("read_retries")}')
    print(f'  fast sync read              {diagnostics.get("fast_sync_read")}')
    print(f'  loop scheduling             {diagnostics.get("loop_scheduling")}'
          f'{f"  ({args.busy} busy-loop processes beside it)" if args.busy else ""}')
    print(f'  executor scheduling         {diagnostics.get("executor_scheduling")}')
    print(f'  bus bytes per cycle         measured {diagnostics.get("bytes_per_cycle")}, expected {expected} '
          f'(plain Sync Read would be {plain})')
    for baud in sorted({args.baud, 1_000_000, 4_000_000}):
        wire = wire_time_s(expected, baud) * 1e3
        print(f'  wire time per cycle @ {baud / 1e6:.0f} Mbps  {wire:.3f} ms of {period_ms:.3f} ms '
              f'({100 * wire / period_ms:.0f} % of the period, before per-packet latencies)')
    print(f'  driver CPU use              {driver_cpu:.1f} % of one core '
          f'({driver_cpu * 10 / max(1.0, len(stamps) / elapsed):.3f} ms per published cycle)')
    driver_cycles = round(elapsed * float(diagnostics.get('rate_hz', args.rate)))  # cycles in the CPU window
    driver_cpu_per_cycle_ms = driver_cpu_s / max(1, driver_cycles) * 1e3
    print(f'  bare SDK CPU per cycle      {bare_cpu_s * 1e3:.3f} ms (Sync Write + Fast Sync Read; '
          f'{compared["bare_failed"]:.0f} failed reads)')
    print(f'  driver cycle CPU per cycle  {compared["driver_s"] * 1e3:.3f} ms (JointDriver.cycle + JointState; '
          f'{compared["driver_failed"]:.0f} failed reads; {compared["cycles"]:.0f} cycles in alternating blocks)')
    print(f'  ratio driver cycle / bare   {compared["driver_s"] / bare_cpu_s:.2f}x')
    print(f'  driver node CPU per cycle   {driver_cpu_per_cycle_ms:.3f} ms ({driver_cycles} cycles, whole node '
          f'process incl. DDS publishing and the executor)')
    print(f'  ratio driver node / bare    {driver_cpu_per_cycle_ms / (bare_cpu_s * 1e3):.2f}x')
    print(f'  emulator CPU use            {emulator_cpu:.1f} % of one core (the stand-in for the servos, '
          f'{emulator_scheduling})')
    print(f'  machine load average        {load:.2f} on {os.cpu_count()} CPUs')
    print(f'  driver log                  {tmp / "driver.log"}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
