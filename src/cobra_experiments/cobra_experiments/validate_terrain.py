"""Terrain validation: SCM and the compliant ground against closed-form laws and the single-wheel test.

  python -m cobra_experiments.validate_terrain [--quick] [--out DIR] [--soils loose_sand,lete_sand,clayey_soil]

Prints one row per check (check, closed form or reference, ours, error, verdict) and writes
<out>/validate_terrain.json and figures (<out>/*.png) with the curves behind the rows:
- Bekker plate sinkage at several widths and exponents; unload/reload along the elastic K;
- Janosi-Hanamoto traction of a dragged plate at drag speeds from 1 mm/s to 0.5 m/s; a COBRA link
  held by a constant side load or by gravity tilted 5 deg (rest after j* = -k ln(1 - F/F_max));
- the single-wheel test (the thesis's wheel, r 0.20 m, width 0.12 m) at slips -0.2..0.7 on each soil
  against the Wong-Reece closed form (cobra_experiments.terramechanics, b = the wheel width) and
  Bekker's towed-wheel sinkage z0, and against the closed form of the model SCM discretises
  (soil columns fixed in the ground: Bekker pressure, elastic rebound, Janosi on horizontal slip);
- the compliant ground: a block sticks below the static friction angle, slides at mu_d above;
- the rigid ground: the robot resting on the 24° slope creeps as the thesis law does below v_c,
  carries its weight, and slides with Coulomb's acceleration when mu < tan of the slope.
The closed forms come from the literature, not from cobra_soil; no reference is fitted to SCM.
Exit code 0: every check passed; 1: a check failed (the table says which and why); 2: bad input
(one message naming it; nothing written).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from cobra_common.atomic_file import write_atomically
from cobra_experiments import terramechanics as tm
from cobra_experiments import chrono_scm_reference, wong_reece_reference
from cobra_experiments.terrain_rigs import (G_M_S2, LINK_RADIUS_M, PlateRig, WheelSetup, link_params, patch_b_m, plate_params,
                                            rigid_unloading, rolling_rim_wrench, run_block_on_slope,
                                            run_link_drag_across, run_link_hold, run_plate_drag, run_wheel, run_wheel_at_rest, wheel_params)
from cobra_soil import CompliantParams, SoilConfigError, SoilParams, load_compliant_params, load_scm_params
from cobra_soil.params import ScmParams, soil_config_dirs
from cobra_experiments.figures import save_figure

DEFAULT_SOILS = ('loose_sand', 'lete_sand', 'clayey_soil')
COMPLIANT_FILE = 'compliant_ground.yaml'
# Wong, Theory of Ground Vehicles, Table 2.3: dry sand (Land Locomotion Lab), the exponent n > 1 case
# for the plate rows only: k_c 0.99 kN/m^(n+1), k_phi 1528.43 kN/m^(n+2), n 1.1, c 1.04 kPa, phi 28 deg.
DRY_SAND_LLL = SoilParams(1528.43e3, 0.99e3, 1.1, 1.04e3, 28.0, 0.02, 4e8, 3e4)

PLATE_TOLERANCE = 0.05          # relative, sinkage on the Bekker curve
ELASTIC_TOLERANCE = 0.05        # relative, elastic rebound Δp/K
JANOSI_TOLERANCE = 0.05         # relative, traction vs displacement (issue 17)
REST_TOLERANCE = 0.20           # relative, rest displacement vs j* (issue 17)
CREEP_LIMIT_M_S = 5e-5          # 0.05 mm/s (issue 17)
SINKAGE_TOLERANCE = 0.10        # relative (issue 17)
PULL_TOLERANCE = 0.20           # relative, slip 0.1-0.6 (issue 17)
ZERO_PULL_SLIP_TOLERANCE = 0.05  # absolute (issue 17)
PULL_SLIP_RANGE = (0.1, 0.6)
# The wheel's pull and torque rows are repeated with cobra_soil's numerics.pressure_direction =
# 'surface_normal' (the default, 'vertical', is Chrono's): the same vertical forces, so the same sinkage.
SURFACE_NORMAL_SUFFIX = ' [pressure along the surface normal]'
# SCM against the closed form of its own model: what is left is the node grid.
GROUND_COLUMN_TOLERANCE = 0.05
INDEPENDENT_WONG_REECE_TOLERANCE = 1e-4  # ours against another implementation of the same equations
LADDER_SLIP = 0.3   # mid-range of the drawbar-pull target's slips 0.1..0.6


class UsageError(ValueError):
    """Input the validation cannot run with."""


@dataclass(frozen=True)
class Check:
    """One row of the table."""

    group: str
    check: str
    reference: str
    ours: str
    error: str
    verdict: str                     # PASS | FAIL | INFO (no target: shown, never fails the run)
    note: str = ''
    error_value: float | None = None
    tolerance: float | None = None


@dataclass(frozen=True)
class Plan:
    """How much to run: --quick keeps every check and trims widths, speeds and slips."""

    quick: bool
    plate_widths_m: tuple[float, ...]
    drag_speeds_m_s: tuple[float, ...]
    drag_travel_points_m: tuple[float, ...]
    hold_s: float
    wheel_slips: tuple[float, ...]
    wheel: WheelSetup

    @classmethod
    def make(cls, quick: bool) -> Plan:
        if quick:
            return cls(True, (0.1, 0.2), (0.001, 0.02, 0.5), (0.01, 0.02, 0.04), 4.0,
                       (-0.2, 0.0, 0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 0.7), WheelSetup(speed_m_s=0.1, spacing_m=0.005))
        return cls(False, (0.05, 0.1, 0.2), (0.001, 0.005, 0.02, 0.1, 0.5), (0.01, 0.02, 0.04, 0.08), 6.0,
                   tuple(round(-0.2 + 0.05 * k, 2) for k in range(19)),
                   WheelSetup(speed_m_s=0.05, spacing_m=0.005))


@dataclass
class Results:
    rows: list[Check] = field(default_factory=list)
    figures: dict[str, Callable[[Path], None]] = field(default_factory=dict)
    data: dict[str, object] = field(default_factory=dict)


def relative_error(ours: float, reference: float) -> float:
    return (ours - reference) / abs(reference) if reference != 0 else math.inf


def verdict(ok: bool) -> str:
    return 'PASS' if ok else 'FAIL'


def _pct(value: float) -> str:
    return f'{100 * value:+.1f} %' if math.isfinite(value) else 'inf'


# --------------------------------------------------------------------------------- plates

def _plate_b_m(length_m: float, width_m: float) -> float:
    """b = 2A/L of the plate outline (SCM's definition applied to the plate)."""
    return length_m * width_m / (length_m + width_m)


def plate_checks(soils: dict[str, ScmParams], plan: Plan, out: Results) -> None:
    """Bekker plate sinkage at several widths for each soil (and n = 1.1 dry sand)."""
    length_m = 0.4
    target_sinkage_m = 0.03
    cases = [(name, params.soil) for name, params in soils.items()] + [('dry_sand_LLL (Wong; in code)', DRY_SAND_LLL)]
    curves = []
    for name, soil in cases:
        closed = tm.BekkerSoil.from_scm(soil)
        for width in plan.plate_widths_m:
            spacing = min(0.01, width / 10)
            b = _plate_b_m(length_m, width)
            pressure = float(tm.bekker_pressure_pa(closed, target_sinkage_m, b))
            load = pressure * length_m * width
            rig = PlateRig(plate_params(soil, spacing), length_m, width, load / G_M_S2)
            rig.ramp(0.0, load)
            ours = rig.sinkage_m
            error = relative_error(ours, target_sinkage_m)
            bekker_b_sinkage = tm.bekker_plate_sinkage_m(closed, pressure, width)
            out.rows.append(Check(
                'Bekker plate: plate 0.4 m long, loaded to the pressure of 30 mm sinkage, bulldozing off; '
                'b = 2A/L of the plate outline',
                f'{name} (n {soil.bekker_n:g}), width {width:.2f} m, p {pressure / 1e3:.1f} kPa',
                f'(k_c/b + k_φ) zⁿ, b {b * 1e3:.1f} mm: z {target_sinkage_m * 1e3:.2f} mm',
                f'z {ours * 1e3:.2f} mm', _pct(error), verdict(abs(error) <= PLATE_TOLERANCE),
                note=(f'Δ = {spacing * 1e3:g} mm; with Bekker\'s b = plate width the law gives '
                      f'{bekker_b_sinkage * 1e3:.2f} mm; SCM patch b (node hull) {patch_b_m(rig.terrain) * 1e3:.1f} mm'),
                error_value=error, tolerance=PLATE_TOLERANCE))
            curves.append({'soil': name, 'width_m': width, 'b_m': b, 'pressure_pa': pressure, 'sinkage_m': ours,
                           'closed': closed})
    out.data['plates'] = [{k: v for k, v in c.items() if k != 'closed'} for c in curves]
    out.figures['plates.png'] = lambda path: _plot_plates(curves, path)


def unload_reload_checks(soils: dict[str, ScmParams], out: Results) -> None:
    """Load a plate to 3 cm, unload to half, reload to full and to 1.5x: elastic along K, then Bekker."""
    length_m, width_m = 0.4, 0.2
    b = _plate_b_m(length_m, width_m)
    traces = []
    for name in [n for n in ('loose_sand', 'clayey_soil') if n in soils] or list(soils)[:1]:
        soil = soils[name].soil
        closed = tm.BekkerSoil.from_scm(soil)
        area = length_m * width_m
        pressure = float(tm.bekker_pressure_pa(closed, 0.03, b))
        load = pressure * area
        rig = PlateRig(plate_params(soil, 0.01), length_m, width_m, 1.5 * load / G_M_S2)
        path: list[tuple[float, float]] = []

        def ramp(from_n: float, to_n: float) -> None:
            steps = 1500
            for k in range(steps):
                s = (k + 1) / steps
                rig.step(from_n + (to_n - from_n) * s * s * (3.0 - 2.0 * s))
                if k % 10 == 0:
                    path.append((rig.sinkage_m, rig.force_n[2] / area))
            for _ in range(500):
                rig.step(to_n)
            path.append((rig.sinkage_m, rig.force_n[2] / area))

        ramp(0.0, load)
        loaded = rig.sinkage_m
        ramp(load, 0.5 * load)
        half = rig.sinkage_m
        ramp(0.5 * load, load)
        reloaded = rig.sinkage_m
        ramp(load, 1.5 * load)
        beyond = rig.sinkage_m
        rebound_expected = 0.5 * pressure / soil.elastic_k_pa_m
        rebound = loaded - half
        e1 = relative_error(rebound, rebound_expected)
        e2 = relative_error(reloaded, loaded)
        z_beyond = tm.bekker_plate_sinkage_m(closed, 1.5 * pressure, b)
        e3 = relative_error(beyond, z_beyond)
        group = 'unload/reload: plate 0.4 x 0.2 m, Δ 10 mm'
        out.rows += [
            Check(group, f'{name}: unload 100 -> 50 % ({pressure / 1e3:.1f} -> {pressure / 2e3:.1f} kPa)',
                  f'elastic rebound Δp/K = {rebound_expected * 1e3:.3f} mm (K {soil.elastic_k_pa_m:.3g} Pa/m)',
                  f'{rebound * 1e3:.3f} mm', _pct(e1), verdict(abs(e1) <= ELASTIC_TOLERANCE),
                  error_value=e1, tolerance=ELASTIC_TOLERANCE),
            Check(group, f'{name}: reload 50 -> 100 %', f'back to z_max = {loaded * 1e3:.2f} mm, no new plastic sinkage',
                  f'{reloaded * 1e3:.2f} mm', _pct(e2), verdict(abs(e2) <= 0.01), error_value=e2, tolerance=0.01),
            Check(group, f'{name}: reload on to 150 %', f'Bekker curve at 1.5 p: z {z_beyond * 1e3:.2f} mm',
                  f'{beyond * 1e3:.2f} mm', _pct(e3), verdict(abs(e3) <= PLATE_TOLERANCE), error_value=e3,
                  tolerance=PLATE_TOLERANCE),
        ]
        traces.append({'soil': name, 'path': np.array(path), 'closed': closed, 'b_m': b,
                       'elastic_k_pa_m': soil.elastic_k_pa_m, 'loaded_m': loaded, 'pressure_pa': pressure})
    out.figures['unload_reload.png'] = lambda path: _plot_unload_reload(traces, path)


# --------------------------------------------------------------------------------- Janosi

def janosi_drag_checks(soils: dict[str, ScmParams], plan: Plan, out: Results) -> None:
    """A 0.4 m (along the drag) x 0.2 m plate on loose sand loaded to 3 cm, dragged at each speed."""
    name = 'loose_sand' if 'loose_sand' in soils else next(iter(soils))
    soil = soils[name].soil
    closed = tm.BekkerSoil.from_scm(soil)
    length_m, width_m = 0.4, 0.2
    area = length_m * width_m
    load = float(tm.bekker_pressure_pa(closed, 0.03, _plate_b_m(length_m, width_m))) * area
    travel_points = plan.drag_travel_points_m
    traces = []
    for speed in plan.drag_speeds_m_s:
        trace = run_plate_drag(plate_params(soil, 0.01), length_m, width_m, load, speed, max(travel_points))
        reference, ours, errors = [], [], []
        for s in travel_points:
            k = int(np.argmin(np.abs(trace.travel_m - s)))
            limit = soil.mohr_cohesion_pa * area + trace.normal_n[k] * closed.tan_phi
            expected = limit * tm.plate_drag_fraction(trace.travel_m[k], length_m, closed.janosi_k_m)
            reference.append(expected)
            ours.append(trace.traction_n[k])
            errors.append(relative_error(trace.traction_n[k], expected))
        worst = max(errors, key=abs)
        out.rows.append(Check(
            f'Janosi drag: plate {length_m} m (along the drag) x {width_m} m on {name}, loaded to 3 cm, Δ 10 mm; '
            f'traction after {"/".join(f"{s * 100:g}" for s in travel_points)} cm of travel',
            f'{speed * 1e3:g} mm/s',
            'Janosi, (c A + F_n tan φ) x plate average: ' + '/'.join(f'{v:.0f}' for v in reference) + ' N',
            '/'.join(f'{v:.0f}' for v in ours) + ' N', f'worst {_pct(worst)}',
            verdict(abs(worst) <= JANOSI_TOLERANCE), error_value=worst, tolerance=JANOSI_TOLERANCE))
        traces.append((speed, trace))
    out.data['janosi_drag'] = [{'speed_m_s': speed, 'travel_m': t.travel_m.tolist(), 'traction_n': t.traction_n.tolist(),
                                'normal_n': t.normal_n.tolist()} for speed, t in traces]
    out.figures['janosi_drag.png'] = lambda path: _plot_janosi(traces, closed, soil, length_m, area, path)


def hold_checks(soils: dict[str, ScmParams], plan: Plan, out: Results) -> None:
    """The COBRA link on the soil file's own grid: at rest, side loads 5/10/20 % of F_n tan φ and gravity
    tilted 5°, across and along its axis; and the steady slide of the narrow contact across its axis."""
    name = 'loose_sand' if 'loose_sand' in soils else next(iter(soils))
    params = link_params(soils[name])
    k_m = params.soil.janosi_shear_m
    tan_phi = math.tan(math.radians(params.soil.mohr_friction_deg))
    group = (f'static hold: COBRA link (0.464 kg, r 45 mm, half-length 68 mm, axis horizontal over a node row, rotation '
             f'locked) on {name}, its own grid Δ {params.grid.spacing_m * 1e3:g} mm; loads ramped over 2 s, then held')
    traces = []
    cases = [('no side load', 0.0, 0.0, False, True, True)]
    for along in (False, True):
        where = 'along' if along else 'across'
        cases += [(f'side load {int(f * 100)} % of F_n tan φ {where} the axis', f, 0.0, along, True, True)
                  for f in (0.05, 0.10, 0.20)]
        cases.append((f'gravity tilted 5° {where} the axis', 0.0, 5.0, along, True, True))
    cases.append(('side load 20 % across, axis midway between node rows', 0.20, 0.0, False, False, True))
    # the same without bulldozing: the shear law alone, in the placement where the berm is met before j*
    cases.append(('side load 20 % across, axis midway, bulldozing off', 0.20, 0.0, False, False, False))
    no_berm = replace(params, bulldozing=replace(params.bulldozing, enabled=False))
    # Chrono's tables hold for this soil file's soil, grid and bulldozing; both modes compare with them (the
    # end of the ramp, the creep rate and the drag do not depend on how long the load is then held)
    with_chrono = chrono_scm_reference.link_tables_apply(params.soil, params.grid.spacing_m, params.bulldozing)
    chrono_rows = []
    for label, fraction, tilt, along, on_row, bulldozing in cases:
        trace = run_link_hold(params if bulldozing else no_berm, fraction, tilt, plan.hold_s, along_axis=along,
                              axis_on_node_row=on_row)
        limit = trace.normal_load_n * tan_phi + params.soil.mohr_cohesion_pa * trace.contact_area_m2
        load_fraction = trace.side_load_n / limit
        creep = trace.creep_m_s()
        if load_fraction > 0:
            j_star = tm.janosi_rest_displacement_m(load_fraction, k_m)
            moved = trace.final_displacement_m
            error = relative_error(moved, j_star)
            note = ('' if on_row else
                    f'contact {trace.contact_area_m2 * 1e4:.0f} cm²: bulldozing piles the sunk volume on the next '
                    f'node rows, {1.5 * params.grid.spacing_m * 1e3:g} mm from the axis (a berm); sliding toward '
                    f'one, the link meets it before j* and it takes the normal load as fresh soil (j = 0, no shear '
                    f'strength yet), so the sheared rows unload (deposit rule and vertical pressure as in Chrono\'s '
                    f'SCM; cobra_soil README)'
                    if bulldozing else
                    'the shear law alone: without the berm the midway link rests at j* as over a row')
            out.rows.append(Check(group, f'{label}: rest displacement',
                                  f'j* = -k ln(1 - F/F_max) = {j_star * 1e3:.2f} mm (F/F_max {load_fraction:.3f})',
                                  f'{moved * 1e3:.2f} mm', _pct(error),
                                  verdict(abs(error) <= REST_TOLERANCE), error_value=error, tolerance=REST_TOLERANCE,
                                  note=note))
        else:
            j_star = 0.0
        out.rows.append(Check(group, f'{label}: creep over the last 1 s', 'at rest: < 0.05 mm/s',
                              f'{creep * 1e3:.4f} mm/s', f'{abs(creep) * 1e3:.4f} mm/s',
                              verdict(abs(creep) < CREEP_LIMIT_M_S), error_value=abs(creep), tolerance=CREEP_LIMIT_M_S))
        traces.append((label, trace, j_star))
        chrono_key = (fraction, not on_row, bulldozing)
        if with_chrono and tilt == 0.0 and not along and chrono_key in chrono_scm_reference.LINK_HOLDS:
            chrono_rows.append((label, trace, chrono_scm_reference.LINK_HOLDS[chrono_key]))
    for label, trace, (ramp_end, chrono_moved, chrono_creep) in chrono_rows:
        error = relative_error(trace.final_displacement_m, ramp_end)
        out.rows.append(Check(
            group, f'{label}: Chrono\'s own SCMTerrain, same test',
            f'{ramp_end * 1e3:.2f} mm at the end of the ramp, then creeping {chrono_creep * 1e3:.2f} mm/s '
            f'({chrono_moved * 1e3:.2f} mm after {chrono_scm_reference.LINK_HOLD_S:g} s)',
            f'{trace.final_displacement_m * 1e3:.2f} mm, then {abs(trace.creep_m_s()) * 1e3:.4f} mm/s',
            f'{_pct(error)} of Chrono at the end of the ramp', 'INFO', error_value=error,
            note='Chrono puts the full Janosi stress along the slip velocity at any slip speed, so a held body '
                 'chatters and creeps on; ours holds it with a stick state (cobra_soil README). Up to the end of the '
                 'ramp the two move alike, the berm included'))
    refinement_rows(params, plan, group, out)
    mean_ratio, most_ratio = run_link_drag_across(params)
    slide_note = (f'side loads above the most ({most_ratio / tan_phi:.2f} F_n tan φ) are not held across the axis: '
                  'the link slides on, meeting fresh soil')
    if with_chrono:
        chrono_mean, chrono_most = chrono_scm_reference.LINK_DRAG_RATIO
        error = relative_error(mean_ratio, chrono_mean)
        out.rows.append(Check(group, 'dragged across the axis at 1 cm/s: steady horizontal / vertical force',
                              f"Chrono's own SCMTerrain, same test: {chrono_mean:.3f} mean, {chrono_most:.3f} most",
                              f'{mean_ratio:.3f} mean, {most_ratio:.3f} most', _pct(error),
                              verdict(abs(error) <= GROUND_COLUMN_TOLERANCE), error_value=error,
                              tolerance=GROUND_COLUMN_TOLERANCE, note=slide_note))
    else:
        out.rows.append(Check(group, 'dragged across the axis at 1 cm/s: steady horizontal / vertical force',
                              "~0.15, as Chrono's SCM gives (issue 17; Chrono was run on loose sand only)",
                              f'{mean_ratio:.3f} mean, {most_ratio:.3f} most', f'{mean_ratio - 0.15:+.3f}', 'INFO',
                              error_value=mean_ratio - 0.15, note=slide_note))
    out.data['static_hold'] = [{'case': label, 'time_s': t.time_s[::10].tolist(),
                                'displacement_m': t.displacement_m[::10].tolist(), 'j_star_m': j}
                               for label, t, j in traces]
    out.figures['static_hold.png'] = lambda path: _plot_hold(traces, path)


def refinement_rows(params: ScmParams, plan: Plan, group: str, out: Results) -> None:
    """The 20 % side load across the axis on a grid twice as fine, over a node row and midway: whether
    the placement effect of the soil file's grid is discretisation (INFO rows, no issue target).

    Second reference: Janosi integrated over a contact of finite width L along the load (Wong's
    plate integration, as the drag rows use; L = the chord of the link sunk z): the leading edge
    meets unsheared soil, so a narrow contact rests beyond j*."""
    fine = link_params(replace(params, grid=replace(params.grid, spacing_m=0.5 * params.grid.spacing_m)))
    k_m = params.soil.janosi_shear_m
    tan_phi = math.tan(math.radians(params.soil.mohr_friction_deg))
    for on_row in (True, False):
        trace = run_link_hold(fine, 0.20, 0.0, plan.hold_s, axis_on_node_row=on_row)
        limit = trace.normal_load_n * tan_phi + params.soil.mohr_cohesion_pa * trace.contact_area_m2
        fraction = trace.side_load_n / limit
        j_star = tm.janosi_rest_displacement_m(fraction, k_m)
        chord = 2.0 * math.sqrt(max(0.0, 2.0 * LINK_RADIUS_M * trace.sinkage_m - trace.sinkage_m ** 2))
        finite = tm.plate_rest_displacement_m(fraction, chord, k_m)
        moved = trace.final_displacement_m
        where = 'over a node row' if on_row else 'midway between node rows'
        out.rows.append(Check(
            group, f'grid refinement: side load 20 % across, Δ {fine.grid.spacing_m * 1e3:g} mm, axis {where}: rests at',
            f'j* {j_star * 1e3:.2f} mm; Janosi over the {chord * 1e3:.0f} mm contact width: {finite * 1e3:.2f} mm',
            f'{moved * 1e3:.2f} mm', f'{_pct(relative_error(moved, j_star))} / {_pct(relative_error(moved, finite))}',
            'INFO', error_value=relative_error(moved, j_star),
            note='grid refinement of the row above: the placement effect shrinks as node rows per contact width grow'))


# ---------------------------------------------------------------------------- single wheel

def wheel_load_n(name: str, soil: tm.BekkerSoil, setup: WheelSetup) -> float:
    """The thesis's 6 kg wheel on its loose sand; elsewhere the load for Bekker's z0 = 15 mm (a sinkage
    the 5 mm grid resolves), rounded to 10 N."""
    if name == 'loose_sand':
        return 6.0 * G_M_S2
    low, high = 1.0, 1e6
    for _ in range(100):
        mid = math.sqrt(low * high)
        if tm.bekker_wheel_sinkage_m(soil, mid, setup.radius_m, setup.width_m) < 0.015:
            low = mid
        else:
            high = mid
    return round(low, -1)


def _zero_crossing(slips: Sequence[float], pulls: Sequence[float]) -> float:
    """Slip of the first sign change of the drawbar pull from − to + (linear), nan if none."""
    for k in range(len(slips) - 1):
        if pulls[k] <= 0.0 < pulls[k + 1] or pulls[k] < 0.0 <= pulls[k + 1]:
            return slips[k] + (slips[k + 1] - slips[k]) * (-pulls[k]) / (pulls[k + 1] - pulls[k])
    return math.nan


def wheel_checks(name: str, params: ScmParams, plan: Plan, out: Results) -> None:
    """Single-wheel test on one soil against Bekker and Wong-Reece (b = wheel width 0.12 m)."""
    closed = tm.BekkerSoil.from_scm(params.soil)
    setup = replace(plan.wheel, load_n=wheel_load_n(name, closed, plan.wheel))
    r, width, load = setup.radius_m, setup.width_m, setup.load_n
    scm = wheel_params(params.soil, params.numerics, setup)
    group = (f'single wheel on {name}: r {r} m, width {width} m, W {load:.1f} N, v {setup.speed_m_s:g} m/s, '
             f'Δ {setup.spacing_m * 1e3:g} mm, bulldozing off; closed forms with Bekker\'s b = wheel width unless said')
    b_note = 'b = width'

    rest_sinkage, rest_b = run_wheel_at_rest(scm, setup)
    rest_ref = tm.resting_wheel_sinkage_m(closed, load, r, width)
    rest_patch = tm.resting_wheel_sinkage_m(closed, load, r, width, bekker_b_m=rest_b)
    e = relative_error(rest_sinkage, rest_ref)
    out.rows.append(Check(group, 'at rest, pressed in by W', f'Bekker pressure over both halves, {b_note}: '
                          f'{rest_ref * 1e3:.2f} mm; b = SCM patch 2A/L {rest_b * 1e3:.1f} mm: {rest_patch * 1e3:.2f} mm',
                          f'{rest_sinkage * 1e3:.2f} mm',
                          f'{_pct(e)} / {_pct(relative_error(rest_sinkage, rest_patch))}',
                          verdict(abs(e) <= SINKAGE_TOLERANCE), error_value=e, tolerance=SINKAGE_TOLERANCE,
                          note='verdict on Bekker\'s b = the wheel width (the issue\'s reference); the second error uses '
                               'the b SCM puts in k_c/b (Chrono\'s 2A/L of the loaded patch)'))

    runs = [run_wheel(scm, setup, slip) for slip in plan.wheel_slips]
    slips = np.array([run.slip for run in runs])
    references = [tm.wong_reece_at_load(closed, load, slip, r, width) for slip in slips]
    mean_patch_b = float(np.nanmean([run.patch_b_m for run in runs]))
    with_patch_b = [tm.wong_reece_at_load(closed, load, slip, r, width, bekker_b_m=mean_patch_b) for slip in slips] \
        if math.isfinite(mean_patch_b) else []

    z0 = tm.bekker_wheel_sinkage_m(closed, load, r, width)
    z_front = tm.front_half_sinkage_m(closed, load, r, width)
    at_zero = runs[int(np.argmin(np.abs(slips)))]
    e = relative_error(at_zero.sinkage_m, z0)
    z0_patch_m = (tm.bekker_wheel_sinkage_m(closed, load, r, width, at_zero.patch_b_m)
                  if math.isfinite(at_zero.patch_b_m) else math.nan)
    out.rows.append(Check(group, f'rolling at slip {at_zero.slip:g}: Bekker static sinkage',
                          f'Bekker z0, {b_note}: {z0 * 1e3:.2f} mm; b = SCM patch {at_zero.patch_b_m * 1e3:.1f} mm: '
                          f'{z0_patch_m * 1e3:.2f} mm', f'{at_zero.sinkage_m * 1e3:.2f} mm',
                          f'{_pct(e)} / {_pct(relative_error(at_zero.sinkage_m, z0_patch_m))}',
                          verdict(abs(e) <= SINKAGE_TOLERANCE), error_value=e, tolerance=SINKAGE_TOLERANCE,
                          note=f'exact front-half integral behind z0: {z_front * 1e3:.2f} mm; elastic K '
                               f'{params.soil.elastic_k_pa_m:.3g} Pa/m: the rut springs back under the rear of the wheel'))

    rigid = run_wheel(rigid_unloading(scm), setup, 0.0)
    if math.isfinite(rigid.patch_b_m):
        z_front_patch = tm.front_half_sinkage_m(closed, load, r, width, bekker_b_m=rigid.patch_b_m)
        e = relative_error(rigid.sinkage_m, z_front_patch)
        out.rows.append(Check(group, 'rolling at slip 0, rigid unloading (K 1e10)',
                              f'front half at Bekker pressure (exact integral), b = SCM patch 2A/L '
                              f'{rigid.patch_b_m * 1e3:.1f} mm: {z_front_patch * 1e3:.2f} mm',
                              f'{rigid.sinkage_m * 1e3:.2f} mm', _pct(e), verdict(abs(e) <= SINKAGE_TOLERANCE),
                              error_value=e, tolerance=SINKAGE_TOLERANCE,
                              note=f'the pressure law on a rolling rim, without the rebound of the rut; with '
                                   f'{b_note}: {z_front * 1e3:.2f} mm'))

    sinkage_errors = [relative_error(run.sinkage_m, ref.sinkage_m) for run, ref in zip(runs, references)]
    worst = int(np.argmax(np.abs(sinkage_errors)))
    patch_range = (f'; Wong-Reece with SCM\'s patch b {mean_patch_b * 1e3:.1f} mm: '
                   f'{min(f.sinkage_m for f in with_patch_b) * 1e3:.1f}-{max(f.sinkage_m for f in with_patch_b) * 1e3:.1f} mm'
                   if with_patch_b else '')
    out.rows.append(Check(group, f'rolling sinkage, slip {slips[0]:g}..{slips[-1]:g} ({len(slips)} slips)',
                          f'Wong-Reece, {b_note}: {references[worst].sinkage_m * 1e3:.2f} mm at slip {slips[worst]:g}'
                          + (f'; b = SCM patch {mean_patch_b * 1e3:.1f} mm: {with_patch_b[worst].sinkage_m * 1e3:.2f} mm'
                             if with_patch_b else ''),
                          f'{runs[worst].sinkage_m * 1e3:.2f} mm', f'worst {_pct(sinkage_errors[worst])}'
                          + (f' / {_pct(relative_error(runs[worst].sinkage_m, with_patch_b[worst].sinkage_m))}'
                             if with_patch_b else ''),
                          verdict(abs(sinkage_errors[worst]) <= SINKAGE_TOLERANCE), error_value=sinkage_errors[worst],
                          tolerance=SINKAGE_TOLERANCE,
                          note=f'Wong-Reece {min(f.sinkage_m for f in references) * 1e3:.1f}-'
                               f'{max(f.sinkage_m for f in references) * 1e3:.1f} mm, '
                               f'ours {min(r_.sinkage_m for r_ in runs) * 1e3:.1f}-{max(r_.sinkage_m for r_ in runs) * 1e3:.1f} mm'
                               f'{patch_range}; Wong-Reece peaks the stress at θm = (c1 + c2 i) θ1, SCM at the deepest node'))

    independent = wong_reece_reference.case(name)
    if independent is not None:
        agreement = wong_reece_reference.agreement(independent)
        out.rows.append(Check(
            group, f'the Wong-Reece closed form itself, slip {min(independent.results):g}..{max(independent.results):g}',
            f'{wong_reece_reference.SOURCE}, b = width: an implementation we did not write',
            f'worst: sinkage {agreement.sinkage:.1e}, pull {agreement.drawbar_pull:.1e}, torque {agreement.torque:.1e}',
            f'{agreement.worst:.1e}', verdict(agreement.worst <= INDEPENDENT_WONG_REECE_TOLERANCE),
            error_value=agreement.worst, tolerance=INDEPENDENT_WONG_REECE_TOLERANCE,
            note=f'ours (terramechanics.wong_reece_at_load) for the same soil at W {independent.load_n:g} N; '
                 'pull and torque relative to their largest. The reference these rows are judged by'))

    carried = [tm.wong_reece_forces(closed, run.sinkage_m, run.slip, r, width) for run in runs]
    worst_c = int(np.argmin([f.load_n for f in carried]))
    least_share = carried[worst_c].load_n / load
    out.rows.append(Check(group, f'load Wong-Reece carries at SCM\'s rolling sinkage, slip {slips[0]:g}..{slips[-1]:g}',
                          f'the wheel load W = {load:.1f} N ({b_note})',
                          f'{min(f.load_n for f in carried):.1f}-{max(f.load_n for f in carried):.1f} N',
                          f'{least_share:.2f} W at slip {slips[worst_c]:g}', 'INFO', error_value=least_share - 1.0,
                          note='the same sinkage carries more load in SCM (Bekker pressure from the bottom of the rim '
                               'and the elastic rebound behind it) than in Wong-Reece (stress peak at θm ahead of the '
                               'bottom, zero at θ2 = 0): the sinkage gap comes from the stress distribution, not '
                               'the pressure law'))
    ours_zero, reference_zero = _pull_and_torque_rows(group, '', closed, load, r, width, slips, runs, references,
                                                      out)
    normal_scm = replace(scm, numerics=replace(scm.numerics, pressure_direction='surface_normal'))
    runs_normal = [run_wheel(normal_scm, setup, slip) for slip in plan.wheel_slips]
    same_sinkage = max(abs(a.sinkage_m - b_.sinkage_m) for a, b_ in zip(runs, runs_normal))
    ours_zero_normal, _ = _pull_and_torque_rows(group, SURFACE_NORMAL_SUFFIX, closed, load, r, width, slips,
                                                runs_normal, references, out)

    columns = _ground_column_rows(group, '', closed, params.soil, setup, runs, out)
    columns_normal = _ground_column_rows(group, SURFACE_NORMAL_SUFFIX, closed, params.soil, setup, runs_normal, out)
    _chrono_rows(group, name, params, setup, runs, columns, out)
    ladder = _assumption_ladder(group, closed, params.soil, setup, mean_patch_b, LADDER_SLIP, out)

    out.data[f'wheel_{name}'] = {
        'load_n': load, 'radius_m': r, 'width_m': width, 'speed_m_s': setup.speed_m_s, 'spacing_m': setup.spacing_m,
        'slips': slips.tolist(), 'scm_sinkage_m': [run.sinkage_m for run in runs],
        'scm_drawbar_pull_n': [run.drawbar_pull_n for run in runs], 'scm_torque_nm': [run.torque_nm for run in runs],
        'scm_patch_b_m': [run.patch_b_m for run in runs], 'scm_rest_sinkage_m': rest_sinkage,
        'scm_rigid_unloading_sinkage_m': rigid.sinkage_m,
        'wong_reece': [asdict(f) for f in references], 'wong_reece_patch_b': [asdict(f) for f in with_patch_b],
        'bekker_z0_m': z0, 'front_half_sinkage_m': z_front, 'resting_sinkage_m': rest_ref,
        'zero_pull_slip': {'wong_reece': reference_zero, 'scm': ours_zero, 'scm_surface_normal': ours_zero_normal},
        'scm_surface_normal_drawbar_pull_n': [run.drawbar_pull_n for run in runs_normal],
        'scm_surface_normal_torque_nm': [run.torque_nm for run in runs_normal],
        'scm_surface_normal_sinkage_m': [run.sinkage_m for run in runs_normal],
        'surface_normal_sinkage_difference_m': same_sinkage,
        'ground_column': {'vertical': [asdict(f) for f in columns],
                          'surface_normal': [asdict(f) for f in columns_normal]},
        'assumption_ladder': [{'step': step, **asdict(f)} for step, f in ladder]}
    out.figures[f'wheel_{name}.png'] = lambda path: _plot_wheel(name, load, runs, runs_normal, references,
                                                                with_patch_b, mean_patch_b, z0, closed, r, width, path)
    out.figures[f'wheel_model_{name}.png'] = lambda path: _plot_ground_column(
        name, load, runs, runs_normal, columns, columns_normal, references, r, width, path)


def _assumption_ladder(group: str, closed: tm.BekkerSoil, soil: SoilParams, setup: WheelSetup, patch_b: float,
                       slip: float, out: Results) -> list[tuple[str, tm.WheelForces]]:
    """Closed forms from SCM's model to Wong-Reece, one assumption changed per step, at one slip: how
    much of the single-wheel gap each assumption makes."""
    r, width, load, speed = setup.radius_m, setup.width_m, setup.load_n, setup.speed_m_s

    def column(**options: object) -> tm.WheelForces:
        return tm.ground_column_wheel_at_load(closed, load, slip, r, width, speed, **options)

    steps = [
        ('SCM\'s model', column(damping_r_pa_s_m=soil.damping_r_pa_s_m, elastic_k_pa_m=soil.elastic_k_pa_m,
                                bekker_b_m=patch_b)),
        ('pressure radial', column(damping_r_pa_s_m=soil.damping_r_pa_s_m, elastic_k_pa_m=soil.elastic_k_pa_m,
                                   pressure_along_normal=True, bekker_b_m=patch_b)),
        ('no rebound', column(damping_r_pa_s_m=soil.damping_r_pa_s_m, pressure_along_normal=True, bekker_b_m=patch_b)),
        ('no damping R', column(pressure_along_normal=True, bekker_b_m=patch_b)),
        ('b = width', column(pressure_along_normal=True)),
        ('shear along the rim', tm.wong_reece_at_load(closed, load, slip, r, width, c1=0.0, c2=0.0)),
        ('stress peak at θm = Wong-Reece', tm.wong_reece_at_load(closed, load, slip, r, width)),
    ]
    out.rows.append(Check(group, f'from SCM\'s model to Wong-Reece, one assumption at a time, slip {slip:g}',
                          'closed forms: ' + ' → '.join(step for step, _ in steps),
                          'z ' + ' / '.join(f'{f.sinkage_m * 1e3:.1f}' for _, f in steps) + ' mm; DP '
                          + ' / '.join(f'{f.drawbar_pull_n:.1f}' for _, f in steps) + ' N', '', 'INFO',
                          note='each step changes one assumption of the one before (ground-column closed form, '
                               'then Wong-Reece with θm = 0, then with its θm): the sinkage gap that is left after '
                               'SCM\'s own choices is the stress peak ahead of the bottom'))
    return steps


def _ground_column_rows(group: str, suffix: str, closed: tm.BekkerSoil, soil: SoilParams, setup: WheelSetup,
                        runs: list, out: Results) -> list[tm.WheelForces]:
    """Sinkage, drawbar pull and torque of the single-wheel runs against the closed form of the model
    SCM discretises (`tm.ground_column_wheel_at_load` with the soil's K and R, each run's own patch
    b); returns the closed form per run."""
    along_normal = bool(suffix)
    columns = [tm.ground_column_wheel_at_load(closed, setup.load_n, run.slip, setup.radius_m, setup.width_m,
                                              setup.speed_m_s, soil.damping_r_pa_s_m, soil.elastic_k_pa_m,
                                              along_normal, bekker_b_m=run.patch_b_m) for run in runs]
    slips = [run.slip for run in runs]
    span = f'slip {slips[0]:g}..{slips[-1]:g}'
    reference = ('ground-column closed form, pressure ' + ('along the rim normal' if along_normal else 'vertical')
                 + ', b = SCM patch 2A/L')
    note = ('the model SCM discretises (terramechanics.ground_column_wheel_forces): soil columns fixed in the '
            'ground, pressed to Bekker\'s pressure under the front of the rim, springing back along K behind the '
            'bottom, + R v_z, per horizontal area; Janosi on each column\'s horizontal slip, '
            'j = ∫ |v - ω r cos θ| dt. With SCM on its own model, the Wong-Reece rows differ by the models\' '
            'assumptions: Wong-Reece peaks the stress at θm ahead of the bottom, has no rebound, presses '
            'radially and shears along the rim, j = r[(θ1 - θ) - (1 - i)(sin θ1 - sin θ)]')
    sinkage_errors = [relative_error(run.sinkage_m, f.sinkage_m) for run, f in zip(runs, columns)]
    k = int(np.argmax(np.abs(sinkage_errors)))
    out.rows.append(Check(group, f'{span}, against SCM\'s own model: sinkage{suffix}',
                          f'{reference}: {columns[k].sinkage_m * 1e3:.2f} mm at slip {slips[k]:g}',
                          f'{runs[k].sinkage_m * 1e3:.2f} mm', f'worst {_pct(sinkage_errors[k])}',
                          verdict(abs(sinkage_errors[k]) <= GROUND_COLUMN_TOLERANCE),
                          error_value=sinkage_errors[k], tolerance=GROUND_COLUMN_TOLERANCE,
                          note='' if along_normal else note))
    for key, label, unit in (('drawbar_pull_n', 'drawbar pull', 'N'), ('torque_nm', 'driving torque', 'N m')):
        ours = [getattr(run, key) for run in runs]
        expected = [getattr(f, key) for f in columns]
        scale = max(abs(v) for v in expected)
        differences = [(a - e) / scale for a, e in zip(ours, expected)]
        k = int(np.argmax(np.abs(differences)))
        out.rows.append(Check(group, f'{span}, against SCM\'s own model: {label}{suffix}',
                              f'ground-column closed form, b = SCM patch 2A/L: {expected[k]:.2f} {unit} at slip '
                              f'{slips[k]:g} (largest |{label}| {scale:.2f} {unit})', f'{ours[k]:.2f} {unit}',
                              f'worst {_pct(differences[k])} of the largest',
                              verdict(abs(differences[k]) <= GROUND_COLUMN_TOLERANCE), error_value=differences[k],
                              tolerance=GROUND_COLUMN_TOLERANCE))
    return columns


def _chrono_rows(group: str, name: str, params: ScmParams, setup: WheelSetup, runs: list,
                 columns: list[tm.WheelForces], out: Results) -> None:
    """The same wheel test on Chrono's own SCMTerrain (chrono_scm_reference): Chrono against the closed
    form of SCM's model with Chrono's patch b, then our runs against Chrono. Our runs are reused where
    they are the table's (soil, wheel, slips), else run again at the table's set-up; `columns` is the
    closed form at each of `runs`' own patch b (_ground_column_rows), reused with them."""
    chrono = chrono_scm_reference.case(name)
    if chrono is None:
        return
    closed = tm.BekkerSoil.from_scm(chrono.soil)
    soil = chrono.soil
    slips = list(chrono.results)

    def column(slip: float, b_m: float) -> tm.WheelForces:
        return tm.ground_column_wheel_at_load(closed, chrono.load_n, slip, chrono.radius_m, chrono.width_m,
                                              chrono.speed_m_s, soil.damping_r_pa_s_m, soil.elastic_k_pa_m,
                                              bekker_b_m=b_m)

    at_chrono_b = [column(slip, chrono_scm_reference.CHRONO_PATCH_B_M) for slip in slips]
    model = chrono_scm_reference.agreement(chrono, [(slip, f.sinkage_m, f.drawbar_pull_n, f.torque_nm)
                                                    for slip, f in zip(slips, at_chrono_b)])
    b_text = f'b = Chrono\'s patch 2A/L {chrono_scm_reference.CHRONO_PATCH_B_M * 1e3:.1f} mm'
    out.rows.append(Check(
        group, f'Chrono\'s own SCMTerrain, slip {slips[0]:g}..{slips[-1]:g}, against SCM\'s model',
        f'ground-column closed form, {b_text}',
        f'worst: sinkage {model.sinkage:.1e}, pull {model.drawbar_pull:.1e}, torque {model.torque:.1e}',
        f'{model.worst:.1e}', verdict(model.worst <= GROUND_COLUMN_TOLERANCE), error_value=model.worst,
        tolerance=GROUND_COLUMN_TOLERANCE,
        note=f'{chrono_scm_reference.SOURCE}: the closed form our port is checked against above is also '
             'what Chrono computes, given the b Chrono uses (all its ray hits form the patch)'))

    table_setup = replace(setup, radius_m=chrono.radius_m, width_m=chrono.width_m, load_n=chrono.load_n,
                          speed_m_s=chrono.speed_m_s, spacing_m=chrono.spacing_m)
    by_slip = {round(run.slip, 6): (run, f) for run, f in zip(runs, columns)}
    if (table_setup == setup and params.soil == soil and params.numerics.pressure_direction == 'vertical'
            and all(round(slip, 6) in by_slip for slip in slips)):
        ours, at_our_b = zip(*(by_slip[round(slip, 6)] for slip in slips))
    else:
        scm = wheel_params(soil, replace(params.numerics, pressure_direction='vertical'), table_setup)
        ours = [run_wheel(scm, table_setup, slip) for slip in slips]
        at_our_b = [column(run.slip, run.patch_b_m) for run in ours]
    port = chrono_scm_reference.agreement(chrono, [(run.slip, run.sinkage_m, run.drawbar_pull_n, run.torque_nm)
                                                   for run in ours])
    # What the patch rule alone moves: the closed form at our b against at Chrono's b, run by run
    shifted = [(run.slip, run.sinkage_m * c.sinkage_m / o.sinkage_m,
                run.drawbar_pull_n - o.drawbar_pull_n + c.drawbar_pull_n, run.torque_nm - o.torque_nm + c.torque_nm)
               for run, o, c in zip(ours, at_our_b, at_chrono_b)]
    rest = chrono_scm_reference.agreement(chrono, shifted)
    if port.worst <= GROUND_COLUMN_TOLERANCE:
        port_verdict = 'PASS'
    else:  # INFO: the documented patch rule makes the whole difference; FAIL: something else does
        port_verdict = 'INFO' if rest.worst <= GROUND_COLUMN_TOLERANCE else 'FAIL'
    our_b = float(np.nanmean([run.patch_b_m for run in ours]))
    out.rows.append(Check(
        group, f'our SCM against Chrono\'s SCMTerrain, slip {slips[0]:g}..{slips[-1]:g}, same wheel test',
        f'{chrono_scm_reference.SOURCE}, {b_text}',
        f'worst: sinkage {100 * port.sinkage:.1f} %, pull {100 * port.drawbar_pull:.1f} %, '
        f'torque {100 * port.torque:.1f} %',
        f'{port.worst:.1e}; {rest.worst:.1e} without the patch rule', port_verdict, error_value=port.worst,
        tolerance=GROUND_COLUMN_TOLERANCE,
        note=f'our patch is the loaded nodes (b {our_b * 1e3:.1f} mm), Chrono\'s every ray hit in its 0.1 m look-up '
             'window and active box (cobra_soil README, "Deliberate differences"); the second error takes out '
             'what that moves in the closed form. PASS: within the tolerance; INFO: the patch rule is the whole '
             'difference'))


def _pull_and_torque_rows(group: str, suffix: str, closed: tm.BekkerSoil, load: float, r: float, width: float,
                          slips: np.ndarray, runs: list, references: list, out: Results) -> tuple[float, float]:
    """Drawbar pull (slip 0.1-0.6), thrust alone, zero-pull slip and torque rows for one SCM variant
    (`suffix` names it in each row's check); returns (SCM, Wong-Reece) zero-pull slips."""
    b_note = 'b = width'
    in_range = [k for k, slip in enumerate(slips) if PULL_SLIP_RANGE[0] - 1e-9 <= slip <= PULL_SLIP_RANGE[1] + 1e-9]
    pull_errors = [relative_error(runs[k].drawbar_pull_n, references[k].drawbar_pull_n) for k in in_range]
    worst_k = in_range[int(np.argmax(np.abs(pull_errors)))]
    worst_pull = max(pull_errors, key=abs)
    max_abs = max(abs(runs[k].drawbar_pull_n - references[k].drawbar_pull_n) for k in in_range)
    out.rows.append(Check(group, f'drawbar pull, slip {PULL_SLIP_RANGE[0]:g}..{PULL_SLIP_RANGE[1]:g}{suffix}',
                          f'Wong-Reece, {b_note}: {references[worst_k].drawbar_pull_n:.1f} N at slip {slips[worst_k]:g}',
                          f'{runs[worst_k].drawbar_pull_n:.1f} N', f'worst {_pct(worst_pull)}',
                          verdict(abs(worst_pull) <= PULL_TOLERANCE), error_value=worst_pull, tolerance=PULL_TOLERANCE,
                          note=f'error relative to Wong-Reece DP at each slip; max |ΔDP| = {max_abs:.1f} N = '
                               f'{max_abs / load:.3f} W'))

    thrust_errors = [relative_error(runs[k].drawbar_pull_n, references[k].thrust_n) for k in in_range]
    worst_thrust = max(thrust_errors, key=abs)
    worst_tk = in_range[thrust_errors.index(worst_thrust)]
    out.rows.append(Check(group, f'drawbar pull vs thrust alone, slip {PULL_SLIP_RANGE[0]:g}..{PULL_SLIP_RANGE[1]:g}{suffix}',
                          f'Wong-Reece thrust r b ∫ τ cos θ dθ (= DP + compaction resistance), {b_note}: '
                          f'{references[worst_tk].thrust_n:.1f} N at slip {slips[worst_tk]:g}',
                          f'{runs[worst_tk].drawbar_pull_n:.1f} N', f'worst {_pct(worst_thrust)}', 'INFO',
                          error_value=worst_thrust,
                          note=('pressure along the wheel\'s surface normal (radial): the rut\'s compaction '
                                'resistance is drawbar resistance, as in Wong-Reece' if suffix else
                                'SCM presses along the undeformed terrain normal (vertical, as Chrono\'s SCM): the '
                                'rut\'s compaction resistance loads the driving torque, not the drawbar pull')))

    reference_zero = _wong_reece_zero_slip(closed, load, r, width)
    ours_zero = _zero_crossing(list(slips), [run.drawbar_pull_n for run in runs])
    if math.isnan(ours_zero) or math.isnan(reference_zero):
        both_none = math.isnan(ours_zero) and math.isnan(reference_zero)
        out.rows.append(Check(group, f'zero-drawbar-pull slip{suffix}',
                              f'Wong-Reece: {"none" if math.isnan(reference_zero) else f"{reference_zero:.3f}"}',
                              f'{"none in the slips run" if math.isnan(ours_zero) else f"{ours_zero:.3f}"}', 'n/a',
                              verdict(both_none), error_value=None, tolerance=ZERO_PULL_SLIP_TOLERANCE))
    else:
        difference = ours_zero - reference_zero
        out.rows.append(Check(group, f'zero-drawbar-pull slip{suffix}', f'Wong-Reece, {b_note}: {reference_zero:.3f}',
                              f'{ours_zero:.3f} (linear between slips run)', f'{difference:+.3f}',
                              verdict(abs(difference) <= ZERO_PULL_SLIP_TOLERANCE), error_value=difference,
                              tolerance=ZERO_PULL_SLIP_TOLERANCE))

    torque_differences = [run.torque_nm - ref.torque_nm for run, ref in zip(runs, references)]
    worst_t = int(np.argmax(np.abs(torque_differences)))
    torque_scale = max(abs(ref.torque_nm) for ref in references)
    torque_error = torque_differences[worst_t] / torque_scale
    out.rows.append(Check(group, f'driving torque, slip {slips[0]:g}..{slips[-1]:g}{suffix}',
                          f'Wong-Reece, {b_note}: {references[worst_t].torque_nm:.2f} N m at slip {slips[worst_t]:g}',
                          f'{runs[worst_t].torque_nm:.2f} N m', f'worst {_pct(torque_error)} of max |T|', 'INFO',
                          error_value=torque_error,
                          note=f'no target in issue 17; largest |ΔT| relative to the largest Wong-Reece torque '
                               f'{torque_scale:.2f} N m (T crosses 0 near slip 0); see the figure'))

    return ours_zero, reference_zero


def _wong_reece_zero_slip(closed: tm.BekkerSoil, load: float, r: float, width: float) -> float:
    try:
        return tm.zero_drawbar_slip(closed, load, r, width)
    except tm.TerramechanicsError:
        return math.nan


# ------------------------------------------------------------------------------- compliant

def compliant_checks(out: Results) -> None:
    params = load_compliant_params(_soil_file(COMPLIANT_FILE))
    group = f'compliant ground ({COMPLIANT_FILE}): 1 kg block 0.1 x 0.1 m, gravity tilted'
    stick_deg, slide_deg = 20.0, 35.0
    x_stick, _ = run_block_on_slope(params, stick_deg, 3.0)
    stretch = G_M_S2 * math.sin(math.radians(stick_deg)) / (4 * params.tangential_stiffness_n_m)
    creep = abs(x_stick[-1] - x_stick[-1000])
    out.rows.append(Check(group, f'block on {stick_deg:g}° (μ_d {params.friction_dynamic} < tan {math.tan(math.radians(stick_deg)):.2f} < μ_s {params.friction_static}): sticks',
                          f'spring stretch m g sin θ / (4 k_t) = {stretch * 1e6:.1f} µm; max |x| < 3x, creep 0',
                          f'max |x| {np.abs(x_stick).max() * 1e6:.1f} µm, last 1 s {creep * 1e6:.3f} µm',
                          f'{np.abs(x_stick).max() / stretch:.2f} x stretch',
                          verdict(np.abs(x_stick).max() < 3 * stretch and creep < 1e-3 * stretch),
                          error_value=float(np.abs(x_stick).max() / stretch), tolerance=3.0))
    _, v_slide = run_block_on_slope(params, slide_deg, 1.5)
    theta = math.radians(slide_deg)
    expected = G_M_S2 * (math.sin(theta) - params.friction_dynamic * math.cos(theta))
    acceleration = (v_slide[1499] - v_slide[499]) / 1.0
    e = relative_error(acceleration, expected)
    out.rows.append(Check(group, f'block on {slide_deg:g}° (tan θ {math.tan(theta):.2f} > μ_s): slides',
                          f'g (sin θ - μ_d cos θ) = {expected:.3f} m/s²', f'{acceleration:.3f} m/s² (0.5-1.5 s)', _pct(e),
                          verdict(abs(e) <= 0.01), error_value=e, tolerance=0.01))
    out.figures['compliant.png'] = lambda path: _plot_compliant(x_stick, v_slide, stretch, expected, stick_deg,
                                                                slide_deg, path)
    rolling_checks(out, params)


ROLLING_WHEEL = (6.0, 0.20, 0.12)          # the thesis's wheel (§19-23): mass [kg], radius, width [m]
ROLLING_CASES = ((0.0045, 0.1), (0.0045, 1.0), (0.003, 2.0))   # sinkage [m], speed [m/s]
ROLLING_POINTS = (90, 720)                 # points per rim circle: the answer must not depend on them


def rolling_checks(out: Results, params: CompliantParams) -> None:
    """The compliant law over a sampled rim (a per-area foundation) against the closed form of a rigid
    cylinder rolling on a Kelvin–Voigt Winkler foundation: load and the moment resisting the rolling."""
    mass_kg, radius_m, width_m = ROLLING_WHEEL
    area = params.contact_point_area_m2
    k_pa_m, c_pa_s_m = params.foundation_stiffness_pa_m, params.foundation_damping_pa_s_m
    group = (f'compliant ground over a sampled rim: wheel r {radius_m} m, width {width_m} m rolled at prescribed '
             f'sinkage and speed, k/A = {k_pa_m:.3g} Pa/m, d/A = {c_pa_s_m:.3g} Pa s/m '
             f'(A = contact_point_area_m2 {area:g} m²)')
    for sinkage_m, speed_m_s in ROLLING_CASES:
        ref = tm.kelvin_voigt_rolling(radius_m, width_m, sinkage_m, speed_m_s, k_pa_m, c_pa_s_m)
        ours = [rolling_rim_wrench(params, mass_kg, radius_m, width_m, sinkage_m, speed_m_s, n)
                for n in ROLLING_POINTS]
        errors = [relative_error(value, target) for load, moment in ours
                  for value, target in ((load, ref.load_n), (moment, ref.resisting_moment_n_m))]
        worst = max(errors, key=abs)
        out.rows.append(Check(
            group, f'sinkage {sinkage_m * 1e3:g} mm, {speed_m_s:g} m/s: load W and rolling moment M',
            f'Kelvin–Voigt foundation: W {ref.load_n:.1f} N, M {ref.resisting_moment_n_m:.3f} N m '
            f'(f = M / (r W) {ref.resisting_moment_n_m / (radius_m * ref.load_n):.3f})',
            ' / '.join(f'{n} pts: W {load:.1f} N, M {moment:.3f} N m'
                       for n, (load, moment) in zip(ROLLING_POINTS, ours)),
            f'worst {_pct(worst)}', verdict(abs(worst) <= 0.02), error_value=worst, tolerance=0.02,
            note='ground entering the contact is damped, ground leaving it is not pulled back: the damping '
                 'resists the rolling; at the rim\'s lowest point alone (the sim\'s shapes) it never acts'))


# ----------------------------------------------------------------------------------- rigid

RIGID_SLOPE_DEG = 24.0  # thesis §28's slope


def rigid_checks(out: Results) -> None:
    """The rigid ground (MuJoCo, thesis §7) with the robot on the 24° slope: at rest it creeps as
    the thesis's regularised friction does below v_c, carries its weight, and at mu below tan θ
    slides with Coulomb's acceleration."""
    from cobra_common.rotations import slope_rotation
    from cobra_description.robot_model import default_urdf_path, load_robot_model
    from cobra_sim.engine import CobraSim, SimParams
    from cobra_sim.terrain import RigidGround, RigidGroundParams
    theta = math.radians(RIGID_SLOPE_DEG)
    downhill, normal = slope_rotation(RIGID_SLOPE_DEG)[:, 0], slope_rotation(RIGID_SLOPE_DEG)[:, 2]
    robot = load_robot_model(default_urdf_path('cobra'))
    group = f'rigid ground (thesis §7, MuJoCo): COBRA straight on the {RIGID_SLOPE_DEG:g}° slope, gravity along -z'

    def settled(friction: float) -> CobraSim:
        ground = RigidGround(RigidGroundParams(friction_static=friction), slope_deg=RIGID_SLOPE_DEG)
        sim = CobraSim(robot, ground, SimParams(settle_duration_s=0.5), np.random.default_rng(0))
        sim.settle()
        return sim

    sim = settled(0.5)
    params = sim.terrain.params
    start = sim.center_of_mass()
    sim.run(2.0)
    creep = float((sim.center_of_mass() - start) @ downhill) / 2.0
    law = params.critical_slip_speed_m_s * math.tan(theta) / params.friction_static
    e = relative_error(creep, law)
    out.rows.append(Check(group, f'at rest, μ_s {params.friction_static} > tan θ {math.tan(theta):.3f}: creep over 2 s',
                          f'thesis law below v_c: v = v_c tan θ / μ_s = {law * 1e3:.3f} mm/s',
                          f'{creep * 1e3:.3f} mm/s (impratio {sim.model.opt.impratio:.2f})', _pct(e),
                          verdict(abs(e) <= 0.3), error_value=e, tolerance=0.3,
                          note='MuJoCo friction regularisation mapped onto the law for the median link: '
                               'cobra_sim.terrain.RigidGround.friction_impratio'))
    carried = float(sim.contact_wrenches_world()[:, :3].sum(axis=0) @ normal)
    weight = robot.total_mass_kg * G_M_S2 * math.cos(theta)
    e = relative_error(carried, weight)
    out.rows.append(Check(group, 'at rest: ground reaction along the slope normal', f'm g cos θ = {weight:.2f} N',
                          f'{carried:.2f} N', _pct(e), verdict(abs(e) <= 0.03), error_value=e, tolerance=0.03))
    friction = 0.3
    sim = settled(friction)
    times, along = [], []
    for _ in range(100):
        sim.run(0.01)
        times.append(sim.time_s)
        along.append(float(sim.center_of_mass() @ downhill))
    acceleration = 2.0 * np.polyfit(times[20:], along[20:], 2)[0]
    expected = G_M_S2 * (math.sin(theta) - friction * math.cos(theta))
    e = relative_error(acceleration, expected)
    out.rows.append(Check(group, f'μ {friction} < tan θ: slides (0.2-1.0 s)', f'g (sin θ - μ cos θ) = {expected:.3f} m/s²',
                          f'{acceleration:.3f} m/s²', _pct(e), verdict(abs(e) <= 0.03), error_value=e, tolerance=0.03,
                          note='one Coulomb coefficient per contact: MuJoCo has no μ_s → μ_d drop (the compliant '
                               'ground has it)'))
    _rolling_check(out)


def _rolling_check(out: Results) -> None:
    """One COBRA module (link_1 of the URDF) rolling on flat rigid ground at 0.5 m/s: the rolling
    resistance a N slows it at a g / (r (1 + I/(m r²))) while it rolls without slip."""
    from cobra_description.robot_model import RobotModel, default_urdf_path, load_robot_model
    from cobra_sim.engine import CobraSim, SimParams
    from cobra_sim.terrain import RigidGround
    link = load_robot_model(default_urdf_path('cobra')).links['link_1']
    radius_m = link.collisions[0].size[0]
    module = RobotModel('module', {link.name: link}, [], link.name)
    sim = CobraSim(module, RigidGround(), SimParams(initial_height_m=radius_m, imu_frame=link.name,
                                                      settle_duration_s=1.0), np.random.default_rng(0))
    sim.settle()
    speed_m_s, window_s = 0.5, 4.0
    sim.data.qvel[:] = 0.0
    sim.data.qvel[1], sim.data.qvel[3] = -speed_m_s, speed_m_s / radius_m  # rolls about its axis (x) along -y
    sim.run(0.5)
    start = -sim.data.qvel[1]
    sim.run(window_s)
    deceleration = (start + sim.data.qvel[1]) / window_s
    resistance_m = sim.terrain.params.rolling_resistance_m
    inertia_ratio = link.inertial.inertia[0, 0] / (link.inertial.mass_kg * radius_m ** 2)
    expected = resistance_m * G_M_S2 / (radius_m * (1.0 + inertia_ratio))
    e = relative_error(deceleration, expected)
    out.rows.append(Check('rigid ground, flat: one COBRA module (link_1) rolling at 0.5 m/s',
                          f'rolling resistance a = {resistance_m * 1e3:g} mm: slows (0.5-4.5 s)',
                          f'a g / (r (1 + I/(m r²))) = {expected:.4f} m/s²', f'{deceleration:.4f} m/s²', _pct(e),
                          verdict(abs(e) <= 0.05), error_value=e, tolerance=0.05,
                          note='not in the thesis law (ours: a straight snake of cylinders otherwise rolls on '
                               'after a stop); viscous below ~6 cm/s (MuJoCo regularisation)'))


# --------------------------------------------------------------------------------- figures

def _pyplot():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    return plt


def _plot_plates(curves: list[dict], path: Path) -> None:
    plt = _pyplot()
    soils = list(dict.fromkeys(c['soil'] for c in curves))
    columns = 2
    rows = math.ceil(len(soils) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(10, 4 * rows), squeeze=False)
    for axis, soil in zip(axes.flat, soils):
        for c in (c for c in curves if c['soil'] == soil):
            z = np.linspace(0, 0.04, 100)
            line, = axis.plot(z * 1e3, tm.bekker_pressure_pa(c['closed'], z, c['b_m']) / 1e3,
                              label=f"Bekker, width {c['width_m']:.2f} m (b {c['b_m'] * 1e3:.0f} mm)")
            axis.plot(c['sinkage_m'] * 1e3, c['pressure_pa'] / 1e3, 'o', color=line.get_color(), label='SCM')
        axis.set_title(soil)
        axis.set_xlabel('sinkage [mm]')
        axis.set_ylabel('plate pressure [kPa]')
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7)
    for axis in list(axes.flat)[len(soils):]:
        axis.set_visible(False)
    figure.tight_layout()
    save_figure(figure, path)


