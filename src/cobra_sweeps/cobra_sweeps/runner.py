"""Run a sweep on Ray: trials as Ray tasks, one table on disk as the record, resumable.

Each trial is keyed by a hash of its parameters; the table is rewritten atomically while trials
finish and when the sweep ends, so a rerun skips the finished keys. A trial that raises is retried
once. Design notes: the package README, "cobra_sweeps.runner".
"""

from __future__ import annotations

import os
import socket
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import yaml

from cobra_common.atomic_file import write_atomically, write_text_atomically
from cobra_sweeps.spec import SweepSpec, SweepSpecError, resolve_function, trial_key

TABLE_NAME = 'results.parquet'
SPEC_RECORD_NAME = 'sweep_spec.yaml'  # the spec of the rows in the folder's table
PLOT_PATTERNS = ('metrics_vs_*.png', 'pareto.png')  # cobra_sweeps.plots.plot_sweep's files
# what a row means: a spec that differs here may not add rows to the table
ROW_DEFINING_KEYS = ('trial_function', 'fixed', 'searched', 'target', 'target_scale')
TABLE_WRITE_INTERVAL_S = 1.0  # the table is rewritten at most this often while trials finish
WORKER_NICENESS_ENV = 'RAY_worker_niceness'  # read by the raylet a local ray.init starts
MAX_ATTEMPTS = 2  # first try + one retry
MAX_REPEATED_SUGGESTIONS = 100  # a searcher stuck on finished points: run them again rather than loop
ID_COLUMNS = ('trial_key', 'error', 'attempts', 'wall_s', 'cpu_s', 'host')
Derived = Callable[[dict[str, Any]], dict[str, float]]


def execute_trial(function_path: str, params: dict[str, Any]) -> dict[str, Any]:
    """Runs in a Ray worker: the trial function's metrics plus its wall time and host."""
    started, started_cpu = time.perf_counter(), time.process_time()
    metrics = dict(resolve_function(function_path)(params))
    return {**metrics, 'wall_s': time.perf_counter() - started, 'cpu_s': time.process_time() - started_cpu,
            'host': socket.gethostname()}


def table_path(out_dir: Path) -> Path:
    return Path(out_dir) / TABLE_NAME


def read_table(out_dir: Path) -> pd.DataFrame:
    path = table_path(out_dir)
    return pd.read_parquet(path) if path.exists() else pd.DataFrame(columns=list(ID_COLUMNS))


def write_table(rows: list[dict[str, Any]], out_dir: Path) -> pd.DataFrame:
    """All rows to the table at once, atomically (a reader never sees half a file)."""
    table = pd.DataFrame(rows)
    path = table_path(out_dir)
    write_atomically(path, lambda temporary: table.to_parquet(temporary, index=False))
    return table


class SweepOutError(SweepSpecError):
    """An --out folder the sweep cannot use: the message names the problem and the fix."""


def spec_record(spec: SweepSpec) -> dict[str, Any]:
    """The spec as plain YAML data (what sweep_spec.yaml holds)."""
    record = {
        'name': spec.name, 'search': spec.search, 'num_samples': spec.num_samples, 'seed': spec.seed,
        'metric': spec.metric, 'mode': spec.mode, 'trial_function': spec.trial_function, 'fixed': dict(spec.fixed),
        'space': {k: {'kind': d.kind, 'values': list(d.values)} for k, d in spec.space.items()},
        'target': dict(spec.target), 'target_scale': dict(spec.target_scale),
    }
    return yaml.safe_load(yaml.safe_dump(record, sort_keys=True))  # numbers and lists as the file holds them


def _row_definition(record: Mapping[str, Any]) -> dict[str, Any]:
    return {'trial_function': record.get('trial_function'), 'fixed': record.get('fixed') or {},
            'searched': sorted(record.get('space') or {}), 'target': record.get('target') or {},
            'target_scale': record.get('target_scale') or {}}


