"""Pip-mode launcher: `run sidewind.launch.py use_sim:=true gait:=gait2` (or lts.launch.py,
tumble.launch.py; `python -m cobra_bringup.runner ...` is the same).

Where ROS 2 comes from PyPI there is no `ros2 launch`. This runner reads the same arguments,
takes the node set from `node_set` (as the launch file does), starts each node as its own
process through its installed entry point with `--ros-args` and the same parameter files,
forwards SIGINT/SIGTERM, and stops everything when a node dies, exiting non-zero with its name.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cobra_common.errors import STARTUP_ERROR_EXIT_CODE
from cobra_common.ros_domain import DomainClaim, claim_domain_id
from cobra_gaits.presets import CMD_VEL_GAIT, CSV_GAIT, LTS_GAIT, TUMBLE_GAIT

from cobra_bringup.node_exit import exit_description
from cobra_bringup.node_set import (LAUNCH_DEFAULTS, LAUNCH_FILES, BringupError, NodeSpec,
                                    launch_arguments, node_set, parse_arguments)
from cobra_bringup.prestart import format_parameter, node_ros_arguments, validate_node_set

__all__ = ['format_parameter', 'main', 'Runner']

STOP_TIMEOUT_S = 10.0
POLL_PERIOD_S = 0.1
EXIT_NODE_FAILED = 1
EXIT_BAD_ARGUMENTS = 2


def package_prefix(package: str) -> Path:
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_prefix
    except ImportError:  # a Python without ROS 2: install/setup.bash sourced, the venv not activated
        raise BringupError(f'this Python ({sys.executable}) has no ROS 2 (ament_index_python): run the runner with '
                           'the venv scripts/setup.sh made, .venv/bin/python -m cobra_bringup.runner ..., or '
                           'source .venv/bin/activate first') from None
    try:
        return Path(get_package_prefix(package))
    except (PackageNotFoundError, OSError, ValueError):
        raise BringupError(f"package '{package}' is not installed: build the workspace "
                           f"(scripts/setup.sh) and source install/setup.bash") from None


def config_directory() -> Path:
    return package_prefix('cobra_bringup') / 'share' / 'cobra_bringup' / 'config'


def command_line(spec: NodeSpec, namespace: str, log_level: str) -> list[str]:
    executable = package_prefix(spec.package) / 'lib' / spec.package / spec.executable
    if not os.access(executable, os.X_OK):
        raise BringupError(f'{spec.package}/{spec.executable} is not installed ({executable}); '
                           f'build the workspace with scripts/setup.sh')
    ros_arguments = node_ros_arguments(spec, namespace)  # the very arguments prestart validated
    # run by this interpreter, not the script's shebang: that names the venv by the absolute path
    # it had when the workspace was built, which a moved or mounted checkout no longer has
    return [sys.executable, str(executable), '--ros-args', *ros_arguments[:2], '--log-level', log_level,
            *ros_arguments[2:]]


@dataclass
class RunningNode:
    spec: NodeSpec
    process: subprocess.Popen
    signals_sent: list[signal.Signals] = field(default_factory=list)
    reported: bool = False  # its own exit ended the run, and was said so

    def send(self, signum: signal.Signals) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signum)
            self.signals_sent.append(signum)

    @property
    def escalated(self) -> bool:
        """It had to be sent a harder signal than the first to stop."""
        return len(self.signals_sent) > 1


def _restore_default_signals() -> None:
    # a background child of a non-interactive shell inherits SIGINT as ignored
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _block_stop_signals_until_entry() -> None:
    """For a node's installed entry point: SIGINT and SIGTERM blocked (the mask survives exec)
    until cobra_common.node_entry has installed its handlers and unblocks them, so a stop sent in
    the interpreter's first milliseconds waits there instead of raising in Python's startup."""
    _restore_default_signals()
    signal.pthread_sigmask(signal.SIG_BLOCK, (signal.SIGINT, signal.SIGTERM))



def simulation_environment() -> tuple[dict[str, str], DomainClaim | None]:
    """Simulation stays on loopback in its own ROS domain: the one in the environment if set,
    otherwise one claimed with the tests' file lock (held until the claim is released)."""
    environment = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST')
    if environment.get('ROS_DOMAIN_ID'):
        return environment, None
    try:
        claim = claim_domain_id()
    except RuntimeError as error:
        raise BringupError(str(error)) from None
    environment['ROS_DOMAIN_ID'] = str(claim.domain_id)
    return environment, claim


