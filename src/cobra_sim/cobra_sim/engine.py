"""COBRA multibody simulation (MuJoCo) with named read-outs of the physics state.

Shaped after dm_control's suite: the model is generated from parameters (the URDF), the control
period must be a whole number of physics steps, randomness comes from an injected generator,
and the same inputs give the same trajectory.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import mujoco
import numpy as np
from cobra_common.rotations import xyzw_from_wxyz

from cobra_description.robot_model import START_CLEARANCE_M, RobotModel, RobotModelError
from cobra_sim.mjcf import HEAD_LATCH_FRAME, LATCH_WELD, TAIL_LATCH_FRAME, ServoParams, build_mjcf
from cobra_sim.terrain import BodyShape, BodyState, RobotBody, TerrainModel


# contact points MuJoCo's plane collision makes for a shape lying on the plane (a cylinder on its
# side: one under each end cap; a box on a face: four corners; a mesh: at most 3, mjc_PlaneConvex)
CONTACTS_AT_REST: dict[int, int] = {
    int(mujoco.mjtGeom.mjGEOM_SPHERE): 1, int(mujoco.mjtGeom.mjGEOM_ELLIPSOID): 1,
    int(mujoco.mjtGeom.mjGEOM_CAPSULE): 2, int(mujoco.mjtGeom.mjGEOM_CYLINDER): 2,
    int(mujoco.mjtGeom.mjGEOM_BOX): 4, int(mujoco.mjtGeom.mjGEOM_MESH): 3,
}
# MuJoCo geom types a wrench terrain receives by name (a mesh goes as the box of its geom-frame AABB)
TERRAIN_SHAPE_KINDS: dict[int, str] = {
    int(mujoco.mjtGeom.mjGEOM_SPHERE): 'sphere', int(mujoco.mjtGeom.mjGEOM_CAPSULE): 'capsule',
    int(mujoco.mjtGeom.mjGEOM_CYLINDER): 'cylinder', int(mujoco.mjtGeom.mjGEOM_BOX): 'box',
}


LEVI_CIVITA = np.zeros((3, 3, 3))
LEVI_CIVITA[0, 1, 2] = LEVI_CIVITA[1, 2, 0] = LEVI_CIVITA[2, 0, 1] = 1.0
LEVI_CIVITA[0, 2, 1] = LEVI_CIVITA[2, 1, 0] = LEVI_CIVITA[1, 0, 2] = -1.0


def cross_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise a × b for [n, 3] arrays (one einsum: a third of np.cross's cost at n = 12)."""
    return np.einsum('ijk,nj,nk->ni', LEVI_CIVITA, a, b)


def contiguous_index(indices: np.ndarray) -> slice | np.ndarray:
    """A slice where the indices are consecutive (a view, no gather), else the index array."""
    if len(indices) and np.array_equal(indices, np.arange(indices[0], indices[0] + len(indices))):
        return slice(int(indices[0]), int(indices[0]) + len(indices))
    return indices


class SimConfigError(ValueError):
    """Simulation parameters that cannot give a valid run."""


@dataclass(frozen=True)
class SimParams:
    timestep_s: float = 0.001
    control_period_s: float = 0.002
    settle_duration_s: float = 2.0
    initial_height_m: float | None = None  # None: the URDF's lowest point + START_CLEARANCE_M
    imu_frame: str | None = None  # None: the URDF's IMU frame (RobotModel.imu_frame)
    servo: ServoParams = field(default_factory=ServoParams)
    latch_capture_distance_m: float = 0.03  # the latch engages only with its frames this close
    start_xy_yaw: tuple[float, float, float] = (0.0, 0.0, 0.0)  # root in the ground plane [m, m, rad]


def steps_per_period(period_s: float, timestep_s: float, what: str) -> int:
    """Whole number of physics steps in `period_s`, or a clear error."""
    steps = round(period_s / timestep_s)
    if steps < 1 or abs(steps * timestep_s - period_s) > 1e-9 * max(1.0, period_s):
        raise SimConfigError(f'{what} ({period_s} s) must be a whole multiple of the physics '
                             f'step ({timestep_s} s)')
    return steps


