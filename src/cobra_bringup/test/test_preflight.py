"""Preflight against the servo-bus emulator with faults injected, and the camera from a recording.

Each fault is one a robot day meets: a servo that does not answer, a servo with the wrong model
on an ID, an overheated servo, a joint left outside its limits, a latched hardware error, a slow
FTDI latency timer, a baud rate that cannot carry the loop rate. Preflight must name each on
its own line with its fix, exit 1, and never enable torque.
"""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

from cobra_bringup import preflight
from cobra_driver import control_table as ct
from cobra_driver.emulator import ServoBusEmulator, cobra_bus

CONFIG_DIR = Path(__file__).resolve().parents[1] / 'config'
ROS_ENVIRONMENT = {'ROS_DOMAIN_ID': '17'}


def _run(tmp_path: Path, *options: str, environment: dict[str, str] | None = None,
         clock: preflight.Check = preflight.Check('clock sync', preflight.PASS, 'synchronized'),
         ) -> tuple[int, list[preflight.Check]]:
    """(exit code as main() gives it, the checks) with a stand-in clock check."""
    args = preflight.parse_args(['--config-dir', str(CONFIG_DIR), '--bag-dir', str(tmp_path / 'bags'), *options])
    checks = preflight.run_checks(args, ROS_ENVIRONMENT if environment is None else environment,
                                  clock=lambda: clock)
    return (preflight.EXIT_FAILED if any(c.verdict == preflight.FAIL for c in checks) else preflight.EXIT_OK), checks


def _by_name(checks: list[preflight.Check]) -> dict[str, preflight.Check]:
    return {check.name: check for check in checks}


@pytest.fixture
def bus(tmp_path: Path):
    # SCHED_FIFO as in cobra_driver's tests: servos answer in hardware time however busy the host,
    # so their stand-in must not queue for a CPU (a loaded CI once saw 3 servos FAIL, 1 missing)
    with cobra_bus(link_path=tmp_path / 'ttyCOBRA', realtime_priority=60) as emulator:
        yield emulator


def _torque_enabled(emulator: ServoBusEmulator) -> list[int]:
    return [servo_id for servo_id in emulator.servos if emulator.snapshot(servo_id, 'torque_enable')]


def test_a_healthy_robot_passes_every_servo_check(bus, tmp_path):
    code, checks = _run(tmp_path, '--port', bus.port, '--no-camera')
    lines = _by_name(checks)
    assert code == 0, preflight.format_table(checks)
    assert lines['serial port'].verdict == preflight.PASS and '(udev name)' in lines['serial port'].detail
    assert lines['FTDI latency timer'].verdict == preflight.SKIP  # a pseudo-terminal has none
    assert [name for name in lines if name.startswith('servo ')] == \
        [f'servo {i} (joint_{i})' for i in range(1, 12)] + ['servo 12 (latch_joint)']
    assert all(lines[f'servo {i} (joint_{i})'].verdict == preflight.PASS for i in range(1, 12))
    assert 'XH540-W270-R fw 52, 12.0 V, 36 °C' in lines['servo 1 (joint_1)'].detail
    assert 'XC330-T288-T' in lines['servo 12 (latch_joint)'].detail
    assert '300 bytes per cycle' in lines['baud rate vs loop rate'].detail
    # config/driver.yaml asks for SCHED_FIFO 50: the kernel grants it to root, else a warning with the fix
    assert lines['real-time loop'].verdict == (preflight.PASS if os.geteuid() == 0 else preflight.WARN)
    assert _torque_enabled(bus) == []


def test_a_missing_id_is_named(bus, tmp_path):
    bus.set_present(5, False)
    code, checks = _run(tmp_path, '--port', bus.port, '--no-camera')
    line = _by_name(checks)['servo 5 (joint_5)']
    assert code == 1 and line.verdict == preflight.FAIL
    assert line.detail == 'does not answer a ping' and 'ID (5)' in line.fix
    assert [c.name for c in checks if c.verdict == preflight.FAIL] == ['servo 5 (joint_5)']


