"""DEM terrain in ROS mode: runs a DEM scenario (config/dem/) and publishes the sim's topics.

Slow (a LAMMPS bed runs far below real time) but the same contract as sim_node: `/clock` (sim
time, one tick per body sample), `odom` and `ground_truth/odom` (identical: no VIO noise),
`contact/forces/<body_frame>`, `terrain/heightmap` (the particle surface), `/tf` odom -> body,
`diagnostics` with the progress and ETA. Message conventions: cobra_dem.ros_mode.

The engine runs in a worker thread (ros_mode.SampleStream): its steps are long C calls during
which Python cannot run a signal handler, so the main thread keeps serving ROS and a stop signal
ends the node at once: once samples flow the running LAMMPS chunk is cut short
(`force_timeout`) and the run is closed cleanly; while the bed or the body is still settling the
worker is abandoned with the process (the settled-bed cache is written atomically, so nothing
half-written is left). With duration reached the node flushes its reliable publishers and exits 0.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import rclpy
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import TransformStamped, WrenchStamped
from nav_msgs.msg import Odometry
from rclpy.duration import Duration
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import PointCloud2, PointField
from std_msgs.msg import Header

from cobra_common.frames import frame_prefix_problem
from cobra_common.ros_entry import StartupError, declare, deferred_stop, describe, run_node, stop_requested
from cobra_dem import lammps_backend  # no `lammps` import until a run starts
from cobra_dem.ros_mode import (DemFrame, DemFrameBuilder, OverrideError, SampleStream, format_duration,
                                    parse_overrides, progress_values)
from cobra_dem.scenario import Scenario, ScenarioError, default_scenario_file, dem_cache_dir, load_scenario
from cobra_common.heightmap_cloud import FLOAT32, HEIGHTMAP_TOPIC, POINT_STEP, field_layout, pack_heightmap

try:
    from tf2_msgs.msg import TFMessage
except ImportError:  # publish_tf:=true is refused in declare_parameters
    TFMessage = None

STATE_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)       # as sim_node
LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)        # tf2_ros's broadcaster QoS
CLOCK_TOPIC = '/clock'
TF_TOPIC = '/tf'
WAIT_S = 0.05               # executor wait between looks at the sample queue (bounds the stop latency)
FRAMES_PER_ROUND = 20       # samples published per executor round (services stay served)
DIAGNOSTICS_PERIOD_S = 1.0  # wall time: a DEM second of sim time can take hours
PROGRESS_LOG_PERIOD_S = 10.0
STOP_WAIT_S = 0.5           # wall time the worker gets to close the engine after a stop signal
FLUSH_TIMEOUT_S = 1.0
BODY_FRAME_PATTERN = re.compile(r'[A-Za-z][A-Za-z0-9_]*')


def load_run_scenario(p: dict[str, Any]) -> Scenario:
    """The scenario file with the node's overrides applied, validated (StartupError naming the fix)."""
    path = Path(p['scenario_file']) if p['scenario_file'] else default_scenario_file()
    try:
        overrides = parse_overrides([pair for pair in p['scenario_overrides'].split(',') if pair.strip()])
        if p['backend']:
            overrides['backend'] = p['backend']
        if p['duration_s'] > 0.0:
            overrides['duration_s'] = p['duration_s']
        return load_scenario(path, **overrides)
    except (ScenarioError, OverrideError) as error:
        raise StartupError(f'dem_node: {error}') from error


