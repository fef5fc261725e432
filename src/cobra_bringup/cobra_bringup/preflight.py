"""Preflight: what to run first on a robot day, before anything moves.

    python -m cobra_bringup.preflight            (or `preflight`, `ros2 run cobra_bringup preflight`)

Reads the driver's and the odometry's parameters from the bringup's parameter files (the ones
`sidewind.launch.py use_sim:=false` starts them with, plus --params-file), then checks the serial
port and its udev name, the FTDI latency timer, the baud rate against the loop rate, every
configured servo (ping, model against its URDF joint, firmware, input voltage, temperature,
hardware-error status, present position against the URDF limits), the RealSense (serial,
firmware, USB 3, IMU streams delivering at their rates), clock sync, disk space for bags and the
ROS domain / discovery settings. It prints one line per check with a verdict and, where it is not
PASS, the fix.

Read-only: it pings and reads registers, never writes one, never enables torque (a joint outside
its limits is named here, before the driver would move it). Exit 0: nothing failed (WARN and SKIP
lines are information); 1: a check failed; 2: bad input (a parameter file, an option).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from ament_index_python.packages import PackageNotFoundError, get_package_share_directory

from cobra_description.robot_model import RobotModelError, load_robot_model
from cobra_driver import control_table as ct
from cobra_driver.driver_config import ConfigError, DriverConfig, build_config, bus_budget, check_parameters, validate
from cobra_driver.dynamixel_bus import (LATENCY_TIMER_FIX, BusError, DynamixelBus, PortUnavailableError,
                                        check_latency_timer, latency_timer_path)
from cobra_driver.joint_map import JointServo
from cobra_driver.loop_timing import LoopScheduling, request_realtime
from cobra_odometry import realsense_source
from cobra_odometry.realsense_source import (DeviceNotFoundError, MotionFrame, RealSenseLibraryError, StreamConfig,
                                             StreamSelectionError, is_recording)

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
PASS, WARN, FAIL, SKIP = 'PASS', 'WARN', 'FAIL', 'SKIP'
DRIVER_NODE, ODOMETRY_NODE = 'joint_driver', 'odometry'  # the bringup's node names (node_set)
TEMPERATURE_WARN_MARGIN_C = 10  # WARN this close below a servo's Temperature Limit register
IMU_RATE_TOLERANCE = 0.15  # measured gyro/accel rate within this fraction of the configured one
IMU_SAMPLES = (40, 15)  # gyro, accel frames that make a rate measurement
IMU_WAIT_S = 5.0  # longest wait for them [s, wall]
DEFAULT_MIN_FREE_GB = 5.0
ROS_DOMAIN_ID_MAX = 232  # rmw's limit for Fast DDS on Linux (ports must fit below 65535)
DISCOVERY_RANGES = ('SUBNET', 'LOCALHOST', 'OFF', 'SYSTEM_DEFAULT')
REPLY_MARGIN_MS = 20.0  # preflight is not the 500 Hz loop: a slow reply is a reply, not a missing servo
RELAXED_RATE_HZ = 1.0  # a loop rate any baud rate carries: the parameters judged apart from the budget


class PreflightInputError(ValueError):
    """An option or parameter file preflight cannot use; the message names it and the fix."""


@dataclass(frozen=True)
class Check:
    name: str
    verdict: str  # PASS | WARN | FAIL | SKIP
    detail: str
    fix: str = ''


# -- parameters ----------------------------------------------------------------------------------

def node_parameters(files: Iterable[Path], node: str) -> dict[str, Any]:
    """The ros__parameters of `node` across parameter files, later files winning (as ROS applies them);
    a section's key may carry a namespace or wildcard ('/**/joint_driver')."""
    values: dict[str, Any] = {}
    for path in files:
        if not path.is_file():
            raise PreflightInputError(f'parameter file {path} does not exist')
        try:
            document = yaml.safe_load(path.read_text()) or {}
        except yaml.YAMLError as error:
            raise PreflightInputError(f'parameter file {path} is not YAML: {" ".join(str(error).split())}') from None
        if not isinstance(document, dict):
            raise PreflightInputError(f'parameter file {path}: expected node sections, e.g. "/**/{node}:"')
        for key, section in document.items():
            if str(key).rstrip('/').split('/')[-1] in (node, '*', '**') and isinstance(section, dict):
                values.update(section.get('ros__parameters') or {})
    return values


