"""Reproduce the LTS paper's §IV-A, §IV-B and §IV-D on the simulated T-Snake.

  python -m cobra_experiments.reproduce_lts [--out out/lts_paper] [--quick] [--sections a,b,d]

Writes CSV tables, summary.md and figures to --out only at the end; bad options: one message,
exit 2. What each section compares: README, "Reproducing the LTS paper".
"""

from __future__ import annotations

import argparse
import csv
import math
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np


from cobra_gaits.lts import (LinearTwistParams, LtsGait, LtsJointGenerator, lts_preset,
                             shape_error_m)
from cobra_experiments.lts_runs import (LtsRunError, RunConfig, RunRecord, dominant_period_s,
                                lateral_angle_periods_s, load_share_of_top, point_on_body_xy_m,
                                relative_change, run_gait, time_scaled_twist, whole_periods_s)

SECTIONS = ('a', 'b', 'd')
PAPER = {  # the LTS paper §IV
    'yaw_lts_deg_s': 2.36, 'yaw_baseline_deg_s': 2.33,
    'total_power_lts_w': 6.8, 'total_power_baseline_w': 6.3,
    'top_two_share_lts': 0.451, 'top_two_share_baseline': 0.968,
    'peak_power_lts_w': 5.76, 'peak_power_baseline_w': 9.89, 'peak_change': -0.42,
    'time_reduction_flat': 0.451, 'time_reduction_slope': 0.492,  # flagstone; 20 deg slope
}
INTEGRATION_DURATION_S = 200.0  # §IV-A
WINDOW_S = 40.0  # §IV-A envelope windows at the start and the end
PERIOD_WINDOW_S = 100.0  # §IV-A period windows (first and second half)
MATCH_ITERATIONS = 3  # §IV-B: baseline runs to match the LTS yaw rate ...
MATCH_TOLERANCE = 0.02  # ... within this relative difference


@dataclass
class Comparison:
    """Rows 'quantity, paper, ours, difference' printed and written as comparison.csv."""

    rows: list[tuple[str, str, float, float, str]] = field(default_factory=list)

    def add(self, section: str, quantity: str, paper: float, ours: float, unit: str) -> None:
        self.rows.append((section, quantity, paper, ours, unit))

    @staticmethod
    def difference(paper: float, ours: float, unit: str) -> tuple[float, str]:
        """Ours vs paper: in percentage points for quantities that are percentages, else in % of
        the paper's value; (nan, 'n/a') where either is missing."""
        if not (math.isfinite(paper) and math.isfinite(ours)):
            return math.nan, 'n/a'
        if unit == '%':
            return ours - paper, f'{ours - paper:+.1f} pp'
        change = 100.0 * relative_change(ours, paper)
        return change, f'{change:+.1f} %'


def fmt(value: float | None, digits: int = 3) -> str:
    return 'n/a' if value is None or not math.isfinite(value) else f'{value:.{digits}g}'


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--out', type=Path, default=Path('out') / 'lts_paper', help='output folder (replaced)')
    parser.add_argument('--quick', action='store_true', help='short runs (a smoke test; numbers not comparable)')
    parser.add_argument('--sections', default='a,b,d', help='comma list of a, b, d (paper §IV-A, -B, -D)')
    parser.add_argument('--slope-deg', type=float, default=20.0, help='§IV-D slope (0 = skip the slope row)')
    parser.add_argument('--track-m', type=float, default=2.0, help='§IV-D track length [m]')
    parser.add_argument('--turn-s', type=float, default=90.0,
                        help='§IV-B: at least this long, rounded up to whole gait periods [s]')
    parser.add_argument('--max-traverse-s', type=float, default=300.0, help='§IV-D: give up after [s]')
    args = parser.parse_args(argv)
    sections = tuple(s.strip().lower() for s in args.sections.split(',') if s.strip())
    problems = []
    if not sections or any(s not in SECTIONS for s in sections):
        problems.append(f"--sections {args.sections!r}: use a comma list of {', '.join(SECTIONS)}")
    if not (math.isfinite(args.slope_deg) and 0.0 <= args.slope_deg < 90.0):
        problems.append(f'--slope-deg {args.slope_deg}: use 0 <= slope < 90 (0 skips the slope row)')
    for name in ('track_m', 'turn_s', 'max_traverse_s'):
        value = getattr(args, name)
        if not (math.isfinite(value) and value > 0.0):
            problems.append(f"--{name.replace('_', '-')} {value}: must be > 0")
    if args.out.exists() and not args.out.is_dir():
        problems.append(f'--out {args.out} is a file: give a folder')
    if problems:
        parser.exit(2, 'error: ' + '; '.join(problems) + '\n')
    args.sections = sections
    if args.quick:
        args.turn_s, args.track_m, args.max_traverse_s = 6.0, 0.3, 30.0
    return args


