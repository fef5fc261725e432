"""DEM terrain in ROS mode: runs a DEM scenario (config/dem/) and publishes the sim's topics.

Slow (a LAMMPS bed runs far below real time) but the same contract as sim_node; the engine runs in a
worker thread, so a stop signal ends the node at once. Topics and stopping: the package README,
"ROS mode"; message conventions: cobra_dem.ros_mode.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from cobra_interfaces.msg import ContactWrenches
from geometry_msgs.msg import TransformStamped, Wrench
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import PointCloud2, PointField
from std_msgs.msg import Header

from cobra_common.interface_types import CONTACT_FORCES_TOPIC
from cobra_common.node_runtime import NodeLoop, Wait, declare_table, flush_publishers, run_node, take_over_sim_time
from cobra_common.ros_entry import StartupError
from cobra_dem import lammps_backend  # no `lammps` import until a run starts
from cobra_dem.dem_publisher import (ODOM_POSE_COVARIANCE, BodyRecord, DemPublisher, DiagnosticsRecord,
                                     HeightmapRecord)
from cobra_dem.dem_config import PARAMETERS, RUNTIME_PARAMETERS, check_parameters, sample_source
from cobra_dem.ros_mode import DemFrameBuilder, SampleStream
from cobra_dem.scenario import Scenario, ScenarioError, dem_cache_dir
from cobra_common.heightmap_cloud import FLOAT32, HEIGHTMAP_TOPIC, POINT_STEP, field_layout

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
PROGRESS_LOG_PERIOD_S = 10.0
STOP_WAIT_S = 0.5           # wall time the worker gets to close the engine after a stop signal


def declare_parameters(node: Node) -> dict[str, Any]:
    """Declare every dem_node parameter (dem_config.PARAMETERS); StartupError for a scenario or
    combination that cannot run.

    Also reads and validates the scenario file (no engine is loaded): p['scenario'] is the result.
    """
    p = declare_table(node, PARAMETERS, RUNTIME_PARAMETERS)
    if p['publish_tf'] and TFMessage is None:
        raise StartupError('publish_tf:=true needs tf2_msgs, which is not installed: run scripts/setup.sh '
                           '(it builds src/tf2_msgs into the venv) or set publish_tf:=false')
    return check_parameters(p)


class DemNode(Node):
    def __init__(self) -> None:
        super().__init__('dem_node')
        p = declare_parameters(self)
        self.params = p
        take_over_sim_time(self)  # this node is the clock: it must never wait on /clock itself
        self.scenario: Scenario = p['scenario']
        if self.scenario.mpi:
            self.get_logger().warning('the scenario asks for MPI; the ROS mode runs one process (one rank)')
        cache_dir = Path(p['cache_dir']) if p['cache_dir'] else dem_cache_dir()
        logger = self.get_logger()
        samples = sample_source(self.scenario, cache_dir, lambda line: logger.info(line))
        cell_m = p['heightmap_cell_m'] or self.scenario.bed.clump_extent_m
        builder = DemFrameBuilder(self.scenario.slope_deg, p['heightmap_period_s'], cell_m)
        self.core = DemPublisher(self.scenario, lambda: self._start_stream(samples, builder),
                                 p['wait_for_peers_s'])
        self.stream: SampleStream | None = None

        prefix, body = p['frame_prefix'], p['body_frame']
        self._odom_frame, self._body_frame = prefix + 'odom', prefix + body
        self._clock_pub = self.create_publisher(ClockMsg, CLOCK_TOPIC, STATE_QOS)
        self._odom_pub = self.create_publisher(Odometry, 'odom', STATE_QOS)
        self._truth_pub = self.create_publisher(Odometry, 'ground_truth/odom', STATE_QOS)
        self._contact_pub = self.create_publisher(ContactWrenches, CONTACT_FORCES_TOPIC, STATE_QOS)
        self._diag_pub = self.create_publisher(DiagnosticArray, 'diagnostics', STATE_QOS)
        self._heightmap_pub = self.create_publisher(PointCloud2, HEIGHTMAP_TOPIC, LATCHED_QOS) \
            if p['heightmap_period_s'] > 0.0 else None
        self._tf_pub = self.create_publisher(TFMessage, TF_TOPIC, TF_QOS) if p['publish_tf'] else None
        self._heightmap_fields = [PointField(name=name, offset=offset, datatype=FLOAT32, count=1)
                                  for name, offset in field_layout()]
        sc = self.scenario
        self.get_logger().info(
            f"DEM scenario '{sc.name}' on {sc.backend}: {sc.duration_s:g} s of sim time, slope {sc.slope_deg:g} deg, "
            f"body sample every {sc.body_sample_interval_s:g} s, step {sc.dt_s:.3g} s; publishing odom -> "
            f"{self._body_frame}, {CONTACT_FORCES_TOPIC}, {HEIGHTMAP_TOPIC} (cells {cell_m * 1e3:.1f} mm)")

    def _start_stream(self, samples: Callable[[], Iterator[Any]], builder: DemFrameBuilder) -> SampleStream:
        """The engine in its worker (started from the loop, where a stop signal only sets a flag:
        the worker never starts half-way through a KeyboardInterrupt)."""
        self.stream = SampleStream(samples, builder)
        self.stream.start()
        return self.stream

    @property
    def finished(self) -> bool:
        return self.core.finished

    def _missing_peers(self) -> list[str]:
        return [publisher.topic_name for publisher in (self._odom_pub, self._truth_pub, self._contact_pub)
                if publisher.get_subscription_count() == 0]

    def step(self) -> Wait:
        """One loop round of the core; its records become messages here."""
        try:
            out = self.core.step(time.perf_counter(), self._missing_peers)
        except ScenarioError as error:   # found only once the engine runs (e.g. MPI, engine input)
            raise StartupError(f'dem_node: {error}') from error
        logger = self.get_logger()
        for text in out.warnings:
            logger.warning(text)
        for body, heightmap in out.samples:
            self._publish_sample(body, heightmap)
        if out.progress is not None:
            logger.info(out.progress, throttle_duration_sec=PROGRESS_LOG_PERIOD_S)
        if out.diagnostics is not None:
            self._publish_diagnostics(out.diagnostics)
        for text in out.logs:
            logger.info(text)
        return Wait(WAIT_S)

    def stop_stream(self) -> bool:
        """End the worker; True when the engine was closed (else it dies with the process)."""
        if self.stream is None:
            return True
        # LAMMPS chunks can be cut short; a DEM-Engine chunk is waited for (STOP_WAIT_S), then left
        interrupt = lammps_backend.interrupt_open_runs if self.scenario.backend == 'lammps' else None
        return self.stream.stop(interrupt, STOP_WAIT_S)

    # --- records -> messages ------------------------------------------------------------------
    def _header(self, stamp_ns: int, frame_id: str) -> Header:
        header = Header(frame_id=frame_id)
        header.stamp.sec, header.stamp.nanosec = divmod(stamp_ns, 1_000_000_000)
        return header

    def _publish_sample(self, body: BodyRecord, heightmap: HeightmapRecord | None) -> None:
        stamp_ns = body.stamp_ns
        self._clock_pub.publish(ClockMsg(clock=self._header(stamp_ns, '').stamp))
        for publisher, covariance in ((self._truth_pub, None), (self._odom_pub, ODOM_POSE_COVARIANCE)):
            odom = Odometry(header=self._header(stamp_ns, self._odom_frame), child_frame_id=self._body_frame)
            pose, twist = odom.pose.pose, odom.twist.twist
            pose.position.x, pose.position.y, pose.position.z = body.position_m
            pose.orientation.x, pose.orientation.y, pose.orientation.z, pose.orientation.w = body.orientation_xyzw
            twist.linear.x, twist.linear.y, twist.linear.z = body.linear_velocity_m_s
            twist.angular.x, twist.angular.y, twist.angular.z = body.angular_velocity_rad_s
            if covariance is not None:
                odom.pose.covariance = list(covariance)
            publisher.publish(odom)
        wrench = Wrench()  # the sim's every-link message with one entry: read alike by logger and report
        wrench.force.x, wrench.force.y, wrench.force.z = body.force_n
        wrench.torque.x, wrench.torque.y, wrench.torque.z = body.torque_nm
        self._contact_pub.publish(ContactWrenches(header=self._header(stamp_ns, ''), link_names=[self._body_frame],
                                                  wrenches=[wrench]))
        if self._tf_pub is not None:
            transform = TransformStamped(header=self._header(stamp_ns, self._odom_frame),
                                         child_frame_id=self._body_frame)
            t, r = transform.transform.translation, transform.transform.rotation
            t.x, t.y, t.z = body.position_m
            r.x, r.y, r.z, r.w = body.orientation_xyzw
            self._tf_pub.publish(TFMessage(transforms=[transform]))
        if heightmap is not None and self._heightmap_pub is not None:
            count = heightmap.count
            self._heightmap_pub.publish(PointCloud2(
                header=self._header(stamp_ns, self._odom_frame), height=1, width=count,
                fields=self._heightmap_fields, is_bigendian=False, point_step=POINT_STEP,
                row_step=POINT_STEP * count, data=heightmap.data, is_dense=True))

    def _publish_diagnostics(self, record: DiagnosticsRecord) -> None:
        status = DiagnosticStatus(level=DiagnosticStatus.OK, name='cobra_sim: dem',
                                  hardware_id=f'dem/{self.scenario.backend}', message=record.message,
                                  values=[KeyValue(key=k, value=v) for k, v in record.values.items()])
        self._diag_pub.publish(DiagnosticArray(header=self._header(record.stamp_ns, ''), status=[status]))


def spin_until_finished(node: DemNode) -> None:
    """Loop rounds of at most WAIT_S (all in the executor: services stay served) until the run
    is over or a stop signal; then flush (finished) or stop the worker (stopped)."""
    try:
        with NodeLoop(node, WAIT_S) as loop:
            if loop.run(node.step, until=lambda: node.finished):
                flush_publishers(node)
    finally:
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
