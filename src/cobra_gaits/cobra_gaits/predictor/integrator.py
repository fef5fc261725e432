"""Alg. 1 of the geometric-mechanics paper (IntegrateMotionTrajectory): place each shape by the
rigid motion g that solves mu = 0.

SE(2) and SE(3) solves, batched over steps; `mode='batched'` (the fast one) and `mode='sequential'`
(Alg. 1 verbatim) agree to solver tolerance. Design notes: the package README,
"cobra_gaits.predictor.integrator".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from cobra_common.rotations import matrix_from_rotation_vector

from cobra_gaits.predictor.curve import (PredictorError, as_shape_sequence, as_weights, center_of_mass,
                                         vertex_tangents)
from cobra_gaits.predictor.dissipation import check_anisotropy, geometric_momentum, step_energies

MAX_NEWTON_ITERATIONS = 30
STEP_TOLERANCE = 1e-11  # rad and body-scale-relative metres: stop when the Newton step is this small
MAX_ROTATION_STEP_RAD = 0.5  # clip a Newton rotation step (far-from-solution safety)
KABSCH_REFERENCE_BIAS = 0.05  # relative pull of the SE(3) initial guess toward the previous rotation


@dataclass(frozen=True)
class PredictedMotion:
    """Positioned shapes of Alg. 1 and the rigid motions that placed them (gamma^t = g_t(gamma_hat^t))."""

    shapes_m: np.ndarray  # (T + 1, N, d)
    rotations: np.ndarray  # (T + 1, d, d), g_t rotation
    translations_m: np.ndarray  # (T + 1, d), g_t translation
    step_energies: np.ndarray  # (T,), E_t of Eq. (4) per step (units of w * m^2)
    weights: np.ndarray  # (T + 1, N)
    newton_iterations: int  # most Newton iterations any step needed

    @property
    def com_m(self) -> np.ndarray:
        """Weighted centre of mass of every placed shape (T + 1, d)."""
        return center_of_mass(self.shapes_m, self.weights)

    @property
    def head_m(self) -> np.ndarray:
        """Track of vertex 0 (the head) (T + 1, d)."""
        return self.shapes_m[:, 0, :]

    @property
    def energy(self) -> float:
        """Total dissipation E of Eq. (4) over the sequence."""
        return float(self.step_energies.sum())

    @property
    def com_displacement_m(self) -> float:
        """|Delta_CoM|: magnitude of the net translation of the centre of mass (the
        geometric-mechanics paper §III-A)."""
        com = self.com_m
        return float(np.linalg.norm(com[-1] - com[0]))

    @property
    def net_rotation_rad(self) -> float:
        """Planar net rotation of the body frame over the sequence (z-rotation in 3-D)."""
        rotation = self.rotations[-1]
        return float(np.arctan2(rotation[1, 0], rotation[0, 0]))


# ---------------------------------------------------------------- SE(2): analytic Newton


def _kabsch2(previous: np.ndarray, following: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted best rigid fit (angle (B,), translation (B, 2)) of `following` onto `previous`."""
    total = weights.sum(axis=1)[:, None]
    centre_prev = np.einsum('bk,bkd->bd', weights, previous) / total
    centre_next = np.einsum('bk,bkd->bd', weights, following) / total
    a = previous - centre_prev[:, None, :]
    b = following - centre_next[:, None, :]
    cross = np.einsum('bk,bk->b', weights, b[..., 0] * a[..., 1] - b[..., 1] * a[..., 0])
    dot = np.einsum('bk,bkd->b', weights, b * a)
    theta = np.arctan2(cross, dot)
    c, s = np.cos(theta), np.sin(theta)
    rotated = np.stack((c * centre_next[:, 0] - s * centre_next[:, 1],
                        s * centre_next[:, 0] + c * centre_next[:, 1]), axis=-1)
    return theta, centre_prev - rotated


