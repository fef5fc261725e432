"""The stack's own message types (cobra_interfaces) for rosbags: a Jazzy typestore that knows them.

rosbags ships the standard Jazzy types only. A bag writer needs a type's definition to write its
schema, and a reader needs it for a bag that carries no definitions, so both take their typestore
from here. The definitions are read from the installed package's .msg files (the one source of
truth; rosidl installs them in <prefix>/share/cobra_interfaces/msg), never copied into Python.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

from rosbags.typesys import Stores, get_typestore
from rosbags.typesys.msg import get_types_from_msg
from rosbags.typesys.store import Typestore

INTERFACE_PACKAGE = 'cobra_interfaces'
CONTACT_WRENCHES = 'cobra_interfaces/msg/ContactWrenches'
CONTACT_FORCES_TOPIC = 'contact/forces'  # every link's ContactWrenches, one message per sample


def interface_msg_dir() -> Path | None:
    """The installed cobra_interfaces/msg folder, or None where the package is not installed.

    Found from the generated Python package (<prefix>/lib/pythonX.Y/site-packages/cobra_interfaces),
    which works for a venv install, a colcon workspace and a system install alike, with or
    without the prefix on AMENT_PREFIX_PATH.
    """
    spec = importlib.util.find_spec(INTERFACE_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for package_dir in spec.submodule_search_locations:
        msg_dir = Path(package_dir).resolve().parents[3] / 'share' / INTERFACE_PACKAGE / 'msg'
        if msg_dir.is_dir():
            return msg_dir
    return None


def interface_definitions() -> dict[str, str]:
    """msgtype ('cobra_interfaces/msg/X') -> its .msg text, for every installed message."""
    msg_dir = interface_msg_dir()
    if msg_dir is None:
        return {}
    return {f'{INTERFACE_PACKAGE}/msg/{path.stem}': path.read_text()
            for path in sorted(msg_dir.glob('*.msg'))}


@cache
def cobra_typestore() -> Typestore:
    """rosbags' Jazzy typestore plus the installed cobra_interfaces messages.

    Without cobra_interfaces installed this is the plain Jazzy store: bags written by the logger
    still read, since they carry their definitions; a writer cannot record the type anyway (the
    logger subscribes with the generated Python class).
    """
    typestore = get_typestore(Stores.ROS2_JAZZY)
    for msgtype, text in interface_definitions().items():
        typestore.register(get_types_from_msg(text, msgtype))
    return typestore
