"""scheduler: the sim's stepping as explicit states, driven by hand (no rclpy, no MuJoCo):
peers, the t = 0 hold, pacing, lockstep holds and boundaries, the end of duration_s."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from cobra_sim.scheduler import CLOCK_REPEAT_S, WAIT_S, Decision, Phase, Scheduler, SchedulerConfig

CONTROL_NS = 2_000_000  # 2 ms control period, 5 per 10 ms command period


@dataclass
class FakePeers:
    absent: list[str] = field(default_factory=list)
    gait: bool = True
    logger: bool = True

    def missing(self) -> list[str]:
        return list(self.absent)

    def gait_present(self) -> bool:
        return self.gait

    def logger_present(self) -> bool:
        return self.logger


def scheduler(**config: object) -> Scheduler:
    values = dict(control_period_ns=CONTROL_NS, control_periods_per_command=5, real_time_factor=0.0,
                  command_topic='/joint_commands', progress_topic='/logger/progress')
    values.update(config)
    return Scheduler(SchedulerConfig(**values), now_s=0.0, wall_time_ns=lambda: 1_234_567_890_123_456_789)


def run(s: Scheduler, peers: FakePeers, now_s: float, periods: int) -> Decision:
    """Step while the scheduler says so, at most `periods` times; the first non-step decision."""
    for _ in range(periods):
        decision = s.decide(now_s, peers)
        if not decision.step:
            return decision
        s.stepped()
    return s.decide(now_s, peers)


def test_waits_for_peers_then_holds_t0_with_clock_repeats_until_the_first_command():
    s = scheduler(wait_for_peers_s=10.0, lockstep='off')
    peers = FakePeers(absent=['a subscriber on /joint_states'])
    assert s.phase is Phase.WAITING_FOR_PEERS
    assert s.decide(1.0, peers) == Decision(False, WAIT_S, in_executor=True)
    peers.absent.clear()
    assert not s.decide(2.0, peers).step
    assert s.phase is Phase.HOLDING_T0 and s.clock_restamp and s.clock_due
    assert s.logs == [('info', 'peers present: holding t = 0 until the first /joint_commands')]
    s.clock_due = False
    s.decide(2.0 + CLOCK_REPEAT_S / 2, peers)
    assert not s.clock_due                      # repeated only every CLOCK_REPEAT_S
    s.decide(2.0 + CLOCK_REPEAT_S * 1.01, peers)
    assert s.clock_due and s.time_ns == 0
    s.command_received()
    assert s.decide(2.2, peers).step and s.phase is Phase.RUNNING
    assert s.logs[-1] == ('info', 'peers present: starting')


def test_gives_up_on_peers_at_the_timeout_and_says_which():
    s = scheduler(wait_for_peers_s=10.0, lockstep='off')
    peers = FakePeers(absent=['a publisher on /joint_commands'])
    assert not s.decide(9.9, peers).step
    assert s.decide(10.0, peers).step
    assert s.logs == [('warning', 'gave up waiting for a publisher on /joint_commands: starting without them')]


def test_without_a_peer_wait_it_starts_at_once_and_clock_origin_wall_is_floored():
    s = scheduler(clock_origin='wall', lockstep='off')
    assert s.phase is Phase.RUNNING and s.decide(0.0, FakePeers()).step
    assert s.clock_origin_ns == 1_234_567_890_000_000_000  # whole second (and 10 ms command period)


def test_lockstep_holds_at_each_boundary_for_the_command_then_the_logger():
    s = scheduler(lockstep='auto')  # unpaced: lockstep on
    peers = FakePeers()
    s.gate.command_arrived(0.0)
    s.gate.logger_progressed(0.0)
    assert run(s, peers, 0.0, 100) == Decision(False, WAIT_S, in_executor=False)
    assert s.control_periods == 5 and s.phase is Phase.LOCKSTEP_HOLD  # at the 10 ms boundary
    s.gate.command_arrived(0.01)             # the command is there; the logger is within 50 ms
    assert run(s, peers, 0.5, 100).wait_s == WAIT_S and s.control_periods == 10
    s.gate.command_arrived(0.07)
    assert run(s, peers, 1.0, 100) == Decision(False, WAIT_S, in_executor=False)
    assert s.control_periods == 30           # 0.06 s: the logger (newest 0.0 s) lags more than 0.05 s
    assert s.held_s['gait'] == pytest.approx(1.0) and s.held_s['logger'] == 0.0  # 0 -> 0.5 -> 1.0


def test_a_peer_without_a_publisher_is_not_waited_for_and_is_reported_once():
    s = scheduler(lockstep='on', real_time_factor=0.0)
    peers = FakePeers(gait=False, logger=False)
    assert run(s, peers, 0.0, 12).step      # stepped through two boundaries
    assert s.logs == [('warning', 'lockstep: no publisher on /joint_commands: stepping on without commands'),
                      ('warning', 'lockstep: no logger publishes /logger/progress: not waiting for a recorder')]


def test_a_silent_present_peer_is_warned_about_every_timeout_and_clock_repeats():
    s = scheduler(lockstep='on', peer_timeout_s=1.0)
    peers = FakePeers()
    s.gate.logger_progressed(1.0)
    assert not run(s, peers, 0.0, 100).step
    s.clock_due = False
    s.decide(0.5, peers)
    assert s.clock_due and not [text for _, text in s.logs if 'held at' in text]
    s.decide(1.0, peers)
    s.decide(1.5, peers)
    s.decide(2.0, peers)
    held = [text for _, text in s.logs if 'held at' in text]
    assert len(held) == 2 and held[0].startswith(
        "lockstep: sim time held at 0.010 s for 1 s waiting for the gait's command stamped 0.010 s on /joint_commands")


def test_duration_ends_the_run_and_lockstep_gives_up_on_a_final_peer_after_the_timeout():
    s = scheduler(lockstep='on', duration_s=0.02, peer_timeout_s=1.0)
    peers = FakePeers()
    s.gate.command_arrived(0.02)
    s.gate.logger_progressed(0.0)
    assert not run(s, peers, 0.0, 100).step
    assert s.control_periods == 10 and s.phase is Phase.LOCKSTEP_HOLD  # the logger must reach 0.02 s
    assert s.decide(1.0, peers) == Decision(False)
    assert s.phase is Phase.FINISHED
    assert ('warning', "lockstep: gave up after 1.0 s waiting for the logger (newest joint_states written: "
                       '0.000 s, on /logger/progress)') in s.logs
    assert s.logs[-1] == ('info', 'reached duration_s = 0.02 s of sim time, held 1.00 s wall for the logger')
    assert s.decide(2.0, peers) == Decision(False)


def test_paced_it_waits_while_ahead_of_the_wall_clock_and_a_new_pace_reanchors():
    s = scheduler(real_time_factor=1.0, lockstep='auto')  # paced: lockstep off
    peers = FakePeers()
    assert s.decide(0.0, peers).wait_s == pytest.approx(1e-4)  # exactly on time counts as ahead
    decision = run(s, peers, 0.0001, 100)
    assert s.control_periods == 1 and not decision.step and decision.in_executor
    assert decision.wait_s == pytest.approx(0.002 - 0.0001 + 1e-4)
    assert s.decide(0.0021, peers).step
    s.stepped()
    s.set_real_time_factor(2.0, now_s=10.0)       # re-anchored: no burst after the long gap
    assert not s.decide(10.0, peers).step
    assert s.decide(10.001, peers).step


def test_measured_rtf_counts_from_the_start_not_from_the_peer_wait():
    s = scheduler(wait_for_peers_s=100.0, lockstep='off', wait_for_commands=False)
    peers = FakePeers(absent=['x'])
    s.decide(50.0, peers)
    peers.absent.clear()
    s.decide(50.0, peers)
    for _ in range(500):
        s.stepped()
    assert s.measured_rtf(51.0) == pytest.approx(1.0)