def _plot_unload_reload(traces: list[dict], path: Path) -> None:
    plt = _pyplot()
    figure, axes = plt.subplots(1, len(traces), figsize=(6 * len(traces), 4.5), squeeze=False)
    for axis, t in zip(axes.flat, traces):
        p = t['path']
        axis.plot(p[:, 0] * 1e3, p[:, 1] / 1e3, '.', ms=2, label='SCM plate (load, unload, reload, load on)')
        z = np.linspace(0, p[:, 0].max() * 1.05, 100)
        axis.plot(z * 1e3, tm.bekker_pressure_pa(t['closed'], z, t['b_m']) / 1e3, 'k-', lw=1, label='Bekker curve')
        zu = np.linspace(t['loaded_m'] - t['pressure_pa'] / t['elastic_k_pa_m'], t['loaded_m'], 20)
        axis.plot(zu * 1e3, (t['pressure_pa'] - t['elastic_k_pa_m'] * (t['loaded_m'] - zu)) / 1e3, 'r--',
                  label='elastic line, slope K')
        axis.set_title(t['soil'])
        axis.set_xlabel('sinkage [mm]')
        axis.set_ylabel('plate pressure [kPa]')
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7)
    figure.tight_layout()
    save_figure(figure, path)


def _plot_janosi(traces: list, closed: tm.BekkerSoil, soil: SoilParams, length_m: float, area: float,
                 path: Path) -> None:
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(8, 5))
    travel = np.linspace(0, max(t.travel_m.max() for _, t in traces), 200)
    fraction = [tm.plate_drag_fraction(s, length_m, closed.janosi_k_m) for s in travel]
    axis.plot(travel * 1e3, fraction, 'k-', lw=2, label='Janosi over the plate (closed form)')
    for speed, t in traces:
        limit = soil.mohr_cohesion_pa * area + t.normal_n * closed.tan_phi
        axis.plot(t.travel_m * 1e3, t.traction_n / limit, label=f'SCM {speed * 1e3:g} mm/s')
    axis.set_xlabel('drag travel [mm]')
    axis.set_ylabel('traction / (c A + F_n tan φ) [-]')
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8)
    figure.tight_layout()
    save_figure(figure, path)


