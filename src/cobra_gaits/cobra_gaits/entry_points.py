"""Console entry points of cobra_gaits's nodes (setup.py): stop signals are quiet from the first line.

Each imports its node module only after cobra_common.node_entry installed the stop handlers,
so a bringup that stops while the node is still importing ends it with exit 0, no traceback.
"""

from cobra_common.node_entry import run_node_module


def gait_node() -> int:
    return run_node_module('cobra_gaits.gait_node')


def path_forecast_node() -> int:
    return run_node_module('cobra_gaits.path_forecast_node')


def navigate_node() -> int:
    return run_node_module('cobra_gaits.navigate_node')