def _differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """'key: A there, B here' for each row-defining entry that differs (dict entries one by one)."""
    lines = []
    for key in ROW_DEFINING_KEYS:
        if isinstance(old[key], dict) and isinstance(new[key], dict):
            for entry in sorted(set(old[key]) | set(new[key])):
                there, here = old[key].get(entry, '(unset)'), new[key].get(entry, '(unset)')
                if there != here:
                    lines.append(f'{key}.{entry}: {there} there, {here} here')
        elif old[key] != new[key]:
            lines.append(f'{key}: {old[key]} there, {new[key]} here')
    return lines


def check_out_dir(spec: SweepSpec, out_dir: str | Path, force: bool = False, option: str = '--out') -> None:
    """Refuses an out folder that is a file, lies under a file, cannot be created, or holds the
    results of another sweep (unless force); runs before Ray starts and writes nothing."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise SweepOutError(f'{option} {out_dir} is a file: give a folder (a new one, or the --out of an '
                            'earlier run of this spec to resume it)')
    existing = next(p for p in (out_dir, *out_dir.absolute().parents) if p.exists())
    if not existing.is_dir():
        raise SweepOutError(f'{option} {out_dir} lies under the file {existing}: give a folder path')
    if not os.access(existing, os.W_OK | os.X_OK):
        raise SweepOutError(f'{option} {out_dir}: cannot write in {existing} (permission denied): give a folder '
                            'you can write to')
    if force or not out_dir.is_dir():
        return
    record_path, table = out_dir / SPEC_RECORD_NAME, table_path(out_dir)
    fix = f'give a new {option}, or add --force to delete its results and start over'
    if not record_path.exists():
        if table.exists():
            raise SweepOutError(f'{option} {out_dir} holds a {TABLE_NAME} but no {SPEC_RECORD_NAME}, so it cannot '
                                f'tell whether its rows come from this spec: {fix}')
        return
    try:
        recorded = yaml.safe_load(record_path.read_text())
        old = _row_definition(recorded)
    except (OSError, yaml.YAMLError, AttributeError) as error:
        raise SweepOutError(f'{record_path} is not readable ({error}): {fix}') from error
    differences = _differences(old, _row_definition(spec_record(spec)))
    if differences:
        raise SweepOutError(f'{option} {out_dir} holds the results of another sweep '
                            f'({recorded.get("name", "?")}; {"; ".join(differences)}): {fix}')


def start_over(out_dir: str | Path) -> list[Path]:
    """Deletes what a sweep wrote into out_dir (table, spec record, plots); other files stay."""
    out_dir = Path(out_dir)
    removed = [p for p in (out_dir / TABLE_NAME, out_dir / SPEC_RECORD_NAME) if p.exists()]
    # and the temporaries of a write that was killed before its rename (cobra_common.atomic_file)
    removed += [p for name in (TABLE_NAME, SPEC_RECORD_NAME) for p in sorted(out_dir.glob(f'.{name}.*'))]
    removed += [p for pattern in PLOT_PATTERNS for p in sorted(out_dir.glob(pattern))]
    for path in removed:
        path.unlink()
    return removed


def write_spec_record(spec: SweepSpec, out_dir: Path) -> None:
    path = out_dir / SPEC_RECORD_NAME
    write_text_atomically(path, yaml.safe_dump(spec_record(spec), sort_keys=False))


def init_ray(num_cpus: int | None, address: str | None) -> bool:
    """Connects to Ray; True when this call started it (so the sweep shuts it down after).

    Locally the workers get this process's sys.path as PYTHONPATH (the packages run from src/
    in tests) and the driver's CPU priority; on a cluster every node must have the workspace
    installed, and `RAY_worker_niceness=0 ray start ...` gives its workers that priority (README)."""
    import ray
    if ray.is_initialized():
        return False
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        os.environ['PYTHONPATH'] = os.pathsep.join(p for p in sys.path if p)
        # Ray starts its workers at niceness 15 (raylet default): on a shared machine every other
        # process then takes CPU from the trials first (+17..74 % per trial at load 2.8 on 2 cores).
        # Trials are the work here, so they run at the driver's priority; an explicit setting wins.
        os.environ.setdefault(WORKER_NICENESS_ENV, '0')
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    return True


def error_text(error: BaseException) -> str:
    """The trial's own exception (Ray wraps it in RayTaskError): 'Type: message'."""
    cause = getattr(error, 'cause', None) or error
    return f'{type(cause).__name__}: {cause}'


