import os
from pathlib import Path

import pytest

from cobra_common.atomic_file import write_atomically, write_text_atomically


def test_the_target_appears_whole_and_nothing_else_is_left(tmp_path: Path) -> None:
    seen: list[Path] = []

    def writer(temporary: Path) -> None:
        seen.append(temporary)
        assert not (tmp_path / 'table.csv').exists()  # not there until the writer is done
        temporary.write_text('a,b\n1,2\n')

    assert write_atomically(tmp_path / 'table.csv', writer) == tmp_path / 'table.csv'
    assert (tmp_path / 'table.csv').read_text() == 'a,b\n1,2\n'
    assert seen[0].parent == tmp_path and seen[0].suffix == '.csv'  # same folder and format
    assert sorted(p.name for p in tmp_path.iterdir()) == ['table.csv']
    umask = os.umask(0o022)
    os.umask(umask)
    assert (tmp_path / 'table.csv').stat().st_mode & 0o777 == 0o666 & ~umask  # as open() makes it, not 0600


def test_a_failing_writer_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = write_text_atomically(tmp_path / 'spec.yaml', 'old: 1\n')

    def writer(temporary: Path) -> None:
        temporary.write_text('new: ')  # half written, then the writer fails
        raise RuntimeError('disk full')

    with pytest.raises(RuntimeError, match='disk full'):
        write_atomically(target, writer)
    assert target.read_text() == 'old: 1\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ['spec.yaml']
