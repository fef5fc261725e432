"""Synthetic bags with known answers, for the tests and the benchmark (rosbags writer, no ROS).

The head moves `stride_m` per gait cycle along a direction that turns `heading_drift_rad_per_cycle`
per cycle, with a lateral wiggle that is zero at every cycle boundary; speed follows the gait's
amplitude envelope (zero before the gait starts, a linear ramp over `ramp_s`, then 1), so the
steady cycles after the ramp each move exactly `stride_m`. Measured joints follow the commands
`lag_s` later. Contact forces, heightmap, tumbling and T-Snake twist power are optional, each with
a closed-form expected value (see the tests).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rosbags.rosbag2 import StoragePlugin, Writer

from cobra_common.interface_types import cobra_typestore
from cobra_common.rotations import quaternion_about_z

TYPESTORE = cobra_typestore()
_T = TYPESTORE.types
COBRA_JOINTS = tuple(f'joint_{i}' for i in range(1, 12))
TSNAKE_JOINTS = tuple(f'm{i}_{kind}' for i in range(1, 7) for kind in ('dorsal', 'twist', 'lateral'))
COBRA_LINKS = ('base_link',) + tuple(f'link_{i}' for i in range(1, 12))
GRAVITY_M_S2 = 9.81


@dataclass
class SyntheticRun:
    duration_s: float = 20.0
    gait_start_s: float = 1.0        # commands are zero before this
    frequency_hz: float = 0.5
    ramp_s: float = 2.0
    amplitude_rad: float = 0.5
    phase_step_rad: float = 0.6      # between neighbouring joints
    stride_m: float = 0.1            # head displacement per steady cycle
    heading_rad: float = math.pi / 2  # direction of travel at the start (+y: sidewinding)
    heading_drift_rad_per_cycle: float = 0.0
    wiggle_m: float = 0.02           # lateral oscillation within a cycle (0 at its boundaries)
    lag_s: float = 0.05              # measured joints follow the commands this late
    start_time_s: float = 0.0        # stamp of t = 0 (sim time 0; a robot bag has wall time)
    joint_names: tuple[str, ...] = COBRA_JOINTS
    state_rate_hz: float = 500.0
    command_rate_hz: float = 100.0
    odom_rate_hz: float = 100.0
    ground_truth: bool = True
    namespace: str = ''
    contact_links: tuple[str, ...] = ()
    contact_rate_hz: float = 100.0
    contact_per_link_topics: bool = False  # True: contact/forces/<link> WrenchStamped (older bags)
    mass_kg: float = 6.0
    heightmap: bool = False
    heightmap_max_sinkage_m: float = 0.02
    tumble_interval_s: tuple[float, float] | None = None  # tumbling from .. to (sim time)
    tumble_speed_m_s: float = 0.5
    twist_power_w: tuple[float, ...] = ()  # T-Snake: mean twist power per m{i}_twist joint
    twist_rate_rad_s: float = 0.6
    custom_data: dict[str, str] = field(default_factory=dict)
    sim_diagnostics: dict[str, str] = field(default_factory=dict)  # key: value of one cobra_sim status at t = 0
    omit_topics: tuple[str, ...] = ()  # e.g. ('joint_commands',) for a bag missing a topic
    storage: str = 'mcap'            # or 'sqlite3'

    def envelope(self, t_s: np.ndarray) -> np.ndarray:
        """Gait amplitude scale: 0 before the start, linear ramp over ramp_s, then 1."""
        since = np.asarray(t_s) - self.gait_start_s
        if self.ramp_s <= 0:
            return (since > 0).astype(float)
        return np.clip(since / self.ramp_s, 0.0, 1.0)

    def commands(self, t_s: np.ndarray) -> np.ndarray:
        phase = 2 * np.pi * self.frequency_hz * (np.asarray(t_s) - self.gait_start_s)
        joints = np.arange(len(self.joint_names))
        angles = self.envelope(t_s)[:, None] * self.amplitude_rad * np.sin(phase[:, None] - joints * self.phase_step_rad)
        for column, name in enumerate(self.joint_names):
            if name.endswith('_twist') and self.twist_power_w:
                angles[:, column] = self.twist_rate_rad_s * np.clip(np.asarray(t_s) - self.gait_start_s, 0, None)
        return angles

    def head_xy(self, t_s: np.ndarray) -> np.ndarray:
        """Head position: exact integral of the envelope-scaled stride speed, plus the wiggle."""
        fine = np.linspace(0.0, self.duration_s, int(self.duration_s * 2000) + 1)
        speed = self.stride_m * self.frequency_hz * self.envelope(fine)
        cycles = np.clip(fine - self.gait_start_s, 0, None) * self.frequency_hz
        direction = self.heading_rad + self.heading_drift_rad_per_cycle * cycles
        step = np.diff(fine)
        vx = speed * np.cos(direction)
        vy = speed * np.sin(direction)
        x = np.concatenate([[0.0], np.cumsum(0.5 * (vx[1:] + vx[:-1]) * step)])
        y = np.concatenate([[0.0], np.cumsum(0.5 * (vy[1:] + vy[:-1]) * step)])
        t = np.asarray(t_s)
        direction_t = np.interp(t, fine, direction)
        wiggle = self.wiggle_m * self.envelope(t) * np.sin(2 * np.pi * self.frequency_hz * (t - self.gait_start_s))
        return np.column_stack([np.interp(t, fine, x) - wiggle * np.sin(direction_t),
                                np.interp(t, fine, y) + wiggle * np.cos(direction_t)])

    def head_yaw(self, t_s: np.ndarray) -> np.ndarray:
        cycles = np.clip(np.asarray(t_s) - self.gait_start_s, 0, None) * self.frequency_hz
        return self.heading_drift_rad_per_cycle * cycles

    def tumbling(self, t_s: np.ndarray) -> np.ndarray:
        if self.tumble_interval_s is None:
            return np.zeros(len(t_s), dtype=bool)
        begin, end = self.tumble_interval_s
        return (np.asarray(t_s) >= begin) & (np.asarray(t_s) < end)


def _time(t_s: float) -> object:
    sec = math.floor(t_s)
    return _T['builtin_interfaces/msg/Time'](sec, min(999_999_999, round((t_s - sec) * 1e9)))


def _header(t_s: float, frame: str) -> object:
    return _T['std_msgs/msg/Header'](_time(t_s), frame)


def _vector(x: float, y: float, z: float) -> object:
    return _T['geometry_msgs/msg/Vector3'](x, y, z)


def _odometry(run: SyntheticRun, t_s: float, xy: np.ndarray, z_m: float, yaw_rad: float,
              velocity: tuple[float, float, float], angular: tuple[float, float, float]) -> object:
    pose = _T['geometry_msgs/msg/Pose'](
        _T['geometry_msgs/msg/Point'](float(xy[0]), float(xy[1]), z_m),
        _T['geometry_msgs/msg/Quaternion'](*(float(v) for v in quaternion_about_z(yaw_rad))))
    twist = _T['geometry_msgs/msg/Twist'](_vector(*velocity), _vector(*angular))
    return _T['nav_msgs/msg/Odometry'](
        _header(run.start_time_s + t_s, 'odom'), 'base_link',
        _T['geometry_msgs/msg/PoseWithCovariance'](pose, np.zeros(36)),
        _T['geometry_msgs/msg/TwistWithCovariance'](twist, np.zeros(36)))


def write_bag(path: str | Path, run: SyntheticRun) -> Path:
    """Write the run as a rosbag2 bag (MCAP or sqlite3) at `path` (must not exist)."""
    bag = Path(path)
    plugin = StoragePlugin.MCAP if run.storage == 'mcap' else StoragePlugin.SQLITE3
    prefix = f"/{run.namespace.strip('/')}/" if run.namespace.strip('/') else '/'
    messages: list[tuple[float, str, str, bytes]] = []  # (bag time [s], topic, type, CDR bytes)

    def add(t_s: float, topic: str, msgtype: str, message: object) -> None:
        if topic in run.omit_topics:
            return
        messages.append((run.start_time_s + t_s, prefix + topic, msgtype,
                         bytes(TYPESTORE.serialize_cdr(message, msgtype))))

    names = list(run.joint_names)
    command_t = np.arange(0.0, run.duration_s, 1.0 / run.command_rate_hz)
    commands = run.commands(command_t)
    for t, row in zip(command_t, commands):
        add(t, 'joint_commands', 'sensor_msgs/msg/JointState', _T['sensor_msgs/msg/JointState'](
            _header(run.start_time_s + t, ''), names, row, np.zeros(0), np.zeros(0)))
    state_t = np.arange(0.0, run.duration_s, 1.0 / run.state_rate_hz)
    positions = run.commands(state_t - run.lag_s)
    velocities = np.gradient(positions, state_t, axis=0)
    efforts = np.zeros_like(positions)
    for column, name in enumerate(names):
        if name.endswith('_twist') and run.twist_power_w:
            module = int(name[1:name.index('_')]) - 1
            efforts[:, column] = run.twist_power_w[module] / run.twist_rate_rad_s
            velocities[:, column] = np.where(state_t - run.lag_s > run.gait_start_s, run.twist_rate_rad_s, 0.0)
    for t, p, v, e in zip(state_t, positions, velocities, efforts):
        add(t, 'joint_states', 'sensor_msgs/msg/JointState', _T['sensor_msgs/msg/JointState'](
            _header(run.start_time_s + t, ''), names, p, v, e))
    odom_t = np.arange(0.0, run.duration_s, 1.0 / run.odom_rate_hz)
    xy = run.head_xy(odom_t)
    yaw = run.head_yaw(odom_t)
    tumbling = run.tumbling(odom_t)
    z = np.full(len(odom_t), 0.03)
    if run.tumble_interval_s is not None:  # rolls down a slope: falls 0.2 m per metre travelled
        begin = run.tumble_interval_s[0]
        travelled = np.clip(np.minimum(odom_t, run.tumble_interval_s[1]) - begin, 0, None) * run.tumble_speed_m_s
        xy = xy + np.column_stack([travelled, np.zeros(len(odom_t))])
        z = z - 0.2 * travelled
    velocity = np.gradient(np.column_stack([xy, z]), odom_t, axis=0)
    for index, t in enumerate(odom_t):
        angular = (2.0, 0.0, 0.0) if tumbling[index] else (0.0, 0.0, 0.0)
        vel = tuple(float(v) for v in velocity[index])
        topics = ['odom', 'ground_truth/odom'] if run.ground_truth else ['odom']
        for topic in topics:
            add(t, topic, 'nav_msgs/msg/Odometry', _odometry(run, t, xy[index], float(z[index]), float(yaw[index]),
                                                            vel, angular))
    contact_t = np.arange(0.0, run.duration_s, 1.0 / run.contact_rate_hz)
    weight_share_n = run.mass_kg * GRAVITY_M_S2 / max(1, len(run.contact_links))
    link_forces = []
    for link_index, link in enumerate(run.contact_links):
        # in contact while sin(...) > -0.5: 2/3 of every cycle; force 1 +/- 0.5 times its weight share
        wave = np.sin(2 * np.pi * run.frequency_hz * (contact_t - run.gait_start_s) - link_index * run.phase_step_rad)
        link_forces.append(np.where(wave > -0.5, weight_share_n * (1.0 + 0.5 * wave), 0.0))

    def wrench(force_n: float) -> object:
        return _T['geometry_msgs/msg/Wrench'](_vector(0.0, 0.0, float(force_n)), _vector(0.0, 0.0, 0.0))
    for index, t in enumerate(contact_t if run.contact_links else []):
        if run.contact_per_link_topics:
            for link, force in zip(run.contact_links, link_forces):
                add(t, f'contact/forces/{link}', 'geometry_msgs/msg/WrenchStamped',
                    _T['geometry_msgs/msg/WrenchStamped'](_header(run.start_time_s + t, link), wrench(force[index])))
        else:  # as the sim publishes: every link in one message
            add(t, 'contact/forces', 'cobra_interfaces/msg/ContactWrenches',
                _T['cobra_interfaces/msg/ContactWrenches'](
                    _header(run.start_time_s + t, ''), list(run.contact_links),
                    [wrench(force[index]) for force in link_forces]))
    if run.heightmap:
        fields = [_T['sensor_msgs/msg/PointField'](name, 4 * i, 7, 1)
                  for i, name in enumerate(('x', 'y', 'z', 'sinkage', 'pressure'))]
        for t in np.arange(0.5, run.duration_s, 0.5):
            along = np.linspace(0.0, 1.0, 21)
            depth = run.heightmap_max_sinkage_m * along * min(1.0, t / run.duration_s * 2)
            points = np.zeros(len(along), dtype=[(n, '<f4') for n in ('x', 'y', 'z', 'sinkage', 'pressure')])
            points['x'], points['y'], points['z'] = along, 0.0, -depth
            points['sinkage'], points['pressure'] = depth, 1000.0 * depth
            add(t, 'terrain/heightmap', 'sensor_msgs/msg/PointCloud2', _T['sensor_msgs/msg/PointCloud2'](
                _header(run.start_time_s + t, 'odom'), 1, len(points), fields, False, 20, 20 * len(points),
                np.frombuffer(points.tobytes(), dtype=np.uint8), True))
    if run.tumble_interval_s is not None:
        begin, end = run.tumble_interval_s
        for t in np.arange(0.0, run.duration_s, 0.1):
            add(t, 'latch/state', 'std_msgs/msg/Bool', _T['std_msgs/msg/Bool'](bool(begin - 0.5 <= t < end + 0.5)))
        for t, state in ((0.0, 'sidewinding'), (begin - 1.0, 'latching'), (begin, 'tumbling'), (end, 'releasing')):
            add(t, 'tumble/state', 'std_msgs/msg/String', _T['std_msgs/msg/String'](state))
    if run.sim_diagnostics:
        values = [_T['diagnostic_msgs/msg/KeyValue'](key, value) for key, value in run.sim_diagnostics.items()]
        add(0.0, 'diagnostics', 'diagnostic_msgs/msg/DiagnosticArray', _T['diagnostic_msgs/msg/DiagnosticArray'](
            _header(run.start_time_s, ''), [_T['diagnostic_msgs/msg/DiagnosticStatus'](
                0, 'cobra_sim: physics', 'running', 'mujoco', values)]))
    messages.sort(key=lambda item: item[0])
    with Writer(bag, version=9, storage_plugin=plugin) as writer:
        connections = {}
        for _, topic, msgtype, _ in messages:
            if topic not in connections:
                connections[topic] = writer.add_connection(topic, msgtype, typestore=TYPESTORE)
        for key, value in run.custom_data.items():
            writer.set_custom_data(key, value)
        for stamp_s, topic, _, data in messages:
            writer.write(connections[topic], round(stamp_s * 1e9), data)
    return bag
