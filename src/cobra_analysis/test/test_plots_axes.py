"""The cycle axes of the report's figures stay readable however many cycles a run has."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from cobra_analysis.plots import _cycle_axis


@pytest.mark.parametrize('cycles', [3, 6, 118])
def test_a_cycle_axis_has_whole_numbers_and_at_most_a_dozen_ticks(cycles: int) -> None:
    figure = Figure()
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.bar(np.arange(cycles), np.ones(cycles))
    _cycle_axis(axes)
    figure.canvas.draw()
    ticks = [t for t in axes.get_xticks() if axes.get_xlim()[0] <= t <= axes.get_xlim()[1]]
    assert len(ticks) <= 13 and all(float(t).is_integer() for t in ticks)
    assert axes.get_xlabel() == 'steady cycle'
    if cycles <= 6:  # a few cycles: each has its own tick
        assert len(ticks) == cycles
