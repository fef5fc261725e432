"""JointCommandGuard on continuous joints (the T-Snake's twist joints): never clamped.

The URDF parser gives a continuous joint whose <limit> has only effort and velocity the limits
lower = upper = 0; clamping to them pinned every twist command at 0 rad.
"""

from __future__ import annotations

from pathlib import Path

from cobra_common.command_guard import JointCommandGuard
from cobra_description.robot_model import load_robot_model

TSNAKE_URDF = Path(__file__).resolve().parents[3] / 'urdf' / 'tsnake.urdf'


def test_twist_joint_commands_pass_unclamped_and_bending_joints_stay_clamped():
    joints = load_robot_model(TSNAKE_URDF).gait_joints()
    twist = next(j for j in joints if j.name == 'm1_twist')
    assert twist.type == 'continuous' and (twist.limits.lower_rad, twist.limits.upper_rad) == (0.0, 0.0)
    guard = JointCommandGuard(joints)
    verdict = guard.check(['m1_twist', 'm2_twist', 'm1_dorsal'], [12.5, -40.0, 2.0], now_s=0.0)
    assert verdict.positions_rad == {'m1_twist': 12.5, 'm2_twist': -40.0, 'm1_dorsal': 1.5708}
    assert guard.clamped == 1  # the dorsal joint only