class Runner:
    """Starts the nodes, supervises them, stops them in reverse order.

    Exit code: 0 when the run ended normally (Ctrl-C, a finished simulation) and every node
    stopped on its first signal with code 0; EXIT_NODE_FAILED naming the node when one died,
    exited non-zero while stopping, or needed SIGTERM/SIGKILL. A second Ctrl-C sends SIGTERM to
    every node still running at once, a third SIGKILL.
    """

    def __init__(self, specs: list[NodeSpec], namespace: str, log_level: str,
                 environment: dict[str, str] | None = None, stop_timeout_s: float = STOP_TIMEOUT_S,
                 commands: list[list[str]] | None = None) -> None:
        self.commands = list(zip(specs, commands if commands is not None else
                                 [command_line(spec, namespace, log_level) for spec in specs]))
        # the installed entry points unblock the stop signals themselves; other commands (tests'
        # stand-ins) get them as a shell would give them
        self.start_child = _restore_default_signals if commands is not None else _block_stop_signals_until_entry
        self.environment = environment
        self.stop_timeout_s = stop_timeout_s
        self.nodes: list[RunningNode] = []
        self._signals_received: list[int] = []
        self._signals_handled = 0

    def _on_signal(self, signum: int, frame: object) -> None:
        self._signals_received.append(signum)

    def run(self) -> int:
        signal.signal(signal.SIGINT, self._on_signal)
        signal.signal(signal.SIGTERM, self._on_signal)
        if self.environment is not None:
            print(f"[run] ROS_DOMAIN_ID={self.environment['ROS_DOMAIN_ID']}, discovery on localhost only",
                  flush=True)
        try:
            for spec, words in self.commands:
                if self._signals_received:
                    break
                print(f'[run] starting {spec.package}/{spec.executable} as {spec.name}', flush=True)
                self.nodes.append(RunningNode(spec, subprocess.Popen(
                    words, env=self.environment, preexec_fn=self.start_child)))
            code = self._supervise()
        finally:
            stop_code = self._stop_all()
        return code or stop_code

    def _supervise(self) -> int:
        while True:
            if self._signals_received:
                self._signals_handled = 1
                print(f'[run] {signal.Signals(self._signals_received[0]).name}: stopping all nodes '
                      f'(again: SIGTERM at once)', flush=True)
                return 0
            for node in self.nodes:
                code = node.process.poll()
                if code is None:
                    continue
                if code == 0 and node.spec.ends_run:
                    print(f'[run] {node.spec.name} finished: stopping the other nodes', flush=True)
                    return 0
                print(f"[run] error: required node '{node.spec.name}' ({node.spec.package}/{node.spec.executable}) "
                      f'{exit_description(code, node.spec.package)}: stopping all nodes',
                      file=sys.stderr, flush=True)
                node.reported = True
                return EXIT_NODE_FAILED
            time.sleep(POLL_PERIOD_S)

    def _user_escalation(self) -> None:
        """Each further Ctrl-C: SIGTERM, then SIGKILL, to every node still running, at once."""
        while self._signals_handled < len(self._signals_received):
            self._signals_handled += 1
            harder = signal.SIGTERM if self._signals_handled == 2 else signal.SIGKILL
            running = [node for node in self.nodes if node.process.poll() is None]
            if running:
                print(f'[run] {signal.Signals(self._signals_received[self._signals_handled - 1]).name} '
                      f"again: sending {harder.name} to {', '.join(n.spec.name for n in running)} now",
                      file=sys.stderr, flush=True)
            for node in running:
                node.send(harder)

    def _stop_all(self) -> int:
        """SIGINT in reverse start order (the logger, started first, stops last), escalating to
        SIGTERM and SIGKILL after stop_timeout_s each; then judge how each node ended."""
        for node in reversed(self.nodes):
            if node.process.poll() is None and not node.signals_sent:
                node.send(signal.SIGINT)
            for harder in (signal.SIGTERM, signal.SIGKILL, None):
                deadline = time.monotonic() + self.stop_timeout_s
                while node.process.poll() is None and time.monotonic() < deadline:
                    self._user_escalation()
                    time.sleep(POLL_PERIOD_S)
                if node.process.poll() is not None or harder is None:
                    break
                print(f'[run] {node.spec.name} did not stop within {self.stop_timeout_s:g} s of '
                      f'{node.signals_sent[-1].name}: sending {harder.name}', file=sys.stderr, flush=True)
                node.send(harder)
            node.process.wait()
        failed = False
        for node in self.nodes:
            if node.reported:
                continue
            if not node.signals_sent and node.process.returncode != 0:  # it ended before its stop signal
                print(f"[run] error: required node '{node.spec.name}' ({node.spec.package}/{node.spec.executable}) "
                      f'{exit_description(node.process.returncode, node.spec.package)}',
                      file=sys.stderr, flush=True)
                failed = True
            elif node.escalated:
                print(f"[run] error: node '{node.spec.name}' needed {node.signals_sent[-1].name} to stop "
                      f'(exit code {node.process.returncode})', file=sys.stderr, flush=True)
                failed = True
            elif node.process.returncode == STARTUP_ERROR_EXIT_CODE:  # its start failed as the stop came
                print(f"[run] error: required node '{node.spec.name}' ({node.spec.package}/{node.spec.executable}) "
                      f'{exit_description(node.process.returncode, node.spec.package)}',
                      file=sys.stderr, flush=True)
                failed = True
            elif node.process.returncode != 0:
                print(f"[run] error: node '{node.spec.name}' exited with code {node.process.returncode} "
                      'while stopping', file=sys.stderr, flush=True)
                failed = True
        return EXIT_NODE_FAILED if failed else 0


