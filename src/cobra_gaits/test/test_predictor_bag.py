"""eps from a bag: a bag written here from a track the contact-weighted predictor made with a known
eps gives that eps back through `python -m cobra_gaits.predictor.calibrate_bag`; bad bags exit 2."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from cobra_description.robot_model import default_urdf_path, load_robot_model
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore
from scipy.spatial.transform import Rotation

from cobra_gaits.predictor.bag_track import read_bag_track
from cobra_gaits.predictor.calibrate_bag import main
from cobra_gaits.predictor.contact import contact_weights, module_points_m, planar_shapes_m, support_frames
from cobra_gaits.predictor.gait_path import BodyModel, batched_link_points_m
from cobra_gaits.predictor.integrator import integrate_motion
from cobra_gaits.sidewinding import SidewindingParams, sample_sidewinding

TYPESTORE = get_typestore(Stores.ROS2_JAZZY)
T = TYPESTORE.types
TRUE_EPSILON = 0.3
GAIT1 = SidewindingParams(0.4, 0.35, 0.7)
RATE_HZ = 20.0
START_S = 100.0
WORLD_YAW_RAD = 0.7  # the recording's odom frame is turned and moved against the predictor's frame
WORLD_OFFSET_M = np.array([2.0, -1.0, 0.05])


@pytest.fixture(scope='module')
def robot():
    return load_robot_model(default_urdf_path('cobra'))


def made_track(robot, epsilon: float, cycles: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(times, joint rows, base_link positions, quaternions) of a robot moving exactly as predicted."""
    body = BodyModel.from_robot(robot)
    times, rows = sample_sidewinding(body.joint_kinds, GAIT1, cycles / GAIT1.frequency_hz, RATE_HZ, ramp_in=False)
    points = batched_link_points_m(robot, body.joint_names, rows, body.links)
    frames = support_frames(points)
    motion = integrate_motion(planar_shapes_m(points, frames), epsilon,
                              contact_weights(points, body.masses_kg, frames=frames))
    # base_link pose whose image of a root-frame point p is (R_t, 1) F_t p + (T_t, 0): the placed shape's xy
    planar_rotation = np.zeros((len(times), 3, 3))
    planar_rotation[:, :2, :2] = motion.rotations
    planar_rotation[:, 2, 2] = 1.0
    world = Rotation.from_euler('z', WORLD_YAW_RAD).as_matrix()
    orientation = world @ planar_rotation @ frames
    positions = np.column_stack((motion.translations_m, np.zeros(len(times)))) @ world.T + WORLD_OFFSET_M
    return START_S + times, rows, positions, Rotation.from_matrix(orientation).as_quat()


def stamp(time_s: float):
    sec, nanosec = divmod(round(time_s * 1e9), 1_000_000_000)
    return T['std_msgs/msg/Header'](stamp=T['builtin_interfaces/msg/Time'](sec=sec, nanosec=nanosec), frame_id='odom')


def odometry(time_s: float, position: np.ndarray, quaternion: np.ndarray):
    vector = T['geometry_msgs/msg/Vector3']
    pose = T['geometry_msgs/msg/Pose'](position=T['geometry_msgs/msg/Point'](*position),
                                       orientation=T['geometry_msgs/msg/Quaternion'](*quaternion))
    return T['nav_msgs/msg/Odometry'](
        header=stamp(time_s), child_frame_id='base_link',
        pose=T['geometry_msgs/msg/PoseWithCovariance'](pose=pose, covariance=np.zeros(36)),
        twist=T['geometry_msgs/msg/TwistWithCovariance'](
            twist=T['geometry_msgs/msg/Twist'](linear=vector(0.0, 0.0, 0.0), angular=vector(0.0, 0.0, 0.0)),
            covariance=np.zeros(36)))


