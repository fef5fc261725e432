"""Wrench terrains backed by cobra_soil: SCM soil (`terrain:=scm`) and the compliant ground
of thesis §5 (`terrain:=compliant`).

Imported by the terrain registry only when one of them is chosen (numba's import and the kernel
cache load cost ~1 s). There is no ground plane: the soil's wrenches are the robot's only
environment contact. Robot–robot contacts keep MuJoCo's contact with the rigid ground's per-geom
parameters, as under `terrain:=rigid`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from cobra_soil import (BodyGeometry, CollisionShape, CompliantGround, CompliantParams, HeightmapSnapshot,
                            ScmParams, ScmTerrain, compile_kernels, load_compliant_params, load_scm_params)
from cobra_sim.terrain import (BodyState, RigidGround, RobotBody, RobotContactParameters, TerrainConfigError,
                               TerrainModel)


def soil_bodies(bodies: Sequence[RobotBody]) -> list[BodyGeometry]:
    """The engine's body descriptions as the soil library's (same conventions, other classes)."""
    return [BodyGeometry(body.name, body.mass_kg,
                         tuple(CollisionShape(shape.kind, tuple(shape.size_m), tuple(shape.position_m),
                                              tuple(tuple(row) for row in shape.rotation))
                               for shape in body.shapes))
            for body in bodies]


class _SoilTerrain(TerrainModel):
    """Common part: no world geometry, self-contact as on rigid ground, wrenches from a
    `model_class(params, bodies)` of cobra_soil built at setup."""

    applies_wrenches = True
    model_class: type[ScmTerrain] | type[CompliantGround]

    def __init__(self, params: ScmParams | CompliantParams) -> None:
        self.params = params
        self.source = params.source
        self._self_contact = RigidGround()  # robot-robot contacts: today's per-geom parameters
        self._model: ScmTerrain | CompliantGround | None = None
        self.body_names: list[str] = []

    def option_attributes(self) -> dict[str, str]:
        return self._self_contact.option_attributes()

    def robot_geom_attributes(self, link_mass_kg: float, timestep_s: float) -> dict[str, str]:
        return self._self_contact.robot_geom_attributes(link_mass_kg, timestep_s)

    def robot_contact_parameters(self, inverse_mass_per_kg: np.ndarray, contacts_at_rest: np.ndarray,
                                 timestep_s: float) -> RobotContactParameters:
        return self._self_contact.robot_contact_parameters(inverse_mass_per_kg, contacts_at_rest, timestep_s)

    def setup(self, bodies: Sequence[RobotBody], initial_state: BodyState, timestep_s: float) -> None:
        compile_kernels()  # loads numba's on-disk cache (or compiles once): no stall at the first step
        self.body_names = [body.name for body in bodies]
        try:
            self._model = self.model_class(self.params, soil_bodies(bodies))
        except ValueError as error:  # an unsupported shape: SoilConfigError names body and shape
            raise TerrainConfigError(f"terrain '{self.name}': {error}") from error

    def wrenches(self, state: BodyState, dt_s: float) -> tuple[np.ndarray, np.ndarray]:
        return self._model.step(state.position_m, state.rotation, state.linear_velocity_m_s,
                                state.angular_velocity_rad_s, dt_s)


class ScmGround(_SoilTerrain):
    """Chrono's Soil Contact Model (cobra_soil.ScmTerrain) as a wrench terrain. The soil has no
    edge (the file's patch only places the nodes), so any start pose is on soil."""

    name = 'scm'
    has_heightmap = True
    model_class = ScmTerrain

    @classmethod
    def from_file(cls, terrain_file: Path | None) -> ScmGround:
        """From a soil YAML (config/soil/loose_sand.yaml), or the built-in loose sand if None."""
        return cls(load_scm_params(terrain_file) if terrain_file is not None else ScmParams().validated())

    @property
    def scm(self) -> ScmTerrain:
        return self._model

    def heightmap(self) -> HeightmapSnapshot | None:
        return self.scm.heightmap() if self._model is not None else None

    def diagnostics(self) -> dict[str, str]:
        if self._model is None:
            return {}
        scm = self.scm
        stats = scm.last_stats
        areas = scm.contact_patch_areas_m2()
        return {
            'terrain_file': self.source,
            'max_sinkage_m': f'{float(scm.max_sinkage_per_body_m.max(initial=0.0)):.4f}',
            'nodes_in_contact': str(int(scm.contact_nodes_per_body.sum())),
            'links_in_contact': str(int(np.count_nonzero(scm.contact_nodes_per_body))),
            'contact_patches': str(stats.contact_patches),
            'contact_patch_area_total_m2': f'{float(areas.sum()):.5f}',
            'contact_patch_area_max_m2': f'{float(areas.max(initial=0.0)):.5f}',
            'allocated_nodes': str(stats.allocated_nodes),
            'erosion_nodes': str(stats.erosion_nodes),
        }

    def step_timing_s(self) -> dict[str, float]:
        stats = self.scm.last_stats
        return {'ray_casting': stats.ray_casting_s, 'soil_update': stats.soil_update_s,
                'bulldozing': stats.bulldozing_s}


class CompliantGroundModel(_SoilTerrain):
    """Thesis §5 compliant contact (cobra_soil.CompliantGround) as a wrench terrain."""

    name = 'compliant'
    model_class = CompliantGround

    @classmethod
    def from_file(cls, terrain_file: Path | None) -> CompliantGroundModel:
        return cls(load_compliant_params(terrain_file) if terrain_file is not None
                   else CompliantParams().validated())

    def diagnostics(self) -> dict[str, str]:
        if self._model is None:
            return {}
        model: CompliantGround = self._model
        return {'terrain_file': self.source, 'contact_points': str(int(model.contacts)),
                'sliding_points': str(int(np.count_nonzero(model.sliding & model.in_contact)))}
