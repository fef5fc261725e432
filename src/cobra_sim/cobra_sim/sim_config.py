"""The sim node's parameters: one typed table (cobra_common.config_check, as the driver's) and the checks
that the values alone can judge; no rclpy (cobra_sim.sim_node declares the table).

`check_parameters` refuses, with one StartupError naming the fix: an unknown clock_origin or
lockstep mode, a terrain file that does not read or a start off the terrain, a bad frame prefix,
and periods that are no whole number of control periods (or physics steps).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from cobra_common.errors import StartupError
from cobra_common.frames import frame_prefix_problem
from cobra_common.heightmap_cloud import HEIGHTMAP_TOPIC
from cobra_common.config_check import Setting, by_name
from cobra_description.robot_model import load_robot_model
from cobra_sim.clock_origin import CLOCK_ORIGINS
from cobra_sim.engine import SimConfigError, steps_per_period
from cobra_sim.lockstep import LOCKSTEP_MODES, LockstepConfigError, control_periods_per_command
from cobra_sim.terrain import TERRAINS, make_terrain

PARAMETERS: tuple[Setting, ...] = (
    Setting('urdf_path', '', 'robot URDF; empty = installed cobra_description'),
    Setting('terrain', 'rigid', f'terrain model: {" | ".join(sorted(TERRAINS))}'),
    Setting('terrain_file', '', "the terrain's parameter YAML (one per soil, config/soil/); '' = its default "
            '(scm: loose_sand.yaml, compliant: compliant_ground.yaml); rigid takes none'),
    Setting('slope_deg', 0.0, 'tilt of the rigid ground [deg], descending along world +x (the head points '
            'downhill at start); 0 <= slope_deg < 90; only terrain:=rigid can be sloped (thesis §28 tumbling: 24)',
            0.0, 90.0, maximum_open=True),
    Setting('start_x_m', 0.0, 'start position of the root (head) along the ground plane\'s x [m] (a twin starts '
            'where its recorded run did)', -1e4, 1e4),
    Setting('start_y_m', 0.0, "start position of the root along the ground plane's y [m]", -1e4, 1e4),
    Setting('start_yaw_rad', 0.0, 'start heading of the root about the ground normal [rad]; 0 = the head points '
            'along +x (downhill on a slope)', -math.pi, math.pi),
    Setting('latch_capture_distance_m', 0.03, 'latch/set true engages (welds head to tail as they are) only '
            'when head_latch_link and tail_latch_link are at most this far apart [m]', 1e-5, 0.5),
    Setting('heightmap_period_s', 0.5, f'{HEIGHTMAP_TOPIC} period [s] (deformable terrains only)', 0.2, 1.0),
    Setting('timestep_s', 0.001, 'physics step [s]', 1e-5, 0.01),
    Setting('control_period_s', 0.002, 'servo update and joint_states period [s]; a whole number of physics '
            'steps', 1e-4, 0.1),
    Setting('settle_duration_s', 2.0, 'settling before t = 0 [s]', 0.0, 60.0),
    Setting('clock_origin', 'zero', f"{' | '.join(CLOCK_ORIGINS)}: /clock (and every stamp) starts at 0, or at "
            'the wall-clock time of t = 0 floored to a whole second and command period (real dates in bags); '
            'duration_s and all periods still count from t = 0', choices=CLOCK_ORIGINS),
    Setting('duration_s', 0.0, 'stop and exit after this sim time [s]; 0 = run until stopped', 0.0, 1e6),
    Setting('real_time_factor', 1.0, 'pace to this many sim seconds per wall second; 0 = as fast as possible',
            0.0, 1000.0),
    Setting('imu_period_s', 0.004, 'imu/data period [s]', 1e-3, 1.0),
    Setting('odom_period_s', 0.01, 'odom and ground_truth/odom period [s]', 1e-3, 1.0),
    Setting('command_timeout_s', 0.2, 'hold position after this long without a command [s]', 0.01, 10.0),
    Setting('servo_kp_nm_rad', 40.0, 'servo position gain [N·m/rad]', 0.0, 1000.0),
    Setting('servo_kd_nm_s_rad', 0.8, 'servo damping gain [N·m·s/rad]', 0.0, 100.0),
    Setting('servo_armature_kg_m2', 0.01, 'reflected rotor inertia [kg·m²]', 0.0, 1.0),
    Setting('imu_gyro_noise_rad_s', 0.005, 'gyro noise std [rad/s]', 0.0, 1.0),
    Setting('imu_accel_noise_m_s2', 0.05, 'accelerometer noise std [m/s²]', 0.0, 10.0),
    Setting('odom_noise_m', 0.0, 'position noise std on odom (mimics VIO) [m]', 0.0, 1.0),
    Setting('seed', 0, 'random seed of the noise generator'),
    Setting('contact_forces_period_s', 0.01, "contact/forces period [s]: every link's ground reaction wrench "
            'in one cobra_interfaces/ContactWrenches; 0 = not published', 0.0, 1.0),
    Setting('contact_forces_per_link', False, "also publish each link's wrench as geometry_msgs/WrenchStamped "
            'on contact/forces/<link> at the same period (for RViz; a dozen more messages per sample)'),
    Setting('frame_prefix', '', "prefix of every frame id the sim stamps (odom, base_link, imu and link "
            "frames), e.g. 'cobra/' so that two robots share one TF tree; '' = none"),
    Setting('wait_for_peers_s', 0.0, 'hold sim time at 0 until the peers below are present, at most this '
            'long [s]; 0 = start at once', 0.0, 600.0),
    Setting('wait_for_recorder', True, 'a peer: joint_states, imu/data, odom and ground_truth/odom each have a '
            'subscriber (and, in lockstep, a logger publishes logger/progress)'),
    Setting('wait_for_commands', True, 'a peer: a node (the gait) publishes joint_commands'),
    Setting('lockstep', 'auto', 'auto | on | off: step past a command boundary only once the command stamped '
            'for it arrived and the logger is within lockstep_max_logger_lag_s; auto = on when '
            'real_time_factor is 0 (true/false, what YAML makes of on/off, are accepted)'),
    Setting('command_period_s', 0.01, "the gait's command period [s] (1 / its rate_hz): lockstep boundaries "
            'and the /clock period (nodes on sim time tick on it); a whole number of control periods',
            1e-4, 1.0),
    Setting('lockstep_max_logger_lag_s', 0.05, 'lockstep: wait while the newest joint_states stamp the logger '
            'wrote is older than this [s of sim time]', 0.0, 10.0),
    Setting('lockstep_peer_timeout_s', 5.0, 'lockstep: warn (again every this long) while a present peer keeps '
            'the sim waiting; at the end of duration_s give up waiting after this long [s, wall clock]',
            0.1, 600.0),
)
PARAMETER_BY_NAME = by_name(PARAMETERS)
RUNTIME_PARAMETERS = frozenset({'latch_capture_distance_m', 'duration_s', 'real_time_factor', 'command_timeout_s',
                                'imu_gyro_noise_rad_s', 'imu_accel_noise_m_s2', 'odom_noise_m'})  # the rest: read-only
ALLOWED = {'slope_deg': '0 <= slope_deg < 90'}  # in words, where the range cannot say it
DYNAMIC_TYPING = frozenset({'lockstep'})  # `lockstep:=off` arrives as the YAML boolean false
PERIODS = ('imu_period_s', 'odom_period_s', 'contact_forces_period_s', 'command_period_s', 'heightmap_period_s')


def start_xy_yaw(p: dict[str, Any]) -> tuple[float, float, float]:
    """The root's start in the ground plane: x, y [m], yaw [rad]."""
    return float(p['start_x_m']), float(p['start_y_m']), float(p['start_yaw_rad'])


