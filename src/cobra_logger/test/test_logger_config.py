"""logger_config: the logger's parameter table and bag-path check, without rclpy."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from cobra_common.config_check import by_name
from cobra_logger.logger_config import (DEFAULT_TOPICS, PARAMETER_BY_NAME, RUNTIME_PARAMETERS, bag_path_problem,
                                        parameters)

CONFIG = Path(__file__).resolve().parents[3] / 'config' / 'logger.yaml'


def test_the_default_bag_path_is_taken_when_the_table_is_made() -> None:
    rows = by_name(parameters())
    assert rows['bag_path'].default.startswith('bags/cobra_') or '/bags/cobra_' in rows['bag_path'].default
    assert by_name(parameters('bags/run_7'))['bag_path'].default == 'bags/run_7'
    assert rows['topics'].default == DEFAULT_TOPICS and '/clock' not in DEFAULT_TOPICS


def test_only_the_split_limits_change_at_run_time() -> None:
    assert RUNTIME_PARAMETERS == {'split_duration_s', 'split_size_mb'}
    assert PARAMETER_BY_NAME['split_size_mb'].problem(0.0) is not None  # a zero split would rotate forever
    assert PARAMETER_BY_NAME['split_duration_s'].problem(0.5) is None


def test_config_logger_yaml_keys_are_rows_of_the_table_and_accepted() -> None:
    values = yaml.safe_load(CONFIG.read_text())['/**/logger']['ros__parameters']
    assert set(values) <= set(PARAMETER_BY_NAME), set(values) - set(PARAMETER_BY_NAME)
    assert [name for name, value in values.items() if PARAMETER_BY_NAME[name].problem(value)] == []


@pytest.mark.parametrize('make_path, needle', [
    (lambda tmp: '', 'bag_path is empty: set bag_path:=<new directory>'),
    (lambda tmp: str(tmp), 'exists already; choose a new bag path'),
    (lambda tmp: str(tmp / 'file.txt' / 'bag'), 'cannot be created'),
])
def test_bag_path_problems_name_the_fix(tmp_path: Path, make_path, needle: str) -> None:
    (tmp_path / 'file.txt').write_text('not a folder')
    problem = bag_path_problem(make_path(tmp_path))
    assert problem is not None and needle in problem


def test_a_new_folder_in_a_writable_place_is_fine(tmp_path: Path) -> None:
    assert bag_path_problem(str(tmp_path / 'new_bag')) is None
