"""Accuracy tool: ATE/RPE with SE(3)/Sim(3) alignment from TUM files and rosbag2 directories."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cobra_odometry.accuracy import AccuracyError, compare, main, read_track
from cobra_odometry.synthetic import base_pose_at
from cobra_odometry.trajectory_formats import PoseSample, write_trajectory
from cobra_common.rotations import quaternion_from_matrix
from cobra_odometry.transforms import pose_matrix

REPO = Path(__file__).resolve().parents[3]


def _truth(n: int = 300, t0: float = 50.0) -> list[PoseSample]:
    out = []
    for i in range(n):
        pose = base_pose_at(i / 30.0)
        out.append(PoseSample(t0 + i / 30.0, pose[:3, 3].copy(), quaternion_from_matrix(pose[:3, :3])))
    return out


def _transformed(samples: list[PoseSample], transform: np.ndarray, scale: float = 1.0,
                 noise_m: float = 0.0) -> list[PoseSample]:
    rng = np.random.default_rng(0)
    out = []
    for s in samples:
        pose = transform @ pose_matrix(s.position * scale, s.quaternion_xyzw)
        out.append(PoseSample(s.stamp_s, pose[:3, 3] + rng.normal(0, noise_m, 3) * (noise_m > 0),
                              quaternion_from_matrix(pose[:3, :3])))
    return out


OFFSET = pose_matrix(np.array([5.0, -2.0, 1.0]), np.array([0, 0, math.sin(0.6), math.cos(0.6)]))


def test_se3_alignment_removes_frame_offset_and_measures_noise() -> None:
    truth = _truth()
    result = compare(_transformed(truth, OFFSET, noise_m=0.01), truth, 'se3', rpe_delta=0.2)
    assert result.matched_poses == 300
    assert result.ate_rmse_m == pytest.approx(0.01 * math.sqrt(3), rel=0.2)
    unaligned = compare(_transformed(truth, OFFSET), truth, 'none', rpe_delta=0.2)
    assert unaligned.ate_rmse_m > 1.0


def test_sim3_recovers_monocular_scale() -> None:
    truth = _truth()
    scaled = _transformed(truth, OFFSET, scale=0.5)
    assert compare(scaled, truth, 'se3', rpe_delta=0.2).ate_rmse_m > 0.05
    sim3 = compare(scaled, truth, 'sim3', rpe_delta=0.2)
    assert sim3.ate_rmse_m < 1e-6 and sim3.scale == pytest.approx(2.0, rel=1e-6)


def test_no_time_overlap_is_a_clear_error() -> None:
    truth = _truth()
    later = [PoseSample(s.stamp_s + 1000.0, s.position, s.quaternion_xyzw) for s in truth]
    with pytest.raises(AccuracyError, match='share a clock'):
        compare(later, truth)


def _write_bag(path: Path, topics: dict[str, list[PoseSample]]) -> None:
    from rosbags.rosbag2 import Writer
    from rosbags.typesys import Stores, get_typestore
    typestore = get_typestore(Stores.ROS2_JAZZY)
    Odometry = typestore.types['nav_msgs/msg/Odometry']
    Header = typestore.types['std_msgs/msg/Header']
    Time = typestore.types['builtin_interfaces/msg/Time']
    PoseWithCovariance = typestore.types['geometry_msgs/msg/PoseWithCovariance']
    TwistWithCovariance = typestore.types['geometry_msgs/msg/TwistWithCovariance']
    Pose = typestore.types['geometry_msgs/msg/Pose']
    Point = typestore.types['geometry_msgs/msg/Point']
    Quaternion = typestore.types['geometry_msgs/msg/Quaternion']
    Twist = typestore.types['geometry_msgs/msg/Twist']
    Vector3 = typestore.types['geometry_msgs/msg/Vector3']
    with Writer(path, version=9) as writer:
        for topic, samples in topics.items():
            connection = writer.add_connection(topic, Odometry.__msgtype__, typestore=typestore)
            for s in samples:
                ns = int(round(s.stamp_s * 1e9))
                message = Odometry(
                    header=Header(stamp=Time(sec=ns // 10**9, nanosec=ns % 10**9), frame_id='odom'),
                    child_frame_id='base_link',
                    pose=PoseWithCovariance(pose=Pose(position=Point(x=s.position[0], y=s.position[1], z=s.position[2]),
                                                      orientation=Quaternion(x=s.quaternion_xyzw[0], y=s.quaternion_xyzw[1],
                                                                             z=s.quaternion_xyzw[2], w=s.quaternion_xyzw[3])),
                                            covariance=np.zeros(36)),
                    twist=TwistWithCovariance(twist=Twist(linear=Vector3(x=0.0, y=0.0, z=0.0),
                                                          angular=Vector3(x=0.0, y=0.0, z=0.0)),
                                              covariance=np.zeros(36)))
                writer.write(connection, ns, typestore.serialize_cdr(message, Odometry.__msgtype__))


def test_bag_against_tum_with_plot_via_script(tmp_path: Path) -> None:
    truth = _truth()
    bag = tmp_path / 'run_bag'
    _write_bag(bag, {'/odom': _transformed(truth, OFFSET, noise_m=0.005), '/ground_truth/odom': truth})
    assert len(read_track(bag, 'ground_truth/odom')) == 300
    tum = tmp_path / 'truth.tum'
    write_trajectory(tum, truth, 'tum')
    plot = tmp_path / 'plots' / 'ate.png'
    completed = subprocess.run([sys.executable, '-m', 'cobra_odometry.accuracy', str(bag), str(tum),
                                '--plot', str(plot), '--rpe-delta', '0.5'],
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert 'ATE translation [m]: rmse 0.00' in completed.stdout
    assert plot.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    # bag vs bag (sim ground truth topic)
    assert main([str(bag), str(bag), '--align', 'sim3', '--rpe-delta', '10', '--rpe-unit', 'frames']) == 0
    assert main([str(bag), str(bag), '--rpe-delta', '50']) == 1  # path shorter than 50 m


def test_cli_errors_are_clear(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    truth = _truth()
    bag = tmp_path / 'bag'
    _write_bag(bag, {'/odom': truth})
    assert main([str(bag), str(bag)]) == 1
    assert "has no topic /ground_truth/odom; it has ['/odom']" in capsys.readouterr().err
    assert main([str(tmp_path / 'missing.tum'), str(bag)]) == 1
    assert 'does not exist' in capsys.readouterr().err
