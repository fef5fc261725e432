"""cmd_vel and go-to-goal runs in CobraSim without ROS: the gait node's cmd_vel core
(cobra_gaits.cmd_vel.CmdVelSource) and the goal controller (cobra_gaits.goal_controller) played
on the engine the way the nodes play them (100 Hz gait ticks, the sim's 2 ms control periods).

Used by the calibration / benchmark script (scripts/bench/cmd_vel_bench.py) and the engine-level
tests (cobra_gaits/test/test_cmd_vel_sim.py). Deterministic: the sim's generator is seeded.

Body heading = direction of the principal axis of the link origins (tail -> head), the measure
of cobra_experiments.lts_runs.body_yaw_rad; the travel speed is the centre of mass's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from cobra_description.robot_model import RobotModel, default_urdf_path, load_robot_model
from cobra_experiments.lts_runs import body_yaw_rad
from cobra_gaits.cmd_vel import CmdVelSettings, CmdVelSource
from cobra_gaits.body_pose import BodyPoseEstimator
from cobra_gaits.goal_controller import GoalController, Phase
from cobra_gaits.sidewinding import SidewindingParams
from cobra_sim.engine import CobraSim, SimParams
from cobra_sim.terrain import default_terrain_file, make_terrain

GAIT_PERIOD_S = 0.01  # the gait node's 100 Hz
GAIT1 = SidewindingParams(0.4, 0.35, 0.70, 'left', ramp_duration_s=2.0)  # config/gait.yaml gait1
SETTLE_S = 0.5
TSNAKE_TURN_WINDOW_S = 5.0  # a T-Snake turn without translation has no curve period: measure this long


@lru_cache(maxsize=2)
def robot_model(robot: str) -> RobotModel:
    return load_robot_model(default_urdf_path(robot))


def heading_rad(body_xy_m: np.ndarray) -> float:
    """Yaw of the body's principal axis, tail -> head, from [n, 2] link origins."""
    return float(body_yaw_rad(np.asarray(body_xy_m)[None])[0])


@dataclass
class SnakeRun:
    """A settled robot on a terrain with a cmd_vel source; `tick()` is one gait-node period."""

    robot: str = 'cobra'
    terrain: str = 'rigid'
    settings: CmdVelSettings = field(default_factory=CmdVelSettings)
    preset: SidewindingParams = GAIT1
    initial_yaw_rad: float = 0.0

    def __post_init__(self) -> None:
        model = robot_model(self.robot)
        self.joints = model.gait_joints()
        self.sim = CobraSim(model, make_terrain(self.terrain, default_terrain_file(self.terrain)),
                            SimParams(settle_duration_s=SETTLE_S), np.random.default_rng(0))
        if self.initial_yaw_rad:
            c, s = math.cos(self.initial_yaw_rad), math.sin(self.initial_yaw_rad)
            rotation = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
            self.sim.restart_at_rest(self.sim.data.qpos.copy(), rotation)
        self.sim.settle()
        self.source = CmdVelSource(self.joints, self.preset, self.settings)
        self.source.ramp.start()
        self.names = [joint.name for joint in self.joints]
        self._periods = round(GAIT_PERIOD_S / self.sim.params.control_period_s)

    @property
    def time_s(self) -> float:
        return self.sim.time_s

    def tick(self) -> None:
        self.source.advance(GAIT_PERIOD_S)
        self.sim.set_targets(dict(zip(self.names, self.source.positions())))
        for _ in range(self._periods):
            self.sim.step_control_period()

    def run(self, duration_s: float, each_tick: Callable[[SnakeRun], None] | None = None) -> None:
        for _ in range(round(duration_s / GAIT_PERIOD_S)):
            if each_tick is not None:
                each_tick(self)
            self.tick()

    def command(self, lateral_m_s: float, angular_rad_s: float = 0.0) -> None:
        self.source.on_twist((0.0, lateral_m_s, 0.0), (0.0, 0.0, angular_rad_s))

    def body_xy_m(self) -> np.ndarray:
        return self.sim.body_state().position_m[:, :2].copy()

    def heading_rad(self) -> float:
        return heading_rad(self.body_xy_m())

    def body_centre_m(self) -> tuple[float, float]:
        """Centroid of the link origins: the point a navigate_to_pose goal places."""
        x, y = self.body_xy_m().mean(axis=0)
        return float(x), float(y)

    def com_xy_m(self) -> np.ndarray:
        return self.sim.center_of_mass()[:2].copy()

    def head_pose_2d(self) -> tuple[float, float, float]:
        """(x, y, yaw) of base_link: what `odom` gives (the sim's exact pose); yaw from the
        head body's rotation matrix (no quaternion convention involved)."""
        body = self.sim.root_body_id
        position = self.sim.data.xpos[body]
        rotation = self.sim.data.xmat[body].reshape(3, 3)
        return float(position[0]), float(position[1]), math.atan2(rotation[1, 0], rotation[0, 0])


