"""The state publisher's parameters as one typed table (cobra_common.config_check, as every node's);
no rclpy. Only the /tf rate limit changes at run time."""

from __future__ import annotations

from cobra_common.config_check import Setting, by_name

PARAMETERS: tuple[Setting, ...] = (
    Setting('urdf_path', '', "robot URDF; '' = the installed COBRA (cobra_description)"),
    Setting('frame_prefix', '', "prefix of every frame id this node publishes ('cobra/' -> cobra/base_link, "
            "cobra/odom), as the sim and odometry nodes; '' = none"),
    Setting('publish_period_s', 0.02, '/tf messages of one source (joint_states with one joint set, odom) at most '
            'one per this slot of header stamps [s] (0.02 = 50 Hz); 0 = every message', 0.0, 10.0),
    Setting('publish_odom_transform', True,
            'publish odom -> base_link on /tf from the odom topic (off when another node does)'),
    Setting('publish_robot_model', True, 'publish robot_description, /tf_static and the joints on /tf (off where '
            'robot_state_publisher does it, leaving this node the odom transform)'),
)
PARAMETER_BY_NAME = by_name(PARAMETERS)
RUNTIME_PARAMETERS = frozenset({'publish_period_s'})
