"""Geometric-mechanics motion predictor (the geometric-mechanics paper): Alg. 1 variational integrator, serpenoid gaits,
gait optimisation and eps calibration. Plain numpy/scipy, no ROS."""

from cobra_gaits.predictor.calibrate import EpsilonFit, calibrate_epsilon, track_rms_error_m
from cobra_gaits.predictor.curve import PredictorError, shapes_from_joint_angles, vertex_tangents
from cobra_gaits.predictor.dissipation import dissipation_tensors, geometric_momentum, step_energies
from cobra_gaits.predictor.integrator import PredictedMotion, integrate_motion
from cobra_gaits.predictor.optimise import (GaitModel, OptimisedGait, cost_of_transport, cycle_energy_j,
                                            gait_objective, optimise_gait, predict_cycle)
from cobra_gaits.predictor.serpenoid import EllipticGait, gait_coefficients, gait_shapes, serpenoid_shapes

__all__ = ['EllipticGait', 'EpsilonFit', 'GaitModel', 'OptimisedGait', 'PredictedMotion', 'PredictorError',
           'calibrate_epsilon', 'cost_of_transport', 'cycle_energy_j', 'dissipation_tensors', 'gait_coefficients',
           'gait_objective', 'gait_shapes', 'geometric_momentum', 'integrate_motion', 'optimise_gait',
           'predict_cycle', 'serpenoid_shapes', 'shapes_from_joint_angles', 'step_energies', 'track_rms_error_m',
           'vertex_tangents']
