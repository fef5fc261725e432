"""Sweep specifications: a YAML of fixed trial parameters and a search space, checked up front.

Keys are trial parameters (cobra_sweeps.trial: gait keys, run keys, 'terrain.<dotted key>'
overriding the terrain's YAML). Everything that can be judged without running a trial is judged
here, so a bad spec fails before anything is written. The format: the package README, "Sweep spec".
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from cobra_common.config_check import ConfigError, Setting, by_name

from cobra_sweeps.trial import (GAIT_KEYS, METRICS, TERRAIN_OVERRIDE_PREFIX, TRIAL_DEFAULTS, TrialError,
                                check_param_keys, is_terrain_override, overridden_terrain_yaml,
                                terrain_file_for)
from cobra_gaits.sidewinding import GaitError, SidewindingParams

SEARCHES = ('grid', 'random', 'bayesian')
DOMAIN_KINDS = ('uniform', 'loguniform', 'randint')
DEFAULT_TRIAL_FUNCTION = 'cobra_sweeps.trial:run_trial'
SPEC_KEYS = ('name', 'search', 'num_samples', 'seed', 'metric', 'mode', 'trial_function', 'fixed', 'space',
             'target', 'target_scale')


class SweepSpecError(ConfigError):
    """A sweep spec that cannot run: the message names the key and the fix."""


# The spec's own keys that a value alone can judge (parse_spec judges the combinations).
SETTINGS = by_name((
    Setting('search', 'grid', choices=SEARCHES),
    Setting('mode', 'max', choices=('max', 'min'), note='maximise or minimise the metric'),
    Setting('num_samples', 0, minimum=1, integer=True, note='random / bayesian searches'),
    Setting('seed', 0, integer=True),
))


@dataclass(frozen=True)
class Domain:
    """One searched parameter: a list of values (grid / choice) or a continuous range."""

    kind: str                  # 'values' | 'uniform' | 'loguniform' | 'randint'
    values: tuple[Any, ...]    # the list for 'values', (low, high) otherwise

    def sample(self, rng: np.random.Generator) -> Any:
        if self.kind == 'values':
            return self.values[int(rng.integers(len(self.values)))]
        low, high = self.values
        if self.kind == 'uniform':
            return float(rng.uniform(low, high))
        if self.kind == 'loguniform':
            return float(math.exp(rng.uniform(math.log(low), math.log(high))))
        return int(rng.integers(low, high))

    def tune_domain(self) -> Any:
        """The Ray Tune search-space object of this domain (for Tune's searchers)."""
        from ray import tune
        if self.kind == 'values':
            return tune.choice(list(self.values))
        return getattr(tune, self.kind)(*self.values)

    def extremes(self) -> tuple[Any, ...]:
        return self.values


@dataclass(frozen=True)
class SweepSpec:
    name: str
    search: str
    space: dict[str, Domain]
    fixed: dict[str, Any] = field(default_factory=dict)
    num_samples: int = 0
    seed: int = 0
    metric: str = ''
    mode: str = 'max'
    trial_function: str = DEFAULT_TRIAL_FUNCTION
    target: dict[str, float] = field(default_factory=dict)        # calibration only
    target_scale: dict[str, float] = field(default_factory=dict)  # calibration only

    def full_params(self, sample: Mapping[str, Any]) -> dict[str, Any]:
        """A trial's parameters: the fixed ones, then the sampled ones (TRIAL_DEFAULTS fill the
        rest inside the trial)."""
        return {**self.fixed, **sample}

    def grid(self) -> list[dict[str, Any]]:
        keys = sorted(self.space)
        return [dict(zip(keys, combination))
                for combination in itertools.product(*(self.space[k].values for k in keys))]

    def random_samples(self) -> list[dict[str, Any]]:
        """num_samples points drawn with the spec's seed: the same list every time (resume)."""
        rng = np.random.default_rng(self.seed)
        return [{k: self.space[k].sample(rng) for k in sorted(self.space)} for _ in range(self.num_samples)]


def trial_key(params: Mapping[str, Any]) -> str:
    """Stable id of a trial: a hash of its parameters (the table on disk is keyed by it)."""
    text = json.dumps({k: (v.item() if isinstance(v, np.generic) else v) for k, v in sorted(params.items())},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def resolve_function(path: str) -> Callable[[Mapping[str, Any]], Mapping[str, float]]:
    module_name, _, attribute = path.partition(':')
    try:
        return getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError, ValueError) as error:
        raise SweepSpecError(f"trial_function '{path}' cannot be imported ({error}): give 'module:function'") from error


def parse_domain(key: str, raw: Any) -> Domain:
    if isinstance(raw, list):
        if not raw:
            raise SweepSpecError(f"space.{key}: an empty list: give at least one value")
        return Domain('values', tuple(raw))
    if isinstance(raw, dict) and len(raw) == 1:
        kind, bounds = next(iter(raw.items()))
        if kind == 'grid' and isinstance(bounds, list) and bounds:
            return Domain('values', tuple(bounds))
        if kind in DOMAIN_KINDS and isinstance(bounds, list) and len(bounds) == 2 \
                and all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds) and bounds[0] < bounds[1]:
            if kind == 'loguniform' and bounds[0] <= 0:
                raise SweepSpecError(f'space.{key}: loguniform needs a positive lower bound, got {bounds[0]}')
            return Domain(kind, (bounds[0], bounds[1]))
    raise SweepSpecError(f'space.{key}: {raw!r} is not a domain: give a list of values, {{grid: [..]}}, '
                         f"or one of {{{', '.join(k + ': [low, high]' for k in DOMAIN_KINDS)}}} with low < high")


