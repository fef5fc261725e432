"""A pyrealsense2 that cannot load is one error naming what to install, not a bare ImportError.

Found on a machine without Debian's libusb-1.0-0: the odometry node died at start with an
ImportError traceback from inside pyrealsense2 (in hardware mode and in preflight alike).
"""

from __future__ import annotations

import importlib.abc
import sys

import pytest

from cobra_odometry.realsense_source import RealSenseLibraryError, import_pyrealsense2


class _FailingImport(importlib.abc.MetaPathFinder):
    def __init__(self, message: str) -> None:
        self.message = message

    def find_spec(self, name, path, target=None):
        if name == 'pyrealsense2':
            raise ImportError(self.message)
        return None


@pytest.mark.parametrize('message, fix', [
    ('libusb-1.0.so.0: cannot open shared object file: No such file or directory', 'apt-get install libusb-1.0-0'),
    ("No module named 'pyrealsense2'", 'install the pinned pyrealsense2'),
])
def test_a_library_that_cannot_load_names_the_fix(monkeypatch, message, fix):
    monkeypatch.delitem(sys.modules, 'pyrealsense2', raising=False)
    monkeypatch.setattr(sys, 'meta_path', [_FailingImport(message), *sys.meta_path])
    with pytest.raises(RealSenseLibraryError) as error:
        import_pyrealsense2()
    assert fix in str(error.value) and message in str(error.value)
    assert isinstance(error.value, RuntimeError)  # the node turns RuntimeError into its one StartupError line