class CobraSim:
    def __init__(self, robot: RobotModel, terrain: TerrainModel, params: SimParams,
                 rng: np.random.Generator) -> None:
        self.robot = robot
        self.terrain = terrain
        self.params = params
        self.rng = rng
        self.steps_per_control = steps_per_period(params.control_period_s, params.timestep_s,
                                                  'control period')
        self.imu_frame = params.imu_frame or robot.imu_frame
        try:
            initial_height_m = params.initial_height_m if params.initial_height_m is not None \
                else START_CLEARANCE_M - robot.lowest_point_m()
        except RobotModelError as error:  # no collision geometry: nothing to place on the ground
            raise SimConfigError(f'URDF {robot.source or robot.name!s}: {error}; give its links '
                                 f'<collision> shapes or set SimParams.initial_height_m') from error
        self.mjcf = build_mjcf(robot, terrain, params.servo, params.timestep_s,
                               initial_height_m, self.imu_frame, params.start_xy_yaw)
        try:
            self.model = mujoco.MjModel.from_xml_string(self.mjcf)
        except ValueError as error:  # e.g. a degenerate mesh, a moving link without mass
            raise SimConfigError(f'MuJoCo cannot build the model of URDF {robot.source or robot.name!s}: '
                                 f'{error}. Fix that link in the URDF.') from error
        self.data = mujoco.MjData(self.model)
        joints = robot.actuated_joints
        self.joint_names: list[str] = [j.name for j in joints]
        self._joint_index = {name: i for i, name in enumerate(self.joint_names)}
        joint_ids = [self.model.joint(name).id for name in self.joint_names]
        self._qpos_adr = np.array([self.model.jnt_qposadr[i] for i in joint_ids], dtype=int)
        self._dof_adr = np.array([self.model.jnt_dofadr[i] for i in joint_ids], dtype=int)
        self._actuator_ids = np.array([self.model.actuator(name).id for name in self.joint_names], dtype=int)
        self._max_speed = np.array([j.limits.velocity_rad_s for j in joints])
        self._kp = self.model.actuator_gainprm[self._actuator_ids, 0].copy()
        self._bias = self.model.actuator_biasprm[self._actuator_ids, :3].copy()
        self.root_body_id = self.model.body(robot.root).id
        self._robot_body_ids = np.arange(self.root_body_id, self.model.nbody)
        self._contact_body_ids = np.array([i for i in self._robot_body_ids if self.model.body_geomnum[i]], dtype=int)
        self._gyro_adr = self.model.sensor('imu_gyro').adr[0]
        self._accel_adr = self.model.sensor('imu_accel').adr[0]
        root_joint = self.model.body_jntadr[self.root_body_id]
        self._root_qpos_adr = int(self.model.jnt_qposadr[root_joint])
        self._root_dof_adr = int(self.model.jnt_dofadr[root_joint])
        self._apply_terrain_contact_parameters()
        self._contact_body_rows = contiguous_index(self._contact_body_ids)
        self._contact_body_root = self.model.body_rootid[self._contact_body_ids].astype(np.int64)
        self._geom_on_robot = self.model.geom_bodyid >= self.root_body_id
        # last wrenches a wrench terrain applied: world force and torque about the link origin
        self._terrain_wrench_world = np.zeros((len(self._contact_body_ids), 6))
        self.targets_rad = np.zeros(len(self.joint_names))
        self._max_change_rad = self._max_speed * params.control_period_s
        self._min_change_rad = -self._max_change_rad
        self._setpoint_change_rad = np.zeros(len(self.joint_names))
        # per-period hot path: consecutive ids become slices, read through cached views of MjData
        self._qpos_index = contiguous_index(self._qpos_adr)
        self._dof_index = contiguous_index(self._dof_adr)
        self._actuator_index = contiguous_index(self._actuator_ids)
        self._ctrl = self.data.ctrl
        self._qpos = self.data.qpos
        self._qvel = self.data.qvel
        self._time_origin_s = 0.0
        self.torque_enabled = True
        self.latch_capture_distance_m = params.latch_capture_distance_m
        self._latch_weld_id: int | None = None
        self._latch_site_ids: tuple[int, int] | None = None
        if HEAD_LATCH_FRAME in robot.links and TAIL_LATCH_FRAME in robot.links:
            self._latch_weld_id = self.model.equality(LATCH_WELD).id
            self._latch_site_ids = (self.model.site(HEAD_LATCH_FRAME).id, self.model.site(TAIL_LATCH_FRAME).id)
        mujoco.mj_forward(self.model, self.data)
        if terrain.applies_wrenches:
            # the state handed to the terrain each physics step: arrays rewritten in place, valid
            # for that step only (the terrain copies what it keeps)
            self._step_state = self.body_state()
            terrain.setup(self.terrain_bodies(), self.body_state(), params.timestep_s)   # a copy it may keep

    def terrain_bodies(self) -> list[RobotBody]:
        """Name, mass and collision shapes (MuJoCo geom_size, pose in the body frame) of each robot
        body with collision geometry, in `robot_body_names` order, read from the compiled model."""
        model = self.model
        bodies = []
        for body_id in self._contact_body_ids:
            shapes = []
            for geom in range(model.body_geomadr[body_id], model.body_geomadr[body_id] + model.body_geomnum[body_id]):
                rotation = np.empty(9)
                mujoco.mju_quat2Mat(rotation, model.geom_quat[geom])
                position, size = model.geom_pos[geom], model.geom_size[geom]
                kind = TERRAIN_SHAPE_KINDS.get(int(model.geom_type[geom]))
                if kind is None and model.geom_type[geom] == mujoco.mjtGeom.mjGEOM_MESH:
                    # the box of the mesh's bounding box, in the geom frame: centre offset moved to the body
                    kind, size = 'box', model.geom_aabb[geom, 3:]
                    position = position + rotation.reshape(3, 3) @ model.geom_aabb[geom, :3]
                elif kind is None:
                    kind = mujoco.mjtGeom(int(model.geom_type[geom])).name.removeprefix('mjGEOM_').lower()
                count = {'sphere': 1, 'capsule': 2, 'cylinder': 2, 'box': 3}.get(kind, len(size))
                shapes.append(BodyShape(kind, tuple(float(v) for v in size[:count]),
                                        tuple(float(v) for v in position),
                                        tuple(tuple(float(v) for v in row) for row in rotation.reshape(3, 3))))
            bodies.append(RobotBody(model.body(int(body_id)).name, float(model.body_mass[body_id]), tuple(shapes)))
        return bodies

    def _apply_terrain_contact_parameters(self) -> None:
        """Let the terrain set each robot geom's solref/solimp from the compiled model's masses."""
        robot_geoms = np.flatnonzero(np.isin(self.model.geom_bodyid, self._robot_body_ids))
        if len(robot_geoms) == 0:
            return
        bodies = self.model.geom_bodyid[robot_geoms]
        contacts_at_rest = np.array([CONTACTS_AT_REST.get(int(kind), 1) for kind in self.model.geom_type[robot_geoms]])
        parameters = self.terrain.robot_contact_parameters(
            self.model.body_invweight0[bodies, 0], contacts_at_rest, self.params.timestep_s)
        if parameters is not None:
            self.model.geom_solref[robot_geoms] = parameters.solref
            self.model.geom_solimp[robot_geoms] = parameters.solimp
        impratio = self.terrain.friction_impratio(self.model.body_mass[np.unique(bodies)],
                                                  float(np.linalg.norm(self.model.opt.gravity)))
        if impratio is not None:
            self.model.opt.impratio = impratio

    # --- commands -------------------------------------------------------------------------
    def set_targets(self, positions_rad: Mapping[str, float]) -> None:
        """Goal positions by joint name (callers apply the command guard's limits)."""
        for name, value in positions_rad.items():
            self.targets_rad[self._joint_index[name]] = value

    def set_torque_enabled(self, enabled: bool) -> None:
        """Torque off makes the servos limp: no stiffness, no damping from the actuators.

        Torque on does what the driver does before enabling: it re-reads the present joint
        positions and makes them both the servo setpoint and the goal (hold), so the robot moves
        again only on new commands, through the speed-limited setpoint, never by a snap to a goal
        sent while it was limp.
        """
        if enabled:  # the driver holds on every enable, also when the torque was already on
            present_rad = self.data.qpos[self._qpos_adr]
            self.data.ctrl[self._actuator_ids] = present_rad
            self.targets_rad[:] = present_rad
        scale = 1.0 if enabled else 0.0
        self.model.actuator_gainprm[self._actuator_ids, 0] = self._kp * scale
        self.model.actuator_biasprm[self._actuator_ids, :3] = self._bias * scale
        self.torque_enabled = enabled

    def restart_at_rest(self, qpos: np.ndarray, rotation: np.ndarray | None = None) -> None:
        """Put the robot in the configuration `qpos` (e.g. taken from a level-ground run), turned
        by `rotation` about the world origin (e.g. the slope's, so a pose resting on the level
        plane rests on the slope), at rest, the servos holding the joint positions it has."""
        self.data.qpos[:] = qpos
        self.data.qvel[:] = 0.0
        if rotation is not None:
            adr = self._root_qpos_adr
            turn = np.empty(4)
            mujoco.mju_mat2Quat(turn, np.asarray(rotation, dtype=float).ravel())
            self.data.qpos[adr:adr + 3] = rotation @ qpos[adr:adr + 3]
            mujoco.mju_mulQuat(self.data.qpos[adr + 3:adr + 7], turn, qpos[adr + 3:adr + 7].copy())
        present_rad = self.data.qpos[self._qpos_adr]
        self.data.ctrl[self._actuator_ids] = present_rad
        self.targets_rad[:] = present_rad
        mujoco.mj_forward(self.model, self.data)

    # --- latch ----------------------------------------------------------------------------
    @property
    def has_latch(self) -> bool:
        """The URDF has the head and tail latch frames (COBRA), so the latch weld exists."""
        return self._latch_weld_id is not None

    @property
    def latched(self) -> bool:
        """The latch weld is active: head and tail are held in the relative pose of engagement."""
        return self._latch_weld_id is not None and bool(self.data.eq_active[self._latch_weld_id])

    def latch_frames_distance_m(self) -> float:
        """Distance between head_latch_link and tail_latch_link [m] as MuJoCo last computed the
        kinematics (the last step's start); inf for a robot without latch frames."""
        if self._latch_site_ids is None:
            return math.inf
        head, tail = self._latch_site_ids
        return float(np.linalg.norm(self.data.site_xpos[tail] - self.data.site_xpos[head]))

    def set_latched(self, engaged: bool) -> bool:
        """Engage (weld head to tail as they are now) or release the latch.

        Engaging needs the latch frames within `latch_capture_distance_m`: otherwise nothing
        changes and the answer is False. Engaging an engaged latch keeps its weld. Release always
        succeeds. The weld's data (mjEQ_WELD, body semantic) is [anchor: the point on body2, in its
        frame; relpos: where that point sits in body1's frame; relquat: body2's orientation in
        body1's frame; torquescale]: the anchor is the tail latch frame, so the constraint holds
        the latch point itself. Toggling eq_active takes effect at the next step.
        """
        if self._latch_weld_id is None:
            return not engaged
        weld = self._latch_weld_id
        if not engaged:
            self.data.eq_active[weld] = 0
            return True
        if self.latched:
            return True
        if self.latch_frames_distance_m() > self.latch_capture_distance_m:
            return False
        head_body, tail_body = self.model.eq_obj1id[weld], self.model.eq_obj2id[weld]
        tail_site = self._latch_site_ids[1]
        data = self.model.eq_data[weld]
        data[0:3] = self.model.site_pos[tail_site]  # the site's pose is in its body's frame
        head_rotation = self.data.xmat[head_body].reshape(3, 3)
        data[3:6] = head_rotation.T @ (self.data.site_xpos[tail_site] - self.data.xpos[head_body])
        head_inverse = np.empty(4)
        mujoco.mju_negQuat(head_inverse, self.data.xquat[head_body])
        relative = np.empty(4)
        mujoco.mju_mulQuat(relative, head_inverse, self.data.xquat[tail_body])
        data[6:10] = relative
        self.data.eq_active[weld] = 1
        return True

    # --- stepping -------------------------------------------------------------------------
    def begin_control_period(self) -> None:
        """Move each servo setpoint toward its goal no faster than the servo's speed limit."""
        change = np.subtract(self.targets_rad, self._ctrl[self._actuator_index], out=self._setpoint_change_rad)
        np.minimum(change, self._max_change_rad, out=change)
        np.maximum(change, self._min_change_rad, out=change)
        self._ctrl[self._actuator_index] += change

    def step_physics(self, nstep: int = 1) -> None:
        if not self.terrain.applies_wrenches:
            mujoco.mj_step(self.model, self.data, nstep)
            return
        from cobra_sim.wrench_coupling import apply_wrenches, fill_body_state
        model, data, ids, roots = self.model, self.data, self._contact_body_ids, self._contact_body_root
        state, dt_s, terrain, applied = self._step_state, self.params.timestep_s, self.terrain, self._terrain_wrench_world
        for _ in range(nstep):
            mujoco.mj_step1(model, data)  # kinematics and velocities of this step's start
            fill_body_state(data, ids, roots, state)
            force, torque = terrain.wrenches(state, dt_s)
            apply_wrenches(force, torque, data.xipos, data.xpos, ids, applied, data.xfrc_applied)
            mujoco.mj_step2(model, data)

    def step_control_period(self) -> None:
        self.begin_control_period()
        self.step_physics(self.steps_per_control)

    def settle(self) -> None:
        """Let the robot come to rest on the terrain; sim time restarts at zero afterwards."""
        for _ in range(steps_per_period(self.params.settle_duration_s, self.params.control_period_s,
                                        'settle duration') if self.params.settle_duration_s else 0):
            self.step_control_period()
        self._time_origin_s = self.data.time

    def run(self, duration_s: float, command: Callable[[float], Mapping[str, float]] | None = None) -> None:
        """Advance `duration_s`; `command(t) -> {joint: rad}` is sampled once per control period."""
        for _ in range(steps_per_period(duration_s, self.params.control_period_s, 'duration')):
            if command is not None:
                self.set_targets(command(self.time_s))
            self.step_control_period()

    # --- read-outs ------------------------------------------------------------------------
    @property
    def time_s(self) -> float:
        return self.data.time - self._time_origin_s

    def joint_positions(self) -> np.ndarray:
        """[rad] in `joint_names` order."""
        return self._qpos[self._qpos_index].copy()

    def joint_velocities(self) -> np.ndarray:
        """[rad/s] in `joint_names` order."""
        return self._qvel[self._dof_index].copy()

    def joint_efforts(self) -> np.ndarray:
        """[N·m] actuator torque on each joint, in `joint_names` order."""
        return self.data.qfrc_actuator[self._dof_index].copy()

    def head_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """(position [m], unit quaternion x, y, z, w) of base_link in the world (= odom) frame at
        `time_s` (the free joint's state, not the kinematics of the step before)."""
        adr = self._root_qpos_adr
        return self.data.qpos[adr:adr + 3].copy(), xyzw_from_wxyz(self._root_quaternion_wxyz())

    def _root_quaternion_wxyz(self) -> np.ndarray:
        """The free joint's unit quaternion as MuJoCo stores it (w first): for MuJoCo's own functions."""
        adr = self._root_qpos_adr
        quaternion = self.data.qpos[adr + 3:adr + 7]
        return quaternion / np.linalg.norm(quaternion)

    def head_velocity_local(self) -> tuple[np.ndarray, np.ndarray]:
        """(linear [m/s], angular [rad/s]) velocity of the base_link ORIGIN, both expressed in
        base_link axes (REP 103/105: an odometry twist is in its child_frame_id), at `time_s`.

        MuJoCo's free joint holds the origin's linear velocity in world axes and the angular
        velocity already in the body's own axes.
        """
        adr = self._root_dof_adr
        rotation = np.empty(9)
        mujoco.mju_quat2Mat(rotation, self._root_quaternion_wxyz())
        linear_world = self.data.qvel[adr:adr + 3]
        return rotation.reshape(3, 3).T @ linear_world, self.data.qvel[adr + 3:adr + 6].copy()

    def center_of_mass(self) -> np.ndarray:
        return self.data.subtree_com[self.root_body_id].copy()

    def imu(self) -> tuple[np.ndarray, np.ndarray]:
        """(angular velocity [rad/s], specific force [m/s²]) in the IMU frame."""
        sensors = self.data.sensordata
        return (sensors[self._gyro_adr:self._gyro_adr + 3].copy(),
                sensors[self._accel_adr:self._accel_adr + 3].copy())

    def joint_position(self, name: str) -> float:
        return float(self.data.qpos[self._qpos_adr[self._joint_index[name]]])

    @property
    def robot_body_names(self) -> list[str]:
        """Robot bodies that have collision geometry, in the order of `contact_wrenches`."""
        return [self.model.body(int(i)).name for i in self._contact_body_ids]

    def contact_wrenches_world(self) -> np.ndarray:
        """[n_bodies, 6]: force [N] and torque about the link ORIGIN [N·m] on each robot body
        (`robot_body_names` order) from the environment, not from other robot bodies, in world
        axes: MuJoCo's contacts plus what a wrench terrain applied. Contacts and link poses are
        those of the last physics step's start.

        MuJoCo sums every external force on a body in C (mj_rnePostConstraint: cfrc_ext, ~1 µs;
        the contacts one by one in numpy cost 60-175 µs per call, 15 % of the lockstepped sim's
        CPU). cfrc_ext also holds the forces of active equality constraints (the latch weld) and
        robot-robot contacts: while either acts, the contacts are summed one by one instead."""
        if (self.model.neq and self.data.eq_active.any()) or self._robot_touches_itself():
            return self._contact_wrenches_world_by_contact()
        mujoco.mj_rnePostConstraint(self.model, self.data)
        rows, data = self._contact_body_rows, self.data
        external = data.cfrc_ext[rows]  # [torque about the root's subtree COM, force], world axes
        force = external[:, 3:]
        wrenches = np.empty((len(self._contact_body_ids), 6))
        wrenches[:, :3] = force
        wrenches[:, 3:] = external[:, :3] + cross_rows(data.subtree_com[self._contact_body_root] - data.xpos[rows],
                                                       force)
        return wrenches

    def _robot_touches_itself(self) -> bool:
        """A contact between two robot bodies (in the last step's contact list)."""
        return self.data.ncon > 0 and bool(self._geom_on_robot[self.data.contact.geom].all(axis=1).any())

    def _contact_wrenches_world_by_contact(self) -> np.ndarray:
        """contact_wrenches_world from the contact list: robot-robot contacts left out."""
        wrenches = np.zeros((self.model.nbody, 6))
        if self.terrain.applies_wrenches:
            wrenches[self._contact_body_ids] = self._terrain_wrench_world
        if self.data.ncon == 0:
            return wrenches[self._contact_body_ids]
        contacts = self.data.contact
        geoms = np.stack([contacts.geom1, contacts.geom2], axis=1)
        bodies = self.model.geom_bodyid[geoms]
        on_robot = self._geom_on_robot[geoms]
        environment = np.flatnonzero(on_robot[:, 0] != on_robot[:, 1])  # robot-robot contacts excluded
        local = self._contact_forces_local(environment)
        # contact frame rows are its axes in world; the force acts on geom2, so negate for geom1
        robot_is_geom2 = on_robot[environment, 1]
        frame = contacts.frame[environment].reshape(-1, 3, 3)
        sign = np.where(robot_is_geom2, 1.0, -1.0)[:, None]
        force = np.einsum('nji,nj->ni', frame, local[:, :3]) * sign
        contact_torque = np.einsum('nji,nj->ni', frame, local[:, 3:]) * sign  # rolling resistance
        body = np.where(robot_is_geom2, bodies[environment, 1], bodies[environment, 0])
        arm = contacts.pos[environment] - self.data.xpos[body]
        wrench = np.empty((len(environment), 6))
        wrench[:, :3] = force
        # arm × force, written out (np.cross costs more than the rest of this method)
        wrench[:, 3] = arm[:, 1] * force[:, 2] - arm[:, 2] * force[:, 1]
        wrench[:, 4] = arm[:, 2] * force[:, 0] - arm[:, 0] * force[:, 2]
        wrench[:, 5] = arm[:, 0] * force[:, 1] - arm[:, 1] * force[:, 0]
        wrench[:, 3:] += contact_torque
        np.add.at(wrenches, body, wrench)
        return wrenches[self._contact_body_ids]

    def _contact_forces_local(self, contact_ids: np.ndarray) -> np.ndarray:
        """[n, 6] (normal, tangent 1, tangent 2 force; spin, roll 1, roll 2 torque) of each contact in
        its contact frame, as mj_contactForce gives it, gathered from efc_force per contact dimension."""
        contacts = self.data.contact
        address = contacts.efc_address[contact_ids]
        dims = contacts.dim[contact_ids]
        local = np.zeros((len(contact_ids), 6))
        if np.any(address < 0):  # excluded from the constraint solver: ask MuJoCo one by one
            for row, index in enumerate(contact_ids):
                mujoco.mj_contactForce(self.model, self.data, int(index), local[row])
            return local
        efc_force = self.data.efc_force
        elliptic = self.model.opt.cone == mujoco.mjtCone.mjCONE_ELLIPTIC
        for dim in np.unique(dims):
            rows = np.flatnonzero(dims == dim)
            if elliptic or dim == 1:
                local[rows, :dim] = efc_force[address[rows, None] + np.arange(dim)]
                continue
            # pyramid edges (mju_decodePyramid): normal = their sum, component i+1 = mu_i (f_2i − f_2i+1)
            edges = efc_force[address[rows, None] + np.arange(2 * (dim - 1))]
            local[rows, 0] = edges.sum(axis=1)
            local[rows, 1:dim] = (edges[:, 0::2] - edges[:, 1::2]) * contacts.friction[contact_ids[rows], :dim - 1]
        local[:, 0] -= contacts.adhesion[contact_ids]
        return local

    def contact_wrenches(self) -> np.ndarray:
        """[n_bodies, 6]: the same wrenches (force [N], torque about the link origin [N·m])
        expressed in each link's own frame, so a WrenchStamped with frame_id = the link name
        (`robot_body_names`) is drawn right by RViz and Foxglove."""
        world = self.contact_wrenches_world().reshape(-1, 2, 3)
        to_link = self.data.xmat[self._contact_body_ids].reshape(-1, 3, 3)  # link-to-world
        return np.einsum('nji,nkj->nki', to_link, world).reshape(-1, 6)

    def body_state(self) -> BodyState:
        """Origins, orientations and origin velocities (world axes) of the `robot_body_names`
        bodies, from the kinematics and velocities MuJoCo last computed (mj_step1 / mj_forward), in
        new arrays (`cobra_sim.wrench_coupling.body_state_into`: from cvel, [ω, v] at the subtree
        COM of the body's root, the origin moves at v + ω × (xpos − subtree_com[root]); MuJoCo's
        mj_objectVelocity gives the velocity of the body's COM, xipos, instead).
        """
        from cobra_sim.wrench_coupling import fill_body_state
        n = len(self._contact_body_ids)
        state = BodyState(np.empty((n, 3)), np.empty((n, 3, 3)), np.empty((n, 3)), np.empty((n, 3)))
        fill_body_state(self.data, self._contact_body_ids, self._contact_body_root, state)
        return state
