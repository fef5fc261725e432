"""The logger's recording rules, without rclpy: the log time of each message, what is held back, progress.

- Log time: wall time, or with use_sim_time the newest header stamp recorded so far (this
  message's included; for the sim's topics the /clock value they were published at): the logger
  never subscribes to /clock. A message that came before any header stamp is held and logged at
  the first one, so a sim stamping wall-clock dates does not start its bag in 1970.
- /rosout alone does not make a bag: its messages are held back (at most ROSOUT_BACKLOG) until a
  message of another recorded topic arrives.
- Progress: the newest `progress_topic` (joint_states) header stamp written goes out once it
  advanced PROGRESS_STEP_NS, or as soon as the logger has caught up, so a lockstepped sim never
  outruns the recorder.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from cobra_common.cdr import leading_stamp_ns

HOUSEKEEPING_TOPICS = ('/rosout',)  # recorded, but alone they do not make a bag
ROSOUT_BACKLOG = 1000  # /rosout messages held back until the bag starts (oldest dropped beyond)
PROGRESS_STEP_NS = 10_000_000  # publish progress after this much sim time (or when caught up)

Write = Callable[[str, int, bytes], None]  # topic, log time [ns], serialized message


def default_bag_path() -> str:
    return datetime.now(timezone.utc).strftime('bags/cobra_%Y_%m_%d-%H_%M_%S')


def existing_ancestor(path: Path) -> Path:
    ancestor = path.absolute().parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    return ancestor


def unwritable_reason(bag_path: Path) -> str | None:
    """Why bag_path cannot be created (checked at startup; the directory appears on the first
    message), or None."""
    ancestor = existing_ancestor(bag_path)
    if not ancestor.is_dir():
        return f'{ancestor} is not a directory'
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f'{ancestor} is not writable'
    return None


class Recorder:
    """Decides the log time of each message and when it is written (through `write`)."""

    def __init__(self, write: Write, sim_time: bool, progress_topic: str | None,
                 wall_time_ns: Callable[[], int] = time.time_ns) -> None:
        self._write = write
        self.sim_time = sim_time
        self.progress_topic = progress_topic
        self._wall_time_ns = wall_time_ns
        self.stamped_topics: set[str] = set()  # topics whose messages open with a std_msgs/Header
        self.sim_time_ns = 0  # newest header stamp recorded: 0 until the first, as rclpy's ROS clock
        self.bag_started = False
        self.rosout_backlog: deque[tuple[str, int, bytes]] = deque(maxlen=ROSOUT_BACKLOG)
        self._unstamped_backlog: deque[tuple[str, bytes]] = deque(maxlen=ROSOUT_BACKLOG)
        self.progress_ns: int | None = None
        self._published_progress_ns: int | None = None

    def message(self, topic: str, data: bytes) -> None:
        """A message received on a recorded topic."""
        if not self.sim_time:
            self._record(topic, data, self._wall_time_ns())
            return
        if topic in self.stamped_topics and (stamp_ns := leading_stamp_ns(data)) is not None \
                and stamp_ns > self.sim_time_ns:
            self.sim_time_ns = stamp_ns
        if not self.sim_time_ns:  # sim time still unknown: log it at the first stamp (not at 1970)
            self._unstamped_backlog.append((topic, data))
            return
        while self._unstamped_backlog:
            self._record(*self._unstamped_backlog.popleft(), self.sim_time_ns)
        self._record(topic, data, self.sim_time_ns)

    def _record(self, topic: str, data: bytes, timestamp_ns: int) -> None:
        if not self.bag_started:
            if topic in HOUSEKEEPING_TOPICS:
                self.rosout_backlog.append((topic, timestamp_ns, data))
                return
            self.bag_started = True  # the first message that is worth a bag
            while self.rosout_backlog:
                self._write(*self.rosout_backlog.popleft())
        self._write(topic, timestamp_ns, data)
        if topic == self.progress_topic:
            stamp_ns = leading_stamp_ns(data)
            if stamp_ns is not None and (self.progress_ns is None or stamp_ns > self.progress_ns):
                self.progress_ns = stamp_ns

    def progress_due(self, caught_up: bool) -> int | None:
        """The progress stamp [ns] to announce now, if any: after PROGRESS_STEP_NS of it, or any
        new value once nothing is queued (a reliable publish costs ~50 µs here)."""
        if self.progress_ns is None or self.progress_ns == self._published_progress_ns:
            return None
        if not caught_up and self._published_progress_ns is not None \
                and self.progress_ns - self._published_progress_ns < PROGRESS_STEP_NS:
            return None
        self._published_progress_ns = self.progress_ns
        return self.progress_ns

    def finish(self) -> None:
        """Write what is still held for a stamp: no header stamp ever came, so sim time 0 is all there is."""
        while self._unstamped_backlog:
            self._record(*self._unstamped_backlog.popleft(), 0)
