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
import numpy as np
import serial

from cobra_driver import control_table as ct
from cobra_driver.protocol import _CRC_TABLE, crc16

MAX_READ_BLOCK_S = 0.05  # a read never blocks longer, whatever the packet timeout says
MAX_READ_ATTEMPTS = 3  # per cycle: the first read and two re-reads of the servos after a culprit
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


CRC_TABLE_MAX_BYTES = 1024  # longer than any packet the driver sends or expects (TXPACKET_MAX_LEN)
_STUFFING_SEQUENCE = b'\xff\xff\xfd'
_TRIPPED = bytes([ct.BUS_WATCHDOG_TRIPPED])
PACKET_LENGTH_INDEX = 5  # Protocol 2.0: FF FF FD 00 ID LEN_L LEN_H INSTRUCTION ...
PACKET_INSTRUCTION_INDEX = 7


def _crc_position_tables(max_bytes: int) -> np.ndarray:
    """tables[k, b]: the CRC (from 0) of byte b followed by k zero bytes.

    The Dynamixel CRC-16 from 0 is linear in the message bits, so the CRC of a message is the
    XOR over its bytes of these tables: one numpy gather and reduce instead of a Python loop
    over every byte (the SDK's loop, which also rebuilds its 256-entry table on every call).
    """
    step = np.array(_CRC_TABLE, dtype=np.uint32)
    tables = np.empty((max_bytes, 256), dtype=np.uint16)
    register = step.copy()  # one byte b from 0: table[b]
    for k in range(max_bytes):
        tables[k] = register
        register = ((register << 8) ^ step[(register >> 8) & 0xFF]) & 0xFFFF  # one more zero byte
    return tables


class FastPacketHandler(sdk.Protocol2PacketHandler):
    """The SDK's Protocol 2.0 handler with its two per-byte Python loops replaced on the hot path.

    Packets, timeouts and parsing stay the SDK's; only the CRC (numpy, see _crc_position_tables)
    and byte stuffing (skipped when no FF FF FD occurs, which is what the SDK's loop finds then)
    are computed faster. Both give the SDK's results byte for byte (test_protocol.py).
    """

    _tables: np.ndarray | None = None
    _rows: dict[int, np.ndarray] = {}

    def updateCRC(self, crc_accum: int, data_blk_ptr: list[int] | bytes, data_blk_size: int) -> int:
        if crc_accum or not 0 < data_blk_size <= CRC_TABLE_MAX_BYTES:
            return super().updateCRC(crc_accum, data_blk_ptr, data_blk_size)
        tables = FastPacketHandler._tables
        if tables is None:
            tables = FastPacketHandler._tables = _crc_position_tables(CRC_TABLE_MAX_BYTES)
        rows = FastPacketHandler._rows.get(data_blk_size)
        if rows is None:
            rows = FastPacketHandler._rows[data_blk_size] = np.arange(data_blk_size - 1, -1, -1)
        data = np.frombuffer(bytes(data_blk_ptr[:data_blk_size]), dtype=np.uint8)
        return int(np.bitwise_xor.reduce(tables[rows, data]))

    def addStuffing(self, packet: list[int]) -> list[int]:
        length = packet[PACKET_LENGTH_INDEX] | packet[PACKET_LENGTH_INDEX + 1] << 8
        # the SDK stuffs where FF FF FD ends at or after the instruction byte, CRC excluded
        body = bytes(packet[PACKET_INSTRUCTION_INDEX - 2:PACKET_INSTRUCTION_INDEX + length - 2])
        if _STUFFING_SEQUENCE in body:
            return super().addStuffing(packet)
        return packet


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
        """os.write on pyserial's non-blocking descriptor; pyserial only when the device is not ready.

        pyserial's write converts the list element by element and then waits in select() until
        the descriptor is writable again, a second system call every packet."""
        data = bytes(packet)
        try:
            written = os.write(self.ser.fd, data)
        except BlockingIOError:
            written = 0
        if written < len(data):
            written += self.ser.write(data[written:]) or 0
        self.bytes_written += written
        return written

    def readPort(self, length: int) -> bytes:
        """What has arrived, else block in select until bytes come or the packet times out.

        The SDK polls a non-blocking port in a tight loop (through pyserial's read, itself a
        select and a read); here one read, and when nothing is there one select: one wake-up
        per reply, CPU and GIL free meanwhile."""
        fd = self.ser.fd
        try:
            data = os.read(fd, length)
        except BlockingIOError:
            data = b''
        if not data:
            remaining_ms = self.packet_timeout - self.getTimeSinceStart()
            ready, _, _ = select.select([fd], [], [], min(MAX_READ_BLOCK_S, max(0.0, remaining_ms / 1000.0)))
            if ready:
                try:
                    data = os.read(fd, length)
                except BlockingIOError:
                    data = b''
                if not data:  # readable but empty: the device is gone (as pyserial reports it)
                    raise serial.SerialException('device reports readiness to read but returned no data '
                                                 '(device disconnected or multiple access on port?)')
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
        row = np.frombuffer(bytes(raw[:self.length]), dtype=self.dtype())[0]
        return {name: int(row[name]) for name in self.items}

    def dtype(self) -> np.dtype:
        """The block as a packed little-endian numpy record: one decode for all servos at once."""
        return np.dtype([(name, _DTYPE_CODES[(ct.ITEMS[name].size, ct.ITEMS[name].signed)])
                         for name in self.items])

    def fast_segment_dtype(self) -> np.dtype:
        """One servo's part of a Fast Sync Read status: error, id, the block, the chained CRC."""
        return np.dtype([('error', 'u1'), ('id', 'u1'), *self.dtype().descr, ('crc', '<u2')])


