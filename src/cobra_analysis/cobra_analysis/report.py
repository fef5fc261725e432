"""`python -m cobra_analysis.report BAG [BAG ...] --out DIR` (console script `cobra_report`):
the validation report of one or more runs as DIR/index.html (opens from disk, PNGs beside it,
referenced relatively), the PNGs and DIR/metrics.json.

The report is built in a hidden sibling directory and renamed to DIR only when complete, so a
failure leaves nothing half-written. Bad input (a bag that cannot be read, a bad --label, an
existing non-empty DIR without --force) is one `error:` line naming the problem, exit code 2.
"""

from __future__ import annotations

import argparse
import html
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cobra_analysis.metrics import MIN_CYCLES_TO_JUDGE

if TYPE_CHECKING:  # the heavy imports (matplotlib, evo, rosbags) wait until a report is built
    from cobra_analysis.analysis import BagAnalysis
    from cobra_analysis.plots import FigureFile

EXIT_BAD_INPUT = 2
EXIT_RUN_WENT_WRONG = 1  # the report was written, but a run's bodies went through or off the ground


class ReportInputError(ValueError):
    """Bad command-line input; the text says what to change."""


@dataclass(frozen=True)
class LabelOverride:
    bag: str
    bag_class: str | None
    gait: str | None


def parse_label(text: str) -> LabelOverride:
    """BAG=CLASS:GAIT, either side of ':' may be empty (keep the automatic one)."""
    match = re.fullmatch(r'([^=]+)=([^:]*)(?::(.*))?', text)
    if not match:
        raise ReportInputError(f"--label '{text}' is not BAG=CLASS:GAIT (e.g. run_3=robot:gait1, "
                               'run_4=sim: or run_5=:gait2)')
    bag, bag_class, gait = match.group(1), match.group(2).strip(), (match.group(3) or '').strip()
    return LabelOverride(bag, bag_class or None, gait or None)


def _find_override(overrides: list[LabelOverride], bag: Path, given: str) -> LabelOverride | None:
    for override in overrides:
        if override.bag in (given, bag.name, str(bag)) or Path(override.bag).resolve() == bag.resolve():
            return override
    return None


def source_git_revision() -> str | None:
    """`git describe --always --dirty` of the tree this module runs from, None outside git."""
    try:
        result = subprocess.run(['git', 'describe', '--always', '--dirty', '--abbrev=12'],
                                cwd=Path(__file__).resolve().parent, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() or None if result.returncode == 0 else None


def unique_labels(names: list[str]) -> list[str]:
    """File-name-safe, unique labels from the bag names (a repeated name gets _2, _3, ...)."""
    labels: list[str] = []
    for name in names:
        base = re.sub(r'[^A-Za-z0-9_.-]+', '_', name).strip('._') or 'bag'
        label, count = base, 1
        while label in labels:
            count += 1
            label = f'{base}_{count}'
        labels.append(label)
    return labels


def _json_value(value: Any) -> Any:
    """numpy and NaN/inf into plain JSON (NaN/inf -> null)."""
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, np.ndarray):
        return _json_value(value.tolist())
    if isinstance(value, (np.floating, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, Path):
        return str(value)
    return value


STRIDE_DEFINITION = ('stride = |mean displacement vector| of the head per steady gait cycle: the net displacement '
                     'over the steady cycles divided by their number (the papers\' ΔCOM is the centre of mass\'s: '
                     'the head\'s step also carries the body\'s turn per cycle times the head\'s lever arm, '
                     'a few per cent for sidewinding). Cycles are counted '
                     'at the gait frequency from the gait start; a cycle is steady when its command amplitude is '
                     '≥ 95 % of the run\'s full amplitude (ramps left out).')
STEPS_CANCEL_NOTE = 0.10  # say why the stride is shorter than the step once turning cancels this share
SIM_TIME_BEFORE_S = 1e9  # stamps below this (2001-09-09) are sim time from 0: no calendar date


def stamp_text(stamp_s: float | None) -> str:
    """A header stamp as a UTC date and time, or as sim time when the clock started at 0."""
    if stamp_s is None or not math.isfinite(stamp_s):
        return 'n/a'
    if stamp_s < SIM_TIME_BEFORE_S:
        return f'sim time {stamp_s:.3f} s (the clock started at 0: no date)'
    whole, milliseconds = divmod(round(stamp_s * 1000), 1000)
    return time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(whole)) + f'.{milliseconds:03d} UTC'


def time_origin_s(analysis: BagAnalysis) -> float:
    """t = 0 of the bag's page: its gait start, else its first message."""
    return analysis.gait_start_s if analysis.gait_start_s is not None else float(analysis.bag.start_s)


