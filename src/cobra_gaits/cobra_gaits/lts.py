"""Linear twisting sidewinding (LTS) on the T-Snake: backbone curve, frames, twist and joint angles.

Follows the LTS paper (§III; equation numbers are the paper's), pure numpy. Curve frames are 3x3
rotations with columns (e1, e_a, e_b) in the world frame. The discretisation (torsion-free pieces,
the damped solve for dorsal and lateral angles) and why: README, "Linear twisting sidewinding".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
import numpy as np

from cobra_gaits.sidewinding import GaitError

MODULE_COUNT = 6  # the LTS paper's Table I
MODULE_LENGTH_M = 0.2055  # the LTS paper's Table I
VERTICAL_AMPLITUDE_M = 0.02  # k_a, the LTS paper's Table I
HORIZONTAL_AMPLITUDE_M = 0.08  # k_b, the LTS paper's Table I
PITCH_M_PER_RAD = 1.0 / (2.0 * math.pi)  # k_theta, the LTS paper's Table I
TIME_STEP_S = 0.02  # Delta t of the joint commands, the LTS paper's Table I
WORLD_UP = np.array([0.0, 0.0, 1.0])  # z^L of Eq. (5): the head's dorsal side points up
JOINT_KINDS = ('dorsal', 'twist', 'lateral')  # order inside a module, the LTS paper §III-D1
_TABLE_SIZE = 4096  # samples of one curve period for the arc-length and torsion tables
_GAUSS_NODES = 4  # Gauss-Legendre points per module for the curvature integrals
SINGULAR_VALUE_THRESHOLD = 0.3  # chosen: below this singular value of the two bending axes ...
MAX_DAMPING = 0.3  # ... damp the least-squares solve, up to this damping at full alignment (chosen)


# --------------------------------------------------------------------------------------------
# parameters
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BackboneCurveParams:
    """The elliptical helix c^eh of Eq. (3) and its temporal frequency omega_t."""

    vertical_amplitude_m: float = VERTICAL_AMPLITUDE_M  # k_a
    horizontal_amplitude_m: float = HORIZONTAL_AMPLITUDE_M  # k_b
    pitch_m_per_rad: float = PITCH_M_PER_RAD  # k_theta
    temporal_frequency_rad_s: float = 0.0  # omega_t

    def validated(self) -> BackboneCurveParams:
        """Refuse curves without a Frenet-Serret frame everywhere (straight, planar, backwards)."""
        values = (self.vertical_amplitude_m, self.horizontal_amplitude_m, self.pitch_m_per_rad,
                  self.temporal_frequency_rad_s)
        if not all(math.isfinite(v) for v in values):
            raise GaitError(f'LTS curve parameters must be finite numbers, got {self}')
        if self.pitch_m_per_rad <= 0.0:
            raise GaitError(f'pitch_m_per_rad (k_theta) must be > 0 so the curve advances along x, '
                            f'got {self.pitch_m_per_rad}; the paper uses 1/(2 pi) m')
        if self.vertical_amplitude_m <= 0.0 or self.horizontal_amplitude_m <= 0.0:
            raise GaitError(
                f'vertical_amplitude_m (k_a) and horizontal_amplitude_m (k_b) must both be > 0, got '
                f'{self.vertical_amplitude_m} and {self.horizontal_amplitude_m}: with either at 0 the '
                f'curve is straight or planar with inflection points, where the Frenet-Serret frame '
                f'of Eq. (6) is undefined; the paper uses k_a = 0.02 m, k_b = 0.08 m')
        return self


@dataclass(frozen=True)
class TSnakeGeometry:
    """n modules of length L0 with their joints at the module middles (the LTS paper §III-D1)."""

    module_count: int = MODULE_COUNT
    module_length_m: float = MODULE_LENGTH_M

    def validated(self) -> TSnakeGeometry:
        if not isinstance(self.module_count, (int, np.integer)) or self.module_count < 1:
            raise GaitError(f'module_count must be a positive integer, got {self.module_count!r}')
        if not (math.isfinite(self.module_length_m) and self.module_length_m > 0.0):
            raise GaitError(f'module_length_m must be > 0, got {self.module_length_m}; the T-Snake has 0.2055 m')
        return self

    @property
    def body_length_m(self) -> float:
        """L = n L0."""
        return self.module_count * self.module_length_m

    @property
    def joint_arc_lengths_m(self) -> np.ndarray:
        """s_i = (i - 1/2) L0 of each module's joint point, head to tail."""
        return (np.arange(self.module_count) + 0.5) * self.module_length_m

    @property
    def piece_centres_m(self) -> np.ndarray:
        """Where each rigid piece takes its constant twist: k L0, k = 0 (head) .. n (tail)."""
        return np.arange(self.module_count + 1) * self.module_length_m

    def joint_names(self) -> list[str]:
        """m{i}_dorsal, m{i}_twist, m{i}_lateral, i = 1..n (the contract's T-Snake names)."""
        return [f'm{i}_{kind}' for i in range(1, self.module_count + 1) for kind in JOINT_KINDS]