_DTYPE_CODES = {(1, False): 'u1', (1, True): 'i1', (2, False): '<u2', (2, True): '<i2',
                (4, False): '<u4', (4, True): '<i4'}
FAST_STATUS_HEADER_BYTES = 8  # FF FF FD 00, id FE, length 2, instruction 0x55
STATUS_PARAMETER_INDEX = 9  # a plain status packet's data start after its error byte


class ReadResult:
    """Feedback of one read: a record per asked servo, in the order asked, and who failed.

    `fresh[i]` says whether servo ids[i] replied intact in this call: the records of the others
    hold old bytes and are never to be used. `failed_ids` are the servos that broke the reply
    (silent, corrupt): the ones to blame. `unread_ids` were not read for lack of time: no blame.
    `raw` is the whole Fast Sync Read status when every servo answered in one packet (the
    records are then a view of it), else None.
    """

    __slots__ = ('ids', 'items', 'records', 'fresh', 'complete', 'raw', 'failed_ids', 'unread_ids', 'attempts',
                 'fast')

    def __init__(self, ids: tuple[int, ...], items: tuple[str, ...], records: np.ndarray, fresh: np.ndarray) -> None:
        self.ids = ids
        self.items = items
        self.records = records
        self.fresh = fresh
        self.complete = False  # every servo's reply arrived intact
        self.raw: bytes | None = None
        self.failed_ids: list[int] = []
        self.unread_ids: list[int] = []
        self.attempts = 0
        self.fast = False

    @property
    def fresh_count(self) -> int:
        return len(self.ids) if self.complete else int(np.count_nonzero(self.fresh))

    @property
    def values(self) -> dict[int, dict[str, int]]:
        """servo id -> item -> raw value of the fresh replies (slow: for set-up, not the loop)."""
        return {sid: {name: int(self.records[i][name]) for name in self.items}
                for i, sid in enumerate(self.ids) if self.fresh[i]}


