"""A namespaced sim with a frame prefix: global /clock, prefixed frame ids, contact wrenches in
their link frames (per-link topics switched on, equal to the all-links message), and the command
guard's verdict on a NaN velocity feed-forward."""

from __future__ import annotations

import math
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import rclpy
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
from rclpy.qos import QoSProfile, ReliabilityPolicy
from cobra_interfaces.msg import ContactWrenches
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState

from cobra_description.robot_model import load_robot_model
from cobra_common.ros_testing import spin_until

URDF = Path(__file__).resolve().parents[3] / 'urdf' / 'cobra.urdf'
RELIABLE = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
SENSOR = QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT)
LINKS = ['base_link'] + [f'link_{i}' for i in range(1, 12)]
GRAVITY_M_S2 = 9.81


@pytest.fixture
def namespaced_sim(ros_env):
    process = subprocess.Popen(
        [sys.executable, '-m', 'cobra_sim.sim_node', '--ros-args', '-r', '__ns:=/cobra',
         '-p', f'urdf_path:={URDF}', '-p', 'real_time_factor:=1.0', '-p', 'settle_duration_s:=1.0',
         '-p', 'frame_prefix:=cobra/', '-p', 'contact_forces_per_link:=true'],
        env=ros_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    yield process
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=15)


def test_namespaced_sim_drives_the_global_clock_and_prefixes_its_frames(namespaced_sim, ros_node):
    received: dict[str, list] = {'/clock': [], '/cobra/clock': [], '/cobra/imu/data': [],
                                 '/cobra/ground_truth/odom': [], '/cobra/odom': []}
    for topic, kind, qos in (('/clock', Clock, RELIABLE), ('/cobra/clock', Clock, RELIABLE),
                             ('/cobra/imu/data', Imu, SENSOR), ('/cobra/ground_truth/odom', Odometry, RELIABLE),
                             ('/cobra/odom', Odometry, RELIABLE)):
        ros_node.create_subscription(kind, topic, received[topic].append, qos)
    wrenches: dict[str, list[WrenchStamped]] = {link: [] for link in LINKS}
    for link in LINKS:
        ros_node.create_subscription(WrenchStamped, f'/cobra/contact/forces/{link}', wrenches[link].append, RELIABLE)
    all_links: list[ContactWrenches] = []
    ros_node.create_subscription(ContactWrenches, '/cobra/contact/forces', all_links.append, RELIABLE)
    spin_until(ros_node, lambda: len(received['/clock']) > 50 and received['/cobra/odom']
               and received['/cobra/imu/data'] and all(len(w) >= 3 for w in wrenches.values())
               and len(all_links) >= 3, 30.0)

    assert len(received['/clock']) > 50 and not received['/cobra/clock']
    assert received['/cobra/imu/data'][-1].header.frame_id == 'cobra/camera_imu_optical_frame'
    for odometry in (received['/cobra/ground_truth/odom'][-1], received['/cobra/odom'][-1]):
        assert (odometry.header.frame_id, odometry.child_frame_id) == ('cobra/odom', 'cobra/base_link')

    # each link's wrench is stamped in its own (prefixed) frame; at rest the ground carries the
    # weight: the reaction forces have no horizontal part in the world, so whatever frame each is
    # expressed in, their magnitudes add up to m g
    latest_stamp = min(w[-1].header.stamp.sec * 10**9 + w[-1].header.stamp.nanosec for w in wrenches.values())
    at_same_time = []
    for link, messages in wrenches.items():
        assert {m.header.frame_id for m in messages} == {f'cobra/{link}'}
        at_same_time += [m for m in messages
                         if m.header.stamp.sec * 10**9 + m.header.stamp.nanosec == latest_stamp]
    assert len(at_same_time) == len(LINKS)
    # the all-links message of that instant holds the same wrenches, prefixed names, in link order
    def combined_at_latest() -> list[ContactWrenches]:
        return [m for m in all_links if m.header.stamp.sec * 10**9 + m.header.stamp.nanosec == latest_stamp]
    spin_until(ros_node, lambda: combined_at_latest(), 30.0)
    (combined,) = combined_at_latest()
    assert combined.link_names == [f'cobra/{link}' for link in LINKS]
    assert [m.header.frame_id for m in at_same_time] == combined.link_names
    assert [(m.wrench.force.x, m.wrench.torque.z) for m in at_same_time] == \
        [(w.force.x, w.torque.z) for w in combined.wrenches]
    magnitudes = [math.dist((0, 0, 0), (m.wrench.force.x, m.wrench.force.y, m.wrench.force.z))
                  for m in at_same_time]
    weight_n = load_robot_model(URDF).total_mass_kg * GRAVITY_M_S2
    assert sum(magnitudes) == pytest.approx(weight_n, rel=0.05)
    assert sum(magnitude > 0.5 for magnitude in magnitudes) >= 6  # most links rest on the ground


def test_a_nan_velocity_feed_forward_is_rejected_like_the_driver_does(namespaced_sim, ros_node):
    states: list[JointState] = []
    diagnostics: list[DiagnosticArray] = []
    ros_node.create_subscription(JointState, '/cobra/joint_states', states.append, SENSOR)
    ros_node.create_subscription(DiagnosticArray, '/cobra/diagnostics', diagnostics.append, RELIABLE)
    commands = ros_node.create_publisher(JointState, '/cobra/joint_commands', RELIABLE)
    spin_until(ros_node, lambda: commands.get_subscription_count() > 0 and states, 30.0)
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        commands.publish(JointState(name=['joint_2'], position=[0.8], velocity=[math.nan]))
        rclpy.spin_once(ros_node, timeout_sec=0.01)
    assert abs(states[-1].position[states[-1].name.index('joint_2')]) < 0.05  # never moved on it
    diagnostics.clear()
    spin_until(ros_node, lambda: diagnostics, 5.0)
    values = {v.key: v.value for v in diagnostics[-1].status[0].values}
    assert int(values['commands_rejected_non_finite']) > 0
