"""SCM loose sand against rigid ground, sidewinding through the nodes (thesis §25–27): stride per
cycle, contact duration and peak contact force for gait1 and gait2, with the run-to-run spread.

Each run is the whole stack (`scripts/run_sim.sh use_sim:=true terrain:=T gait:=G
real_time_factor:=0`, lockstep, recorded), analysed by cobra_analysis over the steady cycles
(the ramp left out): stride = |mean head displacement| per steady cycle; contact share = share of
steady time a link's |contact force| exceeds 0.1 N, averaged over the links; peak = the largest
link |contact force| over the steady cycles. Lockstep runs are deterministic, so repeats differ by what differs between
real runs: the start pose (start_x_m, start_y_m, start_yaw_rad through a params_file), which on
SCM moves the robot against the soil grid; on level rigid ground a moved start moves the run
rigidly (cobra_sim test_start_pose), so rigid spreads are ~0 by construction.

Verdict per gait: the SCM/rigid stride ratio's distance from 1 must exceed the combined spread
(max − min over the runs of each terrain, relative to the rigid mean), and likewise contact share
(longer on sand) and peak force (lower on sand).

Run:  .venv/bin/python -m cobra_experiments.sidewind_terrain_compare --out out/sidewind_scm [--runs 2]
      .venv/bin/python -m cobra_experiments.sidewind_terrain_compare --out out/sidewind_scm --analyse-only
Bad input (unknown gait, runs < 1, an --out that is a file) prints one message and exits 2.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from cobra_experiments.figures import save_figure

GAIT_DURATIONS_S = {'gait1': 20.0, 'gait2': 24.0}   # 2 s ramp + >= 5 steady cycles (2.5 / 3.33 s) + margin
TERRAINS = ('rigid', 'scm')
# start poses of the repeats (x, y, yaw): the origin, then moves of a few grid cells and a turn
START_POSES = ((0.0, 0.0, 0.0), (0.37, 0.23, 0.3), (-0.51, 0.13, -0.25))


class CompareError(ValueError):
    """Input that cannot give a comparison (exit 2)."""


@dataclass(frozen=True)
class RunFigures:
    gait: str
    terrain: str
    run: int
    start_xy_yaw: tuple[float, float, float]
    steady_cycles: int
    stride_m: float
    stride_std_m: float
    body_stride_m: float            # centroid of the link origins, |mean displacement| per steady cycle
    body_yaw_per_cycle_deg: float   # mean change of the body's principal-axis yaw per steady cycle
    contact_share: float
    peak_force_n: float
    mean_force_n: float


def bag_dir(out_dir: Path, gait: str, terrain: str, run: int) -> Path:
    return out_dir / f'{gait}_{terrain}_run{run}'


def params_file(out_dir: Path, run: int) -> Path:
    """A sim_node params_file with this repeat's start pose."""
    x, y, yaw = START_POSES[run]
    path = out_dir / f'start_run{run}.yaml'
    path.write_text(f'sim_node:\n  ros__parameters:\n    start_x_m: {x}\n    start_y_m: {y}\n'
                    f'    start_yaw_rad: {yaw}\n')
    return path


def run_one(out_dir: Path, gait: str, terrain: str, run: int) -> float:
    """Run the stack once into its bag folder (skipped when the bag exists); wall seconds."""
    bag = bag_dir(out_dir, gait, terrain, run)
    if (bag / 'metadata.yaml').is_file():
        return 0.0
    # the pip-mode runner from the same environment (a sourced workspace or the venv's .pth)
    command = [sys.executable, '-m', 'cobra_bringup.runner', 'sidewind.launch.py', 'use_sim:=true',
               'record:=true', f'terrain:={terrain}', f'gait:={gait}',
               f'duration:={GAIT_DURATIONS_S[gait]}', 'real_time_factor:=0', f'bag_path:={bag.resolve()}',
               f'params_file:={params_file(out_dir, run).resolve()}']
    env = {**os.environ, 'ROS_AUTOMATIC_DISCOVERY_RANGE': 'LOCALHOST'}
    begin = time.monotonic()
    with (out_dir / f'{bag.name}.log').open('w') as log:
        code = subprocess.call(command, cwd=out_dir, stdout=log, stderr=subprocess.STDOUT, env=env)
    if code != 0:
        raise RuntimeError(f'{bag.name}: the runner exited {code}; see {out_dir / (bag.name + ".log")}')
    return time.monotonic() - begin


