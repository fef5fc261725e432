"""python -m cobra_experiments.validate_terrain --quick: every check of issue 17 is in the table, the laws
SCM and the compliant ground already follow pass, the exit code says whether any check failed, the
figures and the JSON are written; bad input exits 2 and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cobra_experiments import validate_terrain

FIGURES = ('plates.png', 'unload_reload.png', 'janosi_drag.png', 'static_hold.png', 'wheel_loose_sand.png',
           'wheel_lete_sand.png', 'wheel_clayey_soil.png', 'compliant.png')


@pytest.fixture(scope='module')
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, dict, Path]:
    out = tmp_path_factory.mktemp('validate_terrain')
    capture = tmp_path_factory.mktemp('stdout') / 'stdout.txt'
    import contextlib
    with capture.open('w') as handle, contextlib.redirect_stdout(handle):
        code = validate_terrain.main(['--quick', '--out', str(out)])
    report = json.loads((out / 'validate_terrain.json').read_text())
    return code, capture.read_text(), report, out


def _rows(report: dict, group_prefix: str) -> list[dict]:
    return [row for row in report['rows'] if row['group'].startswith(group_prefix)]


def test_the_table_has_a_row_for_every_check_of_the_issue(quick_run) -> None:
    code, table, report, out = quick_run
    assert len(_rows(report, 'Bekker plate')) == 4 * 2          # 3 soil files + n = 1.1 dry sand, 2 widths
    assert {row['check'].split(' (n ')[1].split(')')[0] for row in _rows(report, 'Bekker plate')} >= {'0.6', '1.1'}
    assert len(_rows(report, 'unload/reload')) == 6
    assert [row['check'] for row in _rows(report, 'Janosi drag')] == ['1 mm/s', '20 mm/s', '500 mm/s']
    holds = [row['check'] for row in _rows(report, 'static hold')]
    assert 'no side load: creep over the last 1 s' in holds
    assert sum('rest displacement' in c for c in holds) == 10
    assert sum(c.endswith('creep over the last 1 s') for c in holds) == 11
    assert 'side load 20 % across, axis midway, bulldozing off: rest displacement' in holds
    assert any('tilted 5° across' in c for c in holds) and any('tilted 5° along' in c for c in holds)
    assert sum(c.startswith('grid refinement') for c in holds) == 2
    # the same hold tests and the drag on Chrono's own SCMTerrain (chrono_scm_reference)
    assert sum(c.endswith("Chrono's own SCMTerrain, same test") for c in holds) == 5
    drag = [row for row in _rows(report, 'static hold') if row['check'].startswith('dragged across the axis')]
    assert [row['verdict'] for row in drag] == ['PASS'] and "Chrono's own SCMTerrain" in drag[0]['reference']
    for soil in ('loose_sand', 'lete_sand', 'clayey_soil'):
        checks = [row['check'] for row in _rows(report, f'single wheel on {soil}')]
        assert checks[:3] == ['at rest, pressed in by W', 'rolling at slip 0: Bekker static sinkage',
                              'rolling at slip 0, rigid unloading (K 1e10)']
        assert any(c.startswith('rolling sinkage, slip -0.2..0.7') for c in checks)
        assert 'drawbar pull, slip 0.1..0.6' in checks and 'zero-drawbar-pull slip' in checks
        assert any(c.startswith('driving torque') for c in checks)
        suffix = validate_terrain.SURFACE_NORMAL_SUFFIX
        assert {f'drawbar pull, slip 0.1..0.6{suffix}', f'zero-drawbar-pull slip{suffix}'} <= set(checks)
        assert any(c.startswith('load Wong-Reece carries at SCM') for c in checks)
        independent = [row['verdict'] for row in _rows(report, f'single wheel on {soil}')
                       if row['check'].startswith('the Wong-Reece closed form itself')]
        assert independent == ['PASS']   # the reference against an implementation we did not write
        chrono = {row['check'].split(',')[0]: row['verdict'] for row in _rows(report, f'single wheel on {soil}')
                  if 'Chrono' in row['check']}
        # Chrono's own SCM is SCM's closed form; ours matches it, or differs only by the patch rule
        assert chrono == {"Chrono's own SCMTerrain": 'PASS',
                          "our SCM against Chrono's SCMTerrain": 'PASS' if soil == 'loose_sand' else 'INFO'}
        assert all('b = ' in row['reference'] for row in _rows(report, f'single wheel on {soil}'))   # says which b
    assert len(_rows(report, 'compliant ground')) == 2 + 3       # block stick / slide; rolled rim at 3 speeds
    assert sum(row['group'].startswith('compliant ground over a sampled rim') for row in report['rows']) == 3
    assert len(_rows(report, 'rigid ground (thesis')) == 3                  # slope: creep, reaction, slide
    assert [row['check'].split(':')[0] for row in _rows(report, 'rigid ground, flat')] == [
        'rolling resistance a = 0.5 mm']
    for row in report['rows']:
        assert row['verdict'] in ('PASS', 'FAIL', 'INFO')
        assert row['check'] in table and row['verdict'] in table


def test_exit_code_and_summary_follow_the_verdicts(quick_run) -> None:
    code, table, report, out = quick_run
    failed = [row for row in report['rows'] if row['verdict'] == 'FAIL']
    assert code == (1 if failed else 0)
    passed = sum(row['verdict'] == 'PASS' for row in report['rows'])
    assert f'{passed} passed, {len(failed)} failed' in table
    summary = table.split('\nfailed:\n')[1].split('\n\n')[0].splitlines() if failed else []
    assert summary == [f"  {row['group'].split(':')[0]}: {row['check']}: {row['error']}" for row in failed]
    for name in FIGURES:
        assert (out / name).stat().st_size > 10_000, name


def test_the_laws_scm_and_the_compliant_ground_follow_pass(quick_run) -> None:
    """Includes what the shear fix of issue 17 brought: Janosi at 1 mm/s, links that stop after j* (axis
    over a node row, and midway without the bulldozing berm) and do not creep (before: 12 N of 57 N at
    1 mm/s, 1-4 mm/s of creep); the rigid ground's rows, the rolling resistance among them; the wheel on
    the closed form of SCM's own model (sinkage, drawbar pull, torque at every slip, both pressure
    directions)."""
    _, _, report, _ = quick_run
    holds = _rows(report, 'static hold')
    must_pass = (_rows(report, 'Bekker plate') + _rows(report, 'unload/reload') + _rows(report, 'compliant ground')
                 + _rows(report, 'Janosi drag') + _rows(report, 'rigid ground')
                 + [row for row in report['rows'] if row['check'] == 'rolling at slip 0, rigid unloading (K 1e10)']
                 + [row for row in report['rows'] if 'against SCM\'s own model' in row['check']]
                 + [row for row in _rows(report, 'single wheel on loose_sand') if row['check'] == 'at rest, pressed in by W']
                 + [row for row in holds if row['check'].endswith('creep over the last 1 s')]
                 + [row for row in holds if row['check'].endswith('rest displacement')
                    and ('midway' not in row['check'] or 'bulldozing off' in row['check'])])
    assert len(must_pass) == 8 + 6 + 2 + 3 + 4 + 3 + 3 + 3 * 2 * 3 + 1 + 11 + 9
    failing = [(row['group'], row['check'], row['error']) for row in must_pass if row['verdict'] != 'PASS']
    assert not failing


def test_the_wheel_rows_compare_with_the_closed_forms_of_the_same_soil(quick_run) -> None:
    _, _, report, _ = quick_run
    wheel = report['data']['wheel_loose_sand']
    assert wheel['load_n'] == pytest.approx(6 * 9.81)          # the thesis's 6 kg wheel
    assert (wheel['radius_m'], wheel['width_m']) == (0.2, 0.12)
    assert wheel['slips'][0] == -0.2 and wheel['slips'][-1] == 0.7
    for closed in wheel['wong_reece']:
        assert closed['load_n'] == pytest.approx(wheel['load_n'], rel=1e-6)   # sinkage solved from W per slip
    # the ladder from SCM's model to Wong-Reece starts at what SCM does and ends at the Wong-Reece row
    ladder = wheel['assumption_ladder']
    at = wheel['slips'].index(validate_terrain.LADDER_SLIP)
    assert ladder[0]['sinkage_m'] == pytest.approx(wheel['scm_sinkage_m'][at], rel=0.02)
    assert ladder[0]['drawbar_pull_n'] == pytest.approx(wheel['scm_drawbar_pull_n'][at], rel=0.02)
    assert ladder[-1]['drawbar_pull_n'] == pytest.approx(wheel['wong_reece'][at]['drawbar_pull_n'], rel=1e-9)
    assert len(ladder) == 7 and all(step['load_n'] == pytest.approx(wheel['load_n'], rel=1e-6) for step in ladder)
    for variant in ('vertical', 'surface_normal'):   # SCM's own model: at every slip run, carrying W
        columns = wheel['ground_column'][variant]
        assert [closed['slip'] for closed in columns] == wheel['slips']
        assert all(closed['load_n'] == pytest.approx(wheel['load_n'], rel=1e-6) for closed in columns)


@pytest.mark.parametrize(('argv', 'message'), [
    (['--soils', 'no_such_soil'], 'no_such_soil.yaml not found'),
    (['--soils', 'compliant_ground'], 'compliant_ground.yaml'),
    (['--soils', ' , '], '--soils is empty'),
])
def test_bad_input_exits_2_with_one_message_and_writes_nothing(tmp_path: Path, capsys, argv: list[str],
                                                               message: str) -> None:
    out = tmp_path / 'out'
    assert validate_terrain.main(['--quick', '--out', str(out), *argv]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_an_out_path_that_is_a_file_exits_2(tmp_path: Path, capsys) -> None:
    target = tmp_path / 'file'
    target.write_text('x')
    assert validate_terrain.main(['--quick', '--out', str(target)]) == 2
    assert 'is a file' in capsys.readouterr().err


def test_pressure_along_the_surface_normal_turns_compaction_into_drawbar_resistance(quick_run) -> None:
    """The option (cobra_soil numerics.pressure_direction = surface_normal) keeps the vertical forces, so
    the wheel sinks exactly as with Chrono's vertical pressure; the rut's compaction resistance then
    pulls the wheel back (lower drawbar pull at every slip) instead of loading the driving torque."""
    _, _, report, _ = quick_run
    for soil in ('loose_sand', 'lete_sand', 'clayey_soil'):
        wheel = report['data'][f'wheel_{soil}']
        assert wheel['surface_normal_sinkage_difference_m'] < 1e-6
        for vertical, normal in zip(wheel['scm_drawbar_pull_n'], wheel['scm_surface_normal_drawbar_pull_n']):
            assert normal < vertical - 0.05 * wheel['load_n']   # measured 0.09-0.16 W lower
        for vertical, normal in zip(wheel['scm_torque_nm'], wheel['scm_surface_normal_torque_nm']):
            assert normal < vertical


def test_the_full_run_also_compares_the_link_with_chrono() -> None:
    """Chrono's link tables (the end of the 2 s ramp, the creep rate, the steady drag) do not depend on how
    long the load is then held: the full run (6 s holds) has the same Chrono rows as --quick (4 s)."""
    plan = validate_terrain.Plan.make(quick=False)
    assert plan.hold_s != validate_terrain.chrono_scm_reference.LINK_HOLD_S
    results = validate_terrain.Results()
    validate_terrain.hold_checks(validate_terrain.load_soils('loose_sand'), plan, results)
    chrono = [row for row in results.rows if "Chrono's own SCMTerrain" in f'{row.check} {row.reference}']
    assert len(chrono) == 5 + 1
    drag = [row for row in chrono if row.check.startswith('dragged across the axis')]
    assert [row.verdict for row in drag] == ['PASS']
