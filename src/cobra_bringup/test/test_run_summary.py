"""Run summary from small rosbag2 bags written with rosbags: stride per cycle, loss, no motion."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from rosbags.rosbag2 import StoragePlugin, Writer
from cobra_bringup.run_summary import SIM_TOPIC_RATES_HZ, format_summary, summarize
from cobra_common.interface_types import cobra_typestore

TYPESTORE = cobra_typestore()
T = TYPESTORE.types
DURATION_S = 6.0


def _header(t_s: float, frame: str) -> object:
    sec, nanosec = divmod(int(round(t_s * 1e9)), 1_000_000_000)
    return T['std_msgs/msg/Header'](T['builtin_interfaces/msg/Time'](sec, nanosec), frame)


def _odometry(t_s: float, x: float, y: float, z: float = 0.05,
              quaternion_xyzw: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)) -> object:
    pose = T['geometry_msgs/msg/PoseWithCovariance'](
        T['geometry_msgs/msg/Pose'](T['geometry_msgs/msg/Point'](x, y, z),
                                    T['geometry_msgs/msg/Quaternion'](*quaternion_xyzw)), np.zeros(36))
    zero = T['geometry_msgs/msg/Vector3'](0.0, 0.0, 0.0)
    twist = T['geometry_msgs/msg/TwistWithCovariance'](T['geometry_msgs/msg/Twist'](zero, zero), np.zeros(36))
    return T['nav_msgs/msg/Odometry'](_header(t_s, 'odom'), 'base_link', pose, twist)


def _joint_state(t_s: float, names: tuple[str, ...] = ('joint_1',)) -> object:
    return T['sensor_msgs/msg/JointState'](_header(t_s, ''), list(names), np.zeros(len(names)), np.zeros(0),
                                           np.zeros(0))


def _imu(t_s: float) -> object:
    q = T['geometry_msgs/msg/Quaternion'](0.0, 0.0, 0.0, 1.0)
    v = T['geometry_msgs/msg/Vector3'](0.0, 0.0, 9.81)
    return T['sensor_msgs/msg/Imu'](_header(t_s, 'camera_imu_optical_frame'), q, np.zeros(9), v, np.zeros(9),
                                    v, np.zeros(9))


MAKERS = {'joint_states': ('sensor_msgs/msg/JointState', _joint_state),
          'joint_commands': ('sensor_msgs/msg/JointState', _joint_state),
          'imu/data': ('sensor_msgs/msg/Imu', _imu)}


def write_bag(path: Path, head_y: Callable[[float], float] = lambda t: 0.05 * t,
              rates_hz: dict[str, float] | None = None, namespace: str = '',
              stamp: Callable[[float], float] = lambda t: t, head_x_m_s: float = 0.01,
              joint_names: dict[str, tuple[str, ...]] | None = None,
              extra: list[tuple[float, str, str, object]] | None = None,
              head_z: Callable[[float], float] = lambda t: 0.05, custom_data: dict[str, str] | None = None,
              head_quaternion_xyzw: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)) -> Path:
    """A sim-like bag: each topic at its rate over DURATION_S, the head at (head_x_m_s t, head_y(t)),
    stamped stamp(t) while logged at t; joint topics name `joint_names[topic]` (default joint_1);
    `extra` messages (log time, topic, type, message) are added as they are; the head's height is
    head_z(t), its orientation head_quaternion_xyzw; `custom_data` goes into metadata.yaml as the
    bringup writes it."""
    rates_hz = {**SIM_TOPIC_RATES_HZ, **(rates_hz or {})}
    messages = []
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        for key, value in (custom_data or {}).items():
            writer.set_custom_data(key, value)
        for topic, rate in rates_hz.items():
            if rate <= 0:
                continue
            if topic in MAKERS:
                msgtype, make = MAKERS[topic]
            else:
                msgtype, make = 'nav_msgs/msg/Odometry', lambda t: _odometry(stamp(t), head_x_m_s * t, head_y(t),
                                                                             head_z(t), head_quaternion_xyzw)
            connection = writer.add_connection(f'{namespace}/{topic}', msgtype, typestore=TYPESTORE)
            for index in range(1, int(round(DURATION_S * rate)) + 1):
                t = index / rate
                message = make(t) if topic not in MAKERS else (
                    make(stamp(t), joint_names[topic]) if topic in (joint_names or {}) else make(stamp(t)))
                messages.append((int(round(t * 1e9)), connection,
                                 bytes(TYPESTORE.serialize_cdr(message, msgtype))))
        extra_connections: dict[str, object] = {}
        for t, topic, msgtype, message in extra or []:
            if topic not in extra_connections:
                extra_connections[topic] = writer.add_connection(topic, msgtype, typestore=TYPESTORE)
            messages.append((int(round(t * 1e9)), extra_connections[topic],
                             bytes(TYPESTORE.serialize_cdr(message, msgtype))))
        for timestamp, connection, data in sorted(messages, key=lambda m: m[0]):
            writer.write(connection, timestamp, data)
    return path


def test_complete_bag_has_no_problems(tmp_path):
    summary = summarize(write_bag(tmp_path / 'bag'), gait_frequency_hz=0.5)
    assert summary.problems == ()
    assert summary.source_topic == '/ground_truth/odom'
    assert summary.lateral_displacement_m == pytest.approx(0.05 * (DURATION_S - 0.01), abs=1e-9)
    counts = {count.topic: count for count in summary.topic_counts}
    assert counts['joint_states'].recorded == 3000
    assert counts['joint_states'].expected == 2999  # 500 Hz over the 5.998 s from 0.002 s to 6 s
    assert 'LOSS' not in format_summary(summary) and 'PROBLEM' not in format_summary(summary)


def test_per_gait_cycle_excludes_the_start_ramp(tmp_path):
    """Still during the 2 s ramp, then 0.05 m/s: 0.2 m over 4 s = 2 cycles at 0.5 Hz -> 0.1 m/cycle
    (over the whole 6 s, 3 cycles, it would read 0.067 m)."""
    bag = write_bag(tmp_path / 'bag', head_y=lambda t: 0.05 * max(0.0, t - 2.0))
    summary = summarize(bag, gait_frequency_hz=0.5, ramp_duration_s=2.0)
    assert summary.steady_cycles == pytest.approx(0.5 * (DURATION_S - 0.01 - 2.0))
    assert summary.displacement_per_cycle_m == pytest.approx(0.1, rel=0.01)
    assert ('+0.100 m along y (y displacement after the 2 s ramp / 2.00 cycles; cobra_report\'s stride is '
            '|mean displacement| per whole steady cycle)') in format_summary(summary)


def test_ramp_longer_than_the_run_gives_no_per_cycle_figure(tmp_path):
    summary = summarize(write_bag(tmp_path / 'bag'), gait_frequency_hz=0.5, ramp_duration_s=10.0)
    assert summary.displacement_per_cycle_m is None


def test_missing_messages_are_reported_as_loss_naming_the_topic(tmp_path):
    bag = write_bag(tmp_path / 'bag', rates_hz={'joint_states': 350.0, 'joint_commands': 70.0})
    summary = summarize(bag, gait_frequency_hz=0.5)
    assert len(summary.problems) == 2
    states, commands = summary.problems
    assert states == ('LOSS joint_states: 2100 recorded, 2998 expected (500 Hz over 6.00 s of sim time): '
                      '30.0 % lost')
    assert commands.startswith('LOSS joint_commands: 420 recorded, 599 expected')
    assert states in format_summary(summary).splitlines()


def test_a_few_messages_short_at_the_ends_are_no_loss(tmp_path):
    bag = write_bag(tmp_path / 'bag', rates_hz={'joint_states': 499.0})  # 2994 of 2999: the slack
    assert summarize(bag, gait_frequency_hz=0.5).problems == ()


def test_topic_missing_entirely_is_a_loss(tmp_path):
    summary = summarize(write_bag(tmp_path / 'bag', rates_hz={'imu/data': 0.0}), gait_frequency_hz=0.5)
    assert summary.problems == ('LOSS imu/data: 0 recorded, 1499 expected (250 Hz over 6.00 s of sim '
                                'time): 100.0 % lost',)


def test_namespaced_topics_are_counted(tmp_path):
    summary = summarize(write_bag(tmp_path / 'bag', namespace='/cobra'), gait_frequency_hz=0.5)
    assert summary.problems == ()
    assert summary.source_topic == '/cobra/ground_truth/odom'


def test_head_that_did_not_move_is_a_problem(tmp_path):
    bag = write_bag(tmp_path / 'bag', head_y=lambda t: 0.0, head_x_m_s=0.0)
    summary = summarize(bag, gait_frequency_hz=0.5)
    assert len(summary.problems) == 1
    assert summary.problems[0].startswith('PROBLEM the head did not move: it stayed within 0.00 mm')
    assert summary.problems[0] in format_summary(summary)


def test_a_cmd_vel_run_nobody_drove_may_stand_still(tmp_path):
    # gait:=cmd_vel without teleop or goal holds the straight pose: not a failed run
    bag = write_bag(tmp_path / 'bag', head_y=lambda t: 0.0, head_x_m_s=0.0)
    assert summarize(bag, gait_frequency_hz=None, expect_motion=False).problems == ()


def test_cmd_vel_has_no_fixed_gait_cycle():
    from cobra_bringup.runner import gait_cycle_frequency_hz
    assert gait_cycle_frequency_hz({'gait': 'cmd_vel', 'frequency_hz': 0.4}) is None
    assert gait_cycle_frequency_hz({'gait': 'gait1', 'frequency_hz': 0.4}) == 0.4


def test_all_stamps_zero_and_no_motion_are_reported_loudly(tmp_path):
    """The namespaced-clock failure: the gait never ticked, every stamp is 0, the head stays put."""
    bag = write_bag(tmp_path / 'bag', head_y=lambda t: 0.0, head_x_m_s=0.0, stamp=lambda t: 0.0)
    summary = summarize(bag, gait_frequency_hz=0.5)
    assert [p.split(':')[0] for p in summary.problems] == [
        'PROBLEM every message is stamped 0', 'PROBLEM the head did not move']
    assert 'sim time never advanced' in format_summary(summary)


def test_stamps_stuck_at_a_wall_clock_origin_are_the_same_problem(tmp_path):
    """clock_origin: wall starts sim time at a 2026 date: stuck there, it is still stuck."""
    origin_s = 1_796_299_200.0
    bag = write_bag(tmp_path / 'bag', head_y=lambda t: 0.0, head_x_m_s=0.0, stamp=lambda t: origin_s)
    summary = summarize(bag, gait_frequency_hz=0.5)
    assert [p.split(':')[0] for p in summary.problems] == [
        'PROBLEM every message is stamped 1796299200', 'PROBLEM the head did not move']


TSNAKE_JOINTS = tuple(f'm{i}_{kind}' for i in range(1, 7) for kind in ('dorsal', 'twist', 'lateral'))


def test_robot_joints_in_the_bag_are_named_in_the_summary(tmp_path):
    bag = write_bag(tmp_path / 'bag', joint_names=dict.fromkeys(('joint_commands', 'joint_states'), TSNAKE_JOINTS))
    summary = summarize(bag, gait_frequency_hz=0.08, robot='tsnake', robot_joints=TSNAKE_JOINTS)
    assert summary.problems == ()
    assert 'robot                 tsnake: 18 joints commanded (m1_dorsal .. m6_lateral)' in format_summary(summary)


def test_commands_for_another_robot_are_a_problem(tmp_path):
    """COBRA's names sent to the T-Snake sim: rejected whole, the robot lies still."""
    bag = write_bag(tmp_path / 'bag', joint_names={'joint_commands': ('joint_1', 'joint_2'),
                                                   'joint_states': TSNAKE_JOINTS})
    summary = summarize(bag, gait_frequency_hz=None, robot='tsnake', robot_joints=TSNAKE_JOINTS)
    assert summary.problems == ("PROBLEM joint_commands names joints tsnake does not have: ['joint_1', "
                                "'joint_2'] (did every node load the same URDF? robot:=tsnake sets it for "
                                'the gait and the sim)',)