def rates_from(values_by_node: dict[str, dict[str, Any]], simulated: bool) -> dict[str, float]:
    """The message rates the run promises, from the nodes' declared periods and rates."""
    from cobra_bringup.run_summary import HARDWARE_TOPIC_RATES_HZ, SIM_TOPIC_RATES_HZ
    rates = dict(SIM_TOPIC_RATES_HZ if simulated else HARDWARE_TOPIC_RATES_HZ)
    gait, sim = values_by_node.get('gait_node', {}), values_by_node.get('sim_node', {})
    if 'rate_hz' in gait:
        rates['joint_commands'] = gait['rate_hz']
    for topic, period in (('joint_states', 'control_period_s'), ('imu/data', 'imu_period_s'),
                          ('odom', 'odom_period_s'), ('ground_truth/odom', 'odom_period_s')):
        if sim.get(period):
            rates[topic] = 1.0 / sim[period]
    return rates


def print_summary(bag_path: Path, values_by_node: dict[str, dict[str, Any]], simulated: bool,
                  shown_path: Path | None = None) -> int:
    """Print the run summary; EXIT_NODE_FAILED when the bag shows the run went wrong. `shown_path`:
    where the bag will be (a twin summarises it in its staging folder before moving it there)."""
    from cobra_bringup.run_summary import format_summary, summarize
    from cobra_description.robot_model import load_robot_model
    gait = values_by_node.get('gait_node', {})
    try:
        model = load_robot_model(gait.get('urdf_path') or None)  # the URDF the gait node ran with
        summary = summarize(bag_path, gait_cycle_frequency_hz(gait), gait.get('ramp_duration_s', 2.0),
                            rates_from(values_by_node, simulated), robot=model.name,
                            robot_joints=[joint.name for joint in model.actuated_joints], robot_model=model,
                            expect_motion=gait.get('gait') != CMD_VEL_GAIT)  # cmd_vel moves only when driven
    except (ValueError, OSError) as error:
        print(f'[run] no summary from {bag_path}: {error}', file=sys.stderr)
        return 0
    print(format_summary(summary if shown_path is None else replace(summary, bag_path=shown_path)), flush=True)
    wrong = [problem for problem in summary.problems if problem.startswith('PROBLEM')]
    if wrong:  # LOSS lines are reported; a run that did not move or never advanced fails
        print(f'[run] error: the run went wrong ({len(wrong)} PROBLEM line(s) above)',
              file=sys.stderr, flush=True)
        return EXIT_NODE_FAILED
    return 0


