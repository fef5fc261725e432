"""The gait node's parameters as typed tables (cobra_common.config_check, as the driver's and the
sim's); no rclpy (gait_node declares them with node_runtime.declare_table).

The blocks depend on one another: the preset blocks are named by `preset_names`, the tuning
defaults are the chosen preset's values and the LTS overrides default to the LTS preset's own.
So the tables are functions of what was declared before; `check_gait` refuses an unknown gait.
The tumble.* and cmd_vel_* blocks are declared by tumble_control and cmd_vel_input.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from cobra_common.config_check import Setting
from cobra_common.errors import StartupError
from cobra_gaits.gait_source import RETUNABLE
from cobra_gaits.lts import PRESET_NAMES as LTS_PRESET_NAMES
from cobra_gaits.presets import CMD_VEL_GAIT, CSV_GAIT, LTS_GAIT, TUMBLE_GAIT
from cobra_gaits.sidewinding import DIRECTIONS
from cobra_gaits.trajectory_csv import MAX_RATE_HZ

HALF_PI = math.pi / 2
BASE_PARAMETERS: tuple[Setting, ...] = (
    Setting('gait', 'gait1', 'a name from preset_names (gait1, gait2) | csv | lts | tumble | cmd_vel'),
    Setting('preset_names', ['gait1', 'gait2'], 'names of the sidewinding presets defined in the parameter files'),
    Setting('rate_hz', 100.0, 'joint_commands rate [Hz]', 1.0, MAX_RATE_HZ),
    Setting('command_lead_periods', 1, 'on sim time: each /clock tick publishes the command for this many periods '
            'later, stamped with the time it applies (the sim applies it then), so a lockstepped sim does not wait '
            'for the round trip; 0 = the command for the tick itself. On wall time commands are never ahead', 0, 10),
    Setting('autostart', True, 'start the gait (with its ramp) at startup'),
    Setting('urdf_path', '', 'robot URDF; empty = installed cobra_description'),
    Setting('csv_file', '', 'trajectory CSV for gait:=csv'),
    Setting('csv_loop', False, 'loop the CSV instead of holding its last row; its last row must equal its first'),
    Setting('command_subscribers_timeout_s', 15.0,
            'stop holding after this long [s, wall] and start with the subscribers present; 0 = no hold', 0.0, 600.0),
)
# declared by type (rclpy types an empty default as a byte array and would refuse every list of names)
COMMAND_SUBSCRIBER_NODES = Setting(
    'command_subscriber_nodes', [],
    'hold the first joint_commands until these nodes subscribed and matched (the sim or driver, plus the '
    "logger when recording), so none misses the start: names as the nodes run ('sim_node' in the gait's "
    "namespace, '/cobra/logger' absolute); other subscribers (an echo, rqt) do not count; empty = until the "
    'first subscriber matched, whoever it is (a sim or driver started by hand)')
REPLACED_PARAMETERS = {  # name -> the fix, for a parameter file or override still setting it
    'command_subscribers': "command_subscribers (a count, which any other subscriber such as a 'ros2 topic echo' "
                           'satisfied) was replaced by command_subscriber_nodes: name the nodes, e.g. '
                           "\"command_subscriber_nodes:=['sim_node', 'logger']\"",
}
LTS_PRESET = Setting('lts_preset', 'rolling', f"LTS gait for gait:=lts (T-Snake): {' | '.join(LTS_PRESET_NAMES)} "
                     '(the LTS paper)', choices=tuple(LTS_PRESET_NAMES))
RUNTIME_PARAMETERS = frozenset(RETUNABLE)  # the sidewinding tuning; everything else is read-only


def preset_parameters(name: str) -> tuple[Setting, ...]:
    """One sidewinding preset's block (`<name>.frequency_hz`, ...), read-only, zero by default."""
    return (Setting(f'{name}.frequency_hz', 0.0, f'{name} wave frequency [Hz]', 0.0, 2.0),
            Setting(f'{name}.amplitude_vertical_rad', 0.0, f'{name} pitch amplitude [rad]', 0.0, HALF_PI),
            Setting(f'{name}.amplitude_horizontal_rad', 0.0, f'{name} yaw amplitude [rad]', 0.0, HALF_PI))


def tuning_parameters(preset: Mapping[str, float]) -> tuple[Setting, ...]:
    """The run-time sidewinding tuning; its defaults are the chosen preset's fields (`preset`)."""
    return (Setting('frequency_hz', preset['frequency_hz'], 'sidewinding wave frequency [Hz]', 0.0, 2.0),
            Setting('amplitude_vertical_rad', preset['amplitude_vertical_rad'],
                    'pitch-joint (vertical wave) amplitude [rad]', 0.0, HALF_PI),
            Setting('amplitude_horizontal_rad', preset['amplitude_horizontal_rad'],
                    'yaw-joint (horizontal wave) amplitude [rad]', 0.0, HALF_PI),
            Setting('direction', 'left', 'left | right: sign of the horizontal wave', choices=tuple(DIRECTIONS)),
            Setting('ramp_duration_s', 2.0, 'start/stop amplitude ramp [s]', 0.1, 30.0),
            Setting('amplitude_slew_rad_s', 0.5, 'max amplitude change rate when retuned [rad/s]', 0.01, 10.0))


def lts_parameters(defaults: Mapping[str, float]) -> tuple[Setting, ...]:
    """The LTS overrides (gait:=lts, T-Snake); their defaults are the LTS preset's own values."""
    return (Setting('lts_a0_rad_s', defaults['lts_a0_rad_s'],
                    "LTS twist rate a0 of phi = (a1 s + a0) t [rad/s]; default: the preset's", -5.0, 5.0),
            Setting('lts_a1_rad_m_s', defaults['lts_a1_rad_m_s'],
                    "LTS twist gradient a1 along the body [rad/(m s)]; default: the preset's", -10.0, 10.0),
            Setting('lts_omega_t_rad_s', defaults['lts_omega_t_rad_s'],
                    "LTS backbone wave temporal frequency omega_t [rad/s]; default: the preset's", -5.0, 5.0))


def gait_choices(preset_names: Sequence[str]) -> list[str]:
    return [*preset_names, CSV_GAIT, LTS_GAIT, TUMBLE_GAIT, CMD_VEL_GAIT]


def check_gait(gait: str, preset_names: Sequence[str], csv_file: str) -> None:
    """StartupError for a gait that is neither a preset nor a built-in, or a CSV gait without its file."""
    if gait not in gait_choices(preset_names):
        raise StartupError(f"unknown gait '{gait}': choose one of {gait_choices(preset_names)}")
    if gait == CSV_GAIT and not csv_file:
        raise StartupError('gait:=csv needs csv_file:=<path to a trajectory CSV>')