def bringup_config_directory() -> Path:
    try:
        return Path(get_package_share_directory('cobra_bringup')) / 'config'
    except (PackageNotFoundError, ValueError):
        raise PreflightInputError('cobra_bringup is not installed: build the workspace (scripts/setup.sh) '
                                  'or pass --config-dir src/cobra_bringup/config') from None


# -- serial port ---------------------------------------------------------------------------------

def check_serial_port(port: str, dev_root: Path = Path('/dev')) -> list[Check]:
    """The port exists, and is a stable udev name (a symlink), not a kernel name that can change."""
    if not os.path.exists(port):
        adapters = sorted(p.name for p in (dev_root / 'serial' / 'by-id').glob('*')) \
            if (dev_root / 'serial' / 'by-id').is_dir() else []
        seen = f"adapters present: {', '.join(adapters)}" if adapters else 'no USB serial adapter is present'
        return [Check('serial port', FAIL, f"'{port}' not found ({seen})",
                      'plug in and power the U2D2; install the udev rule that creates this name (cobra_driver '
                      'README), or pass --port /dev/ttyUSB0')]
    target = os.path.realpath(port)
    by_id = dev_root / 'serial' / 'by-id'
    adapter = next((f', adapter {p.name}' for p in sorted(by_id.glob('*')) if os.path.realpath(p) == target), '') \
        if by_id.is_dir() else ''
    if os.path.islink(port):
        return [Check('serial port', PASS, f'{port} -> {target} (udev name{adapter})')]
    return [Check('serial port', WARN, f'{port} is a kernel name, which can change between plug-ins{adapter}',
                  'install the udev rule that names the U2D2 /dev/ttyCOBRA (cobra_driver README)')]


def check_latency(port: str, sysfs_root: str) -> Check:
    value, warning = check_latency_timer(port, sysfs_root)
    if value is None:
        return Check('FTDI latency timer', SKIP, f'none for {os.path.realpath(port)} (not an FTDI adapter, '
                     f'or a pseudo-terminal): nothing to tune')
    if warning is None:
        return Check('FTDI latency timer', PASS, f'{value} ms ({latency_timer_path(port, sysfs_root)})')
    return Check('FTDI latency timer', FAIL, f'{value} ms: each bus transaction waits up to {value} ms, '
                 f'500 Hz is impossible', LATENCY_TIMER_FIX.format(path=latency_timer_path(port, sysfs_root)))


def check_baud(params: Mapping[str, Any]) -> Check:
    budget = bus_budget(params)
    detail = (f'{budget.baud_rate} bit/s, {budget.servo_count} servos at {budget.rate_hz:g} Hz: '
              f'{budget.bytes_per_cycle} bytes per cycle (Sync Write + Fast Sync Read) = '
              f'{1e3 * budget.wire_s:.2f} ms of the {1e3 * budget.period_s:.2f} ms period '
              f'({100 * budget.fraction:.0f} %)')
    if budget.level == 'ok':
        return Check('baud rate vs loop rate', PASS, detail)
    fix = budget.message().split('Fix: ', 1)[-1]
    return Check('baud rate vs loop rate', FAIL if budget.level == 'error' else WARN, detail, fix)


# -- servos --------------------------------------------------------------------------------------

def _model_name(model_number: int) -> str:
    model = ct.MODELS_BY_NUMBER.get(model_number)
    return model.name if model is not None else f'unknown model {model_number}'


