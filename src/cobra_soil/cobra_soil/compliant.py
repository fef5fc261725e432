"""Thesis §5 compliant contact against a ground plane, with the §7 friction numbers.

A spring-damper normal force and a stick/slip tangential spring per contact point (the lowest points
of each collision primitive), with static and dynamic friction, coupled explicitly. The law, the
contact points and the per-area scaling: the package README, "cobra_soil.compliant".
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numba import njit

from .params import CompliantParams
from .raycast import world_shape_poses
from .shapes import BOX, CAPSULE, CYLINDER, SPHERE, BodyGeometry, check_body_state, pack_shapes

_POINTS_PER_KIND = {SPHERE: 1, CAPSULE: 2, CYLINDER: 2, BOX: 8}


@njit(cache=True)
def contact_points(kind: np.ndarray, size: np.ndarray, center: np.ndarray, rotation: np.ndarray,
                   point_start: np.ndarray, out_points: np.ndarray) -> None:
    """World positions of every shape's candidate contact points (lowest points vs. a z plane)."""
    for s in range(kind.shape[0]):
        q = point_start[s]
        if kind[s] == SPHERE:
            out_points[q, 0] = center[s, 0]
            out_points[q, 1] = center[s, 1]
            out_points[q, 2] = center[s, 2] - size[s, 0]
        elif kind[s] == BOX:
            m = 0
            for sx in (-1.0, 1.0):
                for sy in (-1.0, 1.0):
                    for sz in (-1.0, 1.0):
                        for r in range(3):
                            out_points[q + m, r] = (center[s, r] + rotation[s, r, 0] * sx * size[s, 0]
                                                    + rotation[s, r, 1] * sy * size[s, 1]
                                                    + rotation[s, r, 2] * sz * size[s, 2])
                        m += 1
        else:
            r_m = size[s, 0]
            half = size[s, 1]
            ax = rotation[s, 0, 2]
            ay = rotation[s, 1, 2]
            az = rotation[s, 2, 2]
            # Direction in the end circle's plane pointing most downward: -z minus its axial part.
            ux = az * ax
            uy = az * ay
            uz = -1.0 + az * az
            norm = math.sqrt(ux * ux + uy * uy + uz * uz)
            if norm < 1e-9:
                ux = rotation[s, 0, 0]
                uy = rotation[s, 1, 0]
                uz = rotation[s, 2, 0]
                norm = 1.0
            for end in range(2):
                sign = 1.0 if end == 0 else -1.0
                ex = center[s, 0] + sign * half * ax
                ey = center[s, 1] + sign * half * ay
                ez = center[s, 2] + sign * half * az
                if kind[s] == CAPSULE:
                    out_points[q + end, 0] = ex
                    out_points[q + end, 1] = ey
                    out_points[q + end, 2] = ez - r_m
                else:
                    out_points[q + end, 0] = ex + r_m * ux / norm
                    out_points[q + end, 1] = ey + r_m * uy / norm
                    out_points[q + end, 2] = ez + r_m * uz / norm


@njit(cache=True)
def friction_coefficient(slip_speed: float, mu_static: float, mu_dynamic: float, critical_speed: float) -> float:
    """μ_s up to v_c, μ_d from 1.5 v_c, C¹ smoothstep between (thesis §7's smooth transition)."""
    if slip_speed <= critical_speed:
        return mu_static
    if slip_speed >= 1.5 * critical_speed:
        return mu_dynamic
    s = (slip_speed - critical_speed) / (0.5 * critical_speed)
    w = s * s * (3.0 - 2.0 * s)
    return mu_static + (mu_dynamic - mu_static) * w


@njit(cache=True)
def compliant_forces(points: np.ndarray, point_body: np.ndarray, body_position: np.ndarray,
                     body_velocity: np.ndarray, body_omega: np.ndarray, body_mass: np.ndarray,
                     spring: np.ndarray, sliding: np.ndarray, point_weight: np.ndarray, ground_z: float,
                     kn: float, dn: float, kt: float,
                     dt_coeff: float,
                     mu_static: float, mu_dynamic: float, critical_speed: float, decay_rate: float,
                     damping_cap: float, h: float, contact_count: np.ndarray, in_contact: np.ndarray,
                     out_force: np.ndarray, out_torque: np.ndarray) -> int:
    """Forces of all contact points summed per body (torque about the body origin); updates σ."""
    out_force[:] = 0.0
    out_torque[:] = 0.0
    contact_count[:] = 0
    n_contacts = 0
    for q in range(points.shape[0]):
        in_contact[q] = points[q, 2] < ground_z
        if in_contact[q]:
            contact_count[point_body[q]] += 1
            n_contacts += 1
    decay = max(0.0, 1.0 - h * decay_rate)
    for q in range(points.shape[0]):
        if not in_contact[q]:
            spring[q, 0] *= decay
            spring[q, 1] *= decay
            sliding[q] = False
            continue
        b = point_body[q]
        weight = point_weight[q]
        limit = damping_cap * body_mass[b] / (h * contact_count[b])
        dn_eff = min(dn * weight, limit)
        dt_eff = min(dt_coeff * weight, limit)
        rx = points[q, 0] - body_position[b, 0]
        ry = points[q, 1] - body_position[b, 1]
        rz = points[q, 2] - body_position[b, 2]
        ux = body_velocity[b, 0] + body_omega[b, 1] * rz - body_omega[b, 2] * ry
        uy = body_velocity[b, 1] + body_omega[b, 2] * rx - body_omega[b, 0] * rz
        uz = body_velocity[b, 2] + body_omega[b, 0] * ry - body_omega[b, 1] * rx
        depth = ground_z - points[q, 2]
        fn = max(0.0, kn * weight * depth - dn_eff * uz)
        px = -kt * weight * spring[q, 0] - dt_eff * ux
        py = -kt * weight * spring[q, 1] - dt_eff * uy
        trial = math.sqrt(px * px + py * py)
        if sliding[q]:
            mu = friction_coefficient(math.sqrt(ux * ux + uy * uy), mu_static, mu_dynamic, critical_speed)
        else:
            mu = mu_static
        cap = mu * fn
        if trial <= cap:
            fx = px
            fy = py
            spring[q, 0] += h * ux
            spring[q, 1] += h * uy
            sliding[q] = False
        else:
            sliding[q] = True
            fx = px * cap / trial
            fy = py * cap / trial
            spring[q, 0] *= decay
            spring[q, 1] *= decay
        out_force[b, 0] += fx
        out_force[b, 1] += fy
        out_force[b, 2] += fn
        out_torque[b, 0] += ry * fn - rz * fy
        out_torque[b, 1] += rz * fx - rx * fn
        out_torque[b, 2] += rx * fy - ry * fx
    return n_contacts


