"""Report section "commanded against achieved velocity": the cmd_vel a bag recorded (gait:=cmd_vel:
teleop or navigate_node) against the motion of the head track, window by window.

The command is held from each message until the next, and counts as zero once it is older than
the gait node's cmd_vel_timeout_s (0.5 s), as the gait node treats it. The achieved velocity is
the head's, expressed in the body frame of the window: the lateral speed is the displacement of
the smoothed head position along the left normal of the window's mean heading, the yaw rate the
change of the smoothed, unwrapped head yaw. Smoothing over one gait cycle (smooth_s) removes the
head's swing through the wave (+-23 deg and +-6 cm on COBRA at gait1's amplitudes). cmd_vel has no
header: its log time is what the bag holds (in sim, the logger logs it at the newest sim stamp).
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cobra_common.bags import connections_named, open_bag

CMD_VEL_TOPIC = 'cmd_vel'
TWIST_TYPE = 'geometry_msgs/msg/Twist'
TIMEOUT_S = 0.5  # the gait node's default cmd_vel_timeout_s
WINDOW_S = 5.0
SMOOTH_S = 2.5  # one cycle at 0.4 Hz
MOVING_FRACTION = 0.2  # windows whose command is under this share of the run's largest count as standing


@dataclass(frozen=True)
class CommandSeries:
    times_s: np.ndarray
    lateral_m_s: np.ndarray
    angular_rad_s: np.ndarray


@dataclass(frozen=True)
class VelocityWindow:
    begin_s: float
    end_s: float
    commanded_lateral_m_s: float
    achieved_lateral_m_s: float
    commanded_angular_rad_s: float
    achieved_angular_rad_s: float


@dataclass(frozen=True)
class VelocityTracking:
    windows: list[VelocityWindow]
    lateral_ratio: float | None  # median achieved / commanded over the windows that moved sideways
    angular_ratio: float | None  # ... that turned
    commands: int


def held_command(series: CommandSeries, times_s: np.ndarray, timeout_s: float = TIMEOUT_S
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(linear.y, angular.z) in force at each time: the newest message, zero once it is stale."""
    index = np.searchsorted(series.times_s, times_s, side='right') - 1
    valid = (index >= 0)
    age = np.where(valid, times_s - series.times_s[np.clip(index, 0, None)], np.inf)
    fresh = valid & (age <= timeout_s)
    safe = np.clip(index, 0, None)
    return (np.where(fresh, series.lateral_m_s[safe], 0.0), np.where(fresh, series.angular_rad_s[safe], 0.0))


def _smooth(times_s: np.ndarray, values: np.ndarray, width_s: float) -> np.ndarray:
    """Centred moving average over width_s (samples may be uneven: cumulative trapezoid)."""
    if len(times_s) < 2:
        return values.copy()
    integral = np.concatenate([np.zeros((1,) + values.shape[1:]), np.cumsum(
        0.5 * (values[1:] + values[:-1]) * np.diff(times_s).reshape((-1,) + (1,) * (values.ndim - 1)), axis=0)])
    low = np.clip(times_s - width_s / 2, times_s[0], times_s[-1])
    high = np.clip(times_s + width_s / 2, times_s[0], times_s[-1])
    span = (high - low).reshape((-1,) + (1,) * (values.ndim - 1))
    at = (lambda t: np.stack([np.interp(t, times_s, integral[:, k]) for k in range(integral.shape[1])], -1)) \
        if values.ndim == 2 else (lambda t: np.interp(t, times_s, integral))
    return np.where(span > 0, (at(high) - at(low)) / np.where(span > 0, span, 1.0), values)


def compare(commands: CommandSeries, head_times_s: np.ndarray, head_xy_m: np.ndarray, head_yaw_rad: np.ndarray,
            window_s: float = WINDOW_S, smooth_s: float = SMOOTH_S, timeout_s: float = TIMEOUT_S
            ) -> VelocityTracking | None:
    """Window-by-window commanded and achieved body-frame lateral speed and yaw rate over the span
    where both cmd_vel and the head track exist; None when they do not overlap by one window."""
    if not len(commands.times_s) or len(head_times_s) < 2:
        return None
    begin = max(commands.times_s[0], head_times_s[0] + smooth_s / 2)
    end = min(head_times_s[-1] - smooth_s / 2, commands.times_s[-1] + timeout_s + window_s)
    if end - begin < window_s:
        return None
    yaw = np.unwrap(head_yaw_rad)
    xy = _smooth(head_times_s, head_xy_m, smooth_s)
    smooth_yaw = _smooth(head_times_s, yaw, smooth_s)
    windows = []
    for start in np.arange(begin, end - window_s + 1e-9, window_s):
        stop = start + window_s
        inside = (head_times_s >= start) & (head_times_s <= stop)
        if inside.sum() < 2:
            continue
        lateral_cmd, angular_cmd = held_command(commands, head_times_s[inside], timeout_s)
        position = np.stack([np.interp([start, stop], head_times_s, xy[:, k]) for k in range(2)], -1)
        heading = np.interp([start, stop], head_times_s, smooth_yaw)
        mean_heading = float(np.mean(heading))
        left = np.array([-math.sin(mean_heading), math.cos(mean_heading)])
        windows.append(VelocityWindow(
            float(start), float(stop), float(lateral_cmd.mean()), float((position[1] - position[0]) @ left / window_s),
            float(angular_cmd.mean()), float((heading[1] - heading[0]) / window_s)))
    if not windows:
        return None
    return VelocityTracking(windows, _ratio(windows, 'lateral'), _ratio(windows, 'angular'), len(commands.times_s))


