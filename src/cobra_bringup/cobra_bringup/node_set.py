"""The node set of each bringup mode, defined once for the launch file and the pip-mode runner.

`launch_arguments(launch_file)` lists every argument with that launch file's default and its
description (sidewind, lts and tumble differ in defaults only); `parse_arguments`
turns `name:=value` words into checked values (`check_arguments` does the same for the launch
file's configurations, so both front ends accept and refuse the same input); `node_set` says
which nodes run, with which parameter files and overrides. No ROS imports: both front ends
convert at their edge, and both then run cobra_bringup.prestart's validation against the
nodes' own parameter declarations before starting anything.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from cobra_description.robot_model import DEFAULT_ROBOT, RobotModelError, default_urdf_path, load_robot_model
from cobra_gaits.lts import PRESET_NAMES as LTS_PRESET_NAMES
from cobra_gaits.presets import (CMD_VEL_GAIT, CSV_GAIT, LTS_GAIT, TUMBLE_GAIT, available_gaits,
                                 load_gait_parameters)
from cobra_gaits.sidewinding import DIRECTIONS, GaitError
from cobra_gaits.trajectory_csv import read_trajectory_csv
from cobra_sim.terrain import TERRAINS as TERRAIN_MODELS

from cobra_bringup.run_metadata import gait_entries, git_revision, run_custom_data

LAUNCH_FILES = ('sidewind.launch.py', 'lts.launch.py', 'tumble.launch.py')
ROBOTS = ('cobra', 'tsnake')  # urdf/<robot>.urdf; DEFAULT_ROBOT is what a node loads without urdf_path
TRUE_WORDS, FALSE_WORDS = ('true', '1', 'yes'), ('false', '0', 'no')
DEM_TERRAIN = 'dem'  # granular DEM (cobra_dem dem_node): the thesis's rigid wheel on a particle bed, no robot
DEM_BODY = 'wheel'  # the body a DEM run simulates (the bag's custom_data robot)
TERRAINS = tuple(sorted([*TERRAIN_MODELS, DEM_TERRAIN]))
PEER_WAIT_S = 15.0  # the simulation holds t = 0 until the gait (and the logger) joined, at most this long
LOGGER_NODE, SIM_NODE, DRIVER_NODE = 'logger', 'sim_node', 'joint_driver'  # the gait's command subscribers


class BringupError(ValueError):
    """A launch argument or file that cannot give a valid bringup; the message says the fix."""


@dataclass(frozen=True)
class LaunchArgument:
    name: str
    default: str
    description: str
    choices: tuple[str, ...] = ()


LAUNCH_ARGUMENTS: tuple[LaunchArgument, ...] = (
    LaunchArgument('use_sim', 'false', 'true: MuJoCo simulation (sim_node); false: real robot '
                   '(cobra_driver + cobra_odometry)', ('true', 'false')),
    LaunchArgument('record', 'true', 'record a rosbag2 (MCAP) with cobra_logger', ('true', 'false')),
    LaunchArgument('robot', DEFAULT_ROBOT, 'robot model (urdf/<robot>.urdf) of the gait and the sim: '
                   'cobra (11 pitch/yaw joints) or tsnake (6 dorsal/twist/lateral modules, '
                   'simulation only)', ROBOTS),
    LaunchArgument('gait', 'gait1', 'gait preset from config/gait.yaml (gait1 = 0.4 Hz, '
                   'gait2 = 0.3 Hz; COBRA), csv (replay csv_file), lts (LTS twist gait lts_preset; '
                   'robot:=tsnake), tumble (tumbling latch; robot:=cobra) or cmd_vel (follow '
                   'geometry_msgs/Twist on cmd_vel, with the navigate_to_pose action; both robots)'),
    LaunchArgument('lts_preset', 'rolling', 'LTS gait for gait:=lts (the LTS paper)', LTS_PRESET_NAMES),
    LaunchArgument('csv_file', '', 'joint trajectory CSV replayed by gait:=csv'),
    LaunchArgument('direction', 'left', 'sidewinding direction', tuple(DIRECTIONS)),
    LaunchArgument('terrain', 'rigid', 'simulated terrain model (use_sim:=true); dem = granular DEM '
                   '(the thesis\'s rigid wheel on a particle bed, slow; no robot, gait or state publisher)',
                   TERRAINS),
    LaunchArgument('terrain_file', '', 'simulation: terrain parameter YAML (one per soil, e.g. '
                   'config/soil/loose_sand.yaml, Chrono SCM names; terrain:=dem: a DEM scenario, '
                   'config/dem/*.yaml); empty = the terrain\'s default'),
    LaunchArgument('slope_deg', '0.0', 'simulation: tilt of the ground [deg], descending along '
                   '+x (where the head points at start); 0 <= slope_deg < 90, terrain:=rigid or dem '
                   '(dem: 0 = the scenario\'s)'),
    LaunchArgument('duration', '0.0', 'simulation: stop after this many sim seconds; 0 = until Ctrl-C'),
    LaunchArgument('real_time_factor', '1.0', 'simulation: sim seconds per wall second; '
                   '0 = as fast as possible'),
    LaunchArgument('bag_path', '', 'bag directory to create; empty = bags/<launch>_<UTC time>'),
    LaunchArgument('namespace', '', 'ROS namespace for every node and topic (clock stays global)'),
    LaunchArgument('frame_prefix', '', "prefix of the frame ids the sim or the odometry stamps, "
                   "e.g. cobra/ so that two robots share one TF tree; empty = none"),
    LaunchArgument('lockstep', 'auto', 'simulation: advance a command period only once the gait\'s '
                   'command for it arrived and the logger kept up; auto = on when real_time_factor:=0',
                   ('auto', 'on', 'off')),
    LaunchArgument('params_file', '', 'extra ROS parameter file applied after the defaults '
                   '(sections for any of the nodes)'),
    LaunchArgument('log_level', 'info', 'ROS log level of every node',
                   ('debug', 'info', 'warn', 'error', 'fatal')),
)
ARGUMENTS_BY_NAME = {argument.name: argument for argument in LAUNCH_ARGUMENTS}
# what each launch file changes of the defaults above (sidewind.launch.py: none)
LAUNCH_DEFAULTS: dict[str, dict[str, str]] = {
    'lts.launch.py': {'robot': 'tsnake', 'gait': LTS_GAIT, 'lts_preset': 'rolling', 'use_sim': 'true'},
    'tumble.launch.py': {'robot': 'cobra', 'gait': TUMBLE_GAIT, 'slope_deg': '24.0', 'use_sim': 'true'},
}


def launch_arguments(launch_file: str = LAUNCH_FILES[0]) -> tuple[LaunchArgument, ...]:
    """The arguments of one launch file: LAUNCH_ARGUMENTS with that file's defaults."""
    if launch_file not in LAUNCH_FILES:
        raise BringupError(f"unknown launch file '{launch_file}': choose one of {', '.join(LAUNCH_FILES)}")
    defaults = LAUNCH_DEFAULTS.get(launch_file, {})
    return tuple(replace(argument, default=defaults.get(argument.name, argument.default))
                 for argument in LAUNCH_ARGUMENTS)