def test_runner_summary_takes_the_latch_joint_in_joint_states_as_cobras(tmp_path, capsys):
    """The sim and the driver report latch_joint beside the gait joints: not a foreign joint."""
    from cobra_bringup.runner import print_summary
    urdf = Path(__file__).resolve().parents[2] / 'cobra_description' / 'urdf' / 'cobra.urdf'
    gait_joints = tuple(f'joint_{i}' for i in range(1, 12))
    bag = write_bag(tmp_path / 'bag', joint_names={'joint_commands': gait_joints,
                                                   'joint_states': (*gait_joints, 'latch_joint')})
    assert print_summary(bag, {'gait_node': {'gait': 'gait1', 'frequency_hz': 0.5, 'urdf_path': str(urdf)}},
                         simulated=True) == 0
    assert 'PROBLEM' not in capsys.readouterr().out


def _tumble_extra(states: list[tuple[float, str]], force_n: float = 0.0,
                  per_link_topics: bool = False) -> list[tuple[float, str, str, object]]:
    """tumble/state and contact forces at 10 Hz: link_3 with a peak of force_n at t = 3.5 s, and
    base_link at 2 N; as the sim's contact/forces (ContactWrenches) or its per-link topics."""
    extra = [(t, '/tumble/state', 'std_msgs/msg/String', T['std_msgs/msg/String'](text)) for t, text in states]
    vector = T['geometry_msgs/msg/Vector3']
    for index in range(60):
        t = index / 10.0
        wrenches = {'base_link': T['geometry_msgs/msg/Wrench'](vector(0.0, 2.0, 0.0), vector(0.0, 0.0, 0.0)),
                    'link_3': T['geometry_msgs/msg/Wrench'](
                        vector(0.0, 0.0, force_n if abs(t - 3.5) < 1e-9 else 1.0), vector(0.0, 0.0, 0.0))}
        if per_link_topics:
            extra += [(t, f'/contact/forces/{link}', 'geometry_msgs/msg/WrenchStamped',
                       T['geometry_msgs/msg/WrenchStamped'](_header(t, link), wrench))
                      for link, wrench in wrenches.items()]
        else:  # link names carry the sim's frame prefix
            extra.append((t, '/contact/forces', 'cobra_interfaces/msg/ContactWrenches',
                          T['cobra_interfaces/msg/ContactWrenches'](
                              _header(t, ''), [f'cobra/{link}' for link in wrenches], list(wrenches.values()))))
    return extra