def check_servo(bus: DynamixelBus, servo: JointServo, role: str) -> Check:
    """One servo, read-only: answers, is the model its URDF joint needs, and is healthy and in range."""
    name = f'servo {servo.servo_id} ({servo.joint_name})'
    model_number = bus.ping(servo.servo_id)
    if model_number is None:
        return Check(name, FAIL, 'does not answer a ping',
                     f'check its cable, power and ID ({servo.servo_id}); a Dynamixel Wizard scan at '
                     f'{bus.baud_rate} bit/s lists the IDs on the bus')
    if model_number != servo.model.model_number:
        return Check(name, FAIL, f'is an {_model_name(model_number)} (model {model_number}); {servo.joint_name} '
                     f'is a {role} and needs an {servo.model.name} ({servo.model.model_number})',
                     f'this ID belongs to another servo: give each servo its own ID (Dynamixel Wizard), '
                     f'or fix joint_ids / latch_id')
    try:
        values = {item: bus.read(servo.servo_id, item) for item in (
            'firmware_version', 'present_input_voltage', 'min_voltage_limit', 'max_voltage_limit',
            'present_temperature', 'temperature_limit', 'hardware_error_status', 'present_position', 'torque_enable')}
    except BusError as error:
        return Check(name, FAIL, f'answers pings but not reads: {error}', 'check the cable and the baud rate')
    voltage_v = values['present_input_voltage'] * ct.VOLTAGE_UNIT_V
    low_v, high_v = values['min_voltage_limit'] * ct.VOLTAGE_UNIT_V, values['max_voltage_limit'] * ct.VOLTAGE_UNIT_V
    angle_rad = servo.rad_from_ticks(values['present_position'])
    detail = (f"{servo.model.name} fw {values['firmware_version']}, {voltage_v:.1f} V, "
              f"{values['present_temperature']} °C, at {angle_rad:+.2f} rad "
              f'(limits [{servo.lower_rad:+.2f}, {servo.upper_rad:+.2f}])')
    if values['hardware_error_status']:
        errors = ct.describe_hardware_error(values['hardware_error_status'])
        return Check(name, FAIL, f'hardware error: {errors}; {detail}',
                     'remove the cause (load, supply, heat), then reboot the servo (power cycle, or the '
                     'driver does at start with reboot_on_startup_error:=true)')
    if not low_v <= voltage_v <= high_v:
        return Check(name, FAIL, f'input voltage {voltage_v:.1f} V outside its limits [{low_v:.1f}, {high_v:.1f}] V; '
                     f'{detail}', 'charge or replace the battery, check the supply and the bus cable')
    if values['present_temperature'] >= values['temperature_limit']:
        return Check(name, FAIL, f"over temperature: {values['present_temperature']} °C, its limit is "
                     f"{values['temperature_limit']} °C; {detail}", 'let it cool down with torque off')
    if not servo.lower_rad <= angle_rad <= servo.upper_rad:
        return Check(name, FAIL, f'{servo.joint_name} at {angle_rad:+.2f} rad is outside its URDF limits '
                     f'[{servo.lower_rad:+.2f}, {servo.upper_rad:+.2f}] rad, before torque is enabled',
                     f'with torque off, move {servo.joint_name} by hand inside its limits; if it is inside, '
                     f'check zero_offsets_rad and directions')
    verdict, fix = PASS, ''
    if values['present_temperature'] >= values['temperature_limit'] - TEMPERATURE_WARN_MARGIN_C:
        verdict = WARN
        fix = f"within {TEMPERATURE_WARN_MARGIN_C} °C of its {values['temperature_limit']} °C limit: let it cool"
    if values['torque_enable']:
        verdict, fix = WARN, 'torque is already on (another driver running?): stop it before starting the bringup'
    return Check(name, verdict, detail, fix)


def check_bus(config: DriverConfig, bus_factory: Callable[..., DynamixelBus]) -> list[Check]:
    bus = bus_factory(config.port, config.baud_rate, usb_latency_ms=config.usb_latency_ms,
                      timeout_margin_ms=max(config.packet_timeout_margin_ms, REPLY_MARGIN_MS))
    try:
        bus.open()
    except PortUnavailableError as error:
        return [Check('servo bus', FAIL, str(error).split('. ')[0], 'see the serial port line above')]
    try:
        return ([check_servo(bus, servo, 'body joint') for servo in config.joints]
                + ([check_servo(bus, config.latch, 'latch')] if config.latch is not None else []))
    finally:
        bus.close()


# -- camera --------------------------------------------------------------------------------------

def _info(device: Any, rs: Any, field: str) -> str | None:
    info = getattr(rs.camera_info, field)
    return device.get_info(info) if device.supports(info) else None


