"""Control tables and unit scales of the two servo models on the COBRA bus.

Addresses, sizes and defaults follow the ROBOTIS e-manual pages of the XH540-W270-T/R and the
XC330-T288-T (both X-series layout). Note the model numbers: the XH540-W270 reports 1100
(1120 is the XM540-W270); the XC330-T288 reports 1220.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

EEPROM_END = 64  # addresses below are EEPROM: writable only while Torque Enable is 0
POSITION_TICKS_PER_REV = 4096
POSITION_CENTRE_TICK = 2048
VELOCITY_UNIT_RPM = 0.229
VOLTAGE_UNIT_V = 0.1
RETURN_DELAY_UNIT_US = 2.0
BUS_WATCHDOG_UNIT_S = 0.020
BUS_WATCHDOG_TRIPPED = 0xFF  # register reads -1 once the watchdog has expired
INDIRECT_ADDRESS_1 = 168
INDIRECT_DATA_1 = 224
INDIRECT_SLOTS = 28  # slots 1..28 (a second bank at 578/634 exists; the driver does not need it)


class HardwareErrorBit:
    """Bits of Hardware Error Status (address 70)."""

    INPUT_VOLTAGE = 0x01
    OVERHEATING = 0x04
    MOTOR_ENCODER = 0x08
    ELECTRICAL_SHOCK = 0x10
    OVERLOAD = 0x20


HARDWARE_ERROR_NAMES = {
    HardwareErrorBit.INPUT_VOLTAGE: 'input voltage',
    HardwareErrorBit.OVERHEATING: 'overheating',
    HardwareErrorBit.MOTOR_ENCODER: 'motor encoder',
    HardwareErrorBit.ELECTRICAL_SHOCK: 'electrical shock',
    HardwareErrorBit.OVERLOAD: 'overload',
}


def describe_hardware_error(status: int) -> str:
    names = [name for bit, name in HARDWARE_ERROR_NAMES.items() if status & bit]
    return ', '.join(names) if names else 'none'


class OperatingMode:
    CURRENT = 0
    VELOCITY = 1
    POSITION = 3
    EXTENDED_POSITION = 4
    CURRENT_BASED_POSITION = 5
    PWM = 16


@dataclass(frozen=True)
class Item:
    address: int
    size: int
    signed: bool = False
    writable: bool = True


# X-series items shared by both models (address, size, signed, writable).
ITEMS: dict[str, Item] = {
    'model_number': Item(0, 2, writable=False),
    'model_information': Item(2, 4, writable=False),
    'firmware_version': Item(6, 1, writable=False),
    'id': Item(7, 1),
    'baud_rate': Item(8, 1),
    'return_delay_time': Item(9, 1),
    'drive_mode': Item(10, 1),
    'operating_mode': Item(11, 1),
    'secondary_id': Item(12, 1),
    'protocol_type': Item(13, 1),
    'homing_offset': Item(20, 4, signed=True),
    'moving_threshold': Item(24, 4),
    'temperature_limit': Item(31, 1),
    'max_voltage_limit': Item(32, 2),
    'min_voltage_limit': Item(34, 2),
    'pwm_limit': Item(36, 2),
    'current_limit': Item(38, 2),
    'velocity_limit': Item(44, 4),
    'max_position_limit': Item(48, 4),
    'min_position_limit': Item(52, 4),
    'startup_configuration': Item(60, 1),
    'shutdown': Item(63, 1),
    'torque_enable': Item(64, 1),
    'led': Item(65, 1),
    'status_return_level': Item(68, 1),
    'registered_instruction': Item(69, 1, writable=False),
    'hardware_error_status': Item(70, 1, writable=False),
    'velocity_i_gain': Item(76, 2),
    'velocity_p_gain': Item(78, 2),
    'position_d_gain': Item(80, 2),
    'position_i_gain': Item(82, 2),
    'position_p_gain': Item(84, 2),
    'feedforward_2nd_gain': Item(88, 2),
    'feedforward_1st_gain': Item(90, 2),
    'bus_watchdog': Item(98, 1),
    'goal_pwm': Item(100, 2, signed=True),
    'goal_current': Item(102, 2, signed=True),
    'goal_velocity': Item(104, 4, signed=True),
    'profile_acceleration': Item(108, 4),
    'profile_velocity': Item(112, 4),
    'goal_position': Item(116, 4, signed=True),
    'realtime_tick': Item(120, 2, writable=False),
    'moving': Item(122, 1, writable=False),
    'moving_status': Item(123, 1, writable=False),
    'present_pwm': Item(124, 2, signed=True, writable=False),
    'present_current': Item(126, 2, signed=True, writable=False),
    'present_velocity': Item(128, 4, signed=True, writable=False),
    'present_position': Item(132, 4, signed=True, writable=False),
    'velocity_trajectory': Item(136, 4, signed=True, writable=False),
    'position_trajectory': Item(140, 4, signed=True, writable=False),
    'present_input_voltage': Item(144, 2, writable=False),
    'present_temperature': Item(146, 1, writable=False),
}

GOAL_ADDRESS_RANGE = range(ITEMS['goal_pwm'].address, ITEMS['goal_position'].address + 4)
"""Goal PWM..Goal Position: read-only while the bus watchdog is tripped."""


@dataclass(frozen=True)
class ServoModel:
    name: str
    model_number: int
    current_unit_ma: float
    torque_constant_nm_per_a: float
    """Output torque per motor current, stall torque / stall current at 12 V from the data sheet.

    A linear fit through the origin: it overestimates torque at low current (no-load current and
    friction are ignored), good to roughly 15 % above a quarter of stall current."""
    no_load_speed_rad_s: float
    defaults: dict[str, int] = field(default_factory=dict)

    @property
    def current_unit_a(self) -> float:
        return self.current_unit_ma / 1000.0


XH540_W270 = ServoModel(
    name='XH540-W270-R',
    model_number=1100,
    current_unit_ma=2.69,
    torque_constant_nm_per_a=10.6 / 4.4,  # 10.6 N·m at 4.4 A, 12 V
    no_load_speed_rad_s=46.0 * 2.0 * math.pi / 60.0,  # 46 rev/min at 12 V
    defaults={'temperature_limit': 80, 'max_voltage_limit': 160, 'min_voltage_limit': 95,
              'pwm_limit': 885, 'current_limit': 2047, 'velocity_limit': 167},
)

XC330_T288 = ServoModel(
    name='XC330-T288-T',
    model_number=1220,
    current_unit_ma=1.0,
    torque_constant_nm_per_a=1.00 / 0.88,  # 1.00 N·m at 0.88 A, 12 V
    no_load_speed_rad_s=71.0 * 2.0 * math.pi / 60.0,  # 71 rev/min at 12 V
    defaults={'temperature_limit': 70, 'max_voltage_limit': 140, 'min_voltage_limit': 55,
              'pwm_limit': 885, 'current_limit': 1193, 'velocity_limit': 445},
)

MODELS_BY_NAME = {model.name: model for model in (XH540_W270, XC330_T288)}
MODELS_BY_NUMBER = {model.model_number: model for model in (XH540_W270, XC330_T288)}


def model_by_name(name: str) -> ServoModel:
    try:
        return MODELS_BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown servo model '{name}'; known: {sorted(MODELS_BY_NAME)}") from None


def encode(item: Item, value: int) -> bytes:
    return (value & ((1 << (8 * item.size)) - 1)).to_bytes(item.size, 'little')


def decode(item: Item, raw: bytes | bytearray) -> int:
    value = int.from_bytes(bytes(raw[:item.size]), 'little')
    if item.signed and value & (1 << (8 * item.size - 1)):
        value -= 1 << (8 * item.size)
    return value
