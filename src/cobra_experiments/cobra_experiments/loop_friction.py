"""Why the latched COBRA loop skids on DEM sand, and what stops it: a sliding test of the loop's
shell on the bed at the thesis's wheel/terrain μ = 0.67 (thesis §21), for the smooth link
cylinders and for the loop with module edges (cobra_dem.body: a ring standing proud of the shell
at every module joint, the modules' end brackets and the latch).

Sliding test: the loop is set free at rest on its flat head–tail side on the 24° bed (a tilt test
at one angle: it slides if its effective friction is below tan 24° = 0.445). The effective friction
is read two ways: from the contact force, μ_F = −F_x / F_z over the sliding samples (bed frame: x
downslope, z normal; the grains' force on the body), and from the motion, μ_a = tan θ − a / (g cos θ)
with a the least-squares acceleration of x(t); μ_F is also read over the first 0.15 s and after
0.3 s with the mean sinkage there (the traction builds up as the shell digs in). Rolling share:
ω_y r / v (r the loop's rolling radius; 1 = rolling without slip, 0 = pure sliding, < 0 turning
backwards). Held spin: the same loop with ω_r = π/4 held (the DEM scenario's prescribed motion), its distance against the rigid
reference's (cobra_dem.rigid_reference, MuJoCo, μ 0.5). The cause: the smooth loop also runs on the
same fills frozen (grain_motion: frozen: the same shell and contact law, the grains cannot give way).

Run:  .venv/bin/python -m cobra_experiments.loop_friction --out out/loop_friction [--edge-height 0.008] [--duration 0.5]
      [--seeds 3]  (each case on bed fills 1..N: the spread is the margin a finding needs)
      (6 DEM runs on the LAMMPS test bed for the loop, 0.16 m wide for the edges: 0.6 × 0.16 m,
      30 mm deep, 5 mm spheres;
      about 1 min each on one free core; finished runs in --out are reused)
Bad input (duration <= 0, edge height <= 0) prints one message and exits 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from cobra_dem.body import BodyError
from cobra_dem.outputs import interval_mean_contact_force_n
from cobra_dem.scenario import GRAVITY_M_S2, Scenario, ScenarioError, scenario_from_dict
from cobra_experiments.figures import save_figure

LOOP_BED = {'length_m': 0.6, 'width_m': 0.16, 'depth_m': 0.03, 'sphere_radius_m': 0.005, 'clump_spacing_of_radius': 2.0,
            'settle_time_s': 0.15, 'settle_max_time_s': 0.4}   # the LAMMPS test bed for the loop
SLIDING_SPEED_M_S = 0.02      # samples faster than this along the slope count as sliding
SETTLE_SKIP_S = 0.05          # the first samples after release: the bed yields under the new load
CASE_LABELS = {'smooth': 'smooth shell', 'edges': 'module edges', 'frozen': 'smooth shell, bed frozen',
               'rigid': 'rigid slope (MuJoCo, μ 0.5)'}
WINDOWS_S = {'early': (0.0, 0.15), 'late': (0.3, math.inf)}   # traction read separately in these spans [s]


class LoopFrictionError(ValueError):
    """Input that cannot give a measurement (exit 2)."""


def loop_scenario(edge_height_m: float, motion: str, duration_s: float, bed_width_m: float = 0.16,
                  bed_seed: int = 1, grain_motion: str = 'mobile') -> Scenario:
    """The latched COBRA loop on the loop test bed, 24°, the thesis §21 materials; `bed_seed` draws
    another random fill of the same bed; grain_motion 'frozen' holds its settled grains."""
    return scenario_from_dict({'bed': dict(LOOP_BED, width_m=bed_width_m, seed=bed_seed), 'slope_deg': 24.0,
                               'duration_s': duration_s, 'grain_motion': grain_motion,
                               'body': {'kind': 'cobra_loop', 'motion': motion, 'start_x_m': 0.3,
                                        'settle_time_s': 0.1, 'module_edge_height_m': edge_height_m}}).validate()


def sliding_friction(trace: dict[str, np.ndarray], slope_deg: float, rolling_radius_m: float) -> dict[str, Any]:
    """Effective friction (from the force and from the motion) and rolling share of a free run."""
    t = trace['time_s'] - trace['time_s'][0]
    x = trace['position_m'][:, 0] - trace['position_m'][0, 0]
    v = trace['velocity_m_s'][:, 0]
    force = trace['contact_force_n']
    spin = trace['angular_velocity_rad_s'][:, 1]
    theta = math.radians(slope_deg)
    sliding = (np.abs(v) > SLIDING_SPEED_M_S) & (t >= SETTLE_SKIP_S) & (force[:, 2] > 0)
    out: dict[str, Any] = {'distance_m': float(x[-1]), 'final_speed_m_s': float(v[-1]),
                           'sliding_samples': int(sliding.sum()), 'tan_slope': math.tan(theta)}
    if sliding.sum() >= 3:
        out['friction_from_force'] = float(-force[sliding, 0].sum() / force[sliding, 2].sum())
        out['rolling_share'] = float(np.mean(spin[sliding] * rolling_radius_m / v[sliding]))
    else:
        out['friction_from_force'] = float('nan')
        out['rolling_share'] = float('nan')
    for key, (begin, end) in WINDOWS_S.items():   # how the traction builds up as the shell digs in
        inside = (t >= begin) & (t < end) & (force[:, 2] > 0)
        out[f'friction_{key}'] = (float(-force[inside, 0].sum() / force[inside, 2].sum()) if inside.sum() >= 3
                                  else float('nan'))
        out[f'sinkage_{key}_m'] = (float(np.mean(trace['sinkage_m'][inside])) if 'sinkage_m' in trace and inside.any()
                                   else float('nan'))
    after = t >= SETTLE_SKIP_S
    if after.sum() >= 3 and x[-1] > 0.005:
        acceleration = 2.0 * float(np.polyfit(t[after], x[after], 2)[0])
        out['acceleration_m_s2'] = acceleration
        out['friction_from_motion'] = math.tan(theta) - acceleration / (GRAVITY_M_S2 * math.cos(theta))
    else:   # it held: the friction used is below what it could give
        out['acceleration_m_s2'] = 0.0
        out['friction_from_motion'] = float('nan')
    out['holds'] = bool(x[-1] < 0.005)
    return out


def seed_spread(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per shell and motion, the (min, max) over the bed seeds of distance, μ_F and rolling share,
    and how many seeds held the loop."""
    cases: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        cases.setdefault((row['shell'], row['motion']), []).append(row)
    spread = []
    for (shell, motion), case in cases.items():
        entry: dict[str, Any] = {'shell': shell, 'motion': motion, 'seeds': len(case),
                                 'holds': sum(bool(row['holds']) for row in case)}
        for key in ('distance_m', 'friction_from_force', 'rolling_share'):
            values = [float(row[key]) for row in case]
            entry[key] = (min(values), max(values))
        spread.append(entry)
    return spread


