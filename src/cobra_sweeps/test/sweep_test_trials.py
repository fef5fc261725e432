"""Cheap trial functions for the runner tests (imported by Ray workers by name)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def count_calls(params: Mapping[str, Any]) -> dict[str, float]:
    """Leaves one file per call in params['calls_dir']; metrics from x."""
    directory = Path(params['calls_dir'])
    (directory / f"{params['x']}_{os.getpid()}_{len(list(directory.iterdir()))}").touch()
    return {'speed_m_s': float(params['x']), 'cost_of_transport': 1.0 / float(params['x'])}


def fail_always_or_first(params: Mapping[str, Any]) -> dict[str, float]:
    """x == 1: raises every time; x == 2: raises on the first call only (a marker file remembers)."""
    if params['x'] == 1:
        raise ValueError('boom: x = 1 is broken')
    marker = Path(params['marker_dir']) / 'failed_once'
    if not marker.exists():
        marker.touch()
        raise RuntimeError('transient failure')
    return {'speed_m_s': 2.0}


def quadratic(params: Mapping[str, Any]) -> dict[str, float]:
    """speed = -(x - 0.3)^2: a maximum to search for."""
    return {'speed_m_s': -(float(params['x']) - 0.3) ** 2}


def report_niceness(params: Mapping[str, Any]) -> dict[str, float]:
    """The worker's CPU niceness as a metric."""
    return {'speed_m_s': float(os.nice(0))}


def first_then_wait(params: Mapping[str, Any]) -> dict[str, float]:
    """x == 1 finishes at once; any other x waits until params['release_file'] exists (at most 10 min),
    so a test can interrupt a sweep with exactly one finished trial, without timing anything."""
    import time
    release = Path(params['release_file'])
    deadline = time.monotonic() + 600.0
    while params['x'] != 1 and not release.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f'{release} never appeared')
        time.sleep(0.05)
    return count_calls(params)
