"""The joint driver without ROS: start-up checks, the 500 Hz cycle, faults, latch, shutdown.

The node wraps this in ROS messages; tests and the bench drive it against the emulator.
Everything that touches the bus runs on the loop thread: other threads hand it work through
`call`, so the SDK's single port is never used concurrently.
"""

from __future__ import annotations

import math
import queue
import termios
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

import numpy as np
import serial

from cobra_description.robot_model import Joint

from cobra_driver import control_table as ct
from cobra_driver.commands import CommandTracker
from cobra_driver.dynamixel_bus import (
    BusError, DynamixelBus, PortUnavailableError, check_latency_timer, sync_read_bytes, sync_write_bytes,
    wire_time_s,
)
from cobra_driver.joint_map import JointServo
from cobra_driver.loop_timing import DeadlineScheduler, TimingWindow

LogFunction = Callable[[str, str], None]  # (level 'info'|'warn'|'error', message)
PORT_FAILURES = (OSError, termios.error, serial.SerialException, PortUnavailableError)
LATCH_STOPPED_RAD_S = 0.05  # the latch pushes against something when this slow at high current
SETUP_TIMEOUT_MARGIN_MS = 50.0  # set-up is not time critical: ride out scheduling hiccups
REBOOT_SETTLE_S = 0.3
PROBE_PERIOD_S = 0.5  # a rebooting X-series servo is silent for ~0.2 s (bootloader)


class StartupError(RuntimeError):
    """The driver cannot start; the message names the problem and the fix."""


@dataclass
class DriverConfig:
    port: str
    joints: list[JointServo]
    latch: JointServo | None = None
    baud_rate: int = 4_000_000
    rate_hz: float = 500.0
    usb_latency_ms: float = 1.0
    packet_timeout_margin_ms: float = 1.0
    operating_mode: int = ct.OperatingMode.POSITION
    latch_operating_mode: int = ct.OperatingMode.CURRENT_BASED_POSITION
    profile_velocity: int = 0
    profile_acceleration: int = 0
    position_p_gain: int = 800
    position_i_gain: int = 0
    position_d_gain: int = 0
    bus_watchdog_ms: float = 100.0
    allow_missing: bool = False
    torque_on_start: bool = True
    keep_torque_on_shutdown: bool = False
    latency_timer_policy: str = 'warn'  # 'warn' | 'fail'
    sysfs_root: str = '/sys'
    reboot_on_startup_error: bool = True
    fault_after_failures: int = 25
    status_poll_period_s: float = 0.5
    reconnect_min_s: float = 0.2
    reconnect_max_s: float = 5.0
    command_timeout_s: float = 0.2
    command_joints: list[Joint] = field(default_factory=list)  # URDF joints of `joints`, for the guard
    command_mode: str = 'interpolate'
    latch_engaged_rad: float | None = None  # None: the URDF upper limit
    latch_released_rad: float | None = None  # None: the URDF lower limit
    latch_tolerance_rad: float = 0.05
    latch_grip_current_a: float = 0.3
    latch_grip_window_rad: float = 0.5
    latch_goal_current_a: float = 0.5
    latch_timeout_s: float = 2.0

    def servos(self) -> list[JointServo]:
        return self.joints + ([self.latch] if self.latch is not None else [])


@dataclass
class ServoHealth:
    read_failures: int = 0
    consecutive_failures: int = 0
    faulted: bool = False
    missing: bool = False
    hardware_error: int = 0
    voltage_v: float = math.nan
    temperature_c: float = math.nan
    watchdog_trips: int = 0
    rebooting_since: float | None = None


@dataclass
class JointSample:
    stamp_ns: int  # wall clock right after the read completed
    names: list[str]
    position_rad: list[float]
    velocity_rad_s: list[float]
    effort_nm: list[float]


@dataclass
class LatchStatus:
    state: str = 'released'  # released | engaging | engaged | releasing | failed
    position_rad: float = math.nan
    current_a: float = math.nan
    message: str = ''

    @property
    def latched(self) -> bool:
        return self.state == 'engaged'


@dataclass
class DiagnosticEntry:
    name: str
    level: str  # 'ok' | 'warn' | 'error'
    message: str
    values: dict[str, str] = field(default_factory=dict)


def _noop_log(level: str, message: str) -> None:
    pass