def robot_of(analysis: BagAnalysis) -> str:
    """custom_data cobra.robot, else the sim's diagnostics, else what the joint names say."""
    bag = analysis.bag
    if bag.custom_data.get('cobra.robot'):
        return bag.custom_data['cobra.robot']
    if bag.diagnostics.get('robot'):
        return f"{bag.diagnostics['robot']} (sim diagnostics)"
    joints = bag.joint_states or bag.joint_commands
    if joints is not None:
        from cobra_analysis.metrics import TWIST_JOINT
        if any(TWIST_JOINT.match(name) for name in joints.names):
            return 'tsnake (from the joint names)'
        if 'joint_1' in joints.names:
            return 'cobra (from the joint names)'
    return 'not recorded'


def terrain_of(analysis: BagAnalysis) -> str:
    """custom_data cobra.terrain (+ slope), else the sim's diagnostics; a robot run says so."""
    bag = analysis.bag
    terrain = bag.custom_data.get('cobra.terrain') or bag.diagnostics.get('terrain')
    source = '' if bag.custom_data.get('cobra.terrain') else ' (sim diagnostics)'
    if not terrain:
        return 'the real ground (robot run)' if analysis.bag_class == 'robot' else 'not recorded'
    try:
        slope_deg = float(bag.custom_data.get('cobra.slope_deg') or bag.diagnostics.get('slope_deg') or 0.0)
    except ValueError:
        slope_deg = 0.0  # not a number: the terrain name says what there is
    file = bag.custom_data.get('cobra.terrain_file') or bag.diagnostics.get('terrain_file')
    return (terrain + (f', slope {slope_deg:g} deg' if slope_deg and 'deg' not in terrain else '')
            + (f' ({Path(file).name})' if file else '') + source)


def bag_metrics(analysis: BagAnalysis, ground_problems: list[str]) -> dict[str, Any]:
    """metrics.json entry of one bag."""
    from cobra_analysis.metrics import top_two_share
    bag = analysis.bag
    cycles = analysis.cycles
    origin = time_origin_s(analysis)
    entry: dict[str, Any] = {
        'label': analysis.label, 'path': str(bag.path), 'storage': bag.storage,
        'duration_s': bag.duration_s, 'start_stamp_s': bag.start_s, 'message_counts': bag.message_counts,
        'custom_data': bag.custom_data, 'diagnostics': bag.diagnostics, 'class': analysis.bag_class,
        'robot': robot_of(analysis), 'terrain': terrain_of(analysis),
        'gait_id': analysis.gait_id, 'gait_parameters': analysis.gait_parameters,
        'git_rev': bag.custom_data.get('cobra.git_rev'),
        'gait': {
            'start_stamp_s': analysis.gait_start_s, 'start_utc': stamp_text(analysis.gait_start_s),
            'frequency_hz': analysis.frequency_hz, 'frequency_source': analysis.frequency_source,
            'cycles': int(len(cycles.steady)) if cycles is not None else 0,
            'steady_cycles': int(cycles.steady.sum()) if cycles is not None else 0,
            'cycle_amplitude_rad': cycles.amplitude_rad if cycles is not None else [],
        },
        'head_topic': bag.head.topic if bag.head is not None else None,
        'absent': analysis.absent,
        'warnings': bag.warnings,
        'ground_problems': ground_problems,
    }
    loco = analysis.locomotion
    entry['locomotion'] = None if loco is None else {
        'stride_definition': STRIDE_DEFINITION,
        'mean_stride_m': loco.mean_stride_m, 'mean_step_m': loco.mean_step_m, 'stride_std_m': loco.stride_std_m,
        'stride_per_cycle_m': loco.stride_m,
        'heading_drift_deg_per_cycle': _degrees(loco.heading_drift_rad_per_cycle),
        'heading_drift_stderr_deg_per_cycle': _degrees(loco.heading_drift_stderr_rad_per_cycle),
        'too_few_cycles': loco.too_few_cycles,
        'yaw_drift_deg_per_cycle': math.degrees(loco.yaw_drift_rad_per_cycle),
        'travel_direction_deg': np.degrees(loco.travel_direction_rad), 'mean_speed_m_s': loco.mean_speed_m_s,
        'path_speed_m_s': loco.path_speed_m_s, 'distance_from_gait_start_m': loco.distance_m,
    }
    entry['tracking_window_stamp_s'] = analysis.tracking_window_s
    entry['tracking_window_since_gait_start_s'] = (None if analysis.tracking_window_s is None else
                                                   [t - origin for t in analysis.tracking_window_s])
    entry['tracking'] = [{'joint': t.joint, 'rms_error_rad': t.rms_error_rad, 'max_error_rad': t.max_error_rad,
                          'lag_s': t.lag_s} for t in analysis.tracking]
    contact = analysis.contact
    entry['contact'] = None if contact is None else {
        'links': contact.links, 'contact_fraction': contact.contact_fraction, 'contact_share': contact.contact_share,
        'mean_force_n': contact.mean_force_per_link_n, 'peak_force_n': contact.peak_force_n,
        'force_measure': '|F| of the link wrench (normal force + friction; link axes, no link poses in the bag)',
    }
    heightmap = bag.heightmap
    entry['sinkage'] = None if heightmap is None else {
        'messages': len(heightmap.times_s), 'nodes': len(heightmap.max_sinkage_m),
        'max_sinkage_m': float(heightmap.max_sinkage_m.max()) if len(heightmap.max_sinkage_m) else 0.0,
        'mean_max_sinkage_m': float(heightmap.max_sinkage_m.mean()) if len(heightmap.max_sinkage_m) else 0.0,
    }
    entry['tumbling'] = [{**vars(t), 'begin_since_gait_start_s': t.begin_s - origin,
                          'end_since_gait_start_s': t.end_s - origin} for t in analysis.tumbling]
    entry['twist_power'] = None if not analysis.twist else {
        'joints': [vars(p) for p in analysis.twist], 'top_two_share': top_two_share(analysis.twist),
        'peak_power_w': max(p.peak_power_w for p in analysis.twist),
    }
    return entry


