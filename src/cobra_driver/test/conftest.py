"""Shared fixtures: an emulated COBRA bus on a pty and a driver configured for it."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator

import pytest

from cobra_driver.driver_config import DriverConfig, build_config
from cobra_driver.driver_core import JointDriver
from cobra_driver.emulator import ServoBusEmulator, cobra_bus


@pytest.fixture(autouse=True)
def short_gil_switch() -> Iterator[None]:
    """Emulator and driver share this process: hand the GIL over quickly, as two processes would."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(0.0002)
    yield
    sys.setswitchinterval(previous)


@pytest.fixture
def bus(tmp_path) -> Iterator[ServoBusEmulator]:
    # above the driver's loop (SCHED_FIFO 50), as servos answer in hardware time however busy the host
    emulator = cobra_bus(link_path=tmp_path / 'ttyCOBRA', realtime_priority=60)
    emulator.start()
    yield emulator
    emulator.stop()


def driver_config(port: str, **overrides: object) -> DriverConfig:
    # 100 Hz and generous reply margins (shared, loaded CI cores): tests check behaviour, the bench timing.
    # Set-up 250 ms: on a loaded CI machine three start-up writes in a row went unanswered within 50 ms
    # (the pty's bytes cross the kernel on an ordinary-priority worker, unlike a servo's).
    values = {'port': port, 'rate_hz': 100.0, 'packet_timeout_margin_ms': 20.0, 'setup_timeout_margin_ms': 250.0,
              'status_poll_period_s': 0.1,
              'fault_after_failures': 5, 'reconnect_min_s': 0.05, 'reconnect_max_s': 0.2}
    values.update(overrides)
    return build_config(values)


def _wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


@pytest.fixture
def wait_for() -> Callable[..., bool]:
    """Poll a condition until true or timed out (returns its last value)."""
    return _wait_for


@pytest.fixture
def make_driver() -> Iterator[Callable[..., JointDriver]]:
    created: list[JointDriver] = []

    def make(port: str, **overrides: object) -> JointDriver:
        logs: list[tuple[str, str]] = []
        driver = JointDriver(driver_config(port, **overrides),
                             lambda level, message, throttle_s=0.0: logs.append((level, message)))
        driver.logs = logs  # type: ignore[attr-defined]
        created.append(driver)
        return driver

    yield make
    for driver in created:
        if driver._loop_thread is not None:
            driver.stop_loop(driver.loop_stop)  # type: ignore[attr-defined]
        driver.shutdown()


@pytest.fixture
def running_driver(make_driver: Callable[..., JointDriver]) -> Callable[..., tuple[JointDriver, list]]:
    """Start a driver and its loop; returns (driver, published samples). Stopped at teardown."""
    def start(port: str, **overrides: object) -> tuple[JointDriver, list]:
        driver = make_driver(port, **overrides)
        driver.start()
        samples: list = []
        driver.loop_stop = driver.start_loop(samples.append)  # type: ignore[attr-defined]
        return driver, samples
    return start