class JointDriver:
    def __init__(self, config: DriverConfig, log: LogFunction = _noop_log) -> None:
        self.config = config
        self.log = log
        self.servos = config.servos()
        self.by_id = {servo.servo_id: servo for servo in self.servos}
        self._joint_index = {joint.servo_id: i for i, joint in enumerate(config.joints)}
        if len(self.by_id) != len(self.servos):
            raise StartupError('two joints share a servo ID; each joint needs its own ID')
        self.health = {servo.servo_id: ServoHealth() for servo in self.servos}
        self.commands = CommandTracker(config.command_joints, timeout_s=config.command_timeout_s,
                                       mode=config.command_mode)
        self.bus: DynamixelBus | None = None
        self.torque_enabled = False
        self.state = 'stopped'  # stopped | running | disconnected
        self.disconnect_reason = ''
        self.timing = TimingWindow(size=max(10, int(config.rate_hz * 5)))
        self.scheduler: DeadlineScheduler | None = None
        self.read_failures = 0
        self.read_retries = 0
        self.cycles = 0
        self.cycles_without_fresh_data = 0
        self.consecutive_silent_cycles = 0
        self.fast_sync_read = True
        self.latch_status = LatchStatus()
        self.latency_timer_ms: int | None = None
        self._latch_target_rad: float | None = None
        self._latch_started = 0.0
        self._latch_future: Future[tuple[bool, str]] | None = None
        self._last_feedback: dict[int, dict[str, int]] = {}
        self._requests: queue.Queue[tuple[Callable[[], object], Future[object]]] = queue.Queue()
        self._loop_thread: threading.Thread | None = None
        self._next_status_poll = 0.0
        self._next_reconnect = 0.0
        self._reconnect_backoff = config.reconnect_min_s
        self._reconnect_attempts = 0
        self._next_probe = 0.0
        self._last_bus_error_log = -math.inf
        self._watchdogs_armed = False
        self._cpu_mark = (time.process_time(), time.perf_counter())
        self.cpu_percent = math.nan
        self.bytes_per_cycle = math.nan

    # -- helpers --------------------------------------------------------------------------
    @staticmethod
    def label(servo: JointServo) -> str:
        return f'{servo.joint_name} (ID {servo.servo_id})'

    def _active_ids(self) -> tuple[int, ...]:
        return tuple(s.servo_id for s in self.servos
                     if not self.health[s.servo_id].missing and not self.health[s.servo_id].faulted
                     and self.health[s.servo_id].rebooting_since is None)

    def expected_bytes_per_cycle(self, servo_count: int | None = None) -> int:
        count = len(self.servos) if servo_count is None else servo_count
        block = DynamixelBus.block_length()
        return sync_write_bytes(count, 4) + sync_read_bytes(count, block, fast=True)

    # -- start-up -------------------------------------------------------------------------
    def start(self) -> None:
        """Open the port and bring every servo into a known, torque-on, watchdog-armed state."""
        cfg = self.config
        self.latency_timer_ms, warning = check_latency_timer(cfg.port, cfg.sysfs_root)
        if warning:
            if cfg.latency_timer_policy == 'fail':
                raise StartupError(warning)
            self.log('warn', warning)
        try:
            self._connect(initial=True)
        except PortUnavailableError as error:
            raise StartupError(str(error)) from error
        except BusError as error:
            self._close_bus()
            raise StartupError(str(error)) from error
        self.state = 'running'

    def _connect(self, *, initial: bool) -> None:
        cfg = self.config
        bus = DynamixelBus(cfg.port, cfg.baud_rate, usb_latency_ms=cfg.usb_latency_ms,
                           timeout_margin_ms=cfg.packet_timeout_margin_ms)
        bus.open()
        self.bus = bus
        bus.port.timeout_margin_ms = max(cfg.packet_timeout_margin_ms, SETUP_TIMEOUT_MARGIN_MS)
        try:
            self._check_presence(initial=initial)
            present = [s for s in self.servos if not self.health[s.servo_id].missing]
            for servo in present:
                self._configure_servo(servo)
            self._choose_read_mode()
            self._hold_at(self._read_positions(self._active_ids()))
            self._watchdogs_armed = False  # armed by the first cycle: only the loop feeds them
            want_torque = cfg.torque_on_start if initial else self.torque_enabled
            if want_torque:
                self._set_torque_ids(self._active_ids(), True)
            self.torque_enabled = want_torque
            bus.port.timeout_margin_ms = cfg.packet_timeout_margin_ms
        except BaseException:
            self._close_bus()
            raise

    def _check_presence(self, *, initial: bool) -> None:
        assert self.bus is not None
        missing, wrong = [], []
        for servo in self.servos:
            model = self.bus.ping(servo.servo_id)
            health = self.health[servo.servo_id]
            health.missing = model is None
            health.faulted = False
            health.consecutive_failures = 0
            if model is None:
                missing.append(servo)
            elif model != servo.model.model_number:
                known = ct.MODELS_BY_NUMBER.get(model)
                wrong.append(f'{self.label(servo)} reports model number {model}'
                             f'{f" ({known.name})" if known else ""}, config expects {servo.model.name} '
                             f'({servo.model.model_number})')
        if wrong:
            raise BusError('wrong servo model: ' + '; '.join(wrong) +
                           '. Fix the ID assignment (Dynamixel Wizard) or the servo_models parameter.')
        if len(missing) == len(self.servos):
            raise BusError(f'no servo answered on {self.config.port} at {self.config.baud_rate} bps. Check: 12 V '
                           f'power on the bus, U2D2 RS-485 wiring (D+/D-), every servo set to this baud rate '
                           f'(address 8; 4 Mbps = 6), Protocol 2.0.')
        if missing:
            names = ', '.join(self.label(s) for s in missing)
            if initial and not self.config.allow_missing:
                raise BusError(f'no reply from {names}. Check the cable into that module and its ID/baud '
                               f'rate with Dynamixel Wizard; set allow_missing:=true to start without it.')
            self.log('warn', f'starting without {names} (allow_missing); they are reported as missing')

    def _configure_servo(self, servo: JointServo) -> None:
        """Torque off, clear a tripped watchdog, then EEPROM (only where it differs) and RAM set-up."""
        bus = self.bus
        assert bus is not None
        cfg = self.config
        sid = servo.servo_id
        hardware_error = bus.read(sid, 'hardware_error_status')
        if hardware_error:
            detail = ct.describe_hardware_error(hardware_error)
            if not cfg.reboot_on_startup_error:
                raise BusError(f'{self.label(servo)} is in hardware error ({detail}); it refuses motion until '
                               f'rebooted. Remove the cause, then reboot it (or reboot_on_startup_error:=true).')
            self.log('warn', f'{self.label(servo)} was in hardware error ({detail}); rebooting it')
            self._reboot_and_wait(sid)
        bus.write(sid, 'torque_enable', 0)
        bus.write(sid, 'bus_watchdog', 0)  # 0 also releases goal registers latched by a tripped watchdog
        mode = cfg.latch_operating_mode if servo is cfg.latch else cfg.operating_mode
        min_tick, max_tick = servo.position_limit_ticks()
        for name, value in (('return_delay_time', 0), ('operating_mode', mode),
                            ('min_position_limit', min_tick), ('max_position_limit', max_tick)):
            if bus.read(sid, name) != value:
                bus.write(sid, name, value)
        bus.map_feedback_block(sid)
        for name, value in (('position_p_gain', cfg.position_p_gain), ('position_i_gain', cfg.position_i_gain),
                            ('position_d_gain', cfg.position_d_gain),
                            ('profile_acceleration', cfg.profile_acceleration),
                            ('profile_velocity', cfg.profile_velocity)):
            bus.write(sid, name, value)
        if servo is cfg.latch and mode == ct.OperatingMode.CURRENT_BASED_POSITION:
            bus.write(sid, 'goal_current', round(cfg.latch_goal_current_a / servo.model.current_unit_a))
        self.health[sid].hardware_error = 0

    def _reboot_and_wait(self, servo_id: int) -> None:
        assert self.bus is not None
        self.bus.reboot(servo_id)
        deadline = time.monotonic() + 2.0
        time.sleep(0.05)
        while self.bus.ping(servo_id, retries=0) is None:
            if time.monotonic() > deadline:
                raise BusError(f'servo {servo_id} did not come back within 2 s after reboot')
            time.sleep(0.02)

    def _choose_read_mode(self) -> None:
        assert self.bus is not None
        ids = self._active_ids()
        self.bus.use_fast_sync_read = True
        for _ in range(3):
            self.bus.plain_read_cycles_left = 0
            if self.bus.read_feedback(ids).fast:
                self.fast_sync_read = True
                return
        self.bus.use_fast_sync_read = False
        self.fast_sync_read = False
        self.log('warn', 'Fast Sync Read failed 3 times; using plain Sync Read (older firmware? update it with '
                         'Dynamixel Wizard for ~30 % less bus time)')

    def _hold_at(self, ticks: dict[int, int]) -> None:
        positions = []
        for joint in self.config.joints:
            tick = ticks.get(joint.servo_id)
            positions.append(joint.rad_from_ticks(tick) if tick is not None else 0.5 * (joint.lower_rad + joint.upper_rad))
        self.commands.hold(np.asarray(positions))
        latch = self.config.latch
        if latch is not None and latch.servo_id in ticks:
            position = latch.rad_from_ticks(ticks[latch.servo_id])
            self._latch_target_rad = latch.clamp(position)
            engaged = abs(position - self._latch_engaged_rad()) < self.config.latch_tolerance_rad
            self.latch_status.state = 'engaged' if engaged else 'released'
        if self.bus is not None and ticks:
            goals = {sid: self._goal_tick(sid) for sid in ticks}
            self.bus.sync_write('goal_position', {k: v for k, v in goals.items() if v is not None})

    def _read_positions(self, ids: tuple[int, ...], attempts: int = 5) -> dict[int, int]:
        """Present position of every servo in `ids`, or BusError: holding needs all of them,
        since a servo without one would be sent to a made-up goal when torque comes on."""
        assert self.bus is not None
        ticks: dict[int, int] = {}
        for _ in range(attempts):
            result = self.bus.read_feedback(tuple(i for i in ids if i not in ticks))
            self._last_feedback.update(result.values)
            ticks.update({i: v['present_position'] for i, v in result.values.items()})
            if len(ticks) == len(ids):
                return ticks
        missing = ', '.join(self.label(self.by_id[i]) for i in ids if i not in ticks)
        raise BusError(f'could not read the present position of {missing}; not enabling torque')

    def _arm_watchdogs(self, ids: tuple[int, ...]) -> None:
        assert self.bus is not None
        units = round(self.config.bus_watchdog_ms / (ct.BUS_WATCHDOG_UNIT_S * 1000.0))
        if units <= 0:
            return
        self.bus.sync_write('bus_watchdog', {sid: min(127, units) for sid in ids})

    def _set_torque_ids(self, ids: tuple[int, ...], enabled: bool) -> None:
        assert self.bus is not None
        if ids:
            self.bus.sync_write('torque_enable', {sid: int(enabled) for sid in ids})

    def _close_bus(self) -> None:
        if self.bus is not None:
            self.bus.close()
            self.bus = None

    # -- the cycle ------------------------------------------------------------------------
    def _latch_engaged_rad(self) -> float:
        latch = self.config.latch
        assert latch is not None
        return latch.upper_rad if self.config.latch_engaged_rad is None else self.config.latch_engaged_rad

    def _latch_released_rad(self) -> float:
        latch = self.config.latch
        assert latch is not None
        return latch.lower_rad if self.config.latch_released_rad is None else self.config.latch_released_rad

    def _goal_tick(self, servo_id: int, targets: np.ndarray | None = None) -> int | None:
        servo = self.by_id[servo_id]
        if servo is self.config.latch:
            return None if self._latch_target_rad is None else servo.ticks_from_rad(self._latch_target_rad)
        index = self._joint_index[servo_id]
        if targets is None:
            targets = self.commands.target(time.monotonic())
        return None if targets is None else servo.ticks_from_rad(float(targets[index]))

    def cycle(self, deadline: float | None = None) -> JointSample | None:
        """One control cycle: goals out, feedback in. Returns fresh joint states or None."""
        self._run_requests()
        now = time.monotonic()
        if self.bus is None:
            if self.state == 'disconnected' and now >= self._next_reconnect:
                self._try_reconnect()
            return None
        try:
            return self._exchange(now, deadline)
        except PORT_FAILURES as error:
            self._disconnect(f'{type(error).__name__}: {error}')
        except BusError as error:  # one failed transaction: counted, the next cycle tries again
            self.read_failures += 1
            if now - self._last_bus_error_log > 1.0:
                self._last_bus_error_log = now
                self.log('warn', f'bus transaction failed: {error}')
        return None

    def _exchange(self, now: float, deadline: float | None) -> JointSample | None:
        bus = self.bus
        assert bus is not None
        ids = self._active_ids()
        if not self._watchdogs_armed:
            self._arm_watchdogs(ids)
            self._watchdogs_armed = True
        bus_start = time.perf_counter()
        bytes_before = bus.port.bytes_written + bus.port.bytes_read
        if self.torque_enabled and ids:
            targets = self.commands.target(now)
            goals = {}
            for sid in ids:
                if self.health[sid].hardware_error:
                    continue
                tick = self._goal_tick(sid, targets)
                if tick is not None:
                    goals[sid] = tick
            if goals:
                bus.sync_write('goal_position', goals)
        result = bus.read_feedback(ids, deadline=deadline) if ids else None
        stamp_ns = time.time_ns()
        bus_time = time.perf_counter() - bus_start
        self.bytes_per_cycle = bus.port.bytes_written + bus.port.bytes_read - bytes_before
        self.timing.record(bus_start, bus_time)
        self.cycles += 1
        if result is None:
            return None
        self.read_retries += result.attempts - 1
        if result.values:
            self.consecutive_silent_cycles = 0
            for sid in ids:
                self._account(sid, sid in result.values, now)
        else:
            # Nobody answered: a bus-level problem (power, cable to the U2D2, overload of the
            # host), not evidence against any one servo; counted, never published as fresh.
            self.read_failures += 1
            self.consecutive_silent_cycles += 1
        self._last_feedback.update(result.values)
        self._check_feedback(result.values)
        self._poll_status(now)
        self._probe_lost(now)
        self._advance_latch(now, result.values)
        if not result.values:
            self.cycles_without_fresh_data += 1
        return self._sample(result.values, stamp_ns)

    def _account(self, sid: int, ok: bool, now: float) -> None:
        health = self.health[sid]
        servo = self.by_id[sid]
        if ok:
            health.consecutive_failures = 0
            return
        self.read_failures += 1
        health.read_failures += 1
        health.consecutive_failures += 1
        if health.consecutive_failures >= self.config.fault_after_failures and not health.faulted:
            health.faulted = True
            self._next_probe = now
            self.log('error', f'{self.label(servo)} failed {health.consecutive_failures} reads in a row: '
                              f'faulted, taken out of the loop and probed twice a second. Check its cable.')

    def _check_feedback(self, values: dict[int, dict[str, int]]) -> None:
        for sid, item in values.items():
            servo = self.by_id[sid]
            health = self.health[sid]
            error = item['hardware_error_status']
            if error and error != health.hardware_error:
                self.log('error', f'{self.label(servo)} hardware error: {ct.describe_hardware_error(error)}; its '
                                  f'torque is off and it refuses motion until rebooted (service servo/reboot)')
            health.hardware_error = error
            if item['bus_watchdog'] == ct.BUS_WATCHDOG_TRIPPED and self.torque_enabled:
                health.watchdog_trips += 1
                self.log('warn', f'bus watchdog of {self.label(servo)} tripped (host silent for more than '
                                 f'{self.config.bus_watchdog_ms:.0f} ms); releasing and re-arming it')
                assert self.bus is not None
                self.bus.write(sid, 'bus_watchdog', 0)
                self._arm_watchdogs((sid,))

    def _poll_status(self, now: float) -> None:
        if now < self._next_status_poll or self.bus is None:
            return
        self._next_status_poll = now + self.config.status_poll_period_s
        polled = self.bus.sync_read_items(list(self._active_ids()), 'present_input_voltage', 'present_temperature')
        for sid, values in polled.items():
            self.health[sid].voltage_v = values['present_input_voltage'] * ct.VOLTAGE_UNIT_V
            self.health[sid].temperature_c = float(values['present_temperature'])

    def _probe_lost(self, now: float) -> None:
        """Ping faulted servos twice a second and rebooting ones once they have settled."""
        bus = self.bus
        assert bus is not None
        if now < self._next_probe:
            return
        self._next_probe = now + PROBE_PERIOD_S  # each silent ping costs a reply timeout: rarely
        for sid, health in self.health.items():
            settled = health.rebooting_since is not None and now - health.rebooting_since >= REBOOT_SETTLE_S
            if (settled or health.faulted or health.missing) and bus.ping(sid, retries=0) is not None:
                self._restore_servo(sid)

    def _restore_servo(self, sid: int) -> None:
        """A servo answers again: configure it if it lost its RAM (power cycle, reboot), re-join the loop."""
        bus = self.bus
        assert bus is not None
        servo = self.by_id[sid]
        health = self.health[sid]
        try:
            if bus.read(sid, 'torque_enable') == 0 or health.rebooting_since is not None:
                self._configure_servo(servo)
                tick = bus.read(sid, 'present_position')
                self._last_feedback.setdefault(sid, {})['present_position'] = tick
                goal = self._goal_tick(sid)
                bus.write(sid, 'goal_position', tick if goal is None or servo is self.config.latch else goal)
                self._arm_watchdogs((sid,))
                if self.torque_enabled:
                    bus.write(sid, 'torque_enable', 1)
        except BusError as error:
            self.log('warn', f'{self.label(servo)} answers again but could not be set up: {error}')
            return
        health.faulted = health.missing = False
        health.consecutive_failures = 0
        health.rebooting_since = None
        health.hardware_error = 0
        self.log('info', f'{self.label(servo)} is back in the loop')

    def _sample(self, values: dict[int, dict[str, int]], stamp_ns: int) -> JointSample | None:
        names, positions, velocities, efforts = [], [], [], []
        for servo in self.servos:
            item = values.get(servo.servo_id)
            if item is None:
                continue  # never republish an old value as if it were fresh
            names.append(servo.joint_name)
            positions.append(servo.rad_from_ticks(item['present_position']))
            velocities.append(servo.rad_s_from_raw(item['present_velocity']))
            efforts.append(servo.effort_nm_from_raw(item['present_current']))
        if not names:
            return None
        return JointSample(stamp_ns, names, positions, velocities, efforts)

    # -- latch ----------------------------------------------------------------------------
    def _advance_latch(self, now: float, values: dict[int, dict[str, int]]) -> None:
        latch = self.config.latch
        if latch is None or latch.servo_id not in values:
            return
        item = values[latch.servo_id]
        status = self.latch_status
        status.position_rad = latch.rad_from_ticks(item['present_position'])
        status.current_a = latch.current_a_from_raw(item['present_current'])
        if status.state not in ('engaging', 'releasing'):
            return
        engaging = status.state == 'engaging'
        target = self._latch_engaged_rad() if engaging else self._latch_released_rad()
        error = abs(status.position_rad - target)
        stopped = abs(latch.rad_s_from_raw(item['present_velocity'])) < LATCH_STOPPED_RAD_S
        gripping = engaging and stopped and abs(status.current_a) >= self.config.latch_grip_current_a \
            and error < self.config.latch_grip_window_rad
        if error < self.config.latch_tolerance_rad or gripping:
            status.state = 'engaged' if engaging else 'released'
            status.message = (f'latch {status.state} at {status.position_rad:.3f} rad, '
                              f'{status.current_a:.2f} A')
            self._finish_latch(True, status.message)
        elif now - self._latch_started > self.config.latch_timeout_s:
            status.state = 'failed'
            self._latch_target_rad = status.position_rad  # stop pushing against the obstruction
            status.message = (f'latch did not {"engage" if engaging else "release"} within '
                              f'{self.config.latch_timeout_s:.1f} s: at {status.position_rad:.3f} rad (target '
                              f'{target:.3f}), {status.current_a:.2f} A; jammed or obstructed, it now holds '
                              f'where it stopped')
            self.log('error', status.message)
            self._finish_latch(False, status.message)

    def _finish_latch(self, ok: bool, message: str) -> None:
        if self._latch_future is not None and not self._latch_future.done():
            self._latch_future.set_result((ok, message))
        self._latch_future = None

    def request_latch(self, engage: bool) -> Future[tuple[bool, str]]:
        """Start engaging/releasing; the future resolves once confirmed or after the timeout."""
        future: Future[tuple[bool, str]] = Future()
        latch = self.config.latch
        if latch is None:
            future.set_result((False, 'no latch servo configured (latch_id < 0)'))
            return future

        def start_motion() -> None:
            if self.bus is None or not self.torque_enabled:
                future.set_result((False, 'latch cannot move: ' +
                                   ('bus disconnected' if self.bus is None else 'torque is off (torque/set true)')))
                return
            if self.health[latch.servo_id].hardware_error or self.health[latch.servo_id].faulted:
                future.set_result((False, f'latch servo {self.label(latch)} is faulted or in hardware error'))
                return
            self._finish_latch(False, 'superseded by a new latch request')
            self._latch_target_rad = self._latch_engaged_rad() if engage else self._latch_released_rad()
            self.latch_status.state = 'engaging' if engage else 'releasing'
            self._latch_started = time.monotonic()
            self._latch_future = future

        self.call(start_motion)
        return future

    # -- requests from other threads ------------------------------------------------------
    def call(self, function: Callable[[], object], timeout: float = 5.0) -> object:
        """Run `function` on the loop thread between cycles (inline when no loop runs)."""
        if self._loop_thread is None or threading.current_thread() is self._loop_thread \
                or not self._loop_thread.is_alive():
            return function()
        future: Future[object] = Future()
        self._requests.put((function, future))
        return future.result(timeout=timeout)

    def _run_requests(self) -> None:
        while True:
            try:
                function, future = self._requests.get_nowait()
            except queue.Empty:
                return
            try:
                future.set_result(function())
            except BaseException as error:  # noqa: BLE001 - handed to the waiting thread
                future.set_exception(error)

    def set_torque(self, enabled: bool) -> tuple[bool, str]:
        def apply() -> tuple[bool, str]:
            if self.bus is None:
                return False, 'bus disconnected; torque unchanged'
            try:
                ids = tuple(i for i in self._active_ids() if not self.health[i].hardware_error)
                if enabled:
                    self._hold_at(self._read_positions(ids))
                    self._arm_watchdogs(ids)
                self._set_torque_ids(ids, enabled)
                self.torque_enabled = enabled
            except (BusError, *PORT_FAILURES) as error:
                return False, f'torque {"on" if enabled else "off"} failed: {error}'
            return True, f'torque {"on" if enabled else "off"} for {len(ids)} servos'
        return self.call(apply)  # type: ignore[return-value]

    def reboot_faulted(self) -> tuple[bool, str]:
        """Reboot every servo in hardware-error state; they re-join the loop once they answer."""
        def apply() -> tuple[bool, str]:
            if self.bus is None:
                return False, 'bus disconnected'
            targets = [s for s in self.servos if self.health[s.servo_id].hardware_error]
            if not targets:
                return True, 'no servo is in hardware-error state'
            for servo in targets:
                try:
                    self.bus.reboot(servo.servo_id)
                except BusError as error:
                    return False, str(error)
                self.health[servo.servo_id].rebooting_since = time.monotonic()
            return True, 'rebooting ' + ', '.join(self.label(s) for s in targets) + \
                '; they rejoin the loop holding their position'
        return self.call(apply)  # type: ignore[return-value]

    # -- reconnect ------------------------------------------------------------------------
    def _disconnect(self, reason: str) -> None:
        self._close_bus()
        self.state = 'disconnected'
        self.disconnect_reason = reason
        self._reconnect_backoff = self.config.reconnect_min_s
        self._next_reconnect = time.monotonic() + self._reconnect_backoff
        self._finish_latch(False, 'bus disconnected')
        self.log('error', f'lost the servo bus on {self.config.port} ({reason}); holding, reconnecting with '
                          f'back-off. Check the U2D2 USB cable and the 12 V supply.')

    def _try_reconnect(self) -> None:
        self._reconnect_attempts += 1
        try:
            self._connect(initial=False)
        except (BusError, *PORT_FAILURES) as error:
            self._reconnect_backoff = min(self.config.reconnect_max_s, self._reconnect_backoff * 2.0)
            self._next_reconnect = time.monotonic() + self._reconnect_backoff
            self.disconnect_reason = str(error)
            return
        self.state = 'running'
        self.log('info', f'servo bus on {self.config.port} reconnected after {self._reconnect_attempts} attempt(s)')
        self._reconnect_attempts = 0

    # -- loop -----------------------------------------------------------------------------
    def run(self, stop: threading.Event, publish: Callable[[JointSample], None]) -> None:
        """The control loop on absolute deadlines; returns when `stop` is set."""
        self._loop_thread = threading.current_thread()
        period = 1.0 / self.config.rate_hz
        self.scheduler = DeadlineScheduler(period)
        guard = 0.1 * period
        while not stop.is_set():
            self.scheduler.wait()
            sample = self.cycle(deadline=self.scheduler.next_deadline - guard)
            if sample is not None:
                publish(sample)
        self._run_requests()

    def start_loop(self, publish: Callable[[JointSample], None]) -> threading.Event:
        stop = threading.Event()
        thread = threading.Thread(target=self.run, args=(stop, publish), name='joint-driver-loop', daemon=True)
        self._loop_thread = thread
        thread.start()
        return stop

    def stop_loop(self, stop: threading.Event) -> None:
        stop.set()
        if self._loop_thread is not None:
            self._loop_thread.join(timeout=2.0)
        self._loop_thread = None

    def shutdown(self) -> None:
        """Hold, then torque off (unless configured to keep it), then close the port."""
        if self.bus is None:
            self.state = 'stopped'
            return
        try:
            ids = self._active_ids()
            feedback = self.bus.read_feedback(ids)
            if feedback.values:
                self.bus.sync_write('goal_position', {i: v['present_position'] for i, v in feedback.values.items()})
            if not self.config.keep_torque_on_shutdown:
                self._set_torque_ids(ids, False)
                self.bus.sync_write('bus_watchdog', {i: 0 for i in ids})
                self.torque_enabled = False
        except (BusError, *PORT_FAILURES) as error:
            self.log('warn', f'shutdown could not reach every servo: {error}')
        finally:
            self._close_bus()
            self.state = 'stopped'

    # -- diagnostics ----------------------------------------------------------------------
    def diagnostics(self) -> list[DiagnosticEntry]:
        cfg = self.config
        cpu_now = (time.process_time(), time.perf_counter())
        elapsed = cpu_now[1] - self._cpu_mark[1]
        if elapsed > 0.1:
            self.cpu_percent = 100.0 * (cpu_now[0] - self._cpu_mark[0]) / elapsed
            self._cpu_mark = cpu_now
        summary = self.timing.summary()
        missed = self.scheduler.missed_deadlines if self.scheduler else 0
        n_active = len(self._active_ids())
        expected = self.expected_bytes_per_cycle(n_active)
        values = {
            'port': cfg.port, 'baud_rate': str(cfg.baud_rate), 'state': self.state,
            'fast_sync_read': str(self.fast_sync_read), 'torque_enabled': str(self.torque_enabled),
            'cycles': str(self.cycles), 'missed_deadlines': str(missed),
            'read_failures': str(self.read_failures), 'read_retries': str(self.read_retries),
            'bytes_per_cycle': f'{self.bytes_per_cycle:.0f}', 'expected_bytes_per_cycle': str(expected),
            'wire_time_per_cycle_ms': f'{1e3 * wire_time_s(expected, cfg.baud_rate):.3f}',
            'cpu_percent': f'{self.cpu_percent:.1f}',
            'latency_timer_ms': 'none (not an FTDI adapter)' if self.latency_timer_ms is None
            else str(self.latency_timer_ms),
        }
        if summary is not None:
            values.update({
                'rate_hz': f'{summary.rate_hz:.1f}', 'period_p50_ms': f'{summary.period_p50_ms:.3f}',
                'period_p99_ms': f'{summary.period_p99_ms:.3f}', 'period_max_ms': f'{summary.period_max_ms:.3f}',
                'jitter_ms': f'{summary.jitter_ms:.3f}', 'bus_p50_ms': f'{summary.bus_p50_ms:.3f}',
                'bus_p99_ms': f'{summary.bus_p99_ms:.3f}', 'bus_max_ms': f'{summary.bus_max_ms:.3f}'})
        if self.state == 'disconnected':
            bus_entry = DiagnosticEntry('joint_driver: bus', 'error',
                                        f'disconnected: {self.disconnect_reason}; reconnecting', values)
        elif self.consecutive_silent_cycles >= cfg.fault_after_failures:
            bus_entry = DiagnosticEntry('joint_driver: bus', 'error',
                                        f'no servo answered for {self.consecutive_silent_cycles} cycles: check the '
                                        f'12 V supply and the RS-485 cable from the U2D2', values)
        elif missed or self.read_failures:
            bus_entry = DiagnosticEntry('joint_driver: bus', 'warn',
                                        f'{missed} missed deadlines, {self.read_failures} failed reads', values)
        else:
            bus_entry = DiagnosticEntry('joint_driver: bus', 'ok', 'running', values)
        entries = [bus_entry]
        rejected = ', '.join(f'{k}: {v}' for k, v in sorted(self.commands.rejected.items())) or 'none'
        entries.append(DiagnosticEntry(
            'joint_driver: commands', 'warn' if self.commands.rejected else 'ok',
            f'rejected commands: {rejected}' if self.commands.rejected else 'ok',
            {'accepted': str(self.commands.accepted), 'rejected': rejected,
             'stale': str(self.commands.is_stale(time.monotonic())),
             'commands_clamped': str(self.commands.guard.clamped),
             **{f'commands_rejected_{cause}': str(count) for cause, count in self.commands.rejected.items()}}))
        for servo in self.servos:
            health = self.health[servo.servo_id]
            level, message = 'ok', 'ok'
            if health.hardware_error:
                level, message = 'error', f'hardware error: {ct.describe_hardware_error(health.hardware_error)}'
            elif health.rebooting_since is not None:
                level, message = 'warn', 'rebooting'
            elif health.missing:
                level, message = 'error', 'missing (no reply)'
            elif health.faulted:
                level, message = 'error', f'faulted: {health.consecutive_failures} failed reads in a row'
            elif health.consecutive_failures:
                level, message = 'warn', 'read failures'
            entries.append(DiagnosticEntry(f'joint_driver: {self.label(servo)}', level, message, {
                'model': servo.model.name, 'voltage_v': f'{health.voltage_v:.1f}',
                'temperature_c': f'{health.temperature_c:.0f}', 'hardware_error_status': str(health.hardware_error),
                'read_failures': str(health.read_failures), 'watchdog_trips': str(health.watchdog_trips)}))
        if cfg.latch is not None:
            status = self.latch_status
            entries.append(DiagnosticEntry('joint_driver: latch', 'error' if status.state == 'failed' else 'ok',
                                           status.message or status.state,
                                           {'state': status.state, 'position_rad': f'{status.position_rad:.3f}',
                                            'current_a': f'{status.current_a:.3f}'}))
        return entries
