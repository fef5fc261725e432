"""The path forecast node as a process beside the gait node: a retune through the gait node's
parameter service gives a new predicted path; the odom pose moves it; bad parameters exit 2."""

from __future__ import annotations

import math
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path as FilePath

import pytest
import rclpy
from nav_msgs.msg import Odometry, Path
from rcl_interfaces.srv import SetParameters
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from cobra_common.ros_testing import call_idempotent

REPO_ROOT = FilePath(__file__).resolve().parents[3]
URDF = REPO_ROOT / 'urdf' / 'cobra.urdf'
GAIT_PARAMS = REPO_ROOT / 'config' / 'gait.yaml'
FORECAST_PARAMS = REPO_ROOT / 'config' / 'path_forecast.yaml'
PATH_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
WAIT_LIMIT_S = 90.0  # only a failure guard on a loaded machine: every check waits for a message


def command(module: str, params_file: FilePath, *parameters: str) -> list[str]:
    words = [sys.executable, '-m', module, '--ros-args', '--params-file', str(params_file), '-p', f'urdf_path:={URDF}']
    for parameter in parameters:
        words += ['-p', parameter]
    return words


def end_xy(path: Path) -> tuple[float, float]:
    return path.poses[-1].pose.position.x, path.poses[-1].pose.position.y


def stamp_s(stamp) -> float:  # type: ignore[no-untyped-def]
    return stamp.sec + stamp.nanosec * 1e-9


def wait_for_path(node, paths: list[Path], accept: Callable[[Path], bool],
                  between: Callable[[], None] | None = None) -> Path:
    """The first received path (in order, from where the list stands) that `accept`s."""
    deadline = time.monotonic() + WAIT_LIMIT_S
    seen = 0
    while time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.1)
        for path in paths[seen:]:
            if accept(path):
                return path
        seen = len(paths)
        if between is not None:
            between()
    pytest.fail(f'no accepted gait/predicted_path within {WAIT_LIMIT_S} s ({len(paths)} received)')


def stop(process: subprocess.Popen) -> int:
    process.send_signal(signal.SIGINT)
    return process.wait(timeout=20)


def test_a_retune_of_the_gait_node_gives_a_new_path_and_odom_moves_it(ros_env, ros_node) -> None:
    node = ros_node
    paths: list[Path] = []
    node.create_subscription(Path, 'gait/predicted_path', paths.append, PATH_QOS)
    # started first: it must find the gait node when that comes up
    forecast = subprocess.Popen(command('cobra_gaits.path_forecast_node', FORECAST_PARAMS,
                                        'republish_period_s:=0.5'), env=ros_env)
    gait = subprocess.Popen(command('cobra_gaits.gait_node', GAIT_PARAMS, 'autostart:=false'), env=ros_env)
    try:
        left = wait_for_path(node, paths, lambda path: len(path.poses) > 1)
        assert left.header.frame_id == 'odom' and len(left.poses) == 3 * 50 + 1
        assert (left.poses[0].pose.position.x, left.poses[0].pose.position.y) == (0.0, 0.0)  # no odom yet
        # pose stamps run over the forecast: 3 cycles of gait1's 0.4 Hz
        assert stamp_s(left.poses[-1].header.stamp) - stamp_s(left.header.stamp) == pytest.approx(7.5, abs=1e-6)
        left_x, left_y = end_xy(left)
        assert abs(left_y) > 0.3  # ~0.18 m per cycle, sideways

        set_parameters = node.create_client(SetParameters, 'gait_node/set_parameters')
        assert set_parameters.wait_for_service(timeout_sec=WAIT_LIMIT_S)
        answer = call_idempotent(node, set_parameters, SetParameters.Request(parameters=[
            Parameter('direction', value='right').to_parameter_msg()]), WAIT_LIMIT_S)
        assert answer is not None and answer.results[0].successful
        right = wait_for_path(node, paths, lambda path: end_xy(path)[1] * left_y < 0.0)
        right_x, right_y = end_xy(right)
        assert right_y == pytest.approx(-left_y, rel=0.05)  # the mirrored wave sidewinds to the other side
        assert right_x == pytest.approx(left_x, abs=0.03)

        odom_publisher = node.create_publisher(Odometry, 'odom', 10)
        odom = Odometry()
        odom.header.frame_id, odom.child_frame_id = 'odom', 'base_link'
        odom.pose.pose.position.x, odom.pose.pose.position.y = 1.0, 2.0
        odom.pose.pose.orientation.z, odom.pose.pose.orientation.w = math.sin(math.pi / 4), math.cos(math.pi / 4)
        moved = wait_for_path(node, paths, lambda path: path.poses[0].pose.position.x == pytest.approx(1.0),
                              between=lambda: odom_publisher.publish(odom))
        # turned 90 deg: the robot's y (its sideways travel) is odom's -x
        assert moved.poses[0].pose.position.y == pytest.approx(2.0)
        assert end_xy(moved) == pytest.approx((1.0 - right_y, 2.0 + right_x), abs=1e-6)
    finally:
        codes = stop(forecast), stop(gait)
    assert codes == (0, 0)


