"""What a run did, read back from its bag: distance, lateral speed, stride per gait cycle, RTF,
and the problems that make its numbers meaningless (data loss, unknown joints, an aborted tumble,
a body below the ground). `RunSummary.problems` is what the runner turns into a failing exit
code. The rules for each: the package README, "Run summary".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from cobra_analysis.bag_reader import JOINT_COMMANDS
from cobra_analysis.ground_check import ground_from_custom_data, robot_body_tracks, sunk_body_problems
from cobra_common.bags import open_bag, read_custom_data, topic_matches
from cobra_common.cdr import header_stamp_s
from cobra_common.interface_types import CONTACT_FORCES_TOPIC, CONTACT_WRENCHES

if TYPE_CHECKING:
    from cobra_description.robot_model import RobotModel

TRUTH_TOPIC = 'ground_truth/odom'
GROUND_SAMPLE_PERIOD_S = 0.1  # joint_states decoded for the ground check at most this often
ODOM_TOPIC = 'odom'
DEFAULT_RAMP_DURATION_S = 2.0  # the gait's ramp_duration_s default
# What the simulation promises (sim.yaml: control 2 ms, imu 4 ms, odom 10 ms; gait rate_hz 100).
SIM_TOPIC_RATES_HZ: dict[str, float] = {
    'joint_states': 500.0, 'joint_commands': 100.0, 'imu/data': 250.0, ODOM_TOPIC: 100.0,
    TRUTH_TOPIC: 100.0,
}
# What hardware promises (driver 500 Hz, gait 100 Hz, RealSense IMU >= 200 Hz, VIO odom >= 30 Hz).
HARDWARE_TOPIC_RATES_HZ: dict[str, float] = {
    'joint_states': 500.0, 'joint_commands': 100.0, 'imu/data': 200.0, ODOM_TOPIC: 30.0,
}
LOSS_SLACK_MESSAGES = 2  # a message at either end of the span may fall outside the recording
LOSS_SLACK_FRACTION = 0.001
MIN_HEAD_EXCURSION_M = 1e-3  # a head that never got this far from its start did not move
JOINT_TOPICS = ('joint_commands', 'joint_states')  # their joint names must be the robot's
TUMBLE_STATE_TOPIC = 'tumble/state'
TUMBLING_STATE = 'tumbling'
ABORTED_STATE = 'aborted'


@dataclass(frozen=True)
class TumbleSummary:
    states: tuple[str, ...]  # every tumble/state text, in order
    tumbling_s: float  # time in the tumbling state (sim time of the head track)
    distance_m: float  # head displacement over it (3-D)
    mean_speed_m_s: float
    peak_speed_m_s: float
    mean_roll_rate_rad_s: float
    peak_roll_rate_rad_s: float
    peak_force_link: str
    peak_force_n: float


class RunSummaryError(ValueError):
    """The bag cannot be summarised at all (no head track)."""


@dataclass(frozen=True)
class TopicCount:
    topic: str
    rate_hz: float
    recorded: int
    expected: int

    @property
    def lost(self) -> bool:
        return self.recorded < self.expected - (LOSS_SLACK_MESSAGES + LOSS_SLACK_FRACTION * self.expected)


@dataclass(frozen=True)
class RunSummary:
    bag_path: Path
    source_topic: str
    duration_s: float
    distance_m: float            # net head displacement in the ground plane
    lateral_displacement_m: float  # along the odom y axis (perpendicular to the initial body axis)
    mean_lateral_speed_m_s: float
    displacement_per_cycle_m: float | None  # after the start ramp
    real_time_factor: float | None
    ramp_duration_s: float = DEFAULT_RAMP_DURATION_S
    steady_cycles: float = 0.0  # gait cycles after the start ramp
    stamp_span_s: float = 0.0  # sim-time span of the rate topics' header stamps
    topic_counts: tuple[TopicCount, ...] = ()
    problems: tuple[str, ...] = ()  # empty when the run looks right
    robot: str = ''  # the URDF's robot name, when the caller gave it
    joint_names: dict[str, tuple[str, ...]] = field(default_factory=dict)  # first message's, per joint topic
    tumble: TumbleSummary | None = None


@dataclass(frozen=True)
class BagContents:
    head_topic: str
    times_s: np.ndarray  # head track header stamps
    xy_m: np.ndarray
    real_time_factors: list[float]
    stamps_s: dict[str, np.ndarray]  # header stamps per rate topic name (key of the rates table)
    joint_names: dict[str, tuple[str, ...]] = field(default_factory=dict)  # first message's, per JOINT_TOPICS
    # tumbling bags: receive times [s] of the head track, its 3-D positions and |angular velocity|,
    # tumble/state (receive time, text), contact forces (receive time, link, |F|)
    head_log_times_s: np.ndarray = field(default_factory=lambda: np.zeros(0))
    head_xyz_m: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    head_roll_rate_rad_s: np.ndarray = field(default_factory=lambda: np.zeros(0))
    tumble_states: list[tuple[float, str]] = field(default_factory=list)
    contact_forces: list[tuple[float, str, float]] = field(default_factory=list)
    # ground check: the head track's z and orientation (x, y, z, w), joint_states every GROUND_SAMPLE_PERIOD_S
    head_z_m: np.ndarray = field(default_factory=lambda: np.zeros(0))
    head_quaternion_xyzw: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    joint_sample_times_s: np.ndarray = field(default_factory=lambda: np.zeros(0))
    joint_sample_names: tuple[str, ...] = ()
    joint_sample_positions_rad: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))


def read_bag(bag_path: Path, rate_topics: tuple[str, ...] = tuple(SIM_TOPIC_RATES_HZ)) -> BagContents:
    """One pass over the bag: the head track of ground_truth/odom (else odom), every
    real_time_factor the simulation reported in diagnostics, and the header stamps of the
    rate topics (read straight from the CDR header, without deserialising)."""
    with open_bag(bag_path) as reader:
        truth, odom = ([c for c in reader.connections if topic_matches(c.topic, wanted)]
                       for wanted in (TRUTH_TOPIC, ODOM_TOPIC))
        head_connections = truth or odom
        diagnostics = [c for c in reader.connections if topic_matches(c.topic, 'diagnostics')]
        rate_names = {c.id: name for c in reader.connections for name in rate_topics
                      if topic_matches(c.topic, name)}
        wanted = head_connections + diagnostics + [c for c in reader.connections if c.id in rate_names]
        joint_topics = {c.id: name for c in reader.connections for name in JOINT_TOPICS
                        if topic_matches(c.topic, name)}
        wanted += [c for c in reader.connections if c.id in joint_topics]
        tumble = [c for c in reader.connections if topic_matches(c.topic, TUMBLE_STATE_TOPIC)]
        # contact/forces (cobra_interfaces/ContactWrenches: all links) or, in older bags and with
        # the sim's contact_forces_per_link, contact/forces/<link> (WrenchStamped)
        contacts = [c for c in reader.connections if topic_matches(c.topic, CONTACT_FORCES_TOPIC)
                    or f'/{CONTACT_FORCES_TOPIC}/' in c.topic] if tumble else []
        wanted += tumble + contacts
        times, points, real_time_factors = [], [], []
        heights, quaternions = [], []
        joint_times: list[float] = []
        joint_rows: list[np.ndarray] = []
        joint_columns: tuple[str, ...] = ()
        log_times, points_3d, roll_rates = [], [], []
        tumble_states: list[tuple[float, str]] = []
        contact_forces: list[tuple[float, str, float]] = []
        stamps: dict[str, list[float]] = {name: [] for name in rate_topics}
        joint_names: dict[str, tuple[str, ...]] = {}
        for connection, log_time_ns, raw in reader.messages(connections=list({c.id: c for c in wanted}.values())):
            if connection in tumble:
                tumble_states.append((log_time_ns * 1e-9, reader.deserialize(raw, connection.msgtype).data))
                continue
            if connection in contacts:
                message = reader.deserialize(raw, connection.msgtype)
                by_link = zip(message.link_names, (w.force for w in message.wrenches)) \
                    if connection.msgtype == CONTACT_WRENCHES else [(connection.topic, message.wrench.force)]
                contact_forces += [(log_time_ns * 1e-9, name.rsplit('/', 1)[-1],
                                    math.sqrt(force.x ** 2 + force.y ** 2 + force.z ** 2))
                                   for name, force in by_link]
                continue
            if connection.id in rate_names:
                stamps[rate_names[connection.id]].append(header_stamp_s(raw))
            if connection.id in joint_topics and joint_topics[connection.id] not in joint_names:
                names = reader.deserialize(raw, connection.msgtype).name
                joint_names[joint_topics[connection.id]] = tuple(names)
            if joint_topics.get(connection.id) == 'joint_states':
                stamp = header_stamp_s(raw)
                if not joint_times or stamp >= joint_times[-1] + GROUND_SAMPLE_PERIOD_S:
                    message = reader.deserialize(raw, connection.msgtype)
                    joint_columns = joint_columns or tuple(message.name)
                    if tuple(message.name) == joint_columns and len(message.position) == len(joint_columns):
                        joint_times.append(stamp)
                        joint_rows.append(np.asarray(message.position, dtype=float))
            if connection in diagnostics:
                message = reader.deserialize(raw, connection.msgtype)
                real_time_factors += [float(v.value) for status in message.status
                                      for v in status.values if v.key == 'real_time_factor']
            elif connection in head_connections:
                message = reader.deserialize(raw, connection.msgtype)
                times.append(message.header.stamp.sec + message.header.stamp.nanosec * 1e-9)
                position = message.pose.pose.position
                points.append((position.x, position.y))
                heights.append(position.z)
                orientation = message.pose.pose.orientation
                quaternions.append((orientation.x, orientation.y, orientation.z, orientation.w))
                if tumble:
                    angular = message.twist.twist.angular
                    log_times.append(log_time_ns * 1e-9)
                    points_3d.append((position.x, position.y, position.z))
                    roll_rates.append(math.sqrt(angular.x ** 2 + angular.y ** 2 + angular.z ** 2))
    if not times:
        raise RunSummaryError(f'{bag_path} holds no {TRUTH_TOPIC} or {ODOM_TOPIC} messages')
    return BagContents(head_connections[0].topic, np.array(times), np.array(points), real_time_factors,
                       {name: np.array(values) for name, values in stamps.items()}, joint_names,
                       np.array(log_times), np.array(points_3d).reshape(-1, 3), np.array(roll_rates),
                       tumble_states, contact_forces, np.array(heights), np.array(quaternions).reshape(-1, 4),
                       np.array(joint_times), joint_columns,
                       np.array(joint_rows).reshape(len(joint_rows), len(joint_columns)))


def summarize_tumble(contents: BagContents) -> TumbleSummary | None:
    """The tumbling phase of a gait:=tumble run (None when the bag has no tumble/state)."""
    if not contents.tumble_states:
        return None
    states = tuple(text for _, text in contents.tumble_states)
    starts = [t for t, text in contents.tumble_states if text == TUMBLING_STATE]
    if not starts or len(contents.head_log_times_s) < 2:
        return TumbleSummary(states, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, '', 0.0)
    begin = starts[0]
    later = [t for t, _ in contents.tumble_states if t > begin]
    end = later[0] if later else float(contents.head_log_times_s[-1])
    inside = (contents.head_log_times_s >= begin) & (contents.head_log_times_s <= end)
    if inside.sum() < 2:
        return TumbleSummary(states, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, '', 0.0)
    stamps, xyz = contents.times_s[inside], contents.head_xyz_m[inside]
    duration_s = float(stamps[-1] - stamps[0])
    steps = np.linalg.norm(np.diff(xyz, axis=0), axis=1)
    dt = np.diff(stamps)
    speeds = steps[dt > 0] / dt[dt > 0]
    rates = contents.head_roll_rate_rad_s[inside]
    forces = [(force, link) for t, link, force in contents.contact_forces if begin <= t <= end]
    peak_force, peak_link = max(forces) if forces else (0.0, '')
    return TumbleSummary(states, duration_s, float(np.linalg.norm(xyz[-1] - xyz[0])),
                         float(steps.sum() / duration_s) if duration_s > 0 else 0.0,
                         float(speeds.max(initial=0.0)), float(rates.mean()), float(rates.max()),
                         peak_link, float(peak_force))


def tumble_problems(tumble: TumbleSummary | None) -> list[str]:
    if tumble is None or not tumble.states[-1].startswith(ABORTED_STATE):
        return []
    return [f'PROBLEM the tumbling sequence ended {tumble.states[-1]}']


def count_topics(stamps_s: Mapping[str, np.ndarray],
                 rates_hz: Mapping[str, float]) -> tuple[float, tuple[TopicCount, ...]]:
    """(span [s], expected vs recorded per topic) over the header-stamp span: from the first stamp of
    any topic to the last of what was measured. joint_commands are stamped with the time they apply,
    on sim time a gait period ahead of the /clock that made them (cobra_gaits command_lead_periods),
    so their last stamp does not extend the span; their first (t = 0, which the sim holds for it) starts it."""
    present = [values for values in stamps_s.values() if len(values)]
    measured = [values for name, values in stamps_s.items() if len(values) and name != JOINT_COMMANDS] or present
    span_s = (max(float(v.max()) for v in measured) - min(float(v.min()) for v in present)) if present else 0.0
    counts = tuple(TopicCount(name, rate, len(stamps_s.get(name, ())), int(math.floor(rate * span_s + 1e-9)))
                   for name, rate in rates_hz.items())
    return span_s, counts


def find_problems(contents: BagContents, span_s: float, counts: tuple[TopicCount, ...],
                  expect_motion: bool = True) -> list[str]:
    """Why the run's numbers cannot be trusted: LOSS per topic, a head that never moved (when the
    gait was to move it: a cmd_vel run nobody drove stands still by design)."""
    problems = []
    for count in counts:
        if count.lost:
            share = 100.0 * (1.0 - count.recorded / count.expected) if count.expected else 100.0
            problems.append(f'LOSS {count.topic}: {count.recorded} recorded, {count.expected} expected '
                            f'({count.rate_hz:g} Hz over {span_s:.2f} s of sim time): {share:.1f} % lost')
    all_stamps = np.concatenate([contents.times_s, *(v for v in contents.stamps_s.values() if len(v))])
    if np.all(all_stamps == all_stamps[0]):  # 0, or the wall-clock origin of clock_origin: wall
        stuck_s = f'{all_stamps[0]:.9f}'.rstrip('0').rstrip('.')
        problems.append(f'PROBLEM every message is stamped {stuck_s}: sim time never advanced, so the gait '
                        'never ticked (do all nodes receive the sim\'s /clock? check namespace and use_sim_time)')
    excursion_m = float(np.max(np.linalg.norm(contents.xy_m - contents.xy_m[0], axis=1)))
    if expect_motion and excursion_m < MIN_HEAD_EXCURSION_M:
        problems.append(f'PROBLEM the head did not move: it stayed within {excursion_m * 1000:.2f} mm of '
                        f'its start over {len(contents.times_s)} {contents.head_topic} messages (did the '
                        'gait run? is joint_commands reaching the sim or driver?)')
    return problems


def robot_problems(joint_names: Mapping[str, Sequence[str]], robot: str,
                   robot_joints: Sequence[str]) -> list[str]:
    """Joint names in the bag that are not the robot's (or robot joints joint_states lacks)."""
    problems = []
    for topic, names in joint_names.items():
        foreign = [name for name in names if name not in robot_joints]
        if foreign:
            problems.append(f'PROBLEM {topic} names joints {robot} does not have: {foreign[:3]}'
                            f"{' ...' if len(foreign) > 3 else ''} (did every node load the same URDF? "
                            f'robot:={robot} sets it for the gait and the sim)')
    missing = [name for name in robot_joints if name not in joint_names.get('joint_states', robot_joints)]
    if missing:
        problems.append(f'PROBLEM joint_states lacks {len(missing)} joints of {robot}: {missing[:3]}')
    return problems