def _plot_hold(traces: list, path: Path) -> None:
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(8, 5))
    colours = [*plt.get_cmap('tab10').colors, 'black', 'dimgrey']   # more cases than the default cycle's 10
    for index, (label, t, j_star) in enumerate(traces):
        line, = axis.plot(t.time_s, t.displacement_m * 1e3, label=label, color=colours[index % len(colours)])
        if j_star > 0:
            axis.axhline(j_star * 1e3, color=line.get_color(), ls='--', lw=0.8)
    axis.set_xlabel('time after release (load ramped over the first 2 s) [s]')
    axis.set_ylabel('displacement along the side load [mm] (dashed: j*)')
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8)
    figure.tight_layout()
    save_figure(figure, path)


# The three panels of a single-wheel figure: result field, scale to the axis unit, axis label.
WHEEL_SERIES = (('sinkage_m', 1e3, 'sinkage [mm]'), ('drawbar_pull_n', 1.0, 'drawbar pull [N]'),
                ('torque_nm', 1.0, 'driving torque [N m]'))


def _plot_wheel(name: str, load: float, runs: list, runs_normal: list, references: list, with_patch_b: list,
                patch_b: float, z0: float, closed: tm.BekkerSoil, r: float, width: float, path: Path) -> None:
    plt = _pyplot()
    slips = [run.slip for run in runs]
    dense = np.linspace(min(slips), max(slips), 60)
    curve = [tm.wong_reece_at_load(closed, load, s, r, width) for s in dense]
    curve_patch_b = [tm.wong_reece_at_load(closed, load, s, r, width, bekker_b_m=patch_b) for s in dense] \
        if with_patch_b else []
    figure, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for axis, (key, scale, label) in zip(axes, WHEEL_SERIES):
        axis.plot(dense, [getattr(f, key) * scale for f in curve], 'k-', label=f'Wong-Reece, b = width {width} m')
        if curve_patch_b:
            axis.plot(dense, [getattr(f, key) * scale for f in curve_patch_b], 'k:',
                      label=f'Wong-Reece, b = SCM patch 2A/L {patch_b * 1e3:.0f} mm')
        if key == 'drawbar_pull_n':
            axis.plot(dense, [f.thrust_n for f in curve], 'k--', lw=0.8, label='Wong-Reece thrust alone (DP + compaction)')
        axis.plot(slips, [getattr(run, key) * scale for run in runs], 'o', color='C1',
                  label='SCM single-wheel test (pressure vertical, Chrono; default)')
        axis.plot(slips, [getattr(run, key) * scale for run in runs_normal], 's', mfc='none', color='C0',
                  label='SCM, pressure along the surface normal (option)')
    axes[0].axhline(z0 * 1e3, color='C2', ls='--', label='Bekker towed-wheel z0 (b = width)')
    _finish_wheel_figure(figure, axes, f'{name}: wheel r {r} m, width {width} m, load {load:.1f} N', path)