def _degrees(value_rad: float | None) -> float | None:
    return None if value_rad is None else math.degrees(value_rad)


def _table(rows: list[tuple[str, Any]]) -> str:
    cells = ''.join(f'<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>' for k, v in rows)
    return f'<table>{cells}</table>'


def _figure(figure: FigureFile | None) -> str:
    """The PNG with its description as alt text and every axes' labels as data (checked by the tests)."""
    if figure is None:
        return ''
    axes = html.escape(json.dumps([dict(a) for a in figure.axes]), quote=True)
    return (f'<figure data-axes="{axes}"><img src="{html.escape(figure.name)}" alt="{html.escape(figure.alt)}">'
            '</figure>')


def _absent(analysis: BagAnalysis, key: str) -> str:
    return f'<p class="absent">Not in this report: {html.escape(analysis.absent.get(key, "no data"))}.</p>'


def _f(value: float | None, scale: float = 1.0, digits: int = 3, unit: str = '') -> str:
    return 'n/a' if value is None or not math.isfinite(value) else f'{value * scale:.{digits}f}{unit}'


def _drift_text(loco: Any) -> str:
    if loco.heading_drift_rad_per_cycle is None:
        return f'too few cycles to judge ({len(loco.stride_m)} steady; needs ≥ {MIN_CYCLES_TO_JUDGE})'
    error = loco.heading_drift_stderr_rad_per_cycle
    return (_f(loco.heading_drift_rad_per_cycle, 180 / math.pi, 2)
            + (f' ± {math.degrees(error):.2f}' if error is not None else '') + ' deg/cycle (± standard error)')