def check_parameters(p: dict[str, Any]) -> dict[str, Any]:
    """The declared values (lockstep normalised to auto | on | off); StartupError for combinations
    that cannot run. Reads and range-checks the terrain file and the URDF, so the bringup's
    pre-start check refuses a bad one."""
    p['lockstep'] = {True: 'on', False: 'off'}.get(p['lockstep'], p['lockstep'])
    if p['clock_origin'] not in CLOCK_ORIGINS:
        raise StartupError(f"clock_origin:={p['clock_origin']} is not one of {', '.join(CLOCK_ORIGINS)} "
                           '(zero: stamps from 0; wall: stamps from the wall-clock time of the start)')
    if p['lockstep'] not in LOCKSTEP_MODES:
        raise StartupError(f"lockstep:={p['lockstep']} is not one of {', '.join(LOCKSTEP_MODES)}")
    try:
        terrain = make_terrain(p['terrain'], p['terrain_file'], p['slope_deg'])
        robot = load_robot_model(p['urdf_path'] or None)
        links = [name for name, link in robot.links.items() if link.collisions]
        # the robot starts in the URDF's zero pose at the start pose: a start off the terrain is refused here
        x_m, y_m, yaw_rad = start_xy_yaw(p)
        turn = np.array([[math.cos(yaw_rad), -math.sin(yaw_rad)], [math.sin(yaw_rad), math.cos(yaw_rad)]])
        zero_pose_xy = np.array([robot.transform(robot.root, name)[:2, 3] for name in links])
        terrain.check_start(links, zero_pose_xy @ turn.T + np.array([x_m, y_m]))
    except ValueError as error:  # TerrainConfigError / RobotModelError: names the parameter and the file
        raise StartupError(str(error)) from error
    if (problem := frame_prefix_problem(p['frame_prefix'])) is not None:
        raise StartupError(problem)
    try:
        for name in PERIODS:
            if p[name]:
                steps_per_period(p[name], p['control_period_s'], name)
        steps_per_period(p['control_period_s'], p['timestep_s'], 'control_period_s')
        control_periods_per_command(p['command_period_s'], p['control_period_s'])
    except (SimConfigError, LockstepConfigError) as error:
        raise StartupError(str(error)) from error
    return p