class ProgressBar:
    """tqdm bar on stderr (count, rate, ETA); silent when disabled."""

    def __init__(self, total: int, enabled: bool, name: str) -> None:
        self.bar = None
        if enabled:
            from tqdm import tqdm
            self.bar = tqdm(total=total, desc=name, unit='trial', file=sys.stderr, dynamic_ncols=True)

    def update(self, failed: int) -> None:
        if self.bar is not None:
            self.bar.set_postfix(failed=failed)
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class SweepRunner:
    """Submits trials, retries each failure once, records every outcome."""

    def __init__(self, spec: SweepSpec, out_dir: Path, derived: Derived | None, retry_failed: bool,
                 write_interval_s: float = TABLE_WRITE_INTERVAL_S) -> None:
        import ray
        self.write_interval_s = write_interval_s
        self.last_write_s = -float('inf')
        self.unwritten = 0
        self.ray = ray
        self.spec = spec
        self.out_dir = Path(out_dir)
        self.derived = derived
        existing = read_table(self.out_dir)
        if retry_failed and len(existing):
            existing = existing[existing['error'].isna()]
        self.rows: list[dict[str, Any]] = existing.to_dict('records')
        self.done = {row['trial_key'] for row in self.rows}
        self.remote = ray.remote(num_cpus=1, max_retries=0)(execute_trial)
        self.in_flight: dict[Any, tuple[str, dict[str, Any], dict[str, Any], int]] = {}
        self.failed = sum(1 for row in self.rows if isinstance(row.get('error'), str))

    def submit(self, sample: dict[str, Any], attempt: int = 1, tag: str = '') -> None:
        params = self.spec.full_params(sample)
        ref = self.remote.remote(self.spec.trial_function, params)
        self.in_flight[ref] = (tag, sample, params, attempt)

    def wait_one(self) -> tuple[str, dict[str, Any]] | None:
        """Waits for one trial; returns (tag, row) when it is final, None when it was resubmitted."""
        [ref], _ = self.ray.wait(list(self.in_flight), num_returns=1)
        tag, sample, params, attempt = self.in_flight.pop(ref)
        try:
            result = self.ray.get(ref)
        except Exception as error:  # the trial raised (or its worker died)
            if attempt < MAX_ATTEMPTS:
                self.submit(sample, attempt + 1, tag)
                return None
            result = {'error': error_text(error)}
            self.failed += 1
        row = {'trial_key': trial_key(params), **params, **result, 'attempts': attempt}
        row.setdefault('error', None)
        if self.derived is not None and row['error'] is None:
            row.update(self.derived(row))
        self.rows.append(row)
        self.done.add(row['trial_key'])
        self.unwritten += 1
        if time.monotonic() - self.last_write_s >= self.write_interval_s:
            self.flush()
        return tag, row

    def flush(self) -> None:
        """Rewrites the table when it lacks finished rows."""
        if self.unwritten:
            write_table(self.rows, self.out_dir)
            self.unwritten = 0
            self.last_write_s = time.monotonic()

    def run_list(self, samples: list[dict[str, Any]], progress: bool) -> None:
        todo = [s for s in samples if trial_key(self.spec.full_params(s)) not in self.done]
        todo = list({trial_key(self.spec.full_params(s)): s for s in todo}.values())  # a grid may repeat a point
        bar = ProgressBar(len(todo), progress, self.spec.name)
        for sample in todo:
            self.submit(sample)
        while self.in_flight:
            if self.wait_one() is not None:
                bar.update(self.failed)
        bar.close()

    def known_metric(self, sample: dict[str, Any]) -> float | None:
        """The searched metric of a finished trial with these parameters (None: not run yet)."""
        key = trial_key(self.spec.full_params(sample))
        for row in self.rows:
            if row['trial_key'] == key and not isinstance(row.get('error'), str):
                value = row.get(self.spec.metric)
                return float(value) if value is not None and np.isfinite(value) else None
        return None

    def run_bayesian(self, progress: bool, concurrency: int) -> None:
        """Ray Tune's OptunaSearch (TPE, seeded) asked for each next trial, told each result."""
        import optuna
        from ray.tune.search.optuna import OptunaSearch
        spec = self.spec
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        # a resumed search reseeds (seed + rows known): TPE's first random draws would repeat them
        space = OptunaSearch.convert_search_space({k: d.tune_domain() for k, d in spec.space.items()})
        searcher = OptunaSearch(space=space, metric=spec.metric, mode=spec.mode,
                                sampler=optuna.samplers.TPESampler(seed=spec.seed + len(self.rows)))
        for row in self.rows:  # a resumed sweep: what is already known
            value = row.get(spec.metric)
            if not isinstance(row.get('error'), str) and value is not None and np.isfinite(value):
                searcher.add_evaluated_point({k: row[k] for k in spec.space}, float(value))
        remaining = max(0, spec.num_samples - len(self.rows))
        bar = ProgressBar(remaining, progress, spec.name)
        launched = repeats = 0
        while launched < remaining or self.in_flight:
            while launched < remaining and len(self.in_flight) < concurrency:
                tag = f'trial_{len(self.rows) + launched}_{repeats}'
                sample = dict(searcher.suggest(tag))
                known = self.known_metric(sample)
                if known is not None and repeats < MAX_REPEATED_SUGGESTIONS:  # tell, do not rerun
                    searcher.on_trial_complete(tag, {spec.metric: known})
                    repeats += 1
                    continue
                self.submit(sample, tag=tag)
                launched += 1
            final = self.wait_one()
            if final is None:
                continue
            tag, row = final
            value = row.get(spec.metric)
            if row['error'] is None and value is not None and np.isfinite(value):
                searcher.on_trial_complete(tag, {spec.metric: float(value)})
            else:
                searcher.on_trial_complete(tag, error=True)
            bar.update(self.failed)
        bar.close()


