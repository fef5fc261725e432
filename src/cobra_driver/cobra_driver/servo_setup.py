"""Bringing servos into a known state (no ROS): presence and model checks, register set-up, reboot.

Runs at start-up, on reconnect and when a servo rejoins; never in the 500 Hz cycle. Every
failure is a BusError whose message names the joint and what to check.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from cobra_driver import control_table as ct
from cobra_driver.driver_config import DriverConfig
from cobra_driver.dynamixel_bus import BusError, DynamixelBus
from cobra_driver.health import ServoHealth
from cobra_driver.joint_map import JointServo

LogFunction = Callable[..., None]
REBOOT_TIMEOUT_S = 2.0
FAST_SYNC_READ_TRIES = 3


def label(servo: JointServo) -> str:
    return f'{servo.joint_name} (ID {servo.servo_id})'


def check_presence(bus: DynamixelBus, config: DriverConfig, health: dict[int, ServoHealth], log: LogFunction,
                   *, initial: bool) -> None:
    """Ping every servo: wrong models and (at start-up, unless allow_missing) missing ones are errors."""
    servos = config.servos()
    missing, wrong = [], []
    for servo in servos:
        model = bus.ping(servo.servo_id)
        state = health[servo.servo_id]
        state.missing = model is None
        state.faulted = False
        state.consecutive_failures = 0
        if model is None:
            missing.append(servo)
        elif model != servo.model.model_number:
            known = ct.MODELS_BY_NUMBER.get(model)
            wrong.append(f'{label(servo)} reports model number {model}'
                         f'{f" ({known.name})" if known else ""}, config expects {servo.model.name} '
                         f'({servo.model.model_number})')
    if wrong:
        raise BusError('wrong servo model: ' + '; '.join(wrong) +
                       '. Fix the ID assignment (Dynamixel Wizard) or the servo_models parameter.')
    if len(missing) == len(servos):
        raise BusError(f'no servo answered on {config.port} at {config.baud_rate} bps. Check: 12 V '
                       f'power on the bus, U2D2 RS-485 wiring (D+/D-), every servo set to this baud rate '
                       f'(address 8; 4 Mbps = 6), Protocol 2.0.')
    if missing:
        names = ', '.join(label(s) for s in missing)
        if initial and not config.allow_missing:
            raise BusError(f'no reply from {names}. Check the cable into that module and its ID/baud '
                           f'rate with Dynamixel Wizard; set allow_missing:=true to start without it.')
        log('warn', f'starting without {names} (allow_missing); they are reported as missing')


def configure_servo(bus: DynamixelBus, servo: JointServo, config: DriverConfig, log: LogFunction) -> None:
    """Torque off, clear a tripped watchdog, then EEPROM (only where it differs) and RAM set-up."""
    sid = servo.servo_id
    hardware_error = bus.read(sid, 'hardware_error_status')
    if hardware_error:
        detail = ct.describe_hardware_error(hardware_error)
        if not config.reboot_on_startup_error:
            raise BusError(f'{label(servo)} is in hardware error ({detail}); it refuses motion until '
                           f'rebooted. Remove the cause, then reboot it (or reboot_on_startup_error:=true).')
        log('warn', f'{label(servo)} was in hardware error ({detail}); rebooting it')
        reboot_and_wait(bus, sid)
    bus.write(sid, 'torque_enable', 0)
    bus.write(sid, 'bus_watchdog', 0)  # 0 also releases goal registers latched by a tripped watchdog
    mode = config.latch_operating_mode if servo is config.latch else config.operating_mode
    min_tick, max_tick = servo.position_limit_ticks()
    for name, value in (('return_delay_time', 0), ('operating_mode', mode),
                        ('min_position_limit', min_tick), ('max_position_limit', max_tick)):
        if bus.read(sid, name) != value:
            bus.write(sid, name, value)
    bus.map_feedback_block(sid)
    for name, value in (('position_p_gain', config.position_p_gain), ('position_i_gain', config.position_i_gain),
                        ('position_d_gain', config.position_d_gain),
                        ('profile_acceleration', config.profile_acceleration),
                        ('profile_velocity', config.profile_velocity)):
        bus.write(sid, name, value)
    if servo is config.latch and mode == ct.OperatingMode.CURRENT_BASED_POSITION:
        bus.write(sid, 'goal_current', round(config.latch_goal_current_a / servo.model.current_unit_a))


def reboot_and_wait(bus: DynamixelBus, servo_id: int) -> None:
    bus.reboot(servo_id)
    deadline = time.monotonic() + REBOOT_TIMEOUT_S
    time.sleep(0.05)
    while bus.ping(servo_id, retries=0) is None:
        if time.monotonic() > deadline:
            raise BusError(f'servo {servo_id} did not come back within {REBOOT_TIMEOUT_S:.0f} s after reboot')
        time.sleep(0.02)


def choose_read_mode(bus: DynamixelBus, ids: tuple[int, ...], log: LogFunction) -> bool:
    """Fast Sync Read when the firmware has it (True), else plain Sync Read."""
    bus.use_fast_sync_read = True
    for _ in range(FAST_SYNC_READ_TRIES):
        if bus.read_feedback(ids).fast:
            return True
    bus.use_fast_sync_read = False
    log('warn', f'Fast Sync Read failed {FAST_SYNC_READ_TRIES} times; using plain Sync Read (older firmware? '
                f'update it with Dynamixel Wizard for ~30 % less bus time)')
    return False


def read_positions(bus: DynamixelBus, ids: tuple[int, ...], servo_by_id: dict[int, JointServo],
                   attempts: int = 5) -> dict[int, dict[str, int]]:
    """Feedback of every servo in `ids`, or BusError: holding needs all of them, since a servo
    without a present position would be sent to a made-up goal when torque comes on."""
    values: dict[int, dict[str, int]] = {}
    for _ in range(attempts):
        values.update(bus.read_feedback(tuple(i for i in ids if i not in values)).values)
        if len(values) == len(ids):
            return values
    missing = ', '.join(label(servo_by_id[i]) for i in ids if i not in values)
    raise BusError(f'could not read the present position of {missing}; not enabling torque')


def arm_watchdogs(bus: DynamixelBus, ids: tuple[int, ...], watchdog_ms: float) -> None:
    units = round(watchdog_ms / (ct.BUS_WATCHDOG_UNIT_S * 1000.0))
    if units > 0 and ids:
        bus.sync_write('bus_watchdog', {sid: min(127, units) for sid in ids})


def set_torque(bus: DynamixelBus, ids: tuple[int, ...], enabled: bool) -> None:
    if ids:
        bus.sync_write('torque_enable', {sid: int(enabled) for sid in ids})