def bag_html(analysis: BagAnalysis, figures: dict[str, FigureFile], ground_problems: list[str]) -> str:
    """The sections of one bag."""
    bag = analysis.bag
    origin = time_origin_s(analysis)
    parts = [f'<h2 id="{analysis.label}">{html.escape(analysis.label)}</h2>']
    params = ', '.join(f'{k}={v}' for k, v in analysis.gait_parameters.items()) or 'not recorded in the bag'
    start = (f'{stamp_text(analysis.gait_start_s)}: first non-zero command, '
             f'{analysis.gait_start_s - bag.start_s:.3f} s after the first message; t = 0 of every time below'
             if analysis.gait_start_s is not None else
             f'none (no non-zero command); times below count from the first message, {stamp_text(bag.start_s)}')
    parts.append(_table([
        ('bag', bag.path), ('storage', bag.storage), ('duration', f'{bag.duration_s:.2f} s'),
        ('robot', robot_of(analysis)), ('terrain', terrain_of(analysis)),
        ('class / gait', f'{analysis.bag_class} / {analysis.gait_id}'),
        ('launch file', bag.custom_data.get('cobra.launch_file', 'not recorded')), ('gait parameters', params),
        ('gait start', start),
        ('gait frequency', f'{_f(analysis.frequency_hz, digits=3, unit=" Hz")} ({analysis.frequency_source})'),
        ('cycles (steady)', f'{len(analysis.cycles.steady)} ({int(analysis.cycles.steady.sum())})'
         if analysis.cycles is not None else 'n/a'),
        ('head track', bag.head.topic if bag.head is not None else 'none'),
        ('git revision in bag', bag.custom_data.get('cobra.git_rev', 'not recorded')),
    ]))
    counts = ''.join(f'<tr><td>{html.escape(topic)}</td><td>{count}</td>'
                     f'<td>{_f((count - 1) / bag.duration_s if count > 1 and bag.duration_s > 0 else None, digits=1)}'
                     '</td></tr>'
                     for topic, count in sorted(bag.message_counts.items()))
    custom = ''.join(f'<tr><td>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>'
                     for k, v in sorted(bag.custom_data.items()))
    parts.append('<details><summary>messages per topic, custom_data</summary>'
                 f'<table><tr><th>topic</th><th>messages</th><th>mean rate over the bag [Hz]</th></tr>{counts}</table>'
                 + (f'<table><tr><th>custom_data key</th><th>value</th></tr>{custom}</table>' if custom else
                    '<p>No custom_data in the bag (not recorded by the bringup).</p>') + '</details>')
    parts += [f'<p class="absent">Warning: {html.escape(text)}.</p>' for text in bag.warnings]
    if ground_problems:  # cobra_analysis.ground_check: a body through or off the ground
        lines = ''.join(f'<li>{html.escape(text)}</li>' for text in ground_problems)
        parts.append(f'<p class="problem">PROBLEM: {len(ground_problems)} bod{"y" if len(ground_problems) == 1 else "ies"} '
                     'went through or off the ground: this run\'s distances and speeds are meaningless.</p>'
                     f'<details><summary>the ground check\'s lines</summary><ul>{lines}</ul></details>')
    if 'gait' in analysis.absent:
        parts.append(_absent(analysis, 'gait'))
    parts.append('<h3>Locomotion</h3>')
    loco = analysis.locomotion
    if loco is not None:
        parts.append(f'<p>{html.escape(STRIDE_DEFINITION)}</p>')
        if loco.too_few_cycles:
            parts.append(f'<p class="absent">{html.escape(loco.too_few_cycles)}.</p>')
        if loco.steps_cancel > STEPS_CANCEL_NOTE:
            parts.append(f'<p>The stride is {100 * loco.steps_cancel:.0f} % shorter than the step each cycle makes: '
                         'the body turns, so its steps point in different directions and partly cancel in the '
                         'mean displacement vector (see the travel direction under "drift").</p>')
        too_few = f'too few cycles to judge ({len(loco.stride_m)} steady; needs ≥ {MIN_CYCLES_TO_JUDGE})'
        parts.append(_table([
            ('stride (|mean displacement vector| per steady cycle)', _f(loco.mean_stride_m, 100, 2, ' cm')),
            ('step per steady cycle (mean of each cycle\'s |displacement|)', _f(loco.mean_step_m, 100, 2, ' cm')),
            ('STD of |displacement| over the steady cycles',
             _f(loco.stride_std_m, 100, 2, ' cm') if loco.stride_std_m is not None else too_few),
            ('heading drift (slope of the travel direction)', _drift_text(loco)),
            ('head yaw drift (mean over the steady cycles)', _f(loco.yaw_drift_rad_per_cycle, 180 / math.pi, 2,
                                                                ' deg/cycle')),
            ('mean speed (net, steady cycles)', _f(loco.mean_speed_m_s, 100, 2, ' cm/s')),
            ('path speed (steady cycles)', _f(loco.path_speed_m_s, 100, 2, ' cm/s')),
            ('distance from gait start', _f(loco.distance_m, 1, 3, ' m')),
        ]))
    else:
        parts.append(_absent(analysis, 'locomotion'))
    parts.append(_figure(figures.get('trajectory')) + _figure(figures.get('cycles')))
    parts.append('<h3>Joint tracking</h3>')
    if analysis.tracking:
        rows = ''.join(f'<tr><td>{t.joint}</td><td>{math.degrees(t.rms_error_rad):.2f}</td>'
                       f'<td>{math.degrees(t.max_error_rad):.2f}</td><td>{_f(t.lag_s, 1000, 1)}</td></tr>'
                       for t in analysis.tracking)
        begin, end = analysis.tracking_window_s
        parts.append(f'<p>Over {min(end, bag.joint_states.times_s[-1]) - begin:.1f} s from t = {begin - origin:.2f} s '
                     '(the steady cycles when known: ramps left out). Lag: peak of the cross-correlation, measured '
                     'behind commanded (n/a: the command has no wave, e.g. a twist joint turning on). Angles in '
                     'degrees here and in the figure.</p>')
        parts.append('<table><tr><th>joint</th><th>RMS error [deg]</th><th>max error [deg]</th>'
                     f'<th>lag [ms]</th></tr>{rows}</table>' + _figure(figures.get('tracking')))
    else:
        parts.append(_absent(analysis, 'tracking'))
    parts.append('<h3>Contact forces</h3>')
    if analysis.contact is not None:
        c = analysis.contact
        rows = ''.join(f'<tr><td>{link}</td><td>{f * 100:.1f}</td><td>{s * 100:.1f}</td><td>{n:.2f}</td></tr>'
                       for link, f, s, n in zip(c.links, c.contact_fraction, c.contact_share, c.mean_force_per_link_n))
        parts.append('<p>Force = |F| of each link\'s wrench (normal force plus friction: the wrench is in link '
                     'axes and the bag has no link poses).</p><table><tr><th>link</th><th>time in contact [%]</th>'
                     f'<th>share of contact [%]</th><th>mean |F| [N]</th></tr>{rows}</table>'
                     + _figure(figures.get('contact')))
    else:
        parts.append(_absent(analysis, 'contact'))
    parts.append('<h3>Sinkage</h3>')
    if bag.heightmap is not None and len(bag.heightmap.max_sinkage_m):
        parts.append(_table([('heightmap messages', len(bag.heightmap.times_s)),
                             ('soil nodes seen', len(bag.heightmap.max_sinkage_m)),
                             ('max sinkage', _f(float(bag.heightmap.max_sinkage_m.max()), 1000, 1, ' mm'))])
                     + _figure(figures.get('sinkage')))
    else:
        parts.append(_absent(analysis, 'sinkage'))
    parts.append('<h3>Tumbling</h3>')
    if analysis.tumbling:
        rows = ''.join(
            f'<tr><td>{t.begin_s - origin:.2f} to {t.end_s - origin:.2f}</td><td>{t.mean_speed_m_s:.3f}</td>'
            f'<td>{t.peak_speed_m_s:.3f}</td><td>{t.height_drop_m:.3f}</td>'
            f'<td>{_f(t.mean_angular_speed_rad_s, digits=2)}</td><td>{_f(t.peak_angular_speed_rad_s, digits=2)}</td>'
            f'<td>{_f(t.peak_total_force_n, digits=1)}</td><td>{_f(t.peak_link_force_n, digits=1)}</td></tr>'
            for t in analysis.tumbling)
        parts.append(f'<p>Spans from {html.escape(analysis.tumbling[0].source)}; the head stands for the COM '
                     '(the bag has no COM track).</p><table><tr><th>span, t [s]</th><th>mean speed [m/s]</th>'
                     '<th>peak speed [m/s]</th><th>height drop [m]</th><th>mean |ω| [rad/s]</th>'
                     '<th>peak |ω| [rad/s]</th><th>peak total |F| [N]</th><th>peak link |F| [N]</th></tr>'
                     f'{rows}</table>' + _figure(figures.get('tumbling')))
    else:
        parts.append(_absent(analysis, 'tumbling'))
    parts.append('<h3>Twist-joint power</h3>')
    if analysis.twist:
        from cobra_analysis.metrics import top_two_share
        rows = ''.join(f'<tr><td>{p.joint}</td><td>{p.mean_power_w:.3f}</td><td>{p.peak_power_w:.3f}</td></tr>'
                       for p in analysis.twist)
        parts.append(f'<p>Share of the two most-loaded joints: {top_two_share(analysis.twist) * 100:.1f} %.</p>'
                     f'<table><tr><th>joint</th><th>mean |τ·θ̇| [W]</th><th>peak [W]</th></tr>{rows}</table>'
                     + _figure(figures.get('twist')))
    else:
        parts.append(_absent(analysis, 'twist'))
    return '\n'.join(parts)