def test_a_lost_reply_is_asked_again_not_reported_as_a_missing_servo(bus, tmp_path):
    # A reply lost or late past the margin (bus noise, a loaded host) is not a missing servo: the
    # bus asks each ping and read 3 times (DynamixelBus retries=2). One lost reply of servo 4 and
    # two in a row of servo 6 still give a PASS.
    bus.drop_responses(4, 1)
    bus.drop_responses(6, 2)
    code, checks = _run(tmp_path, '--port', bus.port, '--no-camera')
    lines = _by_name(checks)
    assert code == 0, preflight.format_table(checks)
    assert lines['servo 4 (joint_4)'].verdict == preflight.PASS
    assert lines['servo 6 (joint_6)'].verdict == preflight.PASS


def test_a_wrong_model_on_an_id_is_named_against_its_urdf_joint(tmp_path):
    servos = {servo_id: ct.XH540_W270 for servo_id in range(1, 12)} | {3: ct.XC330_T288, 12: ct.XC330_T288}
    with ServoBusEmulator(servos, link_path=tmp_path / 'ttyCOBRA') as emulator:
        code, checks = _run(tmp_path, '--port', emulator.port, '--no-camera')
    line = _by_name(checks)['servo 3 (joint_3)']
    assert code == 1 and line.verdict == preflight.FAIL
    assert line.detail == ('is an XC330-T288-T (model 1220); joint_3 is a body joint and needs an '
                           'XH540-W270-R (1100)')


@pytest.mark.parametrize('temperature_c, verdict', [(85, preflight.FAIL), (72, preflight.WARN)])
def test_over_temperature_fails_and_near_it_warns(bus, tmp_path, temperature_c, verdict):
    bus.set_item(7, 'present_temperature', temperature_c)  # the XH540's limit register: 80 °C
    code, checks = _run(tmp_path, '--port', bus.port, '--no-camera')
    line = _by_name(checks)['servo 7 (joint_7)']
    assert line.verdict == verdict and code == (1 if verdict == preflight.FAIL else 0)
    if verdict == preflight.FAIL:
        assert line.detail.startswith(f'over temperature: {temperature_c} °C, its limit is 80 °C')


def test_a_joint_outside_its_limits_is_named_before_torque_is_enabled(bus, tmp_path):
    from cobra_description.robot_model import load_robot_model
    limits = load_robot_model(Path(__file__).resolve().parents[2] / 'cobra_description' / 'urdf' / 'cobra.urdf')
    upper_rad = limits.joint('joint_4').limits.upper_rad
    bus.set_position_tick(4, ct.POSITION_CENTRE_TICK + round((upper_rad + 0.3) / (2 * 3.141592653589793 / 4096)))
    code, checks = _run(tmp_path, '--port', bus.port, '--no-camera')
    line = _by_name(checks)['servo 4 (joint_4)']
    assert code == 1 and line.verdict == preflight.FAIL
    assert 'joint_4 at' in line.detail and 'outside its URDF limits' in line.detail
    assert 'before torque is enabled' in line.detail and 'move joint_4 by hand' in line.fix
    assert _torque_enabled(bus) == []  # preflight never enables torque


def test_a_hardware_error_is_named_with_its_cause(bus, tmp_path):
    bus.raise_hardware_error(2, ct.HardwareErrorBit.OVERHEATING | ct.HardwareErrorBit.OVERLOAD)
    code, checks = _run(tmp_path, '--port', bus.port, '--no-camera')
    line = _by_name(checks)['servo 2 (joint_2)']
    assert code == 1 and line.detail.startswith('hardware error: overheating, overload')


def test_a_slow_ftdi_latency_timer_fails_with_the_udev_fix(bus, tmp_path):
    import os
    timer = tmp_path / 'sys' / 'bus' / 'usb-serial' / 'devices' / Path(os.path.realpath(bus.port)).name
    timer.mkdir(parents=True)
    (timer / 'latency_timer').write_text('16\n')
    code, checks = _run(tmp_path, '--port', bus.port, '--no-camera', '--sysfs-root', str(tmp_path / 'sys'))
    line = _by_name(checks)['FTDI latency timer']
    assert code == 1 and line.verdict == preflight.FAIL and line.detail.startswith('16 ms')
    assert 'ATTR{latency_timer}="1"' in line.fix