class DynamixelBus:
    """One open U2D2 port and the Protocol 2.0 packet handler."""

    def __init__(self, port: str, baud_rate: int, *, usb_latency_ms: float = 1.0,
                 timeout_margin_ms: float = 1.0) -> None:
        self.port_name = port
        self.baud_rate = baud_rate
        self.port = CountingPortHandler(port, usb_latency_ms=usb_latency_ms, timeout_margin_ms=timeout_margin_ms)
        self.packet = FastPacketHandler()
        self.block = FeedbackBlock()
        self._segment_dtype = self.block.fast_segment_dtype()
        self._error_offset = FAST_STATUS_HEADER_BYTES + self._segment_dtype.fields['hardware_error_status'][1]
        self._watchdog_offset = FAST_STATUS_HEADER_BYTES + self._segment_dtype.fields['bus_watchdog'][1]
        self._block_dtype = self.block.dtype()
        self._result_ids: tuple[int, ...] = ()
        self._records = np.zeros(0, dtype=self._block_dtype)
        self._fresh = np.zeros(0, dtype=bool)
        self.use_fast_sync_read = True

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
        param: list[int] = []
        for servo_id, value in values.items():
            param.append(servo_id)
            param.extend(ct.encode(item, value))
        self.sync_write_param(item.address, item.size, param)

    def sync_write_param(self, address: int, size: int, param: list[int]) -> None:
        """Sync Write of a ready parameter list (id, data..., id, data...): the 500 Hz goal path."""
        if not param:
            return
        result = self.packet.syncWriteTxOnly(self.port, address, size, param, len(param))
        if result != sdk.COMM_SUCCESS:
            raise BusError(f'sync write to address {address} failed: {self.packet.getTxRxResult(result)}')

    def _result_for(self, ids: tuple[int, ...]) -> ReadResult:
        if ids != self._result_ids:  # preallocated per ID set: the loop reads the same set each cycle
            self._result_ids = ids
            self._records = np.zeros(len(ids), dtype=self._block_dtype)
            self._fresh = np.zeros(len(ids), dtype=bool)
            self._all_fresh = np.ones(len(ids), dtype=bool)
            self._id_bytes = bytes(ids)
        return ReadResult(ids, self.block.items, self._records, self._fresh)  # fresh is reset when used

    def flags_unchanged(self, result: ReadResult, hardware_errors: bytes, *, watch_tripped: bool) -> bool:
        """True when a complete reply shows every servo's Hardware Error Status as known and (if
        watched) no tripped bus watchdog: two byte-string compares on the raw reply, no decoding."""
        raw = result.raw
        if raw is None:
            return False
        stride = self._segment_dtype.itemsize
        if raw[self._error_offset::stride] != hardware_errors:
            return False
        return not (watch_tripped and _TRIPPED in raw[self._watchdog_offset::stride])

    def read_feedback(self, ids: tuple[int, ...], *, deadline: float | None = None) -> ReadResult:
        """Fast Sync Read of the feedback block; the servos after a culprit are re-read while time is left.

        A Fast Sync Read reply is one packet in which the servos answer in turn, each segment
        closed by the CRC chained over the packet so far. A silent or garbled servo cuts the
        chain: the segments before it are intact (their CRCs say so) and kept, it alone is
        blamed, and the servos after it are read again without it. Only replies that arrived
        intact in this call count as fresh, so stale data can never pass as new.
        The records are reused by the next call with the same IDs.
        """
        result = self._result_for(ids)
        if not ids:
            return result
        if not self.use_fast_sync_read:
            result.attempts = 1
            result.failed_ids = self._sync_read_each(ids, result, deadline)
            return result
        pending = list(range(len(ids)))
        while pending:
            result.attempts += 1
            asked = ids if len(pending) == len(ids) else tuple(ids[i] for i in pending)
            intact = self._fast_sync_read(asked, pending, result, deadline)
            if intact == len(pending):
                pending = []
                break
            result.failed_ids.append(ids[pending[intact]])
            pending = pending[intact + 1:]
            if result.attempts >= MAX_READ_ATTEMPTS or (deadline is not None and time.perf_counter() >= deadline):
                break
        result.unread_ids = [ids[i] for i in pending]
        result.fast = result.attempts == 1 and not result.failed_ids
        if not result.complete and not result.failed_ids and not result.unread_ids:
            result.complete = True  # re-reads filled every record
        return result

    def _limit_wait(self, deadline: float | None) -> None:
        """Never wait for a reply past the cycle's deadline (the SDK's own timeout is set on tx)."""
        if deadline is None:
            return
        budget_ms = max(MIN_REPLY_WAIT_MS, (deadline - time.perf_counter()) * 1000.0)
        if budget_ms < self.port.packet_timeout:
            self.port.setPacketTimeoutMillis(budget_ms)

    def _fast_sync_read(self, asked: tuple[int, ...], slots: list[int], result: ReadResult,
                        deadline: float | None) -> int:
        """One Fast Sync Read of `asked` (result rows `slots`); the number of intact segments, in order."""
        length = self.block.length
        sent = self.packet.syncReadTx(self.port, ct.INDIRECT_DATA_1, length, list(asked), len(asked), True)
        if sent != sdk.COMM_SUCCESS:
            self.port.is_using = False
            raise BusError(f'fast sync read request failed: {self.packet.getTxRxResult(sent)}')
        self._limit_wait(deadline)
        try:
            packet, received = self.packet.rxPacket(self.port, True)
        except IndexError:
            # SDK 4.1.0 can index past the data when a late reply to an earlier request is taken
            # for this status: nothing of it can be trusted.
            self.port.is_using = False
            return 0
        count = len(asked)
        if received == sdk.COMM_SUCCESS and len(packet) == FAST_STATUS_HEADER_BYTES + count * (length + 4):
            data = bytes(packet)
            if count == len(result.ids) and data[FAST_STATUS_HEADER_BYTES + 1::length + 4] == self._id_bytes:
                # the whole set, in order, packet CRC checked by the SDK: the records are a view of it
                result.raw = data
                result.records = np.frombuffer(data, dtype=self._segment_dtype, count=count,
                                               offset=FAST_STATUS_HEADER_BYTES)
                result.fresh = self._all_fresh
                result.complete = True
                return count
            if result.attempts == 1:
                result.fresh[:] = False
            segments = np.frombuffer(data, dtype=self._segment_dtype, count=count, offset=FAST_STATUS_HEADER_BYTES)
            intact = _matching_prefix(segments['id'], asked)
        else:
            if result.attempts == 1:
                result.fresh[:] = False
            intact = _intact_prefix(packet, asked, length)
            if intact:
                segments = np.frombuffer(bytes(packet[FAST_STATUS_HEADER_BYTES:
                                                      FAST_STATUS_HEADER_BYTES + intact * (length + 4)]),
                                         dtype=self._segment_dtype)
        for k in range(intact):
            slot = slots[k]
            result.records[slot] = tuple(segments[k][name] for name in self.block.items)
            result.fresh[slot] = True
        return intact

    def _sync_read_each(self, ids: tuple[int, ...], result: ReadResult, deadline: float | None) -> list[int]:
        """Plain Sync Read (firmware without Fast Sync Read): replies are taken by their ID, in any order,
        so one silent servo costs only its own reply (the SDK's readRx would discard the others' while
        waiting for it). Returns the servos that did not reply intact."""
        length = self.block.length
        sent = self.packet.syncReadTx(self.port, ct.INDIRECT_DATA_1, length, list(ids), len(ids), False)
        if sent != sdk.COMM_SUCCESS:
            self.port.is_using = False
            raise BusError(f'sync read request failed: {self.packet.getTxRxResult(sent)}')
        self._limit_wait(deadline)
        result.fresh[:] = False
        slot_of = {servo_id: slot for slot, servo_id in enumerate(ids)}
        missing = set(ids)
        while missing:
            packet, received = self.packet.rxPacket(self.port, False)
            if received != sdk.COMM_SUCCESS:
                break
            slot = slot_of.get(packet[4])
            if slot is None or len(packet) < STATUS_PARAMETER_INDEX + length + 2:
                continue
            data = bytes(packet[STATUS_PARAMETER_INDEX:STATUS_PARAMETER_INDEX + length])
            result.records[slot] = np.frombuffer(data, dtype=self._block_dtype)[0]
            result.fresh[slot] = True
            missing.discard(ids[slot])
        self.port.is_using = False
        result.complete = not missing
        return [servo_id for servo_id in ids if servo_id in missing]

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


def _matching_prefix(received_ids: np.ndarray, asked: tuple[int, ...]) -> int:
    count = 0
    for got, expected in zip(received_ids.tolist(), asked):
        if got != expected:
            break
        count += 1
    return count


def _intact_prefix(packet: list[int], asked: tuple[int, ...], length: int) -> int:
    """Segments of a cut-short or garbled Fast Sync Read status whose chained CRC holds, in order."""
    data = bytes(packet)
    if len(data) < FAST_STATUS_HEADER_BYTES or data[:5] != b'\xff\xff\xfd\x00\xfe' or data[7] != 0x55:
        return 0
    crc = crc16(data[:FAST_STATUS_HEADER_BYTES])
    offset = FAST_STATUS_HEADER_BYTES
    intact = 0
    for servo_id in asked:
        end = offset + 2 + length
        if end + 2 > len(data) or data[offset + 1] != servo_id:
            break
        crc = crc16(data[offset:end], crc)
        if int.from_bytes(data[end:end + 2], 'little') != crc:
            break
        crc = crc16(data[end:end + 2], crc)
        offset = end + 2
        intact += 1
    return intact