def cause_lines(rows: list[dict[str, Any]]) -> list[str]:
    """Per motion, the smooth shell on the mobile bed against the same shell on the same fills frozen
    (their seed_spread): whether the skid needs the grains to give way (the frozen bed rolls it as the
    rigid slope does)."""
    spread = {(case['shell'], case['motion']): case for case in seed_spread(rows)}
    lines = []
    for motion in ('free', 'prescribed'):
        mobile, frozen = spread.get(('smooth', motion)), spread.get(('frozen', motion))
        if mobile is None or frozen is None:
            continue
        rigid_m = next(row['rigid_distance_m'] for row in rows if row['shell'] == 'smooth' and row['motion'] == motion)
        lines.append(f'cause ({"free from rest" if motion == "free" else "spin held"}): smooth shell ωr/v '
                     f'{_span(mobile["rolling_share"])} on the mobile bed, {_span(frozen["rolling_share"])} on the '
                     f'same fills frozen; distance {_span(mobile["distance_m"])} m against '
                     f'{_span(frozen["distance_m"])} m frozen and {rigid_m:.3f} m rigid')
    return lines


def _span(low_high: tuple[float, float]) -> str:
    return f'{low_high[0]:.2f}-{low_high[1]:.2f}'


def run_or_load(scenario: Scenario, run_dir: Path) -> dict[str, np.ndarray]:
    if not (run_dir / 'trajectory.npz').is_file():
        from cobra_dem.lammps_backend import run_scenario
        run_scenario(scenario, run_dir, log=lambda line: print(line, file=sys.stderr, flush=True))
    return {name: value for name, value in np.load(run_dir / 'trajectory.npz').items()}


