"""The experiments' figure writer: the PNG appears whole under its name, no temporary is left."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

from cobra_experiments.figures import save_figure  # noqa: E402


def test_figure_is_written_whole_and_closed(tmp_path: Path) -> None:
    figure, axes = plt.subplots()
    axes.plot([0.0, 1.0], [0.0, 2.0])
    path = tmp_path / 'speed.png'
    save_figure(figure, path)
    assert path.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    assert [p.name for p in tmp_path.iterdir()] == ['speed.png']
    assert not plt.fignum_exists(figure.number)
