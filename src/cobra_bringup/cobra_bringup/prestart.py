"""Pre-start validation: every node's own parameter declarations, before any process starts.

For each node of the set, a bare rclpy node with the node's name and exactly the ROS arguments
it will be started with (namespace, parameter files, -p overrides) runs the node module's
`declare_parameters(node)`: the nodes' descriptors are the one source of truth for types and
ranges, and the parameter files are parsed by rcl itself. Any refusal becomes one BringupError
line naming the node, the parameter, the value and what is allowed. Both front ends (the
pip-mode runner and the launch file) call `validate_node_set`.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from cobra_bringup.node_set import BringupError, NodeSpec

IGNORED_OVERRIDE_PREFIXES = ('qos_overrides.',)  # declared by rclpy only for publishers that opt in


def format_parameter(value: object) -> str:
    """A -p value whose YAML type matches the declared parameter type (strings stay strings)."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        import yaml
        try:
            plain = yaml.safe_load(value) == value
        except yaml.YAMLError:
            plain = False
        if not plain:  # '', 'off', 'yes', '5', 'a: b' would not arrive as that string
            return "'" + value.replace("'", "''") + "'"
    return str(value)


def node_ros_arguments(spec: NodeSpec, namespace: str) -> list[str]:
    """The node's ROS arguments after `--ros-args` (no log level: it does not change parameters)."""
    words = ['-r', f'__node:={spec.name}']
    if namespace.strip('/'):
        words += ['-r', f'__ns:=/{namespace.strip("/")}']
    for path in spec.params_files:
        words += ['--params-file', str(path)]
    for name, value in spec.parameters.items():
        words += ['-p', f'{name}:={format_parameter(value)}']
    return words


def check_namespace(namespace: str) -> None:
    """rcl's own namespace rules, with the position of the first bad character."""
    if not namespace.strip('/'):
        return
    from rclpy.exceptions import InvalidNamespaceException
    from rclpy.validate_namespace import validate_namespace
    try:
        validate_namespace('/' + namespace.strip('/'))
    except InvalidNamespaceException as error:
        reason = str(error).splitlines()[0]
        raise BringupError(f"namespace:={namespace} is not a valid ROS namespace ({reason}): use "
                           "words of letters, digits and '_' separated by '/', not starting with "
                           'a digit, e.g. namespace:=cobra') from None


@contextmanager
def _loopback_context(domain_id: int | None) -> Iterator[Any]:
    """An rclpy context of its own, on loopback, in the run's domain, without signal handlers."""
    import rclpy
    from rclpy.signals import SignalHandlerOptions
    saved = os.environ.get('ROS_AUTOMATIC_DISCOVERY_RANGE')
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'  # read once, at init
    context = rclpy.Context()
    try:
        rclpy.init(args=[], context=context, domain_id=domain_id,
                   signal_handler_options=SignalHandlerOptions.NO)
    finally:
        if saved is None:
            os.environ.pop('ROS_AUTOMATIC_DISCOVERY_RANGE', None)
        else:
            os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = saved
    try:
        yield context
    finally:
        context.try_shutdown()


def _declare_on_bare_node(spec: NodeSpec, ros_arguments: list[str], context: Any,
                          declare_parameters: Callable[[Any], dict[str, Any]]
                          ) -> tuple[dict[str, Any], set[str], set[str]]:
    """(values, declared names, override names) of a bare node named like the spec's node."""
    from rclpy.exceptions import ParameterException
    from rclpy.node import Node

    from cobra_common.ros_entry import StartupError
    try:
        node = Node(spec.name, context=context, cli_args=['--ros-args', *ros_arguments],
                    use_global_arguments=False, enable_rosout=False, start_parameter_services=False)
    except Exception as error:  # rcl refuses the arguments: a malformed parameter file, mostly
        files = ', '.join(word for word, flag in zip(ros_arguments[1:], ros_arguments)
                          if flag == '--params-file')
        raise BringupError(f'{spec.name}: rcl refuses its ROS arguments (parameter files {files}): '
                           f'{str(error).splitlines()[0]}') from None
    try:
        values = declare_parameters(node)
        return values, set(node._parameters), set(node._parameter_overrides)
    except ParameterException as error:  # a node declaring without ros_entry.declare
        raise StartupError(str(error).splitlines()[0]) from None
    finally:
        node.destroy_node()