def gait_cycle_frequency_hz(gait: dict[str, Any]) -> float | None:
    """Gait cycles per second for the summary's per-cycle figure: the sidewinding wave's, the LTS
    backbone wave's (omega_t / 2 pi); none for a CSV, the tumbling latch, cmd_vel (its frequency
    follows the twist) or a wave that stands."""
    name = gait.get('gait')
    if name in (CSV_GAIT, TUMBLE_GAIT, CMD_VEL_GAIT):
        return None
    if name == LTS_GAIT:
        return abs(gait.get('lts_omega_t_rad_s', 0.0)) / (2.0 * math.pi) or None
    return gait.get('frequency_hz') or None


def usage(launch_file: str = LAUNCH_FILES[0]) -> str:
    """Every argument with its default; the defaults of `launch_file` (the others differ only there)."""
    lines = [f'usage: run {{{",".join(LAUNCH_FILES)}}} [name:=value ...]', '',
             f'arguments (defaults of {launch_file}):']
    for argument in launch_arguments(launch_file):
        choices = f" ({' | '.join(argument.choices)})" if argument.choices else ''
        lines.append(f'  {argument.name}:={argument.default or "<empty>"}{choices}\n      {argument.description}')
    other = [f'{name}: ' + ', '.join(f'{key}:={value}' for key, value in defaults.items())
             for name, defaults in LAUNCH_DEFAULTS.items() if name != launch_file]
    return '\n'.join(lines + ['', 'other launch files change these defaults:', *(f'  {o}' for o in other)])


def main(argv: list[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if not words or words[0] in ('-h', '--help'):
        print(usage())
        return 0 if words else EXIT_BAD_ARGUMENTS
    launch_file, *arguments = words
    if Path(launch_file).name in LAUNCH_FILES and set(arguments) & {'-h', '--help'}:
        print(usage(Path(launch_file).name))
        return 0
    claim = None
    try:
        if Path(launch_file).name not in LAUNCH_FILES:
            raise BringupError(f"unknown launch file '{launch_file}': choose one of {', '.join(LAUNCH_FILES)}")
        values = parse_arguments(arguments, Path(launch_file).name)
        specs = node_set(values, config_directory(), Path(launch_file).name)
        simulated = any(spec.package in ('cobra_sim', 'cobra_dem') for spec in specs)
        environment, claim = simulation_environment() if simulated else (None, None)
        domain_id = int(environment['ROS_DOMAIN_ID']) if environment else None
        specs, values_by_node = validate_node_set(specs, values['namespace'], domain_id)
        runner = Runner(specs, values['namespace'], values['log_level'], environment)
    except BringupError as error:
        print(f'error: {error}', file=sys.stderr)
        if claim is not None:
            claim.release()
        return EXIT_BAD_ARGUMENTS
    try:
        code = runner.run()
    finally:
        if claim is not None:
            claim.release()
    logger = next((spec for spec in specs if spec.package == 'cobra_logger'), None)
    if code == 0 and logger is not None and 'gait_node' in values_by_node:
        code = print_summary(Path(str(logger.parameters['bag_path'])), values_by_node, simulated)
    elif code == 0 and logger is not None:  # terrain:=dem: a wheel, no robot to summarise
        print(f"[run] bag {logger.parameters['bag_path']} (DEM wheel run: python -m cobra_experiments.dem_run prints "
              'the DEM summary of a scenario)', flush=True)
    return code


if __name__ == '__main__':
    raise SystemExit(main())