def analyse_run(bag_path: Path, gait: str, terrain: str, run: int) -> RunFigures:
    """Stride, contact share and forces over the steady cycles of one recorded run."""
    from cobra_analysis.analysis import analyse_bag
    from cobra_analysis.bag_reader import read_bag

    analysis = analyse_bag(read_bag(bag_path), bag_path.name)
    if analysis.locomotion is None or analysis.contact is None:
        raise CompareError(f'{bag_path}: {analysis.absent}')
    loco, contact = analysis.locomotion, analysis.contact
    cycles = analysis.cycles
    steady = cycles.steady_indices
    steady = steady[(cycles.bounds_s[steady] >= analysis.bag.head.times_s[0])
                    & (cycles.bounds_s[steady + 1] <= analysis.bag.head.times_s[-1])]
    poses = body_poses(analysis.bag, cycles.bounds_s[np.r_[steady, steady[-1] + 1]])
    body_steps = np.diff(poses, axis=0)
    return RunFigures(gait, terrain, run, START_POSES[run], int(len(loco.stride_m)), loco.mean_stride_m,
                      float(np.std(loco.stride_m)), float(np.linalg.norm(body_steps[:, :2].mean(axis=0))),
                      float(np.degrees(np.mean(np.angle(np.exp(1j * body_steps[:, 2]))))),
                      float(np.mean(contact.contact_fraction)),
                      contact.peak_force_n, float(np.mean(contact.mean_force_per_link_n)))


def body_poses(bag: object, times_s: np.ndarray) -> np.ndarray:
    """(x, y, yaw) [n, 3] of the body (cobra_gaits.body_pose: centroid and principal axis of the link
    origins by forward kinematics at joint_states, placed by the head's ground-truth position and
    yaw; the bag keeps no head pitch/roll, so they are taken as 0: at equal gait phase the shape
    and tilt repeat, so the error is the same at every cycle boundary and drops out of the steps)."""
    from cobra_description.robot_model import load_robot_model
    from cobra_gaits.body_pose import BodyPoseEstimator

    estimator = BodyPoseEstimator(load_robot_model(None))
    head, joints = bag.head, bag.joint_states
    out = []
    for t in times_s:
        position = [float(np.interp(t, head.times_s, head.position_m[:, i])) for i in range(3)]
        yaw = float(np.interp(t, head.times_s, head.yaw_rad))
        angles = {name: float(np.interp(t, joints.times_s, joints.position_rad[:, k]))
                  for k, name in enumerate(joints.names)}
        quaternion = [0.0, 0.0, math.sin(0.5 * yaw), math.cos(0.5 * yaw)]
        out.append(estimator.body_pose(position, quaternion, angles))
    poses = np.array(out)
    poses[:, 2] = np.unwrap(poses[:, 2])
    return poses


def summarise(figures: list[RunFigures]) -> list[dict[str, object]]:
    """Per gait: means and spreads per terrain, SCM/rigid ratios and whether each finding holds
    by more than the run-to-run spread."""
    rows = []
    for gait in sorted({f.gait for f in figures}):
        by = {t: [f for f in figures if f.gait == gait and f.terrain == t] for t in TERRAINS}
        if not by['rigid'] or not by['scm']:
            continue
        row: dict[str, object] = {'gait': gait, 'runs': {t: len(by[t]) for t in TERRAINS}}
        for name in ('stride_m', 'body_stride_m', 'contact_share', 'peak_force_n'):
            values = {t: np.array([getattr(f, name) for f in by[t]]) for t in TERRAINS}
            rigid_mean, scm_mean = float(values['rigid'].mean()), float(values['scm'].mean())
            spread = float(np.ptp(values['rigid']) + np.ptp(values['scm'])) / rigid_mean
            ratio = scm_mean / rigid_mean
            expected_lower = name != 'contact_share'
            holds = (1.0 - ratio > spread) if expected_lower else (ratio - 1.0 > spread)
            row[name] = {'rigid_mean': rigid_mean, 'scm_mean': scm_mean,
                         'rigid_range': [float(values['rigid'].min()), float(values['rigid'].max())],
                         'scm_range': [float(values['scm'].min()), float(values['scm'].max())],
                         'ratio_scm_to_rigid': ratio, 'relative_spread': spread, 'holds': bool(holds)}
        rows.append(row)
    return rows


