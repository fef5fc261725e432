"""The sim node on SCM sand: terrain/heightmap (PointCloud2 x, y, z, sinkage, pressure in odom)
at its period, soil figures in diagnostics; bad terrain input exits 2 naming parameter and file."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import rclpy
from diagnostic_msgs.msg import DiagnosticArray
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import PointCloud2, PointField

from cobra_common.ros_entry import stamp_seconds
from cobra_common.heightmap_cloud import cloud_points

REPO = Path(__file__).resolve().parents[3]
URDF = REPO / 'urdf' / 'cobra.urdf'
LOOSE_SAND = REPO / 'config' / 'soil' / 'loose_sand.yaml'


def sim_words(*parameters: str) -> list[str]:
    words = [sys.executable, '-m', 'cobra_sim.sim_node', '--ros-args', '-p', f'urdf_path:={URDF}',
             '-p', 'settle_duration_s:=0.5']
    for parameter in parameters:
        words += ['-p', parameter]
    return words


def test_publishes_the_heightmap_and_soil_diagnostics(ros_env, ros_node):
    process = subprocess.Popen(sim_words('terrain:=scm', f'terrain_file:={LOOSE_SAND}', 'heightmap_period_s:=0.2',
                                         'frame_prefix:=cobra/', 'real_time_factor:=1.0'),
                               env=ros_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    clouds: list[PointCloud2] = []
    diagnostics: list[DiagnosticArray] = []
    ros_node.create_subscription(PointCloud2, 'terrain/heightmap', clouds.append, QoSProfile(
        depth=100, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL))
    ros_node.create_subscription(DiagnosticArray, 'diagnostics', diagnostics.append,
                                 QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
    try:
        for _ in range(1200):  # at most 60 s on a loaded machine
            rclpy.spin_once(ros_node, timeout_sec=0.05)
            if len(clouds) >= 4 and diagnostics or process.poll() is not None:
                break
    finally:
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=30)
    assert len(clouds) >= 4 and diagnostics, output
    stamps = sorted(stamp_seconds(cloud.header.stamp) for cloud in clouds)
    gaps = np.diff(stamps) / 0.2
    assert np.all(np.abs(gaps - np.round(gaps)) < 1e-6) and np.all(np.round(gaps) >= 1)  # on the 0.2 s grid
    assert min(np.round(gaps)) == 1
    cloud = clouds[-1]
    assert cloud.header.frame_id == 'cobra/odom'
    assert [(f.name, f.offset, f.datatype, f.count) for f in cloud.fields] == [
        (name, 4 * k, PointField.FLOAT32, 1) for k, name in enumerate(('x', 'y', 'z', 'sinkage', 'pressure'))]
    assert cloud.point_step == 20 and cloud.height == 1 and cloud.row_step == 20 * cloud.width
    points = cloud_points([(f.name, f.offset, f.datatype) for f in cloud.fields], cloud.point_step,
                          bytes(cloud.data), cloud.width, cloud.height)
    # the robot lies along -x from the origin on loose sand: nodes under it sink and carry it
    loaded = points['pressure'] > 0.0
    assert loaded.sum() > 100
    assert np.all(points['x'][loaded] < 0.15) and np.all(np.abs(points['y'][loaded]) < 0.1)
    assert 0.002 < points['sinkage'].max() < 0.02
    assert points['z'].min() < -0.002 and points['z'].max() > 0.0  # a rut under the robot, soil pushed aside
    values = {kv.key: kv.value for kv in diagnostics[-1].status[0].values}
    assert values['terrain'] == 'scm' and values['terrain_file'] == str(LOOSE_SAND)
    assert 0.002 < float(values['max_sinkage_m']) < 0.02
    assert int(values['nodes_in_contact']) > 100 and int(values['links_in_contact']) == 12
    assert float(values['contact_patch_area_total_m2']) > 0.02


@pytest.mark.parametrize('parameters, messages', [
    (['terrain:=scm', 'terrain_file:=/nonexistent/sand.yaml'], ['terrain_file', '/nonexistent/sand.yaml']),
    (['terrain:=rigid', f'terrain_file:={LOOSE_SAND}'], ['takes no terrain_file']),
    (['terrain:=compliant', f'terrain_file:={LOOSE_SAND}'], ['terrain_file', str(LOOSE_SAND), "terrain 'scm'"]),
    (['terrain:=scm', 'heightmap_period_s:=0.0'], ['heightmap_period_s']),
])
def test_bad_terrain_input_exits_2_naming_parameter_and_file(ros_env, parameters, messages):
    result = subprocess.run(sim_words(*parameters), env=ros_env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    for message in messages:
        assert message in result.stderr
