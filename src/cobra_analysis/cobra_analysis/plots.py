"""The report's figures (matplotlib, headless: Figure objects with the Agg canvas, no pyplot
state). Each function writes one PNG and returns a FigureFile: its file name, a sentence saying
what it shows (the page's alt text) and the labels of every axes it drew (emitted on the page, so
a test can see that no axis is unlabelled). Times are seconds since the bag's gait start, angles
degrees (as in the tables). Long series are thinned to MAX_POINTS per line so a 10-minute bag
plots as fast as a short one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from cobra_analysis import metrics as m
from cobra_analysis.analysis import BagAnalysis, Comparison, total_contact_force
from cobra_analysis.bag_reader import Heightmap
from cobra_common.track_error_figure import draw_track_error

MAX_POINTS = 4000
DPI = 100
GAIT_TIME_LABEL = 'time since gait start [s]'


@dataclass(frozen=True)
class FigureFile:
    name: str                         # PNG beside index.html
    alt: str                          # what the figure shows, in words
    axes: tuple[dict[str, str], ...]  # per visible axes: kind ('plot' or 'colorbar'), title, x, y label


def _thin(*arrays: np.ndarray) -> list[np.ndarray]:
    step = max(1, len(arrays[0]) // MAX_POINTS)
    return [a[::step] for a in arrays]


def _save(figure: Figure, out_dir: Path, name: str, alt: str) -> FigureFile:
    FigureCanvasAgg(figure)
    figure.savefig(out_dir / name, dpi=DPI)
    axes = tuple({'kind': 'colorbar' if hasattr(ax, '_colorbar') else 'plot', 'title': ax.get_title(),
                  'x': ax.get_xlabel(), 'y': ax.get_ylabel()} for ax in figure.axes if ax.get_visible())
    return FigureFile(name, alt, axes)


def time_origin_s(analysis: BagAnalysis) -> float:
    """t = 0 of the bag's time axes: the gait start, else the bag's first stamp."""
    return analysis.gait_start_s if analysis.gait_start_s is not None else float(analysis.bag.start_s)


def time_label(analysis: BagAnalysis) -> str:
    return GAIT_TIME_LABEL if analysis.gait_start_s is not None else 'time since bag start [s]'


def trajectory(analysis: BagAnalysis, out_dir: Path) -> FigureFile:
    """Head track in the plane (and the odometry estimate when ground truth is the head track),
    with the steady cycle boundaries; beside it speed over time."""
    bag = analysis.bag
    figure = Figure(figsize=(11, 4.5), layout='constrained')
    plane, speed_axes = figure.subplots(1, 2, gridspec_kw={'width_ratios': [1, 1.3]})
    times, xy = _thin(bag.head.times_s, bag.head.position_m[:, :2])
    plane.plot(xy[:, 0], xy[:, 1], lw=1, label=bag.head.topic.lstrip('/'), zorder=3)  # above a noisy odom
    if bag.odom is not None:
        _, odom_xy = _thin(bag.odom.times_s, bag.odom.position_m[:, :2])
        plane.plot(odom_xy[:, 0], odom_xy[:, 1], lw=0.8, alpha=0.6, label=bag.odom.topic.lstrip('/'))
    plane.plot(*bag.head.position_m[0, :2], 'go', label='bag start')
    if analysis.cycles is not None and analysis.locomotion is not None:
        bounds = analysis.cycles.bounds_s[np.append(analysis.cycles.steady_indices, analysis.cycles.steady_indices[-1] + 1)]
        points = m.resample(bag.head.times_s, bag.head.position_m[:, :2], bounds)
        plane.plot(points[:, 0], points[:, 1], 'k.', ms=4, label='steady cycle boundaries')
    plane.set_aspect('equal', adjustable='datalim')
    plane.set_xlabel('x [m] (odom frame)')
    plane.set_ylabel('y [m]')
    plane.set_title('head trajectory')
    plane.legend(fontsize=7)
    rate_hz = 50.0
    grid, speed = m.speed_series(bag.head.times_s, bag.head.position_m[:, :2], rate_hz)
    origin = time_origin_s(analysis)
    speed_axes.plot(grid - origin, speed * 100, lw=0.6, alpha=0.6, label='planar speed')
    if analysis.frequency_hz:
        mean, offset = m.one_cycle_mean(speed, max(1, int(round(rate_hz / analysis.frequency_hz))))
        if mean.size:
            speed_axes.plot(grid[offset:offset + len(mean)] - origin, mean * 100, lw=1.4,
                            label='one-cycle mean (whole cycles only)')
    speed_axes.set_xlabel(time_label(analysis))
    speed_axes.set_ylabel('head speed [cm/s]')
    speed_axes.legend(fontsize=7)
    speed_axes.set_title('speed')
    return _save(figure, out_dir, f'{analysis.label}_trajectory.png',
                 f'{analysis.label}: head path in the plane with the steady cycle boundaries, and head speed over '
                 f'{time_label(analysis).split(" [")[0]} with its one-cycle mean')


def cycles(analysis: BagAnalysis, out_dir: Path) -> FigureFile:
    """Head path of every steady cycle from its start (x along the mean travel direction; thesis
    Fig. 19/20), the stride per cycle, and the travel direction per cycle."""
    loco = analysis.locomotion
    figure = Figure(figsize=(12, 4), layout='constrained')
    paths_axes, stride_axes, heading_axes = figure.subplots(1, 3)
    for path in loco.cycle_paths_m:
        paths_axes.plot(path[:, 0] * 100, path[:, 1] * 100, lw=0.6, alpha=0.4, color='tab:blue')
    mean_path = loco.cycle_paths_m.mean(axis=0)
    paths_axes.plot(mean_path[:, 0] * 100, mean_path[:, 1] * 100, lw=2, color='k', label='mean')
    paths_axes.set_aspect('equal', adjustable='datalim')
    paths_axes.set_xlabel('along travel [cm]')
    paths_axes.set_ylabel('across travel [cm]')
    paths_axes.set_title(f'{len(loco.cycle_paths_m)} steady cycles, each from its start')
    paths_axes.legend(fontsize=7)
    index = np.arange(len(loco.stride_m))
    stride_axes.bar(index, loco.stride_m * 100, label='|displacement| per cycle')
    stride_axes.axhline(loco.mean_stride_m * 100, color='k', lw=1,
                        label=f'stride {loco.mean_stride_m * 100:.2f} cm')
    stride_axes.set_ylim(0.0, 1.5 * max(float(loco.stride_m.max()), loco.mean_stride_m) * 100 or 1.0)
    _cycle_axis(stride_axes)
    stride_axes.set_ylabel('displacement per cycle [cm]')
    stride_axes.legend(fontsize=7, loc='upper right')  # in the headroom above the bars
    stride_axes.set_title('stride per steady cycle')
    judged = loco.heading_drift_rad_per_cycle is not None
    heading_axes.plot(index, np.degrees(loco.travel_direction_rad), 'o-' if judged else 'o', ms=3)  # no line: no trend
    _cycle_axis(heading_axes)
    heading_axes.set_ylabel('travel direction [deg]')
    heading_axes.set_title(f'drift {np.degrees(loco.heading_drift_rad_per_cycle):+.2f} deg/cycle'
                           if judged else f'{len(index)} cycles: too few to judge a drift')
    return _save(figure, out_dir, f'{analysis.label}_cycles.png',
                 f'{analysis.label}: the head path of each steady cycle from its start, the displacement per '
                 'cycle against the stride, and the travel direction per cycle')



def _cycle_axis(axes: Axes) -> None:
    """Whole cycle numbers, at most a dozen of them (one per cycle crowded 118 cycles into a smear)."""
    axes.xaxis.set_major_locator(MaxNLocator(nbins=12, integer=True))
    axes.set_xlabel('steady cycle')

def tracking(analysis: BagAnalysis, out_dir: Path) -> FigureFile:
    """Commanded vs measured of every tracked joint over three gait cycles (or 6 s) from the first
    steady cycle, in degrees against time since the gait start, and the RMS error and lag per joint."""
    bag = analysis.bag
    joints = [t.joint for t in analysis.tracking]
    rows = (len(joints) + 3) // 4 + 1
    figure = Figure(figsize=(13, 2.3 * rows))  # fixed margins: a constrained layout of 16 axes cost ~2 s
    axes = figure.subplots(rows, 4, squeeze=False)
    figure.subplots_adjust(left=0.06, right=0.99, top=0.96, bottom=0.05, hspace=0.75, wspace=0.3)
    origin = time_origin_s(analysis)
    begin = origin
    if analysis.cycles is not None and analysis.cycles.steady.any():
        begin = float(analysis.cycles.bounds_s[analysis.cycles.steady_indices[0]])
    span = 3.0 / analysis.frequency_hz if analysis.frequency_hz else 6.0
    commands, states = bag.joint_commands, bag.joint_states
    c_window = (commands.times_s >= begin) & (commands.times_s <= begin + span)
    s_window = (states.times_s >= begin) & (states.times_s <= begin + span)
    for index, joint in enumerate(joints):
        ax = axes[index // 4 + 1][index % 4]
        ax.plot(commands.times_s[c_window] - origin,
                np.degrees(commands.position_rad[c_window, commands.column(joint)]), lw=1, label='commanded')
        ax.plot(states.times_s[s_window] - origin,
                np.degrees(states.position_rad[s_window, states.column(joint)]), lw=1, label='measured')
        ax.set_title(joint, fontsize=8)
        ax.set_xlabel(time_label(analysis), fontsize=7)
        ax.set_ylabel('angle [deg]', fontsize=7)
        ax.tick_params(labelsize=7)
    axes[1][0].legend(fontsize=7)
    for index in range(len(joints), 4 * (rows - 1)):
        axes[index // 4 + 1][index % 4].set_visible(False)
    rms_axes, lag_axes = axes[0][0], axes[0][1]
    positions = np.arange(len(joints))
    rms_axes.bar(positions, [np.degrees(t.rms_error_rad) for t in analysis.tracking])
    rms_axes.set_ylabel('RMS error [deg]', fontsize=8)
    rms_axes.set_title('RMS of measured − commanded', fontsize=8)
    lag_axes.bar(positions, [t.lag_s * 1000 if t.lag_s is not None else 0.0 for t in analysis.tracking], color='tab:orange')
    lag_axes.set_ylabel('lag [ms]', fontsize=8)
    lag_axes.set_title('measured behind commanded (0: no wave)', fontsize=8)
    for ax in (rms_axes, lag_axes):
        ax.set_xticks(positions, joints, rotation=60, fontsize=6)
        ax.set_xlabel('joint', fontsize=7)
    axes[0][2].set_visible(False)
    axes[0][3].set_visible(False)
    return _save(figure, out_dir, f'{analysis.label}_tracking.png',
                 f'{analysis.label}: RMS tracking error and lag per joint, and commanded against measured angle '
                 'of every joint over three gait cycles from the first steady cycle')


def contact(analysis: BagAnalysis, out_dir: Path) -> FigureFile:
    """Per-link force over one steady gait cycle (thesis Fig. 16) and the contact distribution
    along the body (Fig. 17)."""
    profile = analysis.contact
    figure = Figure(figsize=(12, 4.5), layout='constrained')
    heat_axes, share_axes = figure.subplots(1, 2, gridspec_kw={'width_ratios': [1.6, 1]})
    image = heat_axes.imshow(profile.mean_force_n, aspect='auto', origin='lower', cmap='viridis',
                             extent=(0.0, 1.0, -0.5, len(profile.links) - 0.5))
    heat_axes.set_yticks(np.arange(len(profile.links)), profile.links, fontsize=7)
    heat_axes.set_xlabel('gait cycle phase [cycles]')
    heat_axes.set_ylabel('link')
    heat_axes.set_title('contact force per link over a steady cycle')
    figure.colorbar(image, ax=heat_axes, label='mean contact force |F| [N]')
    positions = np.arange(len(profile.links))
    share_axes.barh(positions, profile.contact_fraction * 100, label='time in contact [%]')
    share_axes.barh(positions, profile.contact_share * 100, height=0.4, label='share of all contact [%]')
    share_axes.set_yticks(positions, profile.links, fontsize=7)
    share_axes.set_xlabel('share [%]')
    share_axes.set_ylabel('link')
    share_axes.legend(fontsize=7, loc='upper center', bbox_to_anchor=(0.5, -0.12), ncol=2)  # below: off the bars
    share_axes.set_title('contact distribution along the body')
    return _save(figure, out_dir, f'{analysis.label}_contact.png',
                 f'{analysis.label}: heat map of the mean contact force of each link over the phase of a steady '
                 'gait cycle, and each link\'s time in contact and share of all contact')


def sinkage(analysis: BagAnalysis, heightmap: Heightmap, out_dir: Path) -> FigureFile:
    """Deepest sinkage per soil node over the run (thesis Fig. 18), with the head path."""
    figure = Figure(figsize=(7, 5), layout='constrained')
    ax = figure.subplots()
    points = ax.scatter(heightmap.max_xy_m[:, 0], heightmap.max_xy_m[:, 1], c=heightmap.max_sinkage_m * 1000,
                        s=4, cmap='magma_r')
    figure.colorbar(points, ax=ax, label='max sinkage [mm]')
    if analysis.bag.head is not None:
        _, xy = _thin(analysis.bag.head.times_s, analysis.bag.head.position_m[:, :2])
        ax.plot(xy[:, 0], xy[:, 1], 'c-', lw=0.8, label='head')
        ax.legend(fontsize=7)
    ax.set_aspect('equal', adjustable='datalim')
    ax.set_xlabel('x [m]')
    ax.set_ylabel('y [m]')
    ax.set_title('sinkage map')
    return _save(figure, out_dir, f'{analysis.label}_sinkage.png',
                 f'{analysis.label}: deepest sinkage of every soil node over the run, with the head path')


def tumbling(analysis: BagAnalysis, out_dir: Path) -> FigureFile:
    """Body (head) speed, head height and total contact force with the tumbling spans shaded
    (thesis Fig. 22)."""
    bag = analysis.bag
    figure = Figure(figsize=(10, 6.5), layout='constrained')
    speed_axes, height_axes, force_axes = figure.subplots(3, 1, sharex=True)
    origin = time_origin_s(analysis)
    grid, speed = m.speed_series(bag.head.times_s, bag.head.position_m)
    speed_axes.plot(grid - origin, speed, lw=0.8)
    speed_axes.set_ylabel('head speed [m/s]')
    times, z = _thin(bag.head.times_s, bag.head.position_m[:, 2])
    height_axes.plot(times - origin, z, lw=0.8)
    height_axes.set_ylabel('head height z [m]')
    total = total_contact_force(bag)
    if total is not None:
        force_times, force = _thin(*total)
        force_axes.plot(force_times - origin, force, lw=0.8)
    force_axes.set_ylabel('sum of link |F| [N]')
    force_axes.set_xlabel(time_label(analysis))
    for ax in (speed_axes, height_axes):
        ax.set_xlabel(time_label(analysis), fontsize=7)
    for ax in (speed_axes, height_axes, force_axes):
        for span in analysis.tumbling:
            ax.axvspan(span.begin_s - origin, span.end_s - origin, color='orange', alpha=0.2)
    speed_axes.set_title('tumbling (shaded: ' + (analysis.tumbling[0].source if analysis.tumbling else '') + ')')
    return _save(figure, out_dir, f'{analysis.label}_tumbling.png',
                 f'{analysis.label}: head speed, head height and total contact force over time, the tumbling '
                 'spans shaded')


def twist_power(analysis: BagAnalysis, out_dir: Path) -> FigureFile:
    """Mean and peak |τ·θ̇| per twist joint (LTS paper Fig. 7)."""
    figure = Figure(figsize=(7, 4), layout='constrained')
    ax = figure.subplots()
    positions = np.arange(len(analysis.twist))
    ax.bar(positions - 0.2, [p.mean_power_w for p in analysis.twist], width=0.4, label='mean |P|')
    ax.bar(positions + 0.2, [p.peak_power_w for p in analysis.twist], width=0.4, label='peak |P|')
    ax.set_xticks(positions, [p.joint for p in analysis.twist], fontsize=8)
    ax.set_xlabel('twist joint')
    ax.set_ylabel('output power |τ·θ̇| [W]')
    ax.legend(fontsize=7)
    ax.set_title('twist-joint power')
    return _save(figure, out_dir, f'{analysis.label}_twist_power.png',
                 f'{analysis.label}: mean and peak output power of each twist joint')


def comparison(result: Comparison, out_dir: Path, index: int) -> FigureFile:
    """The other run against the reference: the mean steady-cycle shapes the shape error compares
    (normalised by their strides), and, when both have a head track on the gait clock, the other
    track aligned onto the reference (evo Umeyama) with its position error over gait time (drawn
    as `cobra_odometry.accuracy` draws odom against ground truth)."""
    panels = (result.reference_shape is not None) + 2 * (result.error is not None)
    figure = Figure(figsize=(4.6 * panels, 4.4), layout='constrained')
    axes = list(np.atleast_1d(figure.subplots(1, panels)))
    shown = []
    if result.reference_shape is not None:
        shape_axes = axes.pop(0)
        shape_axes.plot(result.reference_shape[:, 0], result.reference_shape[:, 1], 'k--', lw=1.2,
                        label=result.reference)
        shape_axes.plot(result.other_shape[:, 0], result.other_shape[:, 1], color='tab:blue', lw=1.2,
                        label=result.other)
        shape_axes.set_aspect('equal', adjustable='datalim')
        shape_axes.set_xlabel('along travel [strides]')
        shape_axes.set_ylabel('across travel [strides]')
        shape_axes.set_title(f'mean steady cycle, shape error {result.shape_error_strides:.3f} strides', fontsize=9)
        shape_axes.legend(fontsize=7)
        shown.append('the mean steady-cycle paths of both runs, each divided by its stride')
    if result.error is not None:
        plane_axes, error_axes = axes
        draw_track_error(plane_axes, error_axes, result.error.reference_xy_m, result.error.aligned_b_xy_m,
                         result.error.times_s, result.error.ate_error_m, result.reference,
                         f'{result.other} (aligned)', GAIT_TIME_LABEL, unit='cm')
        plane_axes.set_title(f'head tracks on the gait clock (ATE {result.error.ate_rmse_m * 100:.1f} cm)', fontsize=9)
        error_axes.set_title(f'error over time (RPE {result.error.rpe_rmse_m * 100:.1f} cm per cycle)', fontsize=9)
        shown.append('both head tracks after alignment and their distance over gait time')
    return _save(figure, out_dir, f'comparison_{index}.png',
                 f'{result.other} against {result.reference}: ' + '; '.join(shown))


def performance_ratio(ratio: m.PerformanceRatio, out_dir: Path, index: int) -> FigureFile:
    """Ξ heat map (the geometric-mechanics paper §V-C) with the value in every cell."""
    size = len(ratio.gaits)
    figure = Figure(figsize=(2.5 + 0.9 * size, 2 + 0.8 * size), layout='constrained')
    ax = figure.subplots()
    image = ax.imshow(ratio.xi, cmap='coolwarm', vmin=0.0, vmax=2.0)
    for i in range(size):
        for j in range(size):
            ax.text(j, i, f'{ratio.xi[i, j]:.2f}', ha='center', va='center', fontsize=8)
    ax.set_xticks(np.arange(size), ratio.gaits, rotation=45, ha='right', fontsize=7)
    ax.set_yticks(np.arange(size), ratio.gaits, fontsize=7)
    ax.set_xlabel('gait j')
    ax.set_ylabel('gait i')
    figure.colorbar(image, ax=ax, label='Ξ [dimensionless]')
    ax.set_title(f'Ξ = δ_{ratio.class_x} / δ_{ratio.class_y}: mean {ratio.off_diagonal_mean:.3f}, '
                 f'STD {ratio.off_diagonal_std:.3f}', fontsize=9)
    return _save(figure, out_dir, f'performance_ratio_{index}.png',
                 f'performance ratio Ξ of {ratio.class_x} against {ratio.class_y} for every pair of gaits')