def ground_verdict(analysis: BagAnalysis, problems: list[str]) -> str:
    """The summary's ground-check cell: a robot bag (odom only) is not checked, so it is not 'ok'."""
    if problems:
        return 'PROBLEM: see the bag'
    head = analysis.bag.head
    checked = head is not None and head.topic.strip('/').endswith('ground_truth/odom')
    return 'ok' if checked else 'not checked (no ground truth)'


def side_by_side(analyses: list[BagAnalysis]) -> str:
    """Every bag's key numbers in one table, a column per bag."""
    def loco(a: BagAnalysis, attribute: str, scale: float, digits: int, unit: str) -> str:
        value = getattr(a.locomotion, attribute) if a.locomotion is not None else None
        if a.locomotion is not None and value is None and a.locomotion.too_few_cycles:
            return 'too few cycles'
        return _f(value, scale, digits, unit)

    def tracking(a: BagAnalysis) -> str:
        if not a.tracking:
            return 'n/a'
        return f'{math.degrees(float(np.sqrt(np.mean([t.rms_error_rad ** 2 for t in a.tracking])))):.2f} deg'

    def steady(a: BagAnalysis) -> str:
        return str(int(a.cycles.steady.sum())) if a.cycles is not None else 'n/a'
    rows: list[tuple[str, Any]] = [
        ('class', lambda a: a.bag_class), ('robot', robot_of), ('terrain', terrain_of), ('gait', lambda a: a.gait_id),
        ('gait frequency', lambda a: _f(a.frequency_hz, digits=3, unit=' Hz')),
        ('duration', lambda a: f'{a.bag.duration_s:.1f} s'), ('steady cycles', steady),
        ('stride', lambda a: loco(a, 'mean_stride_m', 100, 2, ' cm')),
        ('stride STD', lambda a: loco(a, 'stride_std_m', 100, 2, ' cm')),
        ('heading drift', lambda a: loco(a, 'heading_drift_rad_per_cycle', 180 / math.pi, 2, ' deg/cycle')),
        ('mean speed', lambda a: loco(a, 'mean_speed_m_s', 100, 2, ' cm/s')),
        ('path speed', lambda a: loco(a, 'path_speed_m_s', 100, 2, ' cm/s')),
        ('joint tracking RMS (all joints)', tracking),
        ('peak contact force', lambda a: _f(a.contact.peak_force_n if a.contact else None, digits=1, unit=' N')),
        ('max sinkage', lambda a: _f(float(a.bag.heightmap.max_sinkage_m.max())
                                     if a.bag.heightmap is not None and len(a.bag.heightmap.max_sinkage_m) else None,
                                     1000, 1, ' mm')),
    ]
    head = ''.join(f'<th><a href="#{a.label}">{html.escape(a.label)}</a></th>' for a in analyses)
    body = ''.join(f'<tr><th>{html.escape(name)}</th>' + ''.join(f'<td>{html.escape(str(value(a)))}</td>'
                                                                  for a in analyses) + '</tr>'
                   for name, value in rows)
    return f'<table id="side-by-side"><tr><th></th>{head}</tr>{body}</table>'