# --------------------------------------------------------------------------------------------
# §IV-A
# --------------------------------------------------------------------------------------------

def section_a(args: argparse.Namespace, out: Path, comparison: Comparison, summary: list[str]) -> None:
    duration, window, period_window = INTEGRATION_DURATION_S, WINDOW_S, PERIOD_WINDOW_S  # cheap: also in --quick
    gait = lts_preset('twisting')
    generator = LtsJointGenerator(gait)
    times, ours = generator.trajectory_rad(duration)
    _, existing = generator.trajectory_rad(duration, continuous=True)
    first, last = times <= window, times >= duration - window
    early, late = times < period_window, times >= duration - period_window
    expected = lateral_angle_periods_s(gait)
    resolvable = expected <= period_window / 3.0  # at least three cycles in a window
    rows, period_rows = [], []
    for method, angles in (('ours (piecewise-constant)', ours), ('existing (continuous)', existing)):
        lateral = angles[:, :, 2]
        envelope_first, envelope_last = np.abs(lateral[first]).max(0), np.abs(lateral[last]).max(0)
        shape_first = np.median([shape_error_m(generator, angles[k], times[k]) for k in np.flatnonzero(first)[::25]])
        shape_last = np.median([shape_error_m(generator, angles[k], times[k]) for k in np.flatnonzero(last)[::25]])
        errors = []
        for module in range(gait.geometry.module_count):
            measured = [dominant_period_s(times[w], lateral[w, module]) for w in (early, late)]
            error = [abs(m - expected[module]) / expected[module] for m in measured]
            if resolvable[module]:
                errors.extend(error)
            period_rows.append([method, module + 1, expected[module], *measured, *(100 * e for e in error),
                                bool(resolvable[module])])
        rows.append([method, np.abs(lateral).max(), np.abs(angles[:, :, 0]).max(), envelope_first.mean(),
                     envelope_last.mean(), 100 * relative_change(envelope_last.mean(), envelope_first.mean()),
                     1000 * shape_first, 1000 * shape_last, 100 * max(errors, default=math.nan)])
    write_csv(out / 'ivA_integration.csv',
              ['method', 'max_abs_lateral_rad', 'max_abs_dorsal_rad', f'mean_envelope_first_{window:g}s_rad',
               f'mean_envelope_last_{window:g}s_rad', 'envelope_change_pct', 'shape_error_first_mm',
               'shape_error_last_mm', 'max_period_error_pct'], rows)
    write_csv(out / 'ivA_periods.csv',
              ['method', 'module', 'expected_period_s', f'period_first_{period_window:g}s',
               f'period_last_{period_window:g}s',
               'error_first_pct', 'error_last_pct', 'resolvable'], period_rows)
    sim_duration = 40.0 if args.quick else duration
    sim_records = {method: run_gait(gait, RunConfig(duration_s=sim_duration), continuous=method == 'existing')
                   for method in ('ours', 'existing')}
    sim_rows = [[method, math.degrees(record.yaw_rate_rad_s()), 100 * record.turning_centre_wander_m(),
                 100 * float(np.linalg.norm((record.com_m[-1] - record.com_m[0])[:2]))]
                for method, record in sim_records.items()]
    write_csv(out / 'ivA_sim.csv', ['method', 'yaw_rate_deg_s', 'turning_centre_wander_cm', 'com_net_displacement_cm'],
              sim_rows)
    plot_integration(out / 'fig6_integration.png', times, existing[:, :, 2], ours[:, :, 2], sim_records)
    summary.append(f'## §IV-A: twisting sidewinding for {duration:g} s (library, dt = {gait.time_step_s} s)\n')
    summary.append('omega_t = 0, a1 = 1.5 rad/(m s), a0 = -1 rad/s. The paper gives only Fig. 6 (no numbers): '
                   'ours must stay bounded and periodic, the continuous method drifts. Expected period of '
                   "module i's lateral angle: 2 pi / |omega_r| of the piece behind it (the lateral axis turns "
                   f'with that piece); periods longer than {period_window / 3:g} s (under three cycles in a '
                   f'{period_window:g} s window) are not scored.\n')
    summary.append(md_table(['method', 'max abs lateral [rad]', 'max abs dorsal [rad]',
                             f'envelope first {window:g} s', f'last {window:g} s', 'change',
                             'shape error first/last [mm]',
                             'max period error'],
                            [[r[0], fmt(r[1]), fmt(r[2]), fmt(r[3]), fmt(r[4]), f'{r[5]:+.1f} %',
                              f'{r[6]:.1f} / {r[7]:.1f}', f'{r[8]:.1f} %'] for r in rows]))
    summary.append(f'In the sim ({sim_duration:g} s on rigid ground, Fig. 6 (b), (d)): the point of the body at the '
                   f'turning centre s0 = -a0/a1 = {gait.twist.turning_centre_m:.3f} m should stay put while the '
                   'robot turns about it; "wander" = its largest distance from its mean position.\n')
    summary.append(md_table(['method', 'yaw rate [deg/s]', 'turning-centre wander [cm]', 'net COM displacement [cm]'],
                            [[r[0], f'{r[1]:.2f}', f'{r[2]:.1f}', f'{r[3]:.1f}'] for r in sim_rows]))
    summary.append('![Fig. 6](fig6_integration.png)\n')
    for r in sim_rows:
        comparison.add('IV-A', f'sim: turning-centre wander over {sim_duration:g} s, {r[0]} [cm]', math.nan, r[2], 'cm')
    for r in rows:
        name = r[0].split(' ')[0]
        comparison.add('IV-A', f'max abs lateral angle over {duration:g} s, {name} [rad]', math.nan, r[1], 'rad')
        comparison.add('IV-A', f'lateral envelope change, last vs first {window:g} s, {name} [%]', math.nan, r[5], '%')
        comparison.add('IV-A', f'max lateral period error vs 2 pi/|omega_r|, {name} [%]', math.nan, r[8], '%')
    for r in rows:
        print(f'IV-A {r[0]:28s} max|lateral| {r[1]:.3f} rad, envelope {r[3]:.3f} -> {r[4]:.3f} rad '
              f'({r[5]:+.1f} %), shape error {r[6]:.1f} -> {r[7]:.1f} mm, period error <= {r[8]:.1f} %')


