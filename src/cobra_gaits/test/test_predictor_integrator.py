"""Alg. 1 of the geometric-mechanics paper (geometric predictor): equivariance, eps limits, convergence, energy, mu."""

from __future__ import annotations

import numpy as np
import pytest

from cobra_gaits.predictor.curve import PredictorError, embed_3d, vertex_tangents
from cobra_gaits.predictor.dissipation import dissipation_tensors, geometric_momentum, step_energies
from cobra_common.rotations import matrix_from_rotation_vector
from cobra_gaits.predictor.integrator import integrate_motion
from cobra_gaits.predictor.serpenoid import EllipticGait, gait_shapes, random_gaits

TRAVELLING_WAVE = EllipticGait(sigma=1.0, x_c=0.0, y_c=0.0, theta_rad=0.0, a=4.0, xi=1.0)
PAPER_EPSILON = 0.1865


def planar_rigid(points: np.ndarray, angle_rad: float, shift: tuple[float, float]) -> np.ndarray:
    c, s = np.cos(angle_rad), np.sin(angle_rad)
    return points @ np.array([[c, -s], [s, c]]).T + np.array(shift)


@pytest.mark.parametrize('mode', ['batched', 'sequential'])
def test_rigidly_moved_sequence_gives_the_same_motion_moved(mode: str) -> None:
    shapes = gait_shapes(EllipticGait(0.7, 0.8, -0.4, 0.3, 3.5, 0.9))
    original = integrate_motion(shapes, PAPER_EPSILON, mode=mode)
    moved = integrate_motion(planar_rigid(shapes, 2.1, (3.0, -7.5)), PAPER_EPSILON, mode=mode)
    np.testing.assert_allclose(moved.shapes_m, planar_rigid(original.shapes_m, 2.1, (3.0, -7.5)), atol=1e-9)
    assert moved.com_displacement_m == pytest.approx(original.com_displacement_m, abs=1e-9)
    assert moved.energy == pytest.approx(original.energy, rel=1e-9)
    assert original.com_displacement_m > 0.05  # the test moves something


def test_se3_is_equivariant_and_reproduces_the_planar_solve_on_planar_shapes() -> None:
    planar = gait_shapes(EllipticGait(0.5, 1.0, 0.5, -0.6, 3.0, 1.1))
    spatial = embed_3d(planar)
    rotation = matrix_from_rotation_vector(np.array([0.4, -1.1, 0.7]))
    shift = np.array([1.0, 2.0, -0.5])
    motion = integrate_motion(spatial, PAPER_EPSILON)
    moved = integrate_motion(spatial @ rotation.T + shift, PAPER_EPSILON, mode='sequential')
    np.testing.assert_allclose(moved.shapes_m, motion.shapes_m @ rotation.T + shift, atol=1e-8)


def test_se3_never_flips_a_planar_body_over() -> None:
    """Nearly straight or mirror-symmetric shapes fit their mirror image as well as themselves; the
    SE(3) initial guess must not turn the body upside down (another root of mu = 0)."""
    for gait in random_gaits(30, seed=2):
        planar = gait_shapes(gait)
        motion = integrate_motion(embed_3d(planar), PAPER_EPSILON)
        np.testing.assert_allclose(motion.shapes_m[..., 2], 0.0, atol=1e-12)
        np.testing.assert_allclose(motion.shapes_m[..., :2], integrate_motion(planar, PAPER_EPSILON).shapes_m, atol=1e-8)


def test_shapes_given_in_unrelated_frames_are_placed_the_same() -> None:
    shapes = gait_shapes(TRAVELLING_WAVE)
    rng = np.random.default_rng(3)
    scrambled = np.stack([planar_rigid(s, rng.uniform(-3, 3), tuple(rng.uniform(-5, 5, 2))) for s in shapes])
    scrambled[0] = shapes[0]
    reference = integrate_motion(shapes, PAPER_EPSILON)
    for mode in ('batched', 'sequential'):
        np.testing.assert_allclose(integrate_motion(scrambled, PAPER_EPSILON, mode=mode).shapes_m,
                                   reference.shapes_m, atol=1e-9)


