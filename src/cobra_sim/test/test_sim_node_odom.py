"""The sim node's odometry twist is the base_link velocity in base_link axes: it matches the
finite difference of the published poses, rotated into base_link, while the robot sidewinds
(moves and turns). Sim and gait as processes, lockstepped, so every pose pair is 10 ms apart."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import rclpy
from nav_msgs.msg import Odometry
from rclpy.qos import QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState
from cobra_common.interface_types import CONTACT_FORCES_TOPIC
from cobra_common.node_process import start_node as start
from cobra_interfaces.msg import ContactWrenches

REPO_ROOT = Path(__file__).resolve().parents[3]
URDF = REPO_ROOT / 'urdf' / 'cobra.urdf'
DURATION_S = 4.0


def rotation(quaternion) -> np.ndarray:
    """Rotation matrix (base_link -> odom) of a geometry_msgs/Quaternion."""
    w, x, y, z = quaternion.w, quaternion.x, quaternion.y, quaternion.z
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def rotation_vector(matrix: np.ndarray) -> np.ndarray:
    """Axis * angle of a rotation matrix (log map; angles well below pi here)."""
    angle = np.arccos(np.clip((np.trace(matrix) - 1.0) / 2.0, -1.0, 1.0))
    axis = np.array([matrix[2, 1] - matrix[1, 2], matrix[0, 2] - matrix[2, 0], matrix[1, 0] - matrix[0, 1]])
    return axis * (0.5 if angle < 1e-9 else angle / (2.0 * np.sin(angle)))


def vector(v) -> np.ndarray:
    return np.array([v.x, v.y, v.z])



def test_twist_matches_the_pose_differences_in_base_link(ros_env, ros_node):
    """This test is the recorder: it reports the newest pose it received on logger/progress, so
    the lockstepped sim never outruns it and no pose pair is lost."""
    reliable = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
    truth: list[Odometry] = []
    progress = ros_node.create_publisher(Clock, 'logger/progress', reliable)

    def on_truth(message: Odometry) -> None:
        truth.append(message)
        progress.publish(Clock(clock=message.header.stamp))

    ros_node.create_subscription(Odometry, 'ground_truth/odom', on_truth, reliable)
    # every topic the sim waits for a subscriber on (else it starts only after wait_for_peers_s)
    for topic, kind in (('joint_states', JointState), ('imu/data', Imu), ('odom', Odometry),
                        (CONTACT_FORCES_TOPIC, ContactWrenches)):
        ros_node.create_subscription(kind, topic, lambda message: None, qos_profile_sensor_data)
    gait = start(ros_env, 'cobra_gaits.gait_node', '--params-file', str(REPO_ROOT / 'config' / 'gait.yaml'),
                 '-p', f'urdf_path:={URDF}', '-p', 'use_sim_time:=true', '-p', 'ramp_duration_s:=0.5')
    sim = start(ros_env, 'cobra_sim.sim_node', '-p', f'urdf_path:={URDF}', '-p', 'real_time_factor:=0.0',
                '-p', f'duration_s:={DURATION_S}', '-p', 'settle_duration_s:=0.5', '-p', 'wait_for_peers_s:=60.0',
                '-p', 'lockstep_max_logger_lag_s:=0.02')
    outputs = {}
    try:
        while sim.poll() is None:
            rclpy.spin_once(ros_node, timeout_sec=0.05)
        for _ in range(20):  # what is still queued
            rclpy.spin_once(ros_node, timeout_sec=0.05)
    finally:
        for name, process in (('sim', sim), ('gait', gait)):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGINT)
            outputs[name] = process.communicate(timeout=30)[0]
    assert sim.returncode == 0, outputs['sim']
    assert 'gave up waiting' not in outputs['sim'], outputs['sim']  # every peer it waits for was here
    assert len(truth) == round(DURATION_S * 100)  # lockstep with this recorder: not one lost

    by_stamp = {m.header.stamp.sec * 10**9 + m.header.stamp.nanosec: m for m in truth}
    linear_errors, angular_errors, speeds, rates = [], [], [], []
    for stamp, first in sorted(by_stamp.items()):
        second = by_stamp.get(stamp + 10_000_000)
        if second is None or stamp < 1_000_000_000:  # the gait is ramping up during the first second
            continue
        dt_s = 0.01
        r1, r2 = rotation(first.pose.pose.orientation), rotation(second.pose.pose.orientation)
        velocity_world = (vector(second.pose.pose.position) - vector(first.pose.pose.position)) / dt_s
        finite_linear = 0.5 * (r1.T @ velocity_world + r2.T @ velocity_world)
        finite_angular = rotation_vector(r1.T @ r2) / dt_s  # body rate, in base_link axes
        twist_linear = 0.5 * (vector(first.twist.twist.linear) + vector(second.twist.twist.linear))
        twist_angular = 0.5 * (vector(first.twist.twist.angular) + vector(second.twist.twist.angular))
        linear_errors.append(np.linalg.norm(twist_linear - finite_linear))
        angular_errors.append(np.linalg.norm(twist_angular - finite_angular))
        speeds.append(np.linalg.norm(finite_linear))
        rates.append(np.linalg.norm(finite_angular))
    assert len(speeds) > 100, f'only {len(speeds)} pose pairs 10 ms apart'
    assert np.percentile(speeds, 90) > 0.05 and np.percentile(rates, 90) > 0.2  # moving and turning
    # a twist in other axes (world, or the head's principal-inertia frame) is off by about the speed
    assert np.median(linear_errors) < 0.1 * np.median(speeds), (np.median(linear_errors), np.median(speeds))
    assert np.median(angular_errors) < 0.1 * np.median(rates), (np.median(angular_errors), np.median(rates))
    assert np.percentile(linear_errors, 95) < 0.3 * np.percentile(speeds, 95)
    assert np.percentile(angular_errors, 95) < 0.3 * np.percentile(rates, 95)
