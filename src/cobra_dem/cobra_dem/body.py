"""The tumbling body of the DEM scenario (no engine): the thesis's rigid wheel or the latched COBRA
loop, so both engines, the rigid reference and the ROS mode share one mass, inertia, contact
geometry and rolling radius. Shapes, body frame and rolling radius: README, "Body".
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
from cobra_common.rotations import matrix_from_quaternion

BODY_KINDS = ('wheel', 'cobra_loop')
WHEEL_MESH_SEGMENTS = 180
CAPSULE_MESH_SEGMENTS = 24
CLEARANCE_SPACING_M = 0.002     # capsule sampling for drop heights (sub-grain)
EDGE_SPHERE_MASS_KG = 1e-6      # module-edge spheres: contact geometry, no mass of their own


class BodyError(ValueError):
    """The body cannot be built (unknown kind, URDF without a closed curl or with unsupported
    collision shapes); the message names the fix."""


@dataclass(frozen=True, eq=False)
class BodyShape:
    """A rigid tumbling body in its principal frame (see the module docstring)."""

    kind: str
    mass_kg: float
    principal_inertia_kg_m2: tuple[float, float, float]    # I_xx, I_yy, I_zz (y: rolling axis)
    rolling_radius_m: float
    start_rotation: np.ndarray               # [3, 3] body axes -> bed axes at the drop
    wheel_radius_m: float = 0.0              # wheel: cylinder radius and width
    wheel_width_m: float = 0.0
    capsule_ends_m: np.ndarray = field(default_factory=lambda: np.zeros((0, 2, 3)))  # loop: [n, 2, 3], body frame
    capsule_radius_m: np.ndarray = field(default_factory=lambda: np.zeros(0))        # [n]
    capsule_mass_kg: np.ndarray = field(default_factory=lambda: np.zeros(0))         # [n] link mass carried
    edge_centres_m: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))    # loop: module-edge ring
    edge_radius_m: float = 0.0                                                       # spheres [k, 3], their radius
    edge_collar_ends_m: np.ndarray = field(default_factory=lambda: np.zeros((0, 2, 3)))  # the same edges as
    # closed collars (radius: shell + edge height, length 2 x height) for the mesh (DEM-Engine)
    sphere_radius_m: float = 0.02            # wheel rim spheres (LAMMPS)
    sphere_spacing_m: float = 0.015          # rim / capsule sphere spacing (LAMMPS)

    # --- geometry -------------------------------------------------------------------------
    def start_points_m(self) -> tuple[np.ndarray, np.ndarray]:
        """(centres [n, 3], radii [n]) of spheres whose union holds the body's surface, in bed axes
        at the start orientation about the centre of mass: the wheel's rims, the loop's capsules."""
        if self.kind == 'wheel':
            r, half = self.wheel_radius_m, 0.5 * self.wheel_width_m
            phi = 2 * math.pi * np.arange(WHEEL_MESH_SEGMENTS) / WHEEL_MESH_SEGMENTS
            rim = np.stack([r * np.cos(phi), np.zeros_like(phi), r * np.sin(phi)], axis=1)
            points = np.concatenate([rim + [0.0, -half, 0.0], rim + [0.0, half, 0.0]])
            return points @ self.start_rotation.T, np.zeros(len(points))
        centres, radii = capsule_spheres(self.capsule_ends_m, self.capsule_radius_m, CLEARANCE_SPACING_M)
        if len(self.edge_centres_m):
            centres = np.concatenate([centres, self.edge_centres_m])
            radii = np.concatenate([radii, np.full(len(self.edge_centres_m), self.edge_radius_m)])
        return centres @ self.start_rotation.T, radii

    def half_extent_m(self) -> np.ndarray:
        """[3] largest reach from the centre of mass along each bed axis at the start orientation."""
        centres, radii = self.start_points_m()
        return np.max(np.abs(centres) + radii[:, None], axis=0)

    def footprint_length_m(self, band_m: float) -> float:
        """Length along x of the body's surface within band_m of its lowest point (start orientation):
        what a periodic bed must exceed so the body never meets its own image in the grains."""
        centres, radii = self.start_points_m()
        level = float(np.min(centres[:, 2] - radii)) + band_m
        below = centres[:, 2] - radii < level
        chord = np.sqrt(np.maximum(radii[below] ** 2 - np.maximum(centres[below, 2] - level, 0.0) ** 2, 0.0))
        return float(np.max(centres[below, 0] + chord) - np.min(centres[below, 0] - chord))

    @property
    def width_m(self) -> float:
        return 2.0 * float(self.half_extent_m()[1])

    def lowest_z_m(self, position_m: np.ndarray, quaternion_xyzw: np.ndarray) -> float:
        """Lowest bed-frame z of the body surface at this pose (wheel: exact; loop: capsules)."""
        if self.kind == 'wheel':
            axis_z = matrix_from_quaternion(quaternion_xyzw)[2, 1]        # bed z of the wheel axis
            return float(position_m[2] - self.wheel_radius_m * math.sqrt(max(0.0, 1.0 - axis_z ** 2))
                         - 0.5 * self.wheel_width_m * abs(axis_z))
        rotation = matrix_from_quaternion(quaternion_xyzw)
        ends = self.capsule_ends_m.reshape(-1, 3) @ rotation.T
        low = float((ends[:, 2].reshape(-1, 2).min(axis=1) - self.capsule_radius_m).min())
        if len(self.edge_centres_m):
            low = min(low, float((self.edge_centres_m @ rotation.T)[:, 2].min()) - self.edge_radius_m)
        return float(position_m[2] + low)

    def rest_height_m(self, sphere_centres_m: np.ndarray, sphere_radius_m: float, x_m: float,
                      y_m: float) -> float | None:
        """Lowest centre-of-mass height at (x, y) for which the body (start orientation) clears
        every given sphere; None when none lies under it. The wheel is an exact cylinder; the
        loop is sampled every 2 mm along its capsules (its DEM-Engine cylinders lie inside)."""
        if self.kind == 'wheel':
            r, half = self.wheel_radius_m, 0.5 * self.wheel_width_m
            dx = sphere_centres_m[:, 0] - x_m
            near = (np.abs(dx) < r) & (np.abs(sphere_centres_m[:, 1] - y_m) < half + sphere_radius_m)
            if not np.any(near):
                return None
            return float(np.max(sphere_centres_m[near, 2] + sphere_radius_m + np.sqrt(r ** 2 - dx[near] ** 2)))
        centres, radii = self.start_points_m()
        reach = np.max(np.abs(centres) + radii[:, None], axis=0)       # half_extent_m, from these points
        near = ((np.abs(sphere_centres_m[:, 0] - x_m) < reach[0] + sphere_radius_m)
                & (np.abs(sphere_centres_m[:, 1] - y_m) < reach[1] + sphere_radius_m))
        grains = sphere_centres_m[near]
        low = centres[:, 2] - radii < centres[:, 2].min() - radii.max() + 0.1   # only the bottom 10 cm can touch
        centres, radii = centres[low], radii[low]
        best: float | None = None
        for start in range(0, len(grains), 2048):
            chunk = grains[start:start + 2048]
            dx = chunk[None, :, 0] - (x_m + centres[:, None, 0])
            dy = chunk[None, :, 1] - (y_m + centres[:, None, 1])
            reach_sq = (radii[:, None] + sphere_radius_m) ** 2 - dx ** 2 - dy ** 2
            touching = reach_sq > 0
            if np.any(touching):
                need = chunk[None, :, 2] + np.sqrt(np.where(touching, reach_sq, 0.0)) - centres[:, None, 2]
                value = float(need[touching].max())
                best = value if best is None else max(best, value)
        return best

    # --- engine views ---------------------------------------------------------------------
    def contact_spheres(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(centres [n, 3] body frame, radii [n], masses [n]) of the LAMMPS body: the wheel's rim
        of equal spheres, the loop's capsule spheres carrying their link's mass."""
        if self.kind == 'wheel':
            centres = wheel_rim_spheres_m(self.wheel_radius_m, self.wheel_width_m, self.sphere_radius_m,
                                          self.sphere_spacing_m)
            return (centres, np.full(len(centres), self.sphere_radius_m),
                    np.full(len(centres), self.mass_kg / len(centres)))
        centres, radii, masses = [], [], []
        for ends, radius, mass in zip(self.capsule_ends_m, self.capsule_radius_m, self.capsule_mass_kg):
            points, _ = capsule_spheres(ends[None], np.array([radius]), self.sphere_spacing_m)
            centres.append(points)
            radii.append(np.full(len(points), radius))
            masses.append(np.full(len(points), mass / len(points)))
        if len(self.edge_centres_m):    # module edges: contact only (the infile carries mass and inertia)
            centres.append(self.edge_centres_m)
            radii.append(np.full(len(self.edge_centres_m), self.edge_radius_m))
            masses.append(np.full(len(self.edge_centres_m), EDGE_SPHERE_MASS_KG))
        return np.concatenate(centres), np.concatenate(radii), np.concatenate(masses)

    def mesh(self) -> tuple[np.ndarray, np.ndarray]:
        """(vertices [v, 3], faces [f, 3] 0-based, counter-clockwise seen from outside) in the body
        frame: the wheel's closed cylinder, or one closed cylinder per loop link (and a collar of the
        shell radius + edge height, 2 x edge height long, at every joint with module edges)."""
        if self.kind == 'wheel':
            return cylinder_mesh(np.array([[0.0, -0.5 * self.wheel_width_m, 0.0], [0.0, 0.5 * self.wheel_width_m, 0.0]]),
                                 self.wheel_radius_m, WHEEL_MESH_SEGMENTS)
        vertices, faces = [], []
        collar_radius = float(np.max(self.capsule_radius_m)) + self.edge_radius_m
        pieces = [*zip(self.capsule_ends_m, self.capsule_radius_m),
                  *((ends, collar_radius) for ends in self.edge_collar_ends_m)]
        for ends, radius in pieces:
            v, f = cylinder_mesh(ends, float(radius), CAPSULE_MESH_SEGMENTS)
            faces.append(f + sum(len(x) for x in vertices))
            vertices.append(v)
        return np.concatenate(vertices), np.concatenate(faces)

    def mesh_obj(self) -> str:
        """The mesh as Wavefront OBJ text (DEM-Engine's AddWavefrontMeshObject)."""
        vertices, faces = self.mesh()
        lines = [f'# cobra_sim DEM body ({self.kind}), principal frame, origin at the centre of mass']
        lines += [f'v {x:.9g} {y:.9g} {z:.9g}' for x, y, z in vertices]
        lines += [f'f {a + 1} {b + 1} {c + 1}' for a, b, c in faces]
        return '\n'.join(lines) + '\n'

    def inertia_in_bed_kg_m2(self, rotation: np.ndarray) -> np.ndarray:
        """[3, 3] inertia tensor about the centre of mass in bed axes at orientation `rotation`."""
        return rotation @ np.diag(self.principal_inertia_kg_m2) @ rotation.T


