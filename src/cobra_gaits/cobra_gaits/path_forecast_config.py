"""The path_forecast node's parameters as one typed table (cobra_common.config_check, as every
node's); no rclpy. All are read-only: the forecast's resolution is fixed at start."""

from __future__ import annotations

from cobra_common.config_check import Setting, by_name
from cobra_gaits.predictor.contact import DEFAULT_CONTACT_BAND_M

PARAMETERS: tuple[Setting, ...] = (
    Setting('gait_node', 'gait_node',
            "the gait node whose parameters are forecast (relative names resolve in this node's namespace)"),
    Setting('cycles', 3, 'gait cycles forecast', 1, 20, integer=True),
    Setting('steps_per_cycle', 50, 'predictor shapes per gait cycle (poses per cycle in the path)', 8, 200,
            integer=True),
    Setting('epsilon', 1.0, 'anisotropy eps of the predictor (1 = isotropic friction, rigid ground; fit one from '
            'a bag with cobra_gaits.predictor.calibrate_bag)', 1e-3, 1.0),
    Setting('contact_band_m', DEFAULT_CONTACT_BAND_M,
            'a module within this height of the support plane touches the ground [m]', 1e-3, 0.1),
    Setting('republish_period_s', 2.0,
            'republish from the current odom pose this often [s]; 0 = only when the gait changes', 0.0, 60.0),
    Setting('urdf_path', '', 'robot URDF; empty = installed cobra_description'),
    Setting('frame_prefix', '', "prefix of the path's frame id (as the sim's / odometry's)"),
)
PARAMETER_BY_NAME = by_name(PARAMETERS)
RUNTIME_PARAMETERS: frozenset[str] = frozenset()  # all read-only
