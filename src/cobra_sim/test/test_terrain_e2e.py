"""The issue's scenario end to end, as a user runs it: `runner sidewind.launch.py use_sim:=true
terrain:=scm` sidewinds on soft sand, records terrain/heightmap and the SCM ground reactions in
its bag, and python -m cobra_experiments.render_terrain draws the run; a bad terrain_file is refused before any
node starts."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from rosbags.highlevel import AnyReader
from rosbags.typesys import Stores, get_typestore


def test_scm_run_records_heightmap_and_soil_reactions_and_renders(start_runner, tmp_path):
    bag = tmp_path / 'scm_run'
    process = start_runner(tmp_path, 'sidewind.launch.py', 'use_sim:=true', 'terrain:=scm', 'duration:=4.0',
                    'real_time_factor:=0', f'bag_path:={bag}')
    output, _ = process.communicate(timeout=300)
    assert process.returncode == 0, output
    stamps, points, normal_n = [], 0, []
    with AnyReader([bag], default_typestore=get_typestore(Stores.ROS2_JAZZY)) as reader:
        topics = {c.topic: c for c in reader.connections}
        for connection, _, raw in reader.messages(connections=[topics['/terrain/heightmap']]):
            cloud = reader.deserialize(raw, connection.msgtype)
            stamps.append(cloud.header.stamp.sec + cloud.header.stamp.nanosec * 1e-9)
            points = cloud.width
        for connection, _, raw in reader.messages(connections=[topics['/contact/forces']]):
            contacts = reader.deserialize(raw, connection.msgtype)  # all links, read with the bag's definition
            normal_n.append(contacts.wrenches[contacts.link_names.index('link_5')].force)
    # every 0.5 s of sim time (lockstep: nothing lost), the last one covering the whole track
    assert np.allclose(np.diff(sorted(stamps)), 0.5) and len(stamps) == 8
    assert points > 300
    assert len(normal_n) == 400 and max(abs(f.x) + abs(f.y) + abs(f.z) for f in normal_n) > 1.0
    out = tmp_path / 'terrain.png'
    rendered = subprocess.run([sys.executable, '-m', 'cobra_experiments.render_terrain', str(bag), '--out',
                               str(out)], capture_output=True, text=True, timeout=120)
    assert rendered.returncode == 0, rendered.stderr
    assert out.stat().st_size > 10_000 and f'{points} deformed nodes' in rendered.stdout


def test_bad_terrain_file_is_refused_before_any_node_starts(start_runner, tmp_path):
    override = tmp_path / 'override.yaml'
    override.write_text('sim_node:\n  ros__parameters:\n    terrain_file: /nonexistent/sand.yaml\n')
    process = start_runner(tmp_path, 'sidewind.launch.py', 'use_sim:=true', 'terrain:=scm',
                    f'params_file:={override}')
    output, _ = process.communicate(timeout=300)
    assert process.returncode == 2, output
    assert 'terrain_file' in output and '/nonexistent/sand.yaml' in output
    assert '[run] starting' not in output