@dataclass(frozen=True)
class NodeSpec:
    package: str
    executable: str
    name: str
    params_files: tuple[Path, ...]
    parameters: dict[str, object] = field(default_factory=dict)
    ends_run: bool = False  # exiting with 0 means the run is complete (a finite simulation)
    arguments: dict[str, str] = field(default_factory=dict)  # parameter -> the launch argument setting it


def _boolean(name: str, value: str) -> bool:
    if value.lower() in TRUE_WORDS:
        return True
    if value.lower() in FALSE_WORDS:
        return False
    raise BringupError(f"{name}:={value} is not a boolean: use {name}:=true or {name}:=false")


def _number(name: str, value: str) -> float:
    """A number; its range is the receiving node's parameter descriptor's (checked by prestart)."""
    try:
        return float(value)
    except ValueError:
        raise BringupError(f'{name}:={value} is not a number') from None


def check_argument_names(names: Iterable[str]) -> None:
    unknown = [name for name in names if name not in ARGUMENTS_BY_NAME]
    if unknown:
        raise BringupError(f"unknown launch argument '{unknown[0]}'; known: {', '.join(ARGUMENTS_BY_NAME)}")


def check_arguments(values: dict[str, str], launch_file: str = LAUNCH_FILES[0]) -> dict[str, str]:
    """All arguments, the launch file's defaults filled in, choices matched case-insensitively
    and lowercased."""
    check_argument_names(values)
    checked = {argument.name: argument.default for argument in launch_arguments(launch_file)}
    checked.update(values)
    for name, value in checked.items():
        choices = ARGUMENTS_BY_NAME[name].choices
        if choices:
            if value.lower() not in choices:
                raise BringupError(f"{name}:={value} is not one of {', '.join(choices)}")
            checked[name] = value.lower()
    return checked


