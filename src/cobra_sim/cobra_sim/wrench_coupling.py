"""Compiled per-physics-step coupling of a wrench terrain to MuJoCo: the bodies' state out of
MjData, the terrain's wrenches into xfrc_applied.

Why compiled: done with numpy (fancy gathers, two cross products, a dozen small array calls) the
coupling cost ~24 µs of a ~90 µs SCM physics step; these loops over the dozen bodies cost ~2 µs.
Imported only when something asks for a body state (numba's import costs ~0.3 s, which a run on
rigid ground that never does should not pay).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def body_state_into(xpos: np.ndarray, xmat: np.ndarray, cvel: np.ndarray, subtree_com: np.ndarray,
                    body_ids: np.ndarray, root_ids: np.ndarray, position: np.ndarray, rotation: np.ndarray,
                    linear_velocity: np.ndarray, angular_velocity: np.ndarray) -> None:
    """Origins, body-to-world rotations and origin velocities (world axes) of `body_ids`.

    cvel holds [ω, v] at the subtree COM of the body's root (MuJoCo's com-based velocity), so the
    origin moves at v + ω × (xpos − subtree_com[root])."""
    for k in range(body_ids.shape[0]):
        b = body_ids[k]
        c = root_ids[k]
        wx, wy, wz = cvel[b, 0], cvel[b, 1], cvel[b, 2]
        dx = xpos[b, 0] - subtree_com[c, 0]
        dy = xpos[b, 1] - subtree_com[c, 1]
        dz = xpos[b, 2] - subtree_com[c, 2]
        linear_velocity[k, 0] = cvel[b, 3] + wy * dz - wz * dy
        linear_velocity[k, 1] = cvel[b, 4] + wz * dx - wx * dz
        linear_velocity[k, 2] = cvel[b, 5] + wx * dy - wy * dx
        for a in range(3):
            position[k, a] = xpos[b, a]
            angular_velocity[k, a] = cvel[b, a]
            for e in range(3):
                rotation[k, a, e] = xmat[b, 3 * a + e]


def fill_body_state(data: object, body_ids: np.ndarray, root_ids: np.ndarray, state: object) -> None:
    """`body_state_into` from an MjData into a BodyState's arrays."""
    body_state_into(data.xpos, data.xmat, data.cvel, data.subtree_com, body_ids, root_ids, state.position_m,
                    state.rotation, state.linear_velocity_m_s, state.angular_velocity_rad_s)


@njit(cache=True)
def apply_wrenches(force: np.ndarray, torque: np.ndarray, xipos: np.ndarray, xpos: np.ndarray,
                   body_ids: np.ndarray, wrench_world: np.ndarray, xfrc_applied: np.ndarray) -> None:
    """Keep the terrain's wrenches (world force, torque about the body origin) in `wrench_world` and
    apply them through xfrc_applied, which acts at the body COM: τ_com = τ − (xipos − xpos) × F."""
    for k in range(body_ids.shape[0]):
        b = body_ids[k]
        fx, fy, fz = force[k, 0], force[k, 1], force[k, 2]
        rx = xipos[b, 0] - xpos[b, 0]
        ry = xipos[b, 1] - xpos[b, 1]
        rz = xipos[b, 2] - xpos[b, 2]
        for a in range(3):
            wrench_world[k, a] = force[k, a]
            wrench_world[k, 3 + a] = torque[k, a]
            xfrc_applied[b, a] = force[k, a]
        xfrc_applied[b, 3] = torque[k, 0] - (ry * fz - rz * fy)
        xfrc_applied[b, 4] = torque[k, 1] - (rz * fx - rx * fz)
        xfrc_applied[b, 5] = torque[k, 2] - (rx * fy - ry * fx)


def compile_kernels() -> None:
    """Compile (first run, a few seconds) or load from numba's on-disk cache both loops, so that
    the first physics step of a wrench terrain does not stall (the install script calls it)."""
    bodies = np.array([0], dtype=np.int64)
    state = [np.zeros((1, 3)), np.zeros((1, 3, 3)), np.zeros((1, 3)), np.zeros((1, 3))]
    body_state_into(np.zeros((1, 3)), np.zeros((1, 9)), np.zeros((1, 6)), np.zeros((1, 3)), bodies, bodies, *state)
    apply_wrenches(np.zeros((1, 3)), np.zeros((1, 3)), np.zeros((1, 3)), np.zeros((1, 3)), bodies, np.zeros((1, 6)),
                   np.zeros((1, 6)))
