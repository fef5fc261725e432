"""The driver node's per-cycle ROS pieces, run on the loop thread: joint_states published as
ready CDR bytes, and a callback group that keeps joint_commands out of the executor so the loop
takes them itself (an executor round per 100 Hz command cost more CPU than the bus cycle it fed;
it reads them with cobra_common.cdr.JointCommandReader).
"""

from __future__ import annotations

from rclpy.callback_groups import CallbackGroup
from rclpy.publisher import Publisher
from sensor_msgs.msg import JointState

from cobra_common.cdr import RawJointState
from cobra_driver.driver_core import JointSample


class JointStateWriter:
    """joint_states as ready CDR bytes (cobra_common.cdr.RawJointState), published raw: 1.7 µs a
    cycle where filling and publishing a JointState through rclpy took 6.6 µs (12 joints, no
    subscriber). The layout is rebuilt only when the set of servos in the loop changes (the
    driver hands out one names list per set)."""

    def __init__(self, publisher: Publisher) -> None:
        self._publisher = publisher
        self._publish_raw = publisher.handle.publish_raw
        self._names: list[str] | None = None
        self._message: RawJointState | None = None

    def publish(self, sample: JointSample) -> None:
        if not sample.names:  # no servo answered: an empty message (CDR pads no empty sequence)
            empty = JointState()
            empty.header.stamp.sec, empty.header.stamp.nanosec = divmod(sample.stamp_ns, 1_000_000_000)
            self._publisher.publish(empty)
            return
        if sample.names is not self._names or self._message is None:
            self._names, self._message = sample.names, RawJointState(sample.names)
        message = self._message
        message.set_stamp_ns(sample.stamp_ns)
        message.position[:], message.velocity[:], message.effort[:] = \
            sample.position_rad, sample.velocity_rad_s, sample.effort_nm
        self._publish_raw(message.to_bytes())


class TakenByTheLoop(CallbackGroup):
    """Entities the control loop takes from itself (rcl take on its own thread): the executor
    never puts them in its wait set."""

    def can_execute(self, entity: object) -> bool:
        return False

    def beginning_execution(self, entity: object) -> bool:
        return False

    def ending_execution(self, entity: object) -> None:
        pass
