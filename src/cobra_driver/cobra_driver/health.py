"""Servo and bus health, and the diagnostics built from it (no ROS).

The loop records every read here (fresh or failed, per servo); a servo that fails
`fault_after_failures` reads in a row is faulted and leaves the loop until it answers a probe.
Diagnostics are built from a frozen DriverStatus that the loop thread publishes, never from the
driver itself, so the executor thread shares no mutable state with the loop: one entry for the
bus, one for commands, one per servo and one for the latch; the node converts them to messages.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from cobra_driver import control_table as ct
from cobra_driver.driver_config import BusBudget
from cobra_driver.latch import LatchStatus
from cobra_driver.loop_timing import summarize_timing


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

    @property
    def in_loop(self) -> bool:
        """Read (and, unless in hardware error, driven) every cycle."""
        return not self.missing and not self.faulted and self.rebooting_since is None


@dataclass
class DiagnosticEntry:
    name: str
    level: str  # 'ok' | 'warn' | 'error'
    message: str
    values: dict[str, str] = field(default_factory=dict)


def record_failure(health: ServoHealth, fault_after_failures: int) -> bool:
    """Count one failed read of this servo; True when this failure makes it faulted."""
    health.read_failures += 1
    health.consecutive_failures += 1
    if health.consecutive_failures >= fault_after_failures and not health.faulted:
        health.faulted = True
        return True
    return False


class CpuMeter:
    """Share of one core this process used between two diagnostics calls."""

    def __init__(self) -> None:
        self._mark = (time.process_time(), time.perf_counter())
        self.percent = math.nan

    def update(self) -> float:
        now = (time.process_time(), time.perf_counter())
        elapsed = now[1] - self._mark[1]
        if elapsed > 0.1:
            self.percent = 100.0 * (now[0] - self._mark[0]) / elapsed
            self._mark = now
        return self.percent


@dataclass(frozen=True)
class ServoStatus:
    """One servo's health as the loop thread saw it."""
    label: str
    model_name: str
    read_failures: int
    consecutive_failures: int
    faulted: bool
    missing: bool
    hardware_error: int
    voltage_v: float
    temperature_c: float
    watchdog_trips: int
    rebooting: bool

    @classmethod
    def of(cls, label: str, model_name: str, health: ServoHealth) -> ServoStatus:
        return cls(label, model_name, health.read_failures, health.consecutive_failures, health.faulted,
                   health.missing, health.hardware_error, health.voltage_v, health.temperature_c,
                   health.watchdog_trips, health.rebooting_since is not None)


@dataclass(frozen=True)
class CommandsStatus:
    accepted: int
    rejected: tuple[tuple[str, int], ...]  # (cause, count), sorted by cause
    stale: bool
    clamped: int


@dataclass(frozen=True)
class DriverStatus:
    """Everything the diagnostics read, frozen by the loop thread (the only thread that writes the
    driver's state) and handed to the executor thread by one reference swap."""
    port: str
    baud_rate: int
    state: str
    disconnect_reason: str
    fast_sync_read: bool
    torque_enabled: bool
    cycles: int
    missed_deadlines: int
    read_failures: int
    read_retries: int
    bytes_per_cycle: float
    expected_bytes_per_cycle: int
    bus_budget: BusBudget
    cpu_percent: float
    loop_scheduling: str
    executor_scheduling: str
    move_to_start_active: bool
    latency_timer_ms: int | None
    timing_periods_s: tuple[float, ...]  # raw samples: the percentiles are worked out off the loop thread
    timing_bus_s: tuple[float, ...]
    consecutive_silent_cycles: int
    fault_after_failures: int
    commands: CommandsStatus
    servos: tuple[ServoStatus, ...]
    latch: LatchStatus | None


def build_diagnostics(status: DriverStatus) -> list[DiagnosticEntry]:
    """Bus, commands, one entry per servo, latch: what an operator needs to find a fault by name."""
    entries = [_bus_entry(status), _commands_entry(status.commands)]
    entries += [_servo_entry(servo) for servo in status.servos]
    latch = status.latch
    if latch is not None:
        entries.append(DiagnosticEntry('joint_driver: latch', 'error' if latch.state == 'failed' else 'ok',
                                       latch.message or latch.state,
                                       {'state': latch.state, 'position_rad': f'{latch.position_rad:.3f}',
                                        'current_a': f'{latch.current_a:.3f}'}))
    return entries


