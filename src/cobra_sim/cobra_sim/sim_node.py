"""Simulation node: steps CobraSim and publishes the hardware's topics plus the global `/clock`.

The node is the clock: it runs its own loop (no wall timer per step) and publishes the hot topics
as ready CDR bytes (cobra_common.cdr). Paced (real_time_factor > 0) it sleeps in the
executor between control periods; unpaced it runs flat out, and in lockstep (cobra_sim.lockstep)
it stops at every command boundary until the gait's command for it arrived and the logger kept
up. Every wait is a short executor spin, so SIGINT/SIGTERM stop the node within 0.1 s.
"""

from __future__ import annotations

import gc
import time
from typing import Any

import numpy as np
import rclpy
import rclpy._rclpy_pybind11 as rcl
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
from rclpy.duration import Duration
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import (DurabilityPolicy, QoSProfile, ReliabilityPolicy,
                       qos_profile_sensor_data)
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import Imu, JointState, PointCloud2, PointField
from std_msgs.msg import Bool, Header
from std_srvs.srv import SetBool

from cobra_common.cdr import RawClock, RawContactWrenches, RawImu, RawJointState, RawOdometry, RawWrenchStamped
from cobra_common.command_guard import JointCommandGuard
from cobra_common.interface_types import CONTACT_FORCES_TOPIC
from cobra_interfaces.msg import ContactWrenches
from cobra_common.frames import frame_prefix_problem
from cobra_common.ros_entry import StartupError, declare, deferred_stop, describe, run_node, stop_requested
from cobra_description.robot_model import LATCH_JOINT, RobotModelError, load_robot_model
from cobra_sim.clock_origin import CLOCK_ORIGINS, clock_origin_ns, origin_grid_ns, since_origin_s, stamp_ns
from cobra_sim.engine import CobraSim, SimConfigError, SimParams, steps_per_period
from cobra_common.heightmap_cloud import FLOAT32, HEIGHTMAP_TOPIC, POINT_STEP, field_layout, pack_heightmap
from cobra_sim.lockstep import (LOCKSTEP_MODES, LockstepConfigError, LockstepGate,
                                control_periods_per_command, lockstep_active)
from cobra_sim.mjcf import ServoParams
from cobra_sim.terrain import TERRAINS, make_terrain

COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
STATE_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
PROGRESS_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
CLOCK_TOPIC = '/clock'  # global: one sim time for every node, whatever their namespace
LOGGER_PROGRESS_TOPIC = 'logger/progress'  # rosgraph_msgs/Clock: newest joint_states stamp recorded
BATCH_WALL_S = 0.005  # longest run of steps between two stop-signal checks
EXECUTOR_PERIOD_S = 0.02  # unpaced: services and parameters are served this often [s, wall]
WAIT_S = 0.05  # executor wait while paced, held at t = 0 or in lockstep (bounds the stop latency)
FLUSH_TIMEOUT_S = 1.0  # end of a finite run: longest wait for reliable subscribers to ack the last samples [s]
CLOCK_REPEAT_S = 0.05  # while sim time is held, /clock is repeated (a lost best-effort sample)
WARNING_PERIOD_S = 5.0


