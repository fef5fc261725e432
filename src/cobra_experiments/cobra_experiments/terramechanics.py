"""Closed-form terramechanics from the literature: the references `validate_terrain` checks SCM against.

Written from the textbook laws (Bekker, Janosi-Hanamoto, Wong-Reece), independently of `cobra_soil`
(no shared code, no fitted constants), so that agreement means something. Units are SI throughout.
Which laws, and which b: the package README, "cobra_experiments.terramechanics".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

# Wong & Reece (1967) as summarised in Wong, *Theory of Ground Vehicles*: theta_m = (c1 + c2 i) theta_1.
WONG_REECE_C1 = 0.4
WONG_REECE_C2 = 0.15
_GAUSS_POINTS = 64
_GAUSS_X, _GAUSS_W = np.polynomial.legendre.leggauss(_GAUSS_POINTS)


class TerramechanicsError(ValueError):
    """A closed form was asked for outside its domain (names the quantity and the fix)."""


@dataclass(frozen=True)
class BekkerSoil:
    """Bekker-Wong pressure-sinkage and Mohr-Coulomb/Janosi shear parameters of one soil."""

    kc_pa_m_n1: float          # cohesive modulus k_c [N/m^(n+1)]
    kphi_pa_m_n: float         # frictional modulus k_phi [N/m^(n+2)]
    n: float                   # sinkage exponent [-]
    cohesion_pa: float         # c [Pa]
    friction_deg: float        # phi [deg]
    janosi_k_m: float          # shear deformation modulus k [m]

    def __post_init__(self) -> None:
        if not (self.n > 0 and self.kc_pa_m_n1 >= 0 and self.kphi_pa_m_n >= 0 and self.cohesion_pa >= 0
                and 0 <= self.friction_deg < 90 and self.janosi_k_m > 0
                and self.kc_pa_m_n1 + self.kphi_pa_m_n > 0):
            raise TerramechanicsError(f'soil {self}: need n > 0, k_c, k_phi, c >= 0 (not both moduli 0), '
                                      f'0 <= phi < 90 deg and k > 0')

    @classmethod
    def from_scm(cls, soil: object) -> BekkerSoil:
        """From a `cobra_soil.SoilParams` (its field names; elastic K and damping R have no place here)."""
        return cls(kc_pa_m_n1=soil.bekker_kc_pa_m_n1, kphi_pa_m_n=soil.bekker_kphi_pa_m_n, n=soil.bekker_n,
                   cohesion_pa=soil.mohr_cohesion_pa, friction_deg=soil.mohr_friction_deg,
                   janosi_k_m=soil.janosi_shear_m)

    @property
    def tan_phi(self) -> float:
        return math.tan(math.radians(self.friction_deg))

    def modulus(self, b_m: float) -> float:
        """k_c / b + k_phi [Pa/m^n] for a contact of Bekker width b."""
        if not b_m > 0:
            raise TerramechanicsError(f'b = {b_m} m: the contact width must be > 0')
        return self.kc_pa_m_n1 / b_m + self.kphi_pa_m_n


# ------------------------------------------------------------------------------------ plates

def bekker_pressure_pa(soil: BekkerSoil, sinkage_m: float | np.ndarray, b_m: float) -> float | np.ndarray:
    """Bekker's plate pressure at a sinkage (0 above the surface)."""
    return soil.modulus(b_m) * np.maximum(sinkage_m, 0.0) ** soil.n


def bekker_plate_sinkage_m(soil: BekkerSoil, pressure_pa: float, b_m: float) -> float:
    """The sinkage at which a plate of width b carries the pressure (inverse of the Bekker law)."""
    if pressure_pa < 0:
        raise TerramechanicsError(f'pressure {pressure_pa} Pa: must be >= 0')
    return (pressure_pa / soil.modulus(b_m)) ** (1.0 / soil.n)


def shear_strength_pa(soil: BekkerSoil, normal_pressure_pa: float | np.ndarray) -> float | np.ndarray:
    """Mohr-Coulomb limit c + sigma tan(phi)."""
    return soil.cohesion_pa + normal_pressure_pa * soil.tan_phi


def janosi_fraction(shear_displacement_m: float | np.ndarray, k_m: float) -> float | np.ndarray:
    """Janosi-Hanamoto: the fraction 1 - exp(-j/k) of the shear strength mobilised at displacement j."""
    return 1.0 - np.exp(-np.abs(shear_displacement_m) / k_m)


