"""Move-to-start rate limiter (no bus): bounded speed until a live command is reached, then unlimited."""

import math

import numpy as np

from cobra_driver.move_to_start import MoveToStart

PERIOD_S = 0.002


def run(limiter: MoveToStart, target_at, seconds: float, commanded: bool = True) -> np.ndarray:  # type: ignore[no-untyped-def]
    return np.array([limiter.limit(np.asarray(target_at(k * PERIOD_S), dtype=float), k * PERIOD_S, commanded)
                     for k in range(round(seconds / PERIOD_S))])


def test_a_far_command_is_reached_at_the_bound_then_followed() -> None:
    limiter = MoveToStart(2, speed_rad_s=0.5)
    limiter.start(np.array([-0.8, 0.1]))
    out = run(limiter, lambda t: [0.0, 0.1 + 0.05 * t], 2.0)
    speed = np.abs(np.diff(out, axis=0)) / PERIOD_S
    assert speed[:, 0].max() <= 0.5 + 1e-9
    assert abs(out[-1, 0]) < 1e-9 and not limiter.active  # reached after 1.6 s, then follows exactly
    assert out[-1, 1] == 0.1 + 0.05 * (len(out) - 1) * PERIOD_S


def test_a_hold_never_ends_the_phase() -> None:
    limiter = MoveToStart(1, speed_rad_s=0.5)
    limiter.start(np.array([0.3]))
    run(limiter, lambda t: [0.3], 0.5, commanded=False)  # holding where it stands: no command yet
    assert limiter.active
    out = run(limiter, lambda t: [0.8], 0.5)
    assert np.abs(np.diff(out[:, 0])).max() <= 0.5 * PERIOD_S + 1e-9


def test_a_trajectory_faster_than_the_bound_is_joined_where_it_crosses() -> None:
    limiter = MoveToStart(1, speed_rad_s=0.5)
    limiter.start(np.array([-0.8]))
    out = run(limiter, lambda t: [0.5 * math.sin(2 * math.pi * 0.4 * t)], 3.0)  # peaks at 1.26 rad/s
    assert not limiter.active  # not chasing it for ever at 0.5 rad/s
    joined = int(np.argmax(np.abs(np.diff(out[:, 0])) > 0.5 * PERIOD_S + 1e-9))
    assert joined > 0 and abs(out[joined, 0] - 0.5 * math.sin(2 * math.pi * 0.4 * joined * PERIOD_S)) < 0.003


def test_one_rejoining_joint_is_limited_alone() -> None:
    limiter = MoveToStart(2, speed_rad_s=0.5)
    limiter.start(np.zeros(2))
    run(limiter, lambda t: [0.0, 0.0], 0.01)
    assert not limiter.active
    limiter.start_joint(1, 0.6)
    out = run(limiter, lambda t: [0.2 * t, 0.0], 0.2)
    assert np.allclose(out[:, 0], 0.2 * np.arange(len(out)) * PERIOD_S)  # the other follows as commanded
    assert np.abs(np.diff(out[:, 1])).max() <= 0.5 * PERIOD_S + 1e-9 and limiter.active