def launch_argument_hint(spec: NodeSpec, message: str) -> str:
    """The launch argument behind the parameter the message is about: of the node parameters that
    came from a launch argument, the one named first ('terrain_file for terrain:=scm: ...' is
    about terrain_file:=, not terrain:=); '' when none."""
    found = [(match.start(), argument) for parameter, argument in spec.arguments.items()
             for match in [re.search(rf'(?<![\w.]){re.escape(parameter)}(?!\w)', message)] if match]
    return f'{min(found)[1]}:=' if found else ''


def _bringup_error(spec: NodeSpec, error: Exception, where: str = '') -> BringupError:
    message = str(error)
    message = message if message.startswith(f'{spec.name}:') else f'{spec.name}: {message}'
    hint = launch_argument_hint(spec, message.removeprefix(f'{spec.name}:'))
    return BringupError(message + where + (f' (set by the launch argument {hint})' if hint else ''))


def _declared_values(spec: NodeSpec, namespace: str, context: Any
                     ) -> tuple[dict[str, Any], set[str], set[str]]:
    """(values, declared names, override names) of one node; BringupError on any refusal.

    Each parameter file is also declared against on its own: when two files set one parameter
    with different types, rcl silently keeps the first file's value (`rate_hz: fast` in a
    params_file was ignored), so a wrong type shows only when the file is applied alone.
    """
    from cobra_common.ros_entry import ParameterValueError, StartupError
    module_name = f'{spec.package}.{spec.executable}'
    declare_parameters = getattr(importlib.import_module(module_name), 'declare_parameters', None)
    if declare_parameters is None:
        raise BringupError(f'{module_name} has no declare_parameters(node): cannot check '
                           f'{spec.name} before starting it')
    arguments = node_ros_arguments(spec, namespace)
    try:
        result = _declare_on_bare_node(spec, arguments, context, declare_parameters)
    except StartupError as error:
        raise _bringup_error(spec, error) from None
    if len(spec.params_files) > 1:
        for path in spec.params_files:
            try:
                _declare_on_bare_node(spec, [*arguments[:2], '--params-file', str(path)], context,
                                      declare_parameters)
            except ParameterValueError as error:
                raise _bringup_error(spec, error, f' in {path}') from None
            except StartupError:
                pass  # a combination judged on this file alone; the full set above is what runs
    return result


KNOWN_NODE_NAMES = ('logger', 'gait_node', 'sim_node', 'joint_driver', 'odometry', 'state_publisher',
                    'path_forecast', 'dem_node', 'navigate_node')  # every mode's


def section_pattern(key: str) -> re.Pattern[str]:
    """rcl's rule for a parameter file's node key: '/**' any tokens, '*' one token, else literal."""
    parts = []
    for token in key.strip('/').split('/'):
        parts.append('(/[^/]+)*' if token == '**' else '/[^/]+' if token == '*' else '/' + re.escape(token))
    return re.compile(''.join(parts))


