"""What a run did, read back from its bag: distance, lateral speed, stride per gait cycle, RTF."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rosbags.highlevel import AnyReader
from rosbags.typesys import Stores, get_typestore

TRUTH_TOPIC = 'ground_truth/odom'
ODOM_TOPIC = 'odom'


@dataclass(frozen=True)
class RunSummary:
    bag_path: Path
    source_topic: str
    duration_s: float
    distance_m: float            # net head displacement in the ground plane
    lateral_displacement_m: float  # along the odom y axis (perpendicular to the initial body axis)
    mean_lateral_speed_m_s: float
    displacement_per_cycle_m: float | None
    real_time_factor: float | None


def _ends_with(topic: str, name: str) -> bool:
    """Matches `name` in any namespace, without taking ground_truth/odom for odom."""
    parts = topic.strip('/').split('/')
    wanted = name.split('/')
    return parts[-len(wanted):] == wanted and (name != ODOM_TOPIC or parts[-2:-1] != ['ground_truth'])


def read_run(bag_path: Path) -> tuple[str, np.ndarray, np.ndarray, list[float]]:
    """One pass over the bag: (head topic, times [s], xy [m]) of ground_truth/odom (else odom),
    and every real_time_factor the simulation reported in diagnostics."""
    with AnyReader([bag_path], default_typestore=get_typestore(Stores.ROS2_JAZZY)) as reader:
        truth, odom = ([c for c in reader.connections if _ends_with(c.topic, wanted)]
                       for wanted in (TRUTH_TOPIC, ODOM_TOPIC))
        head_connections = truth or odom
        diagnostics = [c for c in reader.connections if _ends_with(c.topic, 'diagnostics')]
        times, points, real_time_factors = [], [], []
        for connection, _, raw in reader.messages(connections=head_connections + diagnostics):
            message = reader.deserialize(raw, connection.msgtype)
            if connection in diagnostics:
                real_time_factors += [float(v.value) for status in message.status
                                      for v in status.values if v.key == 'real_time_factor']
                continue
            times.append(message.header.stamp.sec + message.header.stamp.nanosec * 1e-9)
            points.append((message.pose.pose.position.x, message.pose.pose.position.y))
    if not times:
        raise ValueError(f'{bag_path} holds no {TRUTH_TOPIC} or {ODOM_TOPIC} messages')
    return head_connections[0].topic, np.array(times), np.array(points), real_time_factors


def summarize(bag_path: Path, gait_frequency_hz: float | None) -> RunSummary:
    topic, times, xy, real_time_factors = read_run(bag_path)
    duration = float(times[-1] - times[0])
    lateral = float(xy[-1, 1] - xy[0, 1])
    cycles = gait_frequency_hz * duration if gait_frequency_hz else 0.0
    return RunSummary(bag_path, topic, duration, float(np.linalg.norm(xy[-1] - xy[0])), lateral,
                      lateral / duration if duration > 0 else 0.0,
                      lateral / cycles if cycles > 0 else None,
                      float(np.mean(real_time_factors)) if real_time_factors else None)


def format_summary(summary: RunSummary) -> str:
    per_cycle = (f'{summary.displacement_per_cycle_m:+.3f} m' if summary.displacement_per_cycle_m
                 is not None else 'n/a')
    rtf = f'{summary.real_time_factor:.2f}' if summary.real_time_factor is not None else 'n/a'
    return '\n'.join([
        'run summary',
        f'  head track            {summary.source_topic}, {summary.duration_s:.2f} s',
        f'  distance (net)        {summary.distance_m:.3f} m',
        f'  lateral displacement  {summary.lateral_displacement_m:+.3f} m',
        f'  mean lateral speed    {summary.mean_lateral_speed_m_s * 100:+.2f} cm/s',
        f'  per gait cycle        {per_cycle}',
        f'  real-time factor      {rtf}',
        f'  bag                   {summary.bag_path}',
    ])