@dataclass(frozen=True)
class LinearTwistParams:
    """The linear twist phi = (a1 s + a0) t of Eq. (12); omega_r(s) = a1 s + a0, Eq. (14)."""

    a0_rad_s: float = 0.0
    a1_rad_m_s: float = 0.0

    def rolling_speed_rad_s(self, arc_length_m: np.ndarray) -> np.ndarray:
        return self.a1_rad_m_s * np.asarray(arc_length_m, dtype=float) + self.a0_rad_s

    @property
    def turning_centre_m(self) -> float | None:
        """s0 = -a0 / a1 of Eq. (15), where omega_r vanishes; None without twisting (a1 = 0)."""
        return None if self.a1_rad_m_s == 0.0 else -self.a0_rad_s / self.a1_rad_m_s

    @property
    def kind(self) -> str:
        """Gait specialisation of §III-C4."""
        if self.a1_rad_m_s != 0.0:
            return 'twisting'
        return 'rolling' if self.a0_rad_s != 0.0 else 'conventional'

    def validated(self, body_length_m: float) -> LinearTwistParams:
        if not (math.isfinite(self.a0_rad_s) and math.isfinite(self.a1_rad_m_s)):
            raise GaitError(f'a0_rad_s and a1_rad_m_s must be finite, got {self.a0_rad_s}, {self.a1_rad_m_s}')
        return self


@dataclass(frozen=True)
class RollingVectorParams:
    """Baseline of the LTS paper's ref. [8] (§IV-B1): head and tail segments roll at omega_h and omega_t,
    joined by a buffer segment over which the rolling speed changes linearly (our reading)."""

    head_roll_rad_s: float = 0.4
    tail_roll_rad_s: float = -0.4
    buffer_start_m: float = 2 * MODULE_LENGTH_M  # chosen: the buffer holds twist joints 3 and 4 only,
    buffer_end_m: float = 4 * MODULE_LENGTH_M  # the two joints the paper reports loaded (§IV-B2)

    def rolling_speed_rad_s(self, arc_length_m: np.ndarray) -> np.ndarray:
        blend = np.clip((np.asarray(arc_length_m, dtype=float) - self.buffer_start_m)
                        / (self.buffer_end_m - self.buffer_start_m), 0.0, 1.0)
        return self.head_roll_rad_s + (self.tail_roll_rad_s - self.head_roll_rad_s) * blend

    def validated(self, body_length_m: float) -> RollingVectorParams:
        values = (self.head_roll_rad_s, self.tail_roll_rad_s, self.buffer_start_m, self.buffer_end_m)
        if not all(math.isfinite(v) for v in values):
            raise GaitError(f'rolling-vector parameters must be finite, got {self}')
        if not 0.0 <= self.buffer_start_m < self.buffer_end_m <= body_length_m:
            raise GaitError(f'the buffer segment [{self.buffer_start_m}, {self.buffer_end_m}] m must lie '
                            f'inside the body [0, {body_length_m:.4g}] m with start < end')
        return self


@dataclass(frozen=True)
class LtsGait:
    """Everything that fixes an LTS (or rolling-vector) joint trajectory."""

    curve: BackboneCurveParams = field(default_factory=BackboneCurveParams)
    twist: LinearTwistParams | RollingVectorParams = field(default_factory=LinearTwistParams)
    geometry: TSnakeGeometry = field(default_factory=TSnakeGeometry)
    time_step_s: float = TIME_STEP_S

    def validated(self) -> LtsGait:
        self.curve.validated()
        self.geometry.validated()
        self.twist.validated(self.geometry.body_length_m)
        if not (math.isfinite(self.time_step_s) and self.time_step_s > 0.0):
            raise GaitError(f'time_step_s must be > 0, got {self.time_step_s}; the paper uses 0.02 s')
        return self


