"""Tumbling report: the latched COBRA loop on the rigid slope (engine-level, no ROS).

  python -m cobra_experiments.tumble_report [--slope-deg 24] [--start sequence|rest|both] [--tumble-s 8]
      [--limp] [--friction 0.5] [--out out/tumble]

Runs cobra_experiments.tumble_run (the gait's tumbling sequence from straight, and/or the loop put at
rest upright on the slope), prints rolling speed (COM speed along the slope), roll rate of the
loop, distance rolled and peak normal force per link with the thesis's DEM wheel figures beside
ours, and writes <out>/tumble_report.json and <out>/tumble_report.png (out/ is not committed).
Bad input: one message naming the problem, exit code 2, nothing written.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path


from cobra_common.atomic_file import write_atomically
from cobra_description.robot_model import RobotModelError, default_urdf_path, load_robot_model
from cobra_experiments.figures import save_figure
from cobra_sim.terrain import TerrainConfigError, check_slope_deg
from cobra_experiments.tumble_run import (DEM_WHEEL, STARTS, TumbleRunConfig, TumbleRunError, run_tumble,
                                  summarize)


class UsageError(ValueError):
    """Input the report cannot run with."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--slope-deg', type=float, default=24.0, help='rigid slope [deg], 0 <= s < 90 (thesis §28: 24)')
    parser.add_argument('--start', default='both', help=f"{' | '.join(STARTS)} | both")
    parser.add_argument('--tumble-s', type=float, default=8.0, help='latched tumbling time [s], (0, 600]')
    parser.add_argument('--friction', type=float, default=0.5, help='ground Coulomb μ (thesis §7: 0.5)')
    parser.add_argument('--limp', action='store_true', help='torque off while latched (weld alone holds the loop)')
    parser.add_argument('--curl-speed-rad-s', type=float, default=0.6,
                        help="sequence: the gait's peak joint speed while curling (tumble.curl_speed_rad_s)")
    parser.add_argument('--latch-retry', action='store_true',
                        help='sequence: repeat latch/set true every tick while latching (the gait sends it once)')
    parser.add_argument('--wave-amplitude-rad', type=float, default=0.0,
                        help='travelling mode-2 bend wave on the pitch joints while latched, [0, 0.5] rad; 0 = passive')
    parser.add_argument('--wave-frequency-hz', type=float, default=1.0, help='its frequency, (0, 3] Hz')
    parser.add_argument('--urdf', default=str(default_urdf_path('cobra')), help='robot URDF (needs the latch frames)')
    parser.add_argument('--out', default=str(Path('out') / 'tumble'), help='folder for the JSON and PNG')
    return parser.parse_args(argv)


def configs(args: argparse.Namespace) -> list[TumbleRunConfig]:
    try:
        check_slope_deg(args.slope_deg)
    except TerrainConfigError as error:
        raise UsageError(f'--slope-deg: {error}') from error
    starts = STARTS if args.start == 'both' else (args.start,)
    if args.start != 'both' and args.start not in STARTS:
        raise UsageError(f"--start {args.start}: use {' | '.join(STARTS)} | both")
    result = []
    for start in starts:
        try:
            result.append(TumbleRunConfig(
                slope_deg=args.slope_deg, start=start, tumble_s=args.tumble_s, friction=args.friction,
                limp=args.limp, latch_retry=args.latch_retry, curl_speed_rad_s=args.curl_speed_rad_s, wave_amplitude_rad=args.wave_amplitude_rad,
                wave_frequency_hz=args.wave_frequency_hz).validated())
        except TumbleRunError as error:
            raise UsageError(f'--{str(error).split("=")[0].replace("_", "-")}: {error}') from error
    return result


def comparison_rows(summary: dict) -> list[tuple[str, str, str]]:
    """(quantity, DEM wheel of the thesis, ours) where the two are comparable."""
    if not summary.get('rolled'):
        return [('rolls downhill', 'yes (prescribed ω_r)', 'no')]
    return [
        ('slope [deg]', f"{DEM_WHEEL['slope_deg']:g}", f"{summary['slope_deg']:g}"),
        ('mass [kg]', f"{DEM_WHEEL['mass_kg']:g}", '6.0 (URDF)'),
        ('rolling radius [m]', f"{DEM_WHEEL['radius_m']:g} (wheel)", f"{summary['effective_radius_m']} (v/ω, median)"),
        ('roll rate [rad/s]', f"{DEM_WHEEL['prescribed_roll_rate_rad_s']:.3f} (prescribed)",
         f"{summary['mean_roll_rate_rad_s']} mean, {summary['final_roll_rate_rad_s']} last 1 s "
         f"({'shape wave' if summary['wave_amplitude_rad'] else 'passive'})"),
        ('COM speed [m/s]', f"{DEM_WHEEL['reference_speed_m_s']:.3f} (v_ref = ω_r r)",
         f"{summary['mean_com_speed_m_s']} mean, {summary['final_com_speed_m_s']} last 1 s"),
        ('friction μ', f"{DEM_WHEEL['friction']:g} (wheel-terrain 0.67)", f"{summary['friction']:g}"),
        ('acceleration [m/s²]', f"{summary['dem_wheel']['ideal_wheel_acceleration_m_s2 (I=0.75 m r^2)']} "
         '(lossless wheel, I = 0.75 m r²)', f"{summary['com_acceleration_fit_m_s2']} (fit)"),
    ]


