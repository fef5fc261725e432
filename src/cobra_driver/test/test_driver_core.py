"""Driver core against the emulator with the real SDK: start-up, motion, faults, latch, shutdown."""

import math
import os
import time

import pytest

from cobra_driver import control_table as ct
from cobra_common.ros_entry import StartupError


def test_startup_configures_every_servo(bus, make_driver, wait_for) -> None:
    driver = make_driver(bus.port)
    driver.start()
    # torque and watchdog go out as Sync Writes (no reply): give the emulator a moment
    assert wait_for(lambda: all(bus.snapshot(i, 'torque_enable') == 1 for i in range(1, 13)))
    for servo_id in range(1, 13):
        assert bus.snapshot(servo_id, 'return_delay_time') == 0
        assert bus.snapshot(servo_id, 'bus_watchdog') == 0  # armed by the loop, which feeds it
    assert bus.snapshot(12, 'operating_mode') == ct.OperatingMode.CURRENT_BASED_POSITION
    # URDF limits +-1.5708 rad -> ticks 1024..3072 written to the position limit registers
    assert (bus.snapshot(1, 'min_position_limit'), bus.snapshot(1, 'max_position_limit')) == (1024, 3072)
    assert driver.fast_sync_read

    def cycle_has_expected_bytes() -> bool:  # README arithmetic: 74 + 26 + 200 bytes for 12 servos
        driver.cycle()
        return driver.bytes_per_cycle == driver.expected_bytes_per_cycle() == 300
    assert wait_for(cycle_has_expected_bytes)
    assert wait_for(lambda: all(bus.snapshot(i, 'bus_watchdog') == 5 for i in range(1, 13)))


def test_missing_servo_is_named(bus, make_driver) -> None:
    bus.set_present(7, False)
    with pytest.raises(StartupError, match=r'joint_7 \(ID 7\).*allow_missing'):
        make_driver(bus.port).start()
    driver = make_driver(bus.port, allow_missing=True)
    driver.start()
    assert driver.health[7].missing
    assert any('joint_7' in e.name and e.level == 'error' for e in driver.diagnostics())


def test_wrong_model_is_named(tmp_path, make_driver) -> None:
    from cobra_driver.emulator import cobra_bus
    emulator = cobra_bus(latch_id=None)
    emulator.servos[3].memory[0:2] = (1020).to_bytes(2, 'little')
    emulator.servos[3].model = ct.ServoModel('XM430-W350', 1020, 2.69, 1.0, 1.0, ct.XH540_W270.defaults)
    with emulator:
        with pytest.raises(StartupError, match=r'joint_3 \(ID 3\) reports model number 1020.*XH540-W270-R \(1100\)'):
            make_driver(emulator.port, latch_id=-1).start()


def test_no_port_gives_one_clear_error(make_driver) -> None:
    with pytest.raises(StartupError, match="serial port '/dev/ttyCOBRA_absent' not found"):
        make_driver('/dev/ttyCOBRA_absent').start()


def fake_latency_timer(tmp_path, port: str, value: int):
    device = os.path.basename(os.path.realpath(port))
    folder = tmp_path / 'sys' / 'bus' / 'usb-serial' / 'devices' / device
    folder.mkdir(parents=True)
    (folder / 'latency_timer').write_text(f'{value}\n')
    return tmp_path / 'sys'


def test_latency_timer_warns_with_fix_or_fails(bus, tmp_path, make_driver) -> None:
    sysfs = fake_latency_timer(tmp_path, bus.port, 16)
    driver = make_driver(bus.port, sysfs_root=str(sysfs))
    driver.start()
    warnings = [m for level, m in driver.logs if level == 'warn']
    assert any('latency timer' in m and 'is 16 ms' in m and 'echo 1 | sudo tee' in m for m in warnings)
    driver.shutdown()
    with pytest.raises(StartupError, match='latency_timer'):
        make_driver(bus.port, sysfs_root=str(sysfs), latency_timer_policy='fail').start()


def test_pty_without_latency_timer_is_fine(bus, make_driver) -> None:
    driver = make_driver(bus.port, sysfs_root='/nonexistent')
    driver.start()
    assert driver.latency_timer_ms is None


def test_command_moves_servo_and_joint_states_report_it(bus, running_driver, wait_for) -> None:
    driver, samples = running_driver(bus.port, zero_offsets_rad=[0.2] + [0.0] * 10, directions=[-1] + [1] * 10)
    def command() -> bool:
        driver.call(lambda: driver.commands.submit(['joint_1'], [0.5], [], time.monotonic()))
        return bool(samples) and abs(samples[-1].position_rad[0] - 0.5) < 0.01
    assert wait_for(command)
    # servo angle = direction * joint + offset = -0.5 + 0.2 rad
    assert bus.snapshot(1, 'goal_position') == 2048 + round(-0.3 / (2 * math.pi / 4096))
    assert samples[-1].names[0] == 'joint_1' and len(samples[-1].names) == 12


