"""The shared track-against-reference drawing: labelled axes, and an error axis that does not
blow rounding noise up to a scale of 1e-16 when the tracks are the same."""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from cobra_common.track_error_figure import draw_track_error


def draw(errors_m: np.ndarray, unit: str) -> tuple[object, object]:
    figure = Figure()
    FigureCanvasAgg(figure)
    plane, error = figure.subplots(1, 2)
    xy = np.column_stack([np.zeros(len(errors_m)), np.linspace(0.0, 1.0, len(errors_m))])
    draw_track_error(plane, error, xy, xy, np.arange(len(errors_m)) * 0.1, errors_m, 'truth', 'odom',
                     'time [s]', unit=unit)
    return plane, error


def test_identical_tracks_get_an_error_axis_of_a_millimetre():
    _, error = draw(np.full(50, 3e-17), 'cm')
    assert error.get_ylim() == (0.0, 0.1)  # 1 mm in cm, not 1e-16
    assert error.get_ylabel() == 'position error [cm]' and error.get_xlabel() == 'time [s]'


def test_a_real_error_sets_the_axis_and_the_labels_carry_units():
    plane, error = draw(np.linspace(0.0, 0.02, 50), 'm')
    assert error.get_ylim()[1] == 1.1 * 0.02
    assert (plane.get_xlabel(), plane.get_ylabel()) == ('x [m]', 'y [m]')
    assert 'RMSE (ATE)' in [text.get_text() for text in error.get_legend().get_texts()][1]
