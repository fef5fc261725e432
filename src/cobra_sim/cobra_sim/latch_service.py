"""latch/set on the simulated robot, without rclpy: weld or release, and the reply the service gives.

true welds head to tail if their latch frames are within latch_capture_distance_m; false
releases. The latch servo moves as on the robot (the XC330 fin gear, cosmetic in the sim).
"""

from __future__ import annotations

from dataclasses import dataclass

from cobra_description.robot_model import LATCH_JOINT, JointLimits
from cobra_sim.engine import CobraSim


@dataclass(frozen=True)
class LatchReply:
    success: bool
    message: str
    changed: bool  # latched state changed: latch/state follows at once


def latch_request(sim: CobraSim, engage: bool, latch_limits: JointLimits | None) -> LatchReply:
    if not sim.has_latch:
        return LatchReply(not engage, 'the robot model has no head_latch_link/tail_latch_link: nothing to latch'
                          if engage else 'no latch: nothing to release', False)
    was_latched = sim.latched
    distance_m = sim.latch_frames_distance_m()
    success = sim.set_latched(engage)
    if engage and not success:
        message = (f'latch frames are {distance_m:.3f} m apart, more than latch_capture_distance_m = '
                   f'{sim.latch_capture_distance_m:g} m: curl the robot to bring the head onto the tail first')
    elif engage:
        message = f'latched with the latch frames {distance_m * 1000:.1f} mm apart' + (
            ' (it already was)' if was_latched else '')
    else:
        message = 'latch released' if was_latched else 'latch was not engaged'
    if success and latch_limits is not None:
        sim.set_targets({LATCH_JOINT: latch_limits.upper_rad if engage else latch_limits.lower_rad})
    return LatchReply(success, message, sim.latched != was_latched)
