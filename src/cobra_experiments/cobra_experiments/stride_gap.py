"""Why the engine test's SCM/rigid stride ratio (0.87, cobra_sim test_terrain_engine) and the node
runs' (0.96–0.98, sidewind_terrain_compare) differ: the same engine, one run per terrain and
command period, every cycle's stride measured both ways.

- engine test's measure: the centre of mass's y displacement per cycle, the first 4 cycles after
  the 2 s ramp, targets updated every control period (2 ms);
- node measure (cobra_analysis): the head's |mean displacement vector| per steady cycle, the
  cycles of the whole run, targets from the gait node every 10 ms (100 Hz).

Prints per cycle the COM-y and head strides on each terrain and their ratios, then each measure's
ratio over cycles 1–4 and over every cycle, and writes the per-cycle figure.

Run:  .venv/bin/python -m cobra_experiments.stride_gap --out out/stride_gap [--cycles 8] [--gait gait1]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from cobra_experiments.figures import save_figure

GAITS = {'gait1': (0.4, 0.35, 0.70), 'gait2': (0.3, 0.45, 0.90)}   # config/gait.yaml: f [Hz], A_ver, A_hor [rad]
RAMP_S = 2.0


def run_cycles(terrain: str, gait: str, cycles: int, command_period_s: float) -> dict[str, np.ndarray]:
    """COM and head xy at the ramp's end and at every cycle boundary after it."""
    from cobra_description.robot_model import load_robot_model
    from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams
    from cobra_sim.engine import CobraSim, SimParams
    from cobra_sim.terrain import default_terrain_file, make_terrain

    robot = load_robot_model(None)
    joints = robot.gait_joints()
    names = [joint.name for joint in joints]
    frequency, vertical, horizontal = GAITS[gait]
    generator = SidewindingGenerator([joint.axis_kind for joint in joints],
                                     SidewindingParams(frequency, vertical, horizontal, 'left'))
    generator.ramp.start()
    sim = CobraSim(robot, make_terrain(terrain, default_terrain_file(terrain)), SimParams(), np.random.default_rng(0))
    sim.settle()
    period = sim.params.control_period_s
    per_command = max(1, round(command_period_s / period))
    step = [0]

    def advance() -> None:
        if step[0] % per_command == 0:
            generator.advance(per_command * period)
            sim.set_targets(dict(zip(names, generator.positions())))
        step[0] += 1
        sim.step_control_period()

    for _ in range(round(RAMP_S / period)):
        advance()
    com, head = [sim.center_of_mass()[:2].copy()], [sim.head_pose()[0][:2].copy()]
    for _ in range(cycles):
        for _ in range(round(1.0 / frequency / period)):
            advance()
        com.append(sim.center_of_mass()[:2].copy())
        head.append(sim.head_pose()[0][:2].copy())
    return {'com_m': np.array(com), 'head_m': np.array(head)}


def strides(track: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    com, head = np.diff(track['com_m'], axis=0), np.diff(track['head_m'], axis=0)
    return {'com_y_m': com[:, 1], 'com_norm_m': np.linalg.norm(com, axis=1), 'head_vectors_m': head,
            'head_norm_m': np.linalg.norm(head, axis=1)}


def mean_vector_stride(vectors: np.ndarray) -> float:
    """cobra_analysis's stride: |mean displacement vector| per cycle."""
    return float(np.linalg.norm(vectors.mean(axis=0)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--out', default=str(Path('out') / 'stride_gap'))
    parser.add_argument('--gait', choices=sorted(GAITS), default='gait1')
    parser.add_argument('--cycles', type=int, default=8)
    args = parser.parse_args(argv)
    if args.cycles < 4:
        print(f'stride_gap: error: --cycles {args.cycles}: give at least 4', file=sys.stderr)
        return 2
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    results = {}
    for command_period_s in (0.002, 0.01):
        per_terrain = {terrain: strides(run_cycles(terrain, args.gait, args.cycles, command_period_s))
                       for terrain in ('rigid', 'scm')}
        results[command_period_s] = per_terrain
        rigid, scm = per_terrain['rigid'], per_terrain['scm']
        print(f'\n{args.gait}, targets every {command_period_s * 1e3:g} ms')
        print(f'{"cycle":>5} {"rigid COM y":>11} {"SCM COM y":>10} {"ratio":>6} {"rigid head":>10} '
              f'{"SCM head":>9} {"ratio":>6}')
        for k in range(args.cycles):
            print(f'{k + 1:>5} {rigid["com_y_m"][k]:>11.4f} {scm["com_y_m"][k]:>10.4f} '
                  f'{scm["com_y_m"][k] / rigid["com_y_m"][k]:>6.3f} {rigid["head_norm_m"][k]:>10.4f} '
                  f'{scm["head_norm_m"][k]:>9.4f} {scm["head_norm_m"][k] / rigid["head_norm_m"][k]:>6.3f}')
        for label, cycles in (('cycles 1-4', slice(0, 4)), (f'cycles 1-{args.cycles}', slice(0, args.cycles)),
                              (f'cycles 3-{args.cycles}', slice(2, args.cycles))):
            com_ratio = scm['com_y_m'][cycles].mean() / rigid['com_y_m'][cycles].mean()
            head_ratio = (mean_vector_stride(scm['head_vectors_m'][cycles])
                          / mean_vector_stride(rigid['head_vectors_m'][cycles]))
            print(f'  {label:12} SCM/rigid: COM y {com_ratio:.3f}, head |mean Δ| {head_ratio:.3f}')
    (out_dir / 'stride_gap.json').write_text(json.dumps(
        {str(p): {t: {k: np.asarray(v).tolist() for k, v in s.items()} for t, s in r.items()}
         for p, r in results.items()}, indent=2))
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7, 4))
    cycles = np.arange(1, args.cycles + 1)
    for command_period_s, style in ((0.002, '-'), (0.01, '--')):
        r = results[command_period_s]
        axis.plot(cycles, r['scm']['com_y_m'] / r['rigid']['com_y_m'], 'o' + style, color='tab:orange',
                  label=f'COM y, targets every {command_period_s * 1e3:g} ms')
        axis.plot(cycles, r['scm']['head_norm_m'] / r['rigid']['head_norm_m'], 's' + style, color='tab:blue',
                  label=f'head |Δ|, targets every {command_period_s * 1e3:g} ms')
    axis.set_xlabel('gait cycle after the 2 s ramp [-]')
    axis.set_ylabel('stride SCM / rigid [-]')
    axis.set_title(f'{args.gait}: per-cycle stride ratio, engine alone', fontsize=9)
    axis.legend(fontsize=8)
    figure.tight_layout()
    save_figure(figure, out_dir / 'stride_gap.png')
    print(f'stride_gap: wrote {out_dir}/stride_gap.png and stride_gap.json', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
