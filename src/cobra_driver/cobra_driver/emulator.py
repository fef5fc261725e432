"""Dynamixel Protocol 2.0 servo-bus emulator on a pseudo-terminal (no ROS).

A chain of emulated X-series servos answers the official SDK through a pty exactly as the
real bus would: same control-table addresses, status error byte, EEPROM lock while torque is
on, hardware-error shutdown until REBOOT, bus watchdog latching the goal registers, indirect
addresses, Return Delay Time, a first-order motion model limited by speed and current, and
fault injection (drop or corrupt a response, hardware error, removed servo, stall, vanished
port). Tests drive it in-process; `servo_emulator` runs it standalone and reads fault
commands on stdin.
"""

from __future__ import annotations

import argparse
import math
import operator
import os
import select
import signal
import sys
import threading
import time
import tty
from dataclasses import dataclass, field
from pathlib import Path

from cobra_driver import control_table as ct
from cobra_driver.loop_timing import request_realtime
from cobra_driver.protocol import (
    BROADCAST_ID, HEADER, STATUS_INSTRUCTION, Instruction, Packet, PacketParser, StatusError,
    ALERT_BIT, build_status, crc16,
)

MEMORY_SIZE = 700
TORQUE_ENABLE = ct.ITEMS['torque_enable'].address
OPERATING_MODE = ct.ITEMS['operating_mode'].address
CURRENT_LIMIT = ct.ITEMS['current_limit'].address
GOAL_CURRENT = ct.ITEMS['goal_current'].address
GOAL_POSITION = ct.ITEMS['goal_position'].address
PROFILE_VELOCITY = ct.ITEMS['profile_velocity'].address
POSITION_MODES = (ct.OperatingMode.POSITION, ct.OperatingMode.CURRENT_BASED_POSITION,
                  ct.OperatingMode.EXTENDED_POSITION)
BUS_WATCHDOG = ct.ITEMS['bus_watchdog'].address
MIN_POSITION_LIMIT = ct.ITEMS['min_position_limit'].address
MAX_POSITION_LIMIT = ct.ITEMS['max_position_limit'].address
HARDWARE_ERROR_STATUS = ct.ITEMS['hardware_error_status'].address  # one byte
RETURN_DELAY_TIME = ct.ITEMS['return_delay_time'].address  # one byte
MOTION_TIME_CONSTANT_S = 0.02
"""Position-loop time constant of the motion model: how fast an unloaded servo closes an error."""
CURRENT_PER_RAD_ERROR_A = 20.0
"""Motor current the modelled position loop asks for per radian of error (saturates at the limit)."""
MAX_SUBSTEP_S = 0.002
MIN_ADVANCE_S = 0.0002  # finer steps only cost emulator time
INDIRECT_POINTERS = slice(ct.INDIRECT_ADDRESS_1, ct.INDIRECT_ADDRESS_1 + 2 * ct.INDIRECT_SLOTS)


RAD_PER_TICK = 2.0 * math.pi / ct.POSITION_TICKS_PER_REV
VELOCITY_UNIT_RAD_S = ct.VELOCITY_UNIT_RPM * 2.0 * math.pi / 60.0


@dataclass
class Faults:
    """Pending injected faults of one servo; counters count responses still to be affected."""

    drop_responses: int = 0
    corrupt_responses: int = 0
    stalled: bool = False