def declare_parameters(node: Node) -> dict[str, Any]:
    """Declare every dem_node parameter; StartupError for a scenario or combination that cannot run.

    Also reads and validates the scenario file (no engine is loaded): p['scenario'] is the result.
    """
    p = declare(node, {
        'scenario_file': ('', describe(
            "DEM scenario YAML; '' = cobra_dem's config/dem/tumble_slope.yaml", read_only=True)),
        'backend': ('', describe("DEM engine: '' = the scenario's | lammps | deme (deme: NVIDIA GPU)",
                                 read_only=True)),
        'duration_s': (0.0, describe("sim time to run, then exit 0 [s]; 0 = the scenario's duration_s",
                                     read_only=True, float_range=(0.0, 1e4))),
        'scenario_overrides': ('', describe(
            "comma-separated key=value scenario overrides, keys nested with dots and values read as "
            "YAML, as python -m cobra_experiments.dem_run --set: e.g. 'slope_deg=20,body.motion=free'", read_only=True)),
        'cache_dir': ('', describe("settled-bed cache folder; '' = the user's cache, "
                                   '$XDG_CACHE_HOME/cobra/dem_cache (shared with cobra_experiments.dem_run)',
                                   read_only=True)),
        'frame_prefix': ('', describe(
            "prefix of every frame id this node stamps (odom, the body frame), e.g. 'cobra/'; '' = none",
            read_only=True)),
        'body_frame': ('', describe(
            "the DEM body's frame (child of odom; origin = its centre of mass) and the <body> of "
            "contact/forces/<body>; '' = the scenario's body kind (wheel or cobra_loop)", read_only=True)),
        'heightmap_period_s': (0.5, describe(
            f'{HEIGHTMAP_TOPIC} period [s of sim time], taken at the backend\'s grain snapshots (every '
            "output_interval_s of the scenario); 0 = not published", read_only=True, float_range=(0.0, 100.0))),
        'heightmap_cell_m': (0.0, describe(
            f'{HEIGHTMAP_TOPIC} grid cell [m] (odom x-y); 0 = one grain clump across', read_only=True,
            float_range=(0.0, 0.5))),
        'publish_tf': (True, describe(
            '/tf odom -> body_frame at every sample (false when a state publisher makes it from odom)',
            read_only=True)),
        'wait_for_peers_s': (0.0, describe(
            'hold the first sample until odom, ground_truth/odom and contact/forces/<body_frame> each '
            'have a subscriber, at most this long [s, wall]; 0 = publish at once', read_only=True,
            float_range=(0.0, 600.0))),
    })
    if (problem := frame_prefix_problem(p['frame_prefix'])) is not None:
        raise StartupError(problem)
    if p['body_frame'] and BODY_FRAME_PATTERN.fullmatch(p['body_frame']) is None:
        raise StartupError(f"body_frame:={p['body_frame']!r} is not a frame/topic name: use a letter then "
                           "letters, digits or '_' (e.g. wheel)")
    if p['backend'] not in ('', 'lammps', 'deme'):
        raise StartupError(f"backend:={p['backend']} is not one of lammps, deme ('' = the scenario's)")
    if p['publish_tf'] and TFMessage is None:
        raise StartupError('publish_tf:=true needs tf2_msgs, which is not installed: run scripts/setup.sh '
                           '(it builds src/tf2_msgs into the venv) or set publish_tf:=false')
    p['scenario'] = load_run_scenario(p)
    p['body_frame'] = p['body_frame'] or p['scenario'].body.kind
    return p


def sample_source(scenario: Scenario, cache_dir: Path, log: Callable[[str], None]) -> Callable[[], Iterator[Any]]:
    """The backend's per-sample generator (started later, in the worker); StartupError when the
    engine cannot be loaded or has no per-sample stream."""
    try:
        backend = importlib.import_module(f'cobra_dem.{scenario.backend}_backend')
    except ImportError as error:
        raise StartupError(f'dem_node: backend {scenario.backend!r} is not available ({error}); '
                           'use backend:=lammps') from error
    samples = getattr(backend, 'scenario_samples', None)
    if samples is None:
        raise StartupError(f'dem_node: backend {scenario.backend!r} runs only as a batch '
                           '(python -m cobra_experiments.dem_run): it has no per-sample stream for the ROS mode; use backend:=lammps')
    if scenario.backend == 'lammps':
        try:
            backend.load_lammps()
        except ScenarioError as error:
            raise StartupError(f'dem_node: {error}') from error
    return lambda: samples(scenario, cache_dir, log=log)