# --------------------------------------------------------------------------------------------
# presets (the LTS paper §III-C4, §IV)
# --------------------------------------------------------------------------------------------

STEERING_MODES = ('tail_anchored', 'in_place', 'head_anchored')


def twisting_sidewinding(a1_rad_m_s: float, turning_centre_m: float,
                         geometry: TSnakeGeometry = TSnakeGeometry(),
                         curve: BackboneCurveParams = BackboneCurveParams()) -> LtsGait:
    """Twisting sidewinding turning about s0 on the body: a0 = -a1 s0 (Eq. (15))."""
    length_m = geometry.validated().body_length_m
    if a1_rad_m_s == 0.0 or not math.isfinite(a1_rad_m_s):
        raise GaitError(f'twisting sidewinding needs a finite a1_rad_m_s != 0, got {a1_rad_m_s}; '
                        f'a1 = 0 is rolling or conventional sidewinding')
    if not (math.isfinite(turning_centre_m) and 0.0 <= turning_centre_m <= length_m):
        raise GaitError(f'turning centre s0 = {turning_centre_m} m is outside the body [0, {length_m:.4g}] m: '
                        f'choose s0 between the head (0) and the tail (L)')
    return LtsGait(curve, LinearTwistParams(-a1_rad_m_s * turning_centre_m, a1_rad_m_s), geometry).validated()


def steering(mode: str, geometry: TSnakeGeometry = TSnakeGeometry(),
             curve: BackboneCurveParams = BackboneCurveParams()) -> LtsGait:
    """The three steering modes of §IV-C2 with the paper's a0, a1 (omega_t = 0 is our choice:
    the paper does not give it for these runs)."""
    length_m = geometry.validated().body_length_m
    if mode == 'tail_anchored':  # a0 = 0.4, a1 = -a0/L  ->  s0 = L
        return twisting_sidewinding(-0.4 / length_m, length_m, geometry, curve)
    if mode == 'in_place':  # a0 = -0.4, a1 = -2 a0/L  ->  s0 = L/2
        return twisting_sidewinding(0.8 / length_m, length_m / 2, geometry, curve)
    if mode == 'head_anchored':  # a0 = 0, a1 = -0.8/L  ->  s0 = 0
        return twisting_sidewinding(-0.8 / length_m, 0.0, geometry, curve)
    raise GaitError(f"unknown steering mode '{mode}': use one of {', '.join(STEERING_MODES)}")


def _preset_table(geometry: TSnakeGeometry) -> dict[str, LtsGait]:
    length_m = geometry.body_length_m
    translating = BackboneCurveParams(temporal_frequency_rad_s=0.5)  # §IV-C1, §IV-D
    presets = {
        # §IV-D: the comparison baseline, omega_t = 0.5 rad/s, a0 = a1 = 0
        'conventional': LtsGait(translating, LinearTwistParams(0.0, 0.0), geometry),
        # §IV-C1 / §IV-D: omega_t = 0.5 rad/s, a1 = 0, |a0| = 0.8 rad/s. The paper prints a0 = +0.8;
        # in this library's right-handed frames omega_t > 0 sidewinds towards -y and a0 > 0 rolls
        # towards +y (the two nearly cancel: 0.005 m/s in the sim), so rolling WITH the
        # sidewinding, the paper's 45-49 % faster gait, is a0 = -0.8 here (python -m cobra_experiments.reproduce_lts)
        'rolling': LtsGait(translating, LinearTwistParams(-0.8, 0.0), geometry),
        # §IV-A: omega_t = 0, a1 = 1.5 rad/(m s), a0 = -1 rad/s (s0 = 0.667 m)
        'twisting': LtsGait(BackboneCurveParams(), LinearTwistParams(-1.0, 1.5), geometry),
        # §IV-B: in-place turning for the load comparison, a0 = 0.6 rad/s, a1 = -2 a0 / L
        'in_place_load': LtsGait(BackboneCurveParams(), LinearTwistParams(0.6, -1.2 / length_m), geometry),
        # §IV-B1: rolling-vector baseline, omega_h = 0.4, omega_t = -0.4 rad/s
        'rolling_vector': LtsGait(BackboneCurveParams(), RollingVectorParams(
            0.4, -0.4, length_m / 3, 2 * length_m / 3), geometry),
    }
    presets.update({mode: steering(mode, geometry) for mode in STEERING_MODES})
    return presets