@pytest.mark.parametrize('per_link_topics', [False, True], ids=['contact_wrenches', 'per_link_topics'])
def test_tumbling_phase_is_measured_between_its_state_changes(tmp_path, per_link_topics):
    """Head at 0.01 m/s in x and 0.05 m/s in y; tumbling from t = 2 s to 5 s: 3 s, 0.153 m;
    the force peak inside it is reported (from contact/forces, or an older bag's per-link topics),
    the sequence of states is listed."""
    states = [(0.0, 'sidewinding'), (1.0, 'ramp_down'), (1.5, 'curling'), (1.9, 'latching'),
              (2.0, 'tumbling'), (5.0, 'releasing'), (5.5, 'uncurling'), (5.9, 'ready')]
    summary = summarize(write_bag(tmp_path / 'bag', extra=_tumble_extra(states, force_n=250.0,
                                                                        per_link_topics=per_link_topics)), 0.5)
    tumble = summary.tumble
    assert tumble.states[-1] == 'ready' and summary.problems == ()
    assert tumble.tumbling_s == pytest.approx(3.0, abs=0.011)
    assert tumble.distance_m == pytest.approx(3.0 * np.hypot(0.01, 0.05), rel=0.01)
    assert tumble.mean_speed_m_s == pytest.approx(np.hypot(0.01, 0.05), rel=0.01)
    assert (tumble.peak_force_link, tumble.peak_force_n) == ('link_3', pytest.approx(250.0))
    text = format_summary(summary)
    assert 'sidewinding -> ramp_down -> curling -> latching -> tumbling -> releasing -> uncurling -> ready' in text
    assert 'peak contact force    250 N (link_3)' in text


