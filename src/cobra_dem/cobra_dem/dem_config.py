"""The DEM node's parameters as one typed table (cobra_common.config_check, as the driver's and the
sim's), their checks and the engine loading, without rclpy (cobra_dem.dem_node declares the table;
every parameter is read-only: a run's scenario is fixed at its start).

Everything the parameters alone can judge is refused here with one StartupError naming the fix:
a frame prefix or body frame that is no frame name, an unknown backend, a scenario file or
override that does not validate, a backend without a per-sample stream or without its engine.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cobra_common.config_check import Setting, by_name
from cobra_common.errors import StartupError
from cobra_common.frames import frame_prefix_problem
from cobra_common.heightmap_cloud import HEIGHTMAP_TOPIC
from cobra_dem.ros_mode import OverrideError, parse_overrides
from cobra_dem.scenario import Scenario, ScenarioError, default_scenario_file, load_scenario

BODY_FRAME_PATTERN = re.compile(r'[A-Za-z][A-Za-z0-9_]*')
BACKENDS = ('', 'lammps', 'deme')

PARAMETERS: tuple[Setting, ...] = (
    Setting('scenario_file', '', "DEM scenario YAML; '' = cobra_dem's config/dem/tumble_slope.yaml"),
    Setting('backend', '', "DEM engine: '' = the scenario's | lammps | deme (deme: NVIDIA GPU)", choices=BACKENDS),
    Setting('duration_s', 0.0, "sim time to run, then exit 0 [s]; 0 = the scenario's duration_s", 0.0, 1e4),
    Setting('scenario_overrides', '', 'comma-separated key=value scenario overrides, keys nested with dots and '
            'values read as YAML, as python -m cobra_experiments.dem_run --set: e.g. '
            "'slope_deg=20,body.motion=free'"),
    Setting('cache_dir', '', "settled-bed cache folder; '' = the user's cache, $XDG_CACHE_HOME/cobra/dem_cache "
            '(shared with cobra_experiments.dem_run)'),
    Setting('frame_prefix', '', "prefix of every frame id this node stamps (odom, the body frame), e.g. 'cobra/'; "
            "'' = none"),
    Setting('body_frame', '', "the DEM body's frame (child of odom; origin = its centre of mass) and the <body> of "
            "name of its entry on contact/forces; '' = the scenario's body kind (wheel or cobra_loop)"),
    Setting('heightmap_period_s', 0.5, f"{HEIGHTMAP_TOPIC} period [s of sim time], taken at the backend's grain "
            "snapshots (every output_interval_s of the scenario); 0 = not published", 0.0, 100.0),
    Setting('heightmap_cell_m', 0.0, f'{HEIGHTMAP_TOPIC} grid cell [m] (odom x-y); 0 = one grain clump across',
            0.0, 0.5),
    Setting('publish_tf', True, '/tf odom -> body_frame at every sample (false when a state publisher makes it '
            'from odom)'),
    Setting('wait_for_peers_s', 0.0, 'hold the first sample until odom, ground_truth/odom and contact/forces each '
            'have a subscriber, at most this long [s, wall]; 0 = publish at once', 0.0, 600.0),
)
PARAMETER_BY_NAME = by_name(PARAMETERS)
RUNTIME_PARAMETERS: frozenset[str] = frozenset()  # all read-only


def check_parameters(p: dict[str, Any]) -> dict[str, Any]:
    """The declared values with p['scenario'] (the file with the overrides, validated) and the body
    frame filled in; StartupError for a value or combination that cannot run."""
    if (problem := frame_prefix_problem(p['frame_prefix'])) is not None:
        raise StartupError(problem)
    if p['body_frame'] and BODY_FRAME_PATTERN.fullmatch(p['body_frame']) is None:
        raise StartupError(f"body_frame:={p['body_frame']!r} is not a frame/topic name: use a letter then "
                           "letters, digits or '_' (e.g. wheel)")
    if (problem := PARAMETER_BY_NAME['backend'].problem(
            p['backend'], fix="set backend:=lammps or backend:=deme ('' = the scenario's)")) is not None:
        raise StartupError(problem)
    p['scenario'] = load_run_scenario(p)
    p['body_frame'] = p['body_frame'] or p['scenario'].body.kind
    return p


def load_run_scenario(p: dict[str, Any]) -> Scenario:
    """The scenario file with the node's overrides applied, validated (StartupError naming the fix)."""
    path = Path(p['scenario_file']) if p['scenario_file'] else default_scenario_file()
    try:
        overrides = parse_overrides([pair for pair in p['scenario_overrides'].split(',') if pair.strip()])
        if p['backend']:
            overrides['backend'] = p['backend']
        if p['duration_s'] > 0.0:
            overrides['duration_s'] = p['duration_s']
        return load_scenario(path, **overrides)
    except (ScenarioError, OverrideError) as error:
        raise StartupError(f'dem_node: {error}') from error


def sample_source(scenario: Scenario, cache_dir: Path, log: Callable[[str], None]) -> Callable[[], Iterator[Any]]:
    """The backend's per-sample generator (started later, in the worker); StartupError when the
    engine cannot be loaded or has no per-sample stream."""
    try:
        backend = importlib.import_module(f'cobra_dem.{scenario.backend}_backend')
    except ImportError as error:
        raise StartupError(f'dem_node: backend {scenario.backend!r} is not available ({error}); '
                           'use backend:=lammps') from error
    samples = getattr(backend, 'scenario_samples', None)
    if samples is None:
        raise StartupError(f'dem_node: backend {scenario.backend!r} runs only as a batch '
                           '(python -m cobra_experiments.dem_run): it has no per-sample stream for the ROS mode; use backend:=lammps')
    if scenario.backend == 'lammps':
        try:
            backend.load_lammps()
        except ScenarioError as error:
            raise StartupError(f'dem_node: {error}') from error
    return lambda: samples(scenario, cache_dir, log=log)
