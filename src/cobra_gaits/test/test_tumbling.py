"""Every transition and failure path of the tumbling-latch state machine, against a plain plant model."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from cobra_description.robot_model import default_urdf_path, load_robot_model
from cobra_gaits.curl_pose import curl_pose
from cobra_gaits.sidewinding import GaitError, SidewindingGenerator, SidewindingParams
from cobra_gaits.tumbling import TumbleMachine, TumbleParams, TumbleState, min_jerk

DT_S = 0.01
S = TumbleState


@pytest.fixture(scope='module')
def robot():
    model = load_robot_model(default_urdf_path('cobra'))
    joints = model.gait_joints()
    return joints, curl_pose(model, joints).positions_rad


def make_machine(robot, autostart: bool = True, **params: float) -> TumbleMachine:
    joints, curl = robot
    generator = SidewindingGenerator([j.axis_kind for j in joints], SidewindingParams(
        frequency_hz=0.5, amplitude_vertical_rad=0.3, amplitude_horizontal_rad=0.6, ramp_duration_s=1.0))
    if autostart:
        generator.ramp.start()
    params.setdefault('wave_amplitude_rad', 0.0)  # passive unless a test asks for the wave
    return TumbleMachine([j.name for j in joints], curl, np.array([j.limits.velocity_rad_s for j in joints]),
                         generator, TumbleParams(**params), pitch_signs=pitch_signs(joints))


def pitch_signs(joints) -> np.ndarray:
    return np.array([j.axis_sign if j.axis_kind == 'pitch' else 0.0 for j in joints])


class Plant:
    """Joints that follow the command (or stay where they are), a latch that does what it is told."""

    def __init__(self, machine: TumbleMachine, follows: bool = True, latch_works: bool = True) -> None:
        self.machine, self.follows, self.latch_works = machine, follows, latch_works
        self.measured_rad: np.ndarray | None = np.zeros(len(machine.joint_names))
        self.latch: bool | None = False
        self.sent: list[tuple[str, bool]] = []
        self.commands: list[np.ndarray] = []

    def tick(self) -> None:
        command = self.machine.advance(DT_S, self.measured_rad, self.latch).copy()
        self.commands.append(command)
        latch_request, torque_request = self.machine.take_requests()
        if latch_request is not None:
            self.sent.append(('latch/set', latch_request))
            if self.latch_works or not latch_request:
                self.latch = latch_request
            self.machine.latch_answered(latch_request, self.latch == latch_request,
                                        '' if self.latch == latch_request else 'frames 0.082 m apart')
        if torque_request is not None:
            self.sent.append(('torque/set', torque_request))
        if self.follows and self.measured_rad is not None:
            self.measured_rad = command

    def run_until(self, done: Callable[[], bool], limit_s: float = 60.0) -> float:
        for step in range(int(limit_s / DT_S)):
            if done():
                return step * DT_S
            self.tick()
        raise AssertionError(f'not done within {limit_s} s; state {self.machine.status_text}')

    def run_to(self, state: TumbleState, limit_s: float = 60.0) -> float:
        return self.run_until(lambda: self.machine.state == state, limit_s)


def states_of(machine: TumbleMachine) -> list[str]:
    return [event.split(':')[0] for event in machine.events]


def max_speed_rad_s(commands: list[np.ndarray]) -> float:
    return float(np.max(np.abs(np.diff(np.array(commands), axis=0))) / DT_S)


def test_full_sequence_sidewind_curl_latch_tumble_release_ready(robot) -> None:
    machine = make_machine(robot)
    plant = Plant(machine)
    plant.run_until(lambda: False if len(plant.commands) < 300 else True)  # sidewinding at full amplitude
    assert np.max(np.abs(plant.commands[-1])) > 0.2
    assert machine.request_start()[0]
    plant.run_to(S.TUMBLING)
    assert np.allclose(plant.commands[-1], robot[1])  # holding the curl pose
    assert plant.latch is True and plant.sent == [('latch/set', True)]
    assert machine.request_release()[0]
    plant.run_to(S.READY)
    assert plant.latch is False and plant.sent[-1] == ('latch/set', False)
    assert np.allclose(plant.commands[-1], 0.0)
    assert states_of(machine) == ['ramp_down', 'curling', 'latching', 'tumbling', 'releasing', 'uncurling',
                                  'ready']
    assert machine.status_text == 'ready'
    # smooth all the way: no joint ever steps faster than the curl speed once the wave is down
    ramp_end = next(i for i, c in enumerate(plant.commands) if i > 300 and np.allclose(c, 0.0))
    assert max_speed_rad_s(plant.commands[ramp_end:]) <= machine.params.curl_speed_rad_s * 1.001


def test_curl_duration_follows_the_curl_speed(robot) -> None:
    slow, fast = make_machine(robot, curl_speed_rad_s=0.3), make_machine(robot, curl_speed_rad_s=1.2)
    durations = []
    for machine in (slow, fast):
        plant = Plant(machine)
        machine.request_start()
        plant.run_to(S.CURLING)
        durations.append(plant.run_to(S.LATCHING))
        assert max_speed_rad_s(plant.commands[-int(durations[-1] / DT_S):]) <= machine.params.curl_speed_rad_s
    assert durations[0] == pytest.approx(4 * durations[1], rel=0.02)


def test_the_urdf_velocity_limit_caps_a_faster_curl_speed(robot) -> None:
    machine = make_machine(robot, curl_speed_rad_s=50.0)
    plant = Plant(machine)
    machine.request_start()
    plant.run_to(S.LATCHING)
    assert 4.0 < max_speed_rad_s(plant.commands) <= 4.82  # XH540 at 12 V


def test_start_from_ready_curls_again_and_gait_start_sidewinds(robot) -> None:
    machine = make_machine(robot)
    plant = Plant(machine)
    machine.request_start()
    plant.run_to(S.TUMBLING)
    machine.request_release()
    plant.run_to(S.READY)
    assert machine.request_start()[0]
    plant.run_to(S.TUMBLING)
    machine.request_release()
    plant.run_to(S.READY)
    assert machine.request_sidewind()[0]
    assert machine.state == S.SIDEWINDING
    plant.run_until(lambda: np.max(np.abs(plant.commands[-1])) > 0.2, limit_s=5.0)


def test_start_after_sidewinding_starts_the_sequence_once_by_itself(robot) -> None:
    machine = make_machine(robot, start_after_s=3.0, tumbling_timeout_s=2.0)
    plant = Plant(machine)
    started_s = plant.run_to(S.RAMP_DOWN)
    assert started_s == pytest.approx(3.0, abs=2 * DT_S)  # not before its time, not later
    plant.run_to(S.READY)  # curls, latches, tumbles 2 s, releases by itself, uncurls
    assert machine.request_sidewind()[0]
    for _ in range(int(5.0 / DT_S)):  # sidewinding again: it waits for tumble/start this time
        plant.tick()
    assert machine.state == S.SIDEWINDING


def test_no_start_after_means_waiting_for_tumble_start(robot) -> None:
    machine = make_machine(robot)
    plant = Plant(machine)
    for _ in range(int(10.0 / DT_S)):
        plant.tick()
    assert machine.state == S.SIDEWINDING


def test_start_after_counts_sidewinding_only(robot) -> None:
    """A node waiting for gait/start (autostart false) does not curl by itself: it never sidewound."""
    machine = make_machine(robot, autostart=False, start_after_s=1.0)
    plant = Plant(machine)
    for _ in range(int(5.0 / DT_S)):
        plant.tick()
    assert machine.state == S.SIDEWINDING
    machine.sidewinding.ramp.start()
    assert plant.run_to(S.RAMP_DOWN, limit_s=5.0) == pytest.approx(1.0, abs=2 * DT_S)


def test_requests_in_the_wrong_state_are_refused_with_the_state(robot) -> None:
    machine = make_machine(robot)
    plant = Plant(machine)
    ok, message = machine.request_release()
    assert not ok and "needs state tumbling, the state is 'sidewinding'" in message
    machine.request_start()
    plant.run_to(S.CURLING)
    ok, message = machine.request_start()
    assert not ok and "the state is 'curling'" in message
    assert not machine.request_sidewind()[0]
    assert machine.state == S.CURLING


def test_loop_did_not_close_aborts_before_latching(robot) -> None:
    machine = make_machine(robot)
    plant = Plant(machine, follows=False)  # joints too weak: they stay straight
    machine.request_start()
    plant.run_to(S.ABORTED)
    assert machine.status_text.startswith('aborted: loop did not close: joint_')
    assert 'tolerance 0.15 rad' in machine.status_text
    assert ('latch/set', True) not in plant.sent
    assert plant.sent == [('latch/set', False), ('torque/set', True)]
    plant.run_until(lambda: np.allclose(plant.commands[-1], 0.0))  # back to straight


def test_no_joint_states_means_the_loop_is_not_known_closed(robot) -> None:
    machine = make_machine(robot)
    plant = Plant(machine)
    plant.measured_rad = None
    machine.request_start()
    plant.run_to(S.ABORTED)
    assert 'loop did not close: no joint_states received' in machine.status_text


def test_latch_did_not_confirm_aborts_with_the_latch_answer(robot) -> None:
    machine = make_machine(robot, latching_timeout_s=2.0)
    plant = Plant(machine, latch_works=False)
    machine.request_start()
    plant.run_to(S.LATCHING)
    waited_s = plant.run_to(S.ABORTED)
    assert waited_s == pytest.approx(2.0, abs=2 * DT_S)
    assert machine.status_text.startswith('aborted: latch did not confirm within 2 s')
    assert 'frames 0.082 m apart' in machine.status_text
    assert plant.sent == [('latch/set', True), ('latch/set', False), ('torque/set', True)]
    plant.run_until(lambda: np.allclose(plant.commands[-1], 0.0))
    assert max_speed_rad_s(plant.commands[-300:]) <= machine.params.curl_speed_rad_s * 1.001


def test_abort_mid_curl_moves_smoothly_to_straight(robot) -> None:
    machine = make_machine(robot)
    plant = Plant(machine)
    machine.request_start()
    plant.run_to(S.CURLING)
    plant.run_until(lambda: np.max(np.abs(plant.commands[-1])) > 0.5)
    assert machine.request_abort()[0]
    assert machine.status_text == 'aborted: abort requested'
    plant.run_until(lambda: np.allclose(plant.commands[-1], 0.0))
    assert max_speed_rad_s(plant.commands[-200:]) <= machine.params.curl_speed_rad_s * 1.001
    assert plant.sent == [('latch/set', False), ('torque/set', True)]
    assert machine.request_abort()[0] and machine.status_text == 'aborted: abort requested'  # first reason kept


def test_latch_opening_while_tumbling_aborts(robot) -> None:
    machine = make_machine(robot)
    plant = Plant(machine)
    machine.request_start()
    plant.run_to(S.TUMBLING)
    plant.latch = False
    plant.tick()
    assert machine.status_text == 'aborted: latch opened while tumbling'


def test_tumbling_time_limit_releases_by_itself(robot) -> None:
    machine = make_machine(robot, tumbling_timeout_s=1.5)
    plant = Plant(machine)
    machine.request_start()
    plant.run_to(S.TUMBLING)
    assert plant.run_to(S.RELEASING) == pytest.approx(1.5, abs=2 * DT_S)
    assert 'tumbling_timeout_s' in machine.events[-1]
    plant.run_to(S.READY)


def test_latch_that_does_not_open_aborts(robot) -> None:
    machine = make_machine(robot)
    plant = Plant(machine)
    machine.request_start()
    plant.run_to(S.TUMBLING)
    machine.request_release()
    plant.latch_works = False
    plant.tick()  # the release request goes out...
    plant.latch = True  # ...but the latch stays closed
    plant.run_to(S.ABORTED)
    assert machine.status_text.startswith('aborted: latch did not open within 3 s')


def test_joints_that_do_not_straighten_abort(robot) -> None:
    machine = make_machine(robot)
    plant = Plant(machine)
    machine.request_start()
    plant.run_to(S.TUMBLING)
    machine.request_release()
    plant.run_to(S.UNCURLING)
    plant.follows = False  # stuck curled
    plant.run_to(S.ABORTED)
    assert machine.status_text.startswith('aborted: did not straighten: joint_')


def test_ramp_down_time_limit(robot) -> None:
    machine = make_machine(robot, ramp_down_timeout_s=0.5)  # the wave's ramp takes 1 s
    plant = Plant(machine)
    plant.run_until(lambda: len(plant.commands) > 150)
    machine.request_start()
    plant.run_to(S.ABORTED)
    assert machine.status_text.startswith('aborted: ramp down did not finish within 0.5 s')


def test_sidewinding_after_an_abort_ramps_up_from_straight(robot) -> None:
    machine = make_machine(robot)
    plant = Plant(machine)
    plant.run_until(lambda: len(plant.commands) > 150)
    machine.request_abort('test')
    assert not machine.request_sidewind()[0]  # still moving to straight
    plant.run_until(lambda: np.allclose(plant.commands[-1], 0.0))
    plant.tick()
    assert machine.request_sidewind()[0]
    plant.tick()
    assert np.max(np.abs(plant.commands[-1])) < 0.01  # the ramp starts again from zero
    assert machine.status_text == 'sidewinding'


@pytest.mark.parametrize('field', ['curl_speed_rad_s', 'joint_tolerance_rad', 'latching_timeout_s', 'start_after_s'])
@pytest.mark.parametrize('value', [0.0, -1.0, float('nan')])
def test_bad_parameters_are_refused_by_name(field: str, value: float) -> None:
    if field == 'start_after_s' and value == 0.0:
        TumbleParams(start_after_s=0.0).validated()  # 0 = wait for tumble/start
        return
    with pytest.raises(GaitError, match=field):
        TumbleParams(**{field: value}).validated()


def test_min_jerk_starts_and_ends_at_rest() -> None:
    assert min_jerk(0.0) == 0.0 and min_jerk(1.0) == 1.0 and min_jerk(0.5) == pytest.approx(0.5)
    h = 1e-6
    assert min_jerk(h) / h < 1e-6 and (1.0 - min_jerk(1.0 - h)) / h < 1e-6


class SaggingPlant(Plant):
    """Servos that fall short of each command by a fixed offset (gravity sag of a P servo)."""

    def __init__(self, machine: TumbleMachine, sag_rad: np.ndarray) -> None:
        super().__init__(machine, follows=False)
        self.sag_rad = sag_rad

    def tick(self) -> None:
        super().tick()
        self.measured_rad = self.commands[-1] - self.sag_rad


def fk_gap(robot_model_joints) -> Callable[[np.ndarray], float]:
    from cobra_gaits.curl_pose import latch_gap
    model, names = robot_model_joints
    return lambda q: latch_gap(model, dict(zip(names, q.tolist())))[0]


@pytest.fixture(scope='module')
def model_and_names():
    model = load_robot_model(default_urdf_path('cobra'))
    return model, [j.name for j in model.gait_joints()]


def with_gap(robot, model_and_names, **params: float) -> TumbleMachine:
    plain = make_machine(robot, **params)
    return TumbleMachine(plain.joint_names, plain.curl_pose_rad, np.full(len(plain.joint_names), 4.82),
                         plain.sidewinding, plain.params, latch_gap_m=fk_gap(model_and_names))


def test_sag_within_the_joint_tolerance_still_leaves_the_loop_open_without_correction(robot, model_and_names) -> None:
    sag = np.where(np.arange(11) % 2 == 0, 0.07, 0.0) * np.sign(robot[1])  # the sim's ~0.07 rad at the top
    machine = with_gap(robot, model_and_names, sag_correction_gain_1_s=0.01, max_sag_correction_rad=0.001)
    plant = SaggingPlant(machine, sag)
    machine.request_start()
    plant.run_to(S.ABORTED)
    assert machine.status_text.startswith('aborted: loop did not close: latch frames 0.')
    assert 'closure_distance_m 0.02 m' in machine.status_text


def test_sag_correction_closes_the_loop_and_holds_the_corrected_pose(robot, model_and_names) -> None:
    sag = np.where(np.arange(11) % 2 == 0, 0.07, 0.0) * np.sign(robot[1])
    machine = with_gap(robot, model_and_names)
    plant = SaggingPlant(machine, sag)
    machine.request_start()
    plant.run_to(S.LATCHING)
    assert fk_gap(model_and_names)(plant.measured_rad) <= machine.params.closure_distance_m
    held = plant.commands[-1]
    assert np.all(np.abs(held - robot[1]) <= machine.params.max_sag_correction_rad + 1e-12)
    assert np.max(np.abs(held - robot[1])) > 0.05  # it did correct
    plant.run_to(S.TUMBLING)
    plant.tick()
    assert np.allclose(plant.commands[-1], held)  # tumbling holds what closed the loop
    machine.request_release()
    plant.run_to(S.UNCURLING)
    plant.tick()
    assert np.max(np.abs(plant.commands[-1] - held)) < 0.01  # the uncurl starts from it (no step)


def test_sag_correction_stays_inside_the_joint_limits(robot, model_and_names) -> None:
    plain = make_machine(robot)
    upper = np.abs(robot[1]) + 0.02
    machine = TumbleMachine(plain.joint_names, plain.curl_pose_rad, np.full(11, 4.82), plain.sidewinding,
                            plain.params, latch_gap_m=fk_gap(model_and_names), position_limits_rad=(-upper, upper))
    plant = SaggingPlant(machine, 0.2 * np.sign(robot[1]))
    machine.request_start()
    plant.run_to(S.ABORTED)
    assert np.all(np.abs(np.array(plant.commands)) <= upper + 1e-12)


def test_tumbling_wave_travels_round_the_pitch_joints_and_fades_in(robot) -> None:
    joints, curl = robot
    machine = make_machine(robot, wave_amplitude_rad=0.3, wave_frequency_hz=1.0)
    signs = pitch_signs(joints)
    assert np.all(machine.wave_offsets_rad(0.0) == 0.0)  # faded in from zero: no step on latching
    for t in (1.0, 1.3, 2.7):
        offsets = machine.wave_offsets_rad(t)
        assert np.all(offsets[signs == 0] == 0.0)  # yaw joints keep the curl
        assert np.max(np.abs(offsets)) <= 0.3 + 1e-12
        assert abs(np.sum(offsets * signs)) < 1e-9  # mode 2: the loop's total bend (one turn) is kept
    bends = machine.wave_offsets_rad(1.0)[signs != 0] * signs[signs != 0]
    later = machine.wave_offsets_rad(1.0 + 1.0 / 3.0)[signs != 0] * signs[signs != 0]  # a third of a period
    assert np.allclose(later, np.roll(bends, 1), atol=1e-9) or np.allclose(later, np.roll(bends, -1), atol=1e-9)


def test_tumbling_with_the_wave_and_release_without_a_step(robot) -> None:
    machine = make_machine(robot, wave_amplitude_rad=0.3, wave_frequency_hz=1.0)
    plant = Plant(machine)
    machine.request_start()
    plant.run_to(S.TUMBLING)
    start = len(plant.commands)
    plant.run_until(lambda: len(plant.commands) > start + 250)
    swing = np.max(np.abs(np.array(plant.commands[start:]) - robot[1]), axis=0)
    assert np.allclose(swing[pitch_signs(robot[0]) != 0], 0.3, atol=0.02)
    machine.request_release()
    plant.run_to(S.READY)
    wave_speed_rad_s = 2 * np.pi * 1.0 * 0.3
    assert max_speed_rad_s(plant.commands[start:]) <= wave_speed_rad_s * 1.01  # release/uncurl: no step


def test_a_wave_faster_than_the_servos_is_refused(robot) -> None:
    with pytest.raises(GaitError, match='tumbling wave too fast for the servos'):
        make_machine(robot, wave_amplitude_rad=0.5, wave_frequency_hz=3.0)  # 9.4 rad/s > 4.82 rad/s


class SlowLatchPlant(Plant):
    """A latch that opens `open_after_ticks` ticks after latch/set false (None: never)."""

    def __init__(self, machine: TumbleMachine, open_after_ticks: int | None) -> None:
        super().__init__(machine)
        self.open_after_ticks = open_after_ticks
        self.open_at: int | None = None

    def tick(self) -> None:
        was_latched = self.latch
        super().tick()
        if was_latched and self.latch is False and self.sent[-2:] == [('latch/set', False), ('torque/set', True)]:
            self.latch = True  # the abort's latch/set false went out; the latch is still closed
            self.open_at = None if self.open_after_ticks is None else len(self.commands) + self.open_after_ticks
        if self.open_at is not None and len(self.commands) >= self.open_at:
            self.latch, self.open_at = False, None


def test_abort_while_latched_holds_until_the_latch_opens_then_straightens(robot) -> None:
    machine = make_machine(robot)
    plant = SlowLatchPlant(machine, open_after_ticks=40)
    machine.request_start()
    plant.run_to(S.TUMBLING)
    held = plant.commands[-1]
    machine.request_abort()
    plant.run_until(lambda: plant.latch is False)
    assert len(plant.commands) > 40 and all(np.allclose(c, held) for c in plant.commands[-40:])  # held
    plant.run_until(lambda: np.allclose(plant.commands[-1], 0.0))
    assert max_speed_rad_s(plant.commands[-200:]) <= machine.params.curl_speed_rad_s * 1.001


def test_abort_with_a_latch_that_never_opens_straightens_after_the_release_timeout(robot) -> None:
    machine = make_machine(robot, releasing_timeout_s=1.0)
    plant = SlowLatchPlant(machine, open_after_ticks=None)
    machine.request_start()
    plant.run_to(S.TUMBLING)
    held = plant.commands[-1]
    machine.request_abort()
    start = len(plant.commands)
    plant.run_until(lambda: not np.allclose(plant.commands[-1], held))
    assert (len(plant.commands) - start) * DT_S == pytest.approx(1.0, abs=6 * DT_S)  # min-jerk starts at rest
    assert 'latch still closed after 1 s (releasing_timeout_s): straightening anyway' in machine.events[-1]
    plant.run_until(lambda: np.allclose(plant.commands[-1], 0.0))