def check_camera(device: str, gyro_fps: int, accel_fps: int, wait_s: float = IMU_WAIT_S) -> list[Check]:
    """The RealSense (or a recording of one): identity, firmware, USB 3, and gyro/accel delivering."""
    try:
        rs = realsense_source.import_pyrealsense2()  # looked up at call time: tests stand in for it
    except RealSenseLibraryError as error:
        fix = str(error).split('): ', 1)[-1]
        return [Check('RealSense', FAIL, 'pyrealsense2 cannot be loaded', fix)]
    checks = []
    recording = is_recording(device)
    if not recording:
        devices = list(rs.context().query_devices())
        serials = [_info(d, rs, 'serial_number') for d in devices]
        if not devices or (device and device not in serials):
            seen = f'connected: {serials}' if devices else 'none connected'
            return [Check('RealSense', FAIL, f"no RealSense {'with serial ' + device + ' ' if device else ''}"
                          f'found ({seen})', 'plug in the D435i (USB 3), check `lsusb` for 8086:0b3a and the '
                          'udev rules, or set device:= in the odometry parameters')]
        camera = devices[serials.index(device) if device else 0]
        name, serial = _info(camera, rs, 'name'), _info(camera, rs, 'serial_number')
        firmware = _info(camera, rs, 'firmware_version')
        recommended = _info(camera, rs, 'recommended_firmware_version')
        checks.append(Check('RealSense', PASS, f'{name} serial {serial}'))
        if firmware and recommended and _version(firmware) < _version(recommended):
            checks.append(Check('RealSense firmware', WARN, f'{firmware}, older than the recommended {recommended}',
                                'update it with rs-fw-update (librealsense tools)'))
        else:
            checks.append(Check('RealSense firmware', PASS, f'{firmware or "?"}'
                                + (f' (recommended {recommended})' if recommended else '')))
        usb = _info(camera, rs, 'usb_type_descriptor') or ''
        checks.append(Check('RealSense USB', PASS, f'USB {usb}') if usb.startswith('3') else
                      Check('RealSense USB', FAIL, f"USB {usb or '?'}: depth, colour and IMU need USB 3 bandwidth",
                            'use a USB 3 port and cable (blue port; a USB 2 cable or hub gives 2.1)'))
    counts = {'gyro': [], 'accel': []}
    lock = threading.Lock()
    enough = threading.Event()

    def on_motion(frame: MotionFrame) -> None:
        with lock:
            counts[frame.kind].append(frame.device_stamp_s)
            if len(counts['gyro']) >= IMU_SAMPLES[0] and len(counts['accel']) >= IMU_SAMPLES[1]:
                enough.set()

    # a recording plays at the consumer's pace: its device stamps hold the rate it was recorded at,
    # and real-time playback would drop frames whenever this process waits for a CPU
    config = StreamConfig(gyro_fps=gyro_fps, accel_fps=accel_fps, enable_color=False, enable_depth=False,
                          playback_real_time=not recording)
    source = realsense_source.RealSenseSource(device, config, on_motion, lambda frame: None)
    try:
        description = source.open()
        enough.wait(wait_s)
    except (DeviceNotFoundError, StreamSelectionError, RuntimeError) as error:
        return checks + [Check('RealSense IMU', FAIL, str(error), 'set gyro_fps/accel_fps to modes the camera '
                               'offers (D435i: gyro 200 | 400, accel 63 | 250)')]
    finally:
        source.close()
    if recording:
        checks.insert(0, Check('RealSense', PASS, f"{description.split(':')[0]} (firmware and USB are not "
                                                  'in a recording)'))
    for kind, fps in (('gyro', gyro_fps), ('accel', accel_fps)):
        stamps = sorted(counts[kind])
        if len(stamps) < 2:
            checks.append(Check(f'RealSense {kind}', FAIL, f'{len(stamps)} frames in {wait_s:g} s',
                                'the IMU does not stream: replug the camera (USB 3), check dmesg for uvc/hid errors'))
            continue
        rate_hz = (len(stamps) - 1) / (stamps[-1] - stamps[0]) if stamps[-1] > stamps[0] else float('inf')
        detail = f'{rate_hz:.0f} Hz over {len(stamps)} frames (configured {fps} Hz)'
        if abs(rate_hz - fps) <= IMU_RATE_TOLERANCE * fps:
            checks.append(Check(f'RealSense {kind}', PASS, detail))
        else:
            checks.append(Check(f'RealSense {kind}', FAIL, detail, 'frames are lost: use a USB 3 port of its own, '
                                'and global_time; check the CPU load'))
    return checks


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split('.') if part.isdigit())


# -- host ----------------------------------------------------------------------------------------

def check_loop_scheduling(priority: int,
                          request: Callable[[int], LoopScheduling] = request_realtime) -> Check:
    """Whether the driver's loop thread will get SCHED_FIFO at `priority`, asked from a throwaway
    thread (the kernel answers per thread; preflight itself stays as it was)."""
    name = 'real-time loop'
    if priority <= 0:
        return Check(name, SKIP, 'loop_priority 0: the driver loop runs under the ordinary scheduler by choice')
    answer: list[LoopScheduling] = []
    thread = threading.Thread(target=lambda: answer.append(request(priority)), name='preflight-rt-probe')
    thread.start()
    thread.join()
    if not answer[0].refused:
        return Check(name, PASS, f'{answer[0].policy} granted to the driver loop')
    return Check(name, WARN, f'SCHED_FIFO {priority} refused: {answer[0].refused}; under the ordinary scheduler a '
                             f'busy computer (camera, ORB-SLAM3) delays the 500 Hz loop by milliseconds',
                 f'run the driver as root, or grant rtprio (e.g. "@robot - rtprio {priority}" in '
                 f'/etc/security/limits.d/), or loop_priority:=0 to ask for nothing')


