"""Frame conversion: URDF extrinsic + optical convention map camera motion to base motion."""

import math

import numpy as np
import pytest

from cobra_description.robot_model import load_robot_model
from cobra_odometry.transforms import CameraToBase, invert, optical_frame_of, pose_matrix


def _yaw(angle: float, xyz=(0.0, 0.0, 0.0)) -> np.ndarray:
    return pose_matrix(np.array(xyz), np.array([0.0, 0.0, math.sin(angle / 2), math.cos(angle / 2)]))


@pytest.fixture(scope='module')
def base_to_camera_optical() -> np.ndarray:
    return optical_frame_of(load_robot_model().transform('base_link', 'camera_link'))


def test_optical_frame_matches_urdf_imu_optical_convention() -> None:
    model = load_robot_model()
    link_to_imu_optical = model.transform('camera_link', 'camera_imu_optical_frame')
    np.testing.assert_allclose(optical_frame_of(np.eye(4))[:3, :3], link_to_imu_optical[:3, :3], atol=1e-6)


def test_camera_moving_along_optical_z_is_base_moving_forward(base_to_camera_optical: np.ndarray) -> None:
    converter = CameraToBase(base_to_camera_optical)
    converter.anchor_at(np.eye(4), np.eye(4))  # SLAM world = first camera frame
    forward = np.eye(4)
    forward[2, 3] = 0.5  # camera 0.5 m along its optical axis
    np.testing.assert_allclose(converter(forward), pose_matrix(np.array([0.5, 0, 0]), np.array([0, 0, 0, 1.0])), atol=1e-9)
    right = np.eye(4)
    right[0, 3] = 0.2  # optical x = right = base -y
    np.testing.assert_allclose(converter(right)[:3, 3], [0.0, -0.2, 0.0], atol=1e-9)


def test_yaw_about_base_origin_moves_offset_camera_on_a_circle(base_to_camera_optical: np.ndarray) -> None:
    world = _yaw(0.7, (3.0, -1.0, 0.4)) @ pose_matrix(np.zeros(3), np.array([0.3, 0.0, 0.0, math.sqrt(1 - 0.09)]))
    converter = CameraToBase(base_to_camera_optical)
    for step, base_motion in enumerate([np.eye(4), _yaw(math.pi / 2), _yaw(-0.3, (1.0, 2.0, 0.0))]):
        camera_pose = world @ base_to_camera_optical @ base_motion @ base_to_camera_optical * 0 + \
            world @ invert(base_to_camera_optical) @ base_motion @ base_to_camera_optical
        if step == 0:
            converter.anchor_at(camera_pose, np.eye(4))
        np.testing.assert_allclose(converter(camera_pose), base_motion, atol=1e-9)
    # the camera itself moved (lever arm), which the conversion must remove
    lever = base_to_camera_optical[:3, 3]
    assert np.linalg.norm(lever) > 0.05