def janosi_rest_displacement_m(load_fraction: float, k_m: float) -> float:
    """Where a contact under a constant tangential load F = f F_max comes to rest: j* = -k ln(1 - f)."""
    if not 0 <= load_fraction < 1:
        raise TerramechanicsError(f'load fraction {load_fraction}: must be in [0, 1) (at or above 1 it never stops)')
    return -k_m * math.log1p(-load_fraction)


def plate_drag_fraction(travel_m: float, length_m: float, k_m: float) -> float:
    """Mobilised fraction of (c A + W tan phi) for a plate dragged a distance s along its length L.

    Soil under the plate from the start has slid s; soil met at the leading edge has slid
    uniformly 0..s (Wong's integration of Janosi over the contact length):
    (L - s)/L (1 - e^(-s/k)) + (s - k (1 - e^(-s/k)))/L, for 0 <= s <= L.
    """
    if not 0 <= travel_m <= length_m:
        raise TerramechanicsError(f'travel {travel_m} m: must be within the plate length 0..{length_m} m')
    mobilised = 1.0 - math.exp(-travel_m / k_m)
    return (length_m - travel_m) / length_m * mobilised + (travel_m - k_m * mobilised) / length_m


def plate_rest_displacement_m(load_fraction: float, length_m: float, k_m: float) -> float:
    """Where a contact of length L along the load (uniform pressure) comes to rest under F = f F_max:
    the travel s at which `plate_drag_fraction(s, L, k)` reaches f (soil met at the leading edge is
    unsheared, so a short contact travels beyond j*); needs s <= L."""
    if not 0 <= load_fraction < 1:
        raise TerramechanicsError(f'load fraction {load_fraction}: must be in [0, 1)')
    if load_fraction == 0:
        return 0.0
    if plate_drag_fraction(length_m, length_m, k_m) < load_fraction:
        raise TerramechanicsError(f'load fraction {load_fraction}: a {length_m} m contact does not hold it within its '
                                  f'own length (the closed form covers travel up to L)')
    return brentq(lambda s: plate_drag_fraction(s, length_m, k_m) - load_fraction, 0.0, length_m, xtol=1e-12)


# ------------------------------------------------------------------------- rigid wheel, Bekker

def bekker_wheel_sinkage_m(soil: BekkerSoil, load_n: float, radius_m: float, width_m: float,
                           bekker_b_m: float | None = None) -> float:
    """Bekker's towed rigid wheel: z0 = [3W / ((3 - n)(k_c + b k_phi) sqrt(D))]^(2/(2n+1)), D = 2r.

    Derived with the front half of the rim loaded as a plate at the same depth, the contact
    length approximated by sqrt(D z); valid for z << D and n < 3. Bekker's b is the wheel width;
    `bekker_b_m` puts another b in k_c/b (the loaded width stays `width_m`).
    """
    if not (load_n > 0 and radius_m > 0 and width_m > 0 and soil.n < 3):
        raise TerramechanicsError(f'load {load_n} N, radius {radius_m} m, width {width_m} m, n {soil.n}: '
                                  f'need positive load and dimensions and n < 3')
    k_total = width_m * soil.modulus(width_m if bekker_b_m is None else bekker_b_m)
    base = 3.0 * load_n / ((3.0 - soil.n) * k_total * math.sqrt(2.0 * radius_m))
    return base ** (2.0 / (2.0 * soil.n + 1.0))


