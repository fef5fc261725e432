"""Deformable and compliant terrain physics for cobra_sim (no ROS, no MuJoCo: numpy + numba).

`ScmTerrain` is Chrono's Soil Contact Model on a sparse height field; `CompliantGround` is the
thesis §5 penalty + tangential-spring contact against the plane z = ground level. Both are built
from parameters and the bodies' collision primitives and expose the same
`step(position_m, rotation, linear_velocity_m_s, angular_velocity_rad_s, dt_s) -> (force, torque)`.
"""

from .compliant import CompliantGround
from .params import (BulldozingParams, CompliantParams, GridParams, ScmNumerics, ScmParams, SoilConfigError,
                     SoilParams, load_compliant_params, load_scm_params)
from .scm import HeightmapSnapshot, ScmStepStats, ScmTerrain
from .shapes import BodyGeometry, CollisionShape

__all__ = [
    'BodyGeometry', 'BulldozingParams', 'CollisionShape', 'CompliantGround', 'CompliantParams', 'GridParams',
    'HeightmapSnapshot', 'ScmNumerics', 'ScmParams', 'ScmStepStats', 'ScmTerrain', 'SoilConfigError',
    'SoilParams', 'load_compliant_params', 'load_scm_params',
]
