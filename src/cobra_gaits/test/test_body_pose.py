"""Body pose from odometry and joint angles (cobra_gaits.body_pose): forward kinematics against the
URDF model's own transforms, and the centroid and tail -> head axis of the link origins."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cobra_common.rotations import quaternion_about_z
from cobra_description.robot_model import default_urdf_path, load_robot_model
from cobra_gaits.body_pose import BodyPoseEstimator, body_pose_from_points


@pytest.fixture(scope='module', params=['cobra', 'tsnake'])
def robot(request):
    return load_robot_model(default_urdf_path(request.param))


def test_link_origins_match_the_urdf_transforms(robot):
    estimator = BodyPoseEstimator(robot)
    rng = np.random.default_rng(3)
    joints = {joint.name: float(rng.uniform(-0.8, 0.8)) for joint in robot.gait_joints()}
    origins = estimator.link_origins_m(joints)
    expected = np.array([robot.transform(robot.root, link, joints)[:3, 3] for link in estimator.body_links])
    np.testing.assert_allclose(origins, expected, atol=1e-12)


def test_a_straight_body_points_where_the_head_does(robot):
    estimator = BodyPoseEstimator(robot)
    for yaw in (0.0, 2.0, -2.5):
        x, y, heading = estimator.body_pose((1.0, -2.0, 0.05), quaternion_about_z(yaw), {})
        assert heading == pytest.approx(yaw, abs=1e-9)
        origins = estimator.link_origins_m({})
        behind = -origins[:, 0].mean()  # the centroid lies behind the head along its axis
        assert (x, y) == pytest.approx((1.0 - behind * math.cos(yaw), -2.0 - behind * math.sin(yaw)), abs=1e-9)


def test_principal_axis_is_signed_tail_to_head():
    points = np.array([[0.0, 1.0], [0.0, 0.5], [0.1, 0.0], [0.0, -0.5]])  # head first, body along +y
    x, y, yaw = body_pose_from_points(points)
    assert yaw == pytest.approx(math.pi / 2, abs=0.1) and (x, y) == pytest.approx((0.025, 0.25))
    assert body_pose_from_points(points[::-1])[2] == pytest.approx(-math.pi / 2, abs=0.1)