# --- construction --------------------------------------------------------------------------------

@dataclass(frozen=True)
class BodySpec:
    """The tumbling body: the thesis's rigid wheel (§21; axis y, rolling downslope along +x) or the
    latched COBRA loop from the URDF (kind cobra_loop: mass, inertia and shape from the URDF at the
    tumble gait's curl pose; radius_m, width_m, mass_kg and inertia_yy_of_m_r2 describe the wheel
    only). Geometry, mass properties and rolling radius: `shape` (cobra_dem.body)."""

    kind: str = 'wheel'                       # wheel | cobra_loop
    urdf: str = ''                            # cobra_loop: URDF path ('' = COBRA's installed URDF)
    radius_m: float = 0.20
    width_m: float = 0.12
    mass_kg: float = 6.0
    inertia_yy_of_m_r2: float = 0.75
    motion: str = 'prescribed'                # prescribed: omega fixed, translation free; free
    angular_speed_rad_s: float = math.pi / 4.0
    start_x_m: float = 0.15
    settle_time_s: float = 0.1                # on the level bed, no spin, before slope and motion
    sphere_radius_m: float = 0.02             # rim spheres of the LAMMPS wheel
    sphere_spacing_m: float = 0.015           # rim / loop-capsule sphere spacing of the LAMMPS body
    module_edge_height_m: float = 0.0         # cobra_loop: a ring standing this far proud of the link shell
                                              # at every module joint (the modules' end brackets and the latch;
                                              # our choice, not in the thesis); 0 = smooth link cylinders

    @property
    def shape(self) -> BodyShape:
        """Mass, principal inertia, contact geometry and rolling radius (cached per spec)."""
        return body_shape(self)

    @property
    def reference_speed_m_s(self) -> float:
        """v_ref = omega_r r (r: the rolling radius, the wheel's radius or the loop's perimeter / 2 pi)."""
        return self.angular_speed_rad_s * self.shape.rolling_radius_m