def _gauss(a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on [a, b]."""
    half = 0.5 * (b - a)
    return 0.5 * (a + b) + half * _GAUSS_X, half * _GAUSS_W


def _entry_angle_rad(sinkage_m: float, radius_m: float) -> float:
    if not 0 < sinkage_m < radius_m:
        raise TerramechanicsError(f'sinkage {sinkage_m} m: must be in (0, r = {radius_m} m)')
    return math.acos(1.0 - sinkage_m / radius_m)


def front_half_load_n(soil: BekkerSoil, sinkage_m: float, radius_m: float, width_m: float,
                      bekker_b_m: float | None = None) -> float:
    """Load carried by the front half of a rim sunk z, Bekker pressure at each depth, no shear (the
    exact integral behind Bekker's z0): W = r b k ∫_0^θ1 r^n (cos θ - cos θ1)^n cos θ dθ."""
    theta1 = _entry_angle_rad(sinkage_m, radius_m)
    theta, weight = _gauss(0.0, theta1)
    depth = radius_m * (np.cos(theta) - math.cos(theta1))
    b = width_m if bekker_b_m is None else bekker_b_m
    return float(radius_m * width_m * np.sum(weight * bekker_pressure_pa(soil, depth, b) * np.cos(theta)))


def resting_wheel_load_n(soil: BekkerSoil, sinkage_m: float, radius_m: float, width_m: float,
                         bekker_b_m: float | None = None) -> float:
    """Load carried by a wheel pressed straight down to sinkage z (both halves of the arc loaded)."""
    return 2.0 * front_half_load_n(soil, sinkage_m, radius_m, width_m, bekker_b_m)


def _solve_sinkage(load_of_sinkage, load_n: float, radius_m: float, what: str) -> float:
    low = 1e-9 * radius_m
    high = radius_m * (1.0 - 1e-9)
    if load_of_sinkage(high) < load_n:
        raise TerramechanicsError(f'{what}: the soil cannot carry {load_n} N before the axle sinks to the '
                                  f'surface (r = {radius_m} m); lower the load or use a larger wheel')
    return brentq(lambda z: load_of_sinkage(z) - load_n, low, high, xtol=1e-12, rtol=1e-12)


def front_half_sinkage_m(soil: BekkerSoil, load_n: float, radius_m: float, width_m: float,
                         bekker_b_m: float | None = None) -> float:
    """Towed-wheel sinkage from the exact front-half integral (Bekker's z0 without its approximations)."""
    return _solve_sinkage(lambda z: front_half_load_n(soil, z, radius_m, width_m, bekker_b_m), load_n, radius_m,
                          'front-half sinkage')


def resting_wheel_sinkage_m(soil: BekkerSoil, load_n: float, radius_m: float, width_m: float,
                            bekker_b_m: float | None = None) -> float:
    """Sinkage of a wheel pressed straight down by a load (symmetric contact, Bekker pressure)."""
    return _solve_sinkage(lambda z: resting_wheel_load_n(soil, z, radius_m, width_m, bekker_b_m), load_n,
                          radius_m, 'resting-wheel sinkage')


# ------------------------------------------------------------------- rigid wheel, Wong-Reece

@dataclass(frozen=True)
class WheelForces:
    """Wong-Reece result for one sinkage and slip (SI units; DP > 0 pulls the wheel forward)."""

    slip: float
    sinkage_m: float
    entry_angle_rad: float
    max_stress_angle_rad: float
    load_n: float
    drawbar_pull_n: float
    torque_nm: float
    thrust_n: float                  # r b ∫ τ cos θ dθ: the shear's forward part
    compaction_resistance_n: float   # r b ∫ σ sin θ dθ: the normal stress's backward part (DP = thrust - this)


def wong_reece_forces(soil: BekkerSoil, sinkage_m: float, slip: float, radius_m: float, width_m: float,
                      c1: float = WONG_REECE_C1, c2: float = WONG_REECE_C2, exit_angle_rad: float = 0.0,
                      bekker_b_m: float | None = None) -> WheelForces:
    """Load, drawbar pull and driving torque of a rigid wheel at a sinkage and slip (Wong & Reece 1967).

    Slip i = 1 - v/(r ω). Front (θm ≤ θ ≤ θ1): σ = k rⁿ (cos θ - cos θ1)ⁿ; rear (θ2 ≤ θ < θm): the front
    law at the mapped angle θ1 - (θ - θ2)(θ1 - θm)/(θm - θ2). j(θ) = r[(θ1 - θ) - (1 - i)(sin θ1 - sin θ)];
    τ = (c + σ tan φ)(1 - e^(-|j|/k)) with the sign of j (in skid, i < 0, the rear of the arc shears
    backwards: the same kinematics, no separate skid law). W = r b ∫ (σ cos θ + τ sin θ) dθ,
    DP = r b ∫ (τ cos θ - σ sin θ) dθ, T = r² b ∫ τ dθ over θ2..θ1. b is the wheel width (Bekker's b);
    `bekker_b_m` puts another b in k_c/b (the loaded width stays `width_m`).
    """
    theta1 = _entry_angle_rad(sinkage_m, radius_m)
    theta2 = exit_angle_rad
    if not 0.0 <= theta2 < theta1:
        raise TerramechanicsError(f'exit angle {theta2} rad: must be in [0, θ1 = {theta1:.4f} rad)')
    if not -1.0 < slip <= 1.0:
        raise TerramechanicsError(f'slip {slip}: must be in (-1, 1]')
    theta_m = min(max((c1 + c2 * slip) * theta1, theta2), theta1)
    k_modulus = soil.modulus(width_m if bekker_b_m is None else bekker_b_m)
    r = radius_m

    def stresses(theta: np.ndarray, front: bool) -> tuple[np.ndarray, np.ndarray]:
        if front:
            equivalent = theta
        else:
            equivalent = theta1 - (theta - theta2) * (theta1 - theta_m) / (theta_m - theta2)
        sigma = k_modulus * (r * np.maximum(np.cos(equivalent) - math.cos(theta1), 0.0)) ** soil.n
        j = r * ((theta1 - theta) - (1.0 - slip) * (math.sin(theta1) - np.sin(theta)))
        tau = np.sign(j) * shear_strength_pa(soil, sigma) * janosi_fraction(j, soil.janosi_k_m)
        return sigma, tau

    load = 0.0
    thrust = 0.0
    compaction = 0.0
    torque = 0.0
    for a, b, front in ((theta_m, theta1, True), (theta2, theta_m, False)):
        if b - a <= 0.0:
            continue
        theta, weight = _gauss(a, b)
        sigma, tau = stresses(theta, front)
        load += float(np.sum(weight * (sigma * np.cos(theta) + tau * np.sin(theta))))
        thrust += float(np.sum(weight * tau * np.cos(theta)))
        compaction += float(np.sum(weight * sigma * np.sin(theta)))
        torque += float(np.sum(weight * tau))
    return WheelForces(slip=slip, sinkage_m=sinkage_m, entry_angle_rad=theta1, max_stress_angle_rad=theta_m,
                       load_n=r * width_m * load, drawbar_pull_n=r * width_m * (thrust - compaction),
                       torque_nm=r * r * width_m * torque, thrust_n=r * width_m * thrust,
                       compaction_resistance_n=r * width_m * compaction)


def wong_reece_at_load(soil: BekkerSoil, load_n: float, slip: float, radius_m: float, width_m: float,
                       c1: float = WONG_REECE_C1, c2: float = WONG_REECE_C2,
                       bekker_b_m: float | None = None) -> WheelForces:
    """Wong-Reece with the sinkage solved so the wheel carries `load_n` at this slip."""
    sinkage = _solve_sinkage(
        lambda z: wong_reece_forces(soil, z, slip, radius_m, width_m, c1, c2, bekker_b_m=bekker_b_m).load_n,
        load_n, radius_m, f'Wong-Reece sinkage at slip {slip}')
    return wong_reece_forces(soil, sinkage, slip, radius_m, width_m, c1, c2, bekker_b_m=bekker_b_m)


def zero_drawbar_slip(soil: BekkerSoil, load_n: float, radius_m: float, width_m: float,
                      c1: float = WONG_REECE_C1, c2: float = WONG_REECE_C2,
                      slip_range: tuple[float, float] = (-0.5, 0.95)) -> float:
    """The slip at which the Wong-Reece drawbar pull is zero (self-propelled wheel), at `load_n`."""
    def pull(slip: float) -> float:
        return wong_reece_at_load(soil, load_n, slip, radius_m, width_m, c1, c2).drawbar_pull_n

    low, high = slip_range
    if pull(low) > 0 or pull(high) < 0:
        raise TerramechanicsError(f'drawbar pull does not change sign for slip in [{low}, {high}] at {load_n} N')
    return brentq(pull, low, high, xtol=1e-7)


# ------------------------------------------- rigid wheel, pressure on ground-fixed soil columns

def ground_column_wheel_forces(soil: BekkerSoil, sinkage_m: float, slip: float, radius_m: float, width_m: float,
                               speed_m_s: float, damping_r_pa_s_m: float = 0.0, elastic_k_pa_m: float = math.inf,
                               pressure_along_normal: bool = False, bekker_b_m: float | None = None,
                               points: int = 4001) -> WheelForces:
    """A rigid wheel rolling at slip i over soil that is a bed of vertical columns fixed in the ground
    (the picture Chrono's SCM discretises), per unit of horizontal area: each column pressed under
    the front of the rim at min(K d, Bekker's plate pressure) for its depth d, springing back along
    the elastic K behind the bottom (none with K = inf), plus a viscous R v_z for the rim's vertical
    speed (Chrono's damping R); its shear is Janosi's strength on the column's own horizontal slip path.

    The rim point over a column at angle θ (from the bottom, + ahead) moves horizontally at
    u = v - ω r cos θ (ω r = v / (1 - i)) and down at ω r sin θ; the column meets the rim at θ1 and
    sees θ fall as the axle advances (dt = r cos θ dθ / v), so j(θ) = ∫_θ^θ1 |u| r cos θ' / v dθ',
    and the shear τ = (c + σ tan φ)(1 - e^(-j/k)) acts against u. Behind the bottom a column keeps the
    plastic depth z - σ0/K it reached under it, so σ = σ0 - K r (1 - cos θ) down to θ2 where that is 0.
    Per horizontal area dA = b r cos θ dθ: the vertical force σ dA; the horizontal one τ dA, and with
    `pressure_along_normal` also -σ tan θ dA (the radial pressure's backward part; without rebound it
    is Bekker's compaction resistance b k z^(n+1)/(n+1)). W = ∫ σ dA, DP = ∫ (τ - σ tan θ) dA,
    driving torque T = ∫ (τ r cos θ + σ r sin θ) dA (radial pressure: no moment about the axle), over
    θ2..θ1. Trapezoid rule on `points` angles ahead of the bottom (j is a running integral).
    """
    if not speed_m_s > 0:
        raise TerramechanicsError(f'speed {speed_m_s} m/s: must be > 0 (the shear path is per metre travelled)')
    if not -1.0 < slip < 1.0:
        raise TerramechanicsError(f'slip {slip}: must be in (-1, 1) (at 1 the wheel spins in place)')
    if not elastic_k_pa_m > 0:
        raise TerramechanicsError(f'elastic K {elastic_k_pa_m} Pa/m: must be > 0 (inf: no rebound)')
    theta1 = _entry_angle_rad(sinkage_m, radius_m)
    r = radius_m
    b = width_m if bekker_b_m is None else bekker_b_m

    def pressed(depth: np.ndarray) -> np.ndarray:   # first loading: elastic until the yield curve
        bekker = bekker_pressure_pa(soil, depth, b)
        return bekker if math.isinf(elastic_k_pa_m) else np.minimum(elastic_k_pa_m * depth, bekker)

    bottom_pa = float(pressed(np.array(sinkage_m)))
    rebound = bottom_pa / (elastic_k_pa_m * r)                  # 1 - cos θ2
    theta = np.linspace(0.0, theta1, points)
    if rebound > 0:
        theta2 = -math.acos(max(1.0 - rebound, -1.0))
        theta = np.concatenate([np.linspace(theta2, 0.0, max(2, int(points * -theta2 / theta1)))[:-1], theta])
    cos_t = np.cos(theta)
    depth = r * (cos_t - math.cos(theta1))
    sigma = pressed(depth)
    if rebound > 0:
        sigma = np.where(theta >= 0.0, sigma, bottom_pa - elastic_k_pa_m * r * (1.0 - cos_t))
    rim_speed = speed_m_s / (1.0 - slip)
    sigma = np.maximum(sigma + damping_r_pa_s_m * rim_speed * np.sin(theta), 0.0)
    u = speed_m_s - rim_speed * cos_t
    path = np.abs(u) * r * cos_t / speed_m_s                   # dj/dθ
    j = np.concatenate([[0.0], np.cumsum(0.5 * (path[1:] + path[:-1]) * np.diff(theta))])
    j = j[-1] - j                                               # from the entry at θ1 down to θ
    tau = -np.sign(u) * shear_strength_pa(soil, sigma) * janosi_fraction(j, soil.janosi_k_m)
    area = width_m * r * cos_t                                  # dA / dθ

    def integral(values: np.ndarray) -> float:
        return float(np.trapezoid(values, theta))

    load = integral(sigma * area)
    thrust = integral(tau * area)
    compaction = integral(sigma * np.tan(theta) * area) if pressure_along_normal else 0.0
    pressure_moment = 0.0 if pressure_along_normal else integral(sigma * r * np.sin(theta) * area)
    torque = integral(tau * r * cos_t * area) + pressure_moment
    return WheelForces(slip=slip, sinkage_m=sinkage_m, entry_angle_rad=theta1, max_stress_angle_rad=0.0,
                       load_n=load, drawbar_pull_n=thrust - compaction, torque_nm=torque, thrust_n=thrust,
                       compaction_resistance_n=compaction)


def ground_column_wheel_at_load(soil: BekkerSoil, load_n: float, slip: float, radius_m: float, width_m: float,
                                speed_m_s: float, damping_r_pa_s_m: float = 0.0, elastic_k_pa_m: float = math.inf,
                                pressure_along_normal: bool = False,
                                bekker_b_m: float | None = None) -> WheelForces:
    """`ground_column_wheel_forces` with the sinkage solved so the wheel carries `load_n`."""
    def forces(z: float) -> WheelForces:
        return ground_column_wheel_forces(soil, z, slip, radius_m, width_m, speed_m_s, damping_r_pa_s_m,
                                          elastic_k_pa_m, pressure_along_normal, bekker_b_m)

    return forces(_solve_sinkage(lambda z: forces(z).load_n, load_n, radius_m,
                                 f'ground-column wheel sinkage at slip {slip}'))


# ------------------------------------------------------- rolling on a viscoelastic foundation

@dataclass(frozen=True)
class FoundationRolling:
    """A rigid cylinder rolling on a Kelvin–Voigt Winkler foundation (`kelvin_voigt_rolling`)."""

    load_n: float                 # vertical force of the ground on the wheel
    resisting_moment_n_m: float   # moment of that pressure about the axle, against the rolling
    entry_angle_rad: float        # front edge of the contact (from the bottom, + ahead)
    rear_angle_rad: float         # where the pressure falls to zero behind the bottom (< 0)


def kelvin_voigt_rolling(radius_m: float, width_m: float, sinkage_m: float, speed_m_s: float,
                         stiffness_pa_m: float, damping_pa_s_m: float) -> FoundationRolling:
    """Steady rolling of a rigid cylinder (radius R, width b) whose bottom is `sinkage_m` below a
    Winkler foundation with per-area stiffness k and damping c that pushes but never pulls
    (p = [k u + c u̇]₊, the classical viscoelastic-foundation model of rolling resistance). The
    ground under the rim at angle φ from the bottom (+ ahead) is pressed u = δ − R (1 − cos φ)
    at the rate u̇ = v sin φ; the surface is the undeformed plane (no memory). The pressure acts
    vertically. Then W = b R ∫ p dφ and M = b R² ∫ p sin φ dφ over [φ_r, φ_1], φ_1 = acos(1 − δ/R)
    and φ_r < 0 the root of p behind the bottom; both integrals are in closed form."""
    r, b, d, v, k, c = radius_m, width_m, sinkage_m, speed_m_s, stiffness_pa_m, damping_pa_s_m
    if not (r > 0 and b > 0 and 0 < d < r and v >= 0 and k > 0 and c >= 0):
        raise TerramechanicsError('kelvin_voigt_rolling: need R > 0, b > 0, 0 < sinkage < R, v >= 0, k > 0, c >= 0')
    entry = math.acos(1.0 - d / r)

    def pressure(phi: float) -> float:
        return k * (d - r + r * math.cos(phi)) + c * v * math.sin(phi)

    rear = -entry if c * v == 0.0 else brentq(pressure, -entry, 0.0, xtol=1e-14)

    def load_integral(phi: float) -> float:        # ∫ p dφ
        return k * (d - r) * phi + k * r * math.sin(phi) - c * v * math.cos(phi)

    def moment_integral(phi: float) -> float:      # ∫ p sin φ dφ
        return (-k * (d - r) * math.cos(phi) + 0.5 * k * r * math.sin(phi) ** 2
                + c * v * (0.5 * phi - 0.25 * math.sin(2.0 * phi)))

    return FoundationRolling(load_n=b * r * (load_integral(entry) - load_integral(rear)),
                             resisting_moment_n_m=b * r * r * (moment_integral(entry) - moment_integral(rear)),
                             entry_angle_rad=entry, rear_angle_rad=rear)
