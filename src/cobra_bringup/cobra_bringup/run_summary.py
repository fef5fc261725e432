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


def head_track(bag_path: Path) -> tuple[str, np.ndarray, np.ndarray]:
    """(topic, times [s], xy [m]) of ground_truth/odom, else odom."""
    with AnyReader([bag_path], default_typestore=get_typestore(Stores.ROS2_JAZZY)) as reader:
        for wanted in (TRUTH_TOPIC, ODOM_TOPIC):
            connections = [c for c in reader.connections if c.topic.strip('/').endswith(wanted)
                           and (wanted != ODOM_TOPIC or not c.topic.strip('/').endswith(TRUTH_TOPIC))]
            if not connections:
                continue
            times, points = [], []
            for connection, _, raw in reader.messages(connections=connections):
                message = reader.deserialize(raw, connection.msgtype)
                stamp = message.header.stamp
                times.append(stamp.sec + stamp.nanosec * 1e-9)
                points.append((message.pose.pose.position.x, message.pose.pose.position.y))
            if times:
                return connections[0].topic, np.array(times), np.array(points)
    raise ValueError(f'{bag_path} holds no {TRUTH_TOPIC} or {ODOM_TOPIC} messages')


def mean_real_time_factor(bag_path: Path) -> float | None:
    values = []
    with AnyReader([bag_path], default_typestore=get_typestore(Stores.ROS2_JAZZY)) as reader:
        connections = [c for c in reader.connections if c.topic.strip('/').endswith('diagnostics')]
        for connection, _, raw in reader.messages(connections=connections):
            for status in reader.deserialize(raw, connection.msgtype).status:
                values += [float(v.value) for v in status.values if v.key == 'real_time_factor']
    return float(np.mean(values)) if values else None


def summarize(bag_path: Path, gait_frequency_hz: float | None) -> RunSummary:
    topic, times, xy = head_track(bag_path)
    duration = float(times[-1] - times[0])
    displacement = xy[-1] - xy[0]
    lateral = float(displacement[1])
    cycles = gait_frequency_hz * duration if gait_frequency_hz else 0.0
    return RunSummary(bag_path, topic, duration, float(np.linalg.norm(displacement)), lateral,
                      lateral / duration if duration > 0 else 0.0,
                      lateral / cycles if cycles > 0 else None, mean_real_time_factor(bag_path))


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