def body_shape(body: BodySpec) -> BodyShape:
    """The BodyShape of a scenario's body spec (cached: the loop's curl is a least-squares solve)."""
    return _body_shape(body)


@functools.lru_cache(maxsize=16)
def _body_shape(body: BodySpec) -> BodyShape:
    if body.kind == 'wheel':
        return wheel_shape(body)
    if body.kind == 'cobra_loop':
        return cobra_loop_shape(body)
    raise BodyError(f'body.kind = {body.kind!r} is unknown: use one of {", ".join(BODY_KINDS)}')


def wheel_shape(body: BodySpec) -> BodyShape:
    """The thesis §21 wheel from the spec's radius, width, mass and I_yy / (m r^2)."""
    ixx = body.mass_kg * (0.4 * body.radius_m ** 2 + body.width_m ** 2 / 12.0)
    iyy = body.inertia_yy_of_m_r2 * body.mass_kg * body.radius_m ** 2
    return BodyShape('wheel', body.mass_kg, (ixx, iyy, ixx), body.radius_m, np.eye(3),
                     wheel_radius_m=body.radius_m, wheel_width_m=body.width_m,
                     sphere_radius_m=body.sphere_radius_m, sphere_spacing_m=body.sphere_spacing_m)


def cobra_loop_shape(body: BodySpec) -> BodyShape:
    """COBRA's URDF (or body.urdf) at the latched curl pose, as one rigid body (module docstring)."""
    from cobra_description.robot_model import RobotModelError, load_robot_model
    from cobra_gaits.curl_pose import CurlPoseError, curl_pose

    try:
        model = load_robot_model(body.urdf or None)
        joints = model.gait_joints()
        pose = curl_pose(model, joints).as_dict()
    except (RobotModelError, CurlPoseError) as error:
        raise BodyError(f'body.kind cobra_loop: {error}') from error
    masses, centres, inertias = [], [], []
    capsules_of_link: dict[str, list[tuple[np.ndarray, np.ndarray, float]]] = {}
    for link_name, link in model.links.items():
        frame = model.transform(model.root, link_name, pose)
        for shape in link.collisions:
            placed = frame @ shape.origin.matrix()
            if shape.kind == 'cylinder':
                radius, length = shape.size
                half_axis = placed[:3, 2] * 0.5 * length           # URDF cylinders lie along local z
            elif shape.kind == 'sphere':
                radius, half_axis = shape.size[0], np.zeros(3)
            else:
                raise BodyError(f"body.kind cobra_loop: link '{link_name}' has a {shape.kind} collision shape; "
                                'the DEM loop takes cylinders and spheres (COBRA\'s modules): give a URDF whose '
                                'collision shapes are cylinders or spheres (body.urdf)')
            capsules_of_link.setdefault(link_name, []).append((placed[:3, 3] - half_axis, placed[:3, 3] + half_axis,
                                                               float(radius)))
    if not capsules_of_link:
        raise BodyError('body.kind cobra_loop: the URDF has no collision geometry')
    carried_mass = {name: 0.0 for name in capsules_of_link}
    parent_of = {joint.child: joint.parent for joint in model.joints}
    for link_name, link in model.links.items():
        if link.inertial is None or link.inertial.mass_kg <= 0.0:
            continue
        placed = model.transform(model.root, link_name, pose) @ link.inertial.origin.matrix()
        masses.append(link.inertial.mass_kg)
        centres.append(placed[:3, 3])
        inertias.append(placed[:3, :3] @ link.inertial.inertia @ placed[:3, :3].T)
        carrier = link_name            # a massed link without geometry (the latch servo) rides on its parent's
        while carrier not in capsules_of_link and carrier in parent_of:
            carrier = parent_of[carrier]
        if carrier not in capsules_of_link:
            raise BodyError(f"body.kind cobra_loop: link '{link_name}' has mass but neither it nor a parent has a "
                            'collision shape to carry it: give it a collision cylinder in the URDF')
        carried_mass[carrier] += link.inertial.mass_kg
    ends, radii, capsule_mass = [], [], []
    for link_name, link_capsules in capsules_of_link.items():
        for start, end, radius in link_capsules:
            ends.append((start, end))
            radii.append(radius)
            capsule_mass.append(carried_mass[link_name] / len(link_capsules))
    mass = float(sum(masses))
    com = np.sum(np.array(masses)[:, None] * np.array(centres), axis=0) / mass
    inertia = np.zeros((3, 3))
    for m, c, i_link in zip(masses, centres, inertias):
        d = c - com
        inertia += i_link + m * (d @ d * np.eye(3) - np.outer(d, d))
    principal, axes = np.linalg.eigh(inertia)
    order = [int(np.argmax(np.abs(axes[0]))), int(np.argmax(np.abs(axes[1])))]   # closest to root x, y
    if order[0] == order[1]:
        order[0] = next(k for k in range(3) if k != order[1])
    x_axis = axes[:, order[0]] * np.sign(axes[0, order[0]] or 1.0)
    y_axis = axes[:, order[1]] * np.sign(axes[1, order[1]] or 1.0)
    z_axis = np.cross(x_axis, y_axis)
    rotation = np.stack([x_axis, y_axis, z_axis], axis=1)            # body -> root (the start orientation)
    moments = tuple(float(v) for v in np.diag(rotation.T @ inertia @ rotation))
    ends_body = (np.array(ends) - com) @ rotation                      # [n, 2, 3]
    radii_arr = np.array(radii, dtype=float)
    if body.module_edge_height_m < 0.0:
        raise BodyError(f'body.module_edge_height_m = {body.module_edge_height_m}: give 0 (smooth) or a height > 0 m')
    height = body.module_edge_height_m
    edges = module_edge_spheres(ends_body, radii_arr, height) if height > 0 else np.zeros((0, 3))
    collars = (np.array([(point - height * axis, point + height * axis)
                         for point, axis, _ in module_edge_joints(ends_body, radii_arr)]) if height > 0
               else np.zeros((0, 2, 3)))
    return BodyShape('cobra_loop', mass, moments, rolling_radius_of_capsules(ends_body, radii_arr), rotation,
                     capsule_ends_m=ends_body, capsule_radius_m=radii_arr,
                     capsule_mass_kg=np.array(capsule_mass, dtype=float), sphere_spacing_m=body.sphere_spacing_m,
                     edge_centres_m=edges, edge_radius_m=height, edge_collar_ends_m=collars)


