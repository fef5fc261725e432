"""The rigid ground reproduces the thesis's §7 normal law f_n = s(d, w)(k d + b ḋ) for one module.

The reference is the paper's ODE for a module of mass m on that law, integrated finely here
(LSODA, steps ≤ 0.1 ms, tolerance 1e-9); the simulation runs MuJoCo at the sim's 1 ms step.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from cobra_description.robot_model import parse_urdf
from cobra_sim.engine import CobraSim, SimParams
from cobra_sim.terrain import RigidGround, RigidGroundParams, TerrainConfigError, paper_normal_force_n

RADIUS_M = 0.045
LENGTH_M = 0.136364
GRAVITY_M_S2 = 9.81
MODULE_MASS_KG = 0.463636  # a COBRA body module (urdf/cobra.urdf)
PAPER = RigidGroundParams()


def module_urdf(mass_kg: float) -> str:
    """One COBRA-sized module, a cylinder lying on its side, as the only link."""
    return f'''<robot name="module"><link name="module">
  <inertial><origin xyz="0 0 0"/><mass value="{mass_kg}"/>
    <inertia ixx="0.00047" ixy="0" ixz="0" iyy="0.00095" iyz="0" izz="0.00095"/></inertial>
  <collision><origin xyz="0 0 0" rpy="0 1.5707963267948966 0"/>
    <geometry><cylinder radius="{RADIUS_M}" length="{LENGTH_M}"/></geometry></collision>
</link></robot>'''


def module_sim(mass_kg: float, height_m: float, cone: str = 'elliptic') -> CobraSim:
    params = SimParams(initial_height_m=height_m, imu_frame='module', settle_duration_s=1.0)
    ground = RigidGround(RigidGroundParams(friction_cone=cone))
    return CobraSim(parse_urdf(module_urdf(mass_kg)), ground, params, np.random.default_rng(0))


def paper_static_depth_m(mass_kg: float) -> float:
    """Depth at which the paper's law carries the module's weight: k d s(d, w) = m g."""
    return brentq(lambda d: float(paper_normal_force_n(d, 0.0, PAPER)) - mass_kg * GRAVITY_M_S2, 1e-9, 0.05)


def paper_drop_depth_m(mass_kg: float, drop_m: float, times_s: np.ndarray) -> np.ndarray:
    """Penetration over time of a module released `drop_m` above the ground, on the paper's law."""
    def rates(_t: float, state: np.ndarray) -> list[float]:
        height, velocity = state
        force = float(paper_normal_force_n(RADIUS_M - height, -velocity, PAPER))
        return [velocity, -GRAVITY_M_S2 + force / mass_kg]

    solution = solve_ivp(rates, (0.0, float(times_s[-1])), [RADIUS_M + drop_m, 0.0], method='LSODA',
                         max_step=1e-4, rtol=1e-9, atol=1e-12, dense_output=True)
    return RADIUS_M - solution.sol(times_s)[0]


@pytest.mark.parametrize('cone', ['elliptic', 'pyramidal'])
@pytest.mark.parametrize('mass_kg', [MODULE_MASS_KG, 2.0])
def test_module_at_rest_penetrates_as_the_paper_law_says(mass_kg, cone):
    sim = module_sim(mass_kg, RADIUS_M, cone)
    sim.settle()
    depth_m = RADIUS_M - sim.head_pose()[0][2]
    expected_m = paper_static_depth_m(mass_kg)
    assert depth_m == pytest.approx(expected_m, rel=0.10)
    if mass_kg * GRAVITY_M_S2 / PAPER.stiffness_n_m > PAPER.smoothing_width_m:
        # past the smoothing width s = 1: the depth is m g / k exactly as the paper's k gives
        assert depth_m == pytest.approx(mass_kg * GRAVITY_M_S2 / PAPER.stiffness_n_m, rel=0.02)
    # the module's ground reaction carries its weight
    assert sim.contact_wrenches()[0, 2] == pytest.approx(mass_kg * GRAVITY_M_S2, rel=0.01)