class CompliantGround:
    """Thesis §5 compliant ground (plane z = params.ground_level_m) with the same step API as
    `ScmTerrain`: step(position_m [n,3], rotation [n,3,3], linear_velocity_m_s [n,3] of the body
    origins, angular_velocity_rad_s [n,3] world axes, dt_s) -> (force [n,3] N, torque [n,3] N·m
    about the body origins), world frame; the tangential spring states are updated.
    point_area_m2: the area each shape's contact points stand for, one per shape in `bodies`'
    order (None: every point is one contact point of the law)."""

    def __init__(self, params: CompliantParams, bodies: Sequence[BodyGeometry],
                 point_area_m2: Sequence[float] | None = None) -> None:
        self.params = params.validated()
        self.shapes = pack_shapes(bodies)
        self.n_bodies = len(bodies)
        counts = np.array([_POINTS_PER_KIND[int(k)] for k in self.shapes.kind], dtype=np.int64)
        n_shapes = self.shapes.kind.shape[0]
        if point_area_m2 is None:
            shape_weight = np.ones(n_shapes)
        else:
            areas = np.asarray(point_area_m2, dtype=float)
            if areas.shape != (n_shapes,) or not np.all(np.isfinite(areas) & (areas > 0.0)):
                raise ValueError(f'point_area_m2: give one positive area [m²] per shape ({n_shapes}), '
                                 f'got shape {areas.shape}')
            shape_weight = areas / self.params.contact_point_area_m2
        self.point_weight = np.repeat(shape_weight, counts)
        self._point_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        shape_body = np.repeat(np.arange(self.n_bodies), np.diff(self.shapes.body_start))
        self._point_body = np.repeat(shape_body, counts).astype(np.int64)
        n_points = int(self._point_start[-1])
        self.points_m = np.zeros((n_points, 3))
        self.spring_m = np.zeros((n_points, 2))     # σ per contact point, world x/y [m]
        self.in_contact = np.zeros(n_points, dtype=np.bool_)
        self.sliding = np.zeros(n_points, dtype=np.bool_)
        self._contact_count = np.zeros(self.n_bodies, dtype=np.int64)
        self._center = np.zeros((n_shapes, 3))
        self._rotation = np.zeros((n_shapes, 3, 3))
        self._force = np.zeros((self.n_bodies, 3))
        self._torque = np.zeros((self.n_bodies, 3))
        self.contacts = 0

    def step(self, position_m: np.ndarray, rotation: np.ndarray, linear_velocity_m_s: np.ndarray,
             angular_velocity_rad_s: np.ndarray, dt_s: float) -> tuple[np.ndarray, np.ndarray]:
        """Ground wrenches for this step; the returned arrays are reused by the next call."""
        pos, rot, vel, omega = check_body_state(self.n_bodies, position_m, rotation, linear_velocity_m_s,
                                                angular_velocity_rad_s, dt_s)
        p = self.params
        world_shape_poses(pos, rot, self.shapes.position_m, self.shapes.rotation, self.shapes.body_start,
                          self._center, self._rotation)
        contact_points(self.shapes.kind, self.shapes.size_m, self._center, self._rotation, self._point_start,
                       self.points_m)
        self.contacts = compliant_forces(
            self.points_m, self._point_body, pos, vel, omega, self.shapes.mass_kg, self.spring_m, self.sliding,
            self.point_weight, p.ground_level_m, p.normal_stiffness_n_m, p.normal_damping_n_s_m,
            p.tangential_stiffness_n_m, p.tangential_damping_n_s_m, p.friction_static, p.friction_dynamic, p.critical_slip_speed_m_s,
            p.spring_decay_rate_1_s, p.explicit_damping_cap, dt_s, self._contact_count, self.in_contact,
            self._force, self._torque)
        return self._force, self._torque