PRESET_NAMES = ('conventional', 'rolling', 'twisting', 'in_place_load', 'rolling_vector') + STEERING_MODES


def lts_preset(name: str, geometry: TSnakeGeometry = TSnakeGeometry()) -> LtsGait:
    """A named gait of the LTS paper (omega_t and curve from Table I unless the section says otherwise)."""
    if name not in PRESET_NAMES:
        raise GaitError(f"unknown LTS preset '{name}': use one of {', '.join(PRESET_NAMES)}")
    return _preset_table(geometry.validated())[name].validated()


# --------------------------------------------------------------------------------------------
# rotations
# --------------------------------------------------------------------------------------------

def rotation_about_local_axis(axis_index: int, angle_rad: float | np.ndarray) -> np.ndarray:
    """Rotation by angle about basis vector `axis_index` (0 = e1, 1 = e_a, 2 = e_b); [..., 3, 3]."""
    angle = np.asarray(angle_rad, dtype=float)
    c, s = np.cos(angle), np.sin(angle)
    i, j = (axis_index + 1) % 3, (axis_index + 2) % 3
    out = np.zeros(angle.shape + (3, 3))
    out[..., axis_index, axis_index] = 1.0
    out[..., i, i] = c
    out[..., j, j] = c
    out[..., j, i] = s
    out[..., i, j] = -s
    return out


# --------------------------------------------------------------------------------------------
# the backbone curve and its frames
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CurveSample:
    """Curve quantities at arc lengths s (arrays over s): Eq. (3)-(9)."""

    arc_length_m: np.ndarray
    position_m: np.ndarray  # [..., 3] world
    frenet_frames: np.ndarray  # [..., 3, 3], columns (T, N, B) = (e1, e_a^F, e_b^F), Eq. (9)
    curvature_1_m: np.ndarray  # kappa^F, Eq. (6a)
    torsion_1_m: np.ndarray  # tau^F, Eq. (6b)
    bellows_angle_rad: np.ndarray  # phi_F^B from Eq. (7) with the head rule of §III-C1

    @property
    def bellows_frames(self) -> np.ndarray:
        """Torsion-free frames B = F rotated by phi_F^B about e1."""
        return self.frenet_frames @ rotation_about_local_axis(0, self.bellows_angle_rad)

    @property
    def bellows_curvatures_1_m(self) -> tuple[np.ndarray, np.ndarray]:
        """(kappa_a^B, kappa_b^B) = kappa^F (sin phi_F^B, cos phi_F^B), Eq. (8)."""
        return (self.curvature_1_m * np.sin(self.bellows_angle_rad),
                self.curvature_1_m * np.cos(self.bellows_angle_rad))