@dataclass(frozen=True)
class SteadyMotion:
    """Measured over whole cycles after the ramp: speeds in the body frame at the start."""

    lateral_m_s: float  # COM velocity along the initial body's +y (left)
    along_m_s: float  # ... along the initial body axis
    yaw_rate_rad_s: float  # least-squares slope of the unwrapped body heading
    duration_s: float


def gait_period_s(run: SnakeRun) -> float:
    """One cycle of what the source plays now: 1 / f (COBRA), 2 pi / |omega_t| (T-Snake; a pure
    twisting turn: TSNAKE_TURN_WINDOW_S)."""
    robot = run.source.robot
    if hasattr(robot, 'frequency_hz'):
        return 1.0 / robot.frequency_hz if robot.frequency_hz > 0.0 else math.inf
    omega = abs(robot.target_omega_t_rad_s)
    return 2.0 * math.pi / omega if omega > 1e-9 else TSNAKE_TURN_WINDOW_S


def steady_motion(run: SnakeRun, lateral_m_s: float, angular_rad_s: float, cycles: int,
                  settle_cycles: int = 1, keep_alive: bool = True) -> SteadyMotion:
    """Command a constant twist (re-sent every tick: a teleop at 100 Hz), ramp and settle, then
    measure `cycles` whole gait cycles of the frequency the source chose."""
    def send(r: SnakeRun) -> None:
        if keep_alive:
            r.command(lateral_m_s, angular_rad_s)
    run.command(lateral_m_s, angular_rad_s)
    period_s = gait_period_s(run)
    run.run(run.preset.ramp_duration_s + settle_cycles * period_s, send)
    start_yaw = run.heading_rad()
    start_com = run.com_xy_m()
    times, yaws = [], []
    duration = cycles * period_s

    def sample(r: SnakeRun) -> None:
        send(r)
        times.append(r.time_s)
        yaws.append(r.heading_rad())
    t0 = run.time_s
    run.run(duration, sample)
    displacement = run.com_xy_m() - start_com
    axis = np.array([math.cos(start_yaw), math.sin(start_yaw)])
    left = np.array([-axis[1], axis[0]])
    elapsed = run.time_s - t0
    yaw = np.unwrap(np.array(yaws))
    rate = float(np.polyfit(np.array(times), yaw, 1)[0])
    return SteadyMotion(float(displacement @ left) / elapsed, float(displacement @ axis) / elapsed, rate, elapsed)


@dataclass(frozen=True)
class GoalRun:
    reached: bool  # the controller finished (stopped and settled) within the time allowed
    final_xy_m: tuple[float, float]  # body centre (link origins' centroid) at rest
    final_heading_rad: float  # body principal axis at rest
    elapsed_s: float


def drive_to_goal(run: SnakeRun, controller: GoalController, timeout_s: float,
                  odom_period_s: float = GAIT_PERIOD_S) -> GoalRun:
    """Feed the body pose to the controller every `odom_period_s` and its twist to the cmd_vel
    source, until the controller is done or `timeout_s` of sim time passed. The body pose is the
    navigate node's: forward kinematics at the joint angles placed by the head pose (`odom`)."""
    estimator = BodyPoseEstimator(run.sim.robot)
    start = run.time_s
    next_odom = start
    while run.time_s - start < timeout_s and controller.phase != Phase.DONE:
        if run.time_s >= next_odom - 1e-9:
            position, quaternion_xyzw = run.sim.head_pose()
            joints = dict(zip(run.sim.joint_names, run.sim.joint_positions()))
            status = controller.update(run.time_s, *estimator.body_pose(position, quaternion_xyzw, joints))
            run.command(status.twist.lateral_m_s, status.twist.angular_rad_s)
            next_odom += odom_period_s
        run.tick()
    x, y = run.body_centre_m()
    return GoalRun(controller.phase == Phase.DONE, (x, y), run.heading_rad(), run.time_s - start)
