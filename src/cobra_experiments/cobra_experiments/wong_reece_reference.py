"""Wong-Reece single-wheel results from an implementation we did not write, to check ours against.

`terramechanics.wong_reece_at_load` is the reference the single-wheel rows of validate_terrain are
judged by, so it must not be checked only by its own tests. The table below is the output of
WheelSoil.m from github.com/melanz/wheel-soil (D. Melanz, a Project Chrono developer; commit
f1118b2), a MATLAB implementation of Wong & Reece (1967), run unchanged in GNU Octave 7.3 by
scripts/reference/wong_reece_octave.m (which says how). It solves the entry angle with fsolve and
integrates with adaptive quadrature; ours uses Gauss-Legendre and bisection, so agreement to ~1e-6
means the two read the same equations the same way. Cases: that repository's own example soil,
and our three soils under the thesis's wheel (r 0.20 m, b 0.12 m) at their validate_terrain loads.
Its pressure law is Reece's k_eq (z/b)^n, Bekker's with k_c = 0 and k_phi = k_eq / b^n, so the
soils are given here in Bekker's terms: k_eq = (k_c/b + k_phi) b^n. Slip >= 0 only: it has no
skid law.
"""

from __future__ import annotations

from dataclasses import dataclass

from cobra_experiments.terramechanics import BekkerSoil, wong_reece_at_load

SOURCE = 'melanz/wheel-soil WheelSoil.m (f1118b2) in GNU Octave 7.3'
WheelResults = dict[float, tuple[float, float, float]]  # slip -> (sinkage m, drawbar pull N, driving torque N m)


@dataclass(frozen=True)
class WheelCase:
    """One soil and wheel, and per slip what the independent implementation gives."""

    name: str
    soil: BekkerSoil
    load_n: float
    radius_m: float
    width_m: float
    c1: float
    c2: float
    results: WheelResults


CASES: tuple[WheelCase, ...] = (
    WheelCase('wheel_soil_example', BekkerSoil(0.0, 2.54e5 / 0.16 ** 1.387, 1.387, 139.28, 34.74, 5.15e-4),
              130.0, 0.13, 0.16, 0.43, 0.32,
              {0.1: (0.02863919417, 38.60526806, 10.29670369),
               0.3: (0.0307362975, 34.6496928, 10.23401762),
               0.6: (0.03517222865, 27.3828285, 10.13997517)}),
    WheelCase('loose_sand', BekkerSoil(25.0, 50000.0, 0.6, 25.0, 28.0, 0.04), 58.86, 0.20, 0.12, 0.4, 0.15,
              {0.0: (0.03591573751, -13.03572489, 0.898477842),
               0.1: (0.03586532536, -9.510610636, 1.59973056),
               0.3: (0.03598149056, -4.373789005, 2.641568127),
               0.6: (0.0365756639, 0.2569113434, 3.629235881)}),
    WheelCase('lete_sand', BekkerSoil(102000.0, 5301000.0, 0.79, 1300.0, 31.1, 0.01), 1530.0, 0.20, 0.12, 0.4, 0.15,
              {0.0: (0.01900710743, -129.8696096, 38.18125889),
               0.1: (0.01882818918, 108.3506323, 85.17803782),
               0.3: (0.01884997252, 328.082275, 129.3107141),
               0.6: (0.0193183596, 431.7203884, 151.8410663)}),
    WheelCase('clayey_soil', BekkerSoil(13190.0, 692150.0, 0.5, 4140.0, 13.0, 0.01), 760.0, 0.20, 0.12, 0.4, 0.15,
              {0.0: (0.01915782557, -119.3073711, 8.833968453),
               0.1: (0.0191068631, -62.51927725, 20.12882609),
               0.3: (0.01923271605, -9.155986999, 31.06878882),
               0.6: (0.01970800099, 16.43257489, 37.03381857)}),
)


@dataclass(frozen=True)
class Agreement:
    """Worst differences of ours from a reference table over its slips."""

    sinkage: float       # relative
    drawbar_pull: float  # of the largest |pull| in the reference
    torque: float        # of the largest |torque| in the reference

    @property
    def worst(self) -> float:
        return max(self.sinkage, self.drawbar_pull, self.torque)


def compare(reference: WheelResults, ours: WheelResults, source: str) -> Agreement:
    """Ours against a reference table from `source`, slip by slip (ours must have every slip of the
    reference; slips match to 1e-6, as a slip computed from the wheel's speeds may differ in the last bits)."""
    by_slip = {round(slip, 6): values for slip, values in ours.items()}
    missing = [slip for slip in reference if round(slip, 6) not in by_slip]
    if missing:
        raise ValueError(f'no result of ours at slip {missing} to compare with {source}')
    pull_scale = max(abs(pull) for _, pull, _ in reference.values())
    torque_scale = max(abs(torque) for _, _, torque in reference.values())
    sinkage = pull = torque = 0.0
    for slip, (their_sinkage, their_pull, their_torque) in reference.items():
        our_sinkage, our_pull, our_torque = by_slip[round(slip, 6)]
        sinkage = max(sinkage, abs(our_sinkage / their_sinkage - 1.0))
        pull = max(pull, abs(our_pull - their_pull) / pull_scale)
        torque = max(torque, abs(our_torque - their_torque) / torque_scale)
    return Agreement(sinkage, pull, torque)


def case(name: str) -> WheelCase | None:
    return next((c for c in CASES if c.name == name), None)


def agreement(wheel: WheelCase) -> Agreement:
    """Ours (terramechanics.wong_reece_at_load) against the table."""
    ours = {slip: wong_reece_at_load(wheel.soil, wheel.load_n, slip, wheel.radius_m, wheel.width_m, wheel.c1,
                                     wheel.c2) for slip in wheel.results}
    return compare(wheel.results, {slip: (f.sinkage_m, f.drawbar_pull_n, f.torque_nm) for slip, f in ours.items()},
                   SOURCE)