def parse_arguments(words: Iterable[str], launch_file: str = LAUNCH_FILES[0]) -> dict[str, str]:
    """`name:=value` words -> all arguments with the launch file's defaults filled in; rejects
    unknown names."""
    values: dict[str, str] = {}
    for word in words:
        name, separator, value = word.partition(':=')
        if not separator or not name:
            raise BringupError(f"malformed launch argument '{word}': write name:=value, "
                               f"e.g. use_sim:=true")
        check_argument_names([name])
        values[name] = value
    return check_arguments(values, launch_file)


def default_bag_path(launch_file: str) -> Path:
    stem = launch_file.removesuffix('.launch.py')
    return Path('bags') / f"{stem}_{time.strftime('%Y%m%d_%H%M%S', time.gmtime())}"


def robot_urdf_path(robot: str) -> Path:
    """The absolute path of `robot`'s installed URDF, checked to load (one-line BringupError)."""
    path = default_urdf_path(robot).resolve()
    try:
        load_robot_model(path)
    except RobotModelError as error:
        raise BringupError(' '.join(str(error).split())) from None
    return path


def check_robot_and_gait(robot: str, gait: str, use_sim: bool, slope_deg: float) -> None:
    """Combinations no node could run: the T-Snake has no hardware driver and no sidewinding
    presets, COBRA has no twist joints, the tumbling latch is COBRA's, a slope is simulated."""
    if robot == 'tsnake' and not use_sim:
        raise BringupError('robot:=tsnake runs in simulation only (there is no T-Snake hardware driver): '
                           'add use_sim:=true')
    if gait == LTS_GAIT and robot != 'tsnake':
        raise BringupError('gait:=lts is a twist gait and COBRA has no twist joints: use robot:=tsnake '
                           '(or lts.launch.py)')
    if gait == TUMBLE_GAIT and robot != 'cobra':
        raise BringupError('gait:=tumble is the COBRA tumbling latch: use robot:=cobra '
                           '(or tumble.launch.py)')
    if robot == 'tsnake' and gait not in (LTS_GAIT, CSV_GAIT, CMD_VEL_GAIT):
        raise BringupError(f'gait:={gait} is a COBRA sidewinding preset (pitch/yaw joints); the T-Snake '
                           'has dorsal/twist/lateral joints: use gait:=lts lts_preset:=conventional')
    if slope_deg != 0.0 and not use_sim:
        raise BringupError(f'slope_deg:={slope_deg:g} tilts the simulated ground: it needs use_sim:=true')


# arguments only the robot's nodes read: a DEM run (the scenario's body alone) ignores them
ROBOT_ONLY_ARGUMENTS = ('robot', 'gait', 'lts_preset', 'csv_file', 'direction', 'real_time_factor', 'lockstep')
# arguments only the simulation reads (slope_deg and terrain:=dem have their own messages)
SIM_ONLY_ARGUMENTS = ('terrain', 'terrain_file', 'duration', 'real_time_factor', 'lockstep')
NUMERIC_ARGUMENTS = ('duration', 'real_time_factor', 'slope_deg')


