"""Render a run's deformed terrain from its bag: height and sinkage colour maps of the last
terrain/heightmap with the head path from ground_truth/odom (ruts and berms, as thesis Fig. 6/18).

    python -m cobra_experiments.render_terrain BAG --out terrain.png

BAG is a rosbag2 directory (the logger's MCAP bag or an SQLite3 bag). Bad input (no bag, no
heightmap, no head path, an unwritable output) prints one message and exits 2; the PNG is
written to a temporary name and renamed, so a failure leaves nothing half-written.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from cobra_common.atomic_file import write_atomically
from cobra_common.bags import BagReadError, connections_named, open_bag, stamp_s
from cobra_common.heightmap_cloud import HEIGHTMAP_TOPIC, HeightmapCloudError, cloud_points

TRUTH_TOPIC = 'ground_truth/odom'
MARGIN_M = 0.15  # shown around the deformed area and the head path


class RenderError(ValueError):
    """Input that cannot be rendered; the message says what and how to fix it."""


@dataclass(frozen=True)
class TerrainRecord:
    points: dict[str, np.ndarray]   # x, y, z [m], sinkage [m], pressure [Pa] of the deformed nodes
    stamp_s: float                  # header stamp of that heightmap
    head_xy_m: np.ndarray           # [n, 2] ground-truth head path
    frame_id: str


def read_terrain(bag: Path) -> TerrainRecord:
    """The last heightmap cloud and the ground-truth head path of an SCM run's bag."""
    try:
        cloud, head = _last_cloud_and_head(bag)
    except BagReadError as error:
        raise RenderError(f'{error} (give a rosbag2 directory recorded with terrain:=scm)') from error
    try:
        points = cloud_points([(f.name, f.offset, f.datatype) for f in cloud.fields], cloud.point_step,
                              bytes(cloud.data), cloud.width, cloud.height, cloud.is_bigendian)
    except HeightmapCloudError as error:
        raise RenderError(f'{bag}: last {HEIGHTMAP_TOPIC}: {error}') from error
    return TerrainRecord(points, stamp_s(cloud.header.stamp), np.array(head), cloud.header.frame_id)


def _last_cloud_and_head(bag: Path) -> tuple[Any, list[tuple[float, float]]]:
    with open_bag(bag, own_errors=(RenderError,)) as reader:
        clouds = connections_named(reader, HEIGHTMAP_TOPIC)
        truths = connections_named(reader, TRUTH_TOPIC)
        if not clouds:
            raise RenderError(f'{bag}: no {HEIGHTMAP_TOPIC} topic; record a run with terrain:=scm and the '
                              f'logger recording {HEIGHTMAP_TOPIC} (config/logger.yaml)')
        if not truths:
            raise RenderError(f'{bag}: no {TRUTH_TOPIC} topic: the head path comes from it; record it')
        last = None
        for connection, _, raw in reader.messages(connections=clouds):
            last = (connection, raw)
        if last is None:
            raise RenderError(f'{bag}: {HEIGHTMAP_TOPIC} holds no message; run longer than its period')
        cloud = reader.deserialize(last[1], last[0].msgtype)
        head = []
        for connection, _, raw in reader.messages(connections=truths):
            position = reader.deserialize(raw, connection.msgtype).pose.pose.position
            head.append((position.x, position.y))
        if not head:
            raise RenderError(f'{bag}: {TRUTH_TOPIC} holds no message')
    return cloud, head


