"""The geometric-mechanics paper §V-B on the predictor: penalising dissipation trades displacement for energy, and the
CoT gain is measured against the c = 0 optimum of the same start."""

from __future__ import annotations

import pytest

from cobra_gaits.predictor.cot_gain import cot_gains, main, paper_model, start_gaits


def test_penalty_lowers_energy_per_distance_against_the_c0_optimum() -> None:
    label, start, _ = start_gaits(1)[0]
    reference, penalised = cot_gains(start, label, [0.0, 1.7], paper_model(), max_evaluations=300)
    assert reference.cot_gain == 0.0
    assert penalised.energy < reference.energy  # c > 0 buys less dissipation ...
    assert penalised.displacement_m <= reference.displacement_m + 1e-9  # ... with no more displacement
    assert penalised.cot_gain == pytest.approx(
        1.0 - (penalised.energy / penalised.displacement_m) / (reference.energy / reference.displacement_m))
    assert penalised.cot_gain > 0.0


def test_bad_coefficient_exits_2(capsys: pytest.CaptureFixture) -> None:
    assert main(['--c', '-1']) == 2
    assert '--c' in capsys.readouterr().err