def _solve_symmetric3(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray, e: np.ndarray, f: np.ndarray,
                      r0: np.ndarray, r1: np.ndarray, r2: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x = H^-1 r for batched symmetric H = [[a, b, c], [b, d, e], [c, e, f]] by cofactors (no stacking)."""
    co_a = d * f - e * e
    co_b = c * e - b * f
    co_c = b * e - c * d
    det = a * co_a + b * co_b + c * co_c
    co_d = a * f - c * c
    co_e = b * c - a * e
    co_f = a * d - b * b
    return ((co_a * r0 + co_b * r1 + co_c * r2) / det, (co_b * r0 + co_d * r1 + co_e * r2) / det,
            (co_c * r0 + co_e * r1 + co_f * r2) / det)


def solve_steps_se2(previous_m: np.ndarray, previous_weights: np.ndarray, next_hat_m: np.ndarray,
                    next_weights: np.ndarray, epsilon: float) -> tuple[np.ndarray, np.ndarray, int]:
    """Angles (B,) and translations (B, 2) placing next_hat so that mu(previous, g(next_hat)) = 0.

    previous/next_hat: (B, N, 2); weights (B, N). Returns also the Newton iterations used.
    """
    eps = check_anisotropy(epsilon)
    half_aniso = 0.5 * (eps - 1.0)
    tangents_prev = vertex_tangents(previous_m)
    tangents_hat = vertex_tangents(next_hat_m)
    wa = previous_weights
    wb = next_weights
    wm = 0.5 * (wa + wb)
    ca = half_aniso * wa
    cb = half_aniso * wb
    theta, shift = _kabsch2(previous_m, next_hat_m, wm)
    scale = 1.0 + float(np.max(np.abs(previous_m)))
    t_x, t_y = tangents_prev[..., 0], tangents_prev[..., 1]
    ca_tx_tx = ca * t_x * t_x  # constant parts of the Hessian (previous shape is fixed)
    ca_tx_ty = ca * t_x * t_y
    ca_ty_ty = ca * t_y * t_y
    hat_x, hat_y = next_hat_m[..., 0], next_hat_m[..., 1]
    hat_tx, hat_ty = tangents_hat[..., 0], tangents_hat[..., 1]
    prev_x, prev_y = previous_m[..., 0], previous_m[..., 1]
    shift_x, shift_y = shift[:, 0].copy(), shift[:, 1].copy()
    for iteration in range(1, MAX_NEWTON_ITERATIONS + 1):
        c = np.cos(theta)[:, None]
        s = np.sin(theta)[:, None]
        qx = c * hat_x - s * hat_y  # q = R(theta) next_hat
        qy = s * hat_x + c * hat_y
        ux = c * hat_tx - s * hat_ty  # tau = R(theta) T_hat
        uy = s * hat_tx + c * hat_ty
        dx = qx + shift_x[:, None] - prev_x  # Delta = q + v - previous
        dy = qy + shift_y[:, None] - prev_y
        t_d = t_x * dx + t_y * dy  # T . Delta
        u_d = ux * dx + uy * dy  # tau . Delta
        t_jq = t_y * qx - t_x * qy  # T . Jq
        rot_u = ux * (dy - qy) + uy * (qx - dx)  # J tau . Delta + tau . Jq
        ca_td = ca * t_d
        cb_ud = cb * u_d
        grad_x = (wm * dx + ca_td * t_x + cb_ud * ux).sum(axis=1)
        grad_y = (wm * dy + ca_td * t_y + cb_ud * uy).sum(axis=1)
        grad_t = (wm * (dy * qx - dx * qy) + ca_td * t_jq + cb_ud * rot_u).sum(axis=1)
        cb_ux = cb * ux
        cb_uy = cb * uy
        h_xx = (wm + ca_tx_tx + cb_ux * ux).sum(axis=1)
        h_xy = (ca_tx_ty + cb_ux * uy).sum(axis=1)
        h_yy = (wm + ca_ty_ty + cb_uy * uy).sum(axis=1)
        ca_tjq = ca * t_jq
        cb_rot = cb * rot_u
        h_xt = (-wm * qy + ca_tjq * t_x - cb_uy * u_d + cb_rot * ux).sum(axis=1)
        h_yt = (wm * qx + ca_tjq * t_y + cb_ux * u_d + cb_rot * uy).sum(axis=1)
        h_tt = (wm * (qx * (qx - dx) + qy * (qy - dy)) + ca_tjq * t_jq - ca_td * (t_x * qx + t_y * qy)
                + cb_rot * rot_u + cb_ud * (ux * qx + uy * qy - u_d)).sum(axis=1)
        step_t, step_x, step_y = _solve_symmetric3(h_tt, h_xt, h_yt, h_xx, h_xy, h_yy, grad_t, grad_x, grad_y)
        step_t = np.clip(step_t, -MAX_ROTATION_STEP_RAD, MAX_ROTATION_STEP_RAD)
        theta = theta - step_t
        shift_x -= step_x
        shift_y -= step_y
        if (np.max(np.abs(step_t)) < STEP_TOLERANCE
                and max(np.max(np.abs(step_x)), np.max(np.abs(step_y))) < STEP_TOLERANCE * scale):
            return theta, np.stack((shift_x, shift_y), axis=-1), iteration
    shift = np.stack((shift_x, shift_y), axis=-1)
    if not (np.all(np.isfinite(theta)) and np.all(np.isfinite(shift))):
        raise PredictorError('SE(2) step solve diverged (NaN): check that shapes are not degenerate and weights > 0')
    raise PredictorError(f'SE(2) step solve did not converge in {MAX_NEWTON_ITERATIONS} Newton iterations: '
                         'consecutive shapes differ too much; sample the gait with more shapes per cycle')


# ---------------------------------------------------------------- SE(3): Newton, FD Jacobian


def _kabsch3(previous: np.ndarray, following: np.ndarray, weights: np.ndarray,
             reference_rotation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted best rigid fit (rotation (B, 3, 3), translation (B, 3)) of `following` onto `previous`,
    pulled toward `reference_rotation` (B, 3, 3) to break ties."""
    total = weights.sum(axis=1)[:, None]
    centre_prev = np.einsum('bk,bkd->bd', weights, previous) / total
    centre_next = np.einsum('bk,bkd->bd', weights, following) / total
    spread_prev = previous - centre_prev[:, None]
    spread_next = following - centre_next[:, None]
    covariance = np.einsum('bk,bki,bkj->bij', weights, spread_prev, spread_next)
    size = np.sqrt(np.einsum('bk,bki,bki->b', weights, spread_prev, spread_prev)
                   * np.einsum('bk,bki,bki->b', weights, spread_next, spread_next))
    # A pull toward the reference (the previous step's rotation) breaks the tie of coplanar or
    # straight bodies, whose mirror image fits as well: points alone cannot tell up from down, and
    # without it the guess may flip the body over and Newton finds that other root of mu = 0.
    covariance = covariance + KABSCH_REFERENCE_BIAS * size[:, None, None] * reference_rotation
    u, _, vt = np.linalg.svd(covariance)
    sign = np.sign(np.linalg.det(u @ vt))
    sign = np.where(sign == 0.0, 1.0, sign)
    correction = np.broadcast_to(np.eye(3), covariance.shape).copy()
    correction[:, 2, 2] = sign
    rotation = u @ correction @ vt
    return rotation, centre_prev - np.einsum('bij,bj->bi', rotation, centre_next)


FD_STEP = 1e-6  # central-difference probe of the SE(3) Jacobian [rad, m]


def solve_steps_se3(previous_m: np.ndarray, previous_weights: np.ndarray, next_hat_m: np.ndarray,
                    next_weights: np.ndarray, epsilon: float,
                    reference_rotation: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """Rotations (B, 3, 3) and translations (B, 3) placing next_hat so that mu(previous, g(next_hat)) = 0.

    reference_rotation: the rotation the solution is expected near (the previous step's; identity
    when the shapes are given in consistent frames), used only to start Newton on the right root.
    """
    check_anisotropy(epsilon)
    batch = previous_m.shape[0]
    reference = np.broadcast_to(np.eye(3), (batch, 3, 3)) if reference_rotation is None else reference_rotation
    rotation, shift = _kabsch3(previous_m, next_hat_m, 0.5 * (previous_weights + next_weights), reference)
    scale = 1.0 + float(np.max(np.abs(previous_m)))
    perturb = np.concatenate((np.eye(6), -np.eye(6))) * FD_STEP  # 12 central-difference probes
    probe_rot = matrix_from_rotation_vector(perturb[:, :3])  # (12, 3, 3)
    prev_probe = np.broadcast_to(previous_m[:, None], (batch, 13) + previous_m.shape[1:])
    wa_probe = np.broadcast_to(previous_weights[:, None], (batch, 13, previous_weights.shape[1]))
    wb_probe = np.broadcast_to(next_weights[:, None], (batch, 13, next_weights.shape[1]))
    for iteration in range(1, MAX_NEWTON_ITERATIONS + 1):
        placed = np.einsum('bij,bkj->bki', rotation, next_hat_m) + shift[:, None, :]
        probes = np.einsum('pij,bkj->bpki', probe_rot, placed) + perturb[None, :, None, 3:]
        candidates = np.concatenate((placed[:, None], probes), axis=1)  # (B, 13, N, 3)
        momenta = geometric_momentum(prev_probe, candidates, wa_probe, wb_probe, epsilon)  # (B, 13, 6)
        residual = momenta[:, 0]
        jacobian = (momenta[:, 1:7] - momenta[:, 7:13]).transpose(0, 2, 1) / (2.0 * FD_STEP)
        step = -np.linalg.solve(jacobian, residual[..., None])[..., 0]
        angle = np.linalg.norm(step[:, :3], axis=1, keepdims=True)
        step[:, :3] *= np.minimum(1.0, MAX_ROTATION_STEP_RAD / np.maximum(angle, 1e-300))
        delta_rotation = matrix_from_rotation_vector(step[:, :3])
        rotation = delta_rotation @ rotation
        shift = np.einsum('bij,bj->bi', delta_rotation, shift) + step[:, 3:]
        # the finite-difference Jacobian limits the attainable accuracy: stop at 1e3 x the SE(2) tolerance
        if (np.max(np.abs(step[:, :3])) < 1e3 * STEP_TOLERANCE
                and np.max(np.abs(step[:, 3:])) < 1e3 * STEP_TOLERANCE * scale):
            return rotation, shift, iteration
    raise PredictorError(f'SE(3) step solve did not converge in {MAX_NEWTON_ITERATIONS} Newton iterations: '
                         'consecutive shapes differ too much; sample the gait with more shapes per cycle')


# ---------------------------------------------------------------- Alg. 1


def _planar_rotations(theta: np.ndarray) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.stack((np.stack((c, -s), -1), np.stack((s, c), -1)), axis=-2)


def integrate_motion(shapes_m: np.ndarray, epsilon: float, weights: np.ndarray | None = None,
                     mode: str = 'batched') -> PredictedMotion:
    """Alg. 1: place a shape sequence (T + 1, N, 2|3) by the dissipation-stationary rigid motions.

    gamma^0 = gamma_hat^0; weights None (uniform, sum 1), (N,) or per shape (T + 1, N).
    """
    shapes = as_shape_sequence(shapes_m)
    n_shapes, n_vertices, dim = shapes.shape
    weight_table = np.ascontiguousarray(as_weights(weights, n_shapes, n_vertices))
    check_anisotropy(epsilon)
    solve = solve_steps_se2 if dim == 2 else solve_steps_se3
    if mode == 'batched':
        relative_a, relative_b, iterations = solve(shapes[:-1], weight_table[:-1], shapes[1:], weight_table[1:],
                                                   epsilon)
        if dim == 2:
            heading = np.concatenate(([0.0], np.cumsum(relative_a)))
            rotations = _planar_rotations(heading)
            steps = np.einsum('tij,tj->ti', rotations[:-1], relative_b)
        else:
            rotations = np.empty((n_shapes, 3, 3))
            rotations[0] = np.eye(3)
            for index in range(1, n_shapes):
                rotations[index] = rotations[index - 1] @ relative_a[index - 1]
            steps = np.einsum('tij,tj->ti', rotations[:-1], relative_b)
        translations = np.concatenate((np.zeros((1, dim)), np.cumsum(steps, axis=0)))
    elif mode == 'sequential':
        rotations = np.empty((n_shapes, dim, dim))
        translations = np.empty((n_shapes, dim))
        rotations[0] = np.eye(dim)
        translations[0] = 0.0
        placed_prev = shapes[0]
        iterations = 0
        for index in range(1, n_shapes):
            arguments = (placed_prev[None], weight_table[index - 1][None], shapes[index][None],
                         weight_table[index][None], epsilon)
            if dim == 2:
                rot, shift, used = solve_steps_se2(*arguments)
            else:
                rot, shift, used = solve_steps_se3(*arguments, reference_rotation=rotations[index - 1][None])
            rotations[index] = _planar_rotations(rot)[0] if dim == 2 else rot[0]
            translations[index] = shift[0]
            placed_prev = shapes[index] @ rotations[index].T + translations[index]
            iterations = max(iterations, used)
    else:
        raise PredictorError(f"mode must be 'batched' or 'sequential', got '{mode}'")
    placed = np.einsum('tij,tkj->tki', rotations, shapes) + translations[:, None, :]
    energies = step_energies(placed, weight_table, epsilon)
    return PredictedMotion(placed, rotations, translations, energies, weight_table, int(iterations))
