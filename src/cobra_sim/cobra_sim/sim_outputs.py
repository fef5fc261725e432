"""The sim's topics at the edge: the publishers and the ready CDR messages of one control period.

The hot topics go out as ready CDR through publish_raw, /clock once per command period, and samples
in bursts, each to cut the sim's CPU per message. Design notes: the package README,
"cobra_sim.sim_outputs".
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.publisher import Publisher
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import Imu, JointState, PointCloud2, PointField
from std_msgs.msg import Bool, Header

from cobra_common.cdr import RawClock, RawContactWrenches, RawImu, RawJointState, RawOdometry, RawWrenchStamped
from cobra_common.command_guard import JointCommandGuard
from cobra_common.heightmap_cloud import FLOAT32, HEIGHTMAP_TOPIC, POINT_STEP, field_layout, pack_heightmap
from cobra_common.interface_types import CONTACT_FORCES_TOPIC
from cobra_interfaces.msg import ContactWrenches
from cobra_sim.engine import CobraSim, steps_per_period
from cobra_sim.scheduler import Scheduler

STATE_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
CLOCK_TOPIC = '/clock'  # global: one sim time for every node, whatever their namespace


class SimOutputs:
    """Every topic the sim publishes, and which of them are due after each control period."""

    def __init__(self, node: Node, sim: CobraSim, p: dict[str, Any], root_link: str, clock_every: int) -> None:
        self.sim, self.params = sim, p
        control_period_s = p['control_period_s']

        def every(period_s: float, name: str) -> int:
            return steps_per_period(period_s, control_period_s, name) if period_s else 0
        self.clock_every = clock_every
        self.imu_every, self.odom_every = every(p['imu_period_s'], 'imu_period_s'), every(p['odom_period_s'], 'odom_period_s')
        self.diagnostics_every, self.latch_every = every(1.0, '1 s diagnostics'), every(0.1, '0.1 s latch state')
        self.contact_every = every(p['contact_forces_period_s'], 'contact_forces_period_s')
        self.heightmap_every = every(p['heightmap_period_s'], 'heightmap_period_s') if sim.terrain.has_heightmap else 0

        prefix = p['frame_prefix']
        self.clock_pub = node.create_publisher(ClockMsg, CLOCK_TOPIC, STATE_QOS)
        self.joint_pub = node.create_publisher(JointState, 'joint_states', qos_profile_sensor_data)
        self.imu_pub = node.create_publisher(Imu, 'imu/data', qos_profile_sensor_data)
        self.odom_pub = node.create_publisher(Odometry, 'odom', STATE_QOS)
        self.truth_pub = node.create_publisher(Odometry, 'ground_truth/odom', STATE_QOS)
        self.diag_pub = node.create_publisher(DiagnosticArray, 'diagnostics', STATE_QOS)
        self.latch_pub = node.create_publisher(Bool, 'latch/state', LATCHED_QOS)
        link_names = sim.robot_body_names
        self._contacts = RawContactWrenches([prefix + name for name in link_names])
        self.contacts_pub = node.create_publisher(ContactWrenches, CONTACT_FORCES_TOPIC, STATE_QOS) \
            if self.contact_every else None
        self._link_contact_messages = [RawWrenchStamped(prefix + name) for name in link_names]
        self._link_contact_pubs = [
            node.create_publisher(WrenchStamped, f'{CONTACT_FORCES_TOPIC}/{name}', STATE_QOS)
            for name in link_names] if self.contact_every and p['contact_forces_per_link'] else []
        self.contact_pubs = [*([self.contacts_pub] if self.contacts_pub else []), *self._link_contact_pubs]
        # the latest deformed-terrain snapshot, latched for late subscribers (RViz, the logger)
        self._heightmap_pub = node.create_publisher(PointCloud2, HEIGHTMAP_TOPIC, LATCHED_QOS) \
            if self.heightmap_every else None
        self._heightmap_fields = [PointField(name=name, offset=offset, datatype=FLOAT32, count=1)
                                  for name, offset in field_layout()]
        self._publish_raw = {publisher: publisher.handle.publish_raw for publisher in (
            self.clock_pub, self.joint_pub, self.imu_pub, self.odom_pub, self.truth_pub, *self.contact_pubs)}
        self.clock = RawClock()
        self._joints = RawJointState(sim.joint_names)
        self._imu = RawImu(prefix + sim.imu_frame)
        self._imu.orientation_covariance[0] = -1.0  # no orientation estimate, as on the D435i
        self._truth = RawOdometry(prefix + 'odom', prefix + root_link)
        self._odom = RawOdometry(prefix + 'odom', prefix + root_link)
        self._pending: list[tuple[Callable[[Any], None], Any]] = []  # (publish, message) in stamp order

    def _send(self, publish: Callable[[Any], None], message: Any) -> None:
        self._pending.append((publish, message))

    def flush(self) -> None:
        """Publish every queued sample, in the order queued."""
        for publish, message in self._pending:
            publish(message)
        self._pending.clear()

    def publish_latch(self) -> None:
        """latch/state now, after everything queued before it (a flip from a service call)."""
        self.flush()
        self.latch_pub.publish(Bool(data=self.sim.latched))

    @property
    def recorded(self) -> list[Publisher]:
        """The topics a recorder must have subscribed before the run starts."""
        return [self.joint_pub, self.imu_pub, self.odom_pub, self.truth_pub, *self.contact_pubs]

    def publish_clock(self) -> None:
        """/clock (its last value while sim time is held), after everything queued before it."""
        self.flush()
        self._publish_raw[self.clock_pub](self.clock.to_bytes())

    def publish_period(self, periods: int, now_ns: int) -> bool:
        """The samples due after control period `periods`, stamped now_ns; True when diagnostics are due."""
        sim = self.sim
        if periods % self.clock_every == 0:  # before the samples it dates, as a lockstep boundary
            self.clock.set_stamp_ns(now_ns)
            self.publish_clock()
        joints = self._joints
        joints.set_stamp_ns(now_ns)
        joints.position[:] = sim.joint_positions()
        joints.velocity[:] = sim.joint_velocities()
        joints.effort[:] = sim.joint_efforts()
        self._send(self._publish_raw[self.joint_pub], joints.to_bytes())
        if periods % self.imu_every == 0:
            self._publish_imu(now_ns)
        if periods % self.odom_every == 0:
            self._publish_odometry(now_ns)
        if periods % self.latch_every == 0 and sim.has_latch:
            self._send(self.latch_pub.publish, Bool(data=sim.latched))
        if self.contact_every and periods % self.contact_every == 0:
            self._publish_contact_forces(now_ns)
        if self.heightmap_every and periods % self.heightmap_every == 0:
            self._publish_heightmap(now_ns)
        return periods % self.diagnostics_every == 0

    def publish_diagnostics(self, now_ns: int, scheduler: Scheduler, guard: JointCommandGuard) -> None:
        """The 1 s status: pacing, terrain, latch, lockstep holds and the command guard's counts."""
        sim = self.sim
        sim_time = scheduler.time_ns * 1e-9  # since t = 0, whatever the clock_origin
        stale = guard.is_stale(sim_time)
        status = DiagnosticStatus(
            level=DiagnosticStatus.WARN if stale or guard.rejections else DiagnosticStatus.OK,
            name='cobra_sim: physics', hardware_id='mujoco',
            message='no fresh joint_commands: holding position' if stale else 'running')
        values = {
            'real_time_factor': f'{scheduler.measured_rtf(time.perf_counter()):.2f}',
            'sim_time_s': f'{sim_time:.3f}',
            'terrain': sim.terrain.name,
            # where the sim put the head before settling: a twin of this bag starts there (cobra_bringup.twin)
            'start_xy_yaw': ' '.join(repr(float(v)) for v in sim.params.start_xy_yaw),
            **sim.terrain.diagnostics(),  # soil: sinkage, nodes in contact, contact patches
            'torque_enabled': str(sim.torque_enabled),
            **({'latched': str(sim.latched),
                'latch_frames_distance_m': f'{sim.latch_frames_distance_m():.4f}'} if sim.has_latch else {}),
            'lockstep': str(scheduler.lockstep),
            **{f'lockstep_held_for_{peer}_s': f'{seconds:.2f}' for peer, seconds in scheduler.held_s.items()},
            'commands_clamped': str(guard.clamped),
            **{f'commands_rejected_{cause}': str(count) for cause, count in guard.rejections.items()},
        }
        status.values = [KeyValue(key=k, value=v) for k, v in values.items()]
        header = Header()
        header.stamp.sec, header.stamp.nanosec = divmod(now_ns, 1_000_000_000)
        self._send(self.diag_pub.publish, DiagnosticArray(header=header, status=[status]))

    def _publish_imu(self, now_ns: int) -> None:
        gyro, accel = self.sim.imu()
        gyro_noise, accel_noise = self.params['imu_gyro_noise_rad_s'], self.params['imu_accel_noise_m_s2']
        imu = self._imu
        imu.set_stamp_ns(now_ns)
        imu.angular_velocity[:] = gyro + self.sim.rng.normal(0.0, gyro_noise, 3) if gyro_noise else gyro
        imu.linear_acceleration[:] = accel + self.sim.rng.normal(0.0, accel_noise, 3) if accel_noise else accel
        imu.angular_velocity_covariance[::4] = max(gyro_noise, 1e-4) ** 2
        imu.linear_acceleration_covariance[::4] = max(accel_noise, 1e-3) ** 2
        self._send(self._publish_raw[self.imu_pub], imu.to_bytes())

    def _publish_odometry(self, now_ns: int) -> None:
        position, quaternion_xyzw = self.sim.head_pose()
        linear, angular = self.sim.head_velocity_local()
        noise = self.params['odom_noise_m']
        estimated = position + self.sim.rng.normal(0.0, noise, 3) if noise else position
        for message, xyz in ((self._truth, position), (self._odom, estimated)):
            message.set_stamp_ns(now_ns)
            message.position[:] = xyz
            message.orientation_xyzw[:] = quaternion_xyzw
            message.linear[:] = linear
            message.angular[:] = angular
        self._odom.pose_covariance[[0, 7, 14]] = max(noise, 1e-3) ** 2
        self._odom.pose_covariance[[21, 28, 35]] = 1e-4
        self._send(self._publish_raw[self.truth_pub], self._truth.to_bytes())
        self._send(self._publish_raw[self.odom_pub], self._odom.to_bytes())

    def _publish_contact_forces(self, now_ns: int) -> None:
        if not any(publisher.get_subscription_count() for publisher in self.contact_pubs):
            return  # nobody listens: skip the contact read-out (a third of a physics step)
        wrenches = self.sim.contact_wrenches()
        contacts = self._contacts
        contacts.set_stamp_ns(now_ns)
        contacts.wrenches[:] = wrenches
        self._send(self._publish_raw[self.contacts_pub], contacts.to_bytes())
        for publisher, message, wrench in zip(self._link_contact_pubs, self._link_contact_messages, wrenches):
            message.set_stamp_ns(now_ns)
            message.wrench[:] = wrench
            self._send(self._publish_raw[publisher], message.to_bytes())

    def _publish_heightmap(self, now_ns: int) -> None:
        """The deformed nodes as a PointCloud2 in odom (x, y, z, sinkage, pressure; float32)."""
        data, count = pack_heightmap(self.sim.terrain.heightmap())
        header = Header(frame_id=self.params['frame_prefix'] + 'odom')
        header.stamp.sec, header.stamp.nanosec = divmod(now_ns, 1_000_000_000)
        self._send(self._heightmap_pub.publish, PointCloud2(
            header=header, height=1, width=count, fields=self._heightmap_fields, is_bigendian=False,
            point_step=POINT_STEP, row_step=POINT_STEP * count, data=data, is_dense=True))