def test_a_baud_rate_that_cannot_carry_the_loop_fails_with_a_rate_that_fits(bus, tmp_path):
    params = tmp_path / 'slow.yaml'
    params.write_text('/**/joint_driver:\n  ros__parameters:\n    baud_rate: 1000000\n')
    code, checks = _run(tmp_path, '--port', bus.port, '--no-camera', '--params-file', str(params))
    line = _by_name(checks)['baud rate vs loop rate']
    assert code == 1 and line.verdict == preflight.FAIL
    assert '1000000 bit/s, 12 servos at 500 Hz: 300 bytes per cycle' in line.detail
    assert 'rate_hz:=166 or lower' in line.fix


def test_the_udev_name_and_the_adapter_are_shown_and_a_kernel_name_warns(tmp_path):
    dev = tmp_path / 'dev'
    (dev / 'serial' / 'by-id').mkdir(parents=True)
    (dev / 'ttyUSB0').write_text('')
    (dev / 'serial' / 'by-id' / 'usb-FTDI_USB__-__Serial_Converter_FT4NQ1-if00-port0').symlink_to(dev / 'ttyUSB0')
    (dev / 'ttyCOBRA').symlink_to(dev / 'ttyUSB0')
    (udev,) = preflight.check_serial_port(str(dev / 'ttyCOBRA'), dev)
    assert udev.verdict == preflight.PASS
    assert udev.detail.endswith('(udev name, adapter usb-FTDI_USB__-__Serial_Converter_FT4NQ1-if00-port0)')
    (kernel,) = preflight.check_serial_port(str(dev / 'ttyUSB0'), dev)
    assert kernel.verdict == preflight.WARN and '/dev/ttyCOBRA' in kernel.fix
    (missing,) = preflight.check_serial_port(str(dev / 'ttyCOBRA2'), dev)
    assert missing.verdict == preflight.FAIL
    assert 'adapters present: usb-FTDI_USB__-__Serial_Converter_FT4NQ1-if00-port0' in missing.detail


def test_no_port_fails_and_skips_the_bus(tmp_path):
    code, checks = _run(tmp_path, '--port', str(tmp_path / 'ttyNONE'), '--no-camera')
    assert code == 1
    assert [c.name for c in checks][:2] == ['serial port', 'baud rate vs loop rate']
    assert not any(c.name.startswith('servo ') for c in checks)


@pytest.fixture(scope='module')
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from cobra_odometry.realsense_recording import SyntheticRecording, write_synthetic_recording
    path = tmp_path_factory.mktemp('camera') / 'd435i.db3'
    write_synthetic_recording(path, SyntheticRecording(duration_s=1.5))
    return path


def test_the_camera_and_its_imu_streams_from_a_recording(recording, tmp_path):
    code, checks = _run(tmp_path, '--no-bus', '--device', str(recording))
    lines = _by_name(checks)
    assert code == 0, preflight.format_table(checks)
    assert 'serial 000000000042' in lines['RealSense'].detail
    gyro, accel = lines['RealSense gyro'], lines['RealSense accel']
    assert gyro.verdict == accel.verdict == preflight.PASS
    assert gyro.detail.endswith('(configured 200 Hz)') and accel.detail.endswith('(configured 63 Hz)')


def test_imu_rates_other_than_the_configured_ones_fail(recording, tmp_path):
    params = tmp_path / 'fast_imu.yaml'
    params.write_text('/**/odometry:\n  ros__parameters:\n    gyro_fps: 400\n')
    code, checks = _run(tmp_path, '--no-bus', '--device', str(recording), '--params-file', str(params))
    line = _by_name(checks)['RealSense gyro']
    assert code == 1 and line.verdict == preflight.FAIL and '(configured 400 Hz)' in line.detail