def check_clock(run: Callable[..., subprocess.CompletedProcess] = subprocess.run) -> Check:
    """NTP sync, so that the robot's bag stamps line up with another machine's."""
    try:
        result = run(['timedatectl', 'show', '-p', 'NTPSynchronized', '--value'], capture_output=True,
                     text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return Check('clock sync', SKIP, 'cannot tell: no timedatectl (a container, or no systemd)')
    answer = result.stdout.strip()
    if result.returncode != 0 or answer not in ('yes', 'no'):
        said = ((result.stderr or answer).strip().splitlines() or ['nothing'])[0]
        return Check('clock sync', SKIP, f'cannot tell: timedatectl said {said!r}')
    if answer == 'yes':
        return Check('clock sync', PASS, 'system clock NTP-synchronized')
    return Check('clock sync', WARN, 'system clock not NTP-synchronized: bags of two machines will not line up',
                 'sudo timedatectl set-ntp true (or configure chrony against the laptop)')


def check_disk(bag_dir: Path, min_free_gb: float) -> Check:
    existing = bag_dir
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    free_gb = shutil.disk_usage(existing).free / 1e9
    detail = f'{free_gb:.1f} GB free for {bag_dir}'
    if free_gb >= min_free_gb:
        return Check('disk space for bags', PASS, detail)
    return Check('disk space for bags', FAIL, f'{detail} (need {min_free_gb:g} GB)',
                 'move old bags off the robot (bags/), or record elsewhere with bag_path:=')


def check_ros_environment(environment: Mapping[str, str]) -> list[Check]:
    checks = []
    domain = environment.get('ROS_DOMAIN_ID', '')
    if not domain:
        checks.append(Check('ROS_DOMAIN_ID', WARN, 'unset: domain 0, shared with every ROS 2 machine on the network',
                            'export ROS_DOMAIN_ID=<1..101>, one per robot, the same on the laptop'))
    elif not domain.isdigit() or int(domain) > ROS_DOMAIN_ID_MAX:
        checks.append(Check('ROS_DOMAIN_ID', FAIL, f'{domain!r} is not a domain id (0..{ROS_DOMAIN_ID_MAX})',
                            'export ROS_DOMAIN_ID=<1..101>'))
    else:
        checks.append(Check('ROS_DOMAIN_ID', PASS, domain))
    discovery = environment.get('ROS_AUTOMATIC_DISCOVERY_RANGE', '')
    if discovery and discovery.upper() not in DISCOVERY_RANGES:
        checks.append(Check('ROS discovery range', FAIL, f'ROS_AUTOMATIC_DISCOVERY_RANGE={discovery} is not one of '
                            f"{', '.join(DISCOVERY_RANGES)}", 'unset it (SUBNET) or set a valid value'))
    elif discovery.upper() in ('LOCALHOST', 'OFF'):
        checks.append(Check('ROS discovery range', WARN, f'{discovery.upper()}: a laptop cannot see the robot',
                            'unset ROS_AUTOMATIC_DISCOVERY_RANGE (SUBNET) to watch the robot from the laptop'))
    else:
        checks.append(Check('ROS discovery range', PASS, f"{discovery.upper() or 'SUBNET (default)'}"))
    if environment.get('ROS_LOCALHOST_ONLY'):
        checks.append(Check('ROS_LOCALHOST_ONLY', WARN, 'set: deprecated since Jazzy',
                            'unset it; use ROS_AUTOMATIC_DISCOVERY_RANGE'))
    return checks


# -- the run -------------------------------------------------------------------------------------

def format_table(checks: list[Check]) -> str:
    width = max(len(check.name) for check in checks)
    lines = [f"{'verdict':7}  {'check':{width}}  detail / fix"]
    for check in checks:
        lines.append(f'{check.verdict:7}  {check.name:{width}}  {check.detail}')
        if check.fix:
            lines.append(f"{'':7}  {'':{width}}  fix: {check.fix}")
    failed = sum(check.verdict == FAIL for check in checks)
    warned = sum(check.verdict == WARN for check in checks)
    lines.append(f'preflight: {len(checks)} checks, {failed} failed, {warned} warnings'
                 + (': fix the FAIL lines before starting the robot' if failed else ''))
    return '\n'.join(lines)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog='preflight', description=__doc__.split('\n\n')[0])
    parser.add_argument('--config-dir', type=Path, help="the bringup's parameter files (default: installed "
                        'cobra_bringup config)')
    parser.add_argument('--params-file', type=Path, action='append', default=[],
                        help='extra ROS parameter file, as params_file:= of the launch file (repeatable)')
    parser.add_argument('--port', help="serial port (default: the driver's port parameter)")
    parser.add_argument('--device', help="RealSense serial or recording (default: the odometry's device parameter)")
    parser.add_argument('--urdf', type=Path, help='URDF with the joint limits (default: the installed COBRA URDF)')
    parser.add_argument('--bag-dir', type=Path, default=Path('bags'), help='where bags are written (default bags/)')
    parser.add_argument('--min-free-gb', type=float, default=DEFAULT_MIN_FREE_GB, help='free space bags need [GB]')
    parser.add_argument('--sysfs-root', default=None, help="root of sysfs (default: the driver's sysfs_root)")
    parser.add_argument('--no-bus', action='store_true', help='skip the serial port and servo checks')
    parser.add_argument('--no-camera', action='store_true', help='skip the RealSense checks')
    return parser.parse_args(argv)