class DemNode(Node):
    def __init__(self) -> None:
        super().__init__('dem_node')
        p = declare_parameters(self)
        self.params = p
        if self.get_parameter('use_sim_time').value:
            # this node is the clock: it must never wait on /clock itself
            self.set_parameters([Parameter('use_sim_time', value=False)])
        self.scenario: Scenario = p['scenario']
        if self.scenario.mpi:
            self.get_logger().warning('the scenario asks for MPI; the ROS mode runs one process (one rank)')
        cache_dir = Path(p['cache_dir']) if p['cache_dir'] else dem_cache_dir()
        logger = self.get_logger()
        self._samples = sample_source(self.scenario, cache_dir, lambda line: logger.info(line))
        cell_m = p['heightmap_cell_m'] or self.scenario.bed.clump_extent_m
        self._builder = DemFrameBuilder(self.scenario.slope_deg,
                                        p['heightmap_period_s'], cell_m)
        self.stream: SampleStream | None = None

        prefix, body = p['frame_prefix'], p['body_frame']
        self._odom_frame, self._body_frame = prefix + 'odom', prefix + body
        self._clock_pub = self.create_publisher(ClockMsg, CLOCK_TOPIC, STATE_QOS)
        self._odom_pub = self.create_publisher(Odometry, 'odom', STATE_QOS)
        self._truth_pub = self.create_publisher(Odometry, 'ground_truth/odom', STATE_QOS)
        self._contact_pub = self.create_publisher(WrenchStamped, f'contact/forces/{body}', STATE_QOS)
        self._diag_pub = self.create_publisher(DiagnosticArray, 'diagnostics', STATE_QOS)
        self._heightmap_pub = self.create_publisher(PointCloud2, HEIGHTMAP_TOPIC, LATCHED_QOS) \
            if p['heightmap_period_s'] > 0.0 else None
        self._tf_pub = self.create_publisher(TFMessage, TF_TOPIC, TF_QOS) if p['publish_tf'] else None
        self._heightmap_fields = [PointField(name=name, offset=offset, datatype=FLOAT32, count=1)
                                  for name, offset in field_layout()]

        self.finished = False
        self._published = 0
        self._last_frame: DemFrame | None = None
        self._started_wall = time.perf_counter()
        self._first_sample_wall: float | None = None
        self._diagnostics_due_wall = 0.0
        self._waiting_until: float | None = None
        sc = self.scenario
        self.get_logger().info(
            f"DEM scenario '{sc.name}' on {sc.backend}: {sc.duration_s:g} s of sim time, slope {sc.slope_deg:g} deg, "
            f"body sample every {sc.body_sample_interval_s:g} s, step {sc.dt_s:.3g} s; publishing odom -> "
            f"{self._body_frame}, contact/forces/{body}, {HEIGHTMAP_TOPIC} (cells {cell_m * 1e3:.1f} mm)")

    # --- run ------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the engine in its worker (called from the spin loop, where a stop signal only sets
        a flag: the worker never starts half-way through a KeyboardInterrupt)."""
        self.stream = SampleStream(self._samples, self._builder)
        self.stream.start()
        self._started_wall = time.perf_counter()
        if self.params['wait_for_peers_s'] > 0.0:
            self._waiting_until = self._started_wall + self.params['wait_for_peers_s']

    def _missing_peers(self) -> list[str]:
        return [publisher.topic_name for publisher in (self._odom_pub, self._truth_pub, self._contact_pub)
                if publisher.get_subscription_count() == 0]

    def _peers_ready(self) -> bool:
        missing = self._missing_peers()
        if missing and time.perf_counter() < self._waiting_until:
            return False
        if missing:
            self.get_logger().warning(f"gave up waiting for subscribers on {', '.join(missing)}: starting")
        self._waiting_until = None
        return True

    def advance(self) -> None:
        """Publish the samples the worker has ready; diagnostics every DIAGNOSTICS_PERIOD_S (wall)."""
        if self.stream is None:
            self.start()
        if self._waiting_until is None or self._peers_ready():
            try:
                frames = self.stream.take(FRAMES_PER_ROUND)
            except ScenarioError as error:   # found only once the engine runs (e.g. MPI, engine input)
                raise StartupError(f'dem_node: {error}') from error
            for frame in frames:
                self._publish(frame)
            if not frames and self.stream.exhausted:
                self.finished = True
        now = time.perf_counter()
        if self.finished or now >= self._diagnostics_due_wall:
            self._diagnostics_due_wall = now + DIAGNOSTICS_PERIOD_S
            self._publish_diagnostics()
        if self.finished:
            wall_s = time.perf_counter() - self._started_wall
            self.get_logger().info(f'reached duration_s = {self.scenario.duration_s:g} s of sim time '
                                   f'({self._published} samples) in {wall_s:.1f} s wall')

    def stop_stream(self) -> bool:
        """End the worker; True when the engine was closed (else it dies with the process)."""
        if self.stream is None:
            return True
        # LAMMPS chunks can be cut short; a DEM-Engine chunk is waited for (STOP_WAIT_S), then left
        interrupt = lammps_backend.interrupt_open_runs if self.scenario.backend == 'lammps' else None
        return self.stream.stop(interrupt, STOP_WAIT_S)

    # --- publishing -------------------------------------------------------------------------------
    def _header(self, stamp_ns: int, frame_id: str) -> Header:
        header = Header(frame_id=frame_id)
        header.stamp.sec, header.stamp.nanosec = divmod(stamp_ns, 1_000_000_000)
        return header

    def _publish(self, frame: DemFrame) -> None:
        if self._first_sample_wall is None:
            self._first_sample_wall = time.perf_counter()
            self.get_logger().info('first DEM sample: publishing')
        stamp_ns = round(frame.t_s * 1e9)
        clock = ClockMsg()
        clock.clock = self._header(stamp_ns, '').stamp
        self._clock_pub.publish(clock)
        body = frame.body
        for publisher, covariance in ((self._truth_pub, False), (self._odom_pub, True)):
            odom = Odometry(header=self._header(stamp_ns, self._odom_frame), child_frame_id=self._body_frame)
            pose, twist = odom.pose.pose, odom.twist.twist
            pose.position.x, pose.position.y, pose.position.z = (float(v) for v in body.position_m)
            (pose.orientation.x, pose.orientation.y, pose.orientation.z,
             pose.orientation.w) = (float(v) for v in body.orientation_xyzw)
            twist.linear.x, twist.linear.y, twist.linear.z = (float(v) for v in body.linear_velocity_m_s)
            twist.angular.x, twist.angular.y, twist.angular.z = (float(v) for v in body.angular_velocity_rad_s)
            if covariance:  # odom = ground truth here; the sim's floor on its VIO-like covariance
                pose_covariance = np.zeros(36)
                pose_covariance[[0, 7, 14]], pose_covariance[[21, 28, 35]] = 1e-6, 1e-4
                odom.pose.covariance = pose_covariance.tolist()
            publisher.publish(odom)
        wrench = WrenchStamped(header=self._header(stamp_ns, self._body_frame))
        wrench.wrench.force.x, wrench.wrench.force.y, wrench.wrench.force.z = (float(v) for v in body.force_n)
        wrench.wrench.torque.x, wrench.wrench.torque.y, wrench.wrench.torque.z = (float(v) for v in body.torque_nm)
        self._contact_pub.publish(wrench)
        if self._tf_pub is not None:
            transform = TransformStamped(header=self._header(stamp_ns, self._odom_frame),
                                         child_frame_id=self._body_frame)
            t, r = transform.transform.translation, transform.transform.rotation
            t.x, t.y, t.z = (float(v) for v in body.position_m)
            r.x, r.y, r.z, r.w = (float(v) for v in body.orientation_xyzw)
            self._tf_pub.publish(TFMessage(transforms=[transform]))
        if frame.heightmap is not None and self._heightmap_pub is not None:
            data, count = pack_heightmap(frame.heightmap)
            self._heightmap_pub.publish(PointCloud2(
                header=self._header(stamp_ns, self._odom_frame), height=1, width=count,
                fields=self._heightmap_fields, is_bigendian=False, point_step=POINT_STEP,
                row_step=POINT_STEP * count, data=data, is_dense=True))
        self._published += 1
        self._last_frame = frame
        progress = self._progress()
        self.get_logger().info(
            f"t = {frame.t_s:.3f} / {self.scenario.duration_s:g} s ({progress['progress_percent']:.0f} %), "
            f"ETA {format_duration(progress['eta_s'])}", throttle_duration_sec=PROGRESS_LOG_PERIOD_S)

    def _progress(self) -> dict[str, float]:
        t_s = self._last_frame.t_s if self._last_frame is not None else 0.0
        running_s = time.perf_counter() - self._first_sample_wall if self._first_sample_wall is not None else 0.0
        return progress_values(t_s, self.scenario.duration_s, running_s)

    def _publish_diagnostics(self) -> None:
        frame, sc = self._last_frame, self.scenario
        progress = self._progress()
        if self.finished:
            phase, level = 'done: duration reached', DiagnosticStatus.OK
        elif frame is None:
            phase, level = 'settling the bed and the body (no sample yet)', DiagnosticStatus.OK
        else:
            phase, level = 'running', DiagnosticStatus.OK
        values = {
            'terrain': 'dem',
            'backend': sc.backend,
            'scenario': sc.name,
            'sim_time_s': f'{frame.t_s if frame else 0.0:.4f}',
            'duration_s': f'{sc.duration_s:g}',
            'progress_percent': f"{progress['progress_percent']:.1f}",
            'eta_s': f"{progress['eta_s']:.0f}",
            'real_time_factor': f"{progress['real_time_factor']:.2g}",
            'wall_elapsed_s': f'{time.perf_counter() - self._started_wall:.1f}',
            'samples_published': str(self._published),
            'time_step_s': f'{sc.dt_s:.3g}',
            'sinkage_m': f'{frame.sinkage_m:.4f}' if frame else 'nan',
        }
        status = DiagnosticStatus(level=level, name='cobra_sim: dem', hardware_id=f'dem/{sc.backend}', message=phase,
                                  values=[KeyValue(key=k, value=v) for k, v in values.items()])
        stamp_ns = round(frame.t_s * 1e9) if frame else 0
        self._diag_pub.publish(DiagnosticArray(header=self._header(stamp_ns, ''), status=[status]))

    def flush_publishers(self) -> None:
        """Before exiting at the end: every reliable subscriber has the last samples (bounded)."""
        deadline = time.monotonic() + FLUSH_TIMEOUT_S
        for publisher in self.publishers:
            if publisher.qos_profile.reliability == ReliabilityPolicy.RELIABLE:
                left_s = max(deadline - time.monotonic(), 0.0)
                publisher.wait_for_all_acked(Duration(nanoseconds=round(left_s * 1e9)))


def spin_until_finished(node: DemNode) -> None:
    """Executor rounds of at most WAIT_S between looks at the worker's samples; a stop signal
    (deferred_stop) ends the loop at once, then the worker is stopped."""
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    try:
        with deferred_stop():
            while rclpy.ok() and not node.finished and not stop_requested():
                node.advance()
                if not node.finished:
                    executor.spin_once(timeout_sec=WAIT_S)
            if node.finished:
                node.flush_publishers()
    finally:
        executor.remove_node(node)
        if not node.finished:
            closed = node.stop_stream()
            node.get_logger().info('stopped: DEM run closed' if closed else
                                   'stopped while the engine settles: it ends with this process')


def main(args: list[str] | None = None) -> int:
    nodes: list[DemNode] = []

    def make_node() -> DemNode:
        nodes.append(DemNode())
        return nodes[-1]

    code = run_node(make_node, args, spin=spin_until_finished)
    if nodes and nodes[0].stream is not None and nodes[0].stream.running:
        # the engine is inside a long C call (still settling): leave it to die with the process
        # rather than run interpreter shutdown around a thread that still executes LAMMPS
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


if __name__ == '__main__':
    raise SystemExit(main())
