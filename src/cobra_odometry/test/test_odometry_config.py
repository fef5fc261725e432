"""The odometry parameter table and the checks the values alone can judge (the node's
declare_parameters raises on them; run-time updates are refused with the same text)."""

import pytest

from cobra_odometry.odometry_config import (ESTIMATOR_PARAMETERS, PARAMETER_BY_NAME, PARAMETERS, RUNTIME_PARAMETERS,
                                            parameter_problem, pose_source_text, stream_config, update_problem)
from cobra_odometry.pose_tracking import OdometryConfig
from cobra_odometry.realsense_source import StreamConfig

VALID = {setting.name: setting.default for setting in PARAMETERS}


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
    ({'max_twist_gap_s': 0.0}, "'max_twist_gap_s' = 0.0 is invalid: must be a number in (0.0, 1000000.0]"),
    ({'accel_fps': 100}, "'accel_fps' = 100 is invalid: must be one of [63, 250] (D435i)"),
])
def test_bad_values_named(change: dict, expected: str) -> None:
    assert expected in parameter_problem({**VALID, **change})


def test_camera_rates_only_checked_for_a_live_camera() -> None:
    assert parameter_problem({**VALID, 'gyro_fps': 100, 'camera_enabled': False}) is None
    assert parameter_problem({**VALID, 'gyro_fps': 100, 'device': 'recorded.db3'}) is None


def test_the_table_declares_every_estimator_setting_with_its_default() -> None:
    assert len(PARAMETER_BY_NAME) == len(PARAMETERS)  # no name twice
    for name in ESTIMATOR_PARAMETERS:
        assert PARAMETER_BY_NAME[name].default == getattr(OdometryConfig(), name) and name in RUNTIME_PARAMETERS
    assert parameter_problem(VALID) is None  # the defaults run


def test_read_only_parameters_are_what_a_running_node_cannot_change() -> None:
    assert {'device', 'pose_source', 'gyro_fps', 'frame_prefix'}.isdisjoint(RUNTIME_PARAMETERS)
    assert {'retry_initial_s', 'retry_max_s', 'frame_timeout_s'} <= RUNTIME_PARAMETERS


@pytest.mark.parametrize('changes, expected', [
    ({'retry_max_s': 0.5}, 'retry_max_s (0.5) must be >= retry_initial_s (1.0)'),
    ({'retry_initial_s': 40.0}, 'retry_max_s (30.0) must be >= retry_initial_s (40.0)'),
    ({'retry_initial_s': 40.0, 'retry_max_s': 50.0}, None),
    ({'stale_timeout_s': 2.0}, None),
])
def test_updates_are_judged_against_the_current_values(changes: dict, expected: str | None) -> None:
    assert update_problem(VALID, changes) == expected


def test_max_twist_gap_refused_at_zero_by_the_table() -> None:
    assert "'max_twist_gap_s' = 0.0 is invalid" in PARAMETER_BY_NAME['max_twist_gap_s'].problem(0.0)
    assert PARAMETER_BY_NAME['stale_timeout_s'].problem(0.0) is None


def test_stream_config_takes_the_camera_parameters() -> None:
    config = stream_config({**VALID, 'gyro_fps': 400, 'enable_depth': False})
    assert config == StreamConfig(gyro_fps=400, enable_depth=False)


def test_pose_source_text_names_the_source() -> None:
    assert pose_source_text(VALID) == ('odom from topic slam/pose (PoseStamped); '
                                       'SLAM pose frame camera_link (optical axes)')
    text = pose_source_text({**VALID, 'pose_source': 'file', 'trajectory_file': 'a.txt', 'pose_frame_optical': False})
    assert text == 'odom from file a.txt (tum, follow); SLAM pose frame camera_link'