def test_a_bad_frame_prefix_is_refused_at_startup(ros_env) -> None:
    result = subprocess.run(command('cobra_gaits.path_forecast_node', FORECAST_PARAMS, 'frame_prefix:=/bad'),
                            env=ros_env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "frame_prefix:='/bad' is not a frame prefix" in result.stderr


def test_declare_parameters_declares_everything_without_side_effects(ros_node) -> None:
    from cobra_gaits.path_forecast_node import declare_parameters
    bare = rclpy.create_node('path_forecast', parameter_overrides=[Parameter('cycles', value=5)])
    try:
        values = declare_parameters(bare)
        assert values['cycles'] == 5 and values['epsilon'] == 1.0 and values['gait_node'] == 'gait_node'
        assert not list(bare.timers) and not list(bare.subscriptions)
        assert [p.topic_name for p in bare.publishers] == ['/parameter_events']  # rclpy's own only
    finally:
        bare.destroy_node()


def test_on_sim_time_the_gait_node_is_found_before_any_clock(ros_env, ros_node) -> None:
    """No /clock yet (a sim that waits for its peers): the first path still comes, stamped at time 0."""
    paths: list[Path] = []
    ros_node.create_subscription(Path, 'gait/predicted_path', paths.append, PATH_QOS)
    gait = subprocess.Popen(command('cobra_gaits.gait_node', GAIT_PARAMS, 'autostart:=false'), env=ros_env)
    forecast = subprocess.Popen(command('cobra_gaits.path_forecast_node', FORECAST_PARAMS, 'use_sim_time:=true',
                                        'frame_prefix:=r1/'), env=ros_env)
    try:
        path = wait_for_path(ros_node, paths, lambda path: len(path.poses) > 1)
        assert path.header.frame_id == 'r1/odom' and stamp_s(path.header.stamp) == 0.0
    finally:
        codes = stop(forecast), stop(gait)
    assert codes == (0, 0)


def test_the_worker_runs_the_newest_request_and_drops_the_stale_ones() -> None:
    """While one forecast runs, newer requests replace each other: only the newest is run next."""
    import threading

    from cobra_gaits.path_forecast_node import LatestOnlyWorker
    started, release, done = threading.Event(), threading.Event(), threading.Event()
    processed: list[int] = []

    def work(request: int) -> None:
        processed.append(request)
        started.set()
        release.wait()
        if len(processed) == 2:
            done.set()

    worker = LatestOnlyWorker(work)  # type: ignore[arg-type]
    try:
        worker.submit(1)  # type: ignore[arg-type]
        assert started.wait(timeout=WAIT_LIMIT_S)
        for request in (2, 3, 4):
            worker.submit(request)  # type: ignore[arg-type]
        release.set()
        assert done.wait(timeout=WAIT_LIMIT_S)
    finally:
        worker.stop()
    assert processed == [1, 4]
