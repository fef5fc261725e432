"""Figure output shared by the experiment commands: written whole or not at all."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure


def save_figure(figure: Figure, path: Path, dpi: int = 110) -> None:
    """Save to a temporary name beside `path`, then rename: an interrupted run never leaves a
    half-written PNG under the final name."""
    import matplotlib.pyplot as plt
    tmp = path.with_name(path.stem + '.tmp.png')
    figure.savefig(tmp, dpi=dpi)
    plt.close(figure)
    tmp.replace(path)
