"""Rigid-slope reference of the DEM tumbling body (thesis §28, Fig. 22): the same body in MuJoCo.

The DEM scenario's body (cobra_dem.body: mass, inertia tensor, and its contact shape: the
wheel's cylinder or the COBRA loop's link capsules) on a rigid plane, in the DEM bed frame (x
downslope, z slope normal, gravity tilted by slope_deg), with the translation along x and z and
the spin about y as joints (planar, like the LAMMPS body). `free`: it rolls under gravity;
`prescribed`: a stiff velocity servo holds the spin at omega_r while the translation stays free
(the DEM scenario's prescribed motion). Contact: the rigid ground of the tumbling issue (thesis §7
static friction 0.5 by default, cobra_sim.terrain's RigidGroundParams) as MuJoCo's elliptic
Coulomb cone with a stiff, critically damped soft contact.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import mujoco
import numpy as np

from cobra_common.rotations import quaternion_from_matrix

from cobra_dem.body import BodyShape
from cobra_dem.scenario import GRAVITY_M_S2, Scenario

RIGID_TIME_STEP_S = 5e-4
SPIN_SERVO_GAIN_NM_S = 2000.0   # N m per rad/s: holds omega_r within ~1e-3 rad/s against the contact torque


def body_geoms_mjcf(shape: BodyShape, friction: float) -> str:
    """The shape's contact geometry as MJCF geoms in the (world-aligned) body frame at the start orientation."""
    contact = f'friction="{friction} 0.005 0.0001" solref="0.002 1" condim="3" mass="0"'
    if shape.kind == 'wheel':
        return (f'<geom name="body_0" type="cylinder" size="{shape.wheel_radius_m} {0.5 * shape.wheel_width_m}" '
                f'quat="0.7071068 0.7071068 0 0" {contact}/>')
    ends = shape.capsule_ends_m @ shape.start_rotation.T
    return '\n      '.join(
        f'<geom name="body_{k}" type="capsule" size="{radius:.9g}" fromto="{" ".join(f"{v:.9g}" for v in pair.ravel())}" '
        f'{contact}/>' for k, (pair, radius) in enumerate(zip(ends, shape.capsule_radius_m)))


def body_model_xml(scenario: Scenario, friction: float) -> str:
    """MJCF of the body on the rigid plane, bed frame, gravity tilted by the scenario's slope."""
    body, shape = scenario.body, scenario.body.shape
    theta = math.radians(scenario.slope_deg)
    gx, gz = GRAVITY_M_S2 * math.sin(theta), -GRAVITY_M_S2 * math.cos(theta)
    inertia = shape.inertia_in_bed_kg_m2(shape.start_rotation)
    full = ' '.join(f'{v:.9g}' for v in (inertia[0, 0], inertia[1, 1], inertia[2, 2],
                                         inertia[0, 1], inertia[0, 2], inertia[1, 2]))
    height_m = -shape.lowest_z_m(np.zeros(3), quaternion_from_matrix(shape.start_rotation))
    servo = (f'<actuator><velocity name="spin" joint="spin" kv="{SPIN_SERVO_GAIN_NM_S}"/></actuator>'
             if body.motion == 'prescribed' else '')
    return f"""<mujoco model="dem_rigid_reference">
  <option timestep="{RIGID_TIME_STEP_S}" gravity="{gx:.9g} 0 {gz:.9g}" cone="elliptic" integrator="implicitfast"/>
  <worldbody>
    <geom name="slope" type="plane" size="50 1 0.1" friction="{friction} 0.005 0.0001"/>
    <body name="body" pos="0 0 {height_m:.9g}">
      <joint name="x" type="slide" axis="1 0 0" damping="0"/>
      <joint name="z" type="slide" axis="0 0 1" damping="0"/>
      <joint name="spin" type="hinge" axis="0 1 0" damping="0"/>
      <inertial pos="0 0 0" mass="{shape.mass_kg:.9g}" fullinertia="{full}"/>
      {body_geoms_mjcf(shape, friction)}
    </body>
  </worldbody>
  {servo}
</mujoco>"""


def planar_trace(model: mujoco.MjModel, data: mujoco.MjData, duration_s: float, sample_interval_s: float,
                 advance: Callable[[int], np.ndarray], spin_speed_rad_s: float = 0.0) -> dict[str, np.ndarray]:
    """Run the planar body of `body_model_xml` as the DEM body runs: settled at rest 0.2 s under the
    level-bed gravity, x reset, the slope's gravity applied, then sampled every sample_interval_s.
    advance(n) takes n time steps (n = 0: none) and returns the ground's force on the body then."""
    slope_gravity = model.opt.gravity.copy()
    model.opt.gravity[:] = [0.0, 0.0, -GRAVITY_M_S2]
    advance(round(0.2 / RIGID_TIME_STEP_S))
    data.qvel[:] = 0.0
    data.qpos[0] = 0.0
    model.opt.gravity[:] = slope_gravity
    if model.nu:
        data.ctrl[0] = spin_speed_rad_s
        data.qvel[2] = spin_speed_rad_s
    start_height_m = float(model.body('body').pos[2])
    sample_steps = max(1, round(sample_interval_s / RIGID_TIME_STEP_S))
    samples = math.ceil(duration_s / (sample_steps * RIGID_TIME_STEP_S) - 1e-6) + 1   # 0.3 / 0.01 is 30, not 31
    out: dict[str, list] = {name: [] for name in ('time_s', 'position_m', 'velocity_m_s', 'angular_velocity_rad_s',
                                                  'contact_force_n')}
    for k in range(samples):
        force = advance(sample_steps if k > 0 else 0)
        out['time_s'].append(k * sample_steps * RIGID_TIME_STEP_S)
        out['position_m'].append([data.qpos[0], 0.0, data.qpos[1] + start_height_m])
        out['velocity_m_s'].append([data.qvel[0], 0.0, data.qvel[1]])
        out['angular_velocity_rad_s'].append([0.0, data.qvel[2], 0.0])
        out['contact_force_n'].append(force)
    return {name: np.asarray(values, dtype=float) for name, values in out.items()}


def rigid_body_trace(scenario: Scenario, duration_s: float, sample_interval_s: float,
                     friction: float = 0.5) -> dict[str, np.ndarray]:
    """time_s, position_m [n, 3], velocity_m_s [n, 3], angular_velocity_rad_s [n, 3] and
    contact_force_n [n, 3] (bed frame, z normal) of the body on the rigid slope (planar_trace)."""
    model = mujoco.MjModel.from_xml_string(body_model_xml(scenario, friction))
    body_id = model.body('body').id
    data = mujoco.MjData(model)
    wrench = np.zeros(6)

    def advance(steps: int) -> np.ndarray:
        for _ in range(steps):
            mujoco.mj_step(model, data)
        force = np.zeros(3)
        for i in range(data.ncon):
            mujoco.mj_contactForce(model, data, i, wrench)
            frame = data.contact[i].frame.reshape(3, 3)      # rows: normal, tangent 1, tangent 2
            world = frame.T @ wrench[:3]
            # contact normal points from geom1 to geom2: make it the force on the wheel
            force += world if model.geom_bodyid[data.contact[i].geom2] == body_id else -world
        return force

    spin_speed = scenario.body.angular_speed_rad_s if scenario.body.motion == 'prescribed' else 0.0
    return planar_trace(model, data, duration_s, sample_interval_s, advance, spin_speed)
