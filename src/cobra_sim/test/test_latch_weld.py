"""The latch in the sim (issue 9): a MuJoCo weld between the head's and the tail's bodies.

Engaged only with head_latch_link and tail_latch_link within the capture distance; it then holds
the two bodies in their relative pose of that instant against the servos and gravity, and
released it lets them part. The curl pose comes from cobra_gaits.curl_pose (the gait's own).
"""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest

from cobra_description.robot_model import load_robot_model
from cobra_gaits.curl_pose import curl_pose
from cobra_sim.engine import CobraSim, SimParams
from cobra_sim.mjcf import LATCH_WELD, body_of_link
from cobra_sim.terrain import RigidGround

URDF = Path(__file__).resolve().parents[3] / 'urdf' / 'cobra.urdf'
CURL_S = 3.0


@pytest.fixture(scope='module')
def robot():
    return load_robot_model(URDF)


def make_sim(robot, slope_deg: float = 0.0) -> CobraSim:
    sim = CobraSim(robot, RigidGround(slope_deg=slope_deg), SimParams(settle_duration_s=0.2),
                   np.random.default_rng(0))
    sim.settle()
    return sim


def curl(sim: CobraSim) -> None:
    """Bend from straight into the curl pose over CURL_S, then wait until the frames are in reach."""
    target = curl_pose(sim.robot, sim.robot.gait_joints()).as_dict()
    sim.run(CURL_S + 1.0, lambda t: {name: min(1.0, t / CURL_S) * value for name, value in target.items()})
    for _ in range(50):  # the closed-up loop sways a little on its head: catch it within reach
        if sim.latch_frames_distance_m() <= sim.latch_capture_distance_m:
            return
        sim.run(0.02)
    raise AssertionError(f'curl did not bring the latch frames within reach: {sim.latch_frames_distance_m()} m')


def straighten(sim: CobraSim, seconds: float) -> list[float]:
    """Command the straight pose (the servos pull the loop open at full torque); frame distances."""
    straight = {joint.name: 0.0 for joint in sim.robot.gait_joints()}
    distances = []
    for _ in range(round(seconds / 0.02)):
        sim.run(0.02, lambda t: straight)
        distances.append(sim.latch_frames_distance_m())
    return distances


def test_the_weld_joins_the_bodies_that_hold_the_latch_frames(robot):
    sim = make_sim(robot)
    weld = sim.model.equality(LATCH_WELD)
    assert weld.type[0] == mujoco.mjtEq.mjEQ_WELD
    assert sim.model.body(int(weld.obj1id[0])).name == body_of_link(robot, 'head_latch_link') == robot.root
    assert sim.model.body(int(weld.obj2id[0])).name == body_of_link(robot, 'tail_latch_link') == 'link_11'
    assert not sim.latched and not sim.data.eq_active[weld.id]  # inactive at start


def test_engage_out_of_range_changes_nothing(robot):
    sim = make_sim(robot)
    weld = sim.model.equality(LATCH_WELD).id
    data_before = sim.model.eq_data[weld].copy()
    distance_m = sim.latch_frames_distance_m()
    assert distance_m == pytest.approx(robot.chain_length_m(), abs=0.01)  # straight: 1.7 m apart
    assert sim.set_latched(True) is False
    assert not sim.latched and not sim.data.eq_active[weld]
    assert np.array_equal(sim.model.eq_data[weld], data_before)


def test_weld_holds_the_loop_closed_against_the_servos_and_release_lets_it_open(robot):
    sim = make_sim(robot)
    curl(sim)
    engaged_distance_m = sim.latch_frames_distance_m()
    assert sim.set_latched(True) is True and sim.latched
    # the weld holds the relative pose of this instant: no constraint violation right after engaging
    mujoco.mj_forward(sim.model, sim.data)
    rows = sim.data.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
    assert np.abs(sim.data.efc_pos[rows]).max() < 1e-3
    distances = straighten(sim, 2.0)
    assert np.abs(sim.joint_efforts()[:11]).max() > 10.0  # the servos do pull at their torque limit
    # contact/forces shows the ground's wrenches, not the weld's pull on head and tail (MuJoCo's
    # summed external forces, cfrc_ext, hold both: the engine sums the contacts instead)
    reported = sim.contact_wrenches_world()
    np.testing.assert_allclose(reported, sim._contact_wrenches_world_by_contact(), atol=1e-12)
    mujoco.mj_rnePostConstraint(sim.model, sim.data)
    head = sim.robot_body_names.index('base_link')
    assert np.abs(sim.data.cfrc_ext[sim.root_body_id + head, 3:] - reported[head, :3]).max() > 1.0
    assert max(abs(d - engaged_distance_m) for d in distances) < 0.005
    assert sim.set_latched(False) is True and not sim.latched
    assert straighten(sim, 2.0)[-1] > 1.0  # released, the chain opens


def test_weld_holds_the_loop_under_gravity_when_limp_on_the_slope(robot):
    """Torque off on the 24° slope: only the weld keeps the limp barrel closed (unwelded it
    falls open, checked below); on level ground a limp loop would just rest closed."""
    sim = make_sim(robot, slope_deg=24.0)
    curl(sim)
    engaged_distance_m = sim.latch_frames_distance_m()
    assert sim.set_latched(True)
    sim.set_torque_enabled(False)
    distances = []
    for _ in range(100):
        sim.run(0.02)
        distances.append(sim.latch_frames_distance_m())
    assert max(abs(d - engaged_distance_m) for d in distances) < 0.005
    sim.set_latched(False)
    sim.run(1.0)
    assert sim.latch_frames_distance_m() > engaged_distance_m + 0.05  # unwelded, the limp loop falls open


def test_engaging_an_engaged_latch_keeps_its_weld(robot):
    sim = make_sim(robot)
    curl(sim)
    assert sim.set_latched(True)
    weld = sim.model.equality(LATCH_WELD).id
    data = sim.model.eq_data[weld].copy()
    sim.run(0.5)
    assert sim.set_latched(True) and np.array_equal(sim.model.eq_data[weld], data)


def test_a_robot_without_latch_frames_has_no_latch():
    from cobra_description.robot_model import default_urdf_path
    tsnake = load_robot_model(default_urdf_path('tsnake'))
    sim = CobraSim(tsnake, RigidGround(), SimParams(settle_duration_s=0.0), np.random.default_rng(0))
    assert not sim.has_latch and not sim.latched
    assert sim.latch_frames_distance_m() == float('inf')
    assert sim.set_latched(True) is False
    assert sim.set_latched(False) is True
