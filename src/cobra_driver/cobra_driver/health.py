"""Servo and bus health, and the diagnostics built from it (no ROS).

The loop records every read here (fresh or failed, per servo); a servo that fails
`fault_after_failures` reads in a row is faulted and leaves the loop until it answers a probe.
Diagnostics turn the counters into one entry for the bus, one for commands, one per servo and
one for the latch; the node only converts them to diagnostic_msgs.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cobra_driver import control_table as ct

if TYPE_CHECKING:
    from cobra_driver.driver_core import JointDriver


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


def build_diagnostics(driver: JointDriver) -> list[DiagnosticEntry]:
    """Bus, commands, one entry per servo, latch: what an operator needs to find a fault by name."""
    entries = [_bus_entry(driver), _commands_entry(driver)]
    for servo in driver.servos:
        entries.append(_servo_entry(driver.label(servo), servo.model.name, driver.health[servo.servo_id]))
    if driver.config.latch is not None:
        status = driver.latch.refresh()
        entries.append(DiagnosticEntry('joint_driver: latch', 'error' if status.state == 'failed' else 'ok',
                                       status.message or status.state,
                                       {'state': status.state, 'position_rad': f'{status.position_rad:.3f}',
                                        'current_a': f'{status.current_a:.3f}'}))
    return entries


def _bus_entry(driver: JointDriver) -> DiagnosticEntry:
    cfg = driver.config
    summary = driver.timing.summary()
    missed = driver.scheduler.missed_deadlines if driver.scheduler else 0
    budget = driver.bus_budget
    expected = driver.expected_bytes_per_cycle(len(driver.active_ids))
    values = {
        'port': cfg.port, 'baud_rate': str(cfg.baud_rate), 'state': driver.state,
        'fast_sync_read': str(driver.fast_sync_read), 'torque_enabled': str(driver.torque_enabled),
        'cycles': str(driver.cycles), 'missed_deadlines': str(missed),
        'read_failures': str(driver.read_failures), 'read_retries': str(driver.read_retries),
        'bytes_per_cycle': f'{driver.bytes_per_cycle:.0f}', 'expected_bytes_per_cycle': str(expected),
        'wire_time_per_cycle_ms': f'{1e3 * budget.wire_s:.3f}',
        'wire_time_fraction_of_period': f'{budget.fraction:.2f}',
        'cpu_percent': f'{driver.cpu.update():.1f}',
        'move_to_start': str(driver.move_to_start.active),
        'latency_timer_ms': 'none (not an FTDI adapter)' if driver.latency_timer_ms is None
        else str(driver.latency_timer_ms),
    }
    if summary is not None:
        values.update({
            'rate_hz': f'{summary.rate_hz:.1f}', 'period_p50_ms': f'{summary.period_p50_ms:.3f}',
            'period_p99_ms': f'{summary.period_p99_ms:.3f}', 'period_max_ms': f'{summary.period_max_ms:.3f}',
            'jitter_ms': f'{summary.jitter_ms:.3f}', 'bus_p50_ms': f'{summary.bus_p50_ms:.3f}',
            'bus_p99_ms': f'{summary.bus_p99_ms:.3f}', 'bus_max_ms': f'{summary.bus_max_ms:.3f}'})
    name = 'joint_driver: bus'
    if driver.state == 'disconnected':
        return DiagnosticEntry(name, 'error', f'disconnected: {driver.disconnect_reason}; reconnecting', values)
    if driver.consecutive_silent_cycles >= cfg.fault_after_failures:
        return DiagnosticEntry(name, 'error', f'no servo answered for {driver.consecutive_silent_cycles} cycles: '
                                              f'check the 12 V supply and the RS-485 cable from the U2D2', values)
    problems = []
    if budget.level != 'ok':
        problems.append(budget.message())
    if missed or driver.read_failures:
        problems.append(f'{missed} missed deadlines, {driver.read_failures} failed reads')
    if problems:
        return DiagnosticEntry(name, 'warn', '; '.join(problems), values)
    return DiagnosticEntry(name, 'ok', 'running', values)


def _commands_entry(driver: JointDriver) -> DiagnosticEntry:
    commands = driver.commands
    rejected_counts = commands.rejected
    rejected = ', '.join(f'{k}: {v}' for k, v in sorted(rejected_counts.items())) or 'none'
    return DiagnosticEntry(
        'joint_driver: commands', 'warn' if rejected_counts else 'ok',
        f'rejected commands: {rejected}' if rejected_counts else 'ok',
        {'accepted': str(commands.accepted), 'rejected': rejected,
         'stale': str(commands.is_stale(time.monotonic())),
         'commands_clamped': str(commands.guard.clamped),
         **{f'commands_rejected_{cause}': str(count) for cause, count in rejected_counts.items()}})


def _servo_entry(label: str, model_name: str, health: ServoHealth) -> DiagnosticEntry:
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
    return DiagnosticEntry(f'joint_driver: {label}', level, message, {
        'model': model_name, 'voltage_v': f'{health.voltage_v:.1f}',
        'temperature_c': f'{health.temperature_c:.0f}', 'hardware_error_status': str(health.hardware_error),
        'read_failures': str(health.read_failures), 'watchdog_trips': str(health.watchdog_trips)})
