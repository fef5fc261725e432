"""A file that appears whole or not at all: written under a temporary name in its own folder, then
renamed over the target (a reader, or a run killed half-way, never sees half a file)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path


def write_atomically(path: Path, writer: Callable[[Path], None]) -> Path:
    """Call `writer` with a temporary path beside `path` (same suffix, so tools that choose the
    format by it still do), then rename it to `path`. On any error the temporary is removed and an
    earlier `path` is left as it was."""
    path = Path(path)
    temporary = path.with_name(f'.{path.name}.{os.getpid()}-{secrets.token_hex(4)}{path.suffix}')
    # created here, not by tempfile.mkstemp: its mode 0600 would hide a report from other users
    os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    try:
        writer(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return path


def write_text_atomically(path: Path, text: str) -> Path:
    return write_atomically(path, lambda temporary: temporary.write_text(text, encoding='utf-8'))
