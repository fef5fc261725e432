"""Sidewinding bringup: gait + simulation (use_sim:=true) or gait + driver + odometry, + logger.

    ros2 launch cobra_bringup sidewind.launch.py use_sim:=true gait:=gait2

The node set is defined once in cobra_bringup.node_set and shared with the pip-mode runner.
"""

from pathlib import Path

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, EmitEvent, OpaqueFunction, RegisterEventHandler
from launch.event_handlers import OnProcessExit
from launch.events import Shutdown
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from cobra_bringup.node_set import LAUNCH_ARGUMENTS, node_set


def launch_setup(context):
    arguments = {a.name: LaunchConfiguration(a.name).perform(context) for a in LAUNCH_ARGUMENTS}
    config_dir = Path(FindPackageShare('cobra_bringup').perform(context)) / 'config'
    actions = []
    for spec in node_set(arguments, config_dir, 'sidewind.launch.py'):
        node = Node(
            package=spec.package, executable=spec.executable, name=spec.name,
            namespace=arguments['namespace'], output='screen',
            parameters=[*(str(path) for path in spec.params_files), spec.parameters],
            ros_arguments=['--log-level', arguments['log_level']])
        actions.append(node)
        # every node is required: when one exits, the whole bringup shuts down
        actions.append(RegisterEventHandler(OnProcessExit(
            target_action=node, on_exit=[EmitEvent(event=Shutdown(reason=f'{spec.name} exited'))])))
    return actions


def generate_launch_description():
    return LaunchDescription([
        *(DeclareLaunchArgument(a.name, default_value=a.default, description=a.description,
                                **({'choices': list(a.choices)} if a.choices else {}))
          for a in LAUNCH_ARGUMENTS),
        OpaqueFunction(function=launch_setup),
    ])
