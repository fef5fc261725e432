"""contact/forces (cobra_interfaces/ContactWrenches) through a bag: recorded by the logger with its
definition, read back per link by the analysis reader."""

from __future__ import annotations

import signal
import time

from rclpy.duration import Duration
from rclpy.qos import QoSProfile, ReliabilityPolicy

SUBSCRIBE_TIMEOUT_S = 30.0
LINKS = ['cobra/base_link'] + [f'cobra/link_{i}' for i in range(1, 12)]


def test_the_logger_records_contact_wrenches_and_the_analysis_reads_every_link(tmp_path, start_logger, test_node):
    from cobra_analysis.bag_reader import read_bag
    from cobra_interfaces.msg import ContactWrenches
    from geometry_msgs.msg import Wrench
    bag_dir = tmp_path / 'bag'
    logger = start_logger('-p', f'bag_path:={bag_dir}')  # the default topics hold contact/forces
    publisher = test_node.create_publisher(ContactWrenches, 'contact/forces',
                                           QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE))
    deadline = time.monotonic() + SUBSCRIBE_TIMEOUT_S
    while publisher.get_subscription_count() == 0:
        assert time.monotonic() < deadline, f'the logger never subscribed to contact/forces:\n{logger.output}'
        time.sleep(0.05)
    for tick in range(200):  # 2 s of a 100 Hz sim
        message = ContactWrenches(link_names=LINKS)
        message.header.stamp.sec, message.header.stamp.nanosec = divmod(tick * 10_000_000, 1_000_000_000)
        for index in range(len(LINKS)):
            wrench = Wrench()
            wrench.force.x, wrench.force.z = float(tick), float(index)
            message.wrenches.append(wrench)
        publisher.publish(message)
    # stop only once the logger's reader acknowledged every sample (as the sim flushes before it
    # exits): its drain takes what is queued in it, not what a loaded machine has still in flight
    assert publisher.wait_for_all_acked(Duration(seconds=SUBSCRIBE_TIMEOUT_S))

    assert logger.stop(signal.SIGINT) == 0, logger.output
    assert '/contact/forces: 200 messages' in logger.output

    contact = read_bag(bag_dir).contact_forces
    assert list(contact) == [link.removeprefix('cobra/') for link in LINKS]
    for index, series in enumerate(contact.values()):
        assert (series.times_s * 1e9).round().tolist() == [tick * 10_000_000 for tick in range(200)]
        assert series.force_n[:, 0].tolist() == [float(tick) for tick in range(200)]
        assert set(series.force_n[:, 2]) == {float(index)}