def _plot_ground_column(name: str, load: float, runs: list, runs_normal: list, columns: list, columns_normal: list,
                       references: list, r: float, width: float, path: Path) -> None:
    """The single-wheel runs (markers) on the closed form of SCM's own model (lines), both pressure
    directions, and Wong-Reece (grey) for scale."""
    plt = _pyplot()
    slips = [run.slip for run in runs]
    figure, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for axis, (key, scale, label) in zip(axes, WHEEL_SERIES):
        axis.plot(slips, [getattr(f, key) * scale for f in references], '-', color='grey', lw=0.8,
                  label=f'Wong-Reece, b = width {width} m (for scale)')
        for variant_runs, variant_columns, colour, marker, line, what in (
                (runs, columns, 'C1', 'o', '-', 'pressure vertical (Chrono)'),
                (runs_normal, columns_normal, 'C0', 's', '--', 'pressure along the surface normal')):
            axis.plot(slips, [getattr(f, key) * scale for f in variant_columns], line, color=colour,
                      label=f'ground-column closed form, {what}')
            axis.plot(slips, [getattr(run, key) * scale for run in variant_runs], marker, mfc='none', color=colour,
                      label=f'SCM single-wheel test, {what}')
    _finish_wheel_figure(figure, axes, f'{name}: SCM against the closed form of its own model, soil columns fixed '
                         f'in the ground (wheel r {r} m, width {width} m, load {load:.1f} N)', path)


