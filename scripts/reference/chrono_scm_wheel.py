#!/usr/bin/env python3
"""Run chrono_scm_wheel (Chrono's own SCMTerrain, see README.md here) on our three soils with the
single-wheel setup of `validate_terrain --quick` and print the table of
cobra_experiments.chrono_scm_reference.

    .venv/bin/python scripts/reference/chrono_scm_wheel.py PATH/TO/chrono_scm_wheel
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
for package in (REPO_ROOT / 'src').iterdir():
    sys.path.insert(0, str(package))

from cobra_experiments import terramechanics as tm  # noqa: E402
from cobra_experiments.validate_terrain import Plan, wheel_load_n  # noqa: E402
from cobra_soil import load_scm_params  # noqa: E402

SOILS = ('loose_sand', 'lete_sand', 'clayey_soil')


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_file():
        print(f'usage: {Path(__file__).name} PATH/TO/chrono_scm_wheel (built by build_chrono_scm_wheel.sh)',
              file=sys.stderr)
        return 2
    plan = Plan.make(quick=True)
    setup = plan.wheel
    runs = {}
    for name in SOILS:  # one process per soil, side by side
        soil = load_scm_params(REPO_ROOT / 'config' / 'soil' / f'{name}.yaml').soil
        load = wheel_load_n(name, tm.BekkerSoil.from_scm(soil), setup)
        values = (soil.bekker_kphi_pa_m_n, soil.bekker_kc_pa_m_n1, soil.bekker_n, soil.mohr_cohesion_pa,
                  soil.mohr_friction_deg, soil.janosi_shear_m, soil.elastic_k_pa_m, soil.damping_r_pa_s_m,
                  setup.radius_m, setup.width_m, load, setup.speed_m_s, setup.spacing_m, *plan.wheel_slips)
        runs[name] = (load, subprocess.Popen([argv[0], *(repr(float(v)) for v in values)], stdout=subprocess.PIPE,
                                             text=True))
    for name, (load, process) in runs.items():
        output, _ = process.communicate()
        if process.returncode != 0:
            print(f'{argv[0]} failed on {name} (exit {process.returncode})', file=sys.stderr)
            return 1
        print(f'    # {name}: W {load:g} N; slip: (sinkage m, drawbar pull N, driving torque N m)')
        for line in output.splitlines():
            slip, sinkage, pull, torque, _ = (float(v) for v in line.split())
            print(f'    {slip:g}: ({sinkage:.6g}, {pull:.6g}, {torque:.6g}),')
    return 0


if __name__ == '__main__':
    raise SystemExit(main(sys.argv[1:]))
