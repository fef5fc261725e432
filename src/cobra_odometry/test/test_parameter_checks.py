"""Parameter checks the values alone can judge (the node's declare_parameters raises on them)."""

import pytest

from cobra_odometry.parameter_checks import parameter_problem

VALID = {'pose_source': 'topic', 'pose_topic_type': 'PoseStamped', 'trajectory_format': 'tum',
         'trajectory_mode': 'follow', 'trajectory_file': '', 'retry_initial_s': 1.0, 'retry_max_s': 30.0,
         'max_twist_gap_s': 0.5, 'frame_prefix': '', 'camera_enabled': True, 'device': '',
         'gyro_fps': 200, 'accel_fps': 63}


@pytest.mark.parametrize('prefix', ['', 'cobra/', 'fleet/cobra_2/', '_a/'])
def test_frame_prefixes_accepted(prefix: str) -> None:
    assert parameter_problem({**VALID, 'frame_prefix': prefix}) is None


@pytest.mark.parametrize('prefix', ['cobra', '/cobra/', 'co bra/', 'a//', '2robot/', 'cobra/odom'])
def test_frame_prefixes_refused_with_the_fix(prefix: str) -> None:
    problem = parameter_problem({**VALID, 'frame_prefix': prefix})
    assert problem is not None and f'frame_prefix:={prefix!r}' in problem and 'frame_prefix:=cobra/' in problem


@pytest.mark.parametrize('change, expected', [
    ({'retry_initial_s': 5.0, 'retry_max_s': 2.0}, 'retry_max_s (2.0) must be >= retry_initial_s (5.0)'),
    ({'pose_source': 'file'}, 'pose_source:=file needs trajectory_file'),
    ({'pose_topic_type': 'Pose'},
     "parameter 'pose_topic_type' = 'Pose' is invalid: must be one of ['PoseStamped', 'Odometry']; "
     "set pose_topic_type:=<one of ['PoseStamped', 'Odometry']>"),
    ({'trajectory_mode': 'loop'}, "'trajectory_mode' = 'loop' is invalid: must be one of"),
    ({'max_twist_gap_s': 0.0}, "'max_twist_gap_s' = 0.0 is invalid: must be a number in (0.0, inf]"),
    ({'accel_fps': 100}, "'accel_fps' = 100 is invalid: must be one of [63, 250] (D435i)"),
])
def test_bad_values_named(change: dict, expected: str) -> None:
    assert expected in parameter_problem({**VALID, **change})


def test_camera_rates_only_checked_for_a_live_camera() -> None:
    assert parameter_problem({**VALID, 'gyro_fps': 100, 'camera_enabled': False}) is None
    assert parameter_problem({**VALID, 'gyro_fps': 100, 'device': 'recorded.db3'}) is None
