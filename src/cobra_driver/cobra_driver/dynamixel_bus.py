"""Thin layer over the official Dynamixel SDK: port set-up, pings, register access, group I/O.

No ROS here. It fixes the SDK defaults that break a 500 Hz loop: the packet timeout (the SDK
assumes a 16 ms USB latency timer and would wait 34 ms for a missing reply), and counts the
bytes that cross the port so the loop can report bus load.
"""

from __future__ import annotations

import os
import select
import time
from dataclasses import dataclass
from pathlib import Path

import dynamixel_sdk as sdk

from cobra_driver import control_table as ct

MAX_READ_BLOCK_S = 0.05  # a read never blocks longer, whatever the packet timeout says
PLAIN_READS_AFTER_FAST_FAILURE = 50
MIN_REPLY_WAIT_MS = 0.3  # even a late cycle gives the bus this long to answer
WIRE_BITS_PER_BYTE = 10  # start bit, 8 data bits, stop bit
STATUS_OVERHEAD_BYTES = 11  # header 4, id, length 2, instruction, error, CRC 2
INSTRUCTION_OVERHEAD_BYTES = 10  # header 4, id, length 2, instruction, CRC 2
LATENCY_TIMER_FIX = ("echo 1 | sudo tee {path}   (now), and for every plug-in the udev rule "
                     "ACTION==\"add\", SUBSYSTEM==\"usb-serial\", DRIVER==\"ftdi_sio\", ATTR{{latency_timer}}=\"1\"")


class BusError(RuntimeError):
    """Communication with the servo bus failed; the message says what to check."""


class PortUnavailableError(BusError):
    """The serial port cannot be opened (absent, unplugged, no permission)."""


def is_pseudo_terminal(port: str) -> bool:
    return os.path.realpath(port).startswith('/dev/pts/')


def latency_timer_path(port: str, sysfs_root: str | os.PathLike[str] = '/sys') -> Path:
    device = Path(os.path.realpath(port)).name
    return Path(sysfs_root) / 'bus' / 'usb-serial' / 'devices' / device / 'latency_timer'


def check_latency_timer(port: str, sysfs_root: str | os.PathLike[str] = '/sys') -> tuple[int | None, str | None]:
    """(latency timer in ms or None when the adapter has none, warning text or None)."""
    path = latency_timer_path(port, sysfs_root)
    try:
        value = int(path.read_text().strip())
    except (OSError, ValueError):
        return None, None  # a pty or a non-FTDI adapter: there is no latency timer to tune
    if value == 1:
        return value, None
    return value, (f'USB latency timer of {port} is {value} ms (should be 1 ms): each bus transaction '
                   f'waits up to {value} ms for the adapter, 500 Hz is impossible. Fix: '
                   + LATENCY_TIMER_FIX.format(path=path))


def wire_time_s(byte_count: int, baud_rate: int) -> float:
    return byte_count * WIRE_BITS_PER_BYTE / baud_rate


def sync_write_bytes(servo_count: int, data_length: int) -> int:
    """Bytes of one Sync Write (no reply): instruction overhead + address/length 4 + (id + data) each."""
    return INSTRUCTION_OVERHEAD_BYTES + 4 + servo_count * (1 + data_length)


def sync_read_bytes(servo_count: int, data_length: int, *, fast: bool) -> int:
    """Bytes of one (Fast) Sync Read: the request plus every reply."""
    request = INSTRUCTION_OVERHEAD_BYTES + 4 + servo_count
    if fast:
        replies = 8 + servo_count * (data_length + 4)  # one packet: per servo error, id, data, CRC
    else:
        replies = servo_count * (STATUS_OVERHEAD_BYTES + data_length)
    return request + replies


