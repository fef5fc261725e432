"""compare-optimum: a tiny version (3 sim trials) gives both optima on both models, finite numbers,
the table and the plot; bad budgets exit 2 before anything is written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cobra_sweeps.cli import main
from cobra_sweeps.compare_optimum import (PLOT_FILE, TABLE_FILE, CompareBudget, compare_optimum, run_lifted_trial)
from cobra_sweeps.runner import TABLE_NAME, init_ray
from cobra_sweeps.trial import run_trial

TINY = CompareBudget(predictor_evaluations=30, sim_trials=3, sim_duration_s=1.0)


@pytest.fixture(scope='module')
def local_ray() -> Iterator[None]:
    import ray
    started = init_ray(2, None)
    yield
    if started:
        ray.shutdown()


def test_tiny_comparison_has_both_optima_on_both_models(local_ray: None, tmp_path: Path) -> None:
    table = compare_optimum(tmp_path, TINY, progress=False)
    assert list(table['gait']) == ['gait1 (reference)', 'predictor optimum', 'sim optimum']
    numbers = table[['predicted_stride_m', 'simulated_stride_m', 'predicted_cot', 'simulated_cot']].to_numpy(float)
    assert np.all(np.isfinite(numbers)) and np.all(numbers > 0.0)
    sweep = pd.read_parquet(tmp_path / 'sim_sweep' / TABLE_NAME)
    assert len(sweep) == 3 and sweep['error'].isna().all()
    # the sim optimum row is the best trial of the sweep, not a rerun
    assert table.loc[2, 'simulated_stride_m'] == pytest.approx(sweep['stride_m_per_cycle'].max())
    assert pd.read_csv(tmp_path / TABLE_FILE).shape == table.shape
    assert (tmp_path / PLOT_FILE).stat().st_size > 0


def test_lifted_gait1_strides_like_the_sidewinding_gait1() -> None:
    """The family's gait1 member plays the sidewinding gait1 a twelfth of a cycle ahead: same stride."""
    short = {'duration_s': 2.5, 'settle_s': 0.2}
    lifted = run_lifted_trial(short)['stride_m_per_cycle']
    sidewinding = run_trial(short)['stride_m_per_cycle']
    assert lifted == pytest.approx(sidewinding, rel=0.15)


@pytest.mark.parametrize('argv, words', [
    (['--sim-trials', '0'], '--sim-trials'),
    (['--dissipation-coefficient', '-1'], '--dissipation-coefficient'),
    (['config/sweeps/gait_grid.yaml'], 'takes no spec'),
])
def test_bad_compare_input_exits_2_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                      argv: list[str], words: str) -> None:
    out = tmp_path / 'out'
    spec = [a for a in argv if a.endswith('.yaml')]
    options = [a for a in argv if not a.endswith('.yaml')]
    assert main(['compare-optimum', *spec, '--out', str(out), *options]) == 2
    assert words in capsys.readouterr().err
    assert not out.exists()


def test_compare_into_a_file_or_another_sweep_exits_2_before_any_work(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture) -> None:
    a_file = tmp_path / 'a_file'
    a_file.write_text('x')
    assert main(['compare-optimum', '--out', str(a_file), '--quick']) == 2
    assert 'lies under the file' in capsys.readouterr().err
    # a sim sweep of another trial length: refused with the fix
    from cobra_sweeps.compare_optimum import SIM_SWEEP_DIR, sim_search_spec
    from cobra_sweeps.runner import write_spec_record
    sweep = tmp_path / 'out' / SIM_SWEEP_DIR
    sweep.mkdir(parents=True)
    write_spec_record(sim_search_spec(CompareBudget.quick()), sweep)
    assert main(['compare-optimum', '--out', str(tmp_path / 'out'), '--sim-s', '7.5']) == 2
    error = capsys.readouterr().err
    assert 'fixed.duration_s' in error and '--force' in error and error.count('\n') == 1, error
