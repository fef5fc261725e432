"""The commanded shapes and the recorded head track of a bag, for eps calibration (no rclpy).

Reads `joint_commands` (sensor_msgs/JointState) and `ground_truth/odom` (else `odom`,
nav_msgs/Odometry) from a rosbag2 bag opened by cobra_common.bags (its topic rule: `/cobra/odom`
is `odom`; `ground_truth/odom` is never `odom`).
Everything is on header stamps. The joint rows are interpolated at the odom stamps inside the
commanded span, thinned to at most `max_rate_hz`, so shape t and track point t are one instant.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from cobra_common.bags import BagReadError, connections_named, open_bag, stamp_s

JOINT_COMMANDS = 'joint_commands'
ODOM = 'odom'
TRUTH_ODOM = 'ground_truth/odom'
JOINT_STATE_TYPE = 'sensor_msgs/msg/JointState'
ODOMETRY_TYPE = 'nav_msgs/msg/Odometry'
MIN_SAMPLES = 10  # fewer shapes than this cannot pin an eps down


class BagTrackError(ValueError):
    """A bag that cannot give a track; the text names the file and the fix."""


@dataclass(frozen=True)
class BagTrack:
    """Joint rows and head (base_link) poses at the same instants (header stamps)."""

    odom_topic: str
    joint_names: tuple[str, ...]
    times_s: np.ndarray  # (T,)
    joint_rows_rad: np.ndarray  # (T, J), commanded, interpolated at times_s
    position_m: np.ndarray  # (T, 3), base_link in odom
    quaternion_xyzw: np.ndarray  # (T, 4)


def _thin(times_s: np.ndarray, max_rate_hz: float) -> np.ndarray:
    """Indices keeping samples at least 1 / max_rate_hz apart."""
    keep, last = [], -np.inf
    for index, time_s in enumerate(times_s):
        if time_s - last >= 1.0 / max_rate_hz - 1e-9:
            keep.append(index)
            last = time_s
    return np.array(keep, dtype=int)


def read_bag_track(path: str | Path, max_rate_hz: float = 20.0) -> BagTrack:
    """The commanded joint rows at the recorded head poses (BagTrackError names the problem)."""
    bag = Path(path)
    if max_rate_hz <= 0.0:
        raise BagTrackError(f'max_rate_hz must be > 0, got {max_rate_hz}')
    try:
        commands, odometry = _read(bag)
    except BagReadError as error:
        raise BagTrackError(str(error)) from error
    return _track(bag, commands, odometry, max_rate_hz)


def _read(bag: Path) -> tuple[list[tuple[float, tuple[str, ...], list[float]]],
                              tuple[str, list[tuple[float, list[float], list[float]]]]]:
    with open_bag(bag, own_errors=(BagTrackError,)) as reader:
        command_connections = connections_named(reader, JOINT_COMMANDS, JOINT_STATE_TYPE)
        truth = connections_named(reader, TRUTH_ODOM, ODOMETRY_TYPE)
        estimate = connections_named(reader, ODOM, ODOMETRY_TYPE)
        odom_connections = truth if any(c.msgcount for c in truth) else estimate
        topics = sorted({c.topic for c in reader.connections}) or ['no topics']
        if not any(c.msgcount for c in command_connections) or not any(c.msgcount for c in odom_connections):
            raise BagTrackError(f"{bag}: needs messages on joint_commands and on ground_truth/odom or odom; "
                                f"the bag has {', '.join(topics)}: record the gait's commands and the "
                                'odometry (the logger does by default)')
        commands, poses = [], []
        odom_ids = {c.id for c in odom_connections}
        for connection, _, raw in reader.messages(connections=command_connections + odom_connections):
            message = reader.deserialize(raw, connection.msgtype)
            if connection.id in odom_ids:
                pose = message.pose.pose
                poses.append((stamp_s(message.header.stamp), [pose.position.x, pose.position.y, pose.position.z],
                              [pose.orientation.x, pose.orientation.y, pose.orientation.z, pose.orientation.w]))
            else:
                commands.append((stamp_s(message.header.stamp), tuple(message.name), list(message.position)))
    return commands, (odom_connections[0].topic, poses)


def _track(bag: Path, commands: list[tuple[float, tuple[str, ...], list[float]]],
           odometry: tuple[str, list[tuple[float, list[float], list[float]]]], max_rate_hz: float) -> BagTrack:
    names = commands[0][1]
    rows = [(stamp, position) for stamp, message_names, position in commands
            if message_names == names and len(position) == len(names)]
    if len(rows) < len(commands):
        raise BagTrackError(f'{bag}: joint_commands change their joint names or lack positions '
                            f'({len(commands) - len(rows)} of {len(commands)} messages): record one gait per bag')
    command_times = np.array([stamp for stamp, _ in rows])
    order = np.argsort(command_times, kind='stable')
    command_times, command_rows = command_times[order], np.array([row for _, row in rows])[order]
    topic, poses = odometry
    pose_times = np.array([stamp for stamp, _, _ in poses])
    order = np.argsort(pose_times, kind='stable')
    pose_times = pose_times[order]
    positions = np.array([position for _, position, _ in poses])[order]
    quaternions = np.array([quaternion for _, _, quaternion in poses])[order]
    inside = (pose_times >= command_times[0]) & (pose_times <= command_times[-1])
    finite = np.all(np.isfinite(positions), axis=1) & np.all(np.isfinite(quaternions), axis=1)
    finite &= np.linalg.norm(quaternions, axis=1) > 0.5
    chosen = np.flatnonzero(inside & finite)
    chosen = chosen[_thin(pose_times[chosen], max_rate_hz)] if len(chosen) else chosen
    if len(chosen) < MIN_SAMPLES:
        raise BagTrackError(f'{bag}: only {len(chosen)} {topic} poses lie inside the joint_commands span '
                            f'[{command_times[0]:.3f}, {command_times[-1]:.3f}] s (need {MIN_SAMPLES}): '
                            'the two topics must overlap in header-stamp time')
    if not np.all(np.isfinite(command_rows)):
        raise BagTrackError(f'{bag}: joint_commands hold NaN or inf positions')
    times = pose_times[chosen]
    joint_rows = np.column_stack([np.interp(times, command_times, command_rows[:, j]) for j in range(len(names))])
    return BagTrack(topic, names, times, joint_rows, positions[chosen], quaternions[chosen])
