"""Per-bag analysis and the comparisons between bags: every section either holds its result or
says why it is absent (a topic the bag lacks), so the report never fails on a missing topic.

Identification (overridable with --label BAG=CLASS:GAIT on the command line):
- class: custom_data `cobra.class`, else `sim` when the bag has a sim-only topic
  (ground_truth/odom, contact/forces, /clock, or a `terrain` diagnostics entry), else `robot`;
  with class_by='terrain': custom_data `cobra.terrain`, else the sim's `terrain` diagnostics
  value (+ `slope_deg` when non-zero), else `unknown`.
- gait: custom_data `cobra.gait.gait` (with the `cobra.gait.*` parameters), else a signature of
  the commands themselves: dominant frequency and odd/even joint amplitudes, rounded
  (`f0.50Hz A0.50/0.50rad`), so the same gait run on the robot and in the sim gets the same id.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cobra_analysis import metrics as m
from cobra_analysis.bag_reader import BagData, gait_parameters
from cobra_analysis.trajectory_error import TrajectoryError, gait_clock_track, trajectory_error

SIM_CLASS, ROBOT_CLASS = 'sim', 'robot'


@dataclass
class BagAnalysis:
    bag: BagData
    label: str                       # short unique name used in the report
    bag_class: str
    gait_id: str
    gait_parameters: dict[str, Any]
    gait_start_s: float | None
    frequency_hz: float | None
    frequency_source: str
    cycles: m.GaitCycles | None = None
    locomotion: m.Locomotion | None = None
    tracking: list[m.JointTracking] = field(default_factory=list)
    tracking_window_s: tuple[float, float] | None = None  # steady cycles when known, else from the start
    contact: m.ContactProfile | None = None
    tumbling: list[m.Tumbling] = field(default_factory=list)
    twist: list[m.TwistPower] = field(default_factory=list)
    absent: dict[str, str] = field(default_factory=dict)  # section -> why it is not in the report


def _class_of(bag: BagData, class_by: str) -> str:
    if class_by == 'terrain':
        if 'cobra.terrain' in bag.custom_data:
            return bag.custom_data['cobra.terrain']
        terrain = bag.diagnostics.get('terrain')
        if terrain is None:
            return 'unknown'
        slope = bag.diagnostics.get('slope_deg')
        return f'{terrain} {slope} deg' if slope not in (None, '', '0', '0.0') else terrain
    if 'cobra.class' in bag.custom_data:
        return bag.custom_data['cobra.class']
    sim_only = (bag.odom is not None or bag.contact_forces or bag.has_clock or 'terrain' in bag.diagnostics)
    return SIM_CLASS if sim_only else ROBOT_CLASS


def _amplitude_signature(names: tuple[str, ...], positions: np.ndarray, steady_rows: np.ndarray) -> str:
    columns = m.bounded_joint_columns(names)
    if not columns or not steady_rows.any():
        return ''
    rows = positions[steady_rows][:, columns]
    half_range = (np.nanmax(rows, axis=0) - np.nanmin(rows, axis=0)) / 2.0
    odd, even = half_range[0::2], half_range[1::2]
    return f' A{np.nanmax(odd):.2f}/{np.nanmax(even) if even.size else 0.0:.2f}rad'


def analyse_bag(bag: BagData, label: str, class_by: str = 'source', class_override: str | None = None,
                gait_override: str | None = None, frequency_override_hz: float | None = None) -> BagAnalysis:
    """Every section of one bag that its topics allow."""
    parameters = gait_parameters(bag.custom_data)
    absent: dict[str, str] = {}
    commands = bag.joint_commands
    start = m.gait_start_s(commands.times_s, commands.position_rad) if commands is not None else None
    frequency, source = None, 'none'
    if frequency_override_hz:
        frequency, source = frequency_override_hz, 'command line'
    elif isinstance(parameters.get('frequency_hz'), float) and parameters['frequency_hz'] > 0:
        frequency, source = parameters['frequency_hz'], 'bag gait parameters (custom_data cobra.gait.frequency_hz)'
    elif commands is not None and start is not None:
        after = commands.times_s >= start
        columns = m.bounded_joint_columns(commands.names)
        if columns and after.sum() >= 16:
            frequency = m.dominant_frequency_hz(commands.times_s[after], commands.position_rad[after][:, columns])
            source = 'dominant frequency of joint_commands'
    result = BagAnalysis(bag, label, class_override or _class_of(bag, class_by), '', parameters, start,
                         frequency, source, absent=absent)
    if commands is None:
        absent['gait'] = 'no joint_commands topic: gait start, cycles and joint tracking need it'
    elif start is None:
        absent['gait'] = 'every joint_commands message is zero: the gait never started'
    elif frequency is None:
        absent['gait'] = 'no gait frequency: not in the bag\'s custom_data and no clear peak in the commands'
    if start is not None and frequency:
        end = float(min(commands.times_s[-1], bag.head.times_s[-1] if bag.head is not None else np.inf))
        result.cycles = m.gait_cycles(start, end, frequency, commands.times_s,
                                      commands.position_rad[:, m.bounded_joint_columns(commands.names)])
        if not result.cycles.steady.any():
            absent['gait'] = 'no whole gait cycle at full amplitude after the start'
    steady_rows = np.zeros(0, dtype=bool)
    if result.cycles is not None and result.cycles.steady.any():
        k = result.cycles.steady_indices
        steady_rows = (commands.times_s >= result.cycles.bounds_s[k[0]]) & \
                      (commands.times_s < result.cycles.bounds_s[k[-1] + 1])
    if gait_override:
        result.gait_id = gait_override
    elif 'gait' in parameters:
        result.gait_id = str(parameters['gait'])
    elif commands is not None and frequency and steady_rows.any():
        result.gait_id = f'f{frequency:.2f}Hz' + _amplitude_signature(commands.names, commands.position_rad, steady_rows)
    else:
        result.gait_id = 'unknown'
    _locomotion(result)
    _tracking(result)
    _contact(result)
    _sinkage_reason(result)
    _tumbling(result)
    _twist(result)
    return result


def _locomotion(result: BagAnalysis) -> None:
    bag = result.bag
    if bag.head is None:
        result.absent['locomotion'] = 'no odom or ground_truth/odom topic: no head track'
    elif result.cycles is None or not result.cycles.steady.any():
        result.absent['locomotion'] = ('no steady gait cycles (see the gait line): stride per cycle needs them; '
                                       'the head track is still plotted')
    else:
        try:
            result.locomotion = m.locomotion(bag.head.times_s, bag.head.position_m[:, :2], bag.head.yaw_rad,
                                             result.cycles)
        except m.MetricsError as error:
            result.absent['locomotion'] = str(error)


def _tracking(result: BagAnalysis) -> None:
    bag = result.bag
    if bag.joint_commands is None or bag.joint_states is None:
        missing = 'joint_commands' if bag.joint_commands is None else 'joint_states'
        result.absent['tracking'] = f'no {missing} topic: commanded vs measured needs both'
        return
    if result.gait_start_s is None:
        result.absent['tracking'] = 'the gait never started (all commands zero)'
        return
    begin, end = result.gait_start_s, math.inf
    if result.cycles is not None and result.cycles.steady.any():  # steady cycles only: no ramps
        steady = result.cycles.steady_indices
        begin, end = float(result.cycles.bounds_s[steady[0]]), float(result.cycles.bounds_s[steady[-1] + 1])
    result.tracking_window_s = (begin, end)
    try:
        result.tracking = m.joint_tracking(
            bag.joint_commands.times_s, bag.joint_commands.names, bag.joint_commands.position_rad,
            bag.joint_states.times_s, bag.joint_states.names, bag.joint_states.position_rad,
            begin, end, result.frequency_hz)
    except m.MetricsError as error:
        result.absent['tracking'] = str(error)
        return
    if not result.tracking:
        result.absent['tracking'] = 'no joint is named in both joint_commands and joint_states'


def contact_magnitudes(bag: BagData) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """|force| per link: the wrench is in the link's own axes and the bag has no link poses, so the
    magnitude (normal force plus friction) stands for the normal force."""
    return {link: (series.times_s, np.linalg.norm(series.force_n, axis=1))
            for link, series in bag.contact_forces.items()}


def total_contact_force(bag: BagData, rate_hz: float = 100.0) -> tuple[np.ndarray, np.ndarray] | None:
    magnitudes = contact_magnitudes(bag)
    if not magnitudes:
        return None
    begin = min(float(t[0]) for t, _ in magnitudes.values())
    end = max(float(t[-1]) for t, _ in magnitudes.values())
    grid = m.uniform_grid(begin, end, rate_hz)
    return grid, sum(np.interp(grid, t, f, left=0.0, right=0.0) for t, f in magnitudes.values())


def _contact(result: BagAnalysis) -> None:
    if not result.bag.contact_forces:
        result.absent['contact'] = 'no contact/forces topic (recorded by the sim only)'
    elif result.cycles is None or not result.cycles.steady.any():
        result.absent['contact'] = 'no steady gait cycles to fold the forces on (see the gait line)'
    else:
        result.contact = m.contact_profile(contact_magnitudes(result.bag), result.cycles)


def _sinkage_reason(result: BagAnalysis) -> None:
    if result.bag.heightmap is None:
        result.absent['sinkage'] = 'no terrain/heightmap topic (published by the sim on terrain:=scm only)'


def _tumbling(result: BagAnalysis) -> None:
    bag = result.bag
    spans: list[tuple[float, float]] = []
    source = ''
    end = max(bag.start_s + bag.duration_s, bag.head.times_s[-1] if bag.head is not None else 0.0)
    if bag.tumble_state is not None:
        active = np.array([str(v).split(':')[0].strip() == 'tumbling' for v in bag.tumble_state.values])
        spans, source = m.intervals(bag.tumble_state.times_s, active, end), 'tumble/state = tumbling'
    if not spans and bag.latch_state is not None:
        active = np.array([bool(v) for v in bag.latch_state.values])
        spans, source = m.intervals(bag.latch_state.times_s, active, end), 'latch/state = true'
    if not spans:
        seen = (["tumble/state never 'tumbling'"] if bag.tumble_state is not None else []) + \
               (['latch/state never true'] if bag.latch_state is not None else [])
        result.absent['tumbling'] = ('; '.join(seen) + ': no tumbling in this run' if seen else
                                     'no tumble/state or latch/state topic')
        return
    if bag.head is None:
        result.absent['tumbling'] = 'tumbling marked, but no odom or ground_truth/odom topic for the body motion'
        return
    total = total_contact_force(bag)
    magnitudes = contact_magnitudes(bag)
    for begin, stop in spans:
        peak_link = None
        for times, force in magnitudes.values():
            window = (times >= begin) & (times <= stop)
            if window.any():
                peak_link = max(peak_link or 0.0, float(force[window].max()))
        try:
            result.tumbling.append(m.tumbling(begin, stop, source, bag.head.times_s, bag.head.position_m,
                                              bag.head.angular_velocity_rad_s, total, peak_link))
        except m.MetricsError as error:
            result.absent['tumbling'] = str(error)


def _twist(result: BagAnalysis) -> None:
    states = result.bag.joint_states
    if states is None or not any(m.TWIST_JOINT.match(n) for n in states.names):
        result.absent['twist'] = 'no twist joints (m1_twist, m2_twist, …) in joint_states (a T-Snake bag has them)'
        return
    start = result.gait_start_s if result.gait_start_s is not None else float(states.times_s[0])
    result.twist = m.twist_power(states.times_s, states.names, states.velocity_rad_s, states.effort_nm,
                                 start, float(states.times_s[-1]))
    if not result.twist:
        result.absent['twist'] = 'the twist joints carry no finite effort and velocity'


# ---------------------------------------------------------------- comparisons

@dataclass
class Comparison:
    gait_id: str
    reference: str
    other: str
    stride_ratio: float | None = None
    shape_error_strides: float | None = None
    reference_shape: np.ndarray | None = None  # mean steady-cycle path / stride, centred (what the shape error compares)
    other_shape: np.ndarray | None = None
    error: TrajectoryError | None = None
    absent: dict[str, str] = field(default_factory=dict)


def compare(reference: BagAnalysis, other: BagAnalysis) -> Comparison:
    """Stride ratio (other / reference), shape error of the normalised cycle, ATE/RPE."""
    result = Comparison(reference.gait_id, reference.label, other.label)
    if reference.locomotion is None or other.locomotion is None:
        result.absent['stride'] = 'a bag without stride per cycle (see its locomotion section)'
    else:
        if reference.locomotion.mean_stride_m > 0:
            result.stride_ratio = other.locomotion.mean_stride_m / reference.locomotion.mean_stride_m
        try:
            result.shape_error_strides = m.shape_error(reference.locomotion.cycle_paths_m,
                                                       other.locomotion.cycle_paths_m)
            result.reference_shape = m.normalised_cycle_shape(reference.locomotion.cycle_paths_m)
            result.other_shape = m.normalised_cycle_shape(other.locomotion.cycle_paths_m)
        except m.MetricsError as error:
            result.absent['shape'] = str(error)
    if reference.bag.head is None or other.bag.head is None or reference.gait_start_s is None \
            or other.gait_start_s is None:
        result.absent['ate_rpe'] = 'both bags need a head track and a gait start'
        return result
    try:
        tracks = [gait_clock_track(a.bag.head.times_s, a.bag.head.position_m, a.bag.head.yaw_rad, a.gait_start_s)
                  for a in (reference, other)]
        result.error = trajectory_error(tracks[0], tracks[1], reference.frequency_hz)
    except m.MetricsError as error:
        result.absent['ate_rpe'] = str(error)
    return result


def comparisons(analyses: list[BagAnalysis]) -> list[Comparison]:
    """Every bag against the first bag of its gait (in command-line order)."""
    first: dict[str, BagAnalysis] = {}
    results = []
    for analysis in analyses:
        if analysis.gait_id == 'unknown':
            continue
        if analysis.gait_id in first:
            results.append(compare(first[analysis.gait_id], analysis))
        else:
            first[analysis.gait_id] = analysis
    return results


def performance_ratios(analyses: list[BagAnalysis]) -> tuple[list[m.PerformanceRatio], str | None]:
    """Ξ for every pair of classes (in first-seen order) with >= 2 shared gaits; the stride of a
    (gait, class) is the mean over its bags. Returns (results, why none) ."""
    strides: dict[tuple[str, str], list[float]] = {}
    classes: list[str] = []
    for analysis in analyses:
        if analysis.locomotion is None or analysis.gait_id == 'unknown':
            continue
        strides.setdefault((analysis.gait_id, analysis.bag_class), []).append(analysis.locomotion.mean_stride_m)
        if analysis.bag_class not in classes:
            classes.append(analysis.bag_class)
    mean_strides = {key: float(np.mean(values)) for key, values in strides.items()}
    results = []
    for i, class_x in enumerate(classes):
        for class_y in classes[i + 1:]:
            try:
                results.append(m.performance_ratio(mean_strides, class_x, class_y))
            except m.MetricsError:
                continue
    if results:
        return results, None
    gaits = sorted({gait for gait, _ in mean_strides})
    return [], (f'needs >= 2 gaits each run in >= 2 classes; found classes {classes or "none"} and gaits '
                f'{gaits or "none"} with a stride (label bags with --label BAG=CLASS:GAIT)')
