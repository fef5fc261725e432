"""The emulator answers the official SDK exactly like servos (SDK calls used unchanged)."""

import os
import subprocess
import sys
import time

import dynamixel_sdk as sdk
import dynamixel_sdk.port_handler
import pytest

from cobra_driver import control_table as ct


@pytest.fixture(autouse=True)
def patient_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK waits 2 x 16 ms + 2 ms for a reply; on a shared, loaded CI core the emulator thread
    can be descheduled longer than that (it shares the GIL with the test's SDK calls: a reboot's reply
    missed the 202 ms of LATENCY_TIMER 100 once beside two busy loops). Only the wait changes, every
    SDK call stays as is; the three pings that must time out take 0.5 s each."""
    monkeypatch.setattr(dynamixel_sdk.port_handler, 'LATENCY_TIMER', 250)


def open_port(bus) -> tuple[sdk.PortHandler, sdk.PacketHandler]:
    port = sdk.PortHandler(bus.port)
    assert port.openPort()
    assert port.setBaudRate(4_000_000)  # pyserial sets any listed rate on a pty; the rate means nothing there
    return port, sdk.PacketHandler(2.0)


def test_ping_read_write_and_model_numbers(bus) -> None:
    port, packet = open_port(bus)
    assert packet.ping(port, 1)[:2] == (1100, sdk.COMM_SUCCESS)
    assert packet.ping(port, 12)[:2] == (1220, sdk.COMM_SUCCESS)
    assert packet.ping(port, 13)[1] == sdk.COMM_RX_TIMEOUT
    assert packet.write1ByteTxRx(port, 3, 9, 0) == (sdk.COMM_SUCCESS, 0)
    assert packet.read1ByteTxRx(port, 3, 9) == (0, sdk.COMM_SUCCESS, 0)
    assert packet.read4ByteTxRx(port, 3, 132)[0] == 2048


def test_eeprom_locked_while_torque_on(bus) -> None:
    port, packet = open_port(bus)
    packet.write1ByteTxRx(port, 2, 64, 1)
    assert packet.write1ByteTxRx(port, 2, 11, 1) == (sdk.COMM_SUCCESS, 7)  # access error
    packet.write1ByteTxRx(port, 2, 64, 0)
    assert packet.write1ByteTxRx(port, 2, 11, 1) == (sdk.COMM_SUCCESS, 0)


def test_motion_and_group_sync_write_fast_sync_read(bus) -> None:
    port, packet = open_port(bus)
    for servo_id in (1, 2):
        packet.write1ByteTxRx(port, servo_id, 9, 0)
        packet.write1ByteTxRx(port, servo_id, 64, 1)
    writer = sdk.GroupSyncWrite(port, packet, 116, 4)
    writer.addParam(1, list((2548).to_bytes(4, 'little')))
    writer.addParam(2, list((1548).to_bytes(4, 'little')))
    assert writer.txPacket() == sdk.COMM_SUCCESS
    time.sleep(0.4)
    reader = sdk.GroupSyncRead(port, packet, 126, 10)
    reader.addParam(1)
    reader.addParam(2)
    assert reader.fastSyncRead() == sdk.COMM_SUCCESS
    assert abs(reader.getData(1, 132, 4) - 2548) <= 2
    assert abs(reader.getData(2, 132, 4) - 1548) <= 2
    assert reader.txRxPacket() == sdk.COMM_SUCCESS  # plain Sync Read too


def test_indirect_addresses_map_feedback(bus) -> None:
    port, packet = open_port(bus)
    addresses = [132, 133, 134, 135, 70]
    data = b''.join(a.to_bytes(2, 'little') for a in addresses)
    assert packet.writeTxRx(port, 4, 168, len(data), list(data)) == (sdk.COMM_SUCCESS, 0)
    values, result, _ = packet.readTxRx(port, 4, 224, 5)
    assert result == sdk.COMM_SUCCESS and int.from_bytes(bytes(values[:4]), 'little') == 2048


def test_indirect_data_follows_a_remap_of_the_same_slots(bus) -> None:
    port, packet = open_port(bus)

    def point_slots_at(addresses: list[int]) -> None:
        data = b''.join(a.to_bytes(2, 'little') for a in addresses)
        assert packet.writeTxRx(port, 4, 168, len(data), list(data)) == (sdk.COMM_SUCCESS, 0)

    point_slots_at([132, 133, 134, 135])  # present position
    assert packet.read4ByteTxRx(port, 4, 224) == (2048, sdk.COMM_SUCCESS, 0)
    point_slots_at([7, 8, 9, 10])  # id, baud rate, return delay time (250), drive mode
    values, result, _ = packet.readTxRx(port, 4, 224, 4)
    assert result == sdk.COMM_SUCCESS and values[:3] == [4, 1, 250]


def test_bus_watchdog_stops_servo_and_latches_goal_until_zero(bus) -> None:
    port, packet = open_port(bus)
    packet.write1ByteTxRx(port, 5, 64, 1)
    packet.write1ByteTxRx(port, 5, 98, 2)  # 40 ms
    packet.write4ByteTxRx(port, 5, 116, 3000)
    time.sleep(0.15)
    assert bus.snapshot(5, 'bus_watchdog') == ct.BUS_WATCHDOG_TRIPPED
    stopped_at = bus.snapshot(5, 'present_position')
    assert stopped_at < 3000
    assert packet.write4ByteTxRx(port, 5, 116, 2048) == (sdk.COMM_SUCCESS, 7)  # goal now read-only
    assert packet.write1ByteTxRx(port, 5, 98, 0) == (sdk.COMM_SUCCESS, 0)
    assert packet.write4ByteTxRx(port, 5, 116, 2048) == (sdk.COMM_SUCCESS, 0)


def test_hardware_error_refuses_torque_until_reboot(bus) -> None:
    port, packet = open_port(bus)
    packet.write1ByteTxRx(port, 6, 64, 1)
    bus.raise_hardware_error(6, ct.HardwareErrorBit.OVERHEATING)
    value, result, error = packet.read1ByteTxRx(port, 6, 70)
    assert (value, result) == (ct.HardwareErrorBit.OVERHEATING, sdk.COMM_SUCCESS) and error & 0x80
    assert packet.read1ByteTxRx(port, 6, 64)[0] == 0
    assert packet.write1ByteTxRx(port, 6, 64, 1)[1] & 0x7F == 1  # result fail
    assert packet.reboot(port, 6) == (sdk.COMM_SUCCESS, 0x80)
    assert packet.read1ByteTxRx(port, 6, 70) == (0, sdk.COMM_SUCCESS, 0)
    assert packet.write1ByteTxRx(port, 6, 64, 1) == (sdk.COMM_SUCCESS, 0)


def test_injected_faults(bus) -> None:
    port, packet = open_port(bus)
    bus.drop_responses(1)
    assert packet.ping(port, 1)[1] == sdk.COMM_RX_TIMEOUT
    bus.corrupt_responses(1)
    assert packet.ping(port, 1)[1] == sdk.COMM_RX_CORRUPT
    bus.set_present(1, False)
    assert packet.ping(port, 1)[1] == sdk.COMM_RX_TIMEOUT
    bus.set_present(1, True)
    assert packet.ping(port, 1)[1] == sdk.COMM_SUCCESS


def test_return_delay_time_adds_up_on_sync_read(bus) -> None:
    port, packet = open_port(bus)
    reader = sdk.GroupSyncRead(port, packet, 132, 4)
    for servo_id in range(1, 13):
        reader.addParam(servo_id)
    start = time.perf_counter()
    assert reader.txRxPacket() == sdk.COMM_SUCCESS
    assert time.perf_counter() - start >= 12 * 0.0005  # default 250 x 2 us per servo


def test_console_script_prints_pty_and_takes_fault_commands(tmp_path) -> None:
    link = tmp_path / 'ttyEMU'
    process = subprocess.Popen([sys.executable, '-m', 'cobra_driver.emulator', '--link', str(link)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                               env={**os.environ, 'PYTHONPATH': os.pathsep.join(sys.path)})
    try:
        assert process.stdout.readline().strip() == str(link)
        assert os.path.realpath(link).startswith('/dev/pts/')

        def ask(line: str) -> str:
            process.stdin.write(line + '\n')
            process.stdin.flush()
            return process.stdout.readline().strip()
        assert ask('get 12 model_number') == '1220'
        assert ask('hwerror 3 4') == 'ok'
        assert ask('get 3 hardware_error_status') == '4'
        assert ask('bogus') == "unknown command 'bogus'"
    finally:
        process.stdin.write('quit\n')
        process.stdin.flush()
        process.stdin.close()
        assert process.wait(timeout=10) == 0
