"""bag_reader pieces: topic matching in namespaces, and the heightmap fold over many clouds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cobra_analysis.bag_reader import BagError, _HeightmapAccumulator, contact_link, matches
from cobra_analysis.synthetic import TYPESTORE

T = TYPESTORE.types
FIELDS = ('x', 'y', 'z', 'sinkage', 'pressure')


def cloud(t_s: float, x: list[float], y: list[float], sinkage: list[float]) -> object:
    points = np.zeros(len(x), dtype=[(n, '<f4') for n in FIELDS])
    points['x'], points['y'], points['z'], points['sinkage'] = x, y, np.negative(sinkage), sinkage
    fields = [T['sensor_msgs/msg/PointField'](name, 4 * i, 7, 1) for i, name in enumerate(FIELDS)]
    header = T['std_msgs/msg/Header'](T['builtin_interfaces/msg/Time'](int(t_s), 0), 'odom')
    return T['sensor_msgs/msg/PointCloud2'](header, 1, len(points), fields, False, 20, 20 * len(points),
                                            np.frombuffer(points.tobytes(), np.uint8), True)


def test_topic_names_match_in_any_namespace():
    assert matches('/cobra/joint_states', 'joint_states')
    assert matches('/ground_truth/odom', 'ground_truth/odom') and not matches('/ground_truth/odom', 'odom')
    assert matches('/r1/odom', 'odom') and not matches('/r1/odom_raw', 'odom')
    assert contact_link('/cobra/contact/forces/link_3') == 'link_3'
    assert contact_link('/contact/forces') is None


def test_heightmap_keeps_the_deepest_sinkage_per_node_over_all_clouds():
    fold = _HeightmapAccumulator(Path('bag'))
    fold.add(cloud(1.0, [-0.5, 0.25], [-1.25, 0.5], [0.010, 0.004]))
    fold.add(cloud(2.0, [-0.5, 0.75], [-1.25, -0.1], [0.006, 0.002]))  # the first node springs back
    heightmap = fold.result()
    found = {(round(x, 4), round(y, 4)): s for (x, y), s in zip(heightmap.max_xy_m, heightmap.max_sinkage_m)}
    assert found == pytest.approx({(-0.5, -1.25): 0.010, (0.25, 0.5): 0.004, (0.75, -0.1): 0.002})
    assert heightmap.times_s.tolist() == [1.0, 2.0]
    assert heightmap.last_sinkage_m == pytest.approx([0.006, 0.002])
    assert _HeightmapAccumulator(Path('bag')).result() is None


def test_a_cloud_without_the_sinkage_field_names_the_bag():
    message = cloud(1.0, [0.0], [0.0], [0.01])
    message.fields = message.fields[:3]
    with pytest.raises(BagError, match=r'^run_9: terrain/heightmap: point cloud lacks field\(s\) sinkage, pressure'):
        _HeightmapAccumulator(Path('run_9')).add(message)


def test_contact_forces_read_alike_from_contact_wrenches_and_from_per_link_topics(tmp_path):
    """The sim's all-links message and an older bag's per-link topics give the same series."""
    from cobra_analysis.bag_reader import read_bag
    from cobra_analysis.synthetic import COBRA_LINKS, SyntheticRun, write_bag
    bags = {per_link: read_bag(write_bag(tmp_path / f'per_link_{per_link}', SyntheticRun(
                duration_s=3.0, contact_links=COBRA_LINKS, contact_per_link_topics=per_link)))
            for per_link in (False, True)}
    assert '/contact/forces' in bags[False].message_counts and '/contact/forces' not in bags[True].message_counts
    combined, per_link = bags[False].contact_forces, bags[True].contact_forces
    assert list(combined) == list(per_link) == list(COBRA_LINKS)
    for link in COBRA_LINKS:
        assert len(combined[link].times_s) == 300
        np.testing.assert_array_equal(combined[link].times_s, per_link[link].times_s)
        np.testing.assert_array_equal(combined[link].force_n, per_link[link].force_n)
    assert combined['link_5'].force_n[:, 2].max() > 1.0
