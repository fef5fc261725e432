"""Terrain models behind one small interface, so adding one is adding a class, not editing the sim.

A terrain may add world geometry to the MJCF (`world_xml`), set the contact attributes of the
robot's collision geoms (`robot_geom_attributes`), and each physics step return external
per-body wrenches from the bodies' state while updating its own state (`wrenches`). The rigid
ground uses MuJoCo's own contact and returns no wrenches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BodyState:
    """World-frame state of the robot's bodies at the start of a physics step."""

    position_m: np.ndarray          # [n_bodies, 3] centre of mass
    rotation: np.ndarray            # [n_bodies, 3, 3] body-to-world
    linear_velocity_m_s: np.ndarray   # [n_bodies, 3] of the centre of mass
    angular_velocity_rad_s: np.ndarray  # [n_bodies, 3]


MAX_EXPLICIT_DAMPING_STEPS = 0.5  # B · dt bound for a stable explicit contact damper


class TerrainModel:
    name = 'base'
    applies_wrenches = False  # True: `wrenches` is called every physics step

    def world_xml(self) -> str:
        """MJCF elements added to <worldbody>."""
        return ''

    def robot_geom_attributes(self, link_mass_kg: float, timestep_s: float) -> dict[str, str]:
        """MJCF attributes of a robot collision geom belonging to a link of this mass."""
        return {}

    def wrenches(self, state: BodyState, dt_s: float) -> np.ndarray:
        """[n_bodies, 6] world force [N] at the COM and torque [N·m]; updates the terrain state."""
        return np.zeros((len(state.position_m), 6))


@dataclass(frozen=True)
class RigidGroundParams:
    """Seed 000 §7 rigid ground: f_n = s(d, w)(k d + b ḋ), mu_s 0.5, mu_d 0.3."""

    stiffness_n_m: float = 1.0e4
    damping_n_s_m: float = 1.0e3
    smoothing_width_m: float = 1.0e-3
    friction_static: float = 0.5
    friction_dynamic: float = 0.3
    critical_slip_speed_m_s: float = 1.0e-3


class RigidGround(TerrainModel):
    """A plane at z = 0 using MuJoCo's soft contact, parameterised from the paper's force law.

    MuJoCo's direct-form solref (-K, -B) is an acceleration per metre / per m/s, so the paper's
    k and b are divided by the link mass; solimp's width is the paper's smoothing width w.
    MuJoCo integrates contact damping explicitly, so B is capped at 0.5 / timestep: at 1 ms the
    paper's b = 1e3 N·s/m on a 0.46 kg module (B·dt = 2.2) would make the contact chatter.
    MuJoCo has one Coulomb coefficient per contact: the static value is used, because the
    contacts that carry sidewinding are the ones that stick; mu_d and the critical slip speed
    are kept for the compliant models, which implement the Stribeck-like transition.
    """

    name = 'rigid'

    def __init__(self, params: RigidGroundParams | None = None) -> None:
        self.params = params or RigidGroundParams()

    def world_xml(self) -> str:
        p = self.params
        return (f'<geom name="ground" type="plane" size="0 0 0.05" '
                f'friction="{p.friction_static} 0.005 0.0001" condim="3" '
                f'solimp="0.9 0.95 {p.smoothing_width_m}" rgba="0.6 0.55 0.45 1"/>')

    def robot_geom_attributes(self, link_mass_kg: float, timestep_s: float) -> dict[str, str]:
        p = self.params
        damping_per_kg = min(p.damping_n_s_m / link_mass_kg, MAX_EXPLICIT_DAMPING_STEPS / timestep_s)
        return {
            'solref': f'{-p.stiffness_n_m / link_mass_kg:.6g} {-damping_per_kg:.6g}',
            'solimp': f'0.9 0.95 {p.smoothing_width_m}',
            'friction': f'{p.friction_static} 0.005 0.0001',
            'priority': '1',
        }


TERRAINS: dict[str, type[TerrainModel]] = {'rigid': RigidGround}


def make_terrain(name: str) -> TerrainModel:
    if name not in TERRAINS:
        raise ValueError(f"unknown terrain '{name}': choose one of {sorted(TERRAINS)}")
    return TERRAINS[name]()