@pytest.mark.parametrize('gait', random_gaits(6, seed=11) + [TRAVELLING_WAVE])
def test_isotropic_dissipation_gives_no_net_displacement_over_a_closed_gait(gait: EllipticGait) -> None:
    assert integrate_motion(gait_shapes(gait), 1.0).com_displacement_m < 1e-12
    assert integrate_motion(gait_shapes(gait), 1.0, mode='sequential').com_displacement_m < 1e-12


def test_anisotropy_makes_the_travelling_wave_move_and_more_so_when_tangents_slide_freely() -> None:
    shapes = gait_shapes(TRAVELLING_WAVE)
    displacements = [integrate_motion(shapes, eps).com_displacement_m for eps in (1.0, 0.5, PAPER_EPSILON, 0.01)]
    assert displacements[0] < 1e-12
    assert all(later > earlier for earlier, later in zip(displacements, displacements[1:]))
    # eps -> 0: the body slides along its own track, about one wavelength (1 / xi body lengths) per cycle
    assert displacements[-1] == pytest.approx(1.0, abs=0.1)


def normal_share_of_displacement(eps: float) -> float:
    motion = integrate_motion(gait_shapes(TRAVELLING_WAVE), eps)
    displacement = np.diff(motion.shapes_m, axis=0)
    tangents = vertex_tangents(motion.shapes_m)
    mean_tangent = tangents[:-1] + tangents[1:]
    mean_tangent /= np.linalg.norm(mean_tangent, axis=-1, keepdims=True)
    along = np.sum(displacement * mean_tangent, axis=-1)
    normal = displacement - along[..., None] * mean_tangent
    return float(np.sum(normal**2) / np.sum(displacement**2))


def test_small_epsilon_moves_every_vertex_along_its_tangent() -> None:
    assert normal_share_of_displacement(1e-3) < 0.005
    assert normal_share_of_displacement(1.0) > 0.5
    assert normal_share_of_displacement(1e-3) < normal_share_of_displacement(1e-2) < normal_share_of_displacement(0.3)


@pytest.mark.parametrize('epsilon', [0.01, PAPER_EPSILON, 0.6, 1.0])
def test_solve_converges_on_the_paper_gait_family_with_mu_zero(epsilon: float) -> None:
    for gait in random_gaits(25, seed=5):
        shapes = gait_shapes(gait)
        motion = integrate_motion(shapes, epsilon)
        assert motion.newton_iterations <= 10
        weights = motion.weights
        momentum = geometric_momentum(motion.shapes_m[:-1], motion.shapes_m[1:], weights[:-1], weights[1:], epsilon)
        assert np.max(np.abs(momentum)) < 1e-12
        sequential = integrate_motion(shapes, epsilon, mode='sequential')
        np.testing.assert_allclose(sequential.shapes_m, motion.shapes_m, atol=1e-9)


def test_energy_is_nonnegative_and_the_solution_minimises_each_step() -> None:
    rng = np.random.default_rng(8)
    for gait in random_gaits(10, seed=9):
        motion = integrate_motion(gait_shapes(gait), PAPER_EPSILON)
        assert np.all(motion.step_energies >= 0.0)
        for step in (3, 17, 40):
            pair = motion.shapes_m[step:step + 2].copy()
            best = step_energies(pair, motion.weights[step:step + 2], PAPER_EPSILON)[0]
            for _ in range(5):
                pair[1] = planar_rigid(motion.shapes_m[step + 1], rng.normal(0, 1e-3), tuple(rng.normal(0, 1e-3, 2)))
                assert step_energies(pair, motion.weights[step:step + 2], PAPER_EPSILON)[0] > best


def test_dissipation_tensors_are_positive_definite_and_anisotropic() -> None:
    shapes = gait_shapes(TRAVELLING_WAVE)[:3]
    tensors = dissipation_tensors(shapes, np.full((3, 12), 0.5), 0.2)
    eigenvalues = np.linalg.eigvalsh(tensors)
    np.testing.assert_allclose(eigenvalues[..., 0], 0.5 * 0.2)  # along the tangent: w eps
    np.testing.assert_allclose(eigenvalues[..., 1], 0.5)  # across: w


