"""Where a package's shipped files and the user's caches live, in one place.

A package finds its own files through the ament index (installed) or next to its own sources
(a source checkout), never another package's by a relative path.
"""

from __future__ import annotations

import os
from pathlib import Path


def package_config_dirs(package: str, subdir: str, source_package_dir: Path) -> list[Path]:
    """`share/<package>/config/<subdir>` of the installed package, then the same folder beside its
    sources (`source_package_dir` is the package's folder holding package.xml), where present."""
    dirs: list[Path] = []
    try:
        from ament_index_python.packages import get_package_share_directory
        dirs.append(Path(get_package_share_directory(package)) / 'config' / subdir)
    except (ImportError, LookupError, ValueError, OSError):
        pass
    source = source_package_dir / 'config' / subdir
    if (source_package_dir / 'package.xml').is_file() and source not in dirs:
        dirs.append(source)
    return dirs


def user_cache_dir(name: str) -> Path:
    """`$XDG_CACHE_HOME/cobra/<name>` (default ~/.cache/cobra/<name>): one cache per user, whatever
    folder a command runs from."""
    base = os.environ.get('XDG_CACHE_HOME') or str(Path.home() / '.cache')
    return Path(base) / 'cobra' / name
