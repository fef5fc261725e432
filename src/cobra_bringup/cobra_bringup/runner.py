"""Pip-mode launcher: `run sidewind.launch.py use_sim:=true gait:=gait2`.

Where ROS 2 comes from PyPI there is no `ros2 launch`. This runner reads the same arguments,
takes the node set from `node_set` (as the launch file does), starts each node as its own
process through its installed entry point with `--ros-args` and the same parameter files,
forwards SIGINT/SIGTERM, and stops everything when a node dies, exiting non-zero with its name.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cobra_gaits.presets import CSV_GAIT, load_gait_parameters, preset_params

from cobra_bringup.node_set import (LAUNCH_ARGUMENTS, LAUNCH_FILES, BringupError, NodeSpec,
                                    node_set, parse_arguments)

STOP_TIMEOUT_S = 10.0
POLL_PERIOD_S = 0.1
EXIT_NODE_FAILED = 1
EXIT_BAD_ARGUMENTS = 2


def package_prefix(package: str) -> Path:
    from ament_index_python.packages import PackageNotFoundError, get_package_prefix
    try:
        return Path(get_package_prefix(package))
    except (PackageNotFoundError, OSError, ValueError):
        raise BringupError(f"package '{package}' is not installed: build the workspace "
                           f"(scripts/setup.sh) and source install/setup.bash") from None


def config_directory() -> Path:
    return package_prefix('cobra_bringup') / 'share' / 'cobra_bringup' / 'config'


def format_parameter(value: object) -> str:
    """A -p value whose YAML type matches the declared parameter type."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, float):
        return repr(value)
    return str(value)


def command_line(spec: NodeSpec, namespace: str, log_level: str) -> list[str]:
    executable = package_prefix(spec.package) / 'lib' / spec.package / spec.executable
    if not os.access(executable, os.X_OK):
        raise BringupError(f'{spec.package}/{spec.executable} is not installed ({executable}); '
                           f'build the workspace with scripts/setup.sh')
    words = [str(executable), '--ros-args', '-r', f'__node:={spec.name}', '--log-level', log_level]
    if namespace:
        words += ['-r', f'__ns:=/{namespace.strip("/")}']
    for path in spec.params_files:
        words += ['--params-file', str(path)]
    for name, value in spec.parameters.items():
        words += ['-p', f'{name}:={format_parameter(value)}']
    return words


@dataclass
class RunningNode:
    spec: NodeSpec
    process: subprocess.Popen


def _restore_default_signals() -> None:
    # a background child of a non-interactive shell inherits SIGINT as ignored
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def simulation_environment() -> dict[str, str]:
    """Simulation stays on loopback in its own ROS domain (the one in the environment, if set)."""
    environment = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST')
    environment.setdefault('ROS_DOMAIN_ID', str(1 + os.getpid() % 100))
    return environment


class Runner:
    def __init__(self, specs: list[NodeSpec], namespace: str, log_level: str,
                 environment: dict[str, str] | None = None) -> None:
        self.commands = [(spec, command_line(spec, namespace, log_level)) for spec in specs]
        self.environment = environment
        self.nodes: list[RunningNode] = []
        self._stop_requested: int | None = None

    def _request_stop(self, signum: int, frame: object) -> None:
        self._stop_requested = signum

    def run(self) -> int:
        signal.signal(signal.SIGINT, self._request_stop)
        signal.signal(signal.SIGTERM, self._request_stop)
        if self.environment is not None:
            print(f"[run] ROS_DOMAIN_ID={self.environment['ROS_DOMAIN_ID']}, discovery on localhost only",
                  flush=True)
        for spec, words in self.commands:
            print(f'[run] starting {spec.package}/{spec.executable} as {spec.name}', flush=True)
            self.nodes.append(RunningNode(spec, subprocess.Popen(
                words, env=self.environment, preexec_fn=_restore_default_signals)))
        try:
            return self._supervise()
        finally:
            self._stop_all()

    def _supervise(self) -> int:
        while True:
            if self._stop_requested is not None:
                print(f'[run] {signal.Signals(self._stop_requested).name}: stopping all nodes', flush=True)
                return 0
            for node in self.nodes:
                code = node.process.poll()
                if code is None:
                    continue
                if code == 0 and node.spec.ends_run:
                    print(f'[run] {node.spec.name} finished: stopping the other nodes', flush=True)
                    return 0
                print(f"[run] required node '{node.spec.name}' ({node.spec.package}/{node.spec.executable}) "
                      f'exited with code {code}: stopping all nodes', file=sys.stderr, flush=True)
                return EXIT_NODE_FAILED
            time.sleep(POLL_PERIOD_S)

    def _stop_all(self) -> None:
        """SIGINT in reverse start order (the logger, started first, stops last), then escalate."""
        for node in reversed(self.nodes):
            if node.process.poll() is None:
                node.process.send_signal(signal.SIGINT)
            self._wait(node)

    @staticmethod
    def _wait(node: RunningNode) -> None:
        for escalation in (signal.SIGTERM, signal.SIGKILL):
            try:
                node.process.wait(timeout=STOP_TIMEOUT_S)
                return
            except subprocess.TimeoutExpired:
                print(f'[run] {node.spec.name} did not stop: sending {escalation.name}', file=sys.stderr)
                node.process.send_signal(escalation)
        node.process.wait()


def print_summary(bag_path: Path, gait: str) -> None:
    from cobra_bringup.run_summary import format_summary, summarize
    try:
        frequency = None if gait == CSV_GAIT else preset_params(
            load_gait_parameters(config_directory() / 'gait.yaml'), gait).frequency_hz
        print(format_summary(summarize(bag_path, frequency)), flush=True)
    except (ValueError, OSError) as error:
        print(f'[run] no summary from {bag_path}: {error}', file=sys.stderr)


def usage() -> str:
    lines = [f'usage: run {{{",".join(LAUNCH_FILES)}}} [name:=value ...]', '', 'arguments:']
    for argument in LAUNCH_ARGUMENTS:
        choices = f" ({' | '.join(argument.choices)})" if argument.choices else ''
        lines.append(f'  {argument.name}:={argument.default or "<empty>"}{choices}\n      {argument.description}')
    return '\n'.join(lines)


def main(argv: list[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if not words or words[0] in ('-h', '--help'):
        print(usage())
        return 0 if words else EXIT_BAD_ARGUMENTS
    launch_file, *arguments = words
    try:
        if Path(launch_file).name not in LAUNCH_FILES:
            raise BringupError(f"unknown launch file '{launch_file}': choose one of {', '.join(LAUNCH_FILES)}")
        values = parse_arguments(arguments)
        specs = node_set(values, config_directory(), Path(launch_file).name)
        simulated = any(spec.package == 'cobra_sim' for spec in specs)
        runner = Runner(specs, values['namespace'], values['log_level'],
                        simulation_environment() if simulated else None)
    except BringupError as error:
        print(f'error: {error}', file=sys.stderr)
        return EXIT_BAD_ARGUMENTS
    code = runner.run()
    logger = next((spec for spec in specs if spec.package == 'cobra_logger'), None)
    if code == 0 and logger is not None:
        print_summary(Path(str(logger.parameters['bag_path'])), values['gait'])
    return code


if __name__ == '__main__':
    raise SystemExit(main())