def test_nan_unknown_and_stale_commands_hold(bus, running_driver) -> None:
    driver, _ = running_driver(bus.port, move_to_start_speed_rad_s=4.8)  # reaches the command well within 0.5 s
    now = time.monotonic()
    assert driver.call(lambda: driver.commands.submit(['joint_2'], [float('nan')], [], now)).cause == 'non_finite'
    assert driver.call(lambda: driver.commands.submit(['joint_99'], [0.3], [], now)).cause == 'unknown_joint'
    assert driver.call(lambda: driver.commands.submit(['latch_joint'], [0.3], [], now)).cause == 'unknown_joint'
    time.sleep(0.2)
    assert bus.snapshot(2, 'goal_position') == 2048
    entry = next(e for e in driver.diagnostics() if e.name == 'joint_driver: commands')
    assert entry.level == 'warn' and 'non_finite: 1' in entry.message and 'unknown_joint: 2' in entry.message
    assert entry.values['commands_rejected_unknown_joint'] == '2'  # same keys as the sim
    driver.call(lambda: driver.commands.submit(['joint_2'], [0.3], [1.0], time.monotonic()))
    time.sleep(0.5)  # stale after 0.2 s: the velocity feed-forward must not keep moving it
    held = bus.snapshot(2, 'goal_position')
    time.sleep(0.2)
    assert bus.snapshot(2, 'goal_position') == held


def test_dropped_and_corrupt_replies_are_survived_and_counted(bus, running_driver, wait_for) -> None:
    driver, samples = running_driver(bus.port)
    time.sleep(0.1)
    bus.drop_responses(4, 2)
    bus.corrupt_responses(9, 2)
    assert wait_for(lambda: driver.read_failures + driver.read_retries >= 2)
    count = len(samples)
    assert wait_for(lambda: len(samples) > count + 5)
    assert not any(h.faulted for h in driver.health.values())
    bus_entry = next(e for e in driver.diagnostics() if e.name == 'joint_driver: bus')
    assert bus_entry.level == 'warn' and 'failed reads' in bus_entry.message


def test_silent_servo_becomes_faulted_and_rejoins(bus, running_driver, wait_for) -> None:
    driver, samples = running_driver(bus.port)
    bus.set_present(6, False)
    assert wait_for(lambda: driver.health[6].faulted)
    assert wait_for(lambda: bool(samples) and 'joint_6' not in samples[-1].names)  # no stale value as fresh
    entry = next(e for e in driver.diagnostics() if 'joint_6' in e.name)
    assert entry.level == 'error' and 'faulted' in entry.message
    bus.set_present(6, True)
    assert wait_for(lambda: not driver.health[6].faulted)
    assert wait_for(lambda: 'joint_6' in samples[-1].names)


def test_hardware_error_reported_by_name_and_reboot_recovers(bus, running_driver, wait_for) -> None:
    driver, _ = running_driver(bus.port)
    bus.raise_hardware_error(8, ct.HardwareErrorBit.OVERLOAD)
    assert wait_for(lambda: driver.health[8].hardware_error == ct.HardwareErrorBit.OVERLOAD)
    entry = next(e for e in driver.diagnostics() if 'joint_8' in e.name)
    assert entry.level == 'error' and 'overload' in entry.message
    assert any('joint_8 (ID 8) hardware error: overload' in m for _, m in driver.logs)
    ok, message = driver.reboot_faulted()
    assert ok and 'joint_8' in message
    assert wait_for(lambda: driver.health[8].hardware_error == 0 and driver.health[8].rebooting_since is None)
    assert wait_for(lambda: bus.snapshot(8, 'torque_enable') == 1)


def test_port_vanishing_reconnects_with_backoff(bus, running_driver, wait_for) -> None:
    driver, samples = running_driver(bus.port)
    bus.vanish()
    assert wait_for(lambda: driver.state == 'disconnected')
    assert next(e for e in driver.diagnostics() if e.name == 'joint_driver: bus').level == 'error'
    time.sleep(0.3)
    bus.reappear()
    assert wait_for(lambda: driver.state == 'running')
    count = len(samples)
    assert wait_for(lambda: len(samples) > count + 5)


def test_latch_engage_release_and_jam(bus, running_driver) -> None:
    driver, _ = running_driver(bus.port, latch_timeout_s=0.5)
    ok, message = driver.request_latch(True).result(timeout=5)
    assert ok and driver.latch_status.latched, message
    ok, message = driver.request_latch(False).result(timeout=5)
    assert ok and not driver.latch_status.latched, message
    bus.set_stalled(12, True)
    ok, message = driver.request_latch(True).result(timeout=5)
    assert not ok and 'jammed' in message
    assert driver.latch_status.state == 'failed' and not driver.latch_status.latched


def test_shutdown_holds_then_turns_torque_off(bus, running_driver, wait_for) -> None:
    driver, _ = running_driver(bus.port)
    time.sleep(0.1)
    driver.stop_loop(driver.loop_stop)
    driver.shutdown()
    assert wait_for(lambda: all(bus.snapshot(i, 'torque_enable') == 0 for i in range(1, 13)))
    assert wait_for(lambda: all(bus.snapshot(i, 'bus_watchdog') == 0 for i in range(1, 13)))


def test_torque_service_off_and_on(bus, running_driver, wait_for) -> None:
    driver, _ = running_driver(bus.port)
    assert driver.set_torque(False)[0]
    assert wait_for(lambda: bus.snapshot(3, 'torque_enable') == 0)
    assert driver.set_torque(True)[0]
    assert wait_for(lambda: bus.snapshot(3, 'torque_enable') == 1)


def test_voltage_and_temperature_polled_into_diagnostics(bus, running_driver, wait_for) -> None:
    driver, _ = running_driver(bus.port)
    assert wait_for(lambda: driver.health[11].voltage_v == 12.0)
    entry = next(e for e in driver.diagnostics() if e.name == 'joint_driver: joint_11 (ID 11)')
    assert entry.values['voltage_v'] == '12.0' and entry.values['temperature_c'] == '36'
    assert entry.values['model'] == 'XH540-W270-R'
