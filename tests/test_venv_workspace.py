"""What scripts/setup.sh leaves for a plain shell: the venv finds the built workspace without
activating or sourcing anything, also reached through a link (as pyenv reaches it), and where pyenv
picks the interpreter, `python` in the checkout is the venv."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
VENV_PYTHON = REPO_ROOT / '.venv' / 'bin' / 'python'
PROBE = ('import os, cobra_bringup.runner; '
         "print(cobra_bringup.runner.__file__); print(os.environ['AMENT_PREFIX_PATH'])")


def plain_env() -> dict[str, str]:
    """A shell that has activated and sourced nothing."""
    return {'HOME': os.environ.get('HOME', '/root'), 'PATH': '/usr/bin:/bin'}


@pytest.fixture(scope='module', autouse=True)
def workspace_built() -> None:
    if not VENV_PYTHON.exists() or not (REPO_ROOT / 'install' / 'cobra_bringup').is_dir():
        pytest.fail('the workspace is not built: run scripts/setup.sh (scripts/test.sh does)')


def test_the_venv_finds_the_workspace_when_reached_through_a_link(tmp_path: Path) -> None:
    """The workspace paths are resolved from the venv's real location: through a link (pyenv's
    versions/<name> -> .venv) they used to resolve next to the link and the runner was not found."""
    link = tmp_path / 'linked-venv'
    link.symlink_to(REPO_ROOT / '.venv')
    result = subprocess.run([str(link / 'bin' / 'python'), '-c', PROBE], env=plain_env(), cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert 'Error processing line' not in result.stderr, result.stderr
    runner_file, ament_prefix_path = result.stdout.splitlines()
    assert Path(runner_file).is_relative_to(REPO_ROOT / 'install' / 'cobra_bringup')
    assert str(REPO_ROOT / 'install' / 'cobra_bringup') in ament_prefix_path.split(os.pathsep)


def test_python_in_the_checkout_is_the_venv_where_pyenv_picks_it() -> None:
    pyenv = shutil.which('pyenv')
    version_file = REPO_ROOT / '.python-version'
    if pyenv is None:
        pytest.skip('pyenv is not installed: setup.sh makes the venv the local Python only for pyenv')
    if os.environ.get('COBRA_PYENV_LOCAL') == '0' or (version_file.exists()
                                                      and not version_file.read_text().startswith('cobra-venv-')):
        pytest.skip('this checkout keeps its own Python choice (COBRA_PYENV_LOCAL=0 or a .python-version of its own)')
    env = plain_env() | {'PATH': f'{Path(pyenv).parent}:/usr/bin:/bin'}
    which = subprocess.run([pyenv, 'which', 'python'], env=env, cwd=REPO_ROOT / 'src', capture_output=True,
                           text=True, timeout=60)
    assert which.returncode == 0, which.stderr
    assert Path(which.stdout.strip()).parent.parent.resolve() == (REPO_ROOT / '.venv').resolve()
    result = subprocess.run([which.stdout.strip(), '-c', PROBE], env=env, cwd=REPO_ROOT, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.splitlines()[0]).is_relative_to(REPO_ROOT / 'install' / 'cobra_bringup')