def _finish_wheel_figure(figure: object, axes: Sequence[object], title: str, path: Path) -> None:
    """Axis labels (`WHEEL_SERIES`), zero line of the pull, one legend for the three panels, title, save."""
    for axis, (_, _, label) in zip(axes, WHEEL_SERIES):
        axis.set_xlabel('slip i = 1 - v/(r ω) [-]')
        axis.set_ylabel(label)
        axis.grid(alpha=0.3)
    axes[1].axhline(0.0, color='grey', lw=0.8)
    handles: dict[str, object] = {}
    for axis in axes:
        for handle, label in zip(*axis.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    figure.legend(list(handles.values()), list(handles), loc='lower center', ncol=3, fontsize=8)
    figure.suptitle(title)
    figure.tight_layout(rect=(0, 0.12, 1, 1))
    save_figure(figure, path)


def _plot_compliant(x_stick: np.ndarray, v_slide: np.ndarray, stretch: float, expected: float, stick_deg: float,
                    slide_deg: float, path: Path) -> None:
    plt = _pyplot()
    figure, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    t_stick = np.arange(1, x_stick.size + 1) * 1e-3
    axes[0].plot(t_stick, x_stick * 1e6, label=f'block on {stick_deg:g}°')
    axes[0].axhline(stretch * 1e6, color='k', ls='--', label='static spring stretch')
    axes[0].set_xlabel('time [s]')
    axes[0].set_ylabel('downhill displacement [µm]')
    t_slide = np.arange(1, v_slide.size + 1) * 1e-3
    axes[1].plot(t_slide, v_slide, label=f'block on {slide_deg:g}°')
    axes[1].plot(t_slide, v_slide[499] + expected * (t_slide - t_slide[499]), 'k--', label='g (sin θ - μ_d cos θ) t')
    axes[1].set_xlabel('time [s]')
    axes[1].set_ylabel('downhill speed [m/s]')
    for axis in axes:
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    figure.tight_layout()
    save_figure(figure, path)


# ---------------------------------------------------------------------------------- output

def format_table(rows: Sequence[Check]) -> str:
    """The table: one line per check, its note (if any) on the next line."""
    headers = ('check', 'closed form or reference', 'ours', 'error', 'verdict')
    widths = [max(len(headers[0]), *(len(r.check) for r in rows)), max(len(headers[1]), *(len(r.reference) for r in rows)),
              max(len(headers[2]), *(len(r.ours) for r in rows)), max(len(headers[3]), *(len(r.error) for r in rows)), 7]
    lines = ['  '.join(h.ljust(w) for h, w in zip(headers, widths)), '  '.join('-' * w for w in widths)]
    group = None
    for r in rows:
        if r.group != group:
            group = r.group
            lines.append(f'[{group}]')
        lines.append('  '.join(v.ljust(w) for v, w in zip((r.check, r.reference, r.ours, r.error, r.verdict), widths)))
        if r.note:
            lines.append(f'    ({r.note})')
    return '\n'.join(lines)


def _jsonable(value: object) -> object:
    """Plain JSON: numpy values as Python ones, nan/inf as null (strict JSON has no NaN)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, (np.floating, np.integer)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# ------------------------------------------------------------------------------------ main

def _soil_dirs() -> list[Path]:
    """config/soil beside the cobra_soil that is imported (a source checkout), then its installed
    share: the files that match the library in use come first (cobra_soil says where they are)."""
    return soil_config_dirs(source_first=True)


def _soil_file(file_name: str) -> Path:
    for directory in _soil_dirs():
        candidate = directory / file_name
        if candidate.is_file():
            return candidate
    raise UsageError(f'soil file {file_name} not found in {", ".join(str(d) for d in _soil_dirs())}; '
                     f'give a soil name from config/soil/')


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--quick', action='store_true',
                        help='fewer widths, speeds and slips, same checks (under 3 min on 2 cores)')
    parser.add_argument('--out', default=str(Path('out') / 'validate_terrain'), help='folder for the JSON and PNGs')
    parser.add_argument('--soils', default=','.join(DEFAULT_SOILS),
                        help='comma-separated SCM soil files of config/soil (without .yaml) for plates and wheels')
    return parser.parse_args(argv)


def load_soils(spec: str) -> dict[str, ScmParams]:
    names = [n.strip() for n in spec.split(',') if n.strip()]
    if not names:
        raise UsageError('--soils is empty: give at least one soil of config/soil, e.g. loose_sand')
    soils = {}
    for name in names:
        try:
            soils[name] = load_scm_params(_soil_file(f'{name}.yaml'))
        except SoilConfigError as error:
            raise UsageError(f'--soils {name}: {error}') from error
    return soils


def run_all(soils: dict[str, ScmParams], plan: Plan, log: Callable[[str], None] = print) -> Results:
    results = Results()
    steps: list[tuple[str, Callable[[], None]]] = [
        ('Bekker plates', lambda: plate_checks(soils, plan, results)),
        ('unload/reload', lambda: unload_reload_checks(soils, results)),
        ('Janosi drags', lambda: janosi_drag_checks(soils, plan, results)),
        ('static holds', lambda: hold_checks(soils, plan, results)),
        *[(f'single wheel on {name}', lambda name=name: wheel_checks(name, soils[name], plan, results))
          for name in soils],
        ('compliant ground', lambda: compliant_checks(results)),
        ('rigid ground', lambda: rigid_checks(results)),
    ]
    for label, step in steps:
        started = time.perf_counter()
        try:
            step()
        except tm.TerramechanicsError as error:   # a soil the closed forms cannot describe at this load
            results.rows.append(Check(label, 'closed form', str(error), 'n/a', 'n/a', 'FAIL',
                                      note='the closed form has no solution here: choose another soil or load'))
        log(f'  {label}: {time.perf_counter() - started:.1f} s')
    return results


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise UsageError(f'--out {out} is a file: give a folder')
        soils = load_soils(args.soils)
        _soil_file(COMPLIANT_FILE)
    except UsageError as error:
        print(f'validate_terrain: {error}', file=sys.stderr)
        return 2
    plan = Plan.make(args.quick)
    started = time.perf_counter()
    print(f'validate_terrain{" --quick" if args.quick else ""}: soils {", ".join(soils)}')
    results = run_all(soils, plan)
    print()
    print(format_table(results.rows))
    failed = [r for r in results.rows if r.verdict == 'FAIL']
    passed = sum(r.verdict == 'PASS' for r in results.rows)
    if failed:   # the table is wide: the failing rows again, one line each, as pytest's short summary
        print('\nfailed:')
        for row in failed:
            print(f'  {row.group.split(":")[0]}: {row.check}: {row.error}')
    print(f'\n{passed} passed, {len(failed)} failed, {sum(r.verdict == "INFO" for r in results.rows)} info; '
          f'{time.perf_counter() - started:.0f} s')
    out.mkdir(parents=True, exist_ok=True)
    report = {'command': ' '.join(['python -m cobra_experiments.validate_terrain',
                                   *(argv if argv is not None else sys.argv[1:])]),
              'quick': args.quick, 'rows': [asdict(r) for r in results.rows], 'data': results.data}
    write_atomically(out / 'validate_terrain.json',
                     lambda p: p.write_text(json.dumps(_jsonable(report), indent=1, allow_nan=False) + '\n'))
    for file_name, plot in results.figures.items():
        write_atomically(out / file_name, plot)
    print(f'wrote {out / "validate_terrain.json"} and {len(results.figures)} figures in {out}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
