"""COBRA stack bringup: gait + simulation (use_sim:=true) or gait + driver + odometry, + logger.

    ros2 launch cobra_bringup sidewind.launch.py use_sim:=true gait:=gait2
    ros2 launch cobra_bringup lts.launch.py lts_preset:=twisting       (T-Snake LTS, simulated)
    ros2 launch cobra_bringup tumble.launch.py                         (COBRA tumbling, 24 deg slope)

lts.launch.py and tumble.launch.py are links to this file: the launch file's own name picks its
argument defaults (cobra_bringup.node_set.LAUNCH_DEFAULTS; sidewind: robot cobra, gait gait1;
lts: robot tsnake, gait lts, lts_preset rolling, use_sim true; tumble: robot cobra, gait tumble,
slope_deg 24, use_sim true); everything else is the same.

The node set is defined once in cobra_bringup.node_set and shared with the pip-mode runner, and
so is the validation: arguments (unknown names, choices in any case, as the runner) and every
node's parameters against its own declarations (cobra_bringup.prestart) are checked before any
node starts. Bad input prints one `error:` line and exits 2 (SystemExit out of the launch
service: nothing has started yet). Every node is required: when one exits (other than a finished
simulation), or exits non-zero while stopping (a traceback, or killed by launch's SIGTERM or
SIGKILL escalation), the exit handler raises, which makes `ros2 launch` stop everything and
exit 1 (LaunchService.run returns 1 after an exception in an event handler; it has no other
way to return non-zero in Jazzy).

To include this file from another launch file, scope it so that only its own arguments reach
it (unknown launch configurations are refused):
    GroupAction([IncludeLaunchDescription(...)], forwarding=False,
                launch_configurations={'use_sim': 'true', ...})
"""

import signal
import sys
from functools import partial
from pathlib import Path

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, EmitEvent, OpaqueFunction, RegisterEventHandler
from launch.event_handlers import OnProcessExit
from launch.events import Shutdown
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from cobra_bringup.node_exit import exit_description
from cobra_bringup.node_set import (LAUNCH_ARGUMENTS, BringupError, check_argument_names,
                                    check_arguments, launch_arguments, node_set)
from cobra_bringup.prestart import validate_node_set
from cobra_common.errors import STARTUP_ERROR_EXIT_CODE

LAUNCH_FILE = Path(__file__).name  # sidewind.launch.py, lts.launch.py or tumble.launch.py
EXIT_BAD_ARGUMENTS = 2
# configurations `ros2 launch` itself sets (--launch-prefix, --launch-prefix-filter)
LAUNCH_SYSTEM_CONFIGURATIONS = ('launch-prefix', 'launch-prefix-filter')
ESCALATION_SIGNALS = {-signal.SIGTERM: 'SIGTERM', -signal.SIGKILL: 'SIGKILL'}


def on_node_exit(spec, event, context):
    """A required node exited: finish the run (a finished simulation) or fail it, naming the node.

    A node that could not start (exit 2: no serial port, no camera) has printed its own error
    line naming the fix; this names the node and points there. Every other node stops quietly
    with exit 0 on launch's SIGINT, even while still importing (cobra_common.node_entry).
    """
    code = event.returncode
    what = f"node '{spec.name}' ({spec.package}/{spec.executable})"
    if context.is_shutdown:
        if code == 0:
            return None
        if code == STARTUP_ERROR_EXIT_CODE:  # its start failed as the shutdown came
            raise RuntimeError(f'required {what} {exit_description(code, spec.package)}')
        how = (f'needed {ESCALATION_SIGNALS[code]} to stop' if code in ESCALATION_SIGNALS
               else f'exited with code {code} while stopping')
        raise RuntimeError(f'{what} {how}')
    if code == 0 and spec.ends_run:
        return [EmitEvent(event=Shutdown(reason=f'{spec.name} finished'))]
    raise RuntimeError(f'required {what} {exit_description(code, spec.package)}: stopping all nodes')


def checked_node_set(configurations, config_dir):
    """(arguments, validated node specs) from the launch configurations, or SystemExit(2)."""
    try:
        check_argument_names(name for name in configurations if name not in LAUNCH_SYSTEM_CONFIGURATIONS)
        arguments = check_arguments({a.name: configurations[a.name] for a in LAUNCH_ARGUMENTS
                                     if a.name in configurations}, LAUNCH_FILE)
        specs, _ = validate_node_set(node_set(arguments, config_dir, LAUNCH_FILE), arguments['namespace'])
    except BringupError as error:
        print(f'error: {error}', file=sys.stderr, flush=True)
        raise SystemExit(EXIT_BAD_ARGUMENTS) from None
    return arguments, specs


def launch_setup(context):
    config_dir = Path(FindPackageShare('cobra_bringup').perform(context)) / 'config'
    arguments, specs = checked_node_set(dict(context.launch_configurations), config_dir)
    actions = []
    for spec in specs:
        node = Node(
            package=spec.package, executable=spec.executable, name=spec.name,
            namespace=arguments['namespace'], output='screen',
            parameters=[*(str(path) for path in spec.params_files), spec.parameters],
            ros_arguments=['--log-level', arguments['log_level']])
        actions.append(node)
        actions.append(RegisterEventHandler(OnProcessExit(target_action=node,
                                                          on_exit=partial(on_node_exit, spec))))
    return actions


def generate_launch_description():
    return LaunchDescription([
        *(DeclareLaunchArgument(a.name, default_value=a.default, description=a.description + (
            f" ({' | '.join(a.choices)}, any case)" if a.choices else ''))
          for a in launch_arguments(LAUNCH_FILE)),
        OpaqueFunction(function=launch_setup),
    ])
