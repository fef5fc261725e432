"""Camera reconnect: back-off schedule and state transitions (what the node's watchdog does)."""

import math

from cobra_odometry.camera_reconnect import CameraAction, CameraReconnect, CameraState, ReconnectPolicy

POLICY = ReconnectPolicy(retry_initial_s=0.5, retry_max_s=1.5, frame_timeout_s=2.0)


def test_first_attempt_due_at_once() -> None:
    reconnect = CameraReconnect(POLICY)
    assert reconnect.state is CameraState.WAITING and reconnect.poll(0.0) is CameraAction.REOPEN


def test_backoff_doubles_up_to_max_and_waits_in_between() -> None:
    reconnect = CameraReconnect(POLICY)
    now_s, delays = 100.0, []
    for _ in range(5):
        delay_s = reconnect.failed(now_s)
        delays.append(delay_s)
        assert reconnect.poll(now_s + delay_s - 1e-3) is CameraAction.NONE  # not before its time
        now_s += delay_s
        assert reconnect.poll(now_s) is CameraAction.REOPEN
    assert delays == [0.5, 1.0, 1.5, 1.5, 1.5]


def test_streaming_times_out_then_backoff_starts_over() -> None:
    reconnect = CameraReconnect(POLICY)
    reconnect.failed(0.0)
    reconnect.failed(0.5)  # back-off now at 1.5
    reconnect.opened(10.0)
    assert reconnect.state is CameraState.STREAMING and reconnect.poll(10.0) is CameraAction.NONE
    reconnect.frame_received(11.0)
    assert reconnect.poll(13.0) is CameraAction.NONE  # 2.0 s of silence is still within the timeout
    assert reconnect.poll(13.01) is CameraAction.CLOSE_LOST
    assert math.isclose(reconnect.silence_s(13.01), 2.01)
    assert reconnect.failed(13.01) == 0.5  # opened reset the back-off
    assert reconnect.state is CameraState.WAITING and reconnect.poll(13.2) is CameraAction.NONE
    assert reconnect.poll(13.51) is CameraAction.REOPEN


def test_finished_playback_reported_once_and_never_reconnected() -> None:
    reconnect = CameraReconnect(POLICY)
    assert not reconnect.playback_finished()  # not streaming: nothing finished
    reconnect.opened(0.0)
    assert reconnect.playback_finished() and reconnect.state is CameraState.FINISHED
    assert not reconnect.playback_finished()
    assert reconnect.poll(1e6) is CameraAction.NONE  # silent forever, but nothing to reconnect


def test_policy_change_applies_to_the_next_delay() -> None:
    reconnect = CameraReconnect(POLICY)
    reconnect.failed(0.0)  # next 1.0
    reconnect.policy = ReconnectPolicy(retry_initial_s=0.5, retry_max_s=0.8, frame_timeout_s=5.0)
    assert reconnect.failed(1.0) == 1.0 and reconnect.failed(2.0) == 0.8
    reconnect.opened(3.0)
    assert reconnect.poll(7.9) is CameraAction.NONE and reconnect.poll(8.1) is CameraAction.CLOSE_LOST
