"""python -m cobra_experiments.render_bag: frames of the robot from a tiny bag, and its refusals (no GL: skipped)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from rosbags.typesys import Stores, get_typestore

from cobra_logger.split_bag import SplitBagWriter

REPO_ROOT = Path(__file__).resolve().parents[1]
STORE = get_typestore(Stores.ROS2_JAZZY)
T = STORE.types
JOINTS = [f'joint_{i}' for i in range(1, 12)]
ORIGIN_NS = 1_796_299_419_000_000_000  # a wall-clock origin: stamps in 2026


def load_script():
    return importlib.import_module('cobra_experiments.render_bag')


def header(stamp_ns: int, frame: str) -> object:
    return T['std_msgs/msg/Header'](T['builtin_interfaces/msg/Time'](*divmod(stamp_ns, 1_000_000_000)), frame)


def write_bag(bag: Path, with_odom: bool = True) -> None:
    """Three samples 0.5 s apart: the yaw joints bend from 0 to 0.6 rad while the head moves 0.2 m."""
    writer = SplitBagWriter(bag, custom_data={'cobra.robot': 'cobra', 'cobra.slope_deg': '0.0'})
    writer.add_topic('/joint_states', 'sensor_msgs/msg/JointState')
    if with_odom:
        writer.add_topic('/ground_truth/odom', 'nav_msgs/msg/Odometry')
    for k, bend_rad in enumerate((0.0, 0.3, 0.6)):
        stamp_ns = ORIGIN_NS + k * 500_000_000
        positions = np.array([bend_rad if i % 2 == 0 else 0.0 for i in range(1, 12)])
        state = T['sensor_msgs/msg/JointState'](header(stamp_ns, ''), JOINTS, positions, np.zeros(11), np.zeros(11))
        writer.write('/joint_states', stamp_ns, bytes(STORE.serialize_cdr(state, 'sensor_msgs/msg/JointState')))
        if with_odom:
            pose = T['geometry_msgs/msg/PoseWithCovariance'](
                T['geometry_msgs/msg/Pose'](T['geometry_msgs/msg/Point'](0.1 * k, 0.0, 0.05),
                                            T['geometry_msgs/msg/Quaternion'](0.0, 0.0, 0.0, 1.0)), np.zeros(36))
            twist = T['geometry_msgs/msg/TwistWithCovariance'](
                T['geometry_msgs/msg/Twist'](T['geometry_msgs/msg/Vector3'](0.0, 0.0, 0.0),
                                             T['geometry_msgs/msg/Vector3'](0.0, 0.0, 0.0)), np.zeros(36))
            odom = T['nav_msgs/msg/Odometry'](header(stamp_ns, 'odom'), 'base_link', pose, twist)
            writer.write('/ground_truth/odom', stamp_ns, bytes(STORE.serialize_cdr(odom, 'nav_msgs/msg/Odometry')))
    writer.close()


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, '-m', 'cobra_experiments.render_bag', *args], capture_output=True, text=True, timeout=300)


def robot_mask(frame: np.ndarray) -> np.ndarray:
    """Pixels of the orange robot (the ground is grey-brown)."""
    red, green, blue = (frame[..., c].astype(int) for c in range(3))
    return (red > green + 40) & (green > blue + 30)


def test_renders_three_frames_of_the_robot_moving(tmp_path):
    backend, reason = load_script().gl_backend()
    if backend is None:
        pytest.skip(reason)
    bag, out = tmp_path / 'bag', tmp_path / 'strip.png'
    write_bag(bag)
    result = run(str(bag), '--out', str(out), '--frames', '3', '--width', '160', '--height', '120')
    assert result.returncode == 0, result.stderr
    from PIL import Image
    strip = np.asarray(Image.open(out).convert('RGB'))
    assert strip.shape == (120, 480, 3)
    frames = [strip[:, k * 160:(k + 1) * 160] for k in range(3)]
    for frame in frames:
        assert frame.std() > 10.0, 'a blank frame'
        assert robot_mask(frame).sum() > 300, 'no robot in the frame'
    changed = (robot_mask(frames[0]) ^ robot_mask(frames[2])).sum()
    assert changed > 100, 'the joints bent 0.6 rad between the first and last frame but the image did not change'
    assert 'MUJOCO_GL=' in result.stdout and '/ground_truth/odom' in result.stdout


def test_every_frame_shows_its_time():
    """The time overlay (no GL needed): "t = ... s" in the top-left corner, different per frame,
    the rest of the frame untouched."""
    script = load_script()
    images = [np.full((120, 160, 3), 200, dtype=np.uint8) for _ in range(2)]
    stamped = script.time_overlay(images, np.array([0.0, 12.5]))
    for frame in stamped:
        corner = frame[:30, :90]
        assert (corner < 40).any() and (corner > 250).any(), 'no white text on a dark box in the corner'
        assert (frame[60:, :] == 200).all(), 'the overlay reached beyond the corner'
    assert not np.array_equal(stamped[0][:30, :90], stamped[1][:30, :90]), 't = 0.00 s and t = 12.50 s look alike'
    assert (images[0] == 200).all()  # the input frames are not drawn on


def test_a_bag_without_odometry_is_refused_naming_what_is_missing(tmp_path):
    bag, out = tmp_path / 'bag', tmp_path / 'robot.gif'
    write_bag(bag, with_odom=False)
    result = run(str(bag), '--out', str(out))
    assert result.returncode == 2
    assert result.stderr.startswith('error: ') and 'has no ground_truth/odom or odom topic' in result.stderr
    assert not out.exists() and not list(tmp_path.glob('.robot.gif*'))


@pytest.mark.parametrize('make_args, message', [
    (lambda tmp: [str(tmp / 'missing'), '--out', str(tmp / 'a.gif')], 'no such bag'),
    (lambda tmp: [str(tmp), '--out', str(tmp / 'a.avi')], 'must end in .gif, .png'),
    (lambda tmp: [str(tmp), '--out', str(tmp / 'taken.gif')], 'exists already'),
    (lambda tmp: [str(tmp), '--out', str(tmp / 'a.gif'), '--frames', '0'], '--frames 0'),
])
def test_bad_input_is_one_error_line_and_exit_2(tmp_path, make_args, message):
    (tmp_path / 'taken.gif').write_bytes(b'x')
    result = run(*make_args(tmp_path))
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