def _differs(name: str, value: str, default: str) -> bool:
    """Whether an argument's value is not its default ('1' and '1.0' are one number)."""
    if name in NUMERIC_ARGUMENTS:
        try:
            return float(value) != float(default)
        except ValueError:
            return True
    return value != default


def check_meaningful(arguments: dict[str, str], launch_file: str = LAUNCH_FILES[0]) -> None:
    """Refuses a setting that no node of this bringup would read (it would be ignored silently):
    robot or gait arguments with terrain:=dem, simulation arguments on the real robot, an LTS
    preset without gait:=lts, a CSV without gait:=csv."""
    base = {argument.name: argument.default for argument in LAUNCH_ARGUMENTS}
    launch_defaults = LAUNCH_DEFAULTS.get(launch_file, {})
    use_sim = _boolean('use_sim', arguments['use_sim'])
    gait = arguments['gait']

    def setting(name: str) -> str:
        origin = f" ({launch_file}'s default)" if launch_defaults.get(name) == arguments[name] else ''
        return f'{name}:={arguments[name]}{origin}'

    if arguments['terrain'] == DEM_TERRAIN:
        if not use_sim:
            raise BringupError('terrain:=dem is a simulated terrain: add use_sim:=true')
        ignored = [setting(name) for name in ROBOT_ONLY_ARGUMENTS if _differs(name, arguments[name], base[name])]
        if ignored:
            raise BringupError(f"terrain:=dem runs the DEM scenario's body alone (the thesis's wheel, or the COBRA "
                               f"loop of config/dem/tumble_cobra.yaml), with no robot or gait, so {', '.join(ignored)} "
                               f'would be ignored: drop {"it" if len(ignored) == 1 else "them"} '
                               f'(sidewind.launch.py use_sim:=true terrain:=dem), or choose a robot terrain: '
                               f"{', '.join(t for t in TERRAINS if t != DEM_TERRAIN)}")
        return
    if not use_sim:
        defaults = {name: launch_defaults.get(name, base[name]) for name in base}
        ignored = [setting(name) for name in SIM_ONLY_ARGUMENTS if _differs(name, arguments[name], defaults[name])]
        if ignored:
            raise BringupError(f"{', '.join(ignored)} {'sets' if len(ignored) == 1 else 'set'} the simulation, "
                               'and use_sim:=false runs the real robot: add use_sim:=true, or drop '
                               f'{"it" if len(ignored) == 1 else "them"}')
    if gait != LTS_GAIT and _differs('lts_preset', arguments['lts_preset'], base['lts_preset']):
        raise BringupError(f"lts_preset:={arguments['lts_preset']} chooses an LTS gait, but gait:={gait}: "
                           f'add gait:=lts (robot:=tsnake; or lts.launch.py), or drop lts_preset')
    if gait != CSV_GAIT and arguments['csv_file']:
        raise BringupError(f"csv_file:={arguments['csv_file']} is replayed by gait:=csv, but gait:={gait}: "
                           'add gait:=csv, or drop csv_file')