def test_no_camera_connected_fails_with_the_fix(tmp_path):
    code, checks = _run(tmp_path, '--no-bus', '--device', '999999999999')
    line = _by_name(checks)['RealSense']
    assert code == 1 and line.verdict == preflight.FAIL and 'no RealSense with serial 999999999999' in line.detail
    assert 'plug in the D435i (USB 3)' in line.fix


@pytest.mark.parametrize('environment, verdicts', [
    ({'ROS_DOMAIN_ID': '17'}, {'ROS_DOMAIN_ID': 'PASS', 'ROS discovery range': 'PASS'}),
    ({}, {'ROS_DOMAIN_ID': 'WARN', 'ROS discovery range': 'PASS'}),
    ({'ROS_DOMAIN_ID': 'robot'}, {'ROS_DOMAIN_ID': 'FAIL', 'ROS discovery range': 'PASS'}),
    ({'ROS_DOMAIN_ID': '3', 'ROS_AUTOMATIC_DISCOVERY_RANGE': 'localhost'},
     {'ROS_DOMAIN_ID': 'PASS', 'ROS discovery range': 'WARN'}),
    ({'ROS_DOMAIN_ID': '3', 'ROS_AUTOMATIC_DISCOVERY_RANGE': 'everywhere'},
     {'ROS_DOMAIN_ID': 'PASS', 'ROS discovery range': 'FAIL'}),
])
def test_ros_domain_and_discovery(environment, verdicts):
    assert {c.name: c.verdict for c in preflight.check_ros_environment(environment)} == verdicts


def test_disk_space_below_the_minimum_fails(tmp_path):
    line = preflight.check_disk(tmp_path / 'bags' / 'new', min_free_gb=1e9)
    assert line.verdict == preflight.FAIL and 'need 1e+09 GB' in line.detail


@pytest.mark.parametrize('stdout, returncode, verdict', [
    ('yes\n', 0, preflight.PASS), ('no\n', 0, preflight.WARN), ('', 1, preflight.SKIP)])
def test_clock_sync_from_timedatectl(stdout, returncode, verdict):
    def run(command, **kwargs):
        return subprocess.CompletedProcess(command, returncode, stdout, 'Failed to connect to bus\nmore')
    assert preflight.check_clock(run).verdict == verdict


def test_real_time_loop_granted_refused_or_not_asked_for():
    from cobra_driver.loop_timing import LoopScheduling
    asked: list[tuple[int, str]] = []

    def granted(priority: int) -> LoopScheduling:
        asked.append((priority, threading.current_thread().name))
        return LoopScheduling(f'SCHED_FIFO {priority}')
    line = preflight.check_loop_scheduling(50, granted)
    assert line.verdict == preflight.PASS and 'SCHED_FIFO 50' in line.detail
    assert asked == [(50, 'preflight-rt-probe')]  # asked from a throwaway thread, not preflight's own
    refused = preflight.check_loop_scheduling(
        50, lambda priority: LoopScheduling('SCHED_OTHER', 'Operation not permitted (needs root, ...)'))
    assert refused.verdict == preflight.WARN and 'Operation not permitted' in refused.detail
    assert 'rtprio 50' in refused.fix and 'loop_priority:=0' in refused.fix
    assert preflight.check_loop_scheduling(0, granted).verdict == preflight.SKIP and len(asked) == 1


@pytest.mark.parametrize('options, message', [
    (['--params-file', '/nonexistent.yaml'], 'error: parameter file /nonexistent.yaml does not exist'),
    (['--urdf', '/nonexistent.urdf'], 'error: URDF not found: /nonexistent.urdf'),
])
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, options, message):
    code = preflight.main(['--config-dir', str(CONFIG_DIR), '--no-camera', *options])
    assert code == 2 and capsys.readouterr().err.startswith(message)