def write_bag(path: Path, robot, epsilon: float, with_odom_estimate: bool = True) -> Path:
    times, rows, positions, quaternions = made_track(robot, epsilon)
    names = [joint.name for joint in robot.gait_joints()]
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        commands = writer.add_connection('/cobra/joint_commands', 'sensor_msgs/msg/JointState', typestore=TYPESTORE)
        truth = writer.add_connection('/cobra/ground_truth/odom', 'nav_msgs/msg/Odometry', typestore=TYPESTORE)
        estimate = writer.add_connection('/cobra/odom', 'nav_msgs/msg/Odometry', typestore=TYPESTORE)
        for time_s, row, position, quaternion in zip(times, rows, positions, quaternions):
            received_ns = round(time_s * 1e9)
            message = T['sensor_msgs/msg/JointState'](header=stamp(time_s), name=names, position=row,
                                                     velocity=np.zeros(0), effort=np.zeros(0))
            writer.write(commands, received_ns, TYPESTORE.serialize_cdr(message, 'sensor_msgs/msg/JointState'))
            writer.write(truth, received_ns, TYPESTORE.serialize_cdr(odometry(time_s, position, quaternion),
                                                                      'nav_msgs/msg/Odometry'))
            if with_odom_estimate:  # a drifting estimate: the calibration must take the ground truth
                drifted = position + np.array([0.3 * (time_s - START_S), 0.0, 0.0])
                writer.write(estimate, received_ns, TYPESTORE.serialize_cdr(odometry(time_s, drifted, quaternion),
                                                                             'nav_msgs/msg/Odometry'))
    return path


def test_batched_forward_kinematics_equals_the_per_row_one(robot) -> None:
    body = BodyModel.from_robot(robot)
    rows = np.random.default_rng(3).uniform(-1.0, 1.0, (5, len(body.joint_names)))
    np.testing.assert_allclose(batched_link_points_m(robot, body.joint_names, rows, body.links),
                               module_points_m(robot, body.joint_names, rows, body.links), atol=1e-12)


def test_the_track_reader_takes_ground_truth_and_the_commands_at_its_stamps(tmp_path, robot) -> None:
    times, rows, positions, _ = made_track(robot, TRUE_EPSILON)
    track = read_bag_track(write_bag(tmp_path / 'bag', robot, TRUE_EPSILON), max_rate_hz=10.0)
    assert track.odom_topic == '/cobra/ground_truth/odom'
    np.testing.assert_allclose(track.times_s, times[::2], atol=1e-9)  # 20 Hz thinned to 10 Hz
    np.testing.assert_allclose(track.joint_rows_rad, rows[::2], atol=1e-12)
    np.testing.assert_allclose(track.position_m, positions[::2], atol=1e-12)


def calibrated_epsilon(output: str) -> tuple[float, float]:
    match = re.search(r'epsilon (\S+)\s+rms_error_m (\S+)', output)
    assert match, output
    return float(match.group(1)), float(match.group(2))


def test_the_cli_recovers_the_epsilon_that_made_the_bag(tmp_path, robot, capsys) -> None:
    assert main([str(write_bag(tmp_path / 'bag', robot, TRUE_EPSILON))]) == 0
    epsilon, rms_error_m = calibrated_epsilon(capsys.readouterr().out)
    assert epsilon == pytest.approx(TRUE_EPSILON, abs=0.01)
    assert rms_error_m < 1e-3


def test_a_different_epsilon_is_told_apart(tmp_path, robot, capsys) -> None:
    assert main([str(write_bag(tmp_path / 'bag', robot, 0.08, with_odom_estimate=False))]) == 0
    epsilon, _ = calibrated_epsilon(capsys.readouterr().out)
    assert epsilon == pytest.approx(0.08, abs=0.01)


def _unrelated_bag(path: Path, robot) -> Path:
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        connection = writer.add_connection('/chatter', 'std_msgs/msg/String', typestore=TYPESTORE)
        writer.write(connection, 1, TYPESTORE.serialize_cdr(T['std_msgs/msg/String']('hi'), 'std_msgs/msg/String'))
    return path


def _garbage_bag(path: Path, robot) -> Path:
    path.mkdir()
    (path / 'metadata.yaml').write_text('rosbag2_bagfile_information: [not closed')
    return path


def _truncated_bag(path: Path, robot) -> Path:
    write_bag(path, robot, TRUE_EPSILON)
    mcap = next(path.glob('*.mcap'))
    mcap.write_bytes(mcap.read_bytes()[:200])
    return path


@pytest.mark.parametrize('make_bag, message', [
    (_unrelated_bag, 'needs messages on joint_commands and on ground_truth/odom or odom'),
    (_garbage_bag, 'cannot read the bag'),
    (_truncated_bag, 'cannot read the bag'),
    (lambda path, robot: path, 'no such bag'),
])
def test_a_bad_bag_is_one_error_line_and_exit_2(tmp_path, robot, capsys, make_bag, message) -> None:
    bag = make_bag(tmp_path / 'bad_bag', robot)
    assert main([str(bag)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ''
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and 'bad_bag' in lines[0]
