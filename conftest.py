"""Test-wide setup: every package importable from source, and an isolated ROS environment.

Every ROS process a test starts must keep DDS discovery on loopback and use a ROS domain no
other concurrently running test uses; `ros_env` provides exactly that (a domain id held by a
file lock for the whole test, cobra_common.ros_domain, shared with the pip-mode runner, so
parallel pytest runs and runs on one machine never cross-talk).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent
PACKAGE_DIRS = sorted(str(p) for p in (REPO_ROOT / 'src').iterdir() if (p / 'package.xml').exists())
for package_dir in PACKAGE_DIRS:
    if package_dir not in sys.path:
        sys.path.insert(0, package_dir)
# ... and for the processes tests start (`python -m cobra_experiments.dem_run` runs these sources)
os.environ['PYTHONPATH'] = os.pathsep.join(
    dict.fromkeys(PACKAGE_DIRS + [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p]))

from cobra_common.ros_domain import claim_domain_id  # noqa: E402 (needs the paths above)


@pytest.fixture
def ros_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """Environment for ROS processes of one test; also applied to this process for rclpy."""
    claim = claim_domain_id()  # the same lock files as the pip-mode runner's
    log_dir = tmp_path / 'ros_log'
    log_dir.mkdir()
    values = {
        'ROS_AUTOMATIC_DISCOVERY_RANGE': 'LOCALHOST',
        'ROS_DOMAIN_ID': str(claim.domain_id),
        'ROS_LOG_DIR': str(log_dir),
        'PYTHONUNBUFFERED': '1',
        'PYTHONPATH': os.pathsep.join(PACKAGE_DIRS + [os.environ.get('PYTHONPATH', '')]),
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    try:
        yield {**os.environ, **values}
    finally:
        claim.release()


@pytest.fixture
def start_runner(ros_env: dict[str, str]) -> Callable[..., subprocess.Popen]:
    """Start the pip-mode runner as a user does (installed workspace sourced, the sources not on
    the path), in this test's ROS domain: `start_runner(cwd, 'sidewind.launch.py', 'use_sim:=true')`."""
    setup = Path(__file__).resolve().parent / 'install' / 'setup.bash'

    def start(cwd: Path, *words: str) -> subprocess.Popen:
        if not setup.exists():
            pytest.fail('the workspace is not built: run scripts/setup.sh (scripts/test.sh does)')
        command = f'source {setup} && exec python -m cobra_bringup.runner ' + ' '.join(words)
        return subprocess.Popen(['bash', '-c', command], cwd=cwd, env=dict(ros_env, PYTHONPATH=''),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
    return start


@pytest.fixture
def ros_node(ros_env: dict[str, str]) -> Iterator[object]:
    """An rclpy node in this test process, in the test's own ROS domain."""
    import rclpy
    rclpy.init()
    node = rclpy.create_node('test_probe')
    try:
        yield node
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