STYLE = """body{font-family:sans-serif;max-width:1300px;margin:1em auto;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #bbb;padding:2px 8px;text-align:left;font-size:90%}
img{max-width:100%}figure{margin:.5em 0}.absent{color:#866;font-style:italic}.problem{color:#b00;font-weight:bold}
h2{border-top:2px solid #444;padding-top:.5em}nav a{margin-right:1em}"""


def build_report(bag_args: list[str], out_dir: Path, overrides: list[LabelOverride], class_by: str,
                 git_rev: str | None, frequency_hz: float | None, argv: list[str]) -> dict[str, Any]:
    """Read, analyse and plot into out_dir (which exists and is empty); returns metrics.json."""
    from cobra_analysis import plots
    from cobra_analysis.analysis import analyse_bag, comparisons, performance_ratios
    from cobra_analysis.bag_reader import read_bag
    from cobra_analysis.ground_check import bag_ground_problems  # bodies through or off the ground (issue 17)
    paths = [Path(arg) for arg in bag_args]
    for override in overrides:
        if not any(_find_override([override], path, arg) for path, arg in zip(paths, bag_args)):
            raise ReportInputError(f"--label names '{override.bag}', which is none of the bags given "
                                   f"({', '.join(bag_args)})")
    labels = unique_labels([p.resolve().name for p in paths])
    analyses = []
    for path, arg, label in zip(paths, bag_args, labels):
        override = _find_override(overrides, path, arg)
        bag = read_bag(path)
        analyses.append(analyse_bag(bag, label, class_by, override.bag_class if override else None,
                                    override.gait if override else None, frequency_hz))
    from cobra_analysis.velocity_tracking import section as velocity_section
    ground_problems = {a.label: bag_ground_problems(a.bag, time_origin_s(a), ' since the gait start'
                                                    if a.gait_start_s is not None else ' since the first message')
                       for a in analyses}
    bag_sections = []
    figures_by_bag: dict[str, dict[str, str]] = {}
    velocity_by_bag: dict[str, dict[str, Any] | None] = {}
    for analysis in analyses:
        figures: dict[str, FigureFile] = {}
        if analysis.bag.head is not None:
            figures['trajectory'] = plots.trajectory(analysis, out_dir)
        if analysis.locomotion is not None:
            figures['cycles'] = plots.cycles(analysis, out_dir)
        if analysis.tracking:
            figures['tracking'] = plots.tracking(analysis, out_dir)
        if analysis.contact is not None:
            figures['contact'] = plots.contact(analysis, out_dir)
        if analysis.bag.heightmap is not None and len(analysis.bag.heightmap.max_sinkage_m):
            figures['sinkage'] = plots.sinkage(analysis, analysis.bag.heightmap, out_dir)
        if analysis.tumbling:
            figures['tumbling'] = plots.tumbling(analysis, out_dir)
        if analysis.twist:
            figures['twist'] = plots.twist_power(analysis, out_dir)
        figures_by_bag[analysis.label] = {key: figure.name for key, figure in figures.items()}
        section = bag_html(analysis, figures, ground_problems[analysis.label])
        velocity_html, velocity_by_bag[analysis.label] = velocity_section(  # gait:=cmd_vel runs (issue 20)
            analysis.bag.path, analysis.bag.head, out_dir, analysis.label, analysis.bag.joint_states)
        bag_sections.append(section + velocity_html)
    compared = comparisons(analyses)
    ratios, no_ratio = performance_ratios(analyses)
    body = ['<h2 id="comparison">Comparison between runs</h2>']
    if len(analyses) > 1:
        body.append('<p>Every bag side by side (stride as defined in each bag\'s locomotion section):</p>'
                    + side_by_side(analyses))
    else:
        body.append('<p class="absent">Not in this report: one bag only; give two or more for a comparison.</p>')
    body.append('<h3>Runs of the same gait</h3>')
    comparison_json = []
    if not compared:
        body.append('<p class="absent">Not in this report: no two bags of the same gait '
                    '(gait ids: ' + html.escape(', '.join(f'{a.label}: {a.gait_id}' for a in analyses)) +
                    '; set them with --label BAG=CLASS:GAIT).</p>')
    for index, result in enumerate(compared):
        error = result.error
        figure = (plots.comparison(result, out_dir, index)
                  if error is not None or result.reference_shape is not None else None)
        body.append(f'<h4>{html.escape(result.other)} against {html.escape(result.reference)} '
                    f'({html.escape(result.gait_id)})</h4>')
        body.append(_table([
            ('stride ratio (other / reference)', _f(result.stride_ratio, digits=3)),
            ('shape-normalised trajectory error (mean steady cycle / stride)',
             f'{_f(result.shape_error_strides, digits=3)} strides'),
            ('ATE (evo, Umeyama SE(3), RMSE)', _f(error.ate_rmse_m if error else None, 100, 2, ' cm')),
            ('RPE over one cycle (evo, RMSE)', _f(error.rpe_rmse_m if error else None, 100, 2, ' cm')),
            ('compared span of gait time', _f(error.compared_s if error else None, digits=1, unit=' s')),
        ] + [(f'not computed: {k}', v) for k, v in result.absent.items()]) + _figure(figure))
        comparison_json.append({
            'gait_id': result.gait_id, 'reference': result.reference, 'other': result.other,
            'stride_ratio': result.stride_ratio, 'shape_error_strides': result.shape_error_strides,
            'ate_rmse_m': error.ate_rmse_m if error else None, 'ate_max_m': error.ate_max_m if error else None,
            'rpe_rmse_m': error.rpe_rmse_m if error else None, 'rpe_delta_s': error.rpe_delta_s if error else None,
            'compared_s': error.compared_s if error else None, 'absent': result.absent,
            'figure': figure.name if figure else None})
    body.append('<h3 id="performance-ratio">Performance ratio Ξ (the geometric-mechanics paper §V-C)</h3>')
    ratio_json: list[dict[str, Any]] = []
    if no_ratio:
        body.append(f'<p class="absent">Not in this report: {html.escape(no_ratio)}.</p>')
    for index, ratio in enumerate(ratios):
        body.append(f'<p>δ((i,j),X) = ΔCOM<sub>i</sub>/ΔCOM<sub>j</sub> (stride per steady cycle, head as COM), '
                    f'Ξ = δ<sub>{html.escape(ratio.class_x)}</sub>/δ<sub>{html.escape(ratio.class_y)}</sub>: '
                    f'off-diagonal mean {ratio.off_diagonal_mean:.3f}, STD {ratio.off_diagonal_std:.3f} '
                    '(the paper: Exp/Sim mean 1.041, STD 0.297).</p>' + _figure(plots.performance_ratio(ratio, out_dir, index)))
        ratio_json.append({'class_x': ratio.class_x, 'class_y': ratio.class_y, 'gaits': ratio.gaits, 'xi': ratio.xi,
                           'off_diagonal_mean': ratio.off_diagonal_mean, 'off_diagonal_std': ratio.off_diagonal_std})
    report_rev = git_rev or source_git_revision()
    provenance = {
        'command': argv, 'generated_utc': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
        'report_git_rev': report_rev,
        'report_git_rev_source': 'command line (--git-rev)' if git_rev else 'git describe of the report sources',
        'bag_git_revs': {a.label: a.bag.custom_data.get('cobra.git_rev') for a in analyses},
        'class_by': class_by,
    }
    metrics = {'provenance': provenance, 'bags': [bag_metrics(a, ground_problems[a.label]) for a in analyses],
               'comparisons': comparison_json, 'performance_ratio': ratio_json,
               'performance_ratio_absent': no_ratio, 'figures': figures_by_bag}
    metrics['ground_problems'] = ground_problems
    metrics['velocity_tracking'] = velocity_by_bag  # commanded against achieved velocity, None without cmd_vel

    def stride(a: BagAnalysis) -> str:
        return _f(a.locomotion.mean_stride_m, 100, 2, ' cm') if a.locomotion is not None else 'n/a'
    index_rows = ''.join(
        f'<tr><td><a href="#{a.label}">{html.escape(a.label)}</a></td><td>{html.escape(a.bag_class)}</td>'
        f'<td>{html.escape(robot_of(a))}</td><td>{html.escape(terrain_of(a))}</td><td>{html.escape(a.gait_id)}</td>'
        f'<td>{html.escape(stamp_text(time_origin_s(a)))}</td><td>{a.bag.duration_s:.1f}</td>'
        f'<td>{int(a.cycles.steady.sum()) if a.cycles is not None else "n/a"}</td><td>{stride(a)}</td>'
        f'<td>{ground_verdict(a, ground_problems[a.label])}</td>'
        f'<td>{html.escape(str(a.bag.custom_data.get("cobra.git_rev", "not recorded")))}</td></tr>' for a in analyses)
    nav = ' '.join([f'<a href="#{a.label}">{html.escape(a.label)}</a>' for a in analyses]
                   + ['<a href="#comparison">comparison between runs</a>',
                      '<a href="#performance-ratio">performance ratio Ξ</a>', '<a href="metrics.json">metrics.json</a>'])
    page = (f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>COBRA validation report</title>'
            f'<style>{STYLE}</style></head><body><h1>COBRA validation report</h1>'
            '<table id="summary"><tr><th>bag</th><th>class</th><th>robot</th><th>terrain</th><th>gait</th>'
            '<th>gait start (t = 0 on its page)</th><th>duration [s]</th><th>steady cycles</th><th>stride</th>'
            f'<th>ground check</th><th>git revision in bag</th></tr>{index_rows}</table>'
            f'<nav>Go to: {nav}</nav>'
            f'<p>Generated {provenance["generated_utc"]} by cobra_analysis at git revision '
            f'{html.escape(str(report_rev))} ({html.escape(provenance["report_git_rev_source"])}). '
            f'Times on each bag\'s page are seconds since its gait start. {html.escape(STRIDE_DEFINITION)}</p>'
            + '\n'.join(body + bag_sections) + '</body></html>')
    (out_dir / 'metrics.json').write_text(json.dumps(_json_value(metrics), indent=1))
    (out_dir / 'index.html').write_text(page)
    return metrics