# --------------------------------------------------------------------------------------------
# §IV-B
# --------------------------------------------------------------------------------------------

@dataclass
class TurnResult:
    label: str
    gait: LtsGait
    record: RunRecord

    @property
    def yaw_deg_s(self) -> float:
        return math.degrees(self.record.yaw_rate_rad_s())

    @property
    def mean_w(self) -> np.ndarray:
        return self.record.twist_mean_power_w()

    @property
    def peak_w(self) -> np.ndarray:
        return self.record.twist_peak_power_w()


def twist_label(gait: LtsGait) -> str:
    twist = gait.twist
    if isinstance(twist, LinearTwistParams):
        return f'a0 = {twist.a0_rad_s:.3g} rad/s, a1 = {twist.a1_rad_m_s:.3g} rad/(m s)'
    return f'omega_h = {twist.head_roll_rad_s:.3g}, omega_t = {twist.tail_roll_rad_s:.3g} rad/s'


def turn(label: str, gait: LtsGait, args: argparse.Namespace) -> TurnResult:
    duration = args.turn_s if args.quick else whole_periods_s(gait, args.turn_s)
    return TurnResult(label, gait, run_gait(gait, RunConfig(duration_s=duration)))


def section_b(args: argparse.Namespace, out: Path, comparison: Comparison, summary: list[str]) -> None:
    lts = turn('LTS in-place', lts_preset('in_place_load'), args)
    baseline = turn('rolling vector (paper speeds)', lts_preset('rolling_vector'), args)
    factor, matched = 1.0, baseline
    for _ in range(MATCH_ITERATIONS):  # the yaw rate is not quite proportional to the rolling speeds
        if abs(matched.yaw_deg_s / lts.yaw_deg_s - 1.0) <= MATCH_TOLERANCE:
            break
        factor *= lts.yaw_deg_s / matched.yaw_deg_s
        matched = turn(f'rolling vector x{factor:.3f} (yaw matched)', time_scaled_twist(baseline.gait, factor), args)
    results = [lts, baseline, matched]
    joint_names = lts.record.twist_joint_names
    rows = []
    for r in results:
        record = r.record
        error = record.twist_tracking_error_rad
        twist_columns = [record.joint_names.index(n) for n in joint_names]
        rows.append([r.label, twist_label(r.gait), record.control_times_s[-1], r.yaw_deg_s, r.mean_w.sum(),
                     100 * load_share_of_top(r.mean_w), r.peak_w.max(), joint_names[int(np.argmax(r.peak_w))],
                     *r.mean_w, *r.peak_w, np.sqrt(np.mean(error ** 2)), np.abs(error).max(),
                     record.max_abs_tracking_error_rad.max(),
                     record.max_abs_effort_nm[twist_columns].max(), record.effort_limit_nm[twist_columns].max(),
                     100 * record.saturated_fraction.max()])
    write_csv(out / 'ivB_twist_load.csv',
              ['gait', 'parameters', 'duration_s', 'yaw_rate_deg_s', 'total_mean_power_w', 'top_two_share_pct',
               'peak_power_w', 'peak_joint'] + [f'mean_{n}_w' for n in joint_names]
              + [f'peak_{n}_w' for n in joint_names]
              + ['twist_tracking_rms_rad', 'twist_tracking_max_rad', 'all_joints_tracking_max_rad',
                 'twist_max_abs_effort_nm', 'twist_effort_limit_nm',
                 'max_saturated_pct'], rows)
    section = 'IV-B'
    comparison.add(section, 'yaw rate, LTS in-place [deg/s]', PAPER['yaw_lts_deg_s'], lts.yaw_deg_s, 'deg/s')
    comparison.add(section, 'yaw rate, rolling vector at the paper speeds [deg/s]', PAPER['yaw_baseline_deg_s'],
                   baseline.yaw_deg_s, 'deg/s')
    comparison.add(section, 'yaw rate, rolling vector yaw-matched [deg/s]', PAPER['yaw_baseline_deg_s'],
                   matched.yaw_deg_s, 'deg/s')
    for base, tag in ((matched, 'yaw-matched'), (baseline, 'paper speeds')):
        comparison.add(section, f'total twist power, LTS [W] ({tag} pair)', PAPER['total_power_lts_w'],
                       lts.mean_w.sum(), 'W')
        comparison.add(section, f'total twist power, rolling vector {tag} [W]', PAPER['total_power_baseline_w'],
                       base.mean_w.sum(), 'W')
        comparison.add(section, f'top-two share, LTS [%] ({tag} pair)', 100 * PAPER['top_two_share_lts'],
                       100 * load_share_of_top(lts.mean_w), '%')
        comparison.add(section, f'top-two share, rolling vector {tag} [%]', 100 * PAPER['top_two_share_baseline'],
                       100 * load_share_of_top(base.mean_w), '%')
        comparison.add(section, f'peak single-joint power, LTS [W] ({tag} pair)', PAPER['peak_power_lts_w'],
                       lts.peak_w.max(), 'W')
        comparison.add(section, f'peak single-joint power, rolling vector {tag} [W]', PAPER['peak_power_baseline_w'],
                       base.peak_w.max(), 'W')
        comparison.add(section, f'peak power change LTS vs rolling vector {tag} [%]', 100 * PAPER['peak_change'],
                       100 * relative_change(lts.peak_w.max(), base.peak_w.max()), '%')
    plot_twist_load(out / 'fig7_twist_load.png', joint_names, lts, matched)
    summary.append('## §IV-B: twist-joint load, in-place turning on rigid ground (sim)\n')
    summary.append(
        'Power p = |tau theta_dot| of each twist joint every 2 ms control period; mean over the run, peak = the '
        'largest mean over one 0.02 s command step. Runs last whole gait periods (the yaw and the load vary '
        'within a period). The baseline is run at the paper speeds and again time-scaled (both rolling speeds '
        f'x{factor:.3f}) to the LTS yaw rate; the pair compared with the paper is LTS vs the yaw-matched '
        'baseline. Servo: the sim default (kp 40 N m/rad, kd 0.8 N m s/rad, armature 0.01 kg m2), URDF limits '
        '4.1 N m, 4.8 rad/s (chosen, XM430-class).\n')
    summary.append(md_table(['gait', 'parameters', 'run [s]', 'yaw [deg/s]', 'total [W]', 'top two', 'peak [W]',
                             'twist tracking rms / max [rad]', 'all joints max [rad]', 'max effort / limit [N m]'],
                            [[r[0], r[1], f'{r[2]:.1f}', f'{r[3]:.3f}', f'{r[4]:.3f}', f'{r[5]:.1f} %',
                              f'{r[6]:.3f} ({r[7]})', f'{r[-6]:.4f} / {r[-5]:.3f}', f'{r[-4]:.3f}',
                              f'{r[-3]:.2f} / {r[-2]:.1f}']
                             for r in rows]))
    summary.append('![Fig. 7](fig7_twist_load.png)\n')