def run_checks(args: argparse.Namespace, environment: Mapping[str, str],
               bus_factory: Callable[..., DynamixelBus] | None = None,
               clock: Callable[[], Check] = check_clock) -> list[Check]:
    """Every check, in the order a robot day needs them; PreflightInputError on bad input."""
    config_dir = args.config_dir or bringup_config_directory()
    files = [config_dir / 'driver.yaml', *args.params_file]
    driver = node_parameters(files, DRIVER_NODE)
    odometry = node_parameters([config_dir / 'odometry.yaml', *args.params_file], ODOMETRY_NODE)
    if args.port:
        driver['port'] = args.port
    if args.sysfs_root:
        driver['sysfs_root'] = args.sysfs_root
    try:
        robot = load_robot_model(args.urdf or driver.get('urdf_path') or None)
    except RobotModelError as error:
        raise PreflightInputError(' '.join(str(error).split())) from None
    checks: list[Check] = []
    if not args.no_bus:
        try:
            budget_check = check_baud(check_parameters_without_budget(driver))
            config = build_config({**driver, 'rate_hz': RELAXED_RATE_HZ}, robot)  # the servos, read-only
        except ConfigError as error:
            raise PreflightInputError(f'{DRIVER_NODE} parameters: {error}') from None
        checks += check_serial_port(config.port)
        if os.path.exists(config.port):
            checks.append(check_latency(config.port, config.sysfs_root))
        checks.append(budget_check)
        checks.append(check_loop_scheduling(int(config.loop_priority)))
        if os.path.exists(config.port):
            checks += check_bus(config, bus_factory or DynamixelBus)
    if not args.no_camera and odometry.get('camera_enabled', True):
        device = args.device if args.device is not None else str(odometry.get('device', ''))
        checks += check_camera(device, int(odometry.get('gyro_fps', 200)), int(odometry.get('accel_fps', 63)))
    checks.append(clock())
    checks.append(check_disk(args.bag_dir.resolve(), args.min_free_gb))
    checks += check_ros_environment(environment)
    return checks


def check_parameters_without_budget(values: Mapping[str, Any]) -> dict[str, Any]:
    """The driver's parameter checks (cobra_driver.driver_config) except the bus budget, which
    preflight reports as a line of its own instead of refusing the input."""
    rate_hz = values.get('rate_hz', 500.0)
    reason = validate('rate_hz', rate_hz)
    if reason:
        raise ConfigError(reason)
    return {**check_parameters({**values, 'rate_hz': RELAXED_RATE_HZ}), 'rate_hz': rate_hz}


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exit_:  # argparse: --help (0) or a bad option (2, its message printed)
        return int(exit_.code or 0)
    try:
        checks = run_checks(args, os.environ)
    except PreflightInputError as error:
        print(f'error: {error}', file=sys.stderr)
        return EXIT_BAD_INPUT
    print(format_table(checks), flush=True)
    return EXIT_FAILED if any(check.verdict == FAIL for check in checks) else EXIT_OK


if __name__ == '__main__':
    raise SystemExit(main())
