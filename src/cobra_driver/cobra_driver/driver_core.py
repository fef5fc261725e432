"""The joint driver without ROS: start-up, the 500 Hz cycle and its loop, faults, shutdown.

The node wraps this in ROS messages; tests and the bench drive it against the emulator.
Everything that touches the bus runs on the loop thread: other threads hand it work through
`call`, so the SDK's single port is never used concurrently. Servo set-up, the latch state
machine and health/diagnostics live in their own modules; this one keeps the cycle, which is
written to do per cycle only what changed: arrays and ID orders are rebuilt when the set of
servos in the loop changes, not every 2 ms.
"""

from __future__ import annotations

import queue
import termios
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np
import serial
from cobra_common.errors import StartupError

from cobra_driver import control_table as ct
from cobra_driver import servo_setup as setup
from cobra_driver.commands import CommandTracker
from cobra_driver.driver_config import BusBudget, DriverConfig
from cobra_driver.dynamixel_bus import (
    BusError, DynamixelBus, PortUnavailableError, ReadResult, check_latency_timer, sync_read_bytes,
    sync_write_bytes,
)
from cobra_driver.health import (CommandsStatus, CpuMeter, DiagnosticEntry, DriverStatus, ServoHealth, ServoStatus,
                                 build_diagnostics, record_failure)
from cobra_driver.joint_map import RAD_PER_TICK, RAD_S_PER_VELOCITY_UNIT, JointServo
from cobra_driver.latch import LatchController, LatchStatus
from cobra_driver.loop_timing import (ORDINARY_SCHEDULING, DeadlineScheduler, LoopScheduling, TimingWindow,
                                      request_realtime)
from cobra_driver.move_to_start import MoveToStart

__all__ = ['DiagnosticEntry', 'DriverConfig', 'JointDriver', 'JointSample', 'LatchStatus', 'ServoHealth',
           'StartupError']

LogFunction = Callable[..., None]
"""log(level, message, throttle_s=0.0): level 'info'|'warn'|'error'; throttle_s > 0 rate-limits that call."""
PORT_FAILURES = (OSError, termios.error, serial.SerialException, PortUnavailableError)
REBOOT_SETTLE_S = 0.3
PROBE_PERIOD_S = 0.5  # a rebooting X-series servo is silent for ~0.2 s (bootloader)
BUS_ERROR_LOG_PERIOD_S = 1.0
GOAL_POSITION = ct.ITEMS['goal_position']
GOAL_FRAME_DTYPE = np.dtype([('id', 'u1'), ('tick', '<i4')])  # packed: id + 4 goal bytes per servo


@dataclass
class JointSample:
    stamp_ns: int  # wall clock right after the read completed
    names: list[str]  # the servos whose reply arrived intact this cycle, in configuration order
    position_rad: np.ndarray
    velocity_rad_s: np.ndarray
    effort_nm: np.ndarray


def _noop_log(level: str, message: str, throttle_s: float = 0.0) -> None:
    pass