def test_inconsistent_driver_parameters_exit_2(tmp_path, capsys):
    params = tmp_path / 'bad.yaml'
    params.write_text('/**/joint_driver:\n  ros__parameters:\n    joint_ids: [1, 2]\n')
    assert preflight.main(['--config-dir', str(CONFIG_DIR), '--no-camera', '--params-file', str(params)]) == 2
    assert 'error: joint_driver parameters: joint_names (11), joint_ids (2)' in capsys.readouterr().err


def test_main_prints_the_table_and_exits_1_on_a_failure(bus, tmp_path, capsys):
    bus.set_present(9, False)
    code = preflight.main(['--config-dir', str(CONFIG_DIR), '--port', bus.port, '--no-camera',
                           '--bag-dir', str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert out.splitlines()[0].split() == ['verdict', 'check', 'detail', '/', 'fix']
    assert 'FAIL     servo 9 (joint_9)' in out and 'fix: check its cable, power and ID (9)' in out
    assert out.splitlines()[-1].startswith('preflight:') and '1 failed' in out.splitlines()[-1]


class _FakeCameraInfo:
    name, serial_number, firmware_version = 'name', 'serial_number', 'firmware_version'
    recommended_firmware_version, usb_type_descriptor = 'recommended_firmware_version', 'usb_type_descriptor'


class _FakeCamera:
    """A connected D435i as pyrealsense2 describes it (the machines here have none)."""

    def __init__(self, usb: str, firmware: str) -> None:
        self.info = {'name': 'Intel RealSense D435I', 'serial_number': '123456789012', 'firmware_version': firmware,
                     'recommended_firmware_version': '5.16.0.1', 'usb_type_descriptor': usb}

    def supports(self, field: str) -> bool:
        return field in self.info

    def get_info(self, field: str) -> str:
        return self.info[field]


class _FakeMotionSource:
    """RealSenseSource delivering gyro at 200 Hz and accel at 63 Hz of device time."""

    def __init__(self, device, config, on_motion, on_image) -> None:
        self.config, self.on_motion = config, on_motion

    def open(self) -> str:
        from cobra_odometry.realsense_source import MotionFrame
        for kind, fps, count in (('gyro', 200, 60), ('accel', 63, 20)):
            for i in range(count):
                self.on_motion(MotionFrame(kind, 1000.0 + i / fps, (0.0, 0.0, 0.0)))
        return 'Intel RealSense D435I serial 123456789012: gyro, accel'

    def close(self) -> None:
        pass


@pytest.mark.parametrize('usb, firmware, verdicts', [
    ('3.2', '5.16.0.1', {'RealSense USB': 'PASS', 'RealSense firmware': 'PASS'}),
    ('2.1', '5.16.0.1', {'RealSense USB': 'FAIL', 'RealSense firmware': 'PASS'}),
    ('3.2', '5.12.7.100', {'RealSense USB': 'PASS', 'RealSense firmware': 'WARN'}),
])
def test_a_connected_camera_usb_3_and_firmware(monkeypatch, usb, firmware, verdicts):
    import types

    from cobra_odometry import realsense_source
    camera = _FakeCamera(usb, firmware)
    fake_rs = types.SimpleNamespace(camera_info=_FakeCameraInfo,
                                    context=lambda: types.SimpleNamespace(query_devices=lambda: [camera]))
    monkeypatch.setattr(realsense_source, 'import_pyrealsense2', lambda: fake_rs)
    monkeypatch.setattr(realsense_source, 'RealSenseSource', _FakeMotionSource)
    lines = _by_name(preflight.check_camera('', 200, 63))
    assert lines['RealSense'].detail == 'Intel RealSense D435I serial 123456789012'
    assert {name: lines[name].verdict for name in verdicts} == verdicts
    assert lines['RealSense gyro'].verdict == lines['RealSense accel'].verdict == preflight.PASS
    if usb == '2.1':
        assert 'USB 3 port and cable' in lines['RealSense USB'].fix
    if verdicts['RealSense firmware'] == 'WARN':
        assert 'older than the recommended 5.16.0.1' in lines['RealSense firmware'].detail