def _ratio(windows: list[VelocityWindow], kind: str) -> float | None:
    commanded = np.array([getattr(w, f'commanded_{kind}_{"m_s" if kind == "lateral" else "rad_s"}') for w in windows])
    achieved = np.array([getattr(w, f'achieved_{kind}_{"m_s" if kind == "lateral" else "rad_s"}') for w in windows])
    largest = np.abs(commanded).max() if len(commanded) else 0.0
    moving = np.abs(commanded) > MOVING_FRACTION * largest if largest > 0 else np.zeros(len(commanded), bool)
    return float(np.median(achieved[moving] / commanded[moving])) if moving.any() else None


def read_commands(bag: str | Path) -> CommandSeries | None:
    """The bag's cmd_vel (log times), None when it has none."""
    with open_bag(bag) as reader:
        connections = connections_named(reader, CMD_VEL_TOPIC, TWIST_TYPE)
        if not connections or not sum(c.msgcount for c in connections):
            return None
        rows = [(timestamp_ns * 1e-9, message.linear.y, message.angular.z)
                for connection, timestamp_ns, raw in reader.messages(connections=connections)
                for message in [reader.deserialize(raw, connection.msgtype)]]
    array = np.array(sorted(rows))
    return CommandSeries(array[:, 0], array[:, 1], array[:, 2])


def plot(tracking: VelocityTracking, out_dir: Path, label: str) -> str:
    """Commanded and achieved lateral speed and yaw rate per window; the file name."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    middle = [(w.begin_s + w.end_s) / 2 - tracking.windows[0].begin_s for w in tracking.windows]
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
    top.step(middle, [w.commanded_lateral_m_s * 100 for w in tracking.windows], where='mid', label='commanded')
    top.plot(middle, [w.achieved_lateral_m_s * 100 for w in tracking.windows], 'o-', label='achieved (head)')
    top.set_ylabel('lateral speed [cm/s]')
    top.legend()
    bottom.step(middle, [math.degrees(w.commanded_angular_rad_s) for w in tracking.windows], where='mid',
                label='commanded')
    bottom.plot(middle, [math.degrees(w.achieved_angular_rad_s) for w in tracking.windows], 'o-', label='achieved')
    bottom.set_ylabel('yaw rate [deg/s]')
    bottom.set_xlabel('time from the first command [s]')
    figure.suptitle(f'{label}: commanded against achieved velocity ({WINDOW_S:g} s windows)')
    name = f'{label}_cmd_vel.png'
    figure.savefig(out_dir / name, dpi=90)
    plt.close(figure)
    return name


def section(bag_path: Path, head: Any, out_dir: Path, label: str) -> tuple[str, dict[str, Any] | None]:
    """(HTML of the section, its metrics.json entry) for one bag; `head` is bag_reader's PoseSeries."""
    title = '<h3>Commanded against achieved velocity</h3>'
    commands = read_commands(bag_path)
    if commands is None:
        return title + ('<p class="absent">Not in this report: no cmd_vel in the bag (not a gait:=cmd_vel '
                        'run).</p>'), None
    if head is None:
        return title + '<p class="absent">Not in this report: no head track (odom) to compare with.</p>', None
    tracking = compare(commands, head.times_s, head.position_m[:, :2], head.yaw_rad)
    if tracking is None:
        return title + (f'<p class="absent">Not in this report: cmd_vel and the head track overlap by less than '
                        f'{WINDOW_S:g} s.</p>'), None
    rows = ''.join(f'<tr><td>{w.begin_s - tracking.windows[0].begin_s:.1f}</td>'
                   f'<td>{w.commanded_lateral_m_s * 100:.2f}</td><td>{w.achieved_lateral_m_s * 100:.2f}</td>'
                   f'<td>{math.degrees(w.commanded_angular_rad_s):.2f}</td>'
                   f'<td>{math.degrees(w.achieved_angular_rad_s):.2f}</td></tr>' for w in tracking.windows)

    def ratio(value: float | None) -> str:
        return 'n/a' if value is None else f'{value:.2f}'
    text = (f'<p>{tracking.commands} cmd_vel messages; held until the next, zero when older than {TIMEOUT_S:g} s. '
            f'Achieved: the head track smoothed over {SMOOTH_S:g} s, in the window\'s body frame. Median '
            f'achieved / commanded: lateral {html.escape(ratio(tracking.lateral_ratio))}, '
            f'yaw rate {html.escape(ratio(tracking.angular_ratio))}.</p>'
            '<table><tr><th>window from [s]</th><th>commanded linear.y [cm/s]</th><th>achieved [cm/s]</th>'
            f'<th>commanded angular.z [deg/s]</th><th>achieved [deg/s]</th></tr>{rows}</table>')
    figure = plot(tracking, out_dir, label)
    metrics = {'commands': tracking.commands, 'lateral_ratio': tracking.lateral_ratio,
               'angular_ratio': tracking.angular_ratio, 'window_s': WINDOW_S,
               'windows': [vars(w) for w in tracking.windows]}
    alt = f'{label}: commanded against achieved lateral speed and yaw rate in {WINDOW_S:g} s windows'
    return title + text + f'<p><img src="{html.escape(figure)}" alt="{html.escape(alt)}"></p>', metrics