def raster(points: dict[str, np.ndarray], head_xy_m: np.ndarray) -> tuple[np.ndarray, np.ndarray, float,
                                                                         tuple[float, float, float, float]]:
    """(height, sinkage) images on the node grid (NaN = undeformed soil), spacing, extent."""
    x, y = points['x'], points['y']
    spacing = 0.02
    if len(x) > 1:
        steps = np.diff(np.unique(np.round(np.concatenate([x, y]), 6)))
        steps = steps[steps > 1e-6]
        spacing = float(steps.min()) if len(steps) else spacing
    all_x = np.concatenate([x, head_xy_m[:, 0]])
    all_y = np.concatenate([y, head_xy_m[:, 1]])
    x0 = np.floor((all_x.min() - MARGIN_M) / spacing) * spacing
    y0 = np.floor((all_y.min() - MARGIN_M) / spacing) * spacing
    columns = int(np.ceil((all_x.max() + MARGIN_M - x0) / spacing)) + 1
    rows = int(np.ceil((all_y.max() + MARGIN_M - y0) / spacing)) + 1
    height = np.full((rows, columns), np.nan)
    sinkage = np.full((rows, columns), np.nan)
    i = np.clip(np.round((x - x0) / spacing).astype(int), 0, columns - 1)
    j = np.clip(np.round((y - y0) / spacing).astype(int), 0, rows - 1)
    height[j, i] = points['z']
    sinkage[j, i] = points['sinkage']
    extent = (x0 - spacing / 2, x0 + (columns - 0.5) * spacing, y0 - spacing / 2, y0 + (rows - 0.5) * spacing)
    return height, sinkage, spacing, extent


def render(record: TerrainRecord, out: Path, title: str) -> None:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    height, sinkage, spacing, extent = raster(record.points, record.head_xy_m)
    figure, axes = plt.subplots(1, 2, figsize=(13, 5.5), constrained_layout=True)
    level = np.nanmax(np.abs(height)) if np.isfinite(height).any() else 0.01
    panels = ((height * 1e3, 'height z [mm] (ruts < 0 < berms)', 'BrBG', (-level * 1e3, level * 1e3)),
              (sinkage * 1e3, 'sinkage [mm]', 'magma_r', (0.0, max(float(np.nanmax(sinkage)) * 1e3, 1e-3)
                                                          if np.isfinite(sinkage).any() else 1.0)))
    for axis, (image, label, colours, (low, high)) in zip(axes, panels):
        axis.set_facecolor('0.85')  # undeformed soil
        shown = axis.imshow(image, origin='lower', extent=extent, cmap=colours, vmin=low, vmax=high,
                            interpolation='nearest')
        figure.colorbar(shown, ax=axis, label=label, shrink=0.85)
        axis.plot(record.head_xy_m[:, 0], record.head_xy_m[:, 1], color='tab:blue', lw=1.2, label='head path')
        axis.plot(*record.head_xy_m[0], 'o', color='tab:green', label='start')
        axis.plot(*record.head_xy_m[-1], 's', color='tab:red', label='end')
        axis.set_xlabel(f'x [m] ({record.frame_id or "odom"})')
        axis.set_ylabel('y [m]')
        axis.set_aspect('equal')
    axes[0].legend(loc='upper center', bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize=8)
    figure.suptitle(f'{title}: {len(record.points["x"])} deformed nodes (Δ = {spacing * 100:.1f} cm), '
                    f'heightmap at t = {record.stamp_s:.2f} s, grey = undeformed')
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        write_atomically(out, lambda temporary: figure.savefig(temporary, dpi=110))
    finally:
        plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('bag', type=Path, help='rosbag2 directory of a terrain:=scm run')
    parser.add_argument('--out', type=Path, required=True, help='PNG file to write')
    args = parser.parse_args(argv)
    if args.out.suffix.lower() != '.png':
        print(f'render_terrain: --out {args.out}: give a .png file name', file=sys.stderr)
        return 2
    try:
        record = read_terrain(args.bag)
        render(record, args.out, args.bag.name)
    except (RenderError, OSError) as error:
        print(f'render_terrain: {error}', file=sys.stderr)
        return 2
    print(f'wrote {args.out}: {len(record.points["x"])} deformed nodes, '
          f'max sinkage {np.max(record.points["sinkage"], initial=0.0) * 1e3:.1f} mm, '
          f'height {np.min(record.points["z"], initial=0.0) * 1e3:.1f} to '
          f'{np.max(record.points["z"], initial=0.0) * 1e3:.1f} mm, head path {len(record.head_xy_m)} poses')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
