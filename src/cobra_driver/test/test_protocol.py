"""Protocol 2.0 codec against the packet examples printed in the ROBOTIS e-manual."""

import pytest

from cobra_driver.protocol import (
    Instruction, PacketParser, build_packet, build_status, crc16, parse_packet, stuff, unstuff,
)

# (packet, e-manual section) -- whole packets including their CRC
EMANUAL_VECTORS = [
    ('ff ff fd 00 01 03 00 01 19 4e', 'Ping instruction, ID 1'),
    ('ff ff fd 00 01 07 00 55 00 06 04 26 65 5d', 'Ping status, model 1030, firmware 38'),
    ('ff ff fd 00 01 07 00 02 84 00 04 00 1d 15', 'Read Present Position (132, 4 bytes), ID 1'),
    ('ff ff fd 00 01 09 00 03 74 00 00 02 00 00 ca 89', 'Write Goal Position 512, ID 1'),
]


@pytest.mark.parametrize('hex_packet,what', EMANUAL_VECTORS)
def test_crc_matches_emanual_examples(hex_packet: str, what: str) -> None:
    raw = bytes.fromhex(hex_packet)
    assert crc16(raw[:-2]) == raw[-2] | (raw[-1] << 8), what


def test_builder_reproduces_emanual_packets() -> None:
    assert build_packet(1, Instruction.PING).hex(' ') == EMANUAL_VECTORS[0][0]
    assert build_status(1, 0, bytes([0x06, 0x04, 0x26])).hex(' ') == EMANUAL_VECTORS[1][0]
    assert build_packet(1, Instruction.READ, bytes([0x84, 0, 4, 0])).hex(' ') == EMANUAL_VECTORS[2][0]
    assert build_packet(1, Instruction.WRITE, bytes([0x74, 0, 0, 2, 0, 0])).hex(' ') == EMANUAL_VECTORS[3][0]


def test_crc_chains_like_one_pass() -> None:
    data = bytes(range(40))
    assert crc16(data[20:], crc16(data[:20])) == crc16(data)


def test_stuffing_inserts_fd_after_header_pattern_and_round_trips() -> None:
    payload = bytes([0x03, 0xFF, 0xFF, 0xFD, 0x01, 0xFF, 0xFF, 0xFD])
    stuffed = stuff(payload)
    assert stuffed == bytes([0x03, 0xFF, 0xFF, 0xFD, 0xFD, 0x01, 0xFF, 0xFF, 0xFD, 0xFD])
    assert unstuff(stuffed) == payload


def test_stuffed_packet_length_counts_the_extra_byte_and_parses_back() -> None:
    params = bytes([0x74, 0x00, 0xFF, 0xFF, 0xFD, 0x00])
    raw = build_packet(3, Instruction.WRITE, params)
    assert raw[5] | (raw[6] << 8) == 1 + len(params) + 1 + 2  # instruction + params + stuffed byte + CRC
    packet = parse_packet(raw)
    assert (packet.packet_id, packet.instruction, packet.params) == (3, Instruction.WRITE, params)


def test_parser_resynchronises_on_noise_and_split_input() -> None:
    parser = PacketParser()
    raw = build_packet(7, Instruction.PING)
    assert parser.feed(b'\x00\x13\xff' + raw[:5]) == []
    packets = parser.feed(raw[5:] + raw)
    assert [p.packet_id for p in packets] == [7, 7]
    assert parser.discarded_bytes == 3


def test_parser_drops_packets_with_a_bad_crc() -> None:
    parser = PacketParser()
    raw = bytearray(build_packet(1, Instruction.PING))
    raw[-1] ^= 0xFF
    assert parser.feed(bytes(raw)) == []
    assert parser.crc_errors == 1
    with pytest.raises(ValueError, match='CRC'):
        parse_packet(bytes(raw))


def test_status_error_byte_is_exposed() -> None:
    packet = parse_packet(build_status(5, 0x87))
    assert packet.error == 0x87


def test_fast_packet_handler_gives_the_sdks_crc_and_stuffing_byte_for_byte() -> None:
    import random

    import dynamixel_sdk as sdk

    from cobra_driver.dynamixel_bus import FastPacketHandler
    reference, fast = sdk.Protocol2PacketHandler(), FastPacketHandler()
    rng = random.Random(7)
    for size in (1, 2, 11, 74, 200, 276, 1024):
        data = [rng.randrange(256) for _ in range(size + 3)]
        assert fast.updateCRC(0, data, size) == reference.updateCRC(0, data, size)
    assert fast.updateCRC(0x1234, [1, 2, 3], 3) == reference.updateCRC(0x1234, [1, 2, 3], 3)
    for params in ([1, 2, 3, 4], [0xFF, 0xFF, 0xFD, 0x00], [7, 0xFF, 0xFF, 0xFD, 0xFD, 0xFF]):
        packet = [0xFF, 0xFF, 0xFD, 0x00, 0xFE, len(params) + 3, 0, 0x83, *params, 0, 0]
        assert fast.addStuffing(list(packet)) == reference.addStuffing(list(packet))
