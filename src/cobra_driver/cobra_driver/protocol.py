"""Dynamixel Protocol 2.0 packet codec: CRC-16, byte stuffing, instruction and status packets.

The emulator speaks the wire format through this module, and the tests check it against the
vectors printed in the ROBOTIS e-manual, so the emulator cannot silently agree with a wrong SDK.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

HEADER = b'\xff\xff\xfd\x00'
BROADCAST_ID = 0xFE
STATUS_INSTRUCTION = 0x55
MAX_PACKET_LENGTH = 1024


class Instruction(IntEnum):
    PING = 0x01
    READ = 0x02
    WRITE = 0x03
    REG_WRITE = 0x04
    ACTION = 0x05
    FACTORY_RESET = 0x06
    REBOOT = 0x08
    CLEAR = 0x10
    SYNC_READ = 0x82
    SYNC_WRITE = 0x83
    FAST_SYNC_READ = 0x8A
    BULK_READ = 0x92
    BULK_WRITE = 0x93
    FAST_BULK_READ = 0x9A


class StatusError(IntEnum):
    """Error numbers of the status packet's error byte (bits 0-6); bit 7 is the alert flag."""

    NONE = 0x00
    RESULT_FAIL = 0x01
    INSTRUCTION = 0x02
    CRC = 0x03
    DATA_RANGE = 0x04
    DATA_LENGTH = 0x05
    DATA_LIMIT = 0x06
    ACCESS = 0x07


ALERT_BIT = 0x80


def _make_crc_table() -> tuple[int, ...]:
    """CRC-16 with polynomial 0x8005, MSB first, initial value 0 (the Dynamixel CRC)."""
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x8005) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _make_crc_table()


def crc16(data: bytes | bytearray, crc: int = 0) -> int:
    """Dynamixel CRC-16 of `data`, continuing from `crc` (chained servos continue one CRC)."""
    for byte in data:
        crc = ((crc << 8) ^ _CRC_TABLE[((crc >> 8) ^ byte) & 0xFF]) & 0xFFFF
    return crc


def stuff(payload: bytes) -> bytes:
    """Insert 0xFD after every FF FF FD inside instruction+parameters so no header appears there."""
    out = bytearray()
    for byte in payload:
        out.append(byte)
        if byte == 0xFD and len(out) >= 3 and out[-3] == 0xFF and out[-2] == 0xFF:
            out.append(0xFD)
    return bytes(out)


def unstuff(payload: bytes) -> bytes:
    """Remove the 0xFD inserted by `stuff`."""
    out = bytearray()
    index = 0
    while index < len(payload):
        byte = payload[index]
        out.append(byte)
        if byte == 0xFD and len(out) >= 3 and out[-3] == 0xFF and out[-2] == 0xFF \
                and index + 1 < len(payload) and payload[index + 1] == 0xFD:
            index += 1
        index += 1
    return bytes(out)


def build_packet(packet_id: int, instruction: int, params: bytes = b'', *, stuffed: bool = True) -> bytes:
    """Full packet: header, id, length, instruction, (stuffed) params, CRC."""
    body = bytes([instruction]) + bytes(params)
    if stuffed:
        body = stuff(body)
    length = len(body) + 2
    without_crc = HEADER + bytes([packet_id, length & 0xFF, length >> 8]) + body
    crc = crc16(without_crc)
    return without_crc + bytes([crc & 0xFF, crc >> 8])


def build_status(packet_id: int, error: int, params: bytes = b'') -> bytes:
    """Status packet (instruction 0x55) with the error byte in front of the parameters."""
    return build_packet(packet_id, STATUS_INSTRUCTION, bytes([error]) + bytes(params))


@dataclass(frozen=True)
class Packet:
    packet_id: int
    instruction: int
    params: bytes  # unstuffed; for status packets params[0] is the error byte

    @property
    def error(self) -> int:
        return self.params[0] if self.instruction == STATUS_INSTRUCTION and self.params else 0


class PacketParser:
    """Incremental parser: feed raw bytes, take whole packets out; resynchronises on noise.

    Packets with a bad CRC are counted and dropped, as a servo does (it stays silent).
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self.crc_errors = 0
        self.discarded_bytes = 0

    def feed(self, data: bytes) -> list[Packet]:
        self._buffer.extend(data)
        packets: list[Packet] = []
        while True:
            start = self._buffer.find(HEADER)
            if start < 0:
                keep = min(3, len(self._buffer))  # a header may straddle two reads
                self.discarded_bytes += len(self._buffer) - keep
                del self._buffer[:len(self._buffer) - keep]
                return packets
            if start:
                self.discarded_bytes += start
                del self._buffer[:start]
            if len(self._buffer) < 7:
                return packets
            length = self._buffer[5] | (self._buffer[6] << 8)
            if length < 3 or length > MAX_PACKET_LENGTH:
                self.discarded_bytes += 1
                del self._buffer[:1]
                continue
            total = 7 + length
            if len(self._buffer) < total:
                return packets
            raw = bytes(self._buffer[:total])
            del self._buffer[:total]
            if crc16(raw[:-2]) != (raw[-2] | (raw[-1] << 8)):
                self.crc_errors += 1
                continue
            body = unstuff(raw[7:-2])
            packets.append(Packet(raw[4], body[0], body[1:]))


def parse_packet(raw: bytes) -> Packet:
    """Parse exactly one whole packet; raise ValueError naming what is wrong."""
    parser = PacketParser()
    packets = parser.feed(raw)
    if parser.crc_errors:
        raise ValueError('packet CRC does not match its contents')
    if len(packets) != 1:
        raise ValueError(f'expected one whole packet, found {len(packets)}')
    return packets[0]


def u16(value: int) -> bytes:
    return (value & 0xFFFF).to_bytes(2, 'little')


def u32(value: int) -> bytes:
    return (value & 0xFFFFFFFF).to_bytes(4, 'little')


def to_signed(value: int, size: int) -> int:
    bits = 8 * size
    return value - (1 << bits) if value & (1 << (bits - 1)) else value
