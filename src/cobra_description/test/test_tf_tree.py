"""tf tree from the URDF: per-joint transforms compose to RobotModel's forward kinematics."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cobra_description.robot_model import RobotModelError, load_robot_model, parse_urdf
from cobra_description.tf_tree import StampThrottle, TfTree

URDF_DIR = Path(__file__).resolve().parents[3] / 'urdf'

TWO_LINK_URDF = """<robot name="two">
  <link name="base_link"/><link name="arm"/><link name="tool"/><link name="slider"/>
  <joint name="shoulder" type="revolute"><parent link="base_link"/><child link="arm"/>
    <origin xyz="0.1 0 0" rpy="0 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="tool_mount" type="fixed"><parent link="arm"/><child link="tool"/>
    <origin xyz="0.2 0 0.05" rpy="0 0 1.5707963267948966"/></joint>
  <joint name="slide" type="prismatic"><parent link="arm"/><child link="slider"/>
    <origin xyz="0 0 0"/><axis xyz="0 2 0"/>
    <limit lower="0" upper="1" effort="1" velocity="1"/></joint>
</robot>"""


def test_revolute_joint_rotates_about_its_axis_after_its_origin() -> None:
    tree = TfTree(parse_urdf(TWO_LINK_URDF), 'r1/')
    transform = tree.joint_transform(tree.movable_joints['shoulder'], math.pi / 2)
    assert (transform.parent, transform.child) == ('r1/base_link', 'r1/arm')
    assert transform.translation_m == pytest.approx((0.1, 0.0, 0.0))
    assert transform.rotation_xyzw == pytest.approx((0.0, 0.0, math.sqrt(0.5), math.sqrt(0.5)))


def test_prismatic_joint_moves_along_its_unit_axis() -> None:
    tree = TfTree(parse_urdf(TWO_LINK_URDF))
    transform = tree.joint_transform(tree.movable_joints['slide'], 0.3)
    assert transform.translation_m == pytest.approx((0.0, 0.3, 0.0))
    assert transform.rotation_xyzw == pytest.approx((0.0, 0.0, 0.0, 1.0))


def test_fixed_joints_are_the_static_transforms() -> None:
    tree = TfTree(parse_urdf(TWO_LINK_URDF))
    (static,) = tree.static_transforms()
    assert (static.parent, static.child) == ('arm', 'tool')
    assert static.translation_m == pytest.approx((0.2, 0.0, 0.05))
    assert static.rotation_xyzw == pytest.approx((0.0, 0.0, math.sqrt(0.5), math.sqrt(0.5)))


def test_only_named_finite_joints_move_and_the_rest_are_reported() -> None:
    tree = TfTree(parse_urdf(TWO_LINK_URDF))
    positions = {'shoulder': 0.2, 'slide': math.nan, 'elbow': 1.0}
    assert [t.child for t in tree.moving_transforms(positions)] == ['arm']
    problems = tree.problems(positions)
    assert any('elbow' in p for p in problems) and any('slide' in p for p in problems)
    assert tree.problems({'shoulder': 0.0, 'slide': 0.1}) == []


@pytest.mark.parametrize('robot', ['cobra', 'tsnake'])
def test_chained_transforms_equal_forward_kinematics_for_every_link(robot: str) -> None:
    model = load_robot_model(URDF_DIR / f'{robot}.urdf')
    tree = TfTree(model)
    rng = np.random.default_rng(7)
    positions = {name: float(rng.uniform(-1.2, 1.2)) for name in tree.movable_joints}
    by_child = {t.child: t for t in tree.static_transforms() + tree.moving_transforms(positions)}
    assert set(by_child) == set(model.links) - {model.root}  # every link is in the tree once
    for link in model.links:
        if link == model.root:
            continue
        chained = np.eye(4)
        frame = link
        while frame != model.root:
            chained = by_child[frame].matrix() @ chained
            frame = by_child[frame].parent
        np.testing.assert_allclose(chained, model.transform(model.root, link, positions), atol=1e-12)


def test_floating_joint_is_refused_with_its_name() -> None:
    urdf = TWO_LINK_URDF.replace('type="fixed"', 'type="floating"')
    with pytest.raises(RobotModelError, match='tool_mount'):
        TfTree(parse_urdf(urdf))


def test_stamp_throttle_passes_one_message_per_period_of_message_time() -> None:
    throttle = StampThrottle(0.02)
    stamps_ns = [i * 2_000_000 for i in range(101)]  # 500 Hz for 0.2 s
    passed = [t for t in stamps_ns if throttle.due('joint_states', t)]
    assert passed == [i * 20_000_000 for i in range(11)]
    assert throttle.due('odom', 3_000_000)  # keys are independent
    assert throttle.due('joint_states', 50_000_000)  # time jumped back: passes, count restarts
    assert not throttle.due('joint_states', 59_999_999)
    assert throttle.due('joint_states', 60_000_000)
    every = StampThrottle(0.0)
    assert all(every.due('k', 1_000_000_000) for _ in range(3))


def test_stamp_throttle_keeps_the_rate_when_stamps_jitter_or_samples_are_lost() -> None:
    rng = np.random.default_rng(5)
    stamps_ns = [1_000_000_000 + i * 2_000_000 + int(j) for i, j in
                 enumerate(rng.integers(-500_000, 500_000, 500))]  # 1 s of 500 Hz, +-0.5 ms jitter
    kept = [t for t, lost in zip(stamps_ns, rng.random(500) < 0.3) if not lost]  # 30 % lost
    throttle = StampThrottle(0.02)
    passed = [t for t in kept if throttle.due('joint_states', t)]
    slots = [t // 20_000_000 for t in kept]
    assert len(passed) == len(set(slots)) >= 49  # one per 20 ms slot that has a sample: 50 Hz
    assert len({t // 20_000_000 for t in passed}) == len(passed)