def declare_parameters(node: Node) -> dict[str, Any]:
    """Declare every sim_node parameter; StartupError for combinations that cannot run."""
    lockstep_descriptor = describe(
        'auto | on | off: step past a command boundary only once the command stamped for it '
        'arrived and the logger is within lockstep_max_logger_lag_s; auto = on when '
        'real_time_factor is 0 (true/false, what YAML makes of on/off, are accepted)', read_only=True)
    lockstep_descriptor.dynamic_typing = True  # `lockstep:=off` arrives as the YAML boolean false
    p = declare(node, {
        'urdf_path': ('', describe('robot URDF; empty = installed cobra_description', read_only=True)),
        'terrain': ('rigid', describe(f'terrain model: {" | ".join(sorted(TERRAINS))}', read_only=True)),
        'terrain_file': ('', describe(
            "the terrain's parameter YAML (one per soil, config/soil/); '' = its default "
            '(scm: loose_sand.yaml, compliant: compliant_ground.yaml); rigid takes none', read_only=True)),
        'slope_deg': (0.0, describe(
            'tilt of the rigid ground [deg], descending along world +x (the head points downhill at '
            'start); 0 <= slope_deg < 90; only terrain:=rigid can be sloped (thesis §28 tumbling: 24)',
            read_only=True, float_range=(0.0, 90.0), allowed='0 <= slope_deg < 90')),
        'latch_capture_distance_m': (0.03, describe(
            'latch/set true engages (welds head to tail as they are) only when head_latch_link and '
            'tail_latch_link are at most this far apart [m]', float_range=(0.001, 0.5))),
        'heightmap_period_s': (0.5, describe(
            f'{HEIGHTMAP_TOPIC} period [s] (deformable terrains only)', read_only=True, float_range=(0.2, 1.0))),
        'timestep_s': (0.001, describe('physics step [s]', read_only=True, float_range=(1e-5, 0.01))),
        'control_period_s': (0.002, describe(
            'servo update and joint_states period [s]; a whole number of physics steps',
            read_only=True, float_range=(1e-4, 0.1))),
        'settle_duration_s': (2.0, describe('settling before t = 0 [s]', read_only=True,
                                            float_range=(0.0, 60.0))),
        'clock_origin': ('zero', describe(
            f"{' | '.join(CLOCK_ORIGINS)}: /clock (and every stamp) starts at 0, or at the wall-clock "
            'time of t = 0 floored to a whole second and command period (real dates in bags); '
            'duration_s and all periods still count from t = 0', read_only=True)),
        'duration_s': (0.0, describe('stop and exit after this sim time [s]; 0 = run until stopped',
                                     float_range=(0.0, 1e6))),
        'real_time_factor': (1.0, describe('pace to this many sim seconds per wall second; '
                                           '0 = as fast as possible', float_range=(0.0, 1000.0))),
        'imu_period_s': (0.004, describe('imu/data period [s]', read_only=True, float_range=(1e-3, 1.0))),
        'odom_period_s': (0.01, describe('odom and ground_truth/odom period [s]', read_only=True,
                                         float_range=(1e-3, 1.0))),
        'command_timeout_s': (0.2, describe('hold position after this long without a command [s]',
                                            float_range=(0.01, 10.0))),
        'servo_kp_nm_rad': (40.0, describe('servo position gain [N·m/rad]', read_only=True,
                                           float_range=(0.0, 1000.0))),
        'servo_kd_nm_s_rad': (0.8, describe('servo damping gain [N·m·s/rad]', read_only=True,
                                            float_range=(0.0, 100.0))),
        'servo_armature_kg_m2': (0.01, describe('reflected rotor inertia [kg·m²]', read_only=True,
                                                float_range=(0.0, 1.0))),
        'imu_gyro_noise_rad_s': (0.005, describe('gyro noise std [rad/s]', float_range=(0.0, 1.0))),
        'imu_accel_noise_m_s2': (0.05, describe('accelerometer noise std [m/s²]', float_range=(0.0, 10.0))),
        'odom_noise_m': (0.0, describe('position noise std on odom (mimics VIO) [m]',
                                       float_range=(0.0, 1.0))),
        'seed': (0, describe('random seed of the noise generator', read_only=True)),
        'contact_forces_period_s': (0.01, describe(
            'contact/forces period [s]: every link\'s ground reaction wrench in one '
            'cobra_interfaces/ContactWrenches; 0 = not published', read_only=True,
            float_range=(0.0, 1.0))),
        'contact_forces_per_link': (False, describe(
            'also publish each link\'s wrench as geometry_msgs/WrenchStamped on '
            'contact/forces/<link> at the same period (for RViz; a dozen more messages per sample)',
            read_only=True)),
        'frame_prefix': ('', describe(
            "prefix of every frame id the sim stamps (odom, base_link, imu and link frames), e.g. "
            "'cobra/' so that two robots share one TF tree; '' = none", read_only=True)),
        'wait_for_peers_s': (0.0, describe(
            'hold sim time at 0 until the peers below are present, at most this long [s]; '
            '0 = start at once', read_only=True, float_range=(0.0, 600.0))),
        'wait_for_recorder': (True, describe(
            'a peer: joint_states, imu/data, odom and ground_truth/odom each have a subscriber '
            '(and, in lockstep, a logger publishes logger/progress)', read_only=True)),
        'wait_for_commands': (True, describe(
            'a peer: a node (the gait) publishes joint_commands', read_only=True)),
        'lockstep': ('auto', lockstep_descriptor),
        'command_period_s': (0.01, describe(
            "the gait's command period [s] (1 / its rate_hz): lockstep boundaries and the /clock "
            'period (nodes on sim time tick on it); a whole number of control periods',
            read_only=True, float_range=(1e-4, 1.0))),
        'lockstep_max_logger_lag_s': (0.05, describe(
            'lockstep: wait while the newest joint_states stamp the logger wrote is older than '
            'this [s of sim time]', read_only=True, float_range=(0.0, 10.0))),
        'lockstep_peer_timeout_s': (5.0, describe(
            'lockstep: warn (again every this long) while a present peer keeps the sim waiting; '
            'at the end of duration_s give up waiting after this long [s, wall clock]',
            read_only=True, float_range=(0.1, 600.0))),
    })
    p['lockstep'] = {True: 'on', False: 'off'}.get(p['lockstep'], p['lockstep'])
    if p['clock_origin'] not in CLOCK_ORIGINS:
        raise StartupError(f"clock_origin:={p['clock_origin']} is not one of {', '.join(CLOCK_ORIGINS)} "
                           '(zero: stamps from 0; wall: stamps from the wall-clock time of the start)')
    if p['lockstep'] not in LOCKSTEP_MODES:
        raise StartupError(f"lockstep:={p['lockstep']} is not one of {', '.join(LOCKSTEP_MODES)}")
    try:  # reads and range-checks the terrain file, so the bringup's pre-start check refuses a bad one
        terrain = make_terrain(p['terrain'], p['terrain_file'], p['slope_deg'])
        robot = load_robot_model(p['urdf_path'] or None)
        links = [name for name, link in robot.links.items() if link.collisions]
        # the robot starts in the URDF's zero pose at the origin: a start off the terrain is refused here
        terrain.check_start(links, np.array([robot.transform(robot.root, name)[:2, 3] for name in links]))
    except ValueError as error:  # TerrainConfigError / RobotModelError: names the parameter and the file
        raise StartupError(str(error)) from error
    if (problem := frame_prefix_problem(p['frame_prefix'])) is not None:
        raise StartupError(problem)
    try:
        for name in ('imu_period_s', 'odom_period_s', 'contact_forces_period_s', 'command_period_s',
                     'heightmap_period_s'):
            if p[name]:
                steps_per_period(p[name], p['control_period_s'], name)
        steps_per_period(p['control_period_s'], p['timestep_s'], 'control_period_s')
        control_periods_per_command(p['command_period_s'], p['control_period_s'])
    except (SimConfigError, LockstepConfigError) as error:
        raise StartupError(str(error)) from error
    return p


