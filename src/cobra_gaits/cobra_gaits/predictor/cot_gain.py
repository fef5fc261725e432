"""The geometric-mechanics paper §V-B on the predictor: how much penalising dissipation (-Delta_CoM + c E)
cuts the cost of transport.

`python -m cobra_gaits.predictor.cot_gain [--starts 3] [--c 0 0.5 1 1.5 1.7 2 2.5]`

The paper's claim (§V-B, Fig. 9): three gaits A, B, C optimised for c in [0, 2.5]; measured on the
robot (battery power sensor, 9 trials per point), the CoT of gait A at c = 1.7 is 23 % (23.2 % in
the conclusion) below that of the same gait optimised with c = 0. Its setting here: the paper's
robot as the predictor sees it (12 tracked points over 0.92 m, 1.38 kg split evenly as the
weights w_k in kg, eps = 0.1865, 50 shapes per cycle); each start gait is optimised with c = 0
(the reference, the paper's naive loss) and with each c; the gain is 1 - CoT_c / CoT_0 with
CoT = E_J / (m g d): at a fixed cycle period the dissipated energy in joules is proportional to
Eq. 4's E (cycle_energy_j), so the ratio is (E_c / d_c) / (E_0 / d_0) whatever the period. The
gaits A, B, C are not given in the paper: the starts are draws of serpenoid.random_gaits (seed 0);
the third keeps its spatial frequency fixed, as the paper's gait C did.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cobra_gaits.predictor.curve import PredictorError
from cobra_gaits.predictor.optimise import GaitModel, OptimisedGait, optimise_gait
from cobra_gaits.predictor.serpenoid import EllipticGait, random_gaits

PAPER_ROBOT_LENGTH_M = 0.92
PAPER_ROBOT_MASS_KG = 1.38
PAPER_EPSILON = 0.1865
PAPER_POINTS = 12  # markers at the 10 servo axes, the head and the tail
PAPER_GAIN_AT_1_7 = 0.23  # gait A, c = 1.7, measured CoT (§V-B); 23.2 % in §VI
DEFAULT_COEFFICIENTS = (0.0, 0.5, 1.0, 1.5, 1.7, 2.0, 2.5)
EXIT_BAD_INPUT = 2


def paper_model() -> GaitModel:
    return GaitModel(epsilon=PAPER_EPSILON, n_steps=50, n_vertices=PAPER_POINTS, length_m=PAPER_ROBOT_LENGTH_M,
                     weights=np.full(PAPER_POINTS, PAPER_ROBOT_MASS_KG / PAPER_POINTS))


def energy_per_distance(optimum: OptimisedGait) -> float:
    """E / Delta_CoM of a cycle: proportional to CoT at a fixed period (inf when it does not move)."""
    return optimum.energy / optimum.com_displacement_m if optimum.com_displacement_m > 1e-12 else float('inf')


@dataclass(frozen=True)
class GainRow:
    start: str
    coefficient: float
    displacement_m: float
    energy: float
    cot_gain: float  # 1 - CoT_c / CoT_0 (positive: cheaper than the c = 0 optimum)


def cot_gains(start: EllipticGait, label: str, coefficients: Sequence[float], model: GaitModel,
              fixed_xi: float | None = None, max_evaluations: int = 600) -> list[GainRow]:
    """Optimise `start` for each c; the gain of each against its c = 0 optimum."""
    reference = optimise_gait(start, model, 0.0, fixed_xi, max_evaluations)
    reference_cost = energy_per_distance(reference)
    rows = []
    for coefficient in coefficients:
        optimum = reference if coefficient == 0.0 else optimise_gait(start, model, coefficient, fixed_xi,
                                                                     max_evaluations)
        gain = 1.0 - energy_per_distance(optimum) / reference_cost
        rows.append(GainRow(label, float(coefficient), optimum.com_displacement_m, optimum.energy, float(gain)))
    return rows


def start_gaits(count: int) -> list[tuple[str, EllipticGait, float | None]]:
    """(label, start gait, fixed xi or None): draws of random_gaits(seed 0); the third fixes xi."""
    labels = 'ABCDEFGH'
    return [(labels[i] if i < len(labels) else str(i), gait, gait.xi if i == 2 else None)
            for i, gait in enumerate(random_gaits(count, seed=0))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog='python -m cobra_gaits.predictor.cot_gain',
                                     description=__doc__.split('\n')[0])
    parser.add_argument('--starts', type=int, default=3, help='start gaits (A, B, C: the third with fixed xi)')
    parser.add_argument('--c', type=float, nargs='+', default=list(DEFAULT_COEFFICIENTS),
                        help='dissipation coefficients c >= 0')
    parser.add_argument('--max-evaluations', type=int, default=600, help='Powell evaluations per optimisation')
    args = parser.parse_args(argv)
    if args.starts < 1 or args.max_evaluations < 1 or any(c < 0.0 for c in args.c):
        print('cot_gain: error: --starts and --max-evaluations must be >= 1 and every --c >= 0', file=sys.stderr)
        return EXIT_BAD_INPUT
    model = paper_model()
    print(f'predictor: eps {PAPER_EPSILON}, {PAPER_POINTS} points over {PAPER_ROBOT_LENGTH_M} m, '
          f'w_k = {PAPER_ROBOT_MASS_KG}/{PAPER_POINTS} kg, 50 shapes per cycle; gain = 1 - CoT_c / CoT_(c=0)')
    print(f'{"gait":<5} {"c":>4} {"dCoM m":>7} {"E":>9} {"CoT gain":>8}')
    best: dict[float, list[float]] = {}
    try:
        for label, start, fixed_xi in start_gaits(args.starts):
            for row in cot_gains(start, label, args.c, model, fixed_xi, args.max_evaluations):
                best.setdefault(row.coefficient, []).append(row.cot_gain)
                print(f'{row.start + ("*" if fixed_xi else ""):<5} {row.coefficient:4.1f} {row.displacement_m:7.3f} '
                      f'{row.energy:9.4f} {100 * row.cot_gain:7.1f}%')
    except PredictorError as error:
        print(f'cot_gain: error: {error}', file=sys.stderr)
        return EXIT_BAD_INPUT
    print('(* = spatial frequency fixed, as the paper\'s gait C)')
    if 1.7 in best:
        print(f'c = 1.7: paper {100 * PAPER_GAIN_AT_1_7:.0f} % (gait A, measured on the robot); ours (predicted) '
              + ', '.join(f'{100 * g:.1f} %' for g in best[1.7]))
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