def summarize(bag_path: Path, gait_frequency_hz: float | None,
              ramp_duration_s: float = DEFAULT_RAMP_DURATION_S,
              rates_hz: Mapping[str, float] = SIM_TOPIC_RATES_HZ, robot: str = '',
              robot_joints: Sequence[str] | None = None, robot_model: RobotModel | None = None,
              expect_motion: bool = True) -> RunSummary:
    """Summary and problems of a recorded run (RunSummaryError when it has no head track);
    with `robot_joints` (the robot's actuated joint names) the joint topics are checked against them;
    with `robot_model` (the URDF the run used) every link is checked against the ground, else the head."""
    contents = read_bag(bag_path, tuple(rates_hz))
    times, xy = contents.times_s, contents.xy_m
    duration = float(times[-1] - times[0])
    lateral = float(xy[-1, 1] - xy[0, 1])
    steady_s = max(0.0, duration - ramp_duration_s)
    cycles = gait_frequency_hz * steady_s if gait_frequency_hz else 0.0
    steady_lateral = float(xy[-1, 1] - np.interp(times[0] + ramp_duration_s, times, xy[:, 1]))
    span_s, counts = count_topics(contents.stamps_s, rates_hz)
    rtf = contents.real_time_factors
    return RunSummary(bag_path, contents.head_topic, duration, float(np.linalg.norm(xy[-1] - xy[0])), lateral,
                      lateral / duration if duration > 0 else 0.0,
                      steady_lateral / cycles if cycles > 0 else None,
                      float(np.mean(rtf)) if rtf else None,
                      ramp_duration_s, cycles, span_s, counts,
                      tuple(find_problems(contents, span_s, counts, expect_motion) + (
                          robot_problems(contents.joint_names, robot, robot_joints)
                          if robot_joints is not None else []) + tumble_problems(tumble := summarize_tumble(contents))
                          + ground_problems(bag_path, contents, robot_model)),
                      robot, contents.joint_names, tumble)


