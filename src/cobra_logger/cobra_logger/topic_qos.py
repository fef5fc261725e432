"""The logger's subscriptions at the edge: QoS that matches every publisher, as rosbag2 stores it.

A topic is subscribed once its type and publishers are seen in the graph, with a QoS compatible
with all of them; its publishers' QoS goes into the bag's offered_qos_profiles.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from rclpy.duration import Duration
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rosbags.interfaces import Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime

SUBSCRIPTION_DEPTH = 1000  # 2 s of 500 Hz joint_states queued while a split is being closed


def _qos_time(duration: Duration) -> QosTime:
    sec, nsec = divmod(duration.nanoseconds, 1_000_000_000)
    return QosTime(sec, nsec)


def bag_qos(profile: QoSProfile) -> Qos:
    """A publisher's QoS as rosbag2 stores it in offered_qos_profiles."""
    return Qos(
        QosHistory.__members__.get(profile.history.name, QosHistory.UNKNOWN),
        profile.depth,
        QosReliability.__members__.get(profile.reliability.name, QosReliability.UNKNOWN),
        QosDurability.__members__.get(profile.durability.name, QosDurability.UNKNOWN),
        _qos_time(profile.deadline),
        _qos_time(profile.lifespan),
        QosLiveliness.__members__.get(profile.liveliness.name, QosLiveliness.UNKNOWN),
        _qos_time(profile.liveliness_lease_duration),
        profile.avoid_ros_namespace_conventions,
    )


def subscription_qos(publisher_profiles: Sequence[QoSProfile]) -> QoSProfile:
    """Reliable / transient-local only where every publisher offers it, so all of them match."""
    reliable = all(p.reliability == ReliabilityPolicy.RELIABLE for p in publisher_profiles)
    latched = all(p.durability == DurabilityPolicy.TRANSIENT_LOCAL for p in publisher_profiles)
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST,
        depth=SUBSCRIPTION_DEPTH,
        reliability=ReliabilityPolicy.RELIABLE if reliable else ReliabilityPolicy.BEST_EFFORT,
        durability=DurabilityPolicy.TRANSIENT_LOCAL if latched else DurabilityPolicy.VOLATILE,
    )


def message_class(msgtype: str) -> Any:
    """The generated Python class of 'pkg/msg/Type' (rclpy needs it even for raw subscriptions)."""
    package, _, name = msgtype.split('/')
    return getattr(importlib.import_module(f'{package}.msg'), name)
