"""What the gait node plays, built from its declared parameter values (no ROS here).

The node calls `make_gait_source` after `declare_parameters`; a pre-start validator can call it
with the same values to refuse a too-fast gait or a bad CSV before any node starts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from cobra_description.robot_model import Joint
from cobra_gaits.presets import CSV_GAIT
from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams
from cobra_gaits.speed_limit import check_sidewinding_speed
from cobra_gaits.trajectory_csv import TrajectoryReplay, load_replay

RETUNABLE = ('frequency_hz', 'amplitude_vertical_rad', 'amplitude_horizontal_rad', 'direction',
             'ramp_duration_s', 'amplitude_slew_rad_s')


def make_gait_source(values: Mapping[str, Any], joints: Sequence[Joint]
                     ) -> tuple[list[str], SidewindingGenerator | TrajectoryReplay]:
    """(joint names commanded, source) for the gait node's parameter values; GaitError when the
    gait would exceed a joint's URDF velocity limit or the CSV is unusable."""
    if values['gait'] == CSV_GAIT:
        limits = {j.name: j.limits.velocity_rad_s if j.limits else math.inf for j in joints}
        replay = load_replay(values['csv_file'], limits, values['ramp_duration_s'], values['csv_loop'])
        return list(replay.trajectory.joint_names), replay
    params = SidewindingParams(**{name: values[name] for name in RETUNABLE}).validated()
    check_sidewinding_speed(joints, params)
    return [j.name for j in joints], SidewindingGenerator([j.axis_kind for j in joints], params)