class BackboneCurve:
    """The time-varying elliptical helix c^eh (Eq. (3)) parametrised by arc length (Eq. (4)).

    With u = theta + omega_t t every shape quantity depends on u only, so arc length S(u) and the
    torsion integral T(u) = int tau^F ds are tabulated once over one period and extended
    periodically; a tick then needs only interpolation and closed-form derivatives.
    """

    def __init__(self, params: BackboneCurveParams) -> None:
        self.params = params.validated()
        phase = np.linspace(0.0, 2.0 * math.pi, _TABLE_SIZE + 1)
        speed = self._derivatives(phase)[3]
        torsion = self._curvature_torsion(phase)[1]
        self._phase_table = phase
        self._arc_table = _cumulative_trapezoid(speed, phase)
        self._torsion_table = _cumulative_trapezoid(torsion * speed, phase)
        self.arc_length_per_period_m = float(self._arc_table[-1])
        self.torsion_per_period_rad = float(self._torsion_table[-1])

    # closed forms in u ------------------------------------------------------------------------
    def _derivatives(self, phase: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """dc/dtheta, d2c/dtheta2, d3c/dtheta3 and |dc/dtheta| at phase u."""
        p = self.params
        c, s = np.cos(phase), np.sin(phase)
        ones = np.ones_like(phase)
        d1 = np.stack([p.pitch_m_per_rad * ones, p.horizontal_amplitude_m * c, -p.vertical_amplitude_m * s], -1)
        d2 = np.stack([0.0 * ones, -p.horizontal_amplitude_m * s, -p.vertical_amplitude_m * c], -1)
        d3 = np.stack([0.0 * ones, -p.horizontal_amplitude_m * c, p.vertical_amplitude_m * s], -1)
        return d1, d2, d3, np.linalg.norm(d1, axis=-1)

    def _curvature_torsion(self, phase: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """kappa^F and tau^F of Eq. (6), in the parameter-free form (same values as with d/ds)."""
        d1, d2, d3, speed = self._derivatives(phase)
        cross = np.cross(d1, d2)
        cross_sq = np.einsum('...i,...i->...', cross, cross)
        return np.sqrt(cross_sq) / speed ** 3, np.einsum('...i,...i->...', cross, d3) / cross_sq

    def _periodic(self, table: np.ndarray, per_period: float, phase: np.ndarray) -> np.ndarray:
        turns = np.floor(phase / (2.0 * math.pi))
        return turns * per_period + np.interp(phase - turns * 2.0 * math.pi, self._phase_table, table)

    def curvature_1_m(self, phase: np.ndarray) -> np.ndarray:
        """kappa^F at phase u in closed form: |c' x c''| / |c'|^3 with
        c' x c'' = (-k_a k_b, k_a k_theta cos u, -k_b k_theta sin u)."""
        p = self.params
        cos_sq = np.cos(phase) ** 2
        sin_sq = 1.0 - cos_sq
        k_a, k_b, k_t = p.vertical_amplitude_m, p.horizontal_amplitude_m, p.pitch_m_per_rad
        cross_sq = (k_a * k_b) ** 2 + k_t ** 2 * (k_a ** 2 * cos_sq + k_b ** 2 * sin_sq)
        speed_sq = k_t ** 2 + k_b ** 2 * cos_sq + k_a ** 2 * sin_sq
        return np.sqrt(cross_sq) / speed_sq ** 1.5

    def torsion_integral_rad(self, phase: np.ndarray | float) -> np.ndarray:
        """T(u) = integral of tau^F ds from u = 0 (periodically extended table)."""
        return self._periodic(self._torsion_table, self.torsion_per_period_rad, np.asarray(phase, dtype=float))

    def head_phase_rad(self, time_s: float) -> float:
        """u at the head (theta = 0): omega_t t."""
        return self.params.temporal_frequency_rad_s * time_s

    def phase_at(self, arc_length_m: np.ndarray, time_s: float) -> np.ndarray:
        """u = theta + omega_t t at arc length s from the head: S^-1(S(u_head) + s), Eq. (4)."""
        target = self._periodic(self._arc_table, self.arc_length_per_period_m,
                                np.asarray(self.head_phase_rad(time_s))) + np.asarray(arc_length_m, dtype=float)
        turns = np.floor(target / self.arc_length_per_period_m)
        return turns * 2.0 * math.pi + np.interp(target - turns * self.arc_length_per_period_m,
                                                 self._arc_table, self._phase_table)

    def head_bellows_angle_rad(self, time_s: float) -> float:
        """phi_F^B(0, t): from the Frenet normal to the world-up direction projected into the
        normal plane at the head (Eq. (5), Fig. 3). Scalar closed form (hot path)."""
        p = self.params
        u = self.head_phase_rad(time_s)
        c, s = math.cos(u), math.sin(u)
        k_a, k_b, k_t = p.vertical_amplitude_m, p.horizontal_amplitude_m, p.pitch_m_per_rad
        d1 = (k_t, k_b * c, -k_a * s)
        cross = (-k_a * k_b, k_a * k_t * c, -k_b * k_t * s)  # c' x c'', direction of B
        speed = math.sqrt(d1[0] ** 2 + d1[1] ** 2 + d1[2] ** 2)
        cross_norm = math.sqrt(cross[0] ** 2 + cross[1] ** 2 + cross[2] ** 2)
        tangent = [v / speed for v in d1]
        binormal = [v / cross_norm for v in cross]
        normal_z = binormal[0] * tangent[1] - binormal[1] * tangent[0]  # N = B x T, its z component
        # z - (z . T) T has the components (z . N, z . B) in the normal plane
        return math.atan2(binormal[2], normal_z)

    def frenet_frames_at_phase(self, phase: np.ndarray) -> np.ndarray:
        d1, d2, _, speed = self._derivatives(phase)
        tangent = d1 / speed[..., None]
        binormal = np.cross(d1, d2)
        binormal /= np.linalg.norm(binormal, axis=-1)[..., None]
        normal = np.cross(binormal, tangent)
        return np.stack([tangent, normal, binormal], -1)

    def sample(self, arc_length_m: np.ndarray, time_s: float) -> CurveSample:
        """Position, Frenet-Serret frame, curvature, torsion and bellows angle at arc lengths s."""
        arc = np.asarray(arc_length_m, dtype=float)
        head_phase = self.head_phase_rad(time_s)
        phase = self.phase_at(arc, time_s)
        p = self.params
        position = np.stack([p.pitch_m_per_rad * (phase - head_phase), p.horizontal_amplitude_m * np.sin(phase),
                             p.vertical_amplitude_m * np.cos(phase)], -1)
        curvature, torsion = self._curvature_torsion(phase)
        torsion_integral = (self._periodic(self._torsion_table, self.torsion_per_period_rad, phase)
                            - self._periodic(self._torsion_table, self.torsion_per_period_rad,
                                             np.asarray(head_phase)))
        bellows_angle = self.head_bellows_angle_rad(time_s) - torsion_integral  # Eq. (7)
        return CurveSample(arc, position, self.frenet_frames_at_phase(phase), curvature, torsion, bellows_angle)


def _cumulative_trapezoid(values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    out = np.zeros_like(values)
    out[1:] = np.cumsum(0.5 * (values[1:] + values[:-1]) * np.diff(grid))
    return out


def complete_frames(sample: CurveSample, twist_rad: np.ndarray) -> np.ndarray:
    """Complete frames C = B rotated by phi_B^C about e1 (§III-C3)."""
    return sample.bellows_frames @ rotation_about_local_axis(0, twist_rad)


def complete_curvatures_1_m(sample: CurveSample, twist_rad: np.ndarray,
                            twist_slope_rad_m: np.ndarray | float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(kappa_a^C, kappa_b^C, tau^C) of Eq. (13): kappa^F sin/cos(phi_B^C + phi_F^B) and
    tau^C = d phi_B^C / ds (+ tau^B = 0), i.e. a1 t for the linear twist."""
    angle = np.asarray(twist_rad) + sample.bellows_angle_rad
    return (sample.curvature_1_m * np.sin(angle), sample.curvature_1_m * np.cos(angle),
            np.broadcast_to(np.asarray(twist_slope_rad_m, dtype=float), angle.shape))


# --------------------------------------------------------------------------------------------
# joint angles
# --------------------------------------------------------------------------------------------

class LtsJointGenerator:
    """Dorsal / twist / lateral angles of every module at time t (the LTS paper §III-D)."""

    def __init__(self, gait: LtsGait) -> None:
        self.gait = gait.validated()
        self.curve = BackboneCurve(gait.curve)
        geometry = gait.geometry
        length_m = geometry.module_length_m
        nodes, weights = np.polynomial.legendre.leggauss(_GAUSS_NODES)
        starts = np.arange(geometry.module_count) * length_m
        self._quadrature_s = (starts[:, None] + 0.5 * length_m * (nodes + 1.0)[None, :]).ravel()
        self._quadrature_w = 0.5 * length_m * weights  # per module
        self._piece_rates = gait.twist.rolling_speed_rad_s(geometry.piece_centres_m)
        self.joint_names = geometry.joint_names()

    def piece_twists_rad(self, time_s: float) -> np.ndarray:
        """phi~_k = phi(k L0, t) of the rigid pieces k = 0 (head) .. n (tail), Eq. (16)."""
        return self._piece_rates * time_s

    def bellows_module_integrals(self, time_s: float) -> tuple[np.ndarray, np.ndarray]:
        """Integral of (kappa_a^B, kappa_b^B) over every module (Gauss-Legendre): the per-tick
        hot path, so only kappa^F and phi_F^B are evaluated (no positions or frames)."""
        curve = self.curve
        phase = curve.phase_at(self._quadrature_s, time_s)
        head_phase = curve.head_phase_rad(time_s)
        bellows_angle = (curve.head_bellows_angle_rad(time_s) + curve.torsion_integral_rad(head_phase)
                         - curve.torsion_integral_rad(phase))
        curvature = curve.curvature_1_m(phase)
        n = self.gait.geometry.module_count
        return ((curvature * np.sin(bellows_angle)).reshape(n, -1) @ self._quadrature_w,
                (curvature * np.cos(bellows_angle)).reshape(n, -1) @ self._quadrature_w)

    def angles_rad(self, time_s: float) -> np.ndarray:
        """[n, 3] (dorsal, twist, lateral) per module, piecewise-constant twist (§III-D2)."""
        integral_a, integral_b = self.bellows_module_integrals(time_s)
        twists = self.piece_twists_rad(time_s)
        before, after = twists[:-1], twists[1:]
        dorsal, lateral = solve_bending_rad(integral_a, integral_b, before, after)
        return np.stack([dorsal, after - before, lateral], -1)

    def positions_rad(self, time_s: float) -> np.ndarray:
        """Flat vector in `joint_names` order (m1_dorsal, m1_twist, m1_lateral, m2_dorsal, ...)."""
        return self.angles_rad(time_s).ravel()

    def head_frame(self, time_s: float) -> tuple[np.ndarray, np.ndarray]:
        """Head position and (piecewise) complete frame: the bellows frame at s = 0 rolled by phi~_0."""
        sample = self.curve.sample(np.array([0.0]), time_s)
        rotation = sample.bellows_frames[0] @ rotation_about_local_axis(0, self.piece_twists_rad(time_s)[0])
        return sample.position_m[0], rotation

    def trajectory_rad(self, duration_s: float, continuous: bool = False,
                       samples_per_module: int = 8) -> tuple[np.ndarray, np.ndarray]:
        """Times every time_step_s over [0, duration_s] and [K, n, 3] angles (ours, or the
        continuous method's with `continuous`)."""
        if not (math.isfinite(duration_s) and duration_s >= 0.0):
            raise GaitError(f'duration_s must be >= 0, got {duration_s}')
        times = np.arange(int(math.floor(duration_s / self.gait.time_step_s + 1e-9)) + 1) * self.gait.time_step_s
        compute = ((lambda t: self.continuous_angles_rad(t, samples_per_module)) if continuous
                   else self.angles_rad)
        return times, np.stack([compute(float(t)) for t in times])

    def continuous_angles_rad(self, time_s: float, samples_per_module: int = 8) -> np.ndarray:
        """The "existing" integration of §III-D1 (refs. [8], [32]): the complete-frame curvatures
        of Eq. (13) with the continuous twist, trapezoid-integrated with a fixed number of samples
        per module (8 is our choice; the paper does not say), and tau^C integrated for the twist."""
        if samples_per_module < 2:
            raise GaitError(f'samples_per_module must be >= 2, got {samples_per_module}')
        geometry = self.gait.geometry
        n, length_m = geometry.module_count, geometry.module_length_m
        local = np.linspace(0.0, length_m, samples_per_module)
        arc = (np.arange(n)[:, None] * length_m + local[None, :])
        sample = self.curve.sample(arc, time_s)
        twist = self.gait.twist.rolling_speed_rad_s(arc) * time_s
        kappa_a, kappa_b, _ = complete_curvatures_1_m(sample, twist, 0.0)
        lateral = np.trapezoid(kappa_a, local, axis=-1)
        dorsal = np.trapezoid(kappa_b, local, axis=-1)
        twist_joint = twist[:, -1] - twist[:, 0]  # integral of tau^C = d phi / ds over the module
        return np.stack([dorsal, twist_joint, lateral], -1)


def solve_bending_rad(integral_a: np.ndarray, integral_b: np.ndarray, twist_before_rad: np.ndarray,
                      twist_after_rad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dorsal and lateral angles whose axes e_b(before), e_a(after) best give the bending (a, b).

    Damped least squares x = (J^T J + D)^-1 J^T K with J = [e_b(before), e_a(after)]. The axes are
    unit vectors, so J^T J = [[1, c], [c, 1]] with c = sin(after - before): eigenvalues 1 + c and
    1 - c on (1, 1)/sqrt(2) and (1, -1)/sqrt(2), solved in closed form. D = 0 (x exact) while the
    smaller singular value sqrt(1 - |c|) exceeds SINGULAR_VALUE_THRESHOLD; below it the smaller
    eigenvalue gets up to MAX_DAMPING^2, as the axes become parallel (twist joint at +-pi/2).
    """
    sin_before, cos_before = np.sin(twist_before_rad), np.cos(twist_before_rad)
    sin_after, cos_after = np.sin(twist_after_rad), np.cos(twist_after_rad)
    along_dorsal = -sin_before * integral_a + cos_before * integral_b  # e_b(before) . K
    along_lateral = cos_after * integral_a + sin_after * integral_b  # e_a(after) . K
    overlap = cos_before * sin_after - sin_before * cos_after  # sin(after - before)
    closeness = np.clip(1.0 - (1.0 - np.abs(overlap)) / SINGULAR_VALUE_THRESHOLD ** 2, 0.0, 1.0)
    damping_sq = closeness * MAX_DAMPING ** 2
    eigen_plus = 1.0 + overlap + np.where(overlap < 0.0, damping_sq, 0.0)
    eigen_minus = 1.0 - overlap + np.where(overlap >= 0.0, damping_sq, 0.0)
    plus = (along_dorsal + along_lateral) / eigen_plus
    minus = (along_dorsal - along_lateral) / eigen_minus
    return 0.5 * (plus + minus), 0.5 * (plus - minus)


def chain_points_m(angles_rad: np.ndarray, head_position_m: np.ndarray, head_frame: np.ndarray,
                   geometry: TSnakeGeometry) -> tuple[np.ndarray, np.ndarray]:
    """Forward kinematics of the module chain: n + 2 backbone points (head tip, the n joint
    points, tail tip) and the n + 1 piece frames.

    The head piece starts at `head_position_m` with `head_frame` (columns e1, e_a, e_b); each
    module turns by Rot_b(dorsal) Rot_1(twist) Rot_a(lateral) at its middle, as in urdf/tsnake.urdf.
    """
    length_m = geometry.module_length_m
    position = np.asarray(head_position_m, dtype=float).copy()
    frame = np.asarray(head_frame, dtype=float).copy()
    points, frames = [position], [frame]
    for index, (dorsal, twist, lateral) in enumerate(np.asarray(angles_rad)):
        position = position + frame[:, 0] * (0.5 * length_m if index == 0 else length_m)
        points.append(position)
        frame = (frame @ rotation_about_local_axis(2, dorsal) @ rotation_about_local_axis(0, twist)
                 @ rotation_about_local_axis(1, lateral))
        frames.append(frame)
    points.append(position + frame[:, 0] * 0.5 * length_m)
    return np.array(points), np.array(frames)


def backbone_arc_lengths_m(geometry: TSnakeGeometry) -> np.ndarray:
    """Arc lengths of the points `chain_points_m` returns: 0, s_1 .. s_n, L."""
    return np.concatenate([[0.0], geometry.joint_arc_lengths_m, [geometry.body_length_m]])


def shape_error_m(generator: LtsJointGenerator, angles_rad: np.ndarray, time_s: float) -> float:
    """Largest distance between the chain's backbone points and the curve at the same arc
    lengths after the best rigid alignment (Kabsch): the robot's placement in the world is free,
    its shape is what the joint angles must reproduce."""
    head_position, head_frame = generator.head_frame(time_s)
    points, _ = chain_points_m(angles_rad, head_position, head_frame, generator.gait.geometry)
    target = generator.curve.sample(backbone_arc_lengths_m(generator.gait.geometry), time_s).position_m
    points_c, target_c = points - points.mean(0), target - target.mean(0)
    left, _, right_t = np.linalg.svd(points_c.T @ target_c)
    reflection = np.diag([1.0, 1.0, float(np.sign(np.linalg.det(left @ right_t)))])
    aligned = points_c @ (left @ reflection @ right_t)
    return float(np.max(np.linalg.norm(aligned - target_c, axis=-1)))


def with_time_step(gait: LtsGait, time_step_s: float) -> LtsGait:
    """The same gait sampled at another command period (the node's rate)."""
    return replace(gait, time_step_s=time_step_s).validated()
