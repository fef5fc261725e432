"""The logger node's parameters as one typed table (cobra_common.config_check, as the driver's and
the sim's) and the bag-path check; no rclpy (logger_node declares the table with declare_table).

`custom_data` is a row here for its description, but the node declares it by type (a string array
that may be empty, which rclpy cannot infer from the default `[]`).
"""

from __future__ import annotations

from pathlib import Path

from cobra_common.config_check import Setting, by_name
from cobra_logger.recorder import default_bag_path, unwritable_reason

DEFAULT_TOPICS = [
    'joint_commands', 'joint_states', 'imu/data', 'odom', 'ground_truth/odom', 'diagnostics',
    'latch/state', 'contact/forces', '/rosout',
]
PROGRESS_TOPIC = 'logger/progress'  # rosgraph_msgs/Clock: newest progress_topic stamp written
RUNTIME_PARAMETERS = frozenset({'split_duration_s', 'split_size_mb'})  # the rest: read-only
CUSTOM_DATA = Setting('custom_data', [], "run provenance as 'key=value' strings, written into metadata.yaml's "
                      'custom_data (the bringup fills cobra.gait.*, cobra.class, cobra.git_rev, ...); keys unique')


def parameters(bag_path_default: str | None = None) -> tuple[Setting, ...]:
    """The table; the default bag path names the time of the call (bags/cobra_<UTC time>)."""
    return (
        Setting('topics', DEFAULT_TOPICS, 'topics to record; relative names resolve in the node namespace; '
                '"ns/*" takes every topic below ns. /clock is not recorded unless listed here'),
        Setting('bag_path', bag_path_default if bag_path_default is not None else default_bag_path(),
                'bag directory to create (must not exist); default bags/cobra_<UTC time>'),
        Setting('split_duration_s', 5.0, 'close the open file after this long [s] (wall clock); bounds the loss '
                'on SIGKILL', 0.1, 3600.0),
        Setting('split_size_mb', 64.0, 'close the open file once it holds this much message data '
                '[MB = 1e6 bytes]', 0.1, 100_000.0),
        Setting('discovery_period_s', 1.0, 'how often the graph is searched for configured topics not yet '
                'subscribed [s]', 0.05, 60.0),
        Setting('progress_topic', 'joint_states', f'recorded topic whose newest header stamp is published on '
                f'{PROGRESS_TOPIC} (a lockstepped sim waits for it); empty = no progress'),
    )


PARAMETER_BY_NAME = by_name((*parameters(''), CUSTOM_DATA))  # for run-time updates: names and ranges


def bag_path_problem(bag_path: str) -> str | None:
    """Why the bag cannot be created at `bag_path` (empty, unwritable, or there already), with the fix."""
    if not bag_path:
        return 'bag_path is empty: set bag_path:=<new directory> or leave it unset'
    reason = unwritable_reason(Path(bag_path))
    if reason:
        return f'bag_path {bag_path} cannot be created: {reason} (set bag_path:=<new directory in a writable place>)'
    if Path(bag_path).exists():
        return (f'bag path {bag_path} exists already; choose a new bag path or move the old bag away '
                '(set bag_path:=<new directory>)')
    return None
