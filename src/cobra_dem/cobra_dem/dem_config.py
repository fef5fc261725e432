"""The DEM node's parameter checks and engine loading, without rclpy (cobra_dem.dem_node declares them).

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

from cobra_common.errors import StartupError
from cobra_common.frames import frame_prefix_problem
from cobra_dem.ros_mode import OverrideError, parse_overrides
from cobra_dem.scenario import Scenario, ScenarioError, default_scenario_file, load_scenario

BODY_FRAME_PATTERN = re.compile(r'[A-Za-z][A-Za-z0-9_]*')
BACKENDS = ('', 'lammps', 'deme')


def check_parameters(p: dict[str, Any]) -> dict[str, Any]:
    """The declared values with p['scenario'] (the file with the overrides, validated) and the body
    frame filled in; StartupError for a value or combination that cannot run."""
    if (problem := frame_prefix_problem(p['frame_prefix'])) is not None:
        raise StartupError(problem)
    if p['body_frame'] and BODY_FRAME_PATTERN.fullmatch(p['body_frame']) is None:
        raise StartupError(f"body_frame:={p['body_frame']!r} is not a frame/topic name: use a letter then "
                           "letters, digits or '_' (e.g. wheel)")
    if p['backend'] not in BACKENDS:
        raise StartupError(f"backend:={p['backend']} is not one of lammps, deme ('' = the scenario's)")
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