def ground_problems(bag_path: Path, contents: BagContents, robot_model: RobotModel | None) -> list[str]:
    """PROBLEM lines for bodies that went through or off the ground (see the module doc)."""
    head_xyz = np.column_stack([contents.xy_m, contents.head_z_m])
    tracks = robot_body_tracks(robot_model, contents.times_s, head_xyz, contents.head_quaternion_xyzw,
                               contents.joint_sample_times_s, contents.joint_sample_names,
                               contents.joint_sample_positions_rad)
    return sunk_body_problems(tracks, ground_from_custom_data(read_custom_data(Path(bag_path))))


def format_summary(summary: RunSummary) -> str:
    per_cycle = (f'{summary.displacement_per_cycle_m:+.3f} m along y (y displacement after the '
                 f'{summary.ramp_duration_s:g} s ramp / {summary.steady_cycles:.2f} cycles; cobra_report\'s stride '
                 'is |mean displacement| per whole steady cycle)' if summary.displacement_per_cycle_m
                 is not None else 'n/a')
    rtf = f'{summary.real_time_factor:.2f}' if summary.real_time_factor is not None else 'n/a'
    commanded = summary.joint_names.get('joint_commands', ())
    lines = [
        'run summary',
        *([f"  robot                 {summary.robot}: {len(commanded)} joints commanded"
           + (f' ({commanded[0]} .. {commanded[-1]})' if commanded else '')] if summary.robot else []),
        f'  head track            {summary.source_topic}, {summary.duration_s:.2f} s',
        f'  distance (net)        {summary.distance_m:.3f} m',
        f'  lateral displacement  {summary.lateral_displacement_m:+.3f} m',
        f'  mean lateral speed    {summary.mean_lateral_speed_m_s * 100:+.2f} cm/s',
        f'  per gait cycle        {per_cycle}',
        f'  real-time factor      {rtf}',
    ]
    if summary.tumble is not None:
        tumble = summary.tumble
        lines.append(f"  tumble states         {' -> '.join(state.split(':')[0] for state in tumble.states)}")
        if tumble.tumbling_s > 0:
            lines += [f'  tumbling              {tumble.tumbling_s:.2f} s: head moved {tumble.distance_m:.2f} m, '
                      f'speed mean {tumble.mean_speed_m_s:.2f} / peak {tumble.peak_speed_m_s:.2f} m/s',
                      f'  roll rate             mean {tumble.mean_roll_rate_rad_s:.2f} / peak '
                      f'{tumble.peak_roll_rate_rad_s:.2f} rad/s']
            if tumble.peak_force_link:
                lines.append(f'  peak contact force    {tumble.peak_force_n:.0f} N ({tumble.peak_force_link})')
    for count in summary.topic_counts:
        lines.append(f'  {count.topic:<22}{count.recorded} messages ({count.expected} expected)')
    lines.append(f'  bag                   {summary.bag_path}')
    lines += summary.problems
    return '\n'.join(lines)