def test_an_aborted_tumbling_sequence_is_a_problem(tmp_path):
    states = [(0.0, 'sidewinding'), (1.0, 'ramp_down'), (1.5, 'curling'),
              (4.0, 'aborted: loop did not close: latch frames 0.104 m apart')]
    summary = summarize(write_bag(tmp_path / 'bag', extra=_tumble_extra(states)), 0.5)
    assert summary.problems == ('PROBLEM the tumbling sequence ended aborted: loop did not close: latch frames '
                                '0.104 m apart',)
    assert summary.tumble.tumbling_s == 0.0


def test_a_bag_without_tumble_state_has_no_tumble_section(tmp_path):
    summary = summarize(write_bag(tmp_path / 'bag'), 0.5)
    assert summary.tumble is None and 'tumble states' not in format_summary(summary)


COBRA_URDF = Path(__file__).resolve().parents[3] / 'urdf' / 'cobra.urdf'


def test_a_head_that_falls_below_the_ground_by_more_than_its_size_is_a_problem(tmp_path):
    """The issue's run: the robot walked off the soil patch and fell (z = -77 km at 180 s) while
    the summary printed its distance and no PROBLEM. Before: no problem reported."""
    bag = write_bag(tmp_path / 'bag', head_z=lambda t: 0.05 - (0.5 * 9.81 * (t - 3.0) ** 2 if t > 3.0 else 0.0))
    summary = summarize(bag, gait_frequency_hz=0.5)
    (problem,) = [p for p in summary.problems if 'ground' in p]
    assert problem.startswith('PROBLEM head (odometry track) went through or off the ground')
    assert 'at t = 3.3' in problem and 'deepest 44.' in problem and '(x, y) = (0.03, 0.17) m' in problem
    assert problem in format_summary(summary)


