"""TUM / EuRoC parsing: formats kept apart, bad lines skipped with file:line, live following."""

from pathlib import Path

import numpy as np
import pytest

from cobra_odometry.trajectory_formats import (
    LineParser, PoseSample, TrajectoryFollower, TrajectoryLineError, read_trajectory,
    write_trajectory)


def _sample(stamp_s: float) -> PoseSample:
    return PoseSample(stamp_s, np.array([1.0, 2.0, 3.0]), np.array([0.0, 0.0, np.sin(0.25), np.cos(0.25)]))


@pytest.mark.parametrize('trajectory_format', ['tum', 'euroc'])
def test_round_trip(tmp_path: Path, trajectory_format: str) -> None:
    samples = [_sample(1700000000.0 + 0.033 * i) for i in range(5)]
    path = tmp_path / 'traj.txt'
    write_trajectory(path, samples, trajectory_format)
    result = read_trajectory(path, trajectory_format)
    assert not result.issues
    assert [s.stamp_s for s in result.samples] == pytest.approx([s.stamp_s for s in samples], abs=1e-6)
    np.testing.assert_allclose(result.samples[2].quaternion_xyzw, samples[2].quaternion_xyzw, atol=1e-9)


def test_euroc_orbslam_line_keeps_nanoseconds() -> None:
    sample = LineParser('euroc').parse('1403636579763555584.000000 0.1 0.2 0.3 0 0 0 1')
    assert sample.stamp_s == pytest.approx(1403636579.763555584, abs=1e-7)
    np.testing.assert_allclose(sample.position, [0.1, 0.2, 0.3])


def test_euroc_comma_csv_with_dataset_header_is_w_first() -> None:
    parser = LineParser('euroc')
    assert parser.parse('#timestamp [ns],p_RS_R_x [m],p_RS_R_y [m],p_RS_R_z [m],q_RS_w [],q_RS_x [],q_RS_y [],q_RS_z []') is None
    sample = parser.parse('1403636579763555584,1,2,3,0.0,1.0,0.0,0.0')
    np.testing.assert_allclose(sample.quaternion_xyzw, [1.0, 0.0, 0.0, 0.0])


@pytest.mark.parametrize('trajectory_format,line,needle', [
    ('tum', '1403636579763555584 0 0 0 0 0 0 1', 'nanoseconds'),
    ('euroc', '1403636579.76 0 0 0 0 0 0 1', 'seconds'),
    ('tum', '1.0,0,0,0,0,0,0,1', 'EuRoC'),
    ('tum', '1.0 0 0 0 0 0 1', 'got 7'),
    ('tum', '1.0 0 0 x 0 0 0 1', 'not a number'),
    ('tum', '1.0 0 0 0 0 0 0 0', 'norm'),
    ('tum', '1.0 0 0 0 0 0 0 2', 'norm'),
    ('tum', '1.0 0 0 nan 0 0 0 1', 'non-finite'),
])
def test_bad_lines_are_named(trajectory_format: str, line: str, needle: str) -> None:
    with pytest.raises(TrajectoryLineError, match=needle):
        LineParser(trajectory_format).parse(line)


def test_nearly_unit_quaternion_is_normalised() -> None:
    sample = LineParser('tum').parse('1.0 0 0 0 0 0 0 1.005')
    assert np.linalg.norm(sample.quaternion_xyzw) == pytest.approx(1.0)


def test_malformed_lines_skipped_and_counted_with_location(tmp_path: Path) -> None:
    path = tmp_path / 'bad.txt'
    path.write_text('# comment\n1.0 0 0 0 0 0 0 1\ngarbage\n2.0 0 0 0 0 0 0 1\n3.0 0 0 0 0 0 0 5\n')
    result = read_trajectory(path, 'tum')
    assert [s.stamp_s for s in result.samples] == [1.0, 2.0]
    assert [issue.line_number for issue in result.issues] == [3, 5]
    assert str(result.issues[0]).startswith(f'{path}:3: ')


def test_unknown_format_rejected() -> None:
    with pytest.raises(ValueError, match='tum, euroc'):
        LineParser('kitti')


def test_follower_reads_only_complete_lines_and_restarts_on_rewrite(tmp_path: Path) -> None:
    path = tmp_path / 'live.txt'
    follower = TrajectoryFollower(path, 'tum')
    assert follower.poll() == ([], [])  # not created yet
    with open(path, 'w') as stream:
        stream.write('1.0 0 0 0 0 0 0 1\n2.0 0 0 0 0 0')
    samples, issues = follower.poll()
    assert [s.stamp_s for s in samples] == [1.0] and not issues
    with open(path, 'a') as stream:
        stream.write(' 0 1\nbad line\n')
    samples, issues = follower.poll()
    assert [s.stamp_s for s in samples] == [2.0]
    assert issues[0].line_number == 3
    path.write_text('5.0 0 0 0 0 0 0 1\n')  # rewritten shorter: read from the start again
    samples, _ = follower.poll()
    assert [s.stamp_s for s in samples] == [5.0] and follower.restarts == 1