@pytest.mark.parametrize('cone', ['elliptic', 'pyramidal'])
@pytest.mark.parametrize('mass_kg', [MODULE_MASS_KG, 2.0])
def test_dropped_module_settles_with_the_paper_damping(mass_kg, cone):
    drop_m, steps = 0.01, 600
    sim = module_sim(mass_kg, RADIUS_M + drop_m, cone)
    depth_m = np.empty(steps)
    for step in range(steps):
        sim.step_physics(1)
        depth_m[step] = RADIUS_M - sim.head_pose()[0][2]
    times_s = sim.params.timestep_s * np.arange(1, steps + 1)
    reference_m = paper_drop_depth_m(mass_kg, drop_m, times_s)
    static_m = paper_static_depth_m(mass_kg)

    touchdown = int(np.argmax(depth_m > 0.0))
    reference_touchdown = int(np.argmax(reference_m > 0.0))
    # the 1 ms semi-implicit Euler free fall lands up to one step before the exact one
    assert abs(touchdown - reference_touchdown) <= 1
    # overdamped (ζ ≫ 1): no rebound, the module stays on the ground after touching it
    assert reference_m[reference_touchdown:].min() > 0.0
    assert depth_m[touchdown:].min() > 0.0
    # the impact's deepest point, and the creep to the static depth on the b/k = 0.1 s scale
    assert depth_m.max() == pytest.approx(reference_m.max(), rel=0.10)
    settled = max(touchdown, reference_touchdown) + 20  # past the impact that 1 ms steps cannot resolve
    assert np.abs(depth_m[settled:] - reference_m[settled:]).max() < 0.10 * static_m


def test_a_rolling_module_slows_as_its_rolling_resistance_says_and_comes_to_rest():
    """Rolling without slip, the resistance a N (a = rolling_resistance_m) takes the kinetic energy
    ½ (m + I/r²) v²: deceleration a g / (r (1 + I/(m r²))), 0.073 m/s² for a module. Below about
    6 cm/s MuJoCo's regularised rolling friction turns viscous (e-folding in about 0.8 s)."""
    sim = module_sim(MODULE_MASS_KG, RADIUS_M)
    sim.settle()
    sim.data.qvel[:] = 0.0
    sim.data.qvel[1] = -0.5                     # rolling about +x carries the centre along -y
    sim.data.qvel[3] = 0.5 / RADIUS_M           # free joint: angular velocity in the body frame (= world here)
    sim.run(0.5)
    speed_at_0_5_s = -sim.data.qvel[1]
    sim.run(4.0)
    inertia_ratio = 0.00047 / (MODULE_MASS_KG * RADIUS_M ** 2)
    decel = PAPER.rolling_resistance_m * GRAVITY_M_S2 / (RADIUS_M * (1.0 + inertia_ratio))
    assert (speed_at_0_5_s + sim.data.qvel[1]) / 4.0 == pytest.approx(decel, rel=0.03)
    assert -sim.data.qvel[3] * RADIUS_M == pytest.approx(sim.data.qvel[1], abs=0.005)  # rolling, not sliding
    sim.run(5.0)
    assert abs(sim.data.qvel[1]) < 1e-3  # at rest


def test_without_rolling_resistance_the_module_rolls_on():
    """rolling_resistance_m 0 is the paper's law alone: nothing stops a rolling cylinder but the
    contact's damping (the reason the default has a rolling resistance)."""
    ground = RigidGround(RigidGroundParams(rolling_resistance_m=0.0))
    sim = CobraSim(parse_urdf(module_urdf(MODULE_MASS_KG)), ground,
                   SimParams(initial_height_m=RADIUS_M, imu_frame='module', settle_duration_s=1.0),
                   np.random.default_rng(0))
    sim.settle()
    sim.data.qvel[:] = 0.0
    sim.data.qvel[1], sim.data.qvel[3] = -0.1, 0.1 / RADIUS_M
    sim.run(3.0)
    assert -sim.data.qvel[1] > 0.08


def test_rolling_resistance_must_be_a_length():
    with pytest.raises(TerrainConfigError, match='rolling_resistance_m'):
        RigidGround(RigidGroundParams(rolling_resistance_m=-1e-4)).world_xml()
