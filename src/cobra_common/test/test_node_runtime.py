"""node_runtime: the shared loop takes raw, wakes on its inputs, stops on a signal and drains.

Judged by what was taken and by the order of events, never by wall-clock durations. The signal
tests run a tiny node in a child process (signal handlers are process-wide).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock

from cobra_common.cdr import leading_stamp_ns
from cobra_common.config_check import Setting, by_name
from cobra_common.node_runtime import (NO_WAIT, NodeLoop, Wait, declare_table, take_all, take_over_sim_time,
                                       validate_update)
from cobra_common.ros_testing import spin_until

QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)


def _clock(ns: int) -> Clock:
    message = Clock()
    message.clock.sec, message.clock.nanosec = divmod(ns, 1_000_000_000)
    return message


def _matched(ros_node: Node, publisher, subscription) -> bool:
    return spin_until(ros_node, lambda: publisher.get_subscription_count() > 0
                      and subscription.get_publisher_count() > 0, timeout_s=30)


def test_take_all_hands_over_every_queued_message_raw(ros_node):
    stamps: list[int] = []

    def on_message(data: bytes) -> None:  # the executor (spin_until) and take_all both deliver here
        stamps.append(leading_stamp_ns(data))

    subscription = ros_node.create_subscription(Clock, 'probe_clock', on_message, QOS, raw=True)
    publisher = ros_node.create_publisher(Clock, 'probe_clock', QOS)
    assert _matched(ros_node, publisher, subscription)
    for ns in (1, 2, 3):
        publisher.publish(_clock(ns * 1_000_000))
    deadline = time.monotonic() + 30.0  # a safety bound for a lost message, not a measurement
    taken = 0
    while len(stamps) < 3 and time.monotonic() < deadline:  # no executor: only take_all delivers
        taken += take_all(subscription, on_message, raw=True)
        time.sleep(0.001)
    assert stamps == [1_000_000, 2_000_000, 3_000_000]
    assert taken == 3
    assert take_all(subscription, on_message, raw=True) == 0


def test_run_steps_until_done_and_a_wait_on_inputs_ends_with_a_message(ros_node):
    """A step that asks to wait on its wake input (a long timeout) is stepped again once a
    message arrived: the loop takes what the input brought, without the executor."""
    taken: list[int] = []
    subscription = ros_node.create_subscription(Clock, 'probe_wake', lambda _: None, QOS, raw=True)
    publisher = ros_node.create_publisher(Clock, 'probe_wake', QOS)
    assert _matched(ros_node, publisher, subscription)
    steps = 0

    def step() -> Wait:
        nonlocal steps
        steps += 1
        take_all(subscription, lambda data: taken.append(leading_stamp_ns(data)), raw=True)
        if steps == 1:
            return NO_WAIT  # the first step serves the (due) executor round
        if steps == 2:
            publisher.publish(_clock(7))
        return Wait(60.0, in_executor=False)  # only the message ends it (the next round is an hour away)

    with NodeLoop(ros_node, executor_period_s=3600.0, wake_inputs=[subscription]) as loop:
        assert loop.run(step, until=lambda: bool(taken)) is True
    assert taken == [7]
    assert steps == 3


def test_executor_rounds_serve_callbacks_while_a_step_waits_in_the_executor(ros_node):
    received: list[Clock] = []
    ros_node.create_subscription(Clock, 'probe_exec', received.append, QOS)
    publisher = ros_node.create_publisher(Clock, 'probe_exec', QOS)
    spin_until(ros_node, lambda: publisher.get_subscription_count() > 0, timeout_s=30)
    publisher.publish(_clock(5))
    with NodeLoop(ros_node, executor_period_s=3600.0) as loop:
        assert loop.run(lambda: Wait(0.05), until=lambda: bool(received)) is True
    assert received[0].clock.nanosec == 5


def test_take_over_sim_time_turns_rclpy_sim_time_off_and_says_it_was_asked(ros_node):
    node = Node('sim_time_probe', context=ros_node.context,
                parameter_overrides=[Parameter('use_sim_time', value=True)])
    try:
        assert take_over_sim_time(node) is True
        assert node.get_parameter('use_sim_time').value is False
        assert take_over_sim_time(node) is False
    finally:
        node.destroy_node()


STOPPED_LOOP = textwrap.dedent('''
    import os, signal, sys
    import rclpy
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from rosgraph_msgs.msg import Clock
    from cobra_common.node_runtime import NodeLoop, Wait, take_all
    from cobra_common.ros_entry import init_with_stop_signals

    init_with_stop_signals(['loop'])
    node = rclpy.create_node('loop_probe')
    qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
    drained = []
    sub = node.create_subscription(Clock, 'probe_drain', drained.append, qos, raw=True)  # executor rounds
    pub = node.create_publisher(Clock, 'probe_drain', qos)
    while pub.get_subscription_count() == 0 or sub.get_publisher_count() == 0:
        rclpy.spin_once(node, timeout_sec=0.01)
    steps = 0

    def step():
        global steps
        steps += 1
        if steps == 3:
            for _ in range(5):
                pub.publish(Clock())   # queued, not yet taken when the signal comes
            os.kill(os.getpid(), signal.SIG''' + '{signame}' + ''')
            print('step completed after the signal', flush=True)
        return Wait(0.5, in_executor=False)

    with NodeLoop(node, executor_period_s=0.01, wake_inputs=[sub]) as loop:
        ended_by_until = loop.run(step, until=lambda: False)
        loop.drain(lambda: take_all(sub, drained.append, raw=True))
    print(f'stopped after {{steps}} steps, until={{ended_by_until}}, drained {{len(drained)}}', flush=True)
    node.destroy_node()
    rclpy.try_shutdown()
''')


def _run_stopped_loop(ros_env: dict[str, str], tmp_path: Path, signame: str) -> subprocess.CompletedProcess:
    script = tmp_path / 'stopped_loop.py'
    script.write_text(STOPPED_LOOP.replace('{signame}', signame).replace('{{', '{').replace('}}', '}'))
    return subprocess.run([sys.executable, str(script)], env=ros_env, capture_output=True, text=True, timeout=60)


def test_a_signal_ends_the_loop_after_its_step_and_the_drain_takes_what_was_queued(ros_env, tmp_path):
    for signame in ('INT', 'TERM'):
        result = _run_stopped_loop(ros_env, tmp_path, signame)
        assert result.returncode == 0, result.stdout + result.stderr
        assert result.stdout.splitlines() == ['step completed after the signal',
                                              'stopped after 3 steps, until=False, drained 5'], result.stderr
        assert 'Traceback' not in result.stderr


def test_a_table_declares_its_rows_and_refuses_a_run_time_value_with_the_tables_text(ros_node):
    table = (Setting('rate_hz', 100.0, 'rate [Hz]', 1.0, 1000.0), Setting('mode', 'auto', 'mode', choices=('auto', 'on')),
             Setting('seed', 0, 'seed'))
    node = Node('table_probe', context=ros_node.context)
    try:
        values = declare_table(node, table, runtime={'mode'})
        assert values == {'rate_hz': 100.0, 'mode': 'auto', 'seed': 0}
        assert node.describe_parameter('rate_hz').read_only
        assert node.describe_parameter('rate_hz').floating_point_range[0].to_value == 1000.0
        node.add_on_set_parameters_callback(lambda parameters: validate_update(by_name(table), parameters))
        refused = node.set_parameters([Parameter('mode', value='sometimes')])[0]
        assert not refused.successful
        assert refused.reason.startswith("parameter 'mode' = 'sometimes' is invalid: must be one of ['auto', 'on']")
        assert node.set_parameters([Parameter('mode', value='on')])[0].successful
    finally:
        node.destroy_node()


YIELDING = textwrap.dedent('''
    import os, threading
    from cobra_common.node_runtime import yield_on_wakeup
    policies: list[int] = []
    release = threading.Event()
    earlier = threading.Thread(target=lambda: (release.wait(), policies.append(os.sched_getscheduler(0))))
    earlier.start()  # a thread that was there before (as those some imports start)
    before = os.sched_getscheduler(0)
    done = yield_on_wakeup()
    release.set()
    earlier.join()
    later = threading.Thread(target=lambda: policies.append(os.sched_getscheduler(0)))
    later.start()
    later.join()
    print(before == os.SCHED_OTHER, done, os.sched_getscheduler(0) == os.SCHED_BATCH,
          policies == [os.SCHED_BATCH, os.SCHED_BATCH])
''')


def test_yield_on_wakeup_makes_every_thread_of_the_process_and_those_it_starts_later_batch_tasks(ros_env, tmp_path):
    script = tmp_path / 'yielding.py'
    script.write_text(YIELDING)
    result = subprocess.run([sys.executable, str(script)], env=ros_env, capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ['True'] * 4, result.stdout + result.stderr
