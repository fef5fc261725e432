"""terrain/heightmap contents and python -m cobra_experiments.render_terrain: after sidewinding on SCM sand the
heightmap holds ruts (below the surface) and berms (above it), survives the PointCloud2 round
trip, and renders from a bag; bad input exits 2 with one message."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

from cobra_description.robot_model import load_robot_model
from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams
from cobra_sim.engine import CobraSim, SimParams
from cobra_common.heightmap_cloud import (FLOAT32, POINT_STEP, HeightmapCloudError, cloud_points, field_layout,
                                       pack_heightmap)
from cobra_sim.terrain import make_terrain

REPO = Path(__file__).resolve().parents[3]
SCRIPT_MODULE = ('-m', 'cobra_experiments.render_terrain')
TYPES = get_typestore(Stores.ROS2_JAZZY)


@pytest.fixture(scope='module')
def sidewound() -> tuple[CobraSim, np.ndarray]:
    """3 s of gait1 sidewinding on loose sand (ramp included); the head path every 10 ms."""
    robot = load_robot_model(REPO / 'urdf' / 'cobra.urdf')
    joints = robot.gait_joints()
    generator = SidewindingGenerator([j.axis_kind for j in joints], SidewindingParams(0.4, 0.35, 0.70, 'left'))
    generator.ramp.start()
    sim = CobraSim(robot, make_terrain('scm', REPO / 'config' / 'soil' / 'loose_sand.yaml'), SimParams(),
                   np.random.default_rng(0))
    sim.settle()
    head = []
    for _ in range(300):
        sim.run(0.01, lambda t: dict(zip([j.name for j in joints], generator.positions())))
        generator.advance(0.01)
        head.append(sim.head_pose()[0][:2])
    return sim, np.array(head)


def test_heightmap_shows_ruts_and_berms_and_round_trips(sidewound):
    sim, _ = sidewound
    snapshot = sim.terrain.heightmap()
    assert snapshot.z_m.min() < -0.003          # ruts: the links sank several mm
    assert snapshot.z_m.max() > 0.0005          # berms: bulldozed soil piled above the surface
    assert snapshot.sinkage_m.max() > 0.003
    assert snapshot.pressure_pa.max() > 100.0   # loaded nodes carry the robot
    data, count = pack_heightmap(snapshot)
    assert count == len(snapshot.x_m) and len(data) == count * POINT_STEP
    layout = [(name, offset, FLOAT32) for name, offset in field_layout()]
    points = cloud_points(layout, POINT_STEP, data, count, 1)
    for name, values in (('x', snapshot.x_m), ('y', snapshot.y_m), ('z', snapshot.z_m),
                         ('sinkage', snapshot.sinkage_m), ('pressure', snapshot.pressure_pa)):
        np.testing.assert_allclose(points[name], values, rtol=1e-6, atol=1e-6)
    with pytest.raises(HeightmapCloudError, match='lacks field'):
        cloud_points(layout[:3], POINT_STEP, data, count, 1)


def write_bag(path: Path, sim: CobraSim | None, head_xy: np.ndarray) -> None:
    cloud_t, odom_t = TYPES.types['sensor_msgs/msg/PointCloud2'], TYPES.types['nav_msgs/msg/Odometry']
    header_t, time_t = TYPES.types['std_msgs/msg/Header'], TYPES.types['builtin_interfaces/msg/Time']
    field_t = TYPES.types['sensor_msgs/msg/PointField']
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        truth = writer.add_connection('/ground_truth/odom', 'nav_msgs/msg/Odometry', typestore=TYPES)
        for index, (x, y) in enumerate(head_xy):
            pose = TYPES.types['geometry_msgs/msg/PoseWithCovariance'](
                pose=TYPES.types['geometry_msgs/msg/Pose'](
                    position=TYPES.types['geometry_msgs/msg/Point'](x=float(x), y=float(y), z=0.04),
                    orientation=TYPES.types['geometry_msgs/msg/Quaternion'](x=0.0, y=0.0, z=0.0, w=1.0)),
                covariance=np.zeros(36))
            twist = TYPES.types['geometry_msgs/msg/TwistWithCovariance'](
                twist=TYPES.types['geometry_msgs/msg/Twist'](
                    linear=TYPES.types['geometry_msgs/msg/Vector3'](x=0.0, y=0.0, z=0.0),
                    angular=TYPES.types['geometry_msgs/msg/Vector3'](x=0.0, y=0.0, z=0.0)),
                covariance=np.zeros(36))
            stamp_ns = (index + 1) * 10_000_000
            odom = odom_t(header=header_t(stamp=time_t(sec=stamp_ns // 10**9, nanosec=stamp_ns % 10**9),
                                          frame_id='odom'), child_frame_id='base_link', pose=pose, twist=twist)
            writer.write(truth, stamp_ns, TYPES.serialize_cdr(odom, 'nav_msgs/msg/Odometry'))
        if sim is None:
            return
        clouds = writer.add_connection('/terrain/heightmap', 'sensor_msgs/msg/PointCloud2', typestore=TYPES)
        data, count = pack_heightmap(sim.terrain.heightmap())
        cloud = cloud_t(header=header_t(stamp=time_t(sec=3, nanosec=0), frame_id='odom'), height=1, width=count,
                        fields=[field_t(name=name, offset=offset, datatype=FLOAT32, count=1)
                                for name, offset in field_layout()],
                        is_bigendian=False, point_step=POINT_STEP, row_step=POINT_STEP * count,
                        data=np.frombuffer(data, dtype=np.uint8), is_dense=True)
        writer.write(clouds, 3_000_000_000, TYPES.serialize_cdr(cloud, 'sensor_msgs/msg/PointCloud2'))


def render(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *SCRIPT_MODULE, *arguments], capture_output=True, text=True, timeout=120)


def test_renders_height_and_sinkage_with_the_head_path(sidewound, tmp_path):
    import matplotlib.image
    sim, head = sidewound
    bag = tmp_path / 'scm_run'
    write_bag(bag, sim, head)
    out = tmp_path / 'terrain.png'
    result = render(str(bag), '--out', str(out))
    assert result.returncode == 0, result.stderr
    assert f'{len(sim.terrain.heightmap().x_m)} deformed nodes' in result.stdout
    image = matplotlib.image.imread(out)
    assert image.shape[0] > 400 and image.shape[1] > 1000
    assert image[..., :3].std() > 0.05  # not a blank canvas


def test_bad_input_is_one_message_and_exit_2(sidewound, tmp_path):
    _, head = sidewound
    missing = render(str(tmp_path / 'no_bag'), '--out', str(tmp_path / 'a.png'))
    assert missing.returncode == 2 and 'no such bag' in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    rigid_bag = tmp_path / 'rigid_run'
    write_bag(rigid_bag, None, head)
    no_cloud = render(str(rigid_bag), '--out', str(tmp_path / 'b.png'))
    assert no_cloud.returncode == 2 and 'no terrain/heightmap topic' in no_cloud.stderr
    assert len(no_cloud.stderr.strip().splitlines()) == 1
    not_png = render(str(rigid_bag), '--out', str(tmp_path / 'c.jpg'))
    assert not_png.returncode == 2 and '.png' in not_png.stderr
    assert not any(tmp_path.glob('*.png')) and not any(tmp_path.glob('*.jpg'))