class EmulatedServo:
    """One servo: control table memory plus the motion state behind it."""

    def __init__(self, servo_id: int, model: ct.ServoModel, *, position_tick: float = ct.POSITION_CENTRE_TICK,
                 now: float | None = None) -> None:
        self.servo_id = servo_id
        self.model = model
        self.memory = bytearray(MEMORY_SIZE)
        self._indirect_reads: dict[tuple[int, int], tuple[bytes, operator.itemgetter]] = {}
        self.faults = Faults()
        self.present = True
        self.position_tick = float(position_tick)
        self.velocity_rad_s = 0.0
        self.current_a = 0.0
        self.last_contact = time.monotonic() if now is None else now
        self._last_step = self.last_contact
        self._set(ct.ITEMS['model_number'], model.model_number)
        self._set(ct.ITEMS['firmware_version'], 52)
        self._set(ct.ITEMS['id'], servo_id)
        self._set(ct.ITEMS['baud_rate'], 1)
        self._set(ct.ITEMS['return_delay_time'], 250)
        self._set(ct.ITEMS['operating_mode'], ct.OperatingMode.POSITION)
        self._set(ct.ITEMS['secondary_id'], 255)
        self._set(ct.ITEMS['protocol_type'], 2)
        self._set(ct.ITEMS['moving_threshold'], 10)
        self._set(ct.ITEMS['max_position_limit'], ct.POSITION_TICKS_PER_REV - 1)
        self._set(ct.ITEMS['min_position_limit'], 0)
        self._set(ct.ITEMS['shutdown'], 52)
        for name, value in model.defaults.items():
            self._set(ct.ITEMS[name], value)
        self.reset_ram()

    # -- memory -----------------------------------------------------------------------------
    def _set(self, item: ct.Item, value: int) -> None:
        self.memory[item.address:item.address + item.size] = ct.encode(item, value)

    def get(self, name: str) -> int:
        item = ct.ITEMS[name]
        return ct.decode(item, self.memory[item.address:item.address + item.size])

    def reset_ram(self) -> None:
        """RAM defaults, as after power-on or REBOOT; EEPROM is kept."""
        self.memory[ct.EEPROM_END:] = bytes(MEMORY_SIZE - ct.EEPROM_END)
        self._set(ct.ITEMS['status_return_level'], 2)
        self._set(ct.ITEMS['velocity_i_gain'], 1920)
        self._set(ct.ITEMS['velocity_p_gain'], 100)
        self._set(ct.ITEMS['position_p_gain'], 800)
        for slot in range(ct.INDIRECT_SLOTS):
            self.memory[ct.INDIRECT_ADDRESS_1 + 2 * slot:ct.INDIRECT_ADDRESS_1 + 2 * slot + 2] = \
                (ct.INDIRECT_DATA_1 + slot).to_bytes(2, 'little')
        self._set(ct.ITEMS['goal_position'], round(self.position_tick))
        self._set(ct.ITEMS['goal_current'], self.model.defaults['current_limit'])
        self._set(ct.ITEMS['present_input_voltage'], 120)
        self._set(ct.ITEMS['present_temperature'], 36)
        self.velocity_rad_s = 0.0
        self.current_a = 0.0
        self._publish_present()

    def _publish_present(self) -> None:
        self._set(ct.ITEMS['present_position'], round(self.position_tick))
        self._set(ct.ITEMS['present_velocity'], round(self.velocity_rad_s / VELOCITY_UNIT_RAD_S))
        self._set(ct.ITEMS['present_current'], round(self.current_a / self.model.current_unit_a))
        self._set(ct.ITEMS['moving'], int(abs(self.velocity_rad_s) > 1e-3))
        self._set(ct.ITEMS['realtime_tick'], int(time.monotonic() * 1000.0) % 32768)

    def _goal_beyond_limits(self, goal: int) -> bool:
        """The position modes refuse a goal outside the position limits (the others ignore them)."""
        memory = self.memory
        if memory[OPERATING_MODE] not in (ct.OperatingMode.POSITION, ct.OperatingMode.CURRENT_BASED_POSITION):
            return False
        low = int.from_bytes(memory[MIN_POSITION_LIMIT:MIN_POSITION_LIMIT + 4], 'little', signed=True)
        high = int.from_bytes(memory[MAX_POSITION_LIMIT:MAX_POSITION_LIMIT + 4], 'little', signed=True)
        return not low <= goal <= high

    def _resolve(self, address: int) -> int:
        """Address that really holds the byte at `address` (follows indirect data slots)."""
        slot = address - ct.INDIRECT_DATA_1
        if 0 <= slot < ct.INDIRECT_SLOTS:
            pointer = ct.INDIRECT_ADDRESS_1 + 2 * slot
            return int.from_bytes(self.memory[pointer:pointer + 2], 'little')
        return address

    def read(self, address: int, length: int) -> tuple[int, bytes]:
        if address < 0 or length < 0 or address + length > MEMORY_SIZE:
            return StatusError.DATA_RANGE, b''
        end = address + length
        if end <= ct.INDIRECT_DATA_1 or address >= ct.INDIRECT_DATA_1 + ct.INDIRECT_SLOTS:
            return StatusError.NONE, bytes(self.memory[address:end])
        pointers = bytes(self.memory[INDIRECT_POINTERS])
        cached = self._indirect_reads.get((address, length))
        if cached is None or cached[0] != pointers:  # the 500 Hz read resolves its slots once
            targets = [self._resolve(a) for a in range(address, end)] + [0]  # keeps a tuple result
            cached = (pointers, operator.itemgetter(*targets))
            self._indirect_reads[(address, length)] = cached
        return StatusError.NONE, bytes(cached[1](self.memory)[:length])

    def write(self, address: int, data: bytes) -> int:
        """Apply a WRITE; return the status error number (0 = accepted)."""
        if address == GOAL_POSITION and len(data) == 4:  # the 500 Hz path: same rules, less work
            if self.memory[BUS_WATCHDOG] == ct.BUS_WATCHDOG_TRIPPED:
                return StatusError.ACCESS
            goal = int.from_bytes(data, 'little', signed=True)
            if self._goal_beyond_limits(goal):
                return StatusError.DATA_LIMIT
            self.memory[GOAL_POSITION:GOAL_POSITION + 4] = data
            return StatusError.NONE
        if address < 0 or address + len(data) > MEMORY_SIZE:
            return StatusError.DATA_RANGE
        targets = [self._resolve(a) for a in range(address, address + len(data))]
        torque_on = self.memory[ct.ITEMS['torque_enable'].address] == 1
        watchdog_tripped = self.memory[ct.ITEMS['bus_watchdog'].address] == ct.BUS_WATCHDOG_TRIPPED
        indirect_addresses = range(ct.INDIRECT_ADDRESS_1, ct.INDIRECT_ADDRESS_1 + 2 * ct.INDIRECT_SLOTS)
        for target in targets:
            item = _item_at(target)
            if item is not None and not item.writable:
                return StatusError.ACCESS
            if torque_on and (target < ct.EEPROM_END or target in indirect_addresses):
                return StatusError.ACCESS
            if watchdog_tripped and target in ct.GOAL_ADDRESS_RANGE:
                return StatusError.ACCESS
        staged = bytearray(self.memory)
        for target, byte in zip(targets, data):
            staged[target] = byte
        goal_item = ct.ITEMS['goal_position']
        if any(t in range(goal_item.address, goal_item.address + 4) for t in targets):
            if self._goal_beyond_limits(ct.decode(goal_item, staged[goal_item.address:goal_item.address + 4])):
                return StatusError.DATA_LIMIT
        torque_address = ct.ITEMS['torque_enable'].address
        if torque_address in targets and staged[torque_address] == 1 and self.get('hardware_error_status'):
            return StatusError.RESULT_FAIL
        watchdog_address = ct.ITEMS['bus_watchdog'].address
        if watchdog_address in targets and staged[watchdog_address] > 127:
            return StatusError.DATA_RANGE
        self.memory[:] = staged
        return StatusError.NONE

    @property
    def error_byte_flags(self) -> int:
        return ALERT_BIT if self.memory[HARDWARE_ERROR_STATUS] else 0

    # -- faults -----------------------------------------------------------------------------
    def raise_hardware_error(self, bits: int) -> None:
        """The servo's protection trips: torque off and motion refused until REBOOT."""
        self.memory[ct.ITEMS['hardware_error_status'].address] |= bits
        self.memory[ct.ITEMS['torque_enable'].address] = 0

    def reboot(self) -> None:
        self.reset_ram()

    # -- motion -----------------------------------------------------------------------------
    def touch(self, now: float) -> None:
        """An instruction packet reached this servo: it feeds the bus watchdog."""
        self.last_contact = now

    def advance(self, now: float) -> None:
        """Integrate the motion model up to `now` and run the bus watchdog."""
        if now - self._last_step < MIN_ADVANCE_S:
            return
        memory = self.memory
        if memory[TORQUE_ENABLE] != 1 and memory[BUS_WATCHDOG] in (0, ct.BUS_WATCHDOG_TRIPPED) \
                and self.velocity_rad_s == 0.0 and self.current_a == 0.0:
            self._last_step = now  # limp and idle: nothing moves, nothing to watch
            return
        while self._last_step < now:
            dt = min(MAX_SUBSTEP_S, now - self._last_step)
            self._last_step += dt
            self._check_watchdog(self._last_step)
            self._step(dt)
        self._publish_present()

    def _check_watchdog(self, now: float) -> None:
        watchdog = self.memory[ct.ITEMS['bus_watchdog'].address]
        if 0 < watchdog <= 127 and self.memory[ct.ITEMS['torque_enable'].address] == 1 and \
                now - self.last_contact > watchdog * ct.BUS_WATCHDOG_UNIT_S:
            self.memory[ct.ITEMS['bus_watchdog'].address] = ct.BUS_WATCHDOG_TRIPPED
            self._set(ct.ITEMS['goal_position'], round(self.position_tick))  # stop where it is

    def _step(self, dt: float) -> None:
        memory = self.memory
        mode = memory[OPERATING_MODE]
        if memory[TORQUE_ENABLE] != 1 or mode not in POSITION_MODES:
            self.velocity_rad_s = 0.0
            self.current_a = 0.0
            return
        unit_a = self.model.current_unit_a
        limit_a = int.from_bytes(memory[CURRENT_LIMIT:CURRENT_LIMIT + 2], 'little') * unit_a
        if mode == ct.OperatingMode.CURRENT_BASED_POSITION:
            limit_a = min(limit_a, abs(int.from_bytes(memory[GOAL_CURRENT:GOAL_CURRENT + 2], 'little',
                                                      signed=True)) * unit_a)
        goal = int.from_bytes(memory[GOAL_POSITION:GOAL_POSITION + 4], 'little', signed=True)
        error_rad = (goal - self.position_tick) * RAD_PER_TICK
        self.current_a = max(-limit_a, min(limit_a, error_rad * CURRENT_PER_RAD_ERROR_A))
        if self.faults.stalled:
            self.velocity_rad_s = 0.0
            return
        speed_limit = self.model.no_load_speed_rad_s
        profile = int.from_bytes(memory[PROFILE_VELOCITY:PROFILE_VELOCITY + 4], 'little')
        if profile:
            speed_limit = min(speed_limit, profile * VELOCITY_UNIT_RAD_S)
        velocity = max(-speed_limit, min(speed_limit, error_rad / MOTION_TIME_CONSTANT_S))
        self.velocity_rad_s = velocity
        self.position_tick += velocity * dt / RAD_PER_TICK


