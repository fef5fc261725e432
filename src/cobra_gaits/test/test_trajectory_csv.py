"""Trajectory CSV files: round trip, atomic write, validation messages, replay, export CLI."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pytest

from cobra_gaits import export_csv
from cobra_gaits.sidewinding import GaitError, smoothstep
from cobra_gaits.trajectory_csv import (JointTrajectory, TrajectoryReplay, read_trajectory_csv,
                                        write_trajectory_csv)

REPO = Path(__file__).resolve().parents[3]
GAIT_YAML = REPO / 'config' / 'gait.yaml'
URDF = Path(__file__).resolve().parents[2] / 'cobra_description' / 'urdf' / 'cobra.urdf'
JOINTS = [f'joint_{k}' for k in range(1, 12)]


def _trajectory() -> tuple[np.ndarray, np.ndarray]:
    times = np.array([0.0, 0.5, 1.25, 2.0])
    positions = np.array([[0.1, -0.2, 0.3], [0.4, 0.0, -0.3], [-0.123456789, 0.5, 0.0],
                          [0.2, 0.2, 0.2]])
    return times, positions


def _write(tmp_path: Path, text: str, name: str = 'traj.csv') -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_round_trip_preserves_names_times_and_positions(tmp_path):
    times, positions = _trajectory()
    path = tmp_path / 'sub' / 'traj.csv'
    write_trajectory_csv(path, JOINTS[:3], times, positions)
    trajectory = read_trajectory_csv(path, JOINTS)
    assert trajectory.joint_names == tuple(JOINTS[:3])
    np.testing.assert_allclose(trajectory.times_s, times, atol=1e-6)
    np.testing.assert_allclose(trajectory.positions_rad, positions, atol=1e-6)
    assert trajectory.duration_s == pytest.approx(2.0)
    for index, t in enumerate(times):
        np.testing.assert_allclose(trajectory.sample(t), positions[index], atol=1e-6)


def test_written_file_has_time_s_header(tmp_path):
    times, positions = _trajectory()
    path = tmp_path / 'traj.csv'
    write_trajectory_csv(path, JOINTS[:3], times, positions)
    with path.open(newline='') as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ['time_s', 'joint_1', 'joint_2', 'joint_3']
    assert len(rows) == 5


def test_sample_interpolates_linearly_between_rows(tmp_path):
    times, positions = _trajectory()
    path = tmp_path / 'traj.csv'
    write_trajectory_csv(path, JOINTS[:3], times, positions)
    trajectory = read_trajectory_csv(path, JOINTS)
    np.testing.assert_allclose(trajectory.sample(0.25), (positions[0] + positions[1]) / 2, atol=1e-6)
    weight = (1.0 - 0.5) / (1.25 - 0.5)
    np.testing.assert_allclose(trajectory.sample(1.0),
                               positions[1] + weight * (positions[2] - positions[1]), atol=1e-6)


def test_sample_clamps_before_start_and_past_end(tmp_path):
    times, positions = _trajectory()
    path = tmp_path / 'traj.csv'
    write_trajectory_csv(path, JOINTS[:3], times, positions)
    trajectory = read_trajectory_csv(path, JOINTS)
    np.testing.assert_allclose(trajectory.sample(5.0), positions[-1], atol=1e-6)
    np.testing.assert_allclose(trajectory.sample(-1.0), positions[0], atol=1e-6)


def test_sample_is_relative_to_first_row_time(tmp_path):
    path = _write(tmp_path, 'time_s,joint_1\n10.0,0.0\n12.0,1.0\n')
    trajectory = read_trajectory_csv(path, JOINTS)
    assert trajectory.sample(1.0)[0] == pytest.approx(0.5)
    assert trajectory.duration_s == pytest.approx(2.0)


def test_comment_lines_and_spaces_are_accepted(tmp_path):
    path = _write(tmp_path, '# exported trajectory\ntime_s, joint_2\n0.0, 0.5\n# note\n1.0, -0.5\n')
    trajectory = read_trajectory_csv(path, JOINTS)
    assert trajectory.joint_names == ('joint_2',)
    np.testing.assert_allclose(trajectory.positions_rad[:, 0], [0.5, -0.5])


def test_write_leaves_no_temporary_file(tmp_path):
    times, positions = _trajectory()
    write_trajectory_csv(tmp_path / 'traj.csv', JOINTS[:3], times, positions)
    assert sorted(p.name for p in tmp_path.iterdir()) == ['traj.csv']


def test_failed_write_keeps_previous_file_and_removes_temporary(tmp_path):
    path = _write(tmp_path, 'time_s,joint_1\n0.0,0.0\n1.0,1.0\n')
    before = path.read_text()
    bad_positions = np.array([[0.0], ['not a number']], dtype=object)
    with pytest.raises(ValueError):
        write_trajectory_csv(path, ['joint_1'], np.array([0.0, 1.0]), bad_positions)
    assert path.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ['traj.csv']


def test_overwrite_replaces_content(tmp_path):
    path = tmp_path / 'traj.csv'
    write_trajectory_csv(path, ['joint_1'], np.array([0.0, 1.0]), np.array([[0.0], [1.0]]))
    write_trajectory_csv(path, ['joint_2'], np.array([0.0, 2.0]), np.array([[0.5], [0.7]]))
    trajectory = read_trajectory_csv(path, JOINTS)
    assert trajectory.joint_names == ('joint_2',)
    np.testing.assert_allclose(trajectory.positions_rad[:, 0], [0.5, 0.7])


@pytest.mark.parametrize('text, line, message', [
    ('time_s,joint_1\n0.0,0.1\n1.0\n', 3, '1 fields, the header has 2'),
    ('time_s,joint_1,joint_2\n0.0,0.1,0.2,0.3\n', 2, '4 fields, the header has 3'),
    ('time_s,joint_1\n0.0,0.1\n1.0,abc\n', 3, 'non-numeric value'),
    ('time_s,joint_1,joint_99\n0.0,0.1,0.2\n', 1, "unknown joint column\\(s\\) \\['joint_99'\\]"),
    ('time_s,joint_1,joint_1\n0.0,0.1,0.2\n', 1, 'no duplicates'),
    ('time_s\n0.0\n', 1, 'at least one joint column'),
    ('t,joint_1\n0.0,0.1\n', 1, 'first column must be "time_s", got "t"'),
    ('time_s,joint_1\n0.0,0.1\n1.0,0.2\n1.0,0.3\n', 4, 'time does not increase \\(1.0 after 1.0\\)'),
    ('time_s,joint_1\n0.0,0.1\n1.0,0.2\n0.5,0.3\n', 4, 'time does not increase \\(0.5 after 1.0\\)'),
    ('time_s,joint_1\n0.0,0.1\n1.0,nan\n', 3, 'non-finite value'),
    ('time_s,joint_1\ninf,0.1\n', 2, 'non-finite value'),
    ('# comment\n\ntime_s,joint_1\n0.0,0.1\n1.0,x\n', 5, 'non-numeric value'),
])
def test_malformed_csv_error_names_file_and_line(tmp_path, text, line, message):
    path = _write(tmp_path, text)
    with pytest.raises(GaitError, match=message) as error:
        read_trajectory_csv(path, JOINTS)
    assert str(error.value).startswith(f'{path}:{line}: ')


def test_empty_file_error_names_file(tmp_path):
    path = _write(tmp_path, '')
    with pytest.raises(GaitError, match='empty file') as error:
        read_trajectory_csv(path, JOINTS)
    assert str(path) in str(error.value)


def test_comments_only_file_counts_as_empty(tmp_path):
    path = _write(tmp_path, '# only a comment\n\n')
    with pytest.raises(GaitError, match='empty file'):
        read_trajectory_csv(path, JOINTS)


def test_header_only_error_names_file(tmp_path):
    path = _write(tmp_path, 'time_s,joint_1\n')
    with pytest.raises(GaitError, match='no samples after the header') as error:
        read_trajectory_csv(path, JOINTS)
    assert str(path) in str(error.value)


def test_missing_file_error_names_path(tmp_path):
    path = tmp_path / 'absent.csv'
    with pytest.raises(GaitError, match='trajectory CSV not found') as error:
        read_trajectory_csv(path, JOINTS)
    assert str(path) in str(error.value)


def test_unknown_column_error_lists_known_joints(tmp_path):
    path = _write(tmp_path, 'time_s,elbow\n0.0,0.1\n')
    with pytest.raises(GaitError) as error:
        read_trajectory_csv(path, ['joint_1', 'joint_2'])
    assert "known joints are ['joint_1', 'joint_2']" in str(error.value)


def _replay_trajectory() -> JointTrajectory:
    return JointTrajectory(('joint_1', 'joint_2'), np.array([0.0, 2.0]),
                           np.array([[0.4, -0.4], [0.8, 0.0]]))


def test_replay_ramps_in_from_zero():
    replay = TrajectoryReplay(_replay_trajectory(), ramp_duration_s=1.0)
    assert np.all(replay.positions() == 0.0)
    replay.ramp.start()
    replay.advance(0.25)
    expected = smoothstep(0.25) * _replay_trajectory().sample(0.25)
    np.testing.assert_allclose(replay.positions(), expected, atol=1e-12)
    replay.advance(0.75)
    np.testing.assert_allclose(replay.positions(), [0.6, -0.2], atol=1e-12)


def test_replay_without_start_holds_time_at_zero():
    replay = TrajectoryReplay(_replay_trajectory(), ramp_duration_s=1.0)
    replay.advance(1.0)
    assert np.all(replay.positions() == 0.0)
    replay.ramp.start()
    replay.advance(1.0)
    np.testing.assert_allclose(replay.positions(), [0.6, -0.2], atol=1e-12)


def test_replay_holds_last_row_and_stops_to_zero():
    replay = TrajectoryReplay(_replay_trajectory(), ramp_duration_s=0.5)
    replay.ramp.start()
    for _ in range(50):
        replay.advance(0.1)
    np.testing.assert_allclose(replay.positions(), [0.8, 0.0], atol=1e-12)
    replay.ramp.stop()
    for _ in range(5):
        replay.advance(0.1)
    np.testing.assert_allclose(replay.positions(), [0.0, 0.0], atol=1e-12)
    replay.advance(0.1)  # float rounding may leave the progress one tick above zero
    assert np.all(replay.positions() == 0.0)
    assert replay.ramp.is_idle


def test_replay_loop_wraps_time():
    replay = TrajectoryReplay(_replay_trajectory(), ramp_duration_s=0.5, loop=True)
    replay.ramp.start()
    replay.advance(0.5)
    replay.advance(2.0)  # t = 2.5 wraps to 0.5
    np.testing.assert_allclose(replay.positions(), _replay_trajectory().sample(0.5), atol=1e-12)


def test_export_main_writes_readable_csv(tmp_path, capsys):
    output = tmp_path / 'out' / 'gait1.csv'
    code = export_csv.main(['--params-file', str(GAIT_YAML), '--gait', 'gait1', '--duration', '3',
                            '--rate', '50', '--urdf', str(URDF), '--output', str(output)])
    assert code == 0
    assert f'wrote 151 samples of gait1 to {output}' in capsys.readouterr().out
    trajectory = read_trajectory_csv(output, JOINTS)
    assert trajectory.joint_names == tuple(JOINTS)
    assert trajectory.positions_rad.shape == (151, 11)
    assert trajectory.duration_s == pytest.approx(3.0)
    # the steady wave from t = 0 (no ramp in the file): joint_1 pitch 0.35 rad, joint_2 yaw 0.70 rad
    for row in (0, 37, 150):
        t = trajectory.times_s[row]
        assert trajectory.positions_rad[row, 0] == pytest.approx(0.35 * np.sin(2 * np.pi * 0.4 * t), abs=1e-6)
        assert trajectory.positions_rad[row, 1] == pytest.approx(
            0.70 * np.sin(2 * np.pi * 0.4 * t + np.pi / 6), abs=1e-6)


def test_export_direction_right_negates_yaw_columns(tmp_path):
    paths = {}
    for direction in ('left', 'right'):
        paths[direction] = tmp_path / f'{direction}.csv'
        assert export_csv.main(['--params-file', str(GAIT_YAML), '--direction', direction,
                                '--duration', '1', '--rate', '20', '--urdf', str(URDF),
                                '--output', str(paths[direction])]) == 0
    left = read_trajectory_csv(paths['left'], JOINTS).positions_rad
    right = read_trajectory_csv(paths['right'], JOINTS).positions_rad
    np.testing.assert_allclose(right[:, 0::2], left[:, 0::2], atol=1e-9)
    np.testing.assert_allclose(right[:, 1::2], -left[:, 1::2], atol=1e-9)
    assert np.max(np.abs(left[:, 1::2])) > 0.0


def test_export_unknown_gait_returns_2_with_error(tmp_path, capsys):
    output = tmp_path / 'x.csv'
    code = export_csv.main(['--params-file', str(GAIT_YAML), '--gait', 'gait9', '--urdf', str(URDF),
                            '--output', str(output)])
    assert code == 2
    error = capsys.readouterr().err
    assert re.search(r"error: unknown sidewinding preset 'gait9': choose one of \['gait1', 'gait2'\]", error)
    assert not output.exists()


def test_export_missing_params_file_returns_2(tmp_path, capsys):
    code = export_csv.main(['--params-file', str(tmp_path / 'none.yaml'), '--urdf', str(URDF),
                            '--output', str(tmp_path / 'x.csv')])
    assert code == 2
    assert f'gait parameter file not found: {tmp_path / "none.yaml"}' in capsys.readouterr().err


def test_export_missing_urdf_returns_2(tmp_path, capsys):
    code = export_csv.main(['--params-file', str(GAIT_YAML), '--urdf', str(tmp_path / 'no.urdf'),
                            '--output', str(tmp_path / 'x.csv')])
    assert code == 2
    assert 'URDF not found' in capsys.readouterr().err


# --- export without a ramp, replay with one ramp (issue 7: envelope squared) ---------------------

def _export(tmp_path: Path, duration_s: float, rate_hz: float = 100.0, gait: str = 'gait1') -> Path:
    output = tmp_path / f'{gait}_{duration_s:g}.csv'
    assert export_csv.main(['--params-file', str(GAIT_YAML), '--gait', gait, '--duration', str(duration_s),
                            '--rate', str(rate_hz), '--urdf', str(URDF), '--output', str(output)]) == 0
    return output


def test_replayed_export_commands_what_the_generator_does(tmp_path):
    """One start ramp, not two: the replay of an exported preset follows the live generator."""
    from cobra_description.robot_model import load_robot_model
    from cobra_gaits.presets import load_gait_parameters, preset_params
    from cobra_gaits.sidewinding import SidewindingGenerator
    joints = load_robot_model(URDF).gait_joints()
    params = preset_params(load_gait_parameters(GAIT_YAML), 'gait1')
    replay = TrajectoryReplay(read_trajectory_csv(_export(tmp_path, 5.0), JOINTS), params.ramp_duration_s)
    generator = SidewindingGenerator([j.axis_kind for j in joints], params)
    replay.ramp.start()
    generator.ramp.start()
    worst = 0.0
    for _ in range(400):  # 4 s at 100 Hz: through the 2 s ramp and beyond
        replay.advance(0.01)
        generator.advance(0.01)
        worst = max(worst, float(np.max(np.abs(replay.positions() - generator.positions()))))
    assert worst < 1e-6


def test_export_notes_whether_the_file_is_loopable(tmp_path, capsys):
    _export(tmp_path, 5.0)  # 2 cycles at 0.4 Hz
    assert '(2 gait cycles)' in capsys.readouterr().out
    _export(tmp_path, 3.0)
    assert 'not a whole number, so not loopable' in capsys.readouterr().out


def test_export_of_whole_cycles_loops_within_the_speed_limit(tmp_path):
    from cobra_gaits.trajectory_csv import load_replay
    path = _export(tmp_path, 5.0)
    replay = load_replay(path, dict.fromkeys(JOINTS, 4.82), ramp_duration_s=2.0, loop=True)
    replay.ramp.start()
    previous, peak = replay.positions(), 0.0
    for _ in range(1200):  # 12 s: the wrap at 5 s and 10 s
        replay.advance(0.01)
        peak = max(peak, float(np.max(np.abs(replay.positions() - previous))) / 0.01)
        previous = replay.positions()
    assert peak < 2 * np.pi * 0.4 * 0.70 * 1.01  # the steady wave's own peak, no wrap step


# --- speed limit --------------------------------------------------------------------------------

LIMITS = dict.fromkeys(JOINTS, 4.82)


def test_row_faster_than_the_urdf_limit_is_refused_with_file_and_line(tmp_path):
    from cobra_gaits.trajectory_csv import load_replay
    path = _write(tmp_path, 'time_s,joint_1,joint_2\n0.0,0.0,0.0\n0.1,0.2,0.4\n0.2,0.3,0.9\n')
    with pytest.raises(GaitError) as error:
        load_replay(path, LIMITS, ramp_duration_s=2.0, loop=False)
    message = str(error.value)
    assert message.startswith(f'{path}:4: joint_2 moves +0.5000 rad in 0.1 s')
    assert '5.00 rad/s' in message and 'limit 4.82 rad/s' in message


def test_ramp_on_top_of_the_file_speed_is_checked(tmp_path):
    """4 rad/s in the file plus a 0.5 s ramp scaling 1 rad in: over 4.82 rad/s; 2 s ramp is fine."""
    from cobra_gaits.trajectory_csv import load_replay
    path = _write(tmp_path, 'time_s,joint_1\n0.0,1.0\n0.1,0.6\n0.2,1.0\n')
    with pytest.raises(GaitError, match=r'replay ramp \(ramp_duration_s 0.5 s\).*use ramp_duration_s >= 1.83 s'):
        load_replay(path, LIMITS, ramp_duration_s=0.5, loop=False)
    load_replay(path, LIMITS, ramp_duration_s=2.0, loop=False)


def test_loop_with_last_row_far_from_the_first_is_refused(tmp_path):
    from cobra_gaits.trajectory_csv import load_replay
    path = _write(tmp_path, 'time_s,joint_1,joint_2\n0.0,0.1,0.0\n1.0,0.5,0.0\n2.0,0.3,0.0\n')
    load_replay(path, LIMITS, ramp_duration_s=2.0, loop=False)  # fine without looping
    with pytest.raises(GaitError) as error:
        load_replay(path, LIMITS, ramp_duration_s=2.0, loop=True)
    message = str(error.value)
    assert message.startswith(f'{path}:4: csv_loop wraps')
    assert 'joint_1 is 0.2000 rad away' in message and 'csv_loop:=false' in message


def test_closed_loop_is_accepted(tmp_path):
    from cobra_gaits.trajectory_csv import load_replay
    path = _write(tmp_path, 'time_s,joint_1\n0.0,0.1\n1.0,0.5\n2.0,0.1\n')
    assert load_replay(path, LIMITS, ramp_duration_s=2.0, loop=True).loop


# --- file problems get precise messages ----------------------------------------------------------

def test_utf8_bom_is_named(tmp_path):
    path = tmp_path / 'bom.csv'
    path.write_bytes(b'\xef\xbb\xbftime_s,joint_1\n0.0,0.1\n')
    with pytest.raises(GaitError, match='byte-order mark') as error:
        read_trajectory_csv(path, JOINTS)
    assert str(error.value).startswith(f'{path}:1: ')
    assert 'without a BOM' in str(error.value)


def test_directory_given_as_csv_is_named(tmp_path):
    (tmp_path / 'walk.csv').write_text('time_s,joint_1\n0.0,0.0\n')
    with pytest.raises(GaitError, match=rf'trajectory CSV {tmp_path} is a directory \(it holds walk.csv\): '
                                        'give the path of a CSV file'):
        read_trajectory_csv(tmp_path, JOINTS)


def test_non_utf8_content_names_file_line_and_fix(tmp_path):
    path = tmp_path / 'latin1.csv'
    path.write_bytes('# trajectoire d\u00e9mo\ntime_s,joint_1\n0.0,0.1\n'.encode('utf-8') +
                     '# r\u00e9p\u00e9t\u00e9\n'.encode('latin-1'))
    with pytest.raises(GaitError) as error:
        read_trajectory_csv(path, JOINTS)
    message = str(error.value)
    assert message.startswith(f'{path}:4: not UTF-8 text (byte 0xe9')
    assert 'save the file as UTF-8' in message


def test_utf16_is_named(tmp_path):
    path = tmp_path / 'utf16.csv'
    path.write_bytes('time_s,joint_1\n0.0,0.1\n'.encode('utf-16'))
    with pytest.raises(GaitError, match=f'{path}:1: UTF-16 text'):
        read_trajectory_csv(path, JOINTS)
