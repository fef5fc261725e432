"""make_gait_source: the gait node's source from its parameter values, speed-checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from cobra_description.robot_model import load_robot_model
from cobra_gaits.gait_source import make_gait_source
from cobra_gaits.sidewinding import GaitError, SidewindingGenerator
from cobra_gaits.trajectory_csv import TrajectoryReplay

JOINTS = load_robot_model(Path(__file__).resolve().parents[3] / 'urdf' / 'cobra.urdf').gait_joints()
VALUES = {'gait': 'gait1', 'csv_file': '', 'csv_loop': False, 'frequency_hz': 0.4,
          'amplitude_vertical_rad': 0.35, 'amplitude_horizontal_rad': 0.7, 'direction': 'left',
          'ramp_duration_s': 2.0, 'amplitude_slew_rad_s': 0.5}


def test_preset_values_give_a_generator_on_every_gait_joint():
    names, source = make_gait_source(VALUES, JOINTS)
    assert names == [f'joint_{i}' for i in range(1, 12)]
    assert isinstance(source, SidewindingGenerator)


def test_too_fast_values_are_refused():
    with pytest.raises(GaitError, match='gait too fast for the servos: joint_2'):
        make_gait_source({**VALUES, 'frequency_hz': 2.0, 'amplitude_horizontal_rad': 1.5}, JOINTS)


def test_csv_values_give_a_checked_replay(tmp_path):
    path = tmp_path / 'closed.csv'
    path.write_text('time_s,joint_2\n0.0,0.1\n1.0,0.4\n2.0,0.1\n')
    names, source = make_gait_source({**VALUES, 'gait': 'csv', 'csv_file': str(path), 'csv_loop': True}, JOINTS)
    assert names == ['joint_2'] and isinstance(source, TrajectoryReplay) and source.loop
    path.write_text('time_s,joint_2\n0.0,0.1\n1.0,0.4\n')
    with pytest.raises(GaitError, match='csv_loop wraps'):
        make_gait_source({**VALUES, 'gait': 'csv', 'csv_file': str(path), 'csv_loop': True}, JOINTS)