def _addressed_ids(packet: Packet) -> list[int]:
    """Servo IDs an instruction packet speaks to (broadcast ping: none in particular)."""
    params = packet.params
    if packet.instruction in (Instruction.SYNC_READ, Instruction.FAST_SYNC_READ):
        return list(params[4:])
    if packet.instruction == Instruction.SYNC_WRITE and len(params) >= 4:
        stride = 1 + int.from_bytes(params[2:4], 'little')
        return [params[offset] for offset in range(4, len(params), stride)]
    return [] if packet.packet_id == BROADCAST_ID else [packet.packet_id]


def _build_item_index() -> dict[int, ct.Item]:
    index: dict[int, ct.Item] = {}
    for item in ct.ITEMS.values():
        for address in range(item.address, item.address + item.size):
            index[address] = item
    return index


_ITEM_AT = _build_item_index()


def _item_at(address: int) -> ct.Item | None:
    return _ITEM_AT.get(address)


@dataclass
class BusStatistics:
    bytes_received: int = 0
    bytes_sent: int = 0
    instructions: dict[str, int] = field(default_factory=dict)


class ServoBusEmulator:
    """A daisy chain of emulated servos behind one pty; answers from a background thread."""

    def __init__(self, servos: dict[int, ct.ServoModel], *, link_path: str | os.PathLike[str] | None = None,
                 wire_baud_rate: int | None = None, realtime_priority: int = 0) -> None:
        now = time.monotonic()
        self.realtime_priority = realtime_priority
        """SCHED_FIFO priority of the answering thread (0: the ordinary scheduler): servos answer in
        hardware time, so beside a real-time driver loop on a busy machine their stand-in must not
        queue for a CPU behind it (its late answers would read as servo motion)."""
        self.servos = {servo_id: EmulatedServo(servo_id, model, now=now) for servo_id, model in servos.items()}
        self.link_path = Path(link_path) if link_path is not None else None
        self.wire_baud_rate = wire_baud_rate
        """When set, responses are delayed by their bytes' time on a wire of this baud rate."""
        self.statistics = BusStatistics()
        self._lock = threading.RLock()
        self._master_fd: int | None = None
        self._slave_fd: int | None = None
        self._slave_name = ''
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._parser = PacketParser()

    # -- life cycle -------------------------------------------------------------------------
    @property
    def port(self) -> str:
        """The path a driver opens: the stable link when one was asked for, else the pty itself."""
        return str(self.link_path) if self.link_path is not None else self._slave_name

    def start(self) -> ServoBusEmulator:
        self._open_pty()
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name='servo-bus-emulator', daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        self._close_pty()

    def __enter__(self) -> ServoBusEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _open_pty(self) -> None:
        master_fd, slave_fd = os.openpty()
        tty.setraw(master_fd)
        tty.setraw(slave_fd)
        with self._lock:
            self._master_fd, self._slave_fd = master_fd, slave_fd
            self._slave_name = os.ttyname(slave_fd)
            self._parser = PacketParser()
        if self.link_path is not None:
            tmp = self.link_path.with_name(self.link_path.name + '.tmp')
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(self._slave_name)
            tmp.replace(self.link_path)

    def _close_pty(self) -> None:
        with self._lock:
            fds = (self._master_fd, self._slave_fd)
            self._master_fd = self._slave_fd = None
        if self.link_path is not None:
            self.link_path.unlink(missing_ok=True)
        for fd in fds:
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass

    def vanish(self) -> None:
        """The adapter is unplugged: the pty disappears (and the stable link with it)."""
        self._close_pty()

    def reappear(self) -> None:
        """The adapter is plugged back in: a new pty behind the same link path."""
        self._open_pty()

    # -- fault injection --------------------------------------------------------------------
    def servo(self, servo_id: int) -> EmulatedServo:
        return self.servos[servo_id]

    def drop_responses(self, servo_id: int, count: int = 1) -> None:
        with self._lock:
            self.servos[servo_id].faults.drop_responses += count

    def corrupt_responses(self, servo_id: int, count: int = 1) -> None:
        with self._lock:
            self.servos[servo_id].faults.corrupt_responses += count

    def raise_hardware_error(self, servo_id: int, bits: int = ct.HardwareErrorBit.OVERLOAD) -> None:
        with self._lock:
            self.servos[servo_id].raise_hardware_error(bits)

    def set_present(self, servo_id: int, present: bool) -> None:
        with self._lock:
            self.servos[servo_id].present = present

    def set_stalled(self, servo_id: int, stalled: bool) -> None:
        with self._lock:
            self.servos[servo_id].faults.stalled = stalled

    def power_cycle(self, servo_id: int, position_tick: float | None = None) -> None:
        """The servo loses power (RAM back to defaults: torque off, limp), optionally moved by hand."""
        with self._lock:
            servo = self.servos[servo_id]
            if position_tick is not None:
                servo.position_tick = float(position_tick)
            servo.reset_ram()

    def snapshot(self, servo_id: int, name: str) -> int:
        """Current value of one control-table item (after advancing the motion model)."""
        with self._lock:
            servo = self.servos[servo_id]
            servo.advance(time.monotonic())
            return servo.get(name)

    def set_item(self, servo_id: int, name: str, value: int) -> None:
        """Write one control-table item directly, as the servo itself would report it (a fault
        such as an over-temperature reading, a sagging supply, another firmware version)."""
        with self._lock:
            self.servos[servo_id]._set(ct.ITEMS[name], value)

    def set_position_tick(self, servo_id: int, tick: float) -> None:
        with self._lock:
            servo = self.servos[servo_id]
            servo.position_tick = tick
            servo.reset_ram() if not servo.get('torque_enable') else None

    # -- serving ----------------------------------------------------------------------------
    def _serve(self) -> None:
        if self.realtime_priority:
            request_realtime(self.realtime_priority)  # refused: the ordinary scheduler, as before
        while not self._stop.is_set():
            fd = self._master_fd
            if fd is None:
                time.sleep(0.005)
                self._advance_all()
                continue
            try:
                readable, _, _ = select.select([fd], [], [], 0.005)
            except (OSError, ValueError):
                time.sleep(0.005)
                continue
            if not readable:
                self._advance_all()
                continue
            try:
                data = os.read(fd, 4096)
            except OSError:
                time.sleep(0.005)
                continue
            if not data:
                continue
            with self._lock:
                self.statistics.bytes_received += len(data)
                packets = self._parser.feed(data)
                now = time.monotonic()
                # Bytes that waited in the pty while this thread was busy arrived "now" as far as
                # the servos can tell: feed their watchdogs before integrating up to now.
                for packet in packets:
                    for servo_id in _addressed_ids(packet):
                        servo = self.servos.get(servo_id)
                        if servo is not None and servo.present:
                            servo.touch(now)
                for servo in self.servos.values():
                    servo.advance(now)
                for packet in packets:
                    self._handle(packet)

    def _advance_all(self) -> None:
        with self._lock:
            now = time.monotonic()
            for servo in self.servos.values():
                servo.advance(now)

    def _send(self, data: bytes, delay_s: float) -> None:
        if self.wire_baud_rate:
            delay_s += len(data) * 10.0 / self.wire_baud_rate
        if delay_s > 0.0:
            deadline = time.perf_counter() + delay_s
            while time.perf_counter() < deadline:
                pass
        fd = self._master_fd
        if fd is None:
            return
        try:
            os.write(fd, data)
            self.statistics.bytes_sent += len(data)
        except OSError:
            pass

    def _return_delay_s(self, servo: EmulatedServo) -> float:
        return servo.memory[RETURN_DELAY_TIME] * ct.RETURN_DELAY_UNIT_US * 1e-6

    def _answering(self, servo_id: int) -> EmulatedServo | None:
        servo = self.servos.get(servo_id)
        return servo if servo is not None and servo.present else None

    def _status(self, servo: EmulatedServo, error: int, params: bytes = b'') -> bytes | None:
        """The status packet this servo puts on the wire, after its injected faults (None = silent)."""
        if servo.faults.drop_responses:
            servo.faults.drop_responses -= 1
            return None
        packet = bytearray(build_status(servo.servo_id, error | servo.error_byte_flags, params))
        if servo.faults.corrupt_responses:
            servo.faults.corrupt_responses -= 1
            packet[-1] ^= 0xFF
        return bytes(packet)

    def _handle(self, packet: Packet) -> None:
        now = time.monotonic()
        name = Instruction(packet.instruction).name if packet.instruction in Instruction._value2member_map_ \
            else hex(packet.instruction)
        self.statistics.instructions[name] = self.statistics.instructions.get(name, 0) + 1
        instruction, params, target = packet.instruction, packet.params, packet.packet_id
        if instruction == STATUS_INSTRUCTION:
            return
        if instruction in (Instruction.SYNC_WRITE, Instruction.SYNC_READ, Instruction.FAST_SYNC_READ):
            self._handle_sync(instruction, params, now)
            return
        if target == BROADCAST_ID:
            if instruction == Instruction.PING:
                for servo in self.servos.values():
                    if servo.present:
                        servo.touch(now)
                        self._reply(servo, StatusError.NONE, self._ping_params(servo))
            return
        servo = self._answering(target)
        if servo is None:
            return
        servo.touch(now)
        if instruction == Instruction.PING:
            self._reply(servo, StatusError.NONE, self._ping_params(servo))
        elif instruction == Instruction.READ:
            if len(params) != 4:
                self._reply(servo, StatusError.DATA_LENGTH)
                return
            address, length = int.from_bytes(params[0:2], 'little'), int.from_bytes(params[2:4], 'little')
            error, data = servo.read(address, length)
            self._reply(servo, error, data)
        elif instruction == Instruction.WRITE:
            if len(params) < 3:
                self._reply(servo, StatusError.DATA_LENGTH)
                return
            error = servo.write(int.from_bytes(params[0:2], 'little'), params[2:])
            self._reply(servo, error)
        elif instruction == Instruction.REBOOT:
            self._reply(servo, StatusError.NONE)
            servo.reboot()
        else:
            self._reply(servo, StatusError.INSTRUCTION)

    def _reply(self, servo: EmulatedServo, error: int, params: bytes = b'') -> None:
        status = self._status(servo, error, params)
        if status is not None:
            self._send(status, self._return_delay_s(servo))

    @staticmethod
    def _ping_params(servo: EmulatedServo) -> bytes:
        return servo.model.model_number.to_bytes(2, 'little') + bytes([servo.get('firmware_version')])

    def _handle_sync(self, instruction: int, params: bytes, now: float) -> None:
        if len(params) < 4:
            return
        address = int.from_bytes(params[0:2], 'little')
        length = int.from_bytes(params[2:4], 'little')
        if instruction == Instruction.SYNC_WRITE:
            stride = 1 + length
            for offset in range(4, len(params) - stride + 1, stride):
                servo = self._answering(params[offset])
                if servo is not None:
                    servo.touch(now)
                    servo.write(address, params[offset + 1:offset + stride])
            return
        ids = list(params[4:])
        if instruction == Instruction.SYNC_READ:
            delay_s = 0.0
            for servo_id in ids:
                servo = self._answering(servo_id)
                if servo is None:
                    continue  # the master times out on this one
                servo.touch(now)
                delay_s += self._return_delay_s(servo)
                error, data = servo.read(address, length)
                status = self._status(servo, error, data)
                if status is not None:
                    self._send(status, delay_s)
                    delay_s = 0.0
            return
        self._fast_sync_read(ids, address, length, now)

    def _fast_sync_read(self, ids: list[int], address: int, length: int, now: float) -> None:
        """One status packet for all: per servo error, id, data, CRC chained over the packet so far.

        The servos answer in turn; a silent servo cuts the packet short (the SDK then reports
        a timeout/corrupt packet); a corrupt one is garbled on the wire, which spoils its segment
        CRC and, the chain being over the bytes sent, every CRC after it as the master sees them.
        """
        total_length = 1 + len(ids) * (length + 4)
        packet = bytearray(HEADER + bytes([BROADCAST_ID, total_length & 0xFF, total_length >> 8,
                                           STATUS_INSTRUCTION]))
        delay_s = 0.0
        crc = crc16(packet)
        for servo_id in ids:
            servo = self._answering(servo_id)
            if servo is None:
                break
            servo.touch(now)
            delay_s += self._return_delay_s(servo)
            if servo.faults.drop_responses:
                servo.faults.drop_responses -= 1
                break
            error, data = servo.read(address, length)
            segment = bytes([error | servo.error_byte_flags, servo_id]) + data
            packet += segment
            crc = crc16(segment, crc)
            crc_bytes = bytes([crc & 0xFF, crc >> 8])
            crc = crc16(crc_bytes, crc)  # the next servo chains on what it sent
            if servo.faults.corrupt_responses:
                servo.faults.corrupt_responses -= 1
                crc_bytes = bytes([crc_bytes[0] ^ 0xFF, crc_bytes[1]])  # garbled on the wire
            packet += crc_bytes
        if len(packet) > 8:
            self._send(bytes(packet), delay_s)