class SimNode(Node):
    def __init__(self) -> None:
        super().__init__('sim_node')
        p = declare_parameters(self)
        self.params = p
        if self.get_parameter('use_sim_time').value:
            # the sim is the clock: subscribing to its own /clock would only cost a callback per step
            self.set_parameters([Parameter('use_sim_time', value=False)])
        try:
            robot = load_robot_model(p['urdf_path'] or None)
            terrain = make_terrain(p['terrain'], p['terrain_file'], p['slope_deg'])  # a wrench terrain warms numba here
            sim_params = SimParams(
                timestep_s=p['timestep_s'], control_period_s=p['control_period_s'],
                settle_duration_s=p['settle_duration_s'],
                latch_capture_distance_m=p['latch_capture_distance_m'],
                servo=ServoParams(p['servo_kp_nm_rad'], p['servo_kd_nm_s_rad'], p['servo_armature_kg_m2']))
            self.sim = CobraSim(robot, terrain, sim_params, np.random.default_rng(p['seed']))
        except (RobotModelError, SimConfigError, ValueError) as error:
            raise StartupError(str(error)) from error
        control_period_s = p['control_period_s']
        self._imu_every = steps_per_period(p['imu_period_s'], control_period_s, 'imu_period_s')
        self._odom_every = steps_per_period(p['odom_period_s'], control_period_s, 'odom_period_s')
        self._diagnostics_every = steps_per_period(1.0, control_period_s, '1 s diagnostics')
        self._latch_every = steps_per_period(0.1, control_period_s, '0.1 s latch state')
        self._contact_every = steps_per_period(
            p['contact_forces_period_s'], control_period_s, 'contact_forces_period_s') \
            if p['contact_forces_period_s'] else 0
        self._command_every = control_periods_per_command(p['command_period_s'], control_period_s)
        # /clock once per command period (the gait's tick), not per physics step: a sample costs
        # ~25 µs of the sim's CPU and one callback in every node on sim time
        self._clock_every = self._command_every
        self._heightmap_every = steps_per_period(p['heightmap_period_s'], control_period_s, 'heightmap_period_s') \
            if self.sim.terrain.has_heightmap else 0
        self._timestep_ns = round(p['timestep_s'] * 1e9)
        self._control_period_ns = self._timestep_ns * self.sim.steps_per_control
        self.add_post_set_parameters_callback(self._apply_parameters)
        self._latch_limits = robot.joint(LATCH_JOINT).limits if LATCH_JOINT in self.sim.joint_names else None
        self.guard = JointCommandGuard(robot.gait_joints(), p['command_timeout_s'])  # latch: latch/set only
        self._gate = LockstepGate(p['lockstep_max_logger_lag_s'])

        prefix = p['frame_prefix']
        self._clock_pub = self.create_publisher(ClockMsg, CLOCK_TOPIC, STATE_QOS)
        self._joint_pub = self.create_publisher(JointState, 'joint_states', qos_profile_sensor_data)
        self._imu_pub = self.create_publisher(Imu, 'imu/data', qos_profile_sensor_data)
        self._odom_pub = self.create_publisher(Odometry, 'odom', STATE_QOS)
        self._truth_pub = self.create_publisher(Odometry, 'ground_truth/odom', STATE_QOS)
        self._diag_pub = self.create_publisher(DiagnosticArray, 'diagnostics', STATE_QOS)
        self._latch_pub = self.create_publisher(Bool, 'latch/state', LATCHED_QOS)
        link_names = self.sim.robot_body_names
        # all links in one message: a dozen WrenchStamped per sample cost ~26 µs each in rclpy
        self._contacts = RawContactWrenches([prefix + name for name in link_names])
        self._contacts_pub = self.create_publisher(ContactWrenches, CONTACT_FORCES_TOPIC, STATE_QOS) \
            if self._contact_every else None
        self._link_contact_messages = [RawWrenchStamped(prefix + name) for name in link_names]
        self._link_contact_pubs = [
            self.create_publisher(WrenchStamped, f'{CONTACT_FORCES_TOPIC}/{name}', STATE_QOS)
            for name in link_names] if self._contact_every and p['contact_forces_per_link'] else []
        self._contact_pubs = [*([self._contacts_pub] if self._contacts_pub else []), *self._link_contact_pubs]
        # the latest deformed-terrain snapshot, latched for late subscribers (RViz, the logger)
        self._heightmap_pub = self.create_publisher(PointCloud2, HEIGHTMAP_TOPIC, LATCHED_QOS) \
            if self._heightmap_every else None
        self._heightmap_fields = [PointField(name=name, offset=offset, datatype=FLOAT32, count=1)
                                  for name, offset in field_layout()]
        self._command_sub = self.create_subscription(JointState, 'joint_commands', self._on_command, COMMAND_QOS)
        self._progress_sub = self.create_subscription(
            ClockMsg, LOGGER_PROGRESS_TOPIC, self._on_logger_progress, PROGRESS_QOS)
        # rclpy's Publisher.publish wraps the C call in a handle context and a type check, which
        # costs more than publishing preserialized bytes itself: the hot loop calls publish_raw
        self._publish_raw = {publisher: publisher.handle.publish_raw for publisher in (
            self._clock_pub, self._joint_pub, self._imu_pub, self._odom_pub, self._truth_pub,
            *self._contact_pubs)}
        self.create_service(SetBool, 'torque/set', self._on_torque)
        self.create_service(SetBool, 'latch/set', self._on_latch)

        wall_started = time.perf_counter()
        self.sim.settle()
        self.get_logger().info(
            f"simulating {robot.name} on '{terrain.name}' terrain: {len(self.sim.joint_names)} joints, "
            f"step {p['timestep_s'] * 1e3:g} ms, settled {p['settle_duration_s']:g} s in "
            f"{time.perf_counter() - wall_started:.2f} s wall")
        self._clock = RawClock()
        self._joints = RawJointState(self.sim.joint_names)
        self._imu = RawImu(prefix + self.sim.imu_frame)
        self._imu.orientation_covariance[0] = -1.0  # no orientation estimate, as on the D435i
        self._truth = RawOdometry(prefix + 'odom', prefix + robot.root)
        self._odom = RawOdometry(prefix + 'odom', prefix + robot.root)
        self._steps = 0
        self._control_periods = 0
        self.finished = False
        self._wall_origin = time.perf_counter()
        self._sim_origin_s = 0.0
        self._rtf_window = (time.perf_counter(), 0.0)
        self._measured_rtf = 0.0
        self._waiting_until: float | None = (time.perf_counter() + p['wait_for_peers_s']
                                             if p['wait_for_peers_s'] > 0.0 else None)
        self._clock_origin_grid_ns = origin_grid_ns(round(p['command_period_s'] * 1e9))
        self.clock_origin_ns = 0  # /clock value of t = 0: fixed when the run starts (clock_origin)
        self._command_seen = False
        self._clock_held_at_start = False  # /clock published at t = 0 while the first command is awaited
        if self._waiting_until is None:
            self._start_clock()
        self._lockstep_wait_started: float | None = None
        self._absent_peers: set[str] = set()
        self.lockstep_held_s = {'gait': 0.0, 'logger': 0.0}  # wall time spent waiting, per peer
        self._held_by = 'gait'
        self._held_since: float | None = None
        self._clock_repeated_at = 0.0
        if self.lockstep:
            self.get_logger().info(
                f"lockstep: each {p['command_period_s']:g} s boundary waits for its joint_commands "
                f"and a logger within {p['lockstep_max_logger_lag_s']:g} s (peers with a publisher)")

    def _start_clock(self) -> None:
        """t = 0 is now: fix the published clock's origin (clock_origin, cobra_sim.clock_origin)."""
        self.clock_origin_ns = clock_origin_ns(self.params['clock_origin'], time.time_ns(),
                                               self._clock_origin_grid_ns)
        if self.clock_origin_ns:
            self.get_logger().info(f'clock_origin wall: t = 0 is /clock {self.clock_origin_ns * 1e-9:.3f} s')

    # --- parameters and inputs --------------------------------------------------------------
    @property
    def lockstep(self) -> bool:
        return lockstep_active(self.params['lockstep'], self.params['real_time_factor'])

    @property
    def time_ns(self) -> int:
        return self._steps * self._timestep_ns

    def _apply_parameters(self, parameters: list[Parameter]) -> None:
        for parameter in parameters:
            if parameter.name == 'real_time_factor':
                # re-anchor pacing so a change does not cause a burst or a stall
                self._wall_origin, self._sim_origin_s = time.perf_counter(), self.time_ns * 1e-9
            if parameter.name == 'command_timeout_s':
                self.guard.timeout_s = parameter.value
            if parameter.name == 'latch_capture_distance_m':
                self.sim.latch_capture_distance_m = parameter.value
            self.params[parameter.name] = parameter.value

    def _on_command(self, message: JointState) -> None:
        self._command_seen = True
        verdict = self.guard.check_message(message, self.time_ns * 1e-9)
        if verdict.positions_rad is None:
            self.get_logger().warning(
                f'ignoring joint_commands ({verdict.cause}): {verdict.detail} (repeats suppressed for '
                f'{WARNING_PERIOD_S:g} s; counts in diagnostics)', throttle_duration_sec=WARNING_PERIOD_S)
            return
        self.sim.set_targets(verdict.positions_rad)
        self._gate.command_arrived(since_origin_s(stamp_ns(message.header.stamp), self.clock_origin_ns))

    def _on_logger_progress(self, message: ClockMsg) -> None:
        self._gate.logger_progressed(since_origin_s(stamp_ns(message.clock), self.clock_origin_ns))

    def _take_pending(self) -> None:
        """Take queued commands and logger progress without an executor round (~2 µs when empty)."""
        for subscription, callback in ((self._command_sub, self._on_command),
                                       (self._progress_sub, self._on_logger_progress)):
            while (taken := subscription.handle.take_message(subscription.msg_type, False)) is not None:
                callback(taken[0])

    def _on_torque(self, request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        self.sim.set_torque_enabled(request.data)
        response.success, response.message = True, f"torque {'on' if request.data else 'off (limp)'}"
        return response

    def _on_latch(self, request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        """true: weld head to tail if their latch frames are within latch_capture_distance_m;
        false: release. latch/state follows at once; the latch servo moves as on the robot."""
        sim = self.sim
        if not sim.has_latch:
            response.success = not request.data
            response.message = ("the robot model has no head_latch_link/tail_latch_link: nothing to latch"
                                if request.data else 'no latch: nothing to release')
            return response
        was_latched = sim.latched
        distance_m = sim.latch_frames_distance_m()
        response.success = sim.set_latched(request.data)
        if request.data and not response.success:
            response.message = (f'latch frames are {distance_m:.3f} m apart, more than '
                                f'latch_capture_distance_m = {sim.latch_capture_distance_m:g} m: curl the '
                                f'robot to bring the head onto the tail first')
        elif request.data:
            response.message = (f'latched with the latch frames {distance_m * 1000:.1f} mm apart'
                                + (' (it already was)' if was_latched else ''))
        else:
            response.message = 'latch released' if was_latched else 'latch was not engaged'
        if response.success and self._latch_limits is not None:  # the XC330 fin gear, cosmetic in the sim
            target = self._latch_limits.upper_rad if request.data else self._latch_limits.lower_rad
            sim.set_targets({LATCH_JOINT: target})
        if sim.latched != was_latched:
            self._latch_pub.publish(Bool(data=sim.latched))
            self.get_logger().info(f'latch/set {request.data}: {response.message}')
        else:  # a gait may ask again every tick until the frames come within reach
            self.get_logger().info(f'latch/set {request.data}: {response.message}', throttle_duration_sec=1.0)
        return response

    # --- peers ----------------------------------------------------------------------------------
    def flush_publishers(self) -> None:
        """At the end of a finite run, wait (bounded) until every reliable subscriber has the last
        samples: a process that exits right after publishing can take unsent samples with it."""
        deadline = time.monotonic() + FLUSH_TIMEOUT_S
        for publisher in self.publishers:
            if publisher.qos_profile.reliability == ReliabilityPolicy.RELIABLE:
                left_s = max(deadline - time.monotonic(), 0.0)
                publisher.wait_for_all_acked(Duration(nanoseconds=round(left_s * 1e9)))

    def _missing_peers(self) -> list[str]:
        missing = []
        if self.params['wait_for_recorder']:
            # the logger finds its topics by a graph search: without its subscriptions matched,
            # the first wrenches of a run went unrecorded
            recorded = (self._joint_pub, self._imu_pub, self._odom_pub, self._truth_pub, *self._contact_pubs)
            missing += [f'a subscriber on {pub.topic_name}' for pub in recorded if pub.get_subscription_count() == 0]
            if self.lockstep and self._progress_sub.get_publisher_count() == 0:
                missing.append(f'a publisher on {self._progress_sub.topic_name}')
        if self.params['wait_for_commands'] and self._command_sub.get_publisher_count() == 0:
            missing.append(f'a publisher on {self._command_sub.topic_name}')
        return missing

    def _peers_ready(self) -> bool:
        """A node that starts late (a slow import on a loaded machine) must not miss the run's start.

        With wait_for_commands, t = 0 is also held until the first joint_commands message: the
        gait sends it only once all its command subscribers (the logger's too) matched, which DDS
        discovery can take seconds to report; a sim stepping before that runs without commands.
        Meanwhile /clock repeats t = 0, so a gait on sim time has a time to stamp that command with.
        """
        missing = self._missing_peers()
        if not missing and self.params['wait_for_commands'] and not self._command_seen:
            missing = [f'the first message on {self._command_sub.topic_name}']
            self._hold_clock_at_start()
        if not missing:
            self.get_logger().info('peers present: starting')
        elif time.perf_counter() < self._waiting_until:
            return False
        else:
            self.get_logger().warning(f"gave up waiting for {', '.join(missing)}: starting without them")
        self._waiting_until = None
        self._wall_origin, self._sim_origin_s = time.perf_counter(), self.time_ns * 1e-9
        # the reported real-time factor counts from t = 0 too: the wait is not sim time's fault
        self._rtf_window = (self._wall_origin, self._sim_origin_s)
        if not self._clock_held_at_start:
            self._start_clock()
        return True

    def _hold_clock_at_start(self) -> None:
        """Publish /clock = t = 0 while the first command is awaited (repeated: see _repeat_clock)."""
        if not self._clock_held_at_start:
            self._clock_held_at_start = True
            self._start_clock()
            self._clock.set_stamp_ns(self.clock_origin_ns + self.time_ns)
            self.get_logger().info(f'peers present: holding t = 0 until the first {self._command_sub.topic_name}')
            self._clock_repeated_at = -CLOCK_REPEAT_S  # publish at once
        self._repeat_clock(time.perf_counter())

    def _repeat_clock(self, now: float) -> None:
        """While time is held, publish the same /clock again every CLOCK_REPEAT_S: a best-effort
        sample can be lost, and a late subscriber needs a time."""
        if now - self._clock_repeated_at >= CLOCK_REPEAT_S:
            self._clock_repeated_at = now
            self._clock_pub.publish(self._clock.to_bytes())

    def _lockstep_peer(self, t_s: float, final: bool) -> tuple[str, str] | None:
        """The peer that holds the sim at boundary t_s (a lost peer is not waited for)."""
        gate = self._gate
        if gate.missing_command(t_s):
            if self._command_sub.get_publisher_count() > 0:
                self._absent_peers.discard('gait')
                return 'gait', f"the gait's command stamped {t_s:.3f} s on {self._command_sub.topic_name}"
            self._report_absent('gait', f'no publisher on {self._command_sub.topic_name}: '
                                'stepping on without commands')
        if gate.logger_lags(t_s, 0.0 if final else None):
            if self._progress_sub.get_publisher_count() > 0:
                self._absent_peers.discard('logger')
                return 'logger', (f'the logger (newest joint_states written: {gate.logger_progress_s:.3f} s, '
                                  f'on {self._progress_sub.topic_name})')
            if self.params['wait_for_recorder']:
                self._report_absent('logger', f'no logger publishes {self._progress_sub.topic_name}: '
                                    'not waiting for a recorder')
        return None

    def _report_absent(self, peer: str, text: str) -> None:
        """Warn once each time a peer goes missing (checked at every boundary: the logger call
        itself, throttled or not, costs ~0.5 ms in rclpy)."""
        if peer not in self._absent_peers:
            self._absent_peers.add(peer)
            self.get_logger().warning(f'lockstep: {text}')

    def _hold_for(self, waiting_for: tuple[str, str] | None, final: bool) -> bool:
        """Bookkeeping of a lockstep wait (wall time held per peer); True = keep waiting."""
        now = time.perf_counter()
        if self._held_since is not None:
            self.lockstep_held_s[self._held_by] += now - self._held_since
            self._held_since = None
        if waiting_for is None:
            self._lockstep_wait_started = None
            return False
        self._held_by, peer = waiting_for
        self._held_since = now
        if self._lockstep_wait_started is None:
            self._lockstep_wait_started = self._clock_repeated_at = now
        waited_s = now - self._lockstep_wait_started
        timeout_s = self.params['lockstep_peer_timeout_s']
        if waited_s >= timeout_s:
            if final:
                self.get_logger().warning(f'lockstep: gave up after {waited_s:.1f} s waiting for {peer}')
                self._lockstep_wait_started = self._held_since = None
                return False
            hint = (f" (a gait publishing less often than every command_period_s = "
                    f"{self.params['command_period_s']:g} s never sends it: set command_period_s to its period)"
                    if self._held_by == 'gait' else '')
            self.get_logger().warning(
                f'lockstep: sim time held at {self.time_ns * 1e-9:.3f} s for {waited_s:.0f} s waiting for '
                f'{peer}{hint}; still waiting (Ctrl-C stops)', throttle_duration_sec=timeout_s)
        self._repeat_clock(now)
        return True

    # --- stepping -------------------------------------------------------------------------------
    def advance(self) -> float:
        """Run control periods for up to BATCH_WALL_S; returns how long the executor may wait."""
        if self.finished:
            return 0.0
        if self._waiting_until is not None and not self._peers_ready():
            return WAIT_S
        rtf = self.params['real_time_factor']
        duration_ns = round(self.params['duration_s'] * 1e9)
        lockstep = self.lockstep
        batch_end = time.perf_counter() + BATCH_WALL_S
        while True:
            self._take_pending()
            at_boundary = self._control_periods % self._command_every == 0 and self._control_periods > 0
            final = bool(duration_ns) and self.time_ns >= duration_ns
            if lockstep and (at_boundary or final):
                t_s = self.time_ns * 1e-9
                boundary_s = (self._control_periods - self._control_periods % self._command_every) \
                    * self._control_period_ns * 1e-9
                peer = self._lockstep_peer(boundary_s, final)
                if peer is None and final:
                    peer = self._lockstep_peer(t_s, final)
                if self._hold_for(peer, final):
                    return WAIT_S
            if final:
                self.finished = True
                held = ''.join(f', held {seconds:.2f} s wall for the {peer}'
                               for peer, seconds in self.lockstep_held_s.items() if seconds) if lockstep else ''
                self.get_logger().info(f"reached duration_s = {self.params['duration_s']:g} s of sim time{held}")
                return 0.0
            if rtf > 0.0:
                ahead_s = self.time_ns * 1e-9 - (self._sim_origin_s + (time.perf_counter() - self._wall_origin) * rtf)
                if ahead_s >= 0.0:
                    return min(ahead_s / rtf + 1e-4, WAIT_S)
            self._control_period()
            if time.perf_counter() >= batch_end:
                return 0.0

    def _control_period(self) -> None:
        sim = self.sim
        sim.begin_control_period()
        for _ in range(sim.steps_per_control):
            sim.step_physics()
        self._steps += sim.steps_per_control
        self._control_periods += 1
        periods = self._control_periods
        now_ns = self.clock_origin_ns + self._steps * self._timestep_ns  # the published stamp (clock_origin)
        if periods % self._clock_every == 0:  # before the samples it dates, as a lockstep boundary
            self._clock.set_stamp_ns(now_ns)
            self._publish_raw[self._clock_pub](self._clock.to_bytes())
        joints = self._joints
        joints.set_stamp_ns(now_ns)
        joints.position[:] = sim.joint_positions()
        joints.velocity[:] = sim.joint_velocities()
        joints.effort[:] = sim.joint_efforts()
        self._publish_raw[self._joint_pub](joints.to_bytes())
        if periods % self._imu_every == 0:
            self._publish_imu(now_ns)
        if periods % self._odom_every == 0:
            self._publish_odometry(now_ns)
        if periods % self._latch_every == 0 and sim.has_latch:
            self._latch_pub.publish(Bool(data=sim.latched))
        if self._contact_every and periods % self._contact_every == 0:
            self._publish_contact_forces(now_ns)
        if self._heightmap_every and periods % self._heightmap_every == 0:
            self._publish_heightmap(now_ns)
        if periods % self._diagnostics_every == 0:
            self._publish_diagnostics(now_ns)

    def _publish_imu(self, now_ns: int) -> None:
        gyro, accel = self.sim.imu()
        gyro_noise, accel_noise = self.params['imu_gyro_noise_rad_s'], self.params['imu_accel_noise_m_s2']
        imu = self._imu
        imu.set_stamp_ns(now_ns)
        imu.angular_velocity[:] = gyro + self.sim.rng.normal(0.0, gyro_noise, 3) if gyro_noise else gyro
        imu.linear_acceleration[:] = accel + self.sim.rng.normal(0.0, accel_noise, 3) if accel_noise else accel
        imu.angular_velocity_covariance[::4] = max(gyro_noise, 1e-4) ** 2
        imu.linear_acceleration_covariance[::4] = max(accel_noise, 1e-3) ** 2
        self._publish_raw[self._imu_pub](imu.to_bytes())

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
        self._publish_raw[self._truth_pub](self._truth.to_bytes())
        self._publish_raw[self._odom_pub](self._odom.to_bytes())

    def _publish_contact_forces(self, now_ns: int) -> None:
        if not any(publisher.get_subscription_count() for publisher in self._contact_pubs):
            return  # nobody listens: skip the contact read-out (a third of a physics step)
        wrenches = self.sim.contact_wrenches()
        contacts = self._contacts
        contacts.set_stamp_ns(now_ns)
        contacts.wrenches[:] = wrenches
        self._publish_raw[self._contacts_pub](contacts.to_bytes())
        for publisher, message, wrench in zip(self._link_contact_pubs, self._link_contact_messages, wrenches):
            message.set_stamp_ns(now_ns)
            message.wrench[:] = wrench
            self._publish_raw[publisher](message.to_bytes())

    def _publish_heightmap(self, now_ns: int) -> None:
        """The deformed nodes as a PointCloud2 in odom (x, y, z, sinkage, pressure; float32)."""
        data, count = pack_heightmap(self.sim.terrain.heightmap())
        header = Header(frame_id=self.params['frame_prefix'] + 'odom')
        header.stamp.sec, header.stamp.nanosec = divmod(now_ns, 1_000_000_000)
        self._heightmap_pub.publish(PointCloud2(
            header=header, height=1, width=count, fields=self._heightmap_fields, is_bigendian=False,
            point_step=POINT_STEP, row_step=POINT_STEP * count, data=data, is_dense=True))

    def _publish_diagnostics(self, now_ns: int) -> None:
        wall, sim_time = time.perf_counter(), self.time_ns * 1e-9  # since t = 0, whatever the clock_origin
        window_wall, window_sim = self._rtf_window
        self._measured_rtf = (sim_time - window_sim) / max(wall - window_wall, 1e-9)
        self._rtf_window = (wall, sim_time)
        stale = self.guard.is_stale(sim_time)
        status = DiagnosticStatus(
            level=DiagnosticStatus.WARN if stale or self.guard.rejections else DiagnosticStatus.OK,
            name='cobra_sim: physics', hardware_id='mujoco',
            message='no fresh joint_commands: holding position' if stale else 'running')
        values = {
            'real_time_factor': f'{self._measured_rtf:.2f}',
            'sim_time_s': f'{sim_time:.3f}',
            'terrain': self.sim.terrain.name,
            **self.sim.terrain.diagnostics(),  # soil: sinkage, nodes in contact, contact patches
            'torque_enabled': str(self.sim.torque_enabled),
            **({'latched': str(self.sim.latched),
                'latch_frames_distance_m': f'{self.sim.latch_frames_distance_m():.4f}'} if self.sim.has_latch else {}),
            'lockstep': str(self.lockstep),
            **{f'lockstep_held_for_{peer}_s': f'{seconds:.2f}' for peer, seconds in self.lockstep_held_s.items()},
            'commands_clamped': str(self.guard.clamped),
            **{f'commands_rejected_{cause}': str(count) for cause, count in self.guard.rejections.items()},
        }
        status.values = [KeyValue(key=k, value=v) for k, v in values.items()]
        header = Header()
        header.stamp.sec, header.stamp.nanosec = divmod(now_ns, 1_000_000_000)
        self._diag_pub.publish(DiagnosticArray(header=header, status=[status]))


def spin_until_finished(node: SimNode) -> None:
    """Alternate runs of steps with executor spins; every wait is bounded by WAIT_S.

    An executor round costs ~0.4 ms of the sim's CPU, so unpaced it runs once per
    EXECUTOR_PERIOD_S of wall time (services, parameters), not after every batch of steps; a
    started lockstep run waits at a boundary on the command and logger-progress subscriptions
    alone (advance() takes their samples directly), not through the executor.
    """
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    peer_inputs = rcl.WaitSet(2, 0, 0, 0, 0, 0, node.context.handle)
    gc.freeze()  # the start-up heap (MuJoCo model, rclpy, numpy) is never garbage: keep the GC off it
    next_executor_round = 0.0
    try:
        with deferred_stop(), node.context.handle, node._command_sub.handle, node._progress_sub.handle:
            # a signal ends the loop between steps, never mid-step or mid-publish
            while rclpy.ok() and not node.finished and not stop_requested():
                timeout_s = node.advance()
                now = time.perf_counter()
                if now >= next_executor_round or node._waiting_until is not None \
                        or (timeout_s > 0.0 and not node.lockstep):
                    executor.spin_once(timeout_sec=timeout_s)
                    next_executor_round = now + EXECUTOR_PERIOD_S
                elif timeout_s > 0.0:  # held at a lockstep boundary
                    peer_inputs.clear_entities()
                    peer_inputs.add_subscription(node._command_sub.handle)
                    peer_inputs.add_subscription(node._progress_sub.handle)
                    peer_inputs.wait(round(min(timeout_s, next_executor_round - now) * 1e9))
            if node.finished:
                node.flush_publishers()
    finally:
        executor.remove_node(node)


def main(args: list[str] | None = None) -> int:
    return run_node(SimNode, args, spin=spin_until_finished)


if __name__ == '__main__':
    raise SystemExit(main())