def check_params_file_sections(path: Path, node_names: Sequence[str], namespace: str) -> None:
    """Every node section of a parameter file must reach a node of this run, or of another mode.

    rcl matches a key such as 'gait_node' against the node's full name '/gait_node' only: with
    namespace:=cobra the node is '/cobra/gait_node' and the whole section is silently ignored
    (a namespaced gait then commanded all zeros). Such a key is refused here, with the fix.
    """
    import yaml
    try:
        document = yaml.safe_load(path.read_text(encoding='utf-8')) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return  # rcl and the gait library name what is wrong with the file itself
    if not isinstance(document, dict):
        return
    prefix = '/' + namespace.strip('/') if namespace.strip('/') else ''
    for key in document:
        pattern = section_pattern(str(key))
        if any(pattern.fullmatch(f'{prefix}/{name}') for name in node_names):
            continue
        last = str(key).strip('/').split('/')[-1]
        if last in KNOWN_NODE_NAMES and last not in node_names:
            continue  # a section for a node of the other mode (sim / hardware)
        fix = (f"write '/**/{last}' (any namespace) or '{prefix}/{last}'" if last in KNOWN_NODE_NAMES
               else f"node names here: {', '.join(KNOWN_NODE_NAMES)}")
        raise BringupError(f"{path}: section '{key}' reaches no node of this run "
                           f"(its nodes are {', '.join(f'{prefix}/{n}' for n in node_names)}): {fix}")


def check_urdf(spec: NodeSpec, urdf_path: str) -> None:
    """A node's own URDF (urdf_path: robot:=tsnake, or set in its parameter files) loads as a robot model."""
    from cobra_description.robot_model import RobotModelError, load_robot_model
    try:
        load_robot_model(urdf_path)
    except RobotModelError as error:
        raise BringupError(f"{spec.name}: {' '.join(str(error).split())}") from None


def check_gait_source(values: dict[str, Any]) -> None:
    """What the gait node builds from its parameters after declaring them: the CSV it replays,
    and no joint driven faster than its URDF velocity limit."""
    from cobra_description.robot_model import RobotModelError, load_robot_model
    from cobra_gaits.gait_source import make_gait_source
    from cobra_gaits.sidewinding import GaitError
    try:
        make_gait_source(values, load_robot_model(values['urdf_path'] or None).gait_joints())
    except (GaitError, RobotModelError) as error:
        raise BringupError(f'gait_node: {error}') from None


def validate_node_set(specs: Sequence[NodeSpec], namespace: str,
                      domain_id: int | None = None) -> tuple[list[NodeSpec], dict[str, dict[str, Any]]]:
    """(the specs, linked, and every node's declared parameter values by node name).

    Links: the sim's lockstep boundaries follow the gait's rate (command_period_s = 1/rate_hz).
    Refuses a parameter set in a node's own section of a parameter file that no node of the set
    declares (a typo would be ignored silently by ROS).
    """
    check_namespace(namespace)
    specs = list(specs)
    for path in dict.fromkeys(path for spec in specs for path in spec.params_files):
        check_params_file_sections(path, [spec.name for spec in specs], namespace)
    values_by_node: dict[str, dict[str, Any]] = {}
    unknown_by_node: dict[str, set[str]] = {}
    all_declared: set[str] = set()
    with _loopback_context(domain_id) as context:
        for index, spec in enumerate(specs):
            if spec.executable == 'sim_node' and 'rate_hz' in values_by_node.get('gait_node', {}):
                spec = specs[index] = replace(spec, parameters={
                    **spec.parameters, 'command_period_s': 1.0 / values_by_node['gait_node']['rate_hz']})
            values, declared, overrides = _declared_values(spec, namespace, context)
            if spec.executable == 'gait_node':
                check_gait_source(values)
            elif values.get('urdf_path'):
                check_urdf(spec, values['urdf_path'])
            values_by_node[spec.name] = values
            all_declared |= declared
            unknown_by_node[spec.name] = {name for name in overrides - declared
                                          if not name.startswith(IGNORED_OVERRIDE_PREFIXES)}
    for name, unknown in unknown_by_node.items():
        typos = sorted(unknown - all_declared)  # a wildcard section may set another node's parameter
        if typos:
            raise BringupError(f"{name}: unknown parameter(s) {', '.join(typos)} in its parameter "
                               f'files: check the spelling (ros2 param list shows the known ones)')
    return specs, values_by_node