def cobra_bus(joint_ids: list[int] | None = None, latch_id: int | None = 12, **kwargs: object) -> ServoBusEmulator:
    """The COBRA chain: XH540-W270 joints (IDs 1..11 unless given) and the XC330-T288 latch."""
    servos: dict[int, ct.ServoModel] = {servo_id: ct.XH540_W270 for servo_id in (joint_ids or range(1, 12))}
    if latch_id is not None:
        servos[latch_id] = ct.XC330_T288
    return ServoBusEmulator(servos, **kwargs)  # type: ignore[arg-type]


CONSOLE_HELP = """commands (one per line on stdin):
  drop ID [N]        drop the next N responses of servo ID
  corrupt ID [N]     corrupt the CRC of the next N responses of servo ID
  hwerror ID [BITS]  raise a hardware error (default 32 = overload)
  remove ID / restore ID   servo stops / resumes answering
  stall ID / unstall ID    servo cannot move (current rises)
  vanish / reappear  the pty disappears / comes back behind the same link
  get ID ITEM        print a control-table item, e.g. 'get 1 present_position'
  quit"""


def _console_command(bus: ServoBusEmulator, words: list[str]) -> str:
    command, args = words[0], [int(w) if w.lstrip('-').isdigit() else w for w in words[1:]]
    if command == 'drop':
        bus.drop_responses(int(args[0]), int(args[1]) if len(args) > 1 else 1)
    elif command == 'corrupt':
        bus.corrupt_responses(int(args[0]), int(args[1]) if len(args) > 1 else 1)
    elif command == 'hwerror':
        bus.raise_hardware_error(int(args[0]), int(args[1]) if len(args) > 1 else ct.HardwareErrorBit.OVERLOAD)
    elif command in ('remove', 'restore'):
        bus.set_present(int(args[0]), command == 'restore')
    elif command in ('stall', 'unstall'):
        bus.set_stalled(int(args[0]), command == 'stall')
    elif command == 'vanish':
        bus.vanish()
    elif command == 'reappear':
        bus.reappear()
    elif command == 'get':
        return str(bus.snapshot(int(args[0]), str(args[1])))
    else:
        return f"unknown command '{command}'\n{CONSOLE_HELP}"
    return 'ok'


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description='Dynamixel Protocol 2.0 servo-bus emulator on a pty.',
                                     epilog=CONSOLE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--joint-ids', type=int, nargs='*', default=list(range(1, 12)),
                        help='IDs of the XH540-W270 joint servos (default 1..11)')
    parser.add_argument('--latch-id', type=int, default=12, help='ID of the XC330-T288 latch servo; -1 = none')
    parser.add_argument('--link', default=None, help='stable symlink to the pty (like a udev rule)')
    parser.add_argument('--wire-baud', type=int, default=0,
                        help='delay responses by their time on a wire of this baud rate (0 = off)')
    args = parser.parse_args(argv)
    # A background shell starts us with SIGINT ignored; SIGTERM should also end us cleanly.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)
    bus = cobra_bus(args.joint_ids, None if args.latch_id < 0 else args.latch_id,
                    link_path=args.link, wire_baud_rate=args.wire_baud or None)
    bus.start()
    print(bus.port, flush=True)
    try:
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            if words[0] == 'quit':
                break
            try:
                print(_console_command(bus, words), flush=True)
            except (IndexError, ValueError, KeyError) as error:
                print(f'error: {error!r}\n{CONSOLE_HELP}', flush=True)
        else:
            while True:  # stdin closed (e.g. started with </dev/null): serve until killed
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        bus.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