def plot(path: Path, traces: dict[tuple[str, str], dict[str, np.ndarray]], rolling_radius_m: float) -> None:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(3, 1, figsize=(7, 8.5), sharex=True)
    styles = {'smooth': 'tab:red', 'edges': 'tab:blue', 'frozen': 'tab:green', 'rigid': 'grey'}
    for (shell, motion), trace in traces.items():
        t = trace['time_s'] - trace['time_s'][0]
        line = '-' if motion == 'free' else '--'
        label = f'{CASE_LABELS[shell]}, {"free from rest" if motion == "free" else "spin held π/4 rad/s"}'
        axes[0].plot(t, trace['position_m'][:, 0] - trace['position_m'][0, 0], line, color=styles[shell], label=label)
        v = trace['velocity_m_s'][:, 0]
        share = np.where(np.abs(v) > SLIDING_SPEED_M_S, trace['angular_velocity_rad_s'][:, 1] * rolling_radius_m
                         / np.where(np.abs(v) > SLIDING_SPEED_M_S, v, 1.0), np.nan)
        axes[1].plot(t, share, line, color=styles[shell])
        fz = trace['contact_force_n'][:, 2]
        ratio = np.where(fz > 1.0, -trace['contact_force_n'][:, 0] / np.where(fz > 1.0, fz, 1.0), np.nan)
        if shell != 'rigid':
            axes[2].plot(t, ratio, line, color=styles[shell])
    axes[2].axhline(math.tan(math.radians(24.0)), color='k', linestyle=':', label='tan 24° (to hold on the slope)')
    axes[2].axhline(0.67, color='tab:brown', linestyle=':', label='grain μ 0.67 (thesis §21)')
    axes[0].set_ylabel('distance down the slope [m]')
    axes[1].set_ylabel('rolling share ω r / v [-]')
    axes[1].set_ylim(-1.0, 2.0)
    axes[2].set_ylabel('traction / normal force −F_x/F_z [-]')
    axes[2].set_ylim(-0.5, 1.5)
    axes[2].set_xlabel('time since the slope was applied [s]')
    axes[0].legend(loc='upper left', fontsize=8)
    axes[2].legend(loc='upper right', fontsize=8)
    axes[0].set_title('latched COBRA loop on 24° DEM sand: smooth link shells vs module edges,\n'
                      'and the smooth loop on the same bed frozen', fontsize=9)
    figure.tight_layout()
    save_figure(figure, path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--out', default=str(Path('out') / 'loop_friction'), help='output folder (runs are reused)')
    parser.add_argument('--edge-height', type=float, default=0.008,
                        help='module edge height proud of the shell [m] (our choice)')
    parser.add_argument('--duration', type=float, default=0.5, help='simulated time per run [s]')
    parser.add_argument('--bed-width', type=float, default=0.16,
                        help='bed width [m] (> the loop width + 2 clumps: 0.18 for edges above 10 mm)')
    parser.add_argument('--seeds', type=int, default=1,
                        help='bed fills (seeds 1..N) per case: the spread between them is the margin a finding needs')
    args = parser.parse_args(argv)
    if not args.duration > 0 or not args.edge_height > 0 or args.seeds < 1:
        print(f'loop_friction: error: --duration {args.duration} / --edge-height {args.edge_height} / --seeds '
              f'{args.seeds}: give values > 0', file=sys.stderr)
        return 2
    try:      # every scenario checked before anything is written (a bed too narrow for the edges)
        for height in (0.0, args.edge_height):
            loop_scenario(height, 'free', args.duration, args.bed_width).body.shape
    except (ScenarioError, BodyError) as error:
        print(f'loop_friction: error: {error}', file=sys.stderr)
        return 2
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    from cobra_dem.rigid_reference import rigid_body_trace

    traces: dict[tuple[str, str], dict[str, np.ndarray]] = {}
    rows = []
    for seed in range(1, args.seeds + 1):
        for shell, height, grains in (('smooth', 0.0, 'mobile'), ('edges', args.edge_height, 'mobile'),
                                      ('frozen', 0.0, 'frozen')):
            for motion in ('free', 'prescribed'):
                scenario = loop_scenario(height, motion, args.duration, args.bed_width, seed, grains)
                trace = run_or_load(scenario, out_dir / (f'{shell}_{motion}' + (f'_seed{seed}' if seed > 1 else '')))
                if seed == 1:
                    traces[(shell, motion)] = trace
                figures = sliding_friction(trace, scenario.slope_deg, scenario.body.shape.rolling_radius_m)
                if ('rigid', motion) not in traces:     # MuJoCo's loop has no edges: one per motion
                    duration_s = float(trace['time_s'][-1] - trace['time_s'][0])
                    traces[('rigid', motion)] = rigid_body_trace(
                        scenario, duration_s, float(np.median(np.diff(trace['time_s']))), friction=0.5)
                rigid = traces[('rigid', motion)]
                figures['rigid_distance_m'] = float(rigid['position_m'][-1, 0] - rigid['position_m'][0, 0])
                for key, run in (('peak_impulse_normal_force_n', trace), ('rigid_peak_impulse_normal_force_n', rigid)):
                    figures[key] = float(np.max(interval_mean_contact_force_n(
                        run, scenario.body.shape.mass_kg, scenario.gravity_vector)[:, 2]))   # impacts by their impulse
                moved = abs(figures['rigid_distance_m']) > 1e-3          # else the rigid slope holds it
                figures['ratio_to_rigid'] = (figures['distance_m'] / figures['rigid_distance_m'] if moved
                                             else float('nan'))
                rows.append({'shell': shell, 'edge_height_m': height, 'motion': motion, 'bed_seed': seed, **figures})
    shape = loop_scenario(0.0, 'free', args.duration).body.shape
    print(f'{"shell":7} {"motion":10} {"seed":>4} {"distance m":>10} {"rigid m":>8} {"ratio":>6} {"final v":>8} '
          f'{"μ_F=-Fx/Fz":>10} {"μ_F<0.15s":>9} {"μ_F>0.3s":>8} {"sink mm":>8} {"μ_a":>6} {"ωr/v":>6} '
          f'{"peak Fn N":>9} {"rigid":>6}')
    for row in rows:
        print(f'{row["shell"]:7} {row["motion"]:10} {row["bed_seed"]:>4} {row["distance_m"]:>10.3f} '
              f'{row["rigid_distance_m"]:>8.3f} '
              f'{row["ratio_to_rigid"]:>6.2f} {row["final_speed_m_s"]:>8.3f} {row["friction_from_force"]:>10.3f} '
              f'{row["friction_early"]:>9.3f} {row["friction_late"]:>8.3f} '
              f'{row["sinkage_early_m"] * 1e3:>3.1f}-{row["sinkage_late_m"] * 1e3:<4.1f} '
              f'{row["friction_from_motion"]:>6.3f} {row["rolling_share"]:>6.2f} '
              f'{row["peak_impulse_normal_force_n"]:>9.0f} {row["rigid_peak_impulse_normal_force_n"]:>6.0f}')
    if args.seeds > 1:
        print(f'over {args.seeds} bed fills (min-max):')
        for case in seed_spread(rows):
            print(f'  {case["shell"]:7} {case["motion"]:10} distance {case["distance_m"][0]:.3f}-'
                  f'{case["distance_m"][1]:.3f} m, μ_F {case["friction_from_force"][0]:.3f}-'
                  f'{case["friction_from_force"][1]:.3f}, ωr/v {case["rolling_share"][0]:.2f}-'
                  f'{case["rolling_share"][1]:.2f}, holds {case["holds"]} of {args.seeds}')
    print(f'tan 24° = {math.tan(math.radians(24.0)):.3f} (what a resting body needs); grain and wheel/terrain μ 0.67; '
          'peak Fn: the normal contact force averaged over each sample interval, from the momentum (impacts by '
          'their impulse), DEM and rigid; shell "frozen": the smooth shell on the same bed with its grains held '
          '(grain_motion: frozen), the same contact law without the grains giving way')
    for line in cause_lines(rows):
        print(line)
    (out_dir / 'loop_friction.json').write_text(json.dumps({'runs': rows, 'spread_over_seeds': seed_spread(rows)},
                                                           indent=2))
    plot(out_dir / 'loop_friction.png', traces, shape.rolling_radius_m)
    print(f'loop_friction: wrote {out_dir}/loop_friction.png and loop_friction.json', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
