#!/usr/bin/env python3
"""Run chrono_scm_rigs (Chrono's own SCMTerrain, see README.md here) with the set-ups of
`validate_terrain --quick` and print the tables of cobra_experiments.chrono_scm_reference: the
single wheel on our three soils, and the COBRA link held under side loads and dragged on the
thesis's loose sand.

    .venv/bin/python scripts/reference/chrono_scm_rigs.py PATH/TO/chrono_scm_rigs
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
# (side load as a fraction of F_n tan φ, axis midway between node rows, bulldozing) as validate_terrain holds them
LINK_HOLDS = ((0.05, False, True), (0.10, False, True), (0.20, False, True), (0.20, True, True), (0.20, True, False))


def soil_arguments(name: str) -> tuple[object, list[str]]:
    params = load_scm_params(REPO_ROOT / 'config' / 'soil' / f'{name}.yaml')
    soil = params.soil
    values = (soil.bekker_kphi_pa_m_n, soil.bekker_kc_pa_m_n1, soil.bekker_n, soil.mohr_cohesion_pa,
              soil.mohr_friction_deg, soil.janosi_shear_m, soil.elastic_k_pa_m, soil.damping_r_pa_s_m)
    return params, [repr(float(v)) for v in values]


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_file():
        print(f'usage: {Path(__file__).name} PATH/TO/chrono_scm_rigs (built by build_chrono_scm_rigs.sh)',
              file=sys.stderr)
        return 2
    binary = argv[0]
    plan = Plan.make(quick=True)
    setup = plan.wheel
    wheels = {}
    for name in SOILS:  # one process per soil, side by side
        params, soil = soil_arguments(name)
        load = wheel_load_n(name, tm.BekkerSoil.from_scm(params.soil), setup)
        arguments = [setup.radius_m, setup.width_m, load, setup.speed_m_s, setup.spacing_m, *plan.wheel_slips]
        wheels[name] = (load, subprocess.Popen([binary, 'wheel', *soil, *(repr(float(v)) for v in arguments)],
                                               stdout=subprocess.PIPE, text=True))
    params, soil = soil_arguments('loose_sand')
    bulldozing = params.bulldozing
    spacing = repr(params.grid.spacing_m)

    def link(mode: str, on: bool, *values: float) -> list[float]:
        switches = ['1' if on else '0', repr(bulldozing.erosion_angle_deg), repr(bulldozing.flow_factor),
                    str(bulldozing.erosion_iterations), str(bulldozing.erosion_propagations)]
        output = subprocess.run([binary, mode, *soil, *switches, spacing, *(repr(float(v)) for v in values)],
                                check=True, capture_output=True, text=True).stdout
        return [float(v) for v in output.split()]

    print('# single wheel: slip: (sinkage m, drawbar pull N, driving torque N m)')
    for name, (load, process) in wheels.items():
        output, _ = process.communicate()
        if process.returncode != 0:
            print(f'{binary} failed on {name} (exit {process.returncode})', file=sys.stderr)
            return 1
        print(f'    # {name}: W {load:g} N')
        for line in output.splitlines():
            slip, sinkage, pull, torque, _ = (float(v) for v in line.split())
            print(f'    {slip:g}: ({sinkage:.6g}, {pull:.6g}, {torque:.6g}),')
    print(f'# link on loose sand, Δ {params.grid.spacing_m:g} m, hold {plan.hold_s:g} s: (fraction, midway, '
          'bulldozing): (moved at the end of the ramp m, at the end m, creep over the last 1 s m/s)')
    for fraction, midway, on in LINK_HOLDS:
        ramp_end, moved, creep = link('link-hold', on, fraction, 1.0 if midway else 0.0, plan.hold_s)
        print(f'    ({fraction:g}, {midway}, {on}): ({ramp_end:.6g}, {moved:.6g}, {creep:.6g}),')
    mean, most = link('link-drag', bulldozing.enabled, 0.01, 0.10)
    print('# link dragged across its axis at 1 cm/s: (mean, largest) horizontal / vertical force')
    print(f'    ({mean:.6g}, {most:.6g})')
    return 0


if __name__ == '__main__':
    raise SystemExit(main(sys.argv[1:]))
