"""`python -m cobra_bringup.twin BAG [terrain:=scm ...] [--out DIR]` (console script `twin`): the sim
twin of a recorded run, robot or sim, in one command.

The bag's `joint_commands` become a trajectory CSV that the gait node replays (gait:=csv, the
path every CSV gait takes) in the sim on the chosen terrain, the head starting where the recorded
run's did (sim_node start_x_m, start_y_m, start_yaw_rad; the joints blend from the straight pose to
the first command during a lead-in, as the driver moves to it); the twin's bag records the source's
provenance in its custom_data (`cobra.twin_of.*`: name, path, SHA-256, the source's custom_data);
cobra_analysis's report then compares the two bags (stride ratio, shape error, ATE/RPE; Ξ where
two gaits ran in two classes). Output: DIR/bag, DIR/replayed_commands.csv, DIR/report. Bad input
is one `error:` line naming the fix, exit 2, nothing written; a run that fails leaves nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from cobra_bringup.node_set import (DEM_TERRAIN, LAUNCH_FILES, ROBOTS, BringupError, NodeSpec, node_set,
                                    parse_arguments)
from cobra_bringup.run_metadata import PREFIX, git_revision, run_custom_data

EXIT_RUN_FAILED = 1
EXIT_BAD_INPUT = 2
LAUNCH_FILE = LAUNCH_FILES[0]  # sidewind.launch.py: gait:=csv runs from it for both robots
CSV_NAME = 'replayed_commands.csv'
REPORT_NAME = 'report'
TWIN_PREFIX = PREFIX + 'twin.'         # how the twin ran: lead-in, rate, the source's start pose
SOURCE_PREFIX = PREFIX + 'twin_of.'    # which bag it is the twin of
# launch arguments a twin takes from the command line; the rest come from the bag or the twin itself
TWIN_ARGUMENTS = ('terrain', 'terrain_file', 'slope_deg', 'real_time_factor', 'lockstep', 'namespace',
                  'frame_prefix', 'params_file', 'log_level')
FROM_THE_BAG = ('robot', 'gait', 'csv_file', 'direction', 'lts_preset', 'duration', 'use_sim', 'record')
COMMAND_PERIODS_S = (0.002, 0.004, 0.01, 0.02, 0.05, 0.1)  # gait periods the sim's 2 ms control period divides
RAMP_MARGIN = 1.1        # the replay ramp's speed check has to pass with this margin
MIN_RAMP_S = 0.1         # the gait node's smallest ramp_duration_s
HOLD_AFTER_RAMP_S = 0.1  # the envelope is exactly 1 before the recorded motion starts
GRID_TOLERANCE_S = 1e-6  # a stamp this close to a command tick is taken as on it
CSV_TIME_RESOLUTION_S = 1e-6  # cobra_gaits.trajectory_csv writes times to the microsecond
SETTLED_AT_ORIGIN_M, SETTLED_AT_ORIGIN_RAD = 0.01, 0.01  # a sim bag's first pose this near the origin started there


class TwinInputError(ValueError):
    """A bag or argument a twin cannot be made of; the text says the fix."""


@dataclass(frozen=True)
class RecordedRun:
    """What the twin takes from the source bag."""
    path: Path
    custom_data: dict[str, str]
    robot: str
    joint_names: tuple[str, ...]
    command_times_s: np.ndarray    # stamps of joint_commands, from the first
    command_positions_rad: np.ndarray  # (N, joints), gaps filled by interpolation
    start_pose: tuple[float, float, float, float] | None  # x, y, z [m], yaw [rad] of the first head pose
    start_joint_positions_rad: dict[str, float]  # the first joint_states
    latch_changes_s: tuple[float, ...] = ()  # latch/state flips, from the first command: engage, release, ...
    sim_start_xy_yaw: tuple[float, float, float] | None = None  # a sim bag: where its sim put the head (diagnostics)

    @property
    def simulated(self) -> bool:
        return self.custom_data.get(PREFIX + 'class') == 'sim'


@dataclass(frozen=True)
class Replay:
    """The CSV the gait node replays: a lead-in at the first command (the gait ramp blends it in from
    the straight pose, as the robot's driver moves to the first command), then the commands."""
    times_s: np.ndarray
    positions_rad: np.ndarray
    lead_in_s: float
    ramp_duration_s: float
    rate_hz: float
    duration_s: float  # sim time the twin runs: lead-in and every recorded command
    latch_schedule_s: tuple[float, ...] = ()  # the sim's latch_schedule_s: the recorded latch changes


def robot_of(custom_data: Mapping[str, str], joint_names: Sequence[str]) -> str:
    """The bag's robot: its custom_data, else the robot whose gait joints the commands name."""
    from cobra_description.robot_model import default_urdf_path, load_robot_model
    recorded = custom_data.get(PREFIX + 'robot')
    if recorded in ROBOTS:
        return recorded
    for robot in ROBOTS:
        gait_joints = {joint.name for joint in load_robot_model(default_urdf_path(robot)).gait_joints()}
        if set(joint_names) <= gait_joints:
            return robot
    raise TwinInputError(f"joint_commands name joints ({', '.join(joint_names)}) of no known robot "
                         f"({', '.join(ROBOTS)}): a twin replays commands of COBRA or the T-Snake")


def _filled(times_s: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Each column with its gaps (NaN: a message without that joint) interpolated."""
    filled = positions.copy()
    for column in range(positions.shape[1]):
        finite = np.isfinite(positions[:, column])
        filled[:, column] = np.interp(times_s, times_s[finite], positions[finite, column])
    return filled


def latch_changes_s(times_s: np.ndarray, latched: Sequence[object], bag_path: Path) -> tuple[float, ...]:
    """When latch/state flipped (engage, release, engage, ...) on the bag's clock. A twin starts
    straight and unlatched, so a run recorded already latched cannot be replayed."""
    if len(latched) and bool(latched[0]):
        raise TwinInputError(f'{bag_path}: latch/state is already true in its first message: the twin starts '
                             'straight and unlatched; twin a run recorded from before it latched')
    changes: list[float] = []
    state = False
    for time_s, value in zip(times_s, latched):
        if bool(value) != state:
            changes.append(float(time_s))
            state = bool(value)
    return tuple(changes)


def read_recorded_run(bag_path: Path) -> RecordedRun:
    """The source bag's commands, robot, start pose and provenance; TwinInputError for a bag a twin
    cannot replay."""
    from cobra_analysis.bag_reader import BagError, read_bag
    from cobra_description.robot_model import default_urdf_path, load_robot_model
    try:
        bag = read_bag(bag_path)
    except BagError as error:
        raise TwinInputError(str(error)) from None
    commands = bag.joint_commands
    if commands is None or len(commands.times_s) < 2:
        raise TwinInputError(f'{bag_path}: no joint_commands recorded (a twin replays them): twin a bag recorded '
                             'with joint_commands in its topics (config/logger.yaml records them)')
    order = np.argsort(commands.times_s, kind='stable')
    times, positions = commands.times_s[order], commands.position_rad[order]
    keep = np.concatenate([[True], np.diff(times) > 0.0])  # one command per stamp
    times, positions = times[keep], positions[keep]
    present = [i for i in range(len(commands.names)) if np.isfinite(positions[:, i]).any()]
    names = tuple(commands.names[i] for i in present)
    robot = robot_of(bag.custom_data, names)
    gait_joints = [joint.name for joint in load_robot_model(default_urdf_path(robot)).gait_joints()]
    unknown = [name for name in names if name not in gait_joints]
    if unknown:
        raise TwinInputError(f"{bag_path}: joint_commands name {', '.join(unknown)}, not a gait joint of "
                             f"{robot} ({', '.join(gait_joints)}): a twin replays the gait joints")
    pose = None
    if bag.head is not None and len(bag.head.times_s):
        x, y, z = (float(v) for v in bag.head.position_m[0])
        pose = (x, y, z, float(bag.head.yaw_rad[0]))
    first_states: dict[str, float] = {}
    if bag.joint_states is not None and len(bag.joint_states.times_s):
        first_states = {name: float(value) for name, value in
                        zip(bag.joint_states.names, bag.joint_states.position_rad[0]) if math.isfinite(value)}
    latch = bag.latch_state
    latch_changes = () if latch is None else tuple(
        t - times[0] for t in latch_changes_s(latch.times_s, latch.values, bag_path))
    return RecordedRun(bag_path, dict(bag.custom_data), robot, names, times - times[0],
                       _filled(times, positions[:, present]), pose, first_states, latch_changes,
                       _xy_yaw(bag.diagnostics.get('start_xy_yaw'), bag_path))


def _xy_yaw(text: str | None, bag_path: Path,
            what: str = "the sim's start_xy_yaw diagnostic") -> tuple[float, float, float] | None:
    """Where a sim put the head, as its `start_xy_yaw` diagnostic or a twin's custom_data says it
    ('x y yaw'); None when absent (a robot bag, an older sim bag)."""
    if text is None:
        return None
    try:
        x_m, y_m, yaw_rad = (float(word) for word in text.split())
    except ValueError:
        raise TwinInputError(f"{bag_path}: {what} reads '{text}', not 'x y yaw': "
                             'was the bag edited? Re-record it') from None
    return x_m, y_m, yaw_rad


def start_xy_yaw(run: RecordedRun) -> tuple[float, float, float]:
    """Where the twin's sim starts the head: the recorded run's first head pose (its z left to the
    settling), except for a sim bag that says where its sim started (the sim's diagnostics, or a
    twin's custom_data) or, older, started near the origin: that start itself, as the settled first
    pose lies where settling moved the body (2.3 cm down a 24° slope) and would move it again."""
    if run.simulated:  # older twin bags say it only in their custom_data
        key = TWIN_PREFIX + 'sim_start_xy_yaw'
        recorded = run.sim_start_xy_yaw or _xy_yaw(run.custom_data.get(key), run.path, f'custom_data {key}')
        if recorded is not None:
            return recorded
    if run.start_pose is None:
        return 0.0, 0.0, 0.0
    x_m, y_m, _, yaw_rad = run.start_pose
    yaw_rad = math.remainder(yaw_rad, 2.0 * math.pi)
    if run.simulated and math.hypot(x_m, y_m) < SETTLED_AT_ORIGIN_M and abs(yaw_rad) < SETTLED_AT_ORIGIN_RAD:
        return 0.0, 0.0, 0.0
    return x_m, y_m, yaw_rad


def command_period_s(times_s: np.ndarray, custom_data: Mapping[str, str]) -> float:
    """The gait period the twin commands at: the source's rate_hz when recorded, else the median
    spacing of its commands, as the nearest period the sim's control period divides."""
    try:
        period = 1.0 / float(custom_data[PREFIX + 'gait.rate_hz'])
    except (KeyError, ValueError, ZeroDivisionError):
        period = float(np.median(np.diff(times_s)))
    return min(COMMAND_PERIODS_S, key=lambda candidate: abs(math.log(candidate / period)))


def replay_command_times(times_s: np.ndarray, period_s: float) -> tuple[np.ndarray, np.ndarray]:
    """The recorded stamps (increasing, from the first) as the CSV holds them, and the indices of
    the commands that keep a row of their own.

    Stamps read as float seconds of a wall-clock origin carry ~0.2 us of rounding: the ones on the
    command grid go back on it, so the replay samples the recorded rows themselves. The rest keep
    their recorded time, whatever the spacing (a starved publisher's late, missing or doubled
    commands), to the CSV's microsecond; commands that fall on one microsecond (or one tick) are
    one row, the first recorded: the CSV's times must increase, and the speed check has to see the
    times the gait node reads, not a zero interval between two rows.
    """
    ticks = np.round(times_s / period_s) * period_s
    snapped = np.where(np.abs(times_s - ticks) < GRID_TOLERANCE_S, ticks, times_s)
    microseconds = np.round(snapped / CSV_TIME_RESOLUTION_S)
    rows = np.flatnonzero(np.concatenate([[True], np.diff(microseconds) > 0.0]))
    return microseconds[rows] * CSV_TIME_RESOLUTION_S, rows


def plan_replay(run: RecordedRun, velocity_limits_rad_s: Mapping[str, float]) -> Replay:
    """The CSV rows and gait settings that replay `run`'s commands from the straight pose.

    The gait node's CSV replay scales its file by a start ramp whose speed it checks against the URDF
    limits; the ramp is the shortest that check passes, and the file holds the first command
    through it, so the recorded commands themselves play unscaled, shifted by the lead-in.
    """
    period = command_period_s(run.command_times_s, run.custom_data)
    command_times, kept = replay_command_times(run.command_times_s, period)
    positions = run.command_positions_rad[kept]
    limits = np.array([velocity_limits_rad_s.get(name, math.inf) for name in run.joint_names])
    if len(command_times) > 1:
        speeds = np.abs(np.diff(positions, axis=0)) / np.diff(command_times)[:, None]
        peak = speeds.max(axis=0)
        over = np.flatnonzero(peak > limits)
        if len(over):
            row = int(np.argmax(speeds[:, over[0]]))
            raise TwinInputError(
                f'{run.path}: joint_commands move {run.joint_names[over[0]]} at {peak[over[0]]:.2f} rad/s at '
                f't = {command_times[row + 1]:.3f} s, over its URDF velocity limit {limits[over[0]]:g} '
                'rad/s: the sim servo could not follow; twin a run whose commands stay within the limits')
    else:
        peak = np.zeros(len(limits))
    largest = np.abs(positions).max(axis=0)
    # the replay check (cobra_gaits.trajectory_csv): peak + 1.5 |q|max / ramp <= limit
    needed = np.where(largest > 0.0, 1.5 * largest / np.maximum(limits - peak, 1e-9), 0.0)
    ramp = max(MIN_RAMP_S, RAMP_MARGIN * float(needed.max()))
    ramp = math.ceil(ramp / period - 1e-9) * period
    lead_in = ramp + math.ceil(HOLD_AFTER_RAMP_S / period - 1e-9) * period
    times = np.concatenate([[0.0], lead_in + command_times])
    rows = np.vstack([positions[:1], positions])
    duration = math.ceil((lead_in + float(command_times[-1])) / period - 1e-6) * period
    # the latch changes at their recorded time after the first command (one seen before it: at it)
    latch_schedule = tuple(round(float(lead_in + max(t, 0.0)), 6) for t in run.latch_changes_s)
    return Replay(times, rows, round(lead_in, 9), round(ramp, 9), round(1.0 / period, 9), round(duration, 9),
                  latch_schedule)


def bag_sha256(bag_path: Path) -> str:
    """SHA-256 over the bag's files (relative name and content, in name order): which recording it was."""
    digest = hashlib.sha256()
    files = sorted(p for p in bag_path.rglob('*') if p.is_file()) if bag_path.is_dir() else [bag_path]
    for path in files:
        digest.update(str(path.relative_to(bag_path) if bag_path.is_dir() else path.name).encode() + b'\0')
        with open(path, 'rb') as handle:
            for block in iter(lambda: handle.read(1 << 20), b''):
                digest.update(block)
    return digest.hexdigest()


def source_terrain(custom_data: Mapping[str, str]) -> dict[str, str]:
    """The launch arguments that put a twin on a sim source's own terrain (none for a robot bag)."""
    if custom_data.get(PREFIX + 'class') != 'sim':
        return {}
    terrain = custom_data.get(PREFIX + 'terrain', '').split(' ')[0]
    if not terrain or terrain == DEM_TERRAIN:
        return {}
    arguments = {'terrain': terrain}
    if custom_data.get(PREFIX + 'terrain_file'):
        arguments['terrain_file'] = custom_data[PREFIX + 'terrain_file']
    if terrain == 'rigid' and custom_data.get(PREFIX + 'slope_deg'):
        arguments['slope_deg'] = custom_data[PREFIX + 'slope_deg']
    return arguments


def twin_arguments(words: Sequence[str], run: RecordedRun) -> dict[str, str]:
    """The twin's launch arguments: the user's (TWIN_ARGUMENTS only), a sim source's terrain where the
    user named none, and what the bag fixes (robot, gait:=csv, duration, use_sim)."""
    given: dict[str, str] = {}
    for word in words:
        name, separator, value = word.partition(':=')
        if not separator or not name:
            raise TwinInputError(f"malformed launch argument '{word}': write name:=value, e.g. terrain:=scm")
        if name in FROM_THE_BAG or name == 'bag_path':
            source = 'use --out DIR for where the twin goes' if name == 'bag_path' else \
                'the twin replays the recorded commands with the recorded robot for as long as they last'
            raise TwinInputError(f'{name}:={value} is not a twin argument ({source}): drop it; a twin takes '
                                 f"{', '.join(f'{n}:=' for n in TWIN_ARGUMENTS)}")
        if name not in TWIN_ARGUMENTS:
            raise TwinInputError(f"unknown launch argument '{name}': a twin takes "
                                 f"{', '.join(f'{n}:=' for n in TWIN_ARGUMENTS)}")
        given[name] = value
    if given.get('terrain', '').lower() == DEM_TERRAIN:
        raise TwinInputError('terrain:=dem simulates the DEM wheel alone, with no robot to replay the commands: '
                             'choose terrain:=rigid, scm or compliant')
    defaults = source_terrain(run.custom_data) if 'terrain' not in given else {}
    if 'terrain_file' in given or 'slope_deg' in given:
        defaults = {k: v for k, v in defaults.items() if k == 'terrain'}
    return {'real_time_factor': '0.0', **defaults, **given}


def twin_custom_data(run: RecordedRun, source_digest: str, arguments: Mapping[str, str],
                     replay: Replay) -> list[str]:
    """The twin bag's custom_data: a sim run of the source's robot and gait (so the report compares the
    two as one gait) on the twin's terrain, plus which bag it is the twin of and how it was replayed."""
    gait = {key.removeprefix(PREFIX + 'gait.'): value for key, value in run.custom_data.items()
            if key.startswith(PREFIX + 'gait.')}
    slope = float(arguments.get('slope_deg') or 0.0)
    terrain_file = str(Path(arguments['terrain_file']).resolve()) if arguments.get('terrain_file') else ''
    entries = run_custom_data(LAUNCH_FILE, run.robot, True, arguments['terrain'], slope, terrain_file, gait,
                              git_revision())
    entries += [f'{SOURCE_PREFIX}name={run.path.resolve().name}', f'{SOURCE_PREFIX}path={run.path.resolve()}',
                f'{SOURCE_PREFIX}sha256={source_digest}']
    entries += [f'{SOURCE_PREFIX}custom_data.{key}={value}' for key, value in sorted(run.custom_data.items())]
    entries += [f'{TWIN_PREFIX}lead_in_s={replay.lead_in_s!r}', f'{TWIN_PREFIX}rate_hz={replay.rate_hz!r}',
                f'{TWIN_PREFIX}csv_file={CSV_NAME}',
                f'{TWIN_PREFIX}sim_start_xy_yaw=' + ' '.join(repr(v) for v in start_xy_yaw(run))]
    if replay.latch_schedule_s:
        entries.append(f'{TWIN_PREFIX}latch_schedule_s=' + ' '.join(repr(v) for v in replay.latch_schedule_s))
    if run.start_pose is not None:
        entries.append(f'{TWIN_PREFIX}source_start_pose=' + ' '.join(repr(v) for v in run.start_pose))
    if run.start_joint_positions_rad:
        entries.append(f'{TWIN_PREFIX}source_start_joints=' +
                       ' '.join(f'{name}:{value!r}' for name, value in run.start_joint_positions_rad.items()))
    return entries


def parser() -> argparse.ArgumentParser:
    result = argparse.ArgumentParser(
        prog='twin', description='Sim twin of a recorded run: replay a bag\'s joint_commands in the sim on the '
        'chosen terrain (launch arguments name:=value: ' + ', '.join(TWIN_ARGUMENTS) + '; default: a sim '
        "bag's own terrain, else rigid; real_time_factor:=0, lockstep) and compare the two bags.")
    result.add_argument('bag', metavar='BAG', type=Path, help='recorded bag (robot or sim) with joint_commands')
    result.add_argument('arguments', nargs='*', metavar='name:=value', help='launch arguments of the twin')
    result.add_argument('--out', type=Path, help='directory to create (default '
                        'bags/twin_of_<bag>_on_<terrain>_<UTC time>)')
    return result


@dataclass
class PreparedTwin:
    run: RecordedRun
    replay: Replay
    arguments: dict[str, str]
    out_dir: Path
    staging: Path
    bag_name: str  # twin_<terrain>: the twin's label in the report
    specs: list[NodeSpec]
    values_by_node: dict[str, dict[str, Any]]
    environment: dict[str, str]
    claim: Any


def _check_out_dir(out_dir: Path, default: bool) -> Path:
    """The directory the twin is staged in (out_dir's parent; the default's bags/ is made with the twin)."""
    if out_dir.exists():
        raise TwinInputError(f'--out {out_dir} exists: choose a new directory')
    parent = out_dir.resolve().parent
    existing = parent.parent if default and not parent.exists() else parent
    if not existing.is_dir():
        raise TwinInputError(f'--out {out_dir}: its parent directory {parent} does not exist')
    if not os.access(existing, os.W_OK):
        raise TwinInputError(f'--out {out_dir}: cannot write in {existing}')
    return parent


def prepare(bag: Path, words: Sequence[str], out_dir: Path | None) -> PreparedTwin:
    """Everything checked, the nodes validated, nothing written yet (TwinInputError otherwise)."""
    from cobra_bringup.prestart import validate_node_set
    from cobra_bringup.runner import config_directory, simulation_environment
    from cobra_description.robot_model import default_urdf_path, load_robot_model
    if not bag.exists():
        raise TwinInputError(f'{bag}: no such bag: give a bag directory (metadata.yaml + .mcap/.db3) or a '
                             '.mcap/.db3 file')
    run = read_recorded_run(bag)
    arguments = twin_arguments(words, run)
    joints = load_robot_model(default_urdf_path(run.robot)).gait_joints()
    limits = {j.name: j.limits.velocity_rad_s if j.limits else math.inf for j in joints}
    replay = plan_replay(run, limits)
    digest = bag_sha256(bag)
    terrain = arguments.get('terrain', 'rigid')
    default = out_dir is None
    if out_dir is None:
        stamp = time.strftime('%Y%m%d_%H%M%S', time.gmtime())
        out_dir = Path('bags') / f'twin_of_{bag.resolve().name}_on_{terrain.lower()}_{stamp}'
    parent = _check_out_dir(out_dir, default)
    bag_name = f'twin_{terrain.lower()}'
    staging = parent / f'.{out_dir.name}.partial-{os.getpid()}'
    launch = {**arguments, 'use_sim': 'true', 'robot': run.robot, 'gait': 'csv',
              'csv_file': str(staging / CSV_NAME), 'duration': repr(replay.duration_s),
              'bag_path': str(staging / bag_name)}
    claim = None
    try:
        values = parse_arguments([f'{k}:={v}' for k, v in launch.items()], LAUNCH_FILE)
        # node_set reads the CSV it is given: check the arguments against a copy of the replay first
        descriptor, name = tempfile.mkstemp(prefix='cobra_twin_', suffix='.csv')
        os.close(descriptor)
        probe = Path(name)
        _write_csv(probe, run, replay)
        try:
            specs = node_set({**values, 'csv_file': str(probe)}, config_directory(), LAUNCH_FILE)
            specs = [_twin_spec(spec, run, replay, values, digest) for spec in specs]
            environment, claim = simulation_environment()
            domain_id = int(environment['ROS_DOMAIN_ID'])
            specs, values_by_node = validate_node_set(specs, values['namespace'], domain_id)
        finally:
            probe.unlink(missing_ok=True)
        specs = [replace(spec, parameters={**spec.parameters, 'csv_file': str(staging / CSV_NAME)})
                 if spec.executable == 'gait_node' else spec for spec in specs]
    except BringupError as error:
        if claim is not None:
            claim.release()
        raise TwinInputError(str(error)) from None
    return PreparedTwin(run, replay, values, out_dir, staging, bag_name, specs, values_by_node, environment, claim)


def _twin_spec(spec: NodeSpec, run: RecordedRun, replay: Replay, values: Mapping[str, str],
               digest: str) -> NodeSpec:
    """The gait replays at the source's rate with the lead-in's ramp; the sim starts where the source
    did; the logger writes the twin's provenance."""
    if spec.executable == 'gait_node':
        return replace(spec, parameters={**spec.parameters, 'ramp_duration_s': replay.ramp_duration_s,
                                         'rate_hz': replay.rate_hz})
    if spec.executable == 'sim_node':
        x_m, y_m, yaw_rad = start_xy_yaw(run)
        latch = {'latch_schedule_s': list(replay.latch_schedule_s)} if replay.latch_schedule_s else {}
        return replace(spec, parameters={**spec.parameters, 'start_x_m': x_m, 'start_y_m': y_m,
                                         'start_yaw_rad': yaw_rad, **latch})
    if spec.package == 'cobra_logger':
        return replace(spec, parameters={**spec.parameters,
                                         'custom_data': twin_custom_data(run, digest, values, replay)})
    return spec


def _write_csv(path: Path, run: RecordedRun, replay: Replay) -> None:
    from cobra_gaits.trajectory_csv import write_trajectory_csv
    write_trajectory_csv(path, run.joint_names, replay.times_s, replay.positions_rad, comments=(
        f'joint_commands of {run.path.resolve()} from its first stamp, after a {replay.lead_in_s:g} s lead-in '
        f'holding the first command (cobra_bringup.twin)',))


def _line(label: str, value: str) -> str:
    return f'  {label:<34}{value}'


def comparison_lines(metrics: Mapping[str, Any]) -> list[str]:
    """The twin against its source, from the report's metrics.json."""
    lines = []
    comparisons = metrics.get('comparisons') or []
    if not comparisons:
        gaits = ', '.join(f"{b.get('label')}: {b.get('gait_id')}" for b in metrics.get('bags', []))
        return [_line('comparison', f'not computed: the bags are not one gait ({gaits})')]
    result = comparisons[0]

    absent = result.get('absent') or {}

    def number(key: str, reasons: tuple[str, ...], scale: float = 1.0, digits: int = 3, unit: str = '') -> str:
        value = result.get(key)
        if value is None:
            return f"not computed ({'; '.join(absent[r] for r in reasons if r in absent) or 'no value'})"
        return f'{value * scale:.{digits}f}{unit}'

    lines.append(_line('stride ratio (twin / recorded)', number('stride_ratio', ('stride',))))
    lines.append(_line('shape-normalised trajectory error',
                       number('shape_error_strides', ('stride', 'shape'), unit=' strides')))
    lines.append(_line('ATE (Umeyama SE(3), RMSE)', number('ate_rmse_m', ('ate_rpe',), 100.0, 2, ' cm')))
    lines.append(_line('RPE over one cycle (RMSE)', number('rpe_rmse_m', ('ate_rpe',), 100.0, 2, ' cm')))
    ratios = metrics.get('performance_ratio') or []
    lines.append(_line('performance ratio Ξ', ', '.join(f"{r['class_x']}/{r['class_y']} mean "
                                                         f"{r['off_diagonal_mean']:.3f}" for r in ratios)
                       if ratios else f"not computed ({metrics.get('performance_ratio_absent')})"))
    return lines


def main(argv: list[str] | None = None) -> int:
    arguments = parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        prepared = prepare(arguments.bag, arguments.arguments, arguments.out)
    except TwinInputError as error:
        print(f'error: {error}', file=sys.stderr)
        return EXIT_BAD_INPUT
    return run_twin(prepared)


def run_twin(prepared: PreparedTwin) -> int:
    """Write the CSV, run the twin, compare; the finished directory appears only when all of it worked."""
    from cobra_bringup.runner import Runner, print_summary
    run, replay, staging = prepared.run, prepared.replay, prepared.staging
    specs = prepared.specs
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    finished = False
    try:
        _write_csv(staging / CSV_NAME, run, replay)
        terrain = prepared.arguments['terrain']
        print(f'[twin] {run.path} ({run.robot}, {"sim" if run.simulated else "robot"} bag, '
              f'{len(run.command_times_s)} commands over {run.command_times_s[-1]:.2f} s) on {terrain}: '
              f'lead-in {replay.lead_in_s:g} s, {replay.rate_hz:g} Hz, {replay.duration_s:g} s of sim time'
              + (f", latch set at {', '.join(f'{t:g}' for t in replay.latch_schedule_s)} s (engage, release, ...)"
                 if replay.latch_schedule_s else ''), flush=True)
        try:
            code = Runner(specs, prepared.arguments['namespace'], prepared.arguments['log_level'],
                          prepared.environment).run()
        finally:
            if prepared.claim is not None:
                prepared.claim.release()
        if code != 0:
            print('[twin] error: the twin run failed (see above); nothing written', file=sys.stderr)
            return code
        summary_code = print_summary(staging / prepared.bag_name, prepared.values_by_node, True,
                                     prepared.out_dir / prepared.bag_name)
        metrics = _report(run.path, staging / prepared.bag_name, staging)
        out_dir = prepared.out_dir
        staging.rename(out_dir)
        finished = True
    finally:
        if not finished:
            shutil.rmtree(staging, ignore_errors=True)
    print(f'twin of {run.path}')
    print(_line('twin bag', str(out_dir / prepared.bag_name)))
    print(_line('report', str(out_dir / REPORT_NAME / 'index.html')))
    for line in comparison_lines(metrics):
        print(line)
    problems = [line for lines in metrics.get('ground_problems', {}).values() for line in lines]
    for line in problems:
        print(line, file=sys.stderr)
    return EXIT_RUN_FAILED if problems or summary_code else 0


def _report(source: Path, twin_bag: Path, staging: Path) -> dict[str, Any]:
    """cobra_analysis's report of the source (reference) and the twin, into staging/report."""
    from cobra_analysis.report import build_report
    report_dir = staging / REPORT_NAME
    report_dir.mkdir()
    return build_report([str(source), str(twin_bag)], report_dir, [], 'source', None, None,
                        ['twin', str(source)])


if __name__ == '__main__':
    raise SystemExit(main())
