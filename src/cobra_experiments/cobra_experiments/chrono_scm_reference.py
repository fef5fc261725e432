"""Our terrain rigs on Chrono's own SCMTerrain, to check our SCM port against the engine it ports.

Project Chrono is not installable from PyPI or Debian, so CI cannot run it. The tables below were
printed by scripts/reference/chrono_scm_rigs.py: SCMTerrain.cpp of github.com/projectchrono/chrono
(commit 7689fbc), built with Chrono's core library by scripts/reference/build_chrono_scm_rigs.sh,
running the protocols of `terrain_rigs` (run_wheel, run_link_hold, run_link_drag_across: loads
ramped in and held, the free motion integrated by hand from the soil force Chrono computes at the
start of each 1 ms step) at `validate_terrain --quick`'s set-ups. One deviation from a default
Chrono set-up, on purpose: the rays meet the bodies exactly (faceted surfaces, SCMTerrain's
reference ray cast; Bullet's default ray cast misses a convex shape by millimetres, see
scripts/reference/chrono_scm_rigs.cpp), so what is compared is the soil model, not a collision
library's tolerance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from cobra_experiments.wong_reece_reference import Agreement, WheelResults, compare
from cobra_soil import SoilParams
from cobra_soil.params import BulldozingParams

SOURCE = "Chrono's SCMTerrain (projectchrono/chrono 7689fbc), same wheel test"


@dataclass(frozen=True)
class ChronoWheelCase:
    """One soil: the wheel and how it was run, and per slip what Chrono's SCM gives."""

    name: str
    soil: SoilParams
    load_n: float
    radius_m: float
    width_m: float
    speed_m_s: float
    spacing_m: float
    results: WheelResults


# The wheel at slip -0.2..0.7 (`validate_terrain --quick`'s wheel runs: v 0.1 m/s, Δ 5 mm, bulldozing off).
CASES: tuple[ChronoWheelCase, ...] = (
    ChronoWheelCase('loose_sand',
                    SoilParams(50000.0, 25.0, 0.6, 25.0, 28.0, 0.04, 2500000.0, 5000.0),
                    58.86, 0.20, 0.12, 0.1, 0.005,
                    {-0.2: (0.0234409, -8.7928, -0.0220135),
                     0: (0.0233651, -2.35968, 1.25495),
                     0.05: (0.0233415, 1.38498, 1.99701),
                     0.1: (0.0233149, 2.8342, 2.28555),
                     0.2: (0.0232528, 7.99296, 3.30917),
                     0.3: (0.0231731, 13.048, 4.31174),
                     0.45: (0.0230013, 19.9061, 5.67206),
                     0.6: (0.0227083, 25.3156, 6.74839),
                     0.7: (0.0223609, 27.8692, 7.26468)}),
    ChronoWheelCase('lete_sand',
                    SoilParams(5301000.0, 102000.0, 0.79, 1300.0, 31.1, 0.01, 200000000.0, 30000.0),
                    1530.0, 0.20, 0.12, 0.1, 0.005,
                    {-0.2: (0.012285, -537.236, -76.3124),
                     0: (0.0122809, -108.661, 8.84649),
                     0.05: (0.0122795, 115.213, 53.3664),
                     0.1: (0.012278, 299.136, 89.9243),
                     0.2: (0.0122745, 572.29, 144.133),
                     0.3: (0.01227, 736.718, 176.675),
                     0.45: (0.0122602, 858.971, 200.752),
                     0.6: (0.0122433, 907.566, 210.264),
                     0.7: (0.0122224, 922.709, 213.249)}),
    ChronoWheelCase('clayey_soil',
                    SoilParams(692150.0, 13190.0, 0.5, 4140.0, 13.0, 0.01, 200000000.0, 30000.0),
                    760.0, 0.20, 0.12, 0.1, 0.005,
                    {-0.2: (0.0128947, -117.35, -4.1338),
                     0: (0.012882, -25.7117, 14.0441),
                     0.05: (0.012878, 22.8245, 23.6806),
                     0.1: (0.0128734, 61.9653, 31.4495),
                     0.2: (0.0128624, 122.915, 43.5226),
                     0.3: (0.0128485, 161.221, 51.0859),
                     0.45: (0.0128183, 191.699, 57.0718),
                     0.6: (0.0127661, 205.545, 59.7775),
                     0.7: (0.0127015, 210.537, 60.7644)}),
)

# Chrono's contact patch is every node whose ray meets the body (the rim up to 0.1 m above the soil,
# inside the active box the driver gives it, ±0.14 m along the travel): 56 x 24 nodes under this
# wheel, b = 2A/L = 2 (0.275 x 0.115) / (2 (0.275 + 0.115)) = 81.1 mm in k_c/b. Ours is the loaded
# nodes (cobra_soil README, "Deliberate differences"): 45-58 mm.
CHRONO_PATCH_B_M = 0.275 * 0.115 / (0.275 + 0.115)


# The COBRA link (0.464 kg, r 45 mm, half-length 68 mm, axis along x) on the thesis's loose sand, its
# own grid and bulldozing, as validate_terrain's hold and drag rows run it.
LINK_SOIL = CASES[0].soil
LINK_SPACING_M = 0.02
LINK_BULLDOZING = BulldozingParams(enabled=True, erosion_angle_deg=25.0, flow_factor=1.0, erosion_iterations=2,
                                   erosion_propagations=3)
LINK_HOLD_S = 4.0
# (side load / F_n tan φ, axis midway between node rows, bulldozing on) -> (moved at the end of the
# 2 s ramp m, moved at the end of the hold m, creep speed over its last 1 s m/s); across the axis.
LINK_HOLDS: dict[tuple[float, bool, bool], tuple[float, float, float]] = {
    (0.05, False, True): (0.00196641, 0.00301028, 0.000265425),
    (0.10, False, True): (0.00402921, 0.00610826, 0.000529662),
    (0.20, False, True): (0.00850019, 0.0126736, 0.00104305),
    (0.20, True, True): (0.0181948, 0.0233013, 0.00101885),
    (0.20, True, False): (0.00893117, 0.0130944, 0.00104184),
}
# Dragged across its axis at 1 cm/s for 0.1 m: mean and largest horizontal / vertical force over
# the last 40 % of the travel.
LINK_DRAG_RATIO = (0.159059, 0.214399)


def link_tables_apply(soil: SoilParams, spacing_m: float, bulldozing: BulldozingParams) -> bool:
    """Whether the link tables were run with this soil, grid and bulldozing."""
    return (soil == LINK_SOIL and math.isclose(spacing_m, LINK_SPACING_M)
            and replace(bulldozing, enabled=True) == LINK_BULLDOZING)


def case(name: str) -> ChronoWheelCase | None:
    return next((c for c in CASES if c.name == name), None)


def agreement(wheel: ChronoWheelCase, ours: Sequence[tuple[float, float, float, float]]) -> Agreement:
    """`ours`: (slip, sinkage m, drawbar pull N, torque N m) for every slip of the table."""
    return compare(wheel.results, {slip: tuple(values) for slip, *values in ours}, SOURCE)