def _bus_entry(status: DriverStatus) -> DiagnosticEntry:
    summary = summarize_timing(status.timing_periods_s, status.timing_bus_s)
    missed = status.missed_deadlines
    budget = status.bus_budget
    values = {
        'port': status.port, 'baud_rate': str(status.baud_rate), 'state': status.state,
        'fast_sync_read': str(status.fast_sync_read), 'torque_enabled': str(status.torque_enabled),
        'cycles': str(status.cycles), 'missed_deadlines': str(missed),
        'read_failures': str(status.read_failures), 'read_retries': str(status.read_retries),
        'bytes_per_cycle': f'{status.bytes_per_cycle:.0f}',
        'expected_bytes_per_cycle': str(status.expected_bytes_per_cycle),
        'wire_time_per_cycle_ms': f'{1e3 * budget.wire_s:.3f}',
        'wire_time_fraction_of_period': f'{budget.fraction:.2f}',
        'cpu_percent': f'{status.cpu_percent:.1f}',
        'loop_scheduling': status.loop_scheduling,
        'executor_scheduling': status.executor_scheduling,
        'move_to_start': str(status.move_to_start_active),
        'latency_timer_ms': 'none (not an FTDI adapter)' if status.latency_timer_ms is None
        else str(status.latency_timer_ms),
    }
    if summary is not None:
        values.update({
            'rate_hz': f'{summary.rate_hz:.1f}', 'period_p50_ms': f'{summary.period_p50_ms:.3f}',
            'period_p99_ms': f'{summary.period_p99_ms:.3f}', 'period_max_ms': f'{summary.period_max_ms:.3f}',
            'jitter_ms': f'{summary.jitter_ms:.3f}', 'bus_p50_ms': f'{summary.bus_p50_ms:.3f}',
            'bus_p99_ms': f'{summary.bus_p99_ms:.3f}', 'bus_max_ms': f'{summary.bus_max_ms:.3f}'})
    name = 'joint_driver: bus'
    if status.state == 'disconnected':
        return DiagnosticEntry(name, 'error', f'disconnected: {status.disconnect_reason}; reconnecting', values)
    if status.consecutive_silent_cycles >= status.fault_after_failures:
        return DiagnosticEntry(name, 'error', f'no servo answered for {status.consecutive_silent_cycles} cycles: '
                                              f'check the 12 V supply and the RS-485 cable from the U2D2', values)
    problems = []
    if budget.level != 'ok':
        problems.append(budget.message())
    if missed or status.read_failures:
        problems.append(f'{missed} missed deadlines, {status.read_failures} failed reads')
    if problems:
        return DiagnosticEntry(name, 'warn', '; '.join(problems), values)
    return DiagnosticEntry(name, 'ok', 'running', values)


def _commands_entry(commands: CommandsStatus) -> DiagnosticEntry:
    rejected = ', '.join(f'{k}: {v}' for k, v in commands.rejected) or 'none'
    return DiagnosticEntry(
        'joint_driver: commands', 'warn' if commands.rejected else 'ok',
        f'rejected commands: {rejected}' if commands.rejected else 'ok',
        {'accepted': str(commands.accepted), 'rejected': rejected,
         'stale': str(commands.stale),
         'commands_clamped': str(commands.clamped),
         **{f'commands_rejected_{cause}': str(count) for cause, count in commands.rejected}})


def _servo_entry(servo: ServoStatus) -> DiagnosticEntry:
    level, message = 'ok', 'ok'
    if servo.hardware_error:
        level, message = 'error', f'hardware error: {ct.describe_hardware_error(servo.hardware_error)}'
    elif servo.rebooting:
        level, message = 'warn', 'rebooting'
    elif servo.missing:
        level, message = 'error', 'missing (no reply)'
    elif servo.faulted:
        level, message = 'error', f'faulted: {servo.consecutive_failures} failed reads in a row'
    elif servo.consecutive_failures:
        level, message = 'warn', 'read failures'
    return DiagnosticEntry(f'joint_driver: {servo.label}', level, message, {
        'model': servo.model_name, 'voltage_v': f'{servo.voltage_v:.1f}',
        'temperature_c': f'{servo.temperature_c:.0f}', 'hardware_error_status': str(servo.hardware_error),
        'read_failures': str(servo.read_failures), 'watchdog_trips': str(servo.watchdog_trips)})