def node_set(arguments: dict[str, str], config_dir: Path, launch_file: str = LAUNCH_FILES[0]) -> list[NodeSpec]:
    """The nodes of this bringup, after checking every argument and file they depend on."""
    check_meaningful(arguments, launch_file)
    use_sim = _boolean('use_sim', arguments['use_sim'])
    record = _boolean('record', arguments['record'])
    duration = _number('duration', arguments['duration'])
    real_time_factor = _number('real_time_factor', arguments['real_time_factor'])
    slope_deg = _number('slope_deg', arguments['slope_deg'])
    robot, gait = arguments['robot'], arguments['gait']
    extra = (Path(arguments['params_file']),) if arguments['params_file'] else ()
    for path in extra:
        if not path.is_file():
            raise BringupError(f'params_file:={path} does not exist')

    def files(name: str) -> tuple[Path, ...]:
        path = config_dir / name
        if not path.is_file():
            raise BringupError(f'missing parameter file {path}: is cobra_bringup installed?')
        return (path, *extra)

    frame_prefix = {'frame_prefix': arguments['frame_prefix']} if arguments['frame_prefix'] else {}
    terrain_file = {'terrain_file': str(Path(arguments['terrain_file']).resolve())} \
        if arguments['terrain_file'] else {}
    if arguments['terrain'] == DEM_TERRAIN:
        nodes = [_dem_node(use_sim, duration, slope_deg, record, files, frame_prefix, terrain_file)]
        gait_parameters: dict[str, object] = {}
        gait_file_parameters: dict[str, object] = {}
    else:
        nodes, gait_parameters, gait_file_parameters = _robot_nodes(
            arguments, use_sim, record, duration, real_time_factor, slope_deg, files, frame_prefix, terrain_file)
    if record:
        bag_path = Path(arguments['bag_path']) if arguments['bag_path'] else default_bag_path(launch_file)
        if bag_path.exists():
            raise BringupError(f'bag_path {bag_path} already exists: choose a new bag_path:=...')
        dem = arguments['terrain'] == DEM_TERRAIN  # the DEM body is the thesis's wheel: no robot, no gait
        custom_data = run_custom_data(  # the run's provenance in the bag's metadata.yaml (run_metadata)
            launch_file, DEM_BODY if dem else robot, use_sim, arguments['terrain'], slope_deg,
            terrain_file.get('terrain_file', ''),
            {} if dem else gait_entries(gait, arguments['direction'], arguments['lts_preset'],
                                        str(gait_parameters.get('csv_file', '')), gait_file_parameters),
            git_revision())
        nodes.insert(0, NodeSpec('cobra_logger', 'logger_node', LOGGER_NODE, files('logger.yaml'),
                                 {'bag_path': str(bag_path.resolve()), 'use_sim_time': use_sim,
                                  'custom_data': custom_data},
                                 arguments={'bag_path': 'bag_path'}))
    return nodes


def _dem_node(use_sim: bool, duration: float, slope_deg: float, record: bool,
              files: Callable[[str], tuple[Path, ...]], frame_prefix: dict[str, str],
              terrain_file: dict[str, str]) -> NodeSpec:
    """terrain:=dem: the DEM scenario in ROS mode (dem_node), alone with the logger: its body is the
    thesis's rigid wheel, so there is no robot, gait, state publisher or path forecast."""
    parameters: dict[str, object] = {'use_sim_time': True, 'duration_s': duration,
                                     'wait_for_peers_s': PEER_WAIT_S if record else 0.0, **frame_prefix}
    if terrain_file:
        parameters['scenario_file'] = terrain_file['terrain_file']
    if slope_deg:
        parameters['scenario_overrides'] = f'slope_deg={slope_deg:g}'
    return NodeSpec('cobra_dem', 'dem_node', 'dem_node', files('dem.yaml'), parameters, ends_run=True,
                    arguments={'scenario_file': 'terrain_file', 'duration_s': 'duration',
                               'frame_prefix': 'frame_prefix', 'scenario_overrides': 'slope_deg'})