def run_sweep(spec: SweepSpec, out_dir: str | Path, num_cpus: int | None = None, address: str | None = None,
              retry_failed: bool = False, progress: bool = True, derived: Derived | None = None,
              write_interval_s: float = TABLE_WRITE_INTERVAL_S, force: bool = False) -> pd.DataFrame:
    """Runs the spec's trials not yet in out_dir's table; returns the whole table. force: delete
    the results of another spec in out_dir first (SweepOutError without it)."""
    out_dir = Path(out_dir)
    check_out_dir(spec, out_dir, force)
    started_ray = init_ray(num_cpus, address)  # before the folder: a wrong address leaves nothing behind
    import ray
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        if force:
            start_over(out_dir)
        write_spec_record(spec, out_dir)
        runner = SweepRunner(spec, out_dir, derived, retry_failed, write_interval_s)
        try:
            if spec.search == 'grid':
                runner.run_list(spec.grid(), progress)
            elif spec.search == 'random':
                runner.run_list(spec.random_samples(), progress)
            else:
                runner.run_bayesian(progress, max(1, int(ray.cluster_resources().get('CPU', 1))))
        finally:
            runner.flush()  # also when interrupted: every finished row is kept
        return pd.DataFrame(runner.rows) if runner.rows else read_table(out_dir)
    finally:
        if started_ray:
            ray.shutdown()



def metric_summary(table: pd.DataFrame, metrics: Mapping[str, str]) -> str:
    """One line per metric: best value and its trial (for the CLI's closing lines)."""
    ok = table[table['error'].isna()] if 'error' in table else table
    lines = []
    for metric, mode in metrics.items():
        if metric in ok and len(ok):
            index = ok[metric].idxmax() if mode == 'max' else ok[metric].idxmin()
            lines.append(f'best {metric} ({mode}): {ok.loc[index, metric]:.4g} (trial {ok.loc[index, "trial_key"]})')
    return '\n'.join(lines)