def test_a_head_sunk_into_soft_soil_by_less_than_its_size_is_no_problem(tmp_path):
    bag = write_bag(tmp_path / 'bag', head_z=lambda t: 0.05 - 0.02 * t)   # 7 cm under the surface at the end
    assert summarize(bag, gait_frequency_hz=0.5).problems == ()


def test_every_link_is_checked_from_the_head_pose_and_joint_states_against_the_terrain_in_custom_data(tmp_path):
    """With the URDF each link is placed by forward kinematics and checked against the ground of
    the bag's terrain: the robot lying straight on a 24 deg rigid slope that descends along +x
    (custom_data cobra.slope_deg), sliding 3 m down it, is fine there, while on level ground the
    same track is 1.3 m under the surface at the end: every link is reported, one PROBLEM each."""
    from cobra_description.robot_model import load_robot_model
    model = load_robot_model(COBRA_URDF)
    angle = np.radians(24.0)
    descend = dict(head_x_m_s=0.5, head_z=lambda t: 0.045 / np.cos(angle) - 0.5 * t * np.tan(angle),
                   head_quaternion_xyzw=(0.0, float(np.sin(angle / 2)), 0.0, float(np.cos(angle / 2))))
    on_slope = write_bag(tmp_path / 'slope', custom_data={'cobra.terrain': 'rigid 24 deg', 'cobra.slope_deg': '24.0'},
                         **descend)
    ground = [p for p in summarize(on_slope, 0.5, robot_model=model).problems if 'ground' in p]
    assert ground == []
    level = write_bag(tmp_path / 'level', custom_data={'cobra.terrain': 'rigid', 'cobra.slope_deg': '0.0'}, **descend)
    ground = [p for p in summarize(level, 0.5, robot_model=model).problems if 'ground' in p]
    links_with_shapes = [name for name, link in model.links.items() if link.collisions]
    assert len(ground) == len(links_with_shapes) and all('(rigid)' in p for p in ground)
    assert {p.split()[1] for p in ground} == set(links_with_shapes)


def test_commands_computed_a_period_ahead_do_not_stretch_the_span_but_the_first_starts_it():
    """On sim time the gait stamps each joint_commands with the time it applies, one period after the
    /clock that made it: the last command (2.01 s) is after the last joint_states (2.0 s)."""
    from cobra_bringup.run_summary import count_topics
    stamps = {'joint_commands': np.arange(0, 202) * 0.01, 'joint_states': np.arange(1, 1001) * 0.002}
    span_s, counts = count_topics(stamps, {'joint_states': 500.0, 'joint_commands': 100.0})
    assert span_s == pytest.approx(2.0)
    assert {c.topic: (c.recorded, c.expected) for c in counts} == {'joint_states': (1000, 1000),
                                                                  'joint_commands': (202, 200)}