def check_trial_params(spec: SweepSpec) -> None:
    """Parameter names, terrain names, terrain overrides and gait ranges, before any trial runs."""
    try:
        check_param_keys(list(spec.fixed) + list(spec.space))
    except TrialError as error:
        raise SweepSpecError(str(error)) from error
    terrains = list(spec.space['terrain'].values) if 'terrain' in spec.space else [spec.fixed.get('terrain', TRIAL_DEFAULTS['terrain'])]
    if 'terrain' in spec.space and spec.space['terrain'].kind != 'values':
        raise SweepSpecError('space.terrain: terrains are names: give a list, e.g. [rigid, scm]')
    overrides = {k[len(TERRAIN_OVERRIDE_PREFIX):]: (spec.space[k].values[0] if k in spec.space else spec.fixed[k])
                 for k in list(spec.fixed) + list(spec.space) if is_terrain_override(k)}
    for terrain in terrains:
        try:
            terrain_file_for(str(terrain), str(spec.fixed.get('terrain_file', '')))
            if overrides:
                overridden_terrain_yaml(str(terrain), str(spec.fixed.get('terrain_file', '')), overrides)
        except TrialError as error:
            raise SweepSpecError(f'terrain {terrain}: {error}') from error
    gait_keys = [k for k in GAIT_KEYS if k in spec.space]
    for corner in itertools.product(*(spec.space[k].extremes() for k in gait_keys)):
        gait = {k: spec.fixed.get(k, TRIAL_DEFAULTS[k]) for k in GAIT_KEYS}
        gait.update(zip(gait_keys, corner))
        try:
            SidewindingParams(**gait).validated()
        except (GaitError, TypeError) as error:
            raise SweepSpecError(f'gait parameters {dict(zip(gait_keys, corner)) or gait}: {error}') from error


def parse_spec(data: Any, source: str = 'spec') -> SweepSpec:
    if not isinstance(data, dict):
        raise SweepSpecError(f'{source}: a sweep spec is a YAML mapping with search, space, fixed, ...')
    unknown = sorted(set(data) - set(SPEC_KEYS))
    if unknown:
        raise SweepSpecError(f'{source}: unknown key(s) {unknown}: allowed are {list(SPEC_KEYS)}')
    search = SETTINGS['search'].check(data.get('search', 'grid'), source, error=SweepSpecError)
    space_raw = data.get('space') or {}
    fixed = data.get('fixed') or {}
    if not isinstance(space_raw, dict) or not isinstance(fixed, dict):
        raise SweepSpecError(f'{source}: space and fixed must be mappings of parameter: value')
    space = {str(k): parse_domain(str(k), v) for k, v in space_raw.items()}
    both = sorted(set(space) & set(fixed))
    if both:
        raise SweepSpecError(f'{source}: {both} are both fixed and searched: keep each in one of the two')
    if search == 'grid':
        continuous = sorted(k for k, d in space.items() if d.kind != 'values')
        if continuous:
            raise SweepSpecError(f'{source}: a grid search needs lists of values, but {continuous} are ranges: '
                                 f'give lists, or use search: random / bayesian')
    num_samples = data.get('num_samples', 0)
    if search != 'grid':
        SETTINGS['num_samples'].check(num_samples, source, f'search {search} draws num_samples trials: fix it in '
                                      f'{source}', error=SweepSpecError)
    seed = SETTINGS['seed'].check(data.get('seed', 0), source, error=SweepSpecError)
    metric = str(data.get('metric', ''))
    mode = SETTINGS['mode'].check(str(data.get('mode', 'max')), source, error=SweepSpecError)
    if search == 'bayesian':
        if not space:
            raise SweepSpecError(f'{source}: a bayesian search needs a non-empty space')
        if metric not in METRICS and metric != 'calibration_error':
            raise SweepSpecError(f"{source}: a bayesian search needs metric: one of {list(METRICS)}, got '{metric}'")
    spec = SweepSpec(name=str(data.get('name', Path(source).stem)), search=search, space=space, fixed=dict(fixed),
                     num_samples=int(num_samples or 0), seed=int(seed), metric=metric, mode=mode,
                     trial_function=str(data.get('trial_function', DEFAULT_TRIAL_FUNCTION)),
                     target={str(k): float(v) for k, v in (data.get('target') or {}).items()},
                     target_scale={str(k): float(v) for k, v in (data.get('target_scale') or {}).items()})
    resolve_function(spec.trial_function)
    if spec.trial_function == DEFAULT_TRIAL_FUNCTION:
        check_trial_params(spec)
    return spec


def load_spec(path: str | Path) -> SweepSpec:
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as error:
        raise SweepSpecError(f'cannot read sweep spec {path}: {error.strerror}') from error
    except yaml.YAMLError as error:
        mark = getattr(error, 'problem_mark', None)
        where = f' at line {mark.line + 1}, column {mark.column + 1}' if mark is not None else ''
        problem = getattr(error, 'problem', None) or str(error).splitlines()[0]
        raise SweepSpecError(f'sweep spec {path} is not valid YAML: {problem}{where}: fix the file') from error
    return parse_spec(data, str(path))
