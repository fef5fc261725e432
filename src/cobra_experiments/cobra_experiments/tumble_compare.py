"""Thesis §28 three-way tumbling: the thesis's wheel free from rest on 24° on rigid ground, on DEM
sand (LAMMPS), on the same sand frozen and on the thesis §5 compliant ground. One table, one figure.

- rigid: cobra_dem.rigid_reference (MuJoCo, the thesis §7 rigid ground's friction 0.5);
- DEM: a finished `python -m cobra_experiments.dem_run` folder (--dem-run), or a fresh run on
  --dem-bed small (the LAMMPS test bed: 4 mm spheres, 0.3 × 0.16 m periodic, 32 mm deep; ~1 min
  for 0.6 s here) or full (config/dem/tumble_slope.yaml's 0.5 m bed; ~5 min per simulated second);
- stiff grains: the same LAMMPS bed and fill with the grains frozen after settling (scenario
  grain_motion: frozen; ours, not the thesis's): a stiff ground with the bed's own roughness, the
  reference for the thesis's "DEM attenuates impact peaks" (the smooth wheel on the smooth rigid
  plane never leaves it, so it has no impacts to attenuate);
- compliant: the same MuJoCo body with MuJoCo's contacts off and the ground's force and torque
  from cobra_soil.CompliantGround (config/soil/compliant_ground.yaml: the thesis §5 law with the
  §7 k = 1e4 N/m, b = 1e3 N s/m per contact point, μ_s 0.5 / μ_d 0.3) applied to the body each
  step (explicit coupling, as cobra_sim's engine adapter does).

All three run in the DEM bed frame (x downslope, z slope normal, gravity tilted), after the body
settled at rest on level ground. The compliant ground is run twice: with the sim's shapes (the
law at the lowest point of each rim circle: that point is the rolling wheel's instantaneous
centre, so its damping never acts and the wheel rolls as on rigid ground) and as a per-area
foundation over the rim (RIM_POINTS points per rim circle, each standing for its share of the rim
area, k and d scaled by that area / the law's contact_point_area_m2; validated against the closed
form of a cylinder rolling on a Kelvin–Voigt foundation in validate_terrain): ground entering
the contact is damped, ground leaving it is not pulled back, so the §5 damping resists the
rolling. Lift-off: normal force below 5 % of the weight's normal part (cobra_dem.outputs).
Verdicts: rigid distance > DEM distance > compliant (per-area) distance; DEM's largest impulse
(normal force averaged over a sample interval, from the momentum) below the stiff grains'.

Run:  .venv/bin/python -m cobra_experiments.tumble_compare --dem-run out/tumble3/dem_wheel --dem-bed small
          [--out out/tumble3]
      .venv/bin/python -m cobra_experiments.tumble_compare --duration 0.6 --dem-bed small [--seeds 3]
          (--seeds N: fresh DEM runs on N bed fills; the verdict must hold on every fill)
Bad input (a missing or unreadable run folder, a duration <= 0) prints one message and exits 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from cobra_dem.outputs import LIFT_OFF_FRACTION_OF_WEIGHT, interval_mean_contact_force_n, lift_off_intervals
from cobra_dem.scenario import GRAVITY_M_S2, Scenario, ScenarioError, default_scenario_file, load_scenario
from cobra_experiments.figures import save_figure

SMALL_BED_OVERRIDES = {'bed.length_m': 0.3, 'bed.width_m': 0.16, 'bed.sphere_radius_m': 0.004, 'bed.depth_m': 0.032,
                       'bed.settle_time_s': 0.15, 'bed.settle_max_time_s': 0.4, 'body.start_x_m': 0.1}
RIM_POINTS = 180   # compliant_rim: points per rim circle (7 mm apart on r 0.20 m)
TERRAIN_LABELS = {'rigid': 'rigid slope (MuJoCo, μ 0.5)', 'dem': 'DEM sand (LAMMPS)',
                  'stiff_grains': 'stiff grains (the same bed frozen, LAMMPS)',
                  'compliant': 'compliant ground (thesis §5, sim shapes)',
                  'compliant_rim': f'compliant, per-area law over the rim ({RIM_POINTS} pts)'}
COLOURS = {'rigid': 'tab:blue', 'dem': 'm', 'stiff_grains': 'tab:red', 'compliant': 'tab:green',
           'compliant_rim': 'tab:olive'}


class TumbleCompareError(ValueError):
    """Input that cannot give a comparison (exit 2)."""


def wheel_geometry(scenario: Scenario, rim_points: int) -> tuple['BodyGeometry', list[float] | None]:
    """The wheel as cobra_soil sees it, and the area each contact point stands for. rim_points 0:
    one cylinder (cobra_sim's shapes: the law acts at the lowest point of each rim circle, one
    contact point each); n > 0: n small spheres around each rim circle standing for their share of
    the rim's area (terrain_rigs.sampled_rim), so the law acts over the whole penetrated arc as a
    per-area foundation."""
    from cobra_experiments.terrain_rigs import sampled_rim
    from cobra_soil.shapes import BodyGeometry, CollisionShape

    shape = scenario.body.shape
    if rim_points == 0:
        to_y = ((1.0, 0.0, 0.0), (0.0, 0.0, -1.0), (0.0, 1.0, 0.0))   # columns: shape axes in body axes
        return BodyGeometry('wheel', shape.mass_kg, (CollisionShape(
            'cylinder', (shape.wheel_radius_m, 0.5 * shape.wheel_width_m), rotation=to_y),)), None
    return sampled_rim(shape.mass_kg, shape.wheel_radius_m, shape.wheel_width_m, rim_points)


def compliant_body_trace(scenario: Scenario, duration_s: float, sample_interval_s: float,
                         compliant_file: Path | None = None, rim_points: int = 0) -> dict[str, np.ndarray]:
    """The rigid reference's MuJoCo body (planar: x, z, spin) on cobra_soil's compliant ground:
    MuJoCo's contacts off, CompliantGround's wrench applied at the centre of mass each step.
    Settled 0.2 s on level ground first (as the rigid reference), then the slope is applied.
    rim_points: see wheel_geometry."""
    import mujoco

    from cobra_dem.rigid_reference import RIGID_TIME_STEP_S, body_model_xml, planar_trace
    from cobra_soil.compliant import CompliantGround
    from cobra_soil.params import load_compliant_params
    from cobra_soil.shapes import BodyGeometry  # noqa: F401 (the annotation of wheel_geometry)
    shape = scenario.body.shape
    if shape.kind != 'wheel':
        raise TumbleCompareError('the compliant tumble takes the wheel only (body.kind: wheel)')
    xml = body_model_xml(scenario, friction=0.5).replace(
        'integrator="implicitfast"/>', 'integrator="implicitfast"><flag contact="disable"/></option>')
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    body_id = model.body('body').id
    params_path = compliant_file or default_compliant_file()
    params = load_compliant_params(params_path)
    geometry, point_area_m2 = wheel_geometry(scenario, rim_points)
    ground = CompliantGround(params, [geometry], point_area_m2=point_area_m2)

    def apply_ground() -> np.ndarray:
        mujoco.mj_kinematics(model, data)
        position = data.xpos[body_id][None].copy()
        rotation = data.xmat[body_id].reshape(1, 3, 3).copy()
        velocity = np.array([[data.qvel[0], 0.0, data.qvel[1]]])
        omega = np.array([[0.0, data.qvel[2], 0.0]])
        force, torque = ground.step(position, rotation, velocity, omega, RIGID_TIME_STEP_S)
        data.xfrc_applied[body_id, :3] = force[0]
        data.xfrc_applied[body_id, 3:] = torque[0]
        return force[0].copy()

    def advance(steps: int) -> np.ndarray:
        if steps == 0:
            return apply_ground()
        for _ in range(steps):
            force = apply_ground()
            mujoco.mj_step(model, data)
        return force

    return planar_trace(model, data, duration_s, sample_interval_s, advance)


def foundation_prediction(scenario: Scenario, duration_s: float, compliant_file: Path | None = None
                          ) -> dict[str, float]:
    """Distance and final speed of the free wheel on the per-area compliant ground from the closed
    form alone (terramechanics.kelvin_voigt_rolling): rolling without slip, the sinkage at each
    speed the one that carries m g cos θ, (m + I_yy / r²) dv/dt = m g sin θ − M(v) / r."""
    from scipy.integrate import solve_ivp
    from scipy.optimize import brentq

    from cobra_experiments.terramechanics import kelvin_voigt_rolling
    from cobra_soil.params import load_compliant_params
    params = load_compliant_params(compliant_file or default_compliant_file())
    shape = scenario.body.shape
    m, r, b = shape.mass_kg, shape.wheel_radius_m, shape.wheel_width_m
    k, c = params.foundation_stiffness_pa_m, params.foundation_damping_pa_s_m
    theta = math.radians(scenario.slope_deg)
    load_n = m * GRAVITY_M_S2 * math.cos(theta)

    def moment(speed: float) -> float:
        sinkage = brentq(lambda z: kelvin_voigt_rolling(r, b, z, speed, k, c).load_n - load_n, 1e-7, 0.5 * r)
        return kelvin_voigt_rolling(r, b, sinkage, speed, k, c).resisting_moment_n_m

    inertia = m + shape.principal_inertia_kg_m2[1] / r ** 2
    solution = solve_ivp(lambda _t, y: [y[1], (m * GRAVITY_M_S2 * math.sin(theta) - moment(max(y[1], 0.0)) / r)
                                        / inertia], (0.0, duration_s), [0.0, 0.0], rtol=1e-8, atol=1e-10)
    return {'distance_m': float(solution.y[0, -1]), 'final_speed_m_s': float(solution.y[1, -1])}


def default_compliant_file() -> Path:
    """config/soil/compliant_ground.yaml (the sim's terrain:=compliant file)."""
    from cobra_sim.terrain import default_terrain_file
    return Path(default_terrain_file('compliant'))


def terrain_figures(scenario: Scenario, trace: dict[str, np.ndarray]) -> dict[str, Any]:
    """Distance, final speed, final spin slip, peak normal force (sampled, and the peak of its mean over
    each sample interval from the momentum: impacts by their impulse) and lift-off intervals of one trace."""
    t = trace['time_s'] - trace['time_s'][0]
    x = trace['position_m'][:, 0]
    normal = trace['contact_force_n'][:, 2]
    weight_normal_n = scenario.body.shape.mass_kg * GRAVITY_M_S2 * math.cos(math.radians(scenario.slope_deg))
    lift_off = lift_off_intervals(t, normal, LIFT_OFF_FRACTION_OF_WEIGHT * weight_normal_n)
    speed = trace['velocity_m_s'][:, 0]
    rolling = trace['angular_velocity_rad_s'][:, 1] * scenario.body.shape.rolling_radius_m
    moving = np.abs(speed) > 0.05
    return {'distance_m': float(x[-1] - x[0]), 'final_speed_m_s': float(speed[-1]),
            'peak_normal_force_n': float(np.max(normal)), 'mean_normal_force_n': float(np.mean(normal)),
            'peak_interval_mean_normal_force_n': float(np.max(interval_mean_contact_force_n(
                trace, scenario.body.shape.mass_kg, scenario.gravity_vector)[:, 2])),
            'weight_normal_n': weight_normal_n,
            'rolling_share': float(np.mean(rolling[moving] / speed[moving])) if moving.any() else float('nan'),
            'lift_off_intervals_s': lift_off, 'lift_off_count': len(lift_off),
            'lift_off_time_s': float(sum(b - a for a, b in lift_off))}


def dem_attenuates(dem: dict[str, Any], stiff: dict[str, Any]) -> bool:
    """The thesis's 'DEM attenuates impact peaks': DEM's largest impulse below the stiff ground's."""
    return bool(dem['peak_interval_mean_normal_force_n'] < stiff['peak_interval_mean_normal_force_n'])


def summarise(scenario: Scenario, traces: dict[str, dict[str, np.ndarray]]) -> dict[str, Any]:
    figures = {name: terrain_figures(scenario, trace) for name, trace in traces.items()}
    d = {name: f['distance_m'] for name, f in figures.items()}
    dem_time_s = traces['dem']['time_s']
    return {'slope_deg': scenario.slope_deg, 'duration_s': float(dem_time_s[-1] - dem_time_s[0]),
            'terrains': figures,
            'ordering_holds': bool(d['rigid'] > d['dem'] > d['compliant_rim']),
            'point_contacts_roll_as_rigid': bool(abs(d['compliant'] / d['rigid'] - 1.0) < 0.01),
            'dem_lower_peak_than_rigid': dem_attenuates(figures['dem'], figures['rigid']),
            'dem_lower_peak_than_stiff_grains': dem_attenuates(figures['dem'], figures['stiff_grains']),
            'dem_slower_than_stiff_grains': bool(d['dem'] < d['stiff_grains']),
            'dem_lifts_off': bool(figures['dem']['lift_off_count'] > 0)}


def print_table(summary: dict[str, Any]) -> None:
    print(f'{"terrain":44} {"distance m":>10} {"ratio":>6} {"final v m/s":>11} {"peak Fn N":>9} {"impulse N":>9} '
          f'{"mean Fn N":>9} {"ωr/v":>5}  lift-off intervals [s]')
    rigid = summary['terrains']['rigid']['distance_m']
    for name, f in summary['terrains'].items():
        intervals = ', '.join(f'{a:.2f}-{b:.2f}' for a, b in f['lift_off_intervals_s']) or 'none'
        print(f'{TERRAIN_LABELS[name]:44} {f["distance_m"]:>10.3f} {f["distance_m"] / rigid:>6.2f} '
              f'{f["final_speed_m_s"]:>11.3f} {f["peak_normal_force_n"]:>9.1f} '
              f'{f["peak_interval_mean_normal_force_n"]:>9.1f} {f["mean_normal_force_n"]:>9.1f} '
              f'{f["rolling_share"]:>5.2f}  {intervals}')
    closed = summary.get('compliant_rim_closed_form')
    if closed:
        print(f'{"  closed form (Kelvin-Voigt rolling, no slip)":44} {closed["distance_m"]:>10.3f} '
              f'{closed["distance_m"] / rigid:>6.2f} {closed["final_speed_m_s"]:>11.3f}')
    fills = summary.get('dem_fills')
    if fills:
        distances = [f['distance_m'] for f in fills]
        print(f'DEM on {len(fills)} bed fills: distance {min(distances):.3f}-{max(distances):.3f} m '
              f'({min(distances) / rigid:.2f}-{max(distances) / rigid:.2f} of rigid), peak F_n '
              f'{min(f["peak_interval_mean_normal_force_n"] for f in fills):.0f}-'
              f'{max(f["peak_interval_mean_normal_force_n"] for f in fills):.0f} N (interval mean), '
              f'lift-off on {sum(f["lift_off_count"] > 0 for f in fills)} of them; ordering on every fill: '
              f'{"HOLDS" if summary["ordering_holds_on_every_fill"] else "DOES NOT HOLD"}')
        stiff = summary['stiff_grain_fills']
        print(f'stiff grains on the same {len(stiff)} fills: peak F_n '
              + ' / '.join(f'{f["peak_interval_mean_normal_force_n"]:.0f}' for f in stiff)
              + ' N (interval mean) against DEM '
              + ' / '.join(f'{f["peak_interval_mean_normal_force_n"]:.0f}' for f in fills)
              + f' N; DEM attenuates the impacts on every fill: '
              f'{"HOLDS" if summary["dem_attenuates_on_every_fill"] else "DOES NOT HOLD"}')
    print(f'ordering rigid > DEM > compliant over the rim (distance): '
          f'{"HOLDS" if summary["ordering_holds"] else "DOES NOT HOLD"}; '
          f'DEM slower than the stiff grains: {summary["dem_slower_than_stiff_grains"]}; '
          f'DEM lifts off: {summary["dem_lifts_off"]}')
    attenuates = 'HOLDS' if summary['dem_lower_peak_than_stiff_grains'] else 'DOES NOT HOLD'
    print(f'impact peaks (normal force averaged over a sample interval, from the momentum): DEM below the stiff '
          f'grains (the same bed frozen): {attenuates}; '
          f'DEM below the smooth rigid plane (no impacts: the wheel never leaves it): '
          f'{summary["dem_lower_peak_than_rigid"]}')


def plot(path: Path, scenario: Scenario, traces: dict[str, dict[str, np.ndarray]], bed_note: str) -> None:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(3, 1, figsize=(7, 8.5), sharex=True)
    for name, trace in traces.items():
        t = trace['time_s'] - trace['time_s'][0]
        axes[0].plot(t, trace['position_m'][:, 0] - trace['position_m'][0, 0], color=COLOURS[name],
                     label=TERRAIN_LABELS[name])
        axes[1].plot(t, trace['velocity_m_s'][:, 0], color=COLOURS[name])
        impulse_force_n = interval_mean_contact_force_n(trace, scenario.body.shape.mass_kg, scenario.gravity_vector)
        axes[2].step(t[1:], impulse_force_n[:, 2], where='pre', color=COLOURS[name], linewidth=1.0)
    weight_normal_n = scenario.body.shape.mass_kg * GRAVITY_M_S2 * math.cos(math.radians(scenario.slope_deg))
    axes[2].axhline(weight_normal_n, color='grey', linestyle=':', label='m g cos θ')
    axes[0].set_ylabel('distance down the slope [m]')
    axes[1].set_ylabel('speed along the slope [m/s]')
    axes[2].set_ylabel('normal force, mean over\neach sample interval [N]')
    axes[2].set_xlabel('time since the slope was applied [s]')
    axes[0].legend(loc='upper left')
    axes[2].legend(loc='upper right')
    shape = scenario.body.shape
    axes[0].set_title(f'wheel r {shape.wheel_radius_m:.2f} m, {shape.mass_kg:.1f} kg, free from rest on '
                      f'{scenario.slope_deg:g}°\n{bed_note}', fontsize=9)
    figure.tight_layout()
    save_figure(figure, path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--dem-run', default=None, help='folder of a finished dem_run of the free wheel')
    parser.add_argument('--dem-bed', choices=('small', 'full'), default='small',
                        help='bed of a fresh DEM run, or the bed --dem-run was run on (its summary does not say)')
    parser.add_argument('--duration', type=float, default=0.6, help='duration of a fresh DEM run [s]')
    parser.add_argument('--seeds', type=int, default=1,
                        help='fresh DEM runs on bed fills 1..N (the ordering must hold on every fill); each fill '
                             'is also run frozen (the stiff-grain reference of the impact peaks)')
    parser.add_argument('--compliant-file', default=None, help='compliant ground YAML (default the sim\'s)')
    parser.add_argument('--out', default=str(Path('out') / 'tumble_compare'), help='output folder')
    args = parser.parse_args(argv)
    out_dir = Path(args.out)
    try:
        if not args.duration > 0:
            raise TumbleCompareError(f'--duration {args.duration}: give a duration > 0 s')
        if args.seeds < 1 or (args.dem_run and args.seeds != 1):
            raise TumbleCompareError(f'--seeds {args.seeds}: give N >= 1 fresh DEM runs (not with --dem-run, '
                                     'which is one finished run)')
        overrides: dict[str, Any] = {'body.motion': 'free'}
        if args.dem_bed == 'small':
            overrides.update(SMALL_BED_OVERRIDES)
        dem = None
        if args.dem_run:
            from cobra_experiments.dem_compare_rigid import CompareError, load_dem_run
            try:
                _, dem = load_dem_run(Path(args.dem_run))
                summary = json.loads((Path(args.dem_run) / 'summary.json').read_text())
            except CompareError as error:
                raise TumbleCompareError(str(error)) from error
            overrides['body.motion'] = summary['motion']
            scenario = load_scenario(default_scenario_file(), slope_deg=summary['slope_deg'],
                                     duration_s=summary['duration_s'], **overrides)
        else:
            scenario = load_scenario(default_scenario_file(), duration_s=args.duration, **overrides)
        bed_note = (f'DEM {args.dem_bed} bed {scenario.bed.length_m:g} × {scenario.bed.width_m:g} × '
                    f'{scenario.bed.depth_m:g} m, {scenario.bed.sphere_radius_m * 1e3:g} mm spheres')
        if scenario.body.kind != 'wheel' or scenario.body.motion != 'free':
            raise TumbleCompareError(f'the DEM run has body {scenario.body.kind}, motion {scenario.body.motion}: '
                                     'the three-way comparison takes the free wheel (--set body.motion=free)')
    except (TumbleCompareError, ScenarioError) as error:
        print(f'tumble_compare: error: {error}', file=sys.stderr)
        return 2
    out_dir.mkdir(parents=True, exist_ok=True)
    from cobra_dem.lammps_backend import run_scenario

    def fresh_run(seed: int, grain_motion: str) -> dict[str, np.ndarray]:
        run_dir = out_dir / ('dem_run' + ('' if grain_motion == 'mobile' else f'_{grain_motion}')
                             + ('' if seed == 1 else f'_seed{seed}'))
        filled = dataclasses.replace(scenario, grain_motion=grain_motion,
                                     bed=dataclasses.replace(scenario.bed, seed=seed))
        run_scenario(filled, run_dir, log=lambda line: print(line, file=sys.stderr, flush=True))
        return {name: value for name, value in np.load(run_dir / 'trajectory.npz').items()}

    more_fills: list[dict[str, np.ndarray]] = []
    if dem is None:
        for seed in range(1, args.seeds + 1):
            trace = fresh_run(seed, 'mobile')
            if seed == 1:
                dem = trace
            else:
                more_fills.append(trace)
    # the stiff-ground reference of the impact peaks: each fill frozen (--dem-run: fill 1 of --dem-bed)
    stiff_fills = [fresh_run(seed, 'frozen') for seed in range(1, args.seeds + 1)]
    from cobra_dem.rigid_reference import rigid_body_trace

    compliant_file = Path(args.compliant_file) if args.compliant_file else None
    duration_s = float(dem['time_s'][-1] - dem['time_s'][0])
    interval_s = float(np.median(np.diff(dem['time_s'])))
    dem = {**dem, 'time_s': dem['time_s'] - dem['time_s'][0]}
    traces = {'rigid': rigid_body_trace(scenario, duration_s, interval_s, friction=0.5), 'dem': dem,
              'stiff_grains': stiff_fills[0],
              'compliant': compliant_body_trace(scenario, duration_s, interval_s, compliant_file),
              'compliant_rim': compliant_body_trace(scenario, duration_s, interval_s, compliant_file, RIM_POINTS)}
    summary = summarise(scenario, traces)
    summary['bed'] = bed_note
    summary['compliant_rim_closed_form'] = foundation_prediction(scenario, duration_s, compliant_file)
    if more_fills:
        fills = [summary['terrains']['dem']] + [terrain_figures(scenario, trace) for trace in more_fills]
        stiff = [summary['terrains']['stiff_grains']] + [terrain_figures(scenario, trace) for trace in stiff_fills[1:]]
        d = {name: summary['terrains'][name]['distance_m'] for name in ('rigid', 'compliant_rim')}
        summary['dem_fills'] = fills
        summary['stiff_grain_fills'] = stiff
        summary['ordering_holds_on_every_fill'] = bool(all(d['rigid'] > f['distance_m'] > d['compliant_rim']
                                                           for f in fills))
        summary['dem_attenuates_on_every_fill'] = all(dem_attenuates(f, g) for f, g in zip(fills, stiff))
    print_table(summary)
    (out_dir / 'tumble_compare.json').write_text(json.dumps(summary, indent=2))
    plot(out_dir / 'tumble_compare.png', scenario, traces, bed_note)
    print(f'tumble_compare: wrote {out_dir}/tumble_compare.png and tumble_compare.json', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