def print_summary(summary: dict) -> None:
    wave = (f"  wave {summary['wave_amplitude_rad']:g} rad @ {summary['wave_frequency_hz']:g} Hz"
            if summary['wave_amplitude_rad'] else '  passive')
    print(f"\n== start: {summary['start']}  slope {summary['slope_deg']:g} deg  μ {summary['friction']:g}{wave}"
          f"{'  limp' if summary['limp'] else ''}  ->  {summary['outcome']}")
    if summary.get('latched_at_s') is None:
        print('   never latched')
        return
    if not summary['rolled']:
        print(f"   latched at {summary['latched_at_s']:.2f} s; did NOT roll (turns {summary.get('turns')}, "
              f"moved {summary.get('distance_rolled_m')} m"
              + (f", toppled onto its side {summary['toppled_after_s']} s after latching)"
                 if summary.get('toppled_after_s') is not None else ')'))
        return
    print(f"   latched at {summary['latched_at_s']:.2f} s, COM already {summary['com_along_at_latch_m']} m down "
          f"at {summary['com_speed_at_latch_m_s']} m/s")
    print(f"   rolled {summary['distance_rolled_m']} m, {summary['turns']} turns in {summary['tumbling_duration_s']} s; "
          f"max tilt of the loop {summary['max_tilt_deg']} deg"
          + (f", TOPPLED onto its side {summary['toppled_after_s']} s after latching"
             if summary['toppled_after_s'] is not None else ' (stayed upright)'))
    print('   t [s]   COM speed [m/s]   roll rate [rad/s]')
    for row in summary['per_second']:
        print(f"   {row['t_s']:5d}   {row['com_speed_m_s']:15.3f}   {row['roll_rate_rad_s']:17.3f}")
    peaks = summary['peak_normal_force_n']
    print(f"   peak normal force per link [N] (robot weight's normal part {summary['weight_normal_component_n']} N):")
    print('   ' + ', '.join(f'{name} {value:.0f}' for name, value in peaks.items()))
    print(f"   {'quantity':22s} {'DEM wheel (thesis §28)':38s} ours")
    for name, dem, ours in comparison_rows(summary):
        print(f'   {name:22s} {dem:38s} {ours}')


def plot(traces: list[tuple[dict, object]], path: Path) -> None:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(3, 1, figsize=(9, 10))
    for summary, trace in traces:
        label = f"{summary['start']} ({summary['slope_deg']:g}°)"
        axes[0].plot(trace.time_s, trace.com_speed_m_s, label=label)
        axes[1].plot(trace.time_s, trace.roll_rate_rad_s, label=label)
        if summary.get('peak_normal_force_n'):
            names = list(summary['peak_normal_force_n'])
            offset = 0.4 * STARTS.index(summary['start'])
            axes[2].bar([i + offset for i in range(len(names))], list(summary['peak_normal_force_n'].values()),
                        width=0.4, label=label)
            axes[2].set_xticks(range(len(names)), names, rotation=45, fontsize=8)
    axes[0].axhline(DEM_WHEEL['reference_speed_m_s'], color='k', ls='--', lw=0.8, label='DEM v_ref (prescribed)')
    axes[1].axhline(DEM_WHEEL['prescribed_roll_rate_rad_s'], color='k', ls='--', lw=0.8, label='DEM ω_r (prescribed)')
    axes[0].set_ylabel('COM speed along slope [m/s]')
    axes[1].set_ylabel('roll rate about y [rad/s]')
    axes[1].set_xlabel('sim time [s]')
    axes[2].set_ylabel('peak normal force while latched [N]')
    for axis in axes:
        axis.legend(fontsize=8)
        axis.grid(alpha=0.3)
    figure.tight_layout()
    save_figure(figure, path)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        run_configs = configs(args)
        try:
            robot = load_robot_model(args.urdf)
        except RobotModelError as error:
            raise UsageError(f'--urdf: {error}') from error
        if 'head_latch_link' not in robot.links or 'tail_latch_link' not in robot.links:
            raise UsageError(f'--urdf {args.urdf}: no head_latch_link/tail_latch_link, nothing to latch: '
                             f'use the COBRA URDF')
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise UsageError(f'--out {out} is a file: give a folder')
    except UsageError as error:
        print(f'tumble_report: {error}', file=sys.stderr)
        return 2
    results = []
    for config in run_configs:
        trace = run_tumble(robot, config)
        summary = summarize(trace, config)
        print_summary(summary)
        results.append((summary, trace))
    out.mkdir(parents=True, exist_ok=True)
    report = {'runs': [summary for summary, _ in results], 'dem_wheel_thesis': DEM_WHEEL,
              'command': ' '.join(['python -m cobra_experiments.tumble_report', *(argv if argv is not None else sys.argv[1:])])}
    write_atomically(out / 'tumble_report.json',
                     lambda p: p.write_text(json.dumps(report, indent=2, default=_jsonable) + '\n'))
    write_atomically(out / 'tumble_report.png', lambda p: plot(results, p))
    print(f'\nwrote {out / "tumble_report.json"} and {out / "tumble_report.png"}')
    return 0


def _jsonable(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, 'tolist'):
        return value.tolist()
    return str(value)


if __name__ == '__main__':
    raise SystemExit(main())
