"""DEM on LAMMPS (issue 11): angle of repose of the scenario's grains (thesis §21 terrain: mu 0.67,
C_rr 0.05) by column collapse on the rough base.

Expected range: dry sand rests at 30-38 deg (loose, rounded to angular quartz sand; its friction
angle atan 0.67 = 34 deg sits inside). A column collapse leaves a heap close to, slightly below,
the static repose angle. Margins: measured values are in the comments next to each bound.
Skipped with the reason where the `lammps` module is missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cobra_dem.scenario import Scenario, scenario_from_dict

lammps_backend = pytest.importorskip('cobra_dem.lammps_backend')
try:
    lammps_backend.load_lammps()
except Exception as error:   # noqa: BLE001 (any import failure means: skip with the reason)
    pytest.skip(f'lammps Python module not usable ({error}): pip install "lammps[mpi]"', allow_module_level=True)

COLUMN_WIDTH_M = 0.08
COLUMN_HEIGHT_M = 0.08


def pile_scenario() -> Scenario:
    """The tumbling scenario's grain and terrain material (config/dem/tumble_slope.yaml's clump
    shape), 4 mm spheres, in a 0.36 m (x, heap toes stay apart) x 0.04 m (y, periodic) box."""
    return scenario_from_dict({'bed': {'length_m': 0.36, 'width_m': 0.04, 'sphere_radius_m': 0.004,
                                       'clump_spacing_of_radius': 2.0, 'depth_m': 0.02}})


def test_column_collapse_heap_rests_at_a_dry_sand_angle(tmp_path: Path) -> None:
    result = lammps_backend.angle_of_repose_deg(pile_scenario(), COLUMN_WIDTH_M, COLUMN_HEIGHT_M, tmp_path)
    print('heap', result)
    assert result['fastest_grain_m_s'] < 0.02            # settled, not stopped by the time cap
    # measured 30.5 deg (flanks 35.3 / 25.7); before the fix (spacing a, mu_roll = C_rr): 21.4 deg
    assert 27.0 < result['angle_deg'] < 40.0, result
    assert result['height_m'] > 0.3 * COLUMN_HEIGHT_M     # a heap, not a spread layer


def test_heap_angle_of_a_known_profile() -> None:
    """A 30 deg triangular profile of spheres is measured as 30 deg (the flank fit, not the crest)."""
    import numpy as np

    length_m, radius_m = 0.4, 0.002
    x = np.arange(0.0, length_m, 0.001)
    height = np.maximum(0.0, 0.05 - np.abs(x - 0.2) * np.tan(np.radians(30.0)))
    positions = np.stack([x, np.zeros_like(x), height - radius_m], axis=1)
    result = lammps_backend.heap_angle_deg(positions, np.full(len(x), radius_m), length_m, 0.005)
    assert abs(result['angle_deg'] - 30.0) < 1.0, result
