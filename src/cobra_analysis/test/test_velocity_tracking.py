"""Report section "commanded against achieved velocity" (cobra_analysis.velocity_tracking): the held,
staleness-aware command, the body-frame achieved velocity through the head's wave, and the section
from a recorded bag."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from rosbags.rosbag2 import StoragePlugin, Writer

from cobra_analysis.velocity_tracking import (CommandSeries, body_track, compare, head_offset_of, held_command,
                                                read_commands, section)
from cobra_common.interface_types import cobra_typestore

TYPESTORE = cobra_typestore()


def test_held_command_holds_the_newest_and_drops_a_stale_one():
    series = CommandSeries(np.array([1.0, 2.0]), np.array([0.05, -0.02]), np.array([0.0, 0.1]))
    lateral, angular = held_command(series, np.array([0.5, 1.2, 1.6, 2.3, 2.6]), timeout_s=0.5)
    np.testing.assert_allclose(lateral, [0.0, 0.05, 0.0, -0.02, 0.0])
    np.testing.assert_allclose(angular, [0.0, 0.0, 0.0, 0.1, 0.0])


def snake_track(lateral_m_s: float, yaw_rate_rad_s: float, duration_s: float = 30.0, heading0: float = 0.7):
    """A body sidewinding left at `lateral_m_s` while turning, seen by its head, which swings
    +-23 deg and sways +-6 cm through a 0.4 Hz wave."""
    times = np.arange(0.0, duration_s, 0.01)
    heading = heading0 + yaw_rate_rad_s * times
    velocity = lateral_m_s * np.column_stack([-np.sin(heading), np.cos(heading)])
    xy = np.cumsum(velocity * 0.01, axis=0)
    phase = 2 * math.pi * 0.4 * times
    sway = 0.06 * np.sin(phase)[:, None] * np.column_stack([-np.sin(heading), np.cos(heading)])
    return times, xy + sway, heading + math.radians(23) * np.cos(phase)


def test_achieved_follows_the_body_not_the_swinging_head():
    times, xy, yaw = snake_track(0.06, 0.03)
    commands = CommandSeries(np.arange(0.0, 30.0, 0.1), np.full(300, 0.06), np.full(300, 0.03))
    tracking = compare(commands, times, xy, yaw)
    assert len(tracking.windows) >= 4
    assert tracking.lateral_ratio == pytest.approx(1.0, abs=0.05)
    assert tracking.angular_ratio == pytest.approx(1.0, abs=0.05)
    assert tracking.windows[0].commanded_lateral_m_s == pytest.approx(0.06)


def test_a_robot_that_does_not_follow_shows_a_low_ratio():
    times, xy, yaw = snake_track(0.03, 0.0)
    commands = CommandSeries(np.arange(0.0, 30.0, 0.1), np.full(300, 0.06), np.zeros(300))
    tracking = compare(commands, times, xy, yaw)
    assert tracking.lateral_ratio == pytest.approx(0.5, abs=0.05)
    assert tracking.angular_ratio is None  # never commanded to turn


def test_no_overlap_gives_no_section_data():
    times, xy, yaw = snake_track(0.06, 0.0, duration_s=3.0)
    assert compare(CommandSeries(np.array([0.0]), np.array([0.06]), np.array([0.0])), times, xy, yaw) is None


def write_cmd_vel_bag(path: Path, times_s: np.ndarray, lateral: float, angular: float) -> Path:
    Twist, Vector3 = TYPESTORE.types['geometry_msgs/msg/Twist'], TYPESTORE.types['geometry_msgs/msg/Vector3']
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        connection = writer.add_connection('/cmd_vel', 'geometry_msgs/msg/Twist', typestore=TYPESTORE)
        for t in times_s:
            message = Twist(Vector3(0.0, lateral, 0.0), Vector3(0.0, 0.0, angular))
            writer.write(connection, round(t * 1e9), bytes(TYPESTORE.serialize_cdr(message, 'geometry_msgs/msg/Twist')))
    return path


def test_section_from_a_bag(tmp_path):
    times, xy, yaw = snake_track(0.05, -0.02)
    bag = write_cmd_vel_bag(tmp_path / 'bag', np.arange(0.0, 30.0, 0.1), 0.05, -0.02)
    commands = read_commands(bag)
    assert len(commands.times_s) == 300 and commands.lateral_m_s[0] == 0.05
    head = SimpleNamespace(times_s=times, position_m=np.column_stack([xy, np.zeros(len(times))]), yaw_rad=yaw)
    text, metrics = section(bag, head, tmp_path, 'run')
    assert 'Commanded against achieved velocity' in text and metrics['lateral_ratio'] == pytest.approx(1.0, abs=0.05)
    assert (tmp_path / 'run_cmd_vel.png').is_file()
    assert 'alt="run: commanded against achieved lateral speed and yaw rate' in text  # a description, not the file name
    empty = write_cmd_vel_bag(tmp_path / 'other', np.array([]), 0.0, 0.0)
    text, metrics = section(empty, head, tmp_path, 'other')
    assert metrics is None and 'no cmd_vel in the bag' in text


def test_windows_right_after_a_command_change_do_not_count():
    """A robot that reaches a new speed 5 s late: the windows over the change are not steady, and
    only steady windows make the ratio."""
    times = np.arange(0.0, 40.0, 0.01)
    commanded = np.where(times < 20.0, 0.03, 0.06)
    achieved = np.where(times < 25.0, 0.03, 0.06)
    xy = np.column_stack([np.zeros(len(times)), np.cumsum(achieved * 0.01)])
    commands = CommandSeries(times[::10], commanded[::10], np.zeros(len(times[::10])))
    tracking = compare(commands, times, xy, np.zeros(len(times)))
    by_start = {round(w.begin_s, 2): w for w in tracking.windows}
    assert not by_start[16.25].steady and not by_start[21.25].steady  # over the change, and the one after
    assert by_start[21.25].achieved_lateral_m_s / by_start[21.25].commanded_lateral_m_s < 0.8
    assert by_start[11.25].steady and by_start[26.25].steady
    ratios = [w.achieved_lateral_m_s / w.commanded_lateral_m_s for w in tracking.windows if w.steady]
    assert tracking.lateral_ratio == pytest.approx(float(np.median(ratios))) == pytest.approx(1.0, abs=0.05)


def test_a_turning_body_s_head_swings_sideways_and_that_share_is_taken_off():
    """The command is the body's: a head 0.7 m ahead of the centre of a body turning at 0.04 rad/s
    moves sideways 2.8 cm/s faster or slower than the body."""
    times, xy, yaw = snake_track(-0.04, 0.04)
    heading = 0.7 + 0.04 * times
    head_xy = xy + 0.7 * np.column_stack([np.cos(heading), np.sin(heading)])
    commands = CommandSeries(np.arange(0.0, 30.0, 0.1), np.full(300, -0.04), np.full(300, 0.04))
    assert compare(commands, times, head_xy, yaw, head_offset_m=0.7).lateral_ratio == pytest.approx(1.0, abs=0.05)
    assert compare(commands, times, head_xy, yaw).lateral_ratio == pytest.approx(0.3, abs=0.05)


def test_head_offset_comes_from_the_robot_s_urdf():
    assert head_offset_of('cobra') == pytest.approx(0.72, abs=0.02)
    assert head_offset_of(None) == 0.0


def test_body_track_places_the_straight_body_behind_the_head():
    from cobra_description.robot_model import default_urdf_path, load_robot_model
    model = load_robot_model(default_urdf_path('cobra'))
    times = np.arange(0.0, 3.0, 0.01)
    yaw = np.full(len(times), 0.5)
    position = np.column_stack([np.full(len(times), 1.0), np.zeros((len(times), 2))])
    head = SimpleNamespace(times_s=times, position_m=position, yaw_rad=yaw)
    joints = SimpleNamespace(times_s=times, names=('joint_1',), position_rad=np.zeros((len(times), 1)))
    track_times, centres, axes = body_track(head, joints, model)
    assert len(track_times) == 30
    offset = head_offset_of('cobra')
    np.testing.assert_allclose(centres[0], [1.0 - offset * math.cos(0.5), -offset * math.sin(0.5)], atol=1e-6)
    np.testing.assert_allclose(axes, 0.5, atol=1e-9)