def _prepare_output(out_dir: Path, force: bool) -> Path:
    """A fresh hidden staging directory beside out_dir (ReportInputError when out_dir is taken)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise ReportInputError(f'--out {out_dir} is a file: give a directory path')
    if out_dir.is_dir() and any(out_dir.iterdir()) and not force:
        raise ReportInputError(f'--out {out_dir} exists and is not empty: choose a new directory or add --force '
                               'to replace it')
    parent = out_dir.resolve().parent
    if not parent.is_dir():
        raise ReportInputError(f'--out {out_dir}: its parent directory {parent} does not exist')
    if not os.access(parent, os.W_OK):
        raise ReportInputError(f'--out {out_dir}: cannot write in {parent}')
    staging = parent / f'.{out_dir.name}.partial-{os.getpid()}'
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    return staging


def _publish(staging: Path, out_dir: Path) -> None:
    """Move the finished report into place (replacing an old one only now)."""
    if out_dir.exists():
        old = out_dir.resolve().parent / f'.{out_dir.name}.old-{os.getpid()}'
        out_dir.rename(old)
        staging.rename(out_dir)
        shutil.rmtree(old, ignore_errors=True)
    else:
        staging.rename(out_dir)


def parser() -> argparse.ArgumentParser:
    result = argparse.ArgumentParser(
        prog='cobra_report', description='Validation report (index.html, PNGs, metrics.json) from rosbag2 bags '
        '(MCAP or sqlite3) of COBRA / T-Snake runs, sim and robot.')
    result.add_argument('bags', nargs='+', metavar='BAG', help='bag directory (or a single .mcap/.db3 file)')
    result.add_argument('--out', required=True, type=Path, help='report directory (created; must be new or empty)')
    result.add_argument('--force', action='store_true', help='replace an existing --out directory')
    result.add_argument('--label', action='append', default=[], metavar='BAG=CLASS:GAIT',
                        help='set the class (sim/robot/terrain...) and/or gait id of a bag (by path or name); '
                             'an empty side keeps the automatic one. Repeatable.')
    result.add_argument('--class-by', choices=('source', 'terrain'), default='source',
                        help='automatic class: sim vs robot (default) or the sim terrain')
    result.add_argument('--git-rev', help='git revision to record as the project revision of this report')
    result.add_argument('--gait-frequency-hz', type=float, help='gait frequency for every bag (else from the '
                        "bag's custom_data cobra.gait.frequency_hz, else the commands' dominant frequency)")
    return result


def main(argv: list[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    arguments = parser().parse_args(words)
    from cobra_analysis.bag_reader import BagError
    staging = None
    try:
        if arguments.gait_frequency_hz is not None and not (arguments.gait_frequency_hz > 0):
            raise ReportInputError(f'--gait-frequency-hz {arguments.gait_frequency_hz} must be > 0')
        overrides = [parse_label(text) for text in arguments.label]
        staging = _prepare_output(arguments.out, arguments.force)
        metrics = build_report(arguments.bags, staging, overrides, arguments.class_by, arguments.git_rev,
                               arguments.gait_frequency_hz, ['cobra_report', *words])
        _publish(staging, arguments.out)
        staging = None
    except (ReportInputError, BagError) as error:
        print(f'error: {error}', file=sys.stderr)
        return EXIT_BAD_INPUT
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    absent = sum(len(b['absent']) for b in metrics['bags'])
    print(f"report: {arguments.out / 'index.html'} ({len(metrics['bags'])} bag(s), "
          f"{len(metrics['comparisons'])} comparison(s), {absent} section(s) absent: see the page)")
    sunk = [f'{label}: {line}' for label, lines in metrics['ground_problems'].items() for line in lines]
    for line in sunk:
        print(line, file=sys.stderr)
    return EXIT_RUN_WENT_WRONG if sunk else 0


if __name__ == '__main__':
    raise SystemExit(main())
