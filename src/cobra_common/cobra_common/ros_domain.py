"""A ROS domain id no other COBRA run or test on this machine is using, held by a file lock.

Simulated runs and tests keep DDS on loopback, but two of them in the same domain still see
each other's topics (a second sim's /clock, a second gait's commands). Each claims an id from
DOMAIN_IDS with a non-blocking flock on a per-id file; the lock lives as long as the claim (or
the process), so a crashed run never leaks an id. Plain library: no rclpy import.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

DOMAIN_IDS = range(1, 101)  # 0 stays free for the real robot's default domain
LOCK_FILE_PATTERN = 'cobra_ros_domain_{}.lock'


def lock_directory() -> Path:
    return Path(os.environ.get('TMPDIR', '/tmp'))


class DomainClaim:
    """A claimed ROS domain id; release() (or process exit) frees it."""

    def __init__(self, domain_id: int, fd: int) -> None:
        self.domain_id = domain_id
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> DomainClaim:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def claim_domain_id(directory: Path | None = None) -> DomainClaim:
    """The lowest id in DOMAIN_IDS whose lock file nobody holds; RuntimeError when all are held."""
    directory = lock_directory() if directory is None else directory
    for domain_id in DOMAIN_IDS:
        fd = os.open(directory / LOCK_FILE_PATTERN.format(domain_id), os.O_CREAT | os.O_RDWR, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return DomainClaim(domain_id, fd)
    raise RuntimeError(f'all ROS domain ids {DOMAIN_IDS.start}-{DOMAIN_IDS.stop - 1} are held by '
                       f'running COBRA tests or runs (lock files in {directory}): set ROS_DOMAIN_ID')