class CountingPortHandler(sdk.PortHandler):
    """PortHandler with a packet timeout that knows the real USB latency, and byte counters."""

    def __init__(self, port_name: str, *, usb_latency_ms: float, timeout_margin_ms: float) -> None:
        super().__init__(port_name)
        self.usb_latency_ms = usb_latency_ms
        self.timeout_margin_ms = timeout_margin_ms
        self.bytes_written = 0
        self.bytes_read = 0

    def setPacketTimeout(self, packet_length: int) -> None:
        self.packet_start_time = self.getCurrentTime()
        self.packet_timeout = (self.tx_time_per_byte * packet_length) + 2.0 * self.usb_latency_ms \
            + self.timeout_margin_ms

    def writePort(self, packet: list[int]) -> int:
        written = super().writePort(packet)
        self.bytes_written += written or 0
        return written

    def readPort(self, length: int) -> bytes:
        data = super().readPort(length)
        if not data:
            # The SDK polls a non-blocking port in a tight loop; block in select until bytes come or
            # the packet times out instead: one wake-up per reply, CPU and GIL free meanwhile.
            remaining_ms = self.packet_timeout - self.getTimeSinceStart()
            select.select([self.ser.fileno()], [], [], min(MAX_READ_BLOCK_S, max(0.0, remaining_ms / 1000.0)))
            data = super().readPort(length)
        self.bytes_read += len(data)
        return data


@dataclass(frozen=True)
class FeedbackBlock:
    """What the loop reads each cycle, mapped through indirect addresses into one block."""

    items: tuple[str, ...] = ('present_current', 'present_velocity', 'present_position', 'hardware_error_status',
                              'bus_watchdog')

    @property
    def length(self) -> int:
        return sum(ct.ITEMS[name].size for name in self.items)

    def offsets(self) -> dict[str, int]:
        offsets, offset = {}, 0
        for name in self.items:
            offsets[name] = offset
            offset += ct.ITEMS[name].size
        return offsets

    def indirect_addresses(self) -> list[int]:
        return [ct.ITEMS[name].address + byte for name in self.items for byte in range(ct.ITEMS[name].size)]

    def decode(self, raw: bytes | bytearray) -> dict[str, int]:
        return {name: int.from_bytes(raw[offset:offset + size], 'little', signed=signed)
                for name, offset, size, signed in self._layout()}

    def _layout(self) -> list[tuple[str, int, int, bool]]:
        layout = _LAYOUTS.get(self.items)
        if layout is None:
            offsets = self.offsets()
            layout = [(n, offsets[n], ct.ITEMS[n].size, ct.ITEMS[n].signed) for n in self.items]
            _LAYOUTS[self.items] = layout
        return layout


_LAYOUTS: dict[tuple[str, ...], list[tuple[str, int, int, bool]]] = {}


@dataclass
class ReadResult:
    values: dict[int, dict[str, int]]  # servo id -> item -> raw value, fresh this read only
    failed_ids: list[int]
    attempts: int
    fast: bool


