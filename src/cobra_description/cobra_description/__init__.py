"""COBRA robot description: URDF and a pure-Python robot model (joints, axes, limits, frames)."""
