"""Rotations for the whole project, on scipy.spatial.transform.Rotation.

Convention, stated once: quaternions are (x, y, z, w), scalar last, as geometry_msgs and scipy
store them; rotation matrices map body coordinates into the parent (world) frame.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation


def slope_rotation(slope_deg: float) -> np.ndarray:
    """Rotation about world y by the slope: the tilted ground's frame (its z = the surface normal,
    its x = straight downhill along world +x), also the robot's start orientation on it."""
    return Rotation.from_euler('y', slope_deg, degrees=True).as_matrix()