class DynamixelBus:
    """One open U2D2 port and the Protocol 2.0 packet handler."""

    def __init__(self, port: str, baud_rate: int, *, usb_latency_ms: float = 1.0,
                 timeout_margin_ms: float = 1.0) -> None:
        self.port_name = port
        self.baud_rate = baud_rate
        self.port = CountingPortHandler(port, usb_latency_ms=usb_latency_ms, timeout_margin_ms=timeout_margin_ms)
        self.packet = sdk.PacketHandler(2.0)
        self.block = FeedbackBlock()
        self._group_read: sdk.GroupSyncRead | None = None
        self._group_ids: tuple[int, ...] = ()
        self.use_fast_sync_read = True
        self.plain_read_cycles_left = 0

    @staticmethod
    def block_length() -> int:
        return FeedbackBlock().length

    # -- port ---------------------------------------------------------------------------------
    def open(self) -> None:
        if not os.path.exists(self.port_name):
            raise PortUnavailableError(
                f"serial port '{self.port_name}' not found. Check: U2D2 plugged in and powered, the "
                f"udev rule that creates this name is installed (see cobra_driver README), or pass "
                f"-p port:=/dev/ttyUSB0; 'ls -l /dev/serial/by-id/' lists adapters.")
        try:
            opened = self.port.openPort()
        except Exception as error:  # pyserial raises SerialException/OSError subclasses
            raise PortUnavailableError(
                f"cannot open serial port '{self.port_name}': {error}. Check permissions "
                f"(user in group 'dialout') and that no other program holds the port.") from error
        if not opened:
            raise PortUnavailableError(f"cannot open serial port '{self.port_name}'")
        try:
            baud_ok = self.port.setBaudRate(self.baud_rate)
        except Exception as error:  # noqa: BLE001 - a pty may refuse exotic rates
            baud_ok = False
            baud_error: Exception | None = error
        else:
            baud_error = None
        if not baud_ok:
            if is_pseudo_terminal(self.port_name):
                # A pty has no line rate; keep the nominal one for timeout arithmetic.
                self.port.baudrate = self.baud_rate
                self.port.tx_time_per_byte = 1000.0 * WIRE_BITS_PER_BYTE / self.baud_rate
            else:
                self.close()
                raise PortUnavailableError(
                    f"port '{self.port_name}' refused baud rate {self.baud_rate} ({baud_error}); "
                    f"use one of 57600, 115200, 1000000, 2000000, 3000000, 4000000 and set the "
                    f"same Baud Rate (address 8) on every servo with Dynamixel Wizard")

    def close(self) -> None:
        if self.port.is_open:
            try:
                self.port.closePort()
            except Exception:  # noqa: BLE001 - the device may already be gone
                self.port.is_open = False

    # -- single servo ---------------------------------------------------------------------
    def ping(self, servo_id: int, retries: int = 2) -> int | None:
        for _ in range(retries + 1):
            model, result, _ = self.packet.ping(self.port, servo_id)
            if result == sdk.COMM_SUCCESS:
                return model
        return None

    def read(self, servo_id: int, name: str, retries: int = 2) -> int:
        item = ct.ITEMS[name]
        for _ in range(retries + 1):
            data, result, _ = self.packet.readTxRx(self.port, servo_id, item.address, item.size)
            if result == sdk.COMM_SUCCESS and len(data) == item.size:
                return ct.decode(item, bytes(data))
        raise BusError(f'reading {name} of servo {servo_id} failed: {self.packet.getTxRxResult(result)}')

    def write(self, servo_id: int, name: str, value: int, retries: int = 2) -> None:
        item = ct.ITEMS[name]
        self.write_raw(servo_id, item.address, ct.encode(item, value), retries=retries, what=name)

    def write_raw(self, servo_id: int, address: int, data: bytes, *, retries: int = 2, what: str = '') -> None:
        result, error = sdk.COMM_TX_FAIL, 0
        for _ in range(retries + 1):
            result, error = self.packet.writeTxRx(self.port, servo_id, address, len(data), list(data))
            if result == sdk.COMM_SUCCESS:
                break
        label = what or f'address {address}'
        if result != sdk.COMM_SUCCESS:
            raise BusError(f'writing {label} of servo {servo_id} failed: {self.packet.getTxRxResult(result)}')
        if error & 0x7F:
            raise BusError(f'servo {servo_id} rejected {label}: {self.packet.getRxPacketError(error)}')

    def reboot(self, servo_id: int) -> None:
        result, _ = self.packet.reboot(self.port, servo_id)
        if result != sdk.COMM_SUCCESS:
            raise BusError(f'reboot of servo {servo_id} failed: {self.packet.getTxRxResult(result)}')

    # -- group I/O ------------------------------------------------------------------------
    def map_feedback_block(self, servo_id: int) -> None:
        """Point indirect addresses 1..n at the feedback items (torque must be off)."""
        addresses = self.block.indirect_addresses()
        data = b''.join(address.to_bytes(2, 'little') for address in addresses)
        self.write_raw(servo_id, ct.INDIRECT_ADDRESS_1, data, what='indirect addresses')

    def sync_write(self, name: str, values: dict[int, int]) -> None:
        item = ct.ITEMS[name]
        group = sdk.GroupSyncWrite(self.port, self.packet, item.address, item.size)
        for servo_id, value in values.items():
            group.addParam(servo_id, list(ct.encode(item, value)))
        result = group.txPacket()
        if result != sdk.COMM_SUCCESS:
            raise BusError(f'sync write of {name} failed: {self.packet.getTxRxResult(result)}')

    def _read_group(self, ids: tuple[int, ...]) -> sdk.GroupSyncRead:
        if self._group_read is None or self._group_ids != ids:
            group = sdk.GroupSyncRead(self.port, self.packet, ct.INDIRECT_DATA_1, self.block.length)
            for servo_id in ids:
                group.addParam(servo_id)
            self._group_read, self._group_ids = group, ids
        return self._group_read

    def read_feedback(self, ids: tuple[int, ...], *, deadline: float | None = None) -> ReadResult:
        """Fast Sync Read of the feedback block, retried (plain Sync Read) while time is left.

        Only replies that arrived intact in this call are returned: a servo that failed is
        listed in failed_ids and has no value, so stale data can never pass as fresh.
        """
        group = self._read_group(ids)
        values: dict[int, dict[str, int]] = {}
        attempts = 0
        fast = self.use_fast_sync_read and self.plain_read_cycles_left == 0
        if self.plain_read_cycles_left:
            self.plain_read_cycles_left -= 1
        pending = list(ids)
        while pending:
            attempts += 1
            if fast and len(pending) == len(ids):
                if self._fast_sync_read(group, deadline) == sdk.COMM_SUCCESS:
                    for servo_id in ids:
                        values[servo_id] = self.block.decode(group.data_dict[servo_id])
                    pending = []
                    break
                # A failed Fast Sync Read does not say who failed; plain Sync Read does, so use
                # it for the retry and a few cycles after, until the culprit is found or recovers.
                fast = False
                self.plain_read_cycles_left = PLAIN_READS_AFTER_FAST_FAILURE
            else:
                pending = self._sync_read_each(pending, values, deadline)
                if not pending:
                    self.plain_read_cycles_left = 0  # everyone answered: no culprit to find
            if not pending or (deadline is not None and time.perf_counter() >= deadline) or attempts >= 3:
                break
        return ReadResult(values, pending, attempts, fast and attempts == 1 and not pending)

    def _limit_wait(self, deadline: float | None) -> None:
        """Never wait for a reply past the cycle's deadline (the SDK's own timeout is set on tx)."""
        if deadline is None:
            return
        budget_ms = max(MIN_REPLY_WAIT_MS, (deadline - time.perf_counter()) * 1000.0)
        if budget_ms < self.port.packet_timeout:
            self.port.setPacketTimeoutMillis(budget_ms)

    def _fast_sync_read(self, group: sdk.GroupSyncRead, deadline: float | None) -> int:
        try:
            result = group.fastSyncReadTxPacket()
            if result != sdk.COMM_SUCCESS:
                return result
            self._limit_wait(deadline)
            return group.fastSyncReadRxPacket()
        except IndexError:
            # SDK 4.1.0 indexes past the data when a late reply to an earlier request is taken for
            # the Fast Sync Read status: treat it as the corrupt read it is.
            return sdk.COMM_RX_CORRUPT

    def _sync_read_each(self, ids: list[int], values: dict[int, dict[str, int]],
                        deadline: float | None = None) -> list[int]:
        length = self.block.length
        result = self.packet.syncReadTx(self.port, ct.INDIRECT_DATA_1, length, ids, len(ids), False)
        if result != sdk.COMM_SUCCESS:
            self.port.is_using = False
            raise BusError(f'sync read request failed: {self.packet.getTxRxResult(result)}')
        self._limit_wait(deadline)
        failed = []
        for servo_id in ids:
            data, result, _ = self.packet.readRx(self.port, servo_id, length)
            if result == sdk.COMM_SUCCESS and len(data) == length:
                values[servo_id] = self.block.decode(bytes(data))
            else:
                failed.append(servo_id)
        return failed

    def sync_read_items(self, ids: list[int], first: str, last: str) -> dict[int, dict[str, int]]:
        """Plain Sync Read of a contiguous item range (low-rate status poll)."""
        start = ct.ITEMS[first].address
        end = ct.ITEMS[last].address + ct.ITEMS[last].size
        names = [n for n, item in ct.ITEMS.items() if start <= item.address < end]
        group = sdk.GroupSyncRead(self.port, self.packet, start, end - start)
        for servo_id in ids:
            group.addParam(servo_id)
        out: dict[int, dict[str, int]] = {}
        result = group.txPacket()
        if result != sdk.COMM_SUCCESS:
            return out
        for servo_id in ids:
            data, result, _ = self.packet.readRx(self.port, servo_id, end - start)
            if result == sdk.COMM_SUCCESS and len(data) == end - start:
                out[servo_id] = {n: ct.decode(ct.ITEMS[n], bytes(data[ct.ITEMS[n].address - start:]))
                                 for n in names}
        return out