def _robot_nodes(arguments: dict[str, str], use_sim: bool, record: bool, duration: float,
                 real_time_factor: float, slope_deg: float, files: Callable[[str], tuple[Path, ...]],
                 frame_prefix: dict[str, str], terrain_file: dict[str, str],
                 ) -> tuple[list[NodeSpec], dict[str, object], dict[str, object]]:
    """The robot's nodes (gait, sim or driver + odometry, state publisher, path forecast), the gait
    node's parameters and the gait file's parameters (for the bag's provenance)."""
    robot, gait = arguments['robot'], arguments['gait']
    # the first command waits for its consumers by name (in the run's namespace, as the gait): the sim
    # or the driver, and the logger when recording; another subscriber (an echo) does not stand in
    gait_parameters: dict[str, object] = {
        'gait': gait, 'direction': arguments['direction'], 'use_sim_time': use_sim,
        'command_subscriber_nodes': [SIM_NODE if use_sim else DRIVER_NODE, *([LOGGER_NODE] if record else [])]}
    try:
        gait_file_parameters = load_gait_parameters(*files('gait.yaml'))
        gaits = available_gaits(gait_file_parameters)
        if gait not in gaits:
            raise BringupError(f"unknown gait '{gait}': choose one of {', '.join(gaits)}")
        check_robot_and_gait(robot, gait, use_sim, slope_deg)
        # a robot other than the nodes' default gets its URDF by path (a params_file's
        # urdf_path stays in force for the default robot)
        urdf = {'urdf_path': str(robot_urdf_path(robot))} if robot != DEFAULT_ROBOT else {}
        if gait == LTS_GAIT:
            gait_parameters['lts_preset'] = arguments['lts_preset']
        if gait == CSV_GAIT:
            if not arguments['csv_file']:
                raise BringupError('gait:=csv needs csv_file:=<trajectory CSV>')
            csv_path = Path(arguments['csv_file']).resolve()
            read_trajectory_csv(csv_path, [j.name for j in load_robot_model(urdf.get('urdf_path')).gait_joints()])
            gait_parameters['csv_file'] = str(csv_path)
    except (GaitError, RobotModelError) as error:
        raise BringupError(' '.join(str(error).split())) from error  # one line, as every error here
    gait_parameters.update(urdf)

    nodes = [NodeSpec('cobra_gaits', 'gait_node', 'gait_node', files('gait.yaml'), gait_parameters,
                      arguments={'gait': 'gait', 'direction': 'direction', 'csv_file': 'csv_file',
                                 'lts_preset': 'lts_preset', 'urdf_path': 'robot'})]
    if use_sim:
        nodes.append(NodeSpec('cobra_sim', 'sim_node', SIM_NODE, files('sim.yaml'), {
            'terrain': arguments['terrain'], 'duration_s': duration,
            'real_time_factor': real_time_factor, 'use_sim_time': True, 'lockstep': arguments['lockstep'],
            'wait_for_peers_s': PEER_WAIT_S, 'wait_for_recorder': record, 'wait_for_commands': True,
            'slope_deg': slope_deg, **frame_prefix, **terrain_file, **urdf},
            ends_run=duration > 0,
            arguments={'terrain': 'terrain', 'duration_s': 'duration', 'real_time_factor': 'real_time_factor',
                       'lockstep': 'lockstep', 'frame_prefix': 'frame_prefix',
                       'terrain_file': 'terrain_file', 'slope_deg': 'slope_deg', 'urdf_path': 'robot'}))
    else:
        nodes.append(NodeSpec('cobra_driver', 'driver_node', DRIVER_NODE, files('driver.yaml')))
        nodes.append(NodeSpec('cobra_odometry', 'odometry_node', 'odometry', files('odometry.yaml'),
                              frame_prefix, arguments={'frame_prefix': 'frame_prefix'}))
    # robot_description, /tf_static and /tf (joints and odom -> base_link) for RViz, Foxglove and bags
    nodes.append(NodeSpec('cobra_description', 'state_publisher_node', 'state_publisher',
                          files('state_publisher.yaml'),
                          {'use_sim_time': use_sim, **frame_prefix, **urdf},
                          arguments={'frame_prefix': 'frame_prefix', 'urdf_path': 'robot'}))
    if gait == CMD_VEL_GAIT:  # the go-to-goal action, publishing cmd_vel from odom
        nodes.append(NodeSpec('cobra_gaits', 'navigate_node', 'navigate_node', files('navigate.yaml'),
                              {'use_sim_time': use_sim, 'robot': robot, **frame_prefix, **urdf},
                              arguments={'robot': 'robot', 'frame_prefix': 'frame_prefix', 'urdf_path': 'robot'}))
    if robot == DEFAULT_ROBOT and gait not in (CSV_GAIT, LTS_GAIT, CMD_VEL_GAIT):  # preset sidewinding: its path
        nodes.append(NodeSpec('cobra_gaits', 'path_forecast_node', 'path_forecast', files('path_forecast.yaml'),
                              {'use_sim_time': use_sim, **frame_prefix, **urdf},
                              arguments={'frame_prefix': 'frame_prefix', 'urdf_path': 'robot'}))
    return nodes, gait_parameters, gait_file_parameters