def test_momentum_is_the_rigid_gradient_of_the_step_energy() -> None:
    """mu_rot = -dE/d(omega) and mu_tran = -1/2 dE/dv for rigid variations of the next shape (Eq. 6)."""
    rng = np.random.default_rng(2)
    pair = embed_3d(gait_shapes(EllipticGait(0.4, 1.0, 0.5, 0.2, 3.0, 1.2))[10:12])
    pair[1] += rng.normal(0, 0.02, pair[1].shape)  # off the solution, so the gradient is not zero
    weights = rng.uniform(0.5, 1.5, (2, 12))
    momentum = geometric_momentum(pair[0], pair[1], weights[0], weights[1], 0.3)
    step = 1e-6
    gradient = np.empty(6)
    for axis in range(6):
        probe = np.zeros(6)
        probe[axis] = step
        energies = []
        for sign in (1.0, -1.0):
            moved = pair.copy()
            moved[1] = pair[1] @ matrix_from_rotation_vector(sign * probe[:3]).T + sign * probe[3:]
            energies.append(step_energies(moved, weights, 0.3)[0])
        gradient[axis] = (energies[0] - energies[1]) / (2 * step)
    np.testing.assert_allclose(momentum[:3], -gradient[:3], rtol=1e-5, atol=1e-10)
    np.testing.assert_allclose(momentum[3:], -0.5 * gradient[3:], rtol=1e-5, atol=1e-10)


def test_lifted_vertices_carry_no_weight_so_their_motion_does_not_push_the_body() -> None:
    shapes = gait_shapes(TRAVELLING_WAVE)
    weights = np.ones(12)
    weights[9:] = 0.0  # tail lifted: vertices 9, 10, 11
    motion = integrate_motion(shapes, PAPER_EPSILON, weights)
    wiggled = shapes.copy()
    wiggled[:, 10:] += np.random.default_rng(4).normal(0, 0.05, wiggled[:, 10:].shape)  # lifted tail waves freely
    other = integrate_motion(wiggled, PAPER_EPSILON, weights)
    np.testing.assert_allclose(other.shapes_m[:, :10], motion.shapes_m[:, :10], atol=1e-9)
    grounded = integrate_motion(wiggled, PAPER_EPSILON, np.ones(12))
    assert np.max(np.abs(grounded.shapes_m[:, :10] - motion.shapes_m[:, :10])) > 1e-3


@pytest.mark.parametrize('bad, message', [
    (dict(epsilon=0.0), 'epsilon must be > 0'),
    (dict(epsilon=float('nan')), 'epsilon must be > 0'),
    (dict(shapes_m=np.zeros((5, 12))), 'shapes must be an array'),
    (dict(shapes_m=np.full((3, 4, 2), np.nan)), 'NaN or inf'),
    (dict(weights=-np.ones(12)), 'weights must be finite and >= 0'),
    (dict(weights=np.zeros(12)), 'at least one weight > 0'),
    (dict(weights=np.ones(11)), 'weights must have shape'),
    (dict(mode='fast'), "mode must be 'batched' or 'sequential'"),
])
def test_bad_input_is_refused_with_a_message_naming_it(bad: dict, message: str) -> None:
    arguments = dict(shapes_m=gait_shapes(TRAVELLING_WAVE), epsilon=0.2, weights=None, mode='batched')
    arguments.update(bad)
    with pytest.raises(PredictorError, match=message):
        integrate_motion(**arguments)


def test_se3_solve_converges_on_spatial_shapes_to_mu_zero() -> None:
    planar = gait_shapes(EllipticGait(0.8, 0.5, -0.5, 0.3, 4.0, 1.0))
    phase = np.linspace(0.0, 2.0 * np.pi, len(planar))[:, None]
    spatial = embed_3d(planar)
    spatial[..., 2] = 0.05 * np.sin(3.0 * np.pi * np.linspace(0, 1, 12)[None, :] + phase)  # a vertical wave
    weights = np.linspace(0.5, 1.5, 12)
    motion = integrate_motion(spatial, PAPER_EPSILON, weights)
    table = motion.weights
    momentum = geometric_momentum(motion.shapes_m[:-1], motion.shapes_m[1:], table[:-1], table[1:], PAPER_EPSILON)
    assert np.max(np.abs(momentum)) < 1e-9
    assert motion.newton_iterations <= 10
    np.testing.assert_allclose(integrate_motion(spatial, PAPER_EPSILON, weights, mode='sequential').shapes_m,
                               motion.shapes_m, atol=1e-8)