# --------------------------------------------------------------------------------------------
# §IV-D
# --------------------------------------------------------------------------------------------

def rolling(a0_rad_s: float) -> LtsGait:
    return replace(lts_preset('rolling'), twist=LinearTwistParams(a0_rad_s, 0.0)).validated()


def section_d(args: argparse.Namespace, out: Path, comparison: Comparison, summary: list[str]) -> None:
    gaits = [('conventional (a0 = 0)', lts_preset('conventional')),
             ('rolling, a0 = +0.8 (as printed)', rolling(0.8)),
             ('rolling, a0 = -0.8 (rolls with the sidewinding here)', rolling(-0.8))]
    grounds = [('level', 0.0)] + ([(f'{args.slope_deg:g} deg slope', args.slope_deg)] if args.slope_deg > 0 else [])
    rows, records = [], {}
    for ground, slope in grounds:
        base_time = None
        for label, gait in gaits:
            config = RunConfig(duration_s=args.max_traverse_s, slope_deg=slope, stop_distance_m=args.track_m)
            record = run_gait(gait, config)
            records[(ground, label)] = record
            arrival = record.traversal_time_s(args.track_m)
            if label.startswith('conventional'):
                base_time = arrival
            reduction = (None if arrival is None or base_time is None or label.startswith('conventional')
                         else -relative_change(arrival, base_time))
            speed = record.track_progress_m()[-1] / record.sample_times_s[-1]
            rows.append([ground, label, arrival, speed, math.degrees(record.heading_of_travel_rad()),
                         record.downhill_drift_m(), record.max_abs_tracking_error_rad.max(),
                         None if reduction is None else 100 * reduction])
    write_csv(out / 'ivD_traversal.csv', ['ground', 'gait', f'time_to_{args.track_m:g}_m_s', 'track_speed_m_s',
                                          'heading_of_travel_deg', 'x_drift_m', 'max_tracking_error_rad',
                                          'time_reduction_pct'], rows)
    for row in rows:
        if row[-1] is None or 'a0 = -0.8' not in row[1]:  # row[-1]: time reduction [%]
            continue
        key = 'time_reduction_flat' if row[0] == 'level' else 'time_reduction_slope'
        comparison.add('IV-D', f'time reduction rolling a0 = -0.8 vs conventional, {row[0]} [%]',
                       100 * PAPER[key], row[-1], '%')
    for row in rows:
        if 'as printed' in row[1]:
            key = 'time_reduction_flat' if row[0] == 'level' else 'time_reduction_slope'
            missed = '' if row[2] is not None else f', track not covered in {args.max_traverse_s:g} s'
            comparison.add('IV-D', f'time reduction rolling a0 = +0.8 vs conventional, {row[0]}{missed} [%]',
                           100 * PAPER[key], math.nan if row[-1] is None else row[-1], '%')
    plot_traversal(out / 'fig9_traversal.png', records, args.track_m)
    summary.append(f'## §IV-D: time to cover {args.track_m:g} m (sim, rigid ground)\n')
    summary.append(
        'omega_t = 0.5 rad/s for all. The track runs along world y, perpendicular to the body at the start '
        '(the robot lies along x, head at +x; on the slope, which descends along +x, the robot starts head '
        'downhill and the track follows the contour line, so sliding downhill is not progress). Progress = |y '
        'displacement| of the centre of mass since the gait started; arrival = first time it reaches the track '
        'length. In this stack\'s frame convention (twist positive about the head-to-tail tangent e1, curve of '
        'Eq. (3)), a0 = +0.8 rad/s rolls the body against the direction omega_t = +0.5 rad/s sidewinds, '
        'a0 = -0.8 rad/s with it; the paper\'s speed-up is the second, so both are reported and the second is '
        'compared. Paper: flagstone 45.1 %, grass 41.0 %, pebble 47.1 %, 20 deg slope 49.2 %; level rigid '
        'ground is compared with flagstone.\n')
    summary.append(md_table(['ground', 'gait', f'time to {args.track_m:g} m [s]', 'speed [m/s]', 'heading [deg]',
                             'x drift (downhill on the slope) [m]', 'max tracking error [rad]', 'time reduction'],
                            [[r[0], r[1], fmt(r[2], 4) if r[2] is not None else f'> {args.max_traverse_s:g}',
                              f'{r[3]:.4f}', f'{r[4]:.0f}', f'{r[5]:+.3f}', f'{r[6]:.3f}',
                              'n/a' if r[7] is None else f'{r[7]:.1f} %'] for r in rows]))
    summary.append('![Fig. 9](fig9_traversal.png)\n')