def print_table(figures: list[RunFigures], rows: list[dict[str, object]]) -> None:
    print(f'{"gait":6} {"terrain":8} {"run":>3} {"start x,y,yaw":>18} {"cycles":>6} {"stride m":>9} '
          f'{"±cycle":>7} {"body m":>7} {"yaw°/cyc":>8} {"contact share":>13} {"peak N":>7} {"mean N":>7}')
    for f in figures:
        start = ','.join(f'{v:g}' for v in f.start_xy_yaw)
        print(f'{f.gait:6} {f.terrain:8} {f.run:>3} {start:>18} {f.steady_cycles:>6} {f.stride_m:>9.4f} '
              f'{f.stride_std_m:>7.4f} {f.body_stride_m:>7.4f} {f.body_yaw_per_cycle_deg:>8.2f} '
              f'{f.contact_share:>13.3f} {f.peak_force_n:>7.1f} {f.mean_force_n:>7.2f}')
    print()
    print(f'{"gait":6} {"quantity":14} {"rigid (min-max)":>22} {"scm (min-max)":>22} {"scm/rigid":>9} '
          f'{"spread":>7} verdict')
    for row in rows:
        for name, expect in (('stride_m', 'shorter'), ('body_stride_m', 'shorter'), ('contact_share', 'longer'),
                             ('peak_force_n', 'lower')):
            value = row[name]
            rigid = f'{value["rigid_mean"]:.4g} ({value["rigid_range"][0]:.4g}-{value["rigid_range"][1]:.4g})'
            scm = f'{value["scm_mean"]:.4g} ({value["scm_range"][0]:.4g}-{value["scm_range"][1]:.4g})'
            verdict = f'{expect} on SCM: {"HOLDS" if value["holds"] else "NOT beyond the spread"}'
            print(f'{row["gait"]:6} {name:14} {rigid:>22} {scm:>22} {value["ratio_scm_to_rigid"]:>9.3f} '
                  f'{value["relative_spread"]:>7.3f} {verdict}')


def plot(path: Path, figures: list[RunFigures]) -> None:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    gaits = sorted({f.gait for f in figures})
    panels = (('stride_m', 'head stride per steady cycle [m]'), ('body_stride_m', 'body-centroid stride per cycle [m]'),
              ('contact_share', 'mean link contact share [-]'),
              ('peak_force_n', 'peak link contact force [N]'))
    figure, axes = plt.subplots(1, 4, figsize=(15, 4))
    for axis, (name, label) in zip(axes, panels):
        for g, gait in enumerate(gaits):
            for t, (terrain, colour) in enumerate(zip(TERRAINS, ('tab:blue', 'tab:orange'))):
                values = [getattr(f, name) for f in figures if f.gait == gait and f.terrain == terrain]
                x = g + (t - 0.5) * 0.3
                axis.bar(x, np.mean(values) if values else 0.0, width=0.28, color=colour,
                         label=terrain if g == 0 else None)
                axis.plot([x] * len(values), values, 'k.', markersize=6)
        axis.set_xticks(range(len(gaits)), gaits)
        axis.set_xlabel('gait')
        axis.set_ylabel(label)
    axes[0].legend(title='terrain (dots: runs)')
    figure.suptitle('Sidewinding through the nodes: SCM loose sand vs rigid ground (steady cycles)')
    figure.tight_layout()
    save_figure(figure, path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--out', default=str(Path('out') / 'sidewind_scm'), help='output folder (bags, table)')
    parser.add_argument('--gaits', nargs='+', default=['gait1', 'gait2'], help='gait presets')
    parser.add_argument('--runs', type=int, default=2, help=f'repeats per gait and terrain (1-{len(START_POSES)})')
    parser.add_argument('--analyse-only', action='store_true', help='analyse the bags already in --out')
    args = parser.parse_args(argv)
    out_dir = Path(args.out)
    try:
        unknown = [g for g in args.gaits if g not in GAIT_DURATIONS_S]
        if unknown:
            raise CompareError(f'unknown gait {unknown[0]!r}: use {", ".join(GAIT_DURATIONS_S)}')
        if not 1 <= args.runs <= len(START_POSES):
            raise CompareError(f'--runs {args.runs}: give 1 to {len(START_POSES)}')
        if out_dir.exists() and not out_dir.is_dir():
            raise CompareError(f'--out {out_dir} is a file: give a folder')
    except CompareError as error:
        print(f'sidewind_terrain_compare: error: {error}', file=sys.stderr)
        return 2
    out_dir.mkdir(parents=True, exist_ok=True)
    figures: list[RunFigures] = []
    for run in range(args.runs):
        for gait in args.gaits:
            for terrain in TERRAINS:
                bag = bag_dir(out_dir, gait, terrain, run)
                if not args.analyse_only:
                    wall = run_one(out_dir, gait, terrain, run)
                    print(f'{bag.name}: ran in {wall:.0f} s wall', file=sys.stderr, flush=True)
                if (bag / 'metadata.yaml').is_file():
                    figures.append(analyse_run(bag, gait, terrain, run))
    figures.sort(key=lambda f: (f.gait, f.terrain, f.run))
    rows = summarise(figures)
    print_table(figures, rows)
    (out_dir / 'sidewind_scm_vs_rigid.json').write_text(
        json.dumps({'runs': [asdict(f) for f in figures], 'summary': rows}, indent=2))
    plot(out_dir / 'sidewind_scm_vs_rigid.png', figures)
    print(f'sidewind_terrain_compare: wrote {out_dir}/sidewind_scm_vs_rigid.png and .json', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
