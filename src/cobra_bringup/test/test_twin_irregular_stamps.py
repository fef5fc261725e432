"""The twin replays a robot bag's commands at their recorded times, whatever their spacing (ROS-free).

A robot bag is recorded on wall time: a starved gait publisher stamps late ticks, drops some and
sends others close together, so the stamps jitter by up to a period, miss rows or nearly repeat.
Each case goes through the twin's own path: plan_replay, the CSV written, the gait node's CSV
replay (load_replay: parse, speed check, ramp) ticked at the replay's rate; after the lead-in
every tick must command the recorded commands interpolated at the recorded stamps.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cobra_bringup import twin
from cobra_description.robot_model import default_urdf_path, load_robot_model
from cobra_gaits.trajectory_csv import load_replay

PERIOD_S = 0.01  # the source gait's 100 Hz
COMMANDS = 300
FIRST_STAMP_S = 1796349358.0041642  # a wall-clock date, as a robot bag's stamps are read (float seconds)
WAVE_HZ, WAVE_AMPLITUDE_RAD = 0.4, 0.5
# the CSV keeps times to 1 us and positions to 1e-9 rad: the wave moves at most 1.3 rad/s
REPLAY_TOLERANCE_RAD = 1e-5
JOINTS = tuple(f'joint_{i}' for i in range(1, 12))


def velocity_limits() -> dict[str, float]:
    return {j.name: j.limits.velocity_rad_s for j in load_robot_model(default_urdf_path('cobra')).gait_joints()}


def wave_rad(times_s: np.ndarray) -> np.ndarray:
    """The commands a gait sends at `times_s` (its positions follow its stamps, as the gait node's ticks)."""
    phase = 2.0 * math.pi * WAVE_HZ * (times_s - FIRST_STAMP_S)
    return np.column_stack([WAVE_AMPLITUDE_RAD * np.sin(phase + joint) for joint in range(len(JOINTS))])


def irregular_stamps(case: str) -> np.ndarray:
    rng = np.random.default_rng(7)
    regular = FIRST_STAMP_S + np.arange(COMMANDS) * PERIOD_S
    if case == 'regular':
        return regular
    if case == 'late by up to a period':
        return regular + np.concatenate([[0.0], rng.uniform(0.0, PERIOD_S, COMMANDS - 1)])
    if case == 'jittered by up to a period either way':
        return np.sort(regular + np.concatenate([[0.0], rng.uniform(-PERIOD_S, PERIOD_S, COMMANDS - 1)]))
    if case == 'missing':
        return np.delete(regular, rng.choice(np.arange(1, COMMANDS - 1), COMMANDS // 10, replace=False))
    if case == 'doubled':
        return np.sort(np.concatenate([regular, regular[3::7]]))
    if case == 'doubled within a microsecond':
        return np.sort(np.concatenate([regular, regular[3::7] + 3e-7]))
    if case == 'late, some doubled within a microsecond':
        late = irregular_stamps('late by up to a period')
        return np.sort(np.concatenate([late, late[3::7] + 3e-7]))
    if case == 'two within the grid tolerance of one tick':
        return np.sort(np.concatenate([regular, regular[5::11] + 0.6 * twin.GRID_TOLERANCE_S]))
    raise ValueError(case)


def recorded_run(stamps_s: np.ndarray) -> twin.RecordedRun:
    """What read_recorded_run makes of these stamps: in time order, one command per stamp, from the first."""
    keep = np.concatenate([[True], np.diff(stamps_s) > 0.0])
    stamps_s = stamps_s[keep]
    return twin.RecordedRun(Path('robot_run'), {'cobra.class': 'robot', 'cobra.gait.rate_hz': '100.0'}, 'cobra',
                            JOINTS, stamps_s - stamps_s[0], wave_rad(stamps_s), None, {})


def replayed_commands(run: twin.RecordedRun, tmp_path: Path) -> tuple[twin.Replay, np.ndarray]:
    """Every command the twin's gait node sends: the CSV through its replay, one tick per period."""
    replay = twin.plan_replay(run, velocity_limits())
    csv_path = tmp_path / twin.CSV_NAME
    twin._write_csv(csv_path, run, replay)
    player = load_replay(csv_path, velocity_limits(), replay.ramp_duration_s, loop=False)
    player.ramp.start()
    period_s = 1.0 / replay.rate_hz
    commanded = []
    for tick in range(round(replay.duration_s / period_s) + 1):
        player.advance(0.0 if tick == 0 else period_s)
        commanded.append(player.positions())
    return replay, np.array(commanded)


@pytest.mark.parametrize('case', ['regular', 'late by up to a period', 'jittered by up to a period either way',
                                  'missing', 'doubled', 'doubled within a microsecond',
                                  'late, some doubled within a microsecond',
                                  'two within the grid tolerance of one tick'])
def test_irregular_stamps_replay_the_commands_at_their_recorded_times(case: str, tmp_path: Path) -> None:
    run = recorded_run(irregular_stamps(case))
    replay, commanded = replayed_commands(run, tmp_path)
    assert replay.rate_hz == 100.0
    period_s = 1.0 / replay.rate_hz
    # the twin's tick k is at k periods; the recorded commands start after the lead-in
    since_first_command_s = np.arange(len(commanded)) * period_s - replay.lead_in_s
    inside = (since_first_command_s >= -1e-9) & (since_first_command_s <= run.command_times_s[-1] + 1e-9)
    assert inside.sum() >= math.floor(run.command_times_s[-1] / period_s)  # every tick of the recorded span
    expected = np.column_stack([np.interp(since_first_command_s[inside], run.command_times_s, column)
                                for column in run.command_positions_rad.T])
    np.testing.assert_allclose(commanded[inside], expected, rtol=0.0, atol=REPLAY_TOLERANCE_RAD)
    # the first recorded command, at its own stamp: the origin of the replay
    first = int(np.argmax(inside))
    np.testing.assert_allclose(commanded[first], run.command_positions_rad[0], rtol=0.0, atol=1e-8)


def test_commands_that_share_a_csv_time_are_one_row_the_first_recorded() -> None:
    stamps_s = np.array([0.0, 0.01, 0.01 + 3e-7, 0.02 - 0.4e-6, 0.02 + 0.5e-6, 0.0312346])
    times_s, rows = twin.replay_command_times(stamps_s, PERIOD_S)
    np.testing.assert_array_equal(rows, [0, 1, 3, 5])
    np.testing.assert_allclose(times_s, [0.0, 0.01, 0.02, 0.031235], rtol=0.0, atol=1e-12)
    assert np.all(np.diff(times_s) > 0.0)