# --- pure geometry ---------------------------------------------------------------------------------

def wheel_rim_spheres_m(radius_m: float, width_m: float, sphere_radius_m: float, spacing_m: float) -> np.ndarray:
    """Rim spheres [n, 3] of the wheel (axis y): rows across the width, rings at r - s, rows staggered."""
    ring_radius = radius_m - sphere_radius_m
    half_span = 0.5 * width_m - sphere_radius_m
    rows = max(1, math.ceil(2 * half_span / spacing_m) + 1)
    around = math.ceil(2 * math.pi * ring_radius / spacing_m)
    ys = np.linspace(-half_span, half_span, rows)
    phi = 2 * math.pi * np.arange(around) / around
    offsets = [np.stack([ring_radius * np.cos(phi + 0.5 * k * (phi[1] - phi[0])), np.full(around, y),
                         ring_radius * np.sin(phi + 0.5 * k * (phi[1] - phi[0]))], axis=1)
               for k, y in enumerate(ys)]
    return np.concatenate(offsets)


def module_edge_joints(ends_m: np.ndarray, radii_m: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """(point, unit axis, shell radius) of every joint of the chain of capsules (capsule ends shared
    within 1 mm); the axis is the mean of the axes of the capsules meeting there."""
    joints: list[tuple[np.ndarray, list[np.ndarray], float]] = []
    for (start, end), radius in zip(ends_m, radii_m):
        axis = (end - start) / np.linalg.norm(end - start)
        for point in (start, end):
            for joint_point, axes, _ in joints:
                if np.linalg.norm(joint_point - point) < 1e-3:
                    axes.append(axis if axis @ axes[0] >= 0 else -axis)
                    break
            else:
                joints.append((point, [axis], float(radius)))
    out = []
    for point, axes, radius in joints:
        axis = np.mean(axes, axis=0)
        out.append((point, axis / np.linalg.norm(axis), radius))
    return out


def module_edge_spheres(ends_m: np.ndarray, radii_m: np.ndarray, height_m: float) -> np.ndarray:
    """Centres [k, 3] of rings of spheres of radius height_m, one ring at every joint of the chain
    of capsules, in the plane normal to the joint's axis, on the shell (radius of the capsule): each
    ring stands height_m proud of the shell, like a module's end bracket. Spheres overlap (spacing
    <= height_m): a closed ridge (the LAMMPS body)."""
    rings = []
    for point, axis, radius in module_edge_joints(ends_m, radii_m):
        helper = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
        u = np.cross(axis, helper)
        u /= np.linalg.norm(u)
        w = np.cross(axis, u)
        count = max(6, math.ceil(2 * math.pi * radius / height_m))
        phi = 2 * math.pi * np.arange(count) / count
        rings.append(point + radius * (np.cos(phi)[:, None] * u + np.sin(phi)[:, None] * w))
    return np.concatenate(rings)


def capsule_spheres(ends_m: np.ndarray, radii_m: np.ndarray, spacing_m: float) -> tuple[np.ndarray, np.ndarray]:
    """(centres, radii) of spheres spaced <= spacing_m along each capsule axis, both ends included."""
    centres, radii = [], []
    for (start, end), radius in zip(ends_m, radii_m):
        count = max(1, math.ceil(float(np.linalg.norm(end - start)) / spacing_m)) + 1
        t = np.linspace(0.0, 1.0, count)[:, None]
        centres.append(start + t * (end - start))
        radii.append(np.full(count, float(radius)))
    return np.concatenate(centres), np.concatenate(radii)


def rolling_radius_of_capsules(ends_m: np.ndarray, radii_m: np.ndarray) -> float:
    """Perimeter / (2 pi) of the convex hull of the capsules' x-z section (equal radii: the hull
    of the axis ends grown by the radius, whose perimeter is the ends' hull perimeter + 2 pi r)."""
    from scipy.spatial import ConvexHull

    points = ends_m.reshape(-1, 3)[:, [0, 2]]
    hull = ConvexHull(points)
    ring = points[hull.vertices]
    perimeter = float(np.sum(np.linalg.norm(ring - np.roll(ring, 1, axis=0), axis=1)))
    return perimeter / (2.0 * math.pi) + float(np.max(radii_m))


def cylinder_mesh(ends_m: np.ndarray, radius_m: float, segments: int) -> tuple[np.ndarray, np.ndarray]:
    """Closed cylinder between two axis points: (vertices, faces), faces wound outward."""
    start, end = np.asarray(ends_m[0], float), np.asarray(ends_m[1], float)
    axis = (end - start) / np.linalg.norm(end - start)
    helper = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = np.cross(axis, helper)
    u /= np.linalg.norm(u)
    w = np.cross(axis, u)                                       # (u, w, axis) right-handed
    phi = 2.0 * math.pi * np.arange(segments) / segments
    ring = radius_m * (np.cos(phi)[:, None] * u + np.sin(phi)[:, None] * w)
    vertices = np.concatenate([start + ring, end + ring, [start, end]])
    low, high = 2 * segments, 2 * segments + 1
    faces = []
    for k in range(segments):
        a0, a1 = k, (k + 1) % segments
        b0, b1 = a0 + segments, a1 + segments
        faces += [(a0, a1, b1), (a0, b1, b0), (low, a1, a0), (high, b0, b1)]
    return vertices, np.array(faces, dtype=np.int64)


def surface_height_m(sphere_centres_m: np.ndarray, sphere_radius_m: np.ndarray | float,
                     x_range_m: tuple[float, float], y_range_m: tuple[float, float], bin_m: float,
                     period_m: tuple[float, float] | None = None) -> float:
    """Free-surface level: median over x-y bins of the highest sphere top in each bin (positions
    wrapped into [0, period) first when the bed is periodic)."""
    centres = np.asarray(sphere_centres_m, dtype=float)
    top = centres[:, 2] + np.broadcast_to(np.asarray(sphere_radius_m, dtype=float), (len(centres),))
    x, y = centres[:, 0], centres[:, 1]
    if period_m is not None:
        x, y = x % period_m[0], y % period_m[1]
    keep = (x >= x_range_m[0]) & (x < x_range_m[1]) & (y >= y_range_m[0]) & (y < y_range_m[1])
    if not np.any(keep):
        return float(np.max(top))
    keys = np.floor(x[keep] / bin_m).astype(np.int64) * 100000 + np.floor(y[keep] / bin_m).astype(np.int64)
    order = np.lexsort((top[keep], keys))
    last_of_key = np.r_[keys[order][1:] != keys[order][:-1], True]
    return float(np.median(top[keep][order][last_of_key]))