class _ReadPlan:
    """Everything the cycle needs about one ordered set of servos in the loop, computed once per set."""

    def __init__(self, ids: tuple[int, ...], servos: list[JointServo], joint_count: int,
                 health: dict[int, ServoHealth], latch_id: int | None) -> None:
        index_of = {servo.servo_id: i for i, servo in enumerate(servos)}
        self.ids = ids
        servo_index = np.array([index_of[sid] for sid in ids], dtype=np.intp)
        self.publish_order = np.argsort(servo_index, kind='stable')  # read slots in configuration order
        ordered = [servos[i] for i in servo_index[self.publish_order]]
        self.names = [servo.joint_name for servo in ordered]
        direction = np.array([servo.direction for servo in ordered], dtype=float)
        self.position_scale = direction * RAD_PER_TICK
        self.position_bias = -direction * (ct.POSITION_CENTRE_TICK * RAD_PER_TICK
                                           + np.array([servo.zero_offset_rad for servo in ordered]))
        self.velocity_scale = direction * RAD_S_PER_VELOCITY_UNIT
        self.effort_scale = direction * np.array([servo.model.current_unit_a * servo.model.torque_constant_nm_per_a
                                                  for servo in ordered])
        # goals: joints in the loop and not in hardware error (they refuse motion until rebooted)
        driven = [(sid, index_of[sid]) for sid in ids
                  if index_of[sid] < joint_count and not health[sid].hardware_error]
        self.goal_joint_index = np.array([joint for _, joint in driven], dtype=np.intp)
        self.all_joints_driven = [joint for _, joint in driven] == list(range(joint_count))
        # tick = centre + round((direction * joint_rad + zero_offset) / rad_per_tick) = round(rad * scale + bias)
        self.goal_tick_scale = np.array([servos[joint].direction / RAD_PER_TICK for _, joint in driven])
        self.goal_tick_bias = np.array([servos[joint].zero_offset_rad / RAD_PER_TICK + ct.POSITION_CENTRE_TICK
                                        for _, joint in driven])
        self.goal_frame = np.zeros(len(driven), dtype=GOAL_FRAME_DTYPE)  # the Sync Write parameters
        self.goal_frame['id'] = [sid for sid, _ in driven]
        self.latch_slot = ids.index(latch_id) if latch_id in ids else None
        self.latch_driven = self.latch_slot is not None and not health[latch_id].hardware_error
        self.known_hardware_errors = np.array([health[sid].hardware_error for sid in ids], dtype=np.uint8)
        self.known_hardware_error_bytes = bytes(self.known_hardware_errors)
        self.in_order = bool(np.all(self.publish_order == np.arange(len(ids))))


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
        self.move_to_start = MoveToStart(len(config.joints), config.move_to_start_speed_rad_s)
        self.latch = LatchController(config, log)
        self.bus_budget = BusBudget(len(self.servos), config.baud_rate, config.rate_hz)
        self.bus: DynamixelBus | None = None
        self.torque_enabled = False
        self.state = 'stopped'  # stopped | running | disconnected
        self.disconnect_reason = ''
        self.timing = TimingWindow(size=max(10, int(config.rate_hz * 5)))
        self.scheduler: DeadlineScheduler | None = None
        self.loop_scheduling = LoopScheduling(ORDINARY_SCHEDULING)  # set by run() on the loop thread
        self.executor_scheduling = LoopScheduling(ORDINARY_SCHEDULING)  # set once by the node's executor thread
        self.read_failures = 0
        self.read_retries = 0
        self.cycles = 0
        self.cycles_without_fresh_data = 0
        self.consecutive_silent_cycles = 0
        self.fast_sync_read = True
        self.latency_timer_ms: int | None = None
        self.cpu = CpuMeter()
        self.bytes_per_cycle = float('nan')
        self._requests: queue.Queue[tuple[Callable[[], object], Future[object]]] = queue.Queue()
        self._loop_thread: threading.Thread | None = None
        self._next_status_poll = 0.0
        self._next_reconnect = 0.0
        self._reconnect_backoff = config.reconnect_min_s
        self._reconnect_attempts = 0
        self._next_probe = 0.0
        self._watchdogs_armed = False
        self._was_live = False
        self._suspects: frozenset[int] = frozenset()  # servos whose last read failed: read last
        self._plan = self._make_plan()

    # -- helpers --------------------------------------------------------------------------
    @staticmethod
    def label(servo: JointServo) -> str:
        return setup.label(servo)

    @property
    def latch_status(self) -> LatchStatus:
        """The latch's state, frozen, refreshed by the loop thread (the only one that touches it)."""
        return self.call(self.latch.refresh)  # type: ignore[return-value]

    @property
    def active_ids(self) -> tuple[int, ...]:
        """Servos read every cycle, in read order: those whose last read failed come last, so a
        silent one cuts off nobody else's part of the Fast Sync Read reply."""
        return self._plan.ids

    def _make_plan(self) -> _ReadPlan:
        in_loop = [s.servo_id for s in self.servos if self.health[s.servo_id].in_loop]
        ids = tuple(sorted(in_loop, key=lambda sid: sid in self._suspects))
        latch_id = self.config.latch.servo_id if self.config.latch is not None else None
        return _ReadPlan(ids, self.servos, len(self.config.joints), self.health, latch_id)

    def _replan(self) -> None:
        """The set of servos in the loop, their order or their hardware-error state changed."""
        self._plan = self._make_plan()

    def expected_bytes_per_cycle(self, servo_count: int | None = None) -> int:
        count = len(self.servos) if servo_count is None else servo_count
        block = DynamixelBus.block_length()
        return sync_write_bytes(count, 4) + sync_read_bytes(count, block, fast=True)

    # -- start-up -------------------------------------------------------------------------
    def start(self) -> None:
        """Open the port and bring every servo into a known, torque-on, watchdog-armed state."""
        cfg = self.config
        if self.bus_budget.level == 'error':
            raise StartupError(self.bus_budget.message())
        if self.bus_budget.level == 'warn':
            self.log('warn', self.bus_budget.message())
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
        bus.port.timeout_margin_ms = max(cfg.packet_timeout_margin_ms, cfg.setup_timeout_margin_ms)
        try:
            setup.check_presence(bus, cfg, self.health, self.log, initial=initial)
            for servo in self.servos:
                if not self.health[servo.servo_id].missing:
                    setup.configure_servo(bus, servo, cfg, self.log)
                    self.health[servo.servo_id].hardware_error = 0
            self._suspects = frozenset()
            self._replan()
            self.fast_sync_read = setup.choose_read_mode(bus, self.active_ids, self.log)
            self._hold_at(setup.read_positions(bus, self.active_ids, self.by_id))
            self._watchdogs_armed = False  # armed by the first cycle: only the loop feeds them
            want_torque = cfg.torque_on_start if initial else self.torque_enabled
            if want_torque:
                setup.set_torque(bus, self.active_ids, True)
            self.torque_enabled = want_torque
            bus.port.timeout_margin_ms = cfg.packet_timeout_margin_ms
        except BaseException:
            self._close_bus()
            raise

    def _hold_at(self, feedback: dict[int, dict[str, int]]) -> None:
        """Hold where the servos stand; the next commands are reached at the move-to-start speed."""
        positions = np.array([
            joint.rad_from_ticks(feedback[joint.servo_id]['present_position']) if joint.servo_id in feedback
            else 0.5 * (joint.lower_rad + joint.upper_rad) for joint in self.config.joints])
        self.commands.hold(positions)
        self.move_to_start.start(np.clip(positions, self.commands.lower, self.commands.upper))
        self._was_live = False
        latch = self.config.latch
        if latch is not None and latch.servo_id in feedback:
            self.latch.hold_at(latch.rad_from_ticks(feedback[latch.servo_id]['present_position']))
        if self.bus is not None and feedback:
            goals = {sid: item['present_position'] for sid, item in feedback.items()}
            self.bus.sync_write('goal_position', goals)

    def _close_bus(self) -> None:
        if self.bus is not None:
            self.bus.close()
            self.bus = None

    # -- the cycle ------------------------------------------------------------------------
    def cycle(self, deadline: float | None = None) -> JointSample | None:
        """One control cycle: goals out, feedback in. Returns fresh joint states or None."""
        if not self._requests.empty():
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
            self.log('warn', f'bus transaction failed: {error}', throttle_s=BUS_ERROR_LOG_PERIOD_S)
        return None

    def _goal_param(self, now: float, plan: _ReadPlan) -> list[int]:
        """Sync Write parameters (id, 4 goal bytes, ...) for this cycle's targets."""
        targets = self.commands.target(now)
        frame = plan.goal_frame
        if targets is not None and len(frame):
            live = self.commands.live
            if live and not self._was_live and not self.move_to_start.active:
                # commands resume after a hold: reach them at the bounded speed too
                self.move_to_start.restart()
            self._was_live = live
            positions = self.move_to_start.limit(targets, now, live)
            if not plan.all_joints_driven:
                positions = positions[plan.goal_joint_index]
            ticks = positions * plan.goal_tick_scale
            ticks += plan.goal_tick_bias
            frame['tick'] = np.rint(ticks, out=ticks)
            param = list(frame.tobytes())
        else:
            param = []
        if plan.latch_driven:
            tick = self.latch.goal_tick()
            if tick is not None:
                param.append(self.config.latch.servo_id)  # type: ignore[union-attr]
                param.extend(ct.encode(GOAL_POSITION, tick))
        return param

    def _exchange(self, now: float, deadline: float | None) -> JointSample | None:
        bus = self.bus
        assert bus is not None
        plan = self._plan
        ids = plan.ids
        if not self._watchdogs_armed:
            setup.arm_watchdogs(bus, ids, self.config.bus_watchdog_ms)
            self._watchdogs_armed = True
        bus_start = time.perf_counter()
        port = bus.port
        bytes_before = port.bytes_written + port.bytes_read
        if self.torque_enabled and ids:
            bus.sync_write_param(GOAL_POSITION.address, GOAL_POSITION.size, self._goal_param(now, plan))
        result = bus.read_feedback(ids, deadline=deadline) if ids else None
        stamp_ns = time.time_ns()
        self.bytes_per_cycle = port.bytes_written + port.bytes_read - bytes_before
        self.timing.record(bus_start, time.perf_counter() - bus_start)
        self.cycles += 1
        if result is None:
            return None
        self.read_retries += result.attempts - 1
        fresh_count = result.fresh_count
        if fresh_count:
            self.consecutive_silent_cycles = 0
            if result.failed_ids or self._suspects:
                self._account(result, now)
        else:
            # Nobody answered: a bus-level problem (power, cable to the U2D2, overload of the
            # host), not evidence against any one servo; counted, never published as fresh.
            self.read_failures += 1
            self.consecutive_silent_cycles += 1
            self.cycles_without_fresh_data += 1
            self._housekeeping(now)
            return None
        self._check_feedback(result, plan)
        self._housekeeping(now)
        if plan.latch_slot is not None and (result.complete or result.fresh[plan.latch_slot]):
            self.latch.advance(now, result.records[plan.latch_slot])
        return self._sample(result, plan, stamp_ns, result.complete)

    def _housekeeping(self, now: float) -> None:
        if now >= self._next_status_poll:
            self._poll_status(now)
        if now >= self._next_probe:
            self._probe_lost(now)

    def _account(self, result: ReadResult, now: float) -> None:
        """Per-servo bookkeeping, only in cycles where some servo failed now or before."""
        failed = set(result.failed_ids)
        faulted = False
        for sid in result.ids:
            health = self.health[sid]
            if sid not in failed:
                if sid in result.unread_ids:
                    continue  # not read for lack of time: neither blame nor credit
                health.consecutive_failures = 0
                continue
            self.read_failures += 1
            if record_failure(health, self.config.fault_after_failures):
                faulted = True
                self._next_probe = now
                self.log('error', f'{self.label(self.by_id[sid])} failed {health.consecutive_failures} reads in a '
                                  f'row: faulted, taken out of the loop and probed twice a second. Check its cable '
                                  f'and connector (the servos after it on the bus still answer).')
        suspects = frozenset(sid for sid in result.ids if self.health[sid].consecutive_failures)
        if faulted or suspects != self._suspects:
            self._suspects = suspects
            self._replan()

    def _check_feedback(self, result: ReadResult, plan: _ReadPlan) -> None:
        """New hardware errors and tripped watchdogs; in the common case two byte-string compares."""
        bus = self.bus
        assert bus is not None
        if bus.flags_unchanged(result, plan.known_hardware_error_bytes, watch_tripped=self.torque_enabled):
            return
        records = result.records
        errors = records['hardware_error_status']
        tripped = records['bus_watchdog'] == ct.BUS_WATCHDOG_TRIPPED
        if not (np.any((errors != plan.known_hardware_errors) & result.fresh)
                or (self.torque_enabled and np.any(tripped & result.fresh))):
            return
        replan = False
        for slot, sid in enumerate(result.ids):
            if not result.fresh[slot]:
                continue
            servo = self.by_id[sid]
            health = self.health[sid]
            error = int(errors[slot])
            if error != health.hardware_error:
                if error:
                    self.log('error', f'{self.label(servo)} hardware error: {ct.describe_hardware_error(error)}; '
                                      f'its torque is off and it refuses motion until rebooted (service servo/reboot)')
                health.hardware_error = error
                replan = True
            if tripped[slot] and self.torque_enabled:
                health.watchdog_trips += 1
                self.log('warn', f'bus watchdog of {self.label(servo)} tripped (host silent for more than '
                                 f'{self.config.bus_watchdog_ms:.0f} ms); releasing and re-arming it')
                assert self.bus is not None
                self.bus.write(sid, 'bus_watchdog', 0)
                setup.arm_watchdogs(self.bus, (sid,), self.config.bus_watchdog_ms)
        if replan:
            self._replan()

    def _poll_status(self, now: float) -> None:
        if self.bus is None:
            return
        self._next_status_poll = now + self.config.status_poll_period_s
        polled = self.bus.sync_read_items(list(self.active_ids), 'present_input_voltage', 'present_temperature')
        for sid, values in polled.items():
            self.health[sid].voltage_v = values['present_input_voltage'] * ct.VOLTAGE_UNIT_V
            self.health[sid].temperature_c = float(values['present_temperature'])

    def _probe_lost(self, now: float) -> None:
        """Ping faulted servos twice a second and rebooting ones once they have settled."""
        bus = self.bus
        assert bus is not None
        self._next_probe = now + PROBE_PERIOD_S  # each silent ping costs a reply timeout: rarely
        for sid, health in self.health.items():
            settled = health.rebooting_since is not None and now - health.rebooting_since >= REBOOT_SETTLE_S
            if (settled or health.faulted or health.missing) and bus.ping(sid, retries=0) is not None:
                self._restore_servo(sid)

    def _restore_servo(self, sid: int) -> None:
        """A servo answers again: configure it if it lost its RAM (power cycle, reboot), hold it where it
        stands, and let it rejoin the command stream at the move-to-start speed."""
        bus = self.bus
        assert bus is not None
        servo = self.by_id[sid]
        health = self.health[sid]
        try:
            if bus.read(sid, 'torque_enable') == 0 or health.rebooting_since is not None:
                setup.configure_servo(bus, servo, self.config, self.log)
            tick = bus.read(sid, 'present_position')
            bus.write(sid, 'goal_position', tick)
            setup.arm_watchdogs(bus, (sid,), self.config.bus_watchdog_ms)
            if self.torque_enabled:
                bus.write(sid, 'torque_enable', 1)
        except BusError as error:
            self.log('warn', f'{self.label(servo)} answers again but could not be set up: {error}')
            return
        index = self._joint_index.get(sid)
        if index is not None:
            self.move_to_start.start_joint(index, servo.clamp(servo.rad_from_ticks(tick)))
        health.faulted = health.missing = False
        health.consecutive_failures = 0
        health.rebooting_since = None
        health.hardware_error = 0
        self._suspects = self._suspects - {sid}
        self._replan()
        self.log('info', f'{self.label(servo)} is back in the loop; it moves to the commanded position at '
                         f'{self.move_to_start.speed_rad_s:.2f} rad/s')

    def _sample(self, result: ReadResult, plan: _ReadPlan, stamp_ns: int, complete: bool) -> JointSample:
        records = result.records if plan.in_order else result.records[plan.publish_order]
        position = records['present_position'] * plan.position_scale + plan.position_bias
        velocity = records['present_velocity'] * plan.velocity_scale
        effort = records['present_current'] * plan.effort_scale
        if complete:
            return JointSample(stamp_ns, plan.names, position, velocity, effort)
        fresh = result.fresh if plan.in_order else result.fresh[plan.publish_order]  # never republish an old value as if it were fresh
        names = [name for name, ok in zip(plan.names, fresh.tolist()) if ok]
        return JointSample(stamp_ns, names, position[fresh], velocity[fresh], effort[fresh])

    # -- latch ----------------------------------------------------------------------------
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
            self.latch.begin(engage, future, time.monotonic())

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
                ids = tuple(i for i in self.active_ids if not self.health[i].hardware_error)
                if enabled:
                    self._hold_at(setup.read_positions(self.bus, ids, self.by_id))
                    setup.arm_watchdogs(self.bus, ids, self.config.bus_watchdog_ms)
                setup.set_torque(self.bus, ids, enabled)
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
            self._replan()
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
        self.latch.finish(False, 'bus disconnected')
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
    def run(self, stop: threading.Event, publish: Callable[[JointSample], None],
            before_cycle: Callable[[], None] | None = None) -> None:
        """The control loop on absolute deadlines; returns when `stop` is set. `before_cycle` runs
        right after each wait (the node takes the queued joint_commands there)."""
        self._loop_thread = threading.current_thread()
        self.loop_scheduling = request_realtime(self.config.loop_priority)
        if self.loop_scheduling.refused:
            self.log('warn', f'loop_priority {self.config.loop_priority}: SCHED_FIFO refused: '
                             f'{self.loop_scheduling.refused}; the loop runs under the ordinary scheduler, so a busy '
                             f'computer delays its cycles. Fix: run the driver as root or grant rtprio '
                             f'(/etc/security/limits.d), or loop_priority:=0 to ask for nothing')
        period = 1.0 / self.config.rate_hz
        self.scheduler = DeadlineScheduler(period)
        guard = 0.1 * period
        while not stop.is_set():
            self.scheduler.wait()
            if before_cycle is not None:
                before_cycle()
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
            ids = self.active_ids
            feedback = self.bus.read_feedback(ids).values
            if feedback:
                self.bus.sync_write('goal_position', {i: v['present_position'] for i, v in feedback.items()})
            if not self.config.keep_torque_on_shutdown:
                setup.set_torque(self.bus, ids, False)
                self.bus.sync_write('bus_watchdog', {i: 0 for i in ids})
                self.torque_enabled = False
        except (BusError, *PORT_FAILURES) as error:
            self.log('warn', f'shutdown could not reach every servo: {error}')
        finally:
            self._close_bus()
            self.state = 'stopped'

    # -- status and diagnostics -----------------------------------------------------------
    def status(self) -> DriverStatus:
        """Everything the diagnostics need, frozen; run it on the loop thread (`call`)."""
        cfg = self.config
        commands = self.commands
        return DriverStatus(
            port=cfg.port, baud_rate=cfg.baud_rate, state=self.state, disconnect_reason=self.disconnect_reason,
            fast_sync_read=self.fast_sync_read, torque_enabled=self.torque_enabled, cycles=self.cycles,
            missed_deadlines=self.scheduler.missed_deadlines if self.scheduler else 0,
            read_failures=self.read_failures, read_retries=self.read_retries, bytes_per_cycle=self.bytes_per_cycle,
            expected_bytes_per_cycle=self.expected_bytes_per_cycle(len(self.active_ids)),
            bus_budget=self.bus_budget, cpu_percent=self.cpu.update(),
            loop_scheduling=self.loop_scheduling.description,
            executor_scheduling=self.executor_scheduling.description,
            move_to_start_active=self.move_to_start.active, latency_timer_ms=self.latency_timer_ms,
            timing_periods_s=tuple(self.timing.periods_s), timing_bus_s=tuple(self.timing.bus_s),
            consecutive_silent_cycles=self.consecutive_silent_cycles, fault_after_failures=cfg.fault_after_failures,
            commands=CommandsStatus(commands.accepted, tuple(sorted(commands.rejected.items())),
                                    commands.is_stale(time.monotonic()), commands.guard.clamped),
            servos=tuple(ServoStatus.of(self.label(servo), servo.model.name, self.health[servo.servo_id])
                         for servo in self.servos),
            latch=self.latch.refresh() if cfg.latch is not None else None)

    def diagnostics(self) -> list[DiagnosticEntry]:
        """Built, on the calling thread, from the frozen status the loop thread hands over between
        two cycles (the timing percentiles are worked out here, off the loop)."""
        return build_diagnostics(self.call(self.status))  # type: ignore[arg-type]
