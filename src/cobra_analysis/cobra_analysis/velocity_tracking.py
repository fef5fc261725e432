"""Report section "commanded against achieved velocity": the cmd_vel a bag recorded (gait:=cmd_vel:
teleop or navigate_node) against the motion of the body, window by window.

How the command is held, how the body's velocity is measured and which windows count: the package
README, "cobra_analysis.velocity_tracking".
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cobra_common.bags import connections_named, open_bag, read_custom_data

CMD_VEL_TOPIC = 'cmd_vel'
TWIST_TYPE = 'geometry_msgs/msg/Twist'
TIMEOUT_S = 0.5  # the gait node's default cmd_vel_timeout_s
WINDOW_S = 5.0
SMOOTH_S = 2.5  # one cycle at 0.4 Hz
BODY_RATE_HZ = 10.0  # body poses computed per second of the bag
MOVING_FRACTION = 0.2  # windows whose command is under this share of the run's largest count as standing
STEADY_TOLERANCE = 0.05  # a command varying by at most this share over two windows is steady


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
    steady: bool = False  # the command held still over this window and the one before (ramps settled)


@dataclass(frozen=True)
class VelocityTracking:
    windows: list[VelocityWindow]
    lateral_ratio: float | None  # median achieved / commanded over the steady windows that moved sideways
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
            window_s: float = WINDOW_S, smooth_s: float = SMOOTH_S, timeout_s: float = TIMEOUT_S,
            head_offset_m: float = 0.0) -> VelocityTracking | None:
    """Window-by-window commanded and achieved body-frame lateral speed and yaw rate over the span
    where both cmd_vel and the head track exist; None when they do not overlap by one window.
    `head_offset_m`: how far the head lies ahead of the body's centre along its axis; a turning body
    moves its head sideways by yaw rate x that, which is taken off (the command is the body's)."""
    if not len(commands.times_s) or len(head_times_s) < 2:
        return None
    begin = max(commands.times_s[0], head_times_s[0] + smooth_s / 2)
    end = min(head_times_s[-1] - smooth_s / 2, commands.times_s[-1] + timeout_s + window_s)
    if end - begin < window_s:
        return None
    yaw = np.unwrap(head_yaw_rad)
    xy = _smooth(head_times_s, head_xy_m, smooth_s)
    smooth_yaw = _smooth(head_times_s, yaw, smooth_s)
    windows: list[VelocityWindow] = []
    previous: tuple[np.ndarray, np.ndarray] | None = None
    for start in np.arange(begin, end - window_s + 1e-9, window_s):
        stop = start + window_s
        inside = (head_times_s >= start) & (head_times_s <= stop)
        if inside.sum() < 2:
            continue
        lateral_cmd, angular_cmd = held_command(commands, head_times_s[inside], timeout_s)
        steady = previous is not None and all(
            np.ptp(np.concatenate([before, now])) <= STEADY_TOLERANCE * max(np.abs(now).max(), 1e-9)
            for before, now in zip(previous, (lateral_cmd, angular_cmd)))
        previous = (lateral_cmd, angular_cmd)
        position = np.stack([np.interp([start, stop], head_times_s, xy[:, k]) for k in range(2)], -1)
        heading = np.interp([start, stop], head_times_s, smooth_yaw)
        mean_heading = float(np.mean(heading))
        left = np.array([-math.sin(mean_heading), math.cos(mean_heading)])
        yaw_rate = float((heading[1] - heading[0]) / window_s)
        head_lateral = float((position[1] - position[0]) @ left / window_s)
        windows.append(VelocityWindow(float(start), float(stop), float(lateral_cmd.mean()),
                                      head_lateral - yaw_rate * head_offset_m, float(angular_cmd.mean()),
                                      yaw_rate, steady))
    if not windows:
        return None
    return VelocityTracking(windows, _ratio(windows, 'lateral'), _ratio(windows, 'angular'), len(commands.times_s))


def _ratio(windows: list[VelocityWindow], kind: str) -> float | None:
    commanded = np.array([getattr(w, f'commanded_{kind}_{"m_s" if kind == "lateral" else "rad_s"}') for w in windows])
    achieved = np.array([getattr(w, f'achieved_{kind}_{"m_s" if kind == "lateral" else "rad_s"}') for w in windows])
    largest = np.abs(commanded).max() if len(commanded) else 0.0
    moving = np.abs(commanded) > MOVING_FRACTION * largest if largest > 0 else np.zeros(len(commanded), bool)
    moving &= np.array([w.steady for w in windows])
    return float(np.median(achieved[moving] / commanded[moving])) if moving.any() else None


def body_track(head: Any, joint_states: Any, model: Any, rate_hz: float = BODY_RATE_HZ
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(times, centroid xy, principal-axis yaw) of the body at `rate_hz`: the link origins (links
    with collision geometry) by the URDF's forward kinematics at the newest joint_states, placed by
    the head's position and yaw (its roll and pitch of a few degrees are left out). None without
    joint states overlapping the head track."""
    if joint_states is None or not len(joint_states.times_s) or len(head.times_s) < 2:
        return None
    begin, end = max(head.times_s[0], joint_states.times_s[0]), min(head.times_s[-1], joint_states.times_s[-1])
    if end <= begin:
        return None
    links = [name for name, link in model.links.items() if link.collisions]
    times = np.arange(begin, end, 1.0 / rate_hz)
    rows = np.clip(np.searchsorted(joint_states.times_s, times, side='right') - 1, 0, None)
    xs = np.interp(times, head.times_s, head.position_m[:, 0])
    ys = np.interp(times, head.times_s, head.position_m[:, 1])
    yaws = np.interp(times, head.times_s, head.yaw_rad)
    centres, axes = np.empty((len(times), 2)), np.empty(len(times))
    for index, (row, x, y, yaw) in enumerate(zip(rows, xs, ys, yaws)):
        joints = dict(zip(joint_states.names, joint_states.position_rad[row]))
        local = np.array([model.transform(model.root, name, joints)[:3, 3] for name in links])[:, :2]
        c, s = math.cos(yaw), math.sin(yaw)
        points = local @ np.array([[c, s], [-s, c]]) + np.array([x, y])
        centres[index] = points.mean(axis=0)
        _, _, right = np.linalg.svd(points - centres[index], full_matrices=False)
        axis = right[0] if right[0] @ (points[0] - points[-1]) >= 0.0 else -right[0]
        axes[index] = math.atan2(axis[1], axis[0])
    return times, centres, np.unwrap(axes)


def head_offset_of(robot: str | None) -> float:
    """Distance [m] from the centroid of the straight robot's link origins (links with collision
    geometry) to its head origin; 0 for an unknown robot (the head then stands for the body)."""
    if not robot:
        return 0.0
    model = _robot_model(robot)
    if model is None:
        return 0.0
    links = [name for name, link in model.links.items() if link.collisions]
    origins = np.array([model.transform(model.root, name)[:3, 3] for name in links])
    return float(np.linalg.norm(origins.mean(axis=0)[:2]))


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


def _robot_model(robot: str | None) -> Any:
    if not robot:
        return None
    from cobra_description.robot_model import RobotModelError, default_urdf_path, load_robot_model
    try:
        return load_robot_model(default_urdf_path(robot))
    except (RobotModelError, OSError, ValueError):
        return None


def section(bag_path: Path, head: Any, out_dir: Path, label: str, joint_states: Any = None
            ) -> tuple[str, dict[str, Any] | None]:
    """(HTML of the section, its metrics.json entry) for one bag; `head` and `joint_states` are
    bag_reader's PoseSeries and JointSeries."""
    title = '<h3>Commanded against achieved velocity</h3>'
    commands = read_commands(bag_path)
    if commands is None:
        return title + ('<p class="absent">Not in this report: no cmd_vel in the bag (not a gait:=cmd_vel '
                        'run).</p>'), None
    if head is None:
        return title + '<p class="absent">Not in this report: no head track (odom) to compare with.</p>', None
    robot = read_custom_data(Path(bag_path)).get('cobra.robot')
    model = _robot_model(robot)
    body = body_track(head, joint_states, model) if model is not None else None
    if body is not None:  # the body's own pose: no swing to smooth away beyond its +-2 deg wobble
        measured = f'the body (link origins by forward kinematics at joint_states, placed by the head track; ' \
                   f'{robot} URDF) smoothed over {SMOOTH_S:g} s'
        tracking = compare(commands, *body)
    else:
        offset_m = head_offset_of(robot)
        measured = (f'the head track smoothed over {SMOOTH_S:g} s, the turn\'s share at the head ({offset_m:.2f} m '
                    'ahead of the body\'s centre) taken off (no joint_states or URDF for the body)')
        tracking = compare(commands, head.times_s, head.position_m[:, :2], head.yaw_rad, head_offset_m=offset_m)
    if tracking is None:
        return title + (f'<p class="absent">Not in this report: cmd_vel and the head track overlap by less than '
                        f'{WINDOW_S:g} s.</p>'), None
    rows = ''.join(f'<tr><td>{w.begin_s - tracking.windows[0].begin_s:.1f}{"*" if w.steady else ""}</td>'
                   f'<td>{w.commanded_lateral_m_s * 100:.2f}</td><td>{w.achieved_lateral_m_s * 100:.2f}</td>'
                   f'<td>{math.degrees(w.commanded_angular_rad_s):.2f}</td>'
                   f'<td>{math.degrees(w.achieved_angular_rad_s):.2f}</td></tr>' for w in tracking.windows)

    def ratio(value: float | None) -> str:
        return 'n/a' if value is None else f'{value:.2f}'
    text = (f'<p>{tracking.commands} cmd_vel messages; held until the next, zero when older than {TIMEOUT_S:g} s. '
            f'Achieved: {html.escape(measured)}, in the window\'s body frame. Median '
            f'achieved / commanded over the steady windows (*: command unchanged over it and the one before): '
            f'lateral {html.escape(ratio(tracking.lateral_ratio))}, '
            f'yaw rate {html.escape(ratio(tracking.angular_ratio))}.</p>'
            '<table><tr><th>window from [s]</th><th>commanded linear.y [cm/s]</th><th>achieved [cm/s]</th>'
            f'<th>commanded angular.z [deg/s]</th><th>achieved [deg/s]</th></tr>{rows}</table>')
    figure = plot(tracking, out_dir, label)
    metrics = {'commands': tracking.commands, 'lateral_ratio': tracking.lateral_ratio,
               'angular_ratio': tracking.angular_ratio, 'window_s': WINDOW_S,
               'windows': [vars(w) for w in tracking.windows]}
    alt = f'{label}: commanded against achieved lateral speed and yaw rate in {WINDOW_S:g} s windows'
    return title + text + f'<p><img src="{html.escape(figure)}" alt="{html.escape(alt)}"></p>', metrics
