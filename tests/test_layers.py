"""The architecture as a test (docs: /README, architecture sketch): every module under src/ is read
(imports anywhere in a file count: top level, inside functions, under TYPE_CHECKING), and

- no modules import each other, directly or round a circle;
- a package imports only packages of its own layer or below (LAYERS), and the hardware packages
  and the simulators never import each other (they meet only in the topic contract);
- every package it imports is declared in its package.xml;
- no package finds another's files by a relative path (climbing out of its own folder from
  `__file__`, or from another package's `__file__`): cobra_common.paths finds shipped files.

Layers, bottom up. cobra_common is the very bottom (cobra_description's nodes use its plumbing),
then the robot description and the message packages, the soil library, the node packages,
analysis, experiments, sweeps and the bringup on top.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / 'src'
LAYERS = {
    'cobra_common': 0,
    'cobra_description': 1, 'cobra_interfaces': 1, 'tf2_msgs': 1,
    'cobra_soil': 2,
    'cobra_driver': 3, 'cobra_odometry': 3, 'cobra_gaits': 3, 'cobra_sim': 3, 'cobra_dem': 3, 'cobra_logger': 3,
    'cobra_analysis': 4,
    'cobra_experiments': 5,
    'cobra_sweeps': 6,
    'cobra_bringup': 7,
}
HARDWARE = {'cobra_driver', 'cobra_odometry'}
SIMULATORS = {'cobra_sim', 'cobra_dem'}
DEPEND_TAGS = ('depend', 'exec_depend', 'build_depend', 'build_export_depend')


def package_modules() -> dict[str, Path]:
    """'package.sub.module' -> file, for every Python module of every package's own folder."""
    modules = {}
    for package_xml in sorted(SRC.glob('*/package.xml')):
        root = package_xml.parent
        code = root / root.name
        for path in sorted(code.rglob('*.py')) if code.is_dir() else []:
            parts = path.relative_to(root).with_suffix('').parts
            modules['.'.join(parts[:-1] if parts[-1] == '__init__' else parts)] = path
    return modules


def imported_names(path: Path, module: str) -> Iterator[tuple[str, int]]:
    """(dotted name, line) of every import in the file; `from a import b` gives a.b (the caller
    keeps whichever of a.b and a is a module)."""
    is_package = path.name == '__init__.py'
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split('.')
                base = base[:len(base) - node.level + (1 if is_package else 0)]
                prefix = '.'.join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ''
            for alias in node.names:
                yield f'{prefix}.{alias.name}', node.lineno


def internal_target(name: str, modules: dict[str, Path]) -> str | None:
    """The project module an imported name loads: the longest known prefix."""
    parts = name.split('.')
    for end in range(len(parts), 0, -1):
        candidate = '.'.join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def import_graph(modules: dict[str, Path]) -> dict[str, dict[str, int]]:
    graph: dict[str, dict[str, int]] = {module: {} for module in modules}
    for module, path in modules.items():
        for name, line in imported_names(path, module):
            target = internal_target(name, modules)
            if target is not None and target != module:
                graph[module].setdefault(target, line)
    return graph


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def package_of(module: str) -> str:
    return module.split('.')[0]


def declared_dependencies(package: str) -> set[str]:
    text = (SRC / package / 'package.xml').read_text()
    return set(re.findall(rf"<(?:{'|'.join(DEPEND_TAGS)})>\s*([\w]+)\s*</", text))


def test_every_package_has_a_layer() -> None:
    packages = {xml.parent.name for xml in SRC.glob('*/package.xml')}
    assert packages <= set(LAYERS), f'place {sorted(packages - set(LAYERS))} in LAYERS (docs: architecture)'


def test_no_module_imports_round_a_circle() -> None:
    graph = import_graph(package_modules())
    assert circles(graph) == [], 'modules that import each other (directly or round a circle): ' \
        'move what both need into one of them, or below both'


def test_imports_point_down_the_layers_only() -> None:
    modules = package_modules()
    wrong = []
    for module, targets in import_graph(modules).items():
        source = package_of(module)
        for target, line in targets.items():
            target_package = package_of(target)
            if target_package == source:
                continue
            upward = LAYERS[target_package] > LAYERS[source]
            across = {source, target_package} & HARDWARE and {source, target_package} & SIMULATORS
            if upward or across:
                wrong.append(f'{modules[module].relative_to(SRC)}:{line} imports {target}')
    assert wrong == [], 'imports up the layers or between hardware and simulator: ' + '; '.join(wrong)


def test_every_imported_package_is_declared_in_package_xml() -> None:
    modules = package_modules()
    missing: dict[str, set[str]] = {}
    for module, targets in import_graph(modules).items():
        source = package_of(module)
        for target in targets:
            target_package = package_of(target)
            if target_package != source and target_package not in declared_dependencies(source):
                missing.setdefault(source, set()).add(target_package)
    assert missing == {}, 'add <exec_depend> lines: ' + '; '.join(
        f'{package} imports {sorted(packages)}' for package, packages in sorted(missing.items()))


def climbs_out(node: ast.AST, depth_to_package_root: int, packages: set[str]) -> str | None:
    """Why `node` reaches outside its package by a path, else None."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == 'parents' \
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
        source = ast.unparse(node.value.value)
        if '__file__' not in source:
            return None
        own = re.fullmatch(r'(?:Path|pathlib\.Path)\(__file__\)(?:\.resolve\(\))?', source)
        if own and node.slice.value > depth_to_package_root:
            return f'{ast.unparse(node)} climbs above its own package folder'
        other = re.match(r'(?:Path|pathlib\.Path)\((\w+)\.__file__\)', source)
        if other and other.group(1) in packages:
            return f'{ast.unparse(node)} finds files of {other.group(1)} by its location'
    return None


def test_no_package_reads_another_packages_files_by_relative_path() -> None:
    packages = set(LAYERS)
    wrong = []
    for module, path in package_modules().items():
        # parents[0] is the module's folder; the package's own folder (with package.xml) is one
        # above the Python package's top
        depth = len(path.relative_to(SRC).parts) - 2
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            reason = climbs_out(node, depth, packages - {package_of(module)})
            if reason:
                wrong.append(f'{path.relative_to(SRC)}:{node.lineno}: {reason}')
    assert wrong == [], 'use cobra_common.paths (the ament index, else the own source folder): ' + '; '.join(wrong)


def test_the_checks_see_circles_and_climbs() -> None:
    """The walkers find what they look for (a circle, a climb, another package's __file__)."""
    assert circles({'a': {'b': 1}, 'b': {'c': 1}, 'c': {'a': 1}, 'd': {'a': 1}}) == [['a', 'b', 'c']]
    climb = ast.parse('Path(__file__).resolve().parents[2]').body[0].value
    assert climbs_out(climb, 1, set()) and not climbs_out(climb, 2, set())
    other = ast.parse('Path(cobra_soil.__file__).resolve().parents[1]').body[0].value
    assert climbs_out(other, 5, {'cobra_soil'})
    assert package_modules()['cobra_common.rotations'].name == 'rotations.py'
