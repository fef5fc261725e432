"""recorder: the logger's recording rules without rclpy: log times, what is held back, progress."""

from __future__ import annotations

import struct

from cobra_logger.recorder import PROGRESS_STEP_NS, ROSOUT_BACKLOG, Recorder


def stamped(stamp_ns: int) -> bytes:
    """CDR bytes of a message that opens with a header stamp (what the recorder reads)."""
    sec, nanosec = divmod(stamp_ns, 1_000_000_000)
    return b'\x00\x01\x00\x00' + struct.pack('<iI', sec, nanosec) + b'\x00' * 8


def recorder(sim_time: bool, wall_ns: int = 5) -> tuple[Recorder, list[tuple[str, int, bytes]]]:
    written: list[tuple[str, int, bytes]] = []
    rec = Recorder(lambda topic, t, data: written.append((topic, t, data)), sim_time, '/joint_states',
                   wall_time_ns=lambda: wall_ns)
    rec.stamped_topics.update({'/joint_states', '/odom'})
    return rec, written


def test_wall_time_logs_at_the_wall_clock():
    rec, written = recorder(sim_time=False, wall_ns=42)
    rec.message('/joint_states', stamped(7))
    assert [(topic, t) for topic, t, _ in written] == [('/joint_states', 42)]


def test_sim_time_is_the_newest_header_stamp_and_unstamped_messages_wait_for_the_first():
    rec, written = recorder(sim_time=True)
    rec.message('/latch/state', b'\x00\x01\x00\x00\x01')    # no header: sim time still unknown
    assert written == []
    rec.message('/odom', stamped(2_000_000_000))
    rec.message('/joint_states', stamped(1_500_000_000))   # older than the newest: logged at the newest
    rec.message('/latch/state', b'\x00\x01\x00\x00\x00')
    assert [(topic, t) for topic, t, _ in written] == [
        ('/latch/state', 2_000_000_000), ('/odom', 2_000_000_000), ('/joint_states', 2_000_000_000),
        ('/latch/state', 2_000_000_000)]


def test_a_header_stamp_on_an_unstamped_topic_does_not_move_sim_time():
    rec, written = recorder(sim_time=True)
    rec.message('/odom', stamped(1_000))
    rec.message('/diagnostics_like', stamped(9_000))  # not known to open with a header
    assert [t for _, t, _ in written] == [1_000, 1_000]


def test_rosout_alone_makes_no_bag_and_is_written_once_another_topic_starts():
    rec, written = recorder(sim_time=False)
    for _ in range(ROSOUT_BACKLOG + 5):
        rec.message('/rosout', b'log')
    assert written == [] and not rec.bag_started and len(rec.rosout_backlog) == ROSOUT_BACKLOG
    rec.message('/joint_states', stamped(1))
    assert [topic for topic, _, _ in written] == ['/rosout'] * ROSOUT_BACKLOG + ['/joint_states']


def test_finish_writes_what_waited_for_a_stamp_at_zero():
    rec, written = recorder(sim_time=True)
    rec.message('/latch/state', b'\x00\x01\x00\x00\x01')
    rec.finish()
    assert [(topic, t) for topic, t, _ in written] == [('/latch/state', 0)]


def test_progress_goes_out_every_step_or_once_caught_up():
    rec, _ = recorder(sim_time=True)
    assert rec.progress_due(caught_up=True) is None  # nothing written yet
    rec.message('/joint_states', stamped(1_000_000))
    assert rec.progress_due(caught_up=False) == 1_000_000  # the first value goes out at once
    rec.message('/joint_states', stamped(1_000_000 + PROGRESS_STEP_NS - 1))
    assert rec.progress_due(caught_up=False) is None       # less than a step, still busy
    assert rec.progress_due(caught_up=True) == 1_000_000 + PROGRESS_STEP_NS - 1
    assert rec.progress_due(caught_up=True) is None        # nothing new
    rec.message('/joint_states', stamped(1_000_000 + 3 * PROGRESS_STEP_NS))
    assert rec.progress_due(caught_up=False) == 1_000_000 + 3 * PROGRESS_STEP_NS
