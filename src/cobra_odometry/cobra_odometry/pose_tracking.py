"""SLAM poses -> continuous base_link odometry: loss, jump and reset handling, twist, covariance.

Odom never teleports: a backwards stamp is rejected, a jump or a tracking reset re-anchors so that
odom continues from its last published pose, a silent SLAM is reported stale. The policy and its
parameters: the package README, "Loss, jumps, resets".
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

import numpy as np
from cobra_common.rotations import rotation_angle_rad, rotation_vector_from_matrix

from cobra_odometry.transforms import CameraToBase, invert


class TrackingState(enum.IntEnum):
    """ORB-SLAM3 Tracking::eTrackingState codes (as a wrapper publishes them on std_msgs/Int32)."""

    SYSTEM_NOT_READY = -1
    NO_IMAGES_YET = 0
    NOT_INITIALIZED = 1
    OK = 2
    RECENTLY_LOST = 3
    LOST = 4
    OK_KLT = 5

    @property
    def is_tracking(self) -> bool:
        return self in (TrackingState.OK, TrackingState.OK_KLT)


@dataclass(frozen=True)
class OdometryConfig:
    max_linear_speed_m_s: float = 1.0
    max_angular_speed_rad_s: float = 3.0
    jump_margin_m: float = 0.05
    jump_margin_rad: float = 0.2
    stale_timeout_s: float = 0.5
    twist_time_constant_s: float = 0.1
    max_twist_gap_s: float = 0.5
    position_stddev_m: float = 0.01
    orientation_stddev_rad: float = 0.01
    linear_velocity_stddev_m_s: float = 0.05
    angular_velocity_stddev_rad_s: float = 0.05
    degraded_covariance_scale: float = 100.0
    degraded_hold_s: float = 1.0


@dataclass(frozen=True)
class OdometryEvent:
    stamp_s: float
    kind: str  # backwards | duplicate | jump | reset | stale | recovered | tracking_state
    level: str  # info | warn | error
    message: str


@dataclass(frozen=True)
class OdometryEstimate:
    stamp_s: float
    pose: np.ndarray  # T_odom_base 4x4
    linear_velocity: np.ndarray  # base_link frame, m/s
    angular_velocity: np.ndarray  # base_link frame, rad/s
    pose_covariance: np.ndarray  # 6x6 (x y z roll pitch yaw)
    twist_covariance: np.ndarray  # 6x6
    degraded: bool


@dataclass
class OdometryCounters:
    poses_in: int = 0
    published: int = 0
    backwards: int = 0
    duplicates: int = 0
    jumps: int = 0
    resets: int = 0
    stale_periods: int = 0


@dataclass
class OdometryEstimator:
    converter: CameraToBase
    config: OdometryConfig = field(default_factory=OdometryConfig)
    initial_pose: np.ndarray = field(default_factory=lambda: np.eye(4))
    counters: OdometryCounters = field(default_factory=OdometryCounters)
    tracking_state: TrackingState | None = None
    _last_stamp_s: float | None = None
    _last_world_base: np.ndarray | None = None
    _last_odom_base: np.ndarray | None = None
    _last_received_s: float | None = None
    _linear_velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    _angular_velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    _reanchor_pending: str | None = None
    _stale: bool = False
    _degraded_until_s: float = -math.inf

    def update_tracking_state(self, state: int, stamp_s: float) -> list[OdometryEvent]:
        try:
            new_state = TrackingState(state)
        except ValueError:
            return [OdometryEvent(stamp_s, 'tracking_state', 'warn',
                                  f'unknown ORB-SLAM3 tracking state {state} ignored '
                                  f'(expected {[int(s) for s in TrackingState]})')]
        old_state, self.tracking_state = self.tracking_state, new_state
        if new_state == old_state:
            return []
        events = []
        if new_state == TrackingState.NOT_INITIALIZED and old_state is not None \
                and old_state != TrackingState.NO_IMAGES_YET:
            # ORB-SLAM3 resets (or starts a new map) from here: its world origin will change
            self._reanchor_pending = 'reset'
        level = 'info' if new_state.is_tracking else 'warn'
        old_name = old_state.name if old_state is not None else 'none'
        events.append(OdometryEvent(stamp_s, 'tracking_state', level,
                                    f'SLAM tracking state {old_name} -> {new_state.name}'))
        return events

    def check_stale(self, now_s: float) -> list[OdometryEvent]:
        if self._last_received_s is None or self._stale:
            return []
        if now_s - self._last_received_s > self.config.stale_timeout_s:
            self._stale = True
            self.counters.stale_periods += 1
            return [OdometryEvent(now_s, 'stale', 'warn',
                                  f'no SLAM pose for {now_s - self._last_received_s:.2f} s '
                                  f'(> stale_timeout_s {self.config.stale_timeout_s}): '
                                  'odom holds the last pose')]
        return []

    @property
    def is_stale(self) -> bool:
        return self._stale

    def update_pose(self, stamp_s: float, slam_pose: np.ndarray,
                    received_s: float | None = None) -> tuple[OdometryEstimate | None, list[OdometryEvent]]:
        """One SLAM pose (T_W_P of the configured pose frame) -> odom estimate and events."""
        self.counters.poses_in += 1
        events: list[OdometryEvent] = []
        if self._last_stamp_s is not None and stamp_s <= self._last_stamp_s:
            if stamp_s == self._last_stamp_s:
                self.counters.duplicates += 1
                return None, [OdometryEvent(stamp_s, 'duplicate', 'info',
                                            f'SLAM pose with repeated stamp {stamp_s:.6f} s ignored')]
            self.counters.backwards += 1
            return None, [OdometryEvent(
                stamp_s, 'backwards', 'warn',
                f'SLAM pose stamp went backwards ({stamp_s:.6f} s after {self._last_stamp_s:.6f} s): '
                'ignored; check the wrapper publishes poses in order')]
        self._last_received_s = stamp_s if received_s is None else received_s
        if self._stale:
            self._stale = False
            events.append(OdometryEvent(stamp_s, 'recovered', 'info',
                                        f'SLAM poses resumed after {stamp_s - self._last_stamp_s:.2f} s'))
        world_base = self.converter.base_in_slam_world(slam_pose)
        if self._last_odom_base is None:
            self.converter.anchor_at(slam_pose, self.initial_pose)
            odom_base = self.converter(slam_pose)
            return self._accept(stamp_s, world_base, odom_base, differentiate=False), events

        dt = stamp_s - self._last_stamp_s
        reason = self._reanchor_pending or self._jump_reason(world_base, dt)
        if reason is not None:
            kind = 'reset' if self._reanchor_pending else 'jump'
            if kind == 'reset':
                self.counters.resets += 1
            else:
                self.counters.jumps += 1
            self._reanchor_pending = None
            self._degraded_until_s = stamp_s + self.config.degraded_hold_s
            self.converter.anchor_at(slam_pose, self._last_odom_base)
            events.append(OdometryEvent(
                stamp_s, kind, 'warn',
                f'SLAM {"reset" if kind == "reset" else "pose jump"} at {stamp_s:.3f} s '
                f'({reason}): odom re-anchored, continuing from the last pose'))
            return self._accept(stamp_s, world_base, self._last_odom_base.copy(),
                                differentiate=False), events
        odom_base = self.converter(slam_pose)
        return self._accept(stamp_s, world_base, odom_base, differentiate=dt <= self.config.max_twist_gap_s), events

    def _jump_reason(self, world_base: np.ndarray, dt: float) -> str | None:
        delta = invert(self._last_world_base) @ world_base
        distance_m = float(np.linalg.norm(delta[:3, 3]))
        angle_rad = rotation_angle_rad(delta[:3, :3])
        allowed_m = self.config.max_linear_speed_m_s * dt + self.config.jump_margin_m
        allowed_rad = self.config.max_angular_speed_rad_s * dt + self.config.jump_margin_rad
        if distance_m > allowed_m:
            return f'moved {distance_m:.3f} m in {dt:.3f} s, at most {allowed_m:.3f} m possible'
        if angle_rad > allowed_rad:
            return f'turned {angle_rad:.3f} rad in {dt:.3f} s, at most {allowed_rad:.3f} rad possible'
        return None

    def _accept(self, stamp_s: float, world_base: np.ndarray, odom_base: np.ndarray,
                differentiate: bool) -> OdometryEstimate:
        if differentiate:
            dt = stamp_s - self._last_stamp_s
            delta = invert(self._last_odom_base) @ odom_base
            raw_linear = delta[:3, 3] / dt
            raw_angular = rotation_vector_from_matrix(delta[:3, :3]) / dt
            # the difference is expressed in the previous base frame; rotate it into the current one
            to_current = delta[:3, :3].T
            alpha = dt / (self.config.twist_time_constant_s + dt)
            self._linear_velocity += alpha * (to_current @ raw_linear - self._linear_velocity)
            self._angular_velocity += alpha * (raw_angular - self._angular_velocity)
        self._last_stamp_s = stamp_s
        self._last_world_base = world_base
        self._last_odom_base = odom_base
        degraded = self.is_degraded(stamp_s)
        self.counters.published += 1
        return OdometryEstimate(stamp_s, odom_base, self._linear_velocity.copy(),
                                self._angular_velocity.copy(), *self._covariances(degraded), degraded)

    @property
    def reanchored_recently(self) -> bool:
        """The latest pose lies within degraded_hold_s after a jump/reset, in pose-stamp time.

        Judged by pose stamps, not the host clock: a replayed or simulated trajectory carries stamps
        far from now, and the hold is defined on the poses it covers.
        """
        return self._last_stamp_s is not None and self._last_stamp_s < self._degraded_until_s

    def is_degraded(self, stamp_s: float) -> bool:
        not_tracking = self.tracking_state is not None and not self.tracking_state.is_tracking
        return not_tracking or self._stale or stamp_s < self._degraded_until_s

    def _covariances(self, degraded: bool) -> tuple[np.ndarray, np.ndarray]:
        c = self.config
        scale = c.degraded_covariance_scale if degraded else 1.0
        pose = np.diag([c.position_stddev_m ** 2] * 3 + [c.orientation_stddev_rad ** 2] * 3) * scale
        twist = np.diag([c.linear_velocity_stddev_m_s ** 2] * 3
                        + [c.angular_velocity_stddev_rad_s ** 2] * 3) * scale
        return pose, twist
