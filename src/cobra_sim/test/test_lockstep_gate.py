"""Lockstep decisions: which peer the sim waits for at a command boundary."""

from __future__ import annotations

import pytest

from cobra_sim.lockstep import (COMMANDS_PEER, LOGGER_PEER, LockstepConfigError, LockstepGate,
                                control_periods_per_command, lockstep_active)


def test_auto_is_on_only_when_unpaced():
    assert lockstep_active('auto', 0.0) and not lockstep_active('auto', 1.0)
    assert lockstep_active('on', 1.0) and not lockstep_active('off', 0.0)
    with pytest.raises(LockstepConfigError, match='lockstep:=sometimes is not one of auto, on, off'):
        lockstep_active('sometimes', 0.0)


def test_command_period_must_be_whole_control_periods():
    assert control_periods_per_command(0.01, 0.002) == 5
    with pytest.raises(LockstepConfigError, match='whole multiple of control_period_s'):
        control_periods_per_command(0.005, 0.002)


def test_waits_for_the_command_stamped_for_the_boundary_then_for_the_logger():
    gate = LockstepGate(max_logger_lag_s=0.02)
    assert gate.blocking_peer(0.01, gait_present=True, logger_present=True) == COMMANDS_PEER
    gate.command_arrived(0.009)  # an older command is not the one for this boundary
    assert gate.blocking_peer(0.01, True, True) == COMMANDS_PEER
    gate.command_arrived(0.01)
    assert gate.blocking_peer(0.01, True, True) == LOGGER_PEER
    gate.logger_progressed(0.0)  # 0.01 s behind: within the 0.02 s bound
    assert gate.blocking_peer(0.01, True, True) is None
    assert gate.blocking_peer(0.02, True, True) == COMMANDS_PEER
    gate.command_arrived(0.02)
    assert gate.blocking_peer(0.02, True, True) is None  # progress 0.0 is 0.02 behind: on the bound
    gate.command_arrived(0.03)
    assert gate.blocking_peer(0.03, True, True) == LOGGER_PEER


def test_absent_peers_are_not_waited_for():
    gate = LockstepGate(max_logger_lag_s=0.0)
    assert gate.blocking_peer(5.0, gait_present=False, logger_present=False) is None
    assert gate.blocking_peer(5.0, gait_present=False, logger_present=True) == LOGGER_PEER
    assert gate.blocking_peer(5.0, gait_present=True, logger_present=False) == COMMANDS_PEER


def test_the_final_wait_for_the_logger_can_ask_for_no_lag():
    gate = LockstepGate(max_logger_lag_s=0.05)
    gate.logger_progressed(0.98)
    assert not gate.logger_lags(1.0) and gate.logger_lags(1.0, max_lag_s=0.0)
    gate.logger_progressed(1.0)
    assert not gate.logger_lags(1.0, max_lag_s=0.0)
