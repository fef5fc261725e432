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
    'SoilParams', 'compile_kernels', 'load_compliant_params', 'load_scm_params',
]


def compile_kernels() -> None:
    """Compile (first run, ~10-20 s on a busy 2-core machine) or load from numba's on-disk cache
    (well under a second) every soil kernel, by stepping a tiny terrain of each kind once.

    Call it where a delay is acceptable (install script, node start-up before the first physics
    step) so the first physics step does not stall.
    """
    import numpy as np

    shapes = (CollisionShape('sphere', (0.05,)), CollisionShape('capsule', (0.03, 0.05)),
              CollisionShape('cylinder', (0.03, 0.05)), CollisionShape('box', (0.05, 0.05, 0.02)))
    body = [BodyGeometry('probe', 1.0, shapes)]
    position = np.array([[0.0, 0.0, 0.04]])
    rotation = np.eye(3)[None]
    velocity = np.array([[0.01, 0.0, -0.01]])
    omega = np.zeros((1, 3))
    scm = ScmTerrain(ScmParams(grid=GridParams(size_x_m=1.0, size_y_m=1.0)), body)
    scm.step(position, rotation, velocity, omega, 1e-3)
    CompliantGround(CompliantParams(), body).step(position, rotation, velocity, omega, 1e-3)