# --------------------------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------------------------

def write_csv(path: Path, header: list[str], rows: list[list[object]]) -> None:
    with path.open('w', newline='') as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for row in rows:
            writer.writerow(['' if v is None else (f'{v:.6g}' if isinstance(v, float) else v) for v in row])


def md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ['| ' + ' | '.join(header) + ' |', '|' + ' --- |' * len(header)]
    lines += ['| ' + ' | '.join(str(v) for v in row) + ' |' for row in rows]
    return '\n'.join(lines) + '\n'


def plot_integration(path: Path, times: np.ndarray, existing: np.ndarray, ours: np.ndarray,
                     sim_records: dict[str, RunRecord]) -> None:
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(2, 2, figsize=(14, 6.5), gridspec_kw={'width_ratios': [2.4, 1]})
    for axis, key, title in ((axes[0, 1], 'existing', '(b) sim, existing'), (axes[1, 1], 'ours', '(d) sim, ours')):
        record = sim_records[key]
        head = record.body_xy_m[:, 0]
        centre = point_on_body_xy_m(record.body_xy_m, record.body_arc_m, record.gait.twist.turning_centre_m)
        axis.plot(head[:, 0], head[:, 1], linewidth=0.6, label='head')
        axis.plot(centre[:, 0], centre[:, 1], linewidth=0.8, color='k', label='body point at s0')
        axis.set_aspect('equal', adjustable='datalim')
        axis.set_title(title)
        axis.set_xlabel('x [m]')
        axis.set_ylabel('y [m]')
        axis.legend(fontsize=7)
    axes[1, 0].sharex(axes[0, 0])
    axes[1, 0].sharey(axes[0, 0])
    for axis, angles, title in ((axes[0, 0], existing, '(a) existing continuous integration'),
                                (axes[1, 0], ours, '(c) ours: piecewise-constant twist')):
        for module in range(angles.shape[1]):
            axis.plot(times, angles[:, module], linewidth=0.6, label=f'module {module + 1}')
        axis.set_title(title)
        axis.set_ylabel('lateral angle [rad]')
        axis.grid(alpha=0.3)
    axes[1, 0].set_xlabel('time [s]')
    axes[0, 0].legend(ncol=6, fontsize=7, loc='upper right')
    figure.suptitle('Twisting sidewinding (omega_t = 0, a1 = 1.5, a0 = -1): lateral joint angles (LTS paper Fig. 6)')
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def plot_twist_load(path: Path, joint_names: list[str], lts: TurnResult, baseline: TurnResult) -> None:
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(2, 2, figsize=(12, 7))
    index = np.arange(len(joint_names))
    for axis, values, title in ((axes[0, 0], (lts.mean_w, baseline.mean_w), '(a) mean output power'),
                                (axes[0, 1], (lts.peak_w, baseline.peak_w), '(b) peak output power (0.02 s mean)')):
        axis.bar(index - 0.2, values[0], 0.4, label=lts.label)
        axis.bar(index + 0.2, values[1], 0.4, label=baseline.label)
        axis.set_xticks(index, [str(i + 1) for i in index])
        axis.set_xlabel('twist joint')
        axis.set_ylabel('power [W]')
        axis.set_title(title)
        axis.legend(fontsize=8)
    for axis, result, title in ((axes[1, 0], lts, '(c) '), (axes[1, 1], baseline, '(d) ')):
        record = result.record
        step = record.control_periods_per_command
        times = record.control_times_s[step - 1::step][:len(record.twist_power_w) // step]
        power = record.twist_power_w[:len(times) * step].reshape(len(times), step, -1).mean(axis=1)
        for joint in range(power.shape[1]):
            axis.plot(times, power[:, joint], linewidth=0.6, label=f'joint {joint + 1}')
        axis.set_title(title + result.label)
        axis.set_xlabel('time [s]')
        axis.set_ylabel('power [W]')
        axis.legend(ncol=3, fontsize=7)
    figure.suptitle('Twist-joint load, in-place turning (cf. the LTS paper, Fig. 7)')
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def plot_traversal(path: Path, records: dict[tuple[str, str], RunRecord], track_m: float) -> None:
    import matplotlib.pyplot as plt
    grounds = sorted({g for g, _ in records}, key=lambda g: g != 'level')
    figure, axes = plt.subplots(1, len(grounds), figsize=(6 * len(grounds), 4.5), squeeze=False)
    for axis, ground in zip(axes[0], grounds):
        for (g, label), record in records.items():
            if g == ground:
                axis.plot(record.sample_times_s, record.track_progress_m(), label=label)
        axis.axhline(track_m, color='k', linewidth=0.8, linestyle='--')
        axis.set_title(f'{ground}: progress along the track')
        axis.set_xlabel('time [s]')
        axis.set_ylabel('|y| of the centre of mass [m]')
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    figure.suptitle('Conventional vs rolling sidewinding (cf. the LTS paper, Fig. 9)')
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import matplotlib
    matplotlib.use('Agg')
    started = time.perf_counter()
    comparison, summary = Comparison(), ['# The LTS paper §IV reproduced on the simulated T-Snake\n']
    if args.quick:
        summary.append('**--quick: short runs, a smoke test; the numbers are not comparable with the paper.**\n')
    args.out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f'.{args.out.name}-', dir=args.out.parent))
    try:
        for name, section in (('a', section_a), ('b', section_b), ('d', section_d)):
            if name in args.sections:
                section(args, staging, comparison, summary)
        rows = [[s, q, p, o, u, *Comparison.difference(p, o, u)] for s, q, p, o, u in comparison.rows]
        write_csv(staging / 'comparison.csv', ['section', 'quantity', 'paper', 'ours', 'unit', 'difference',
                                               'difference_text'], rows)
        if rows:
            summary.insert(1 + int(args.quick), '## Paper vs ours\n\n' + md_table(
                ['section', 'quantity', 'paper', 'ours', 'ours vs paper'],
                [[s, q, fmt(p), fmt(o), text] for s, q, p, o, _, _, text in rows]) + '\n'
                'Differences: percentage points (pp) where the quantity is a percentage, else % of the '
                "paper's value. n/a: the paper gives no number (Fig. 6 only).\n")
        elapsed = time.perf_counter() - started
        summary.append(f'Generated by `python -m cobra_experiments.reproduce_lts {" ".join(sys.argv[1:] if argv is None else argv)}` '
                       f'in {elapsed:.0f} s wall time.\n')
        (staging / 'summary.md').write_text('\n'.join(summary))
        if args.out.exists():
            shutil.rmtree(args.out)
        staging.rename(args.out)
    except LtsRunError as error:
        shutil.rmtree(staging, ignore_errors=True)
        print(f'error: {error}', file=sys.stderr)
        return 2
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    width = max([len('quantity')] + [len(row[1]) for row in rows])
    print(f"{'section':7s} {'quantity':{width}s} {'paper':>8s} {'ours':>9s} {'ours vs paper':>14s}")
    for s, q, p, o, _, _, text in rows:
        print(f'{s:7s} {q:{width}s} {fmt(p):>8s} {fmt(o):>9s} {text:>14s}')
    print(f'wrote {args.out} ({elapsed:.0f} s)')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
