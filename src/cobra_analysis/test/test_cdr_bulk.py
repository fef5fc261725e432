"""Bulk CDR decoding gives exactly what rosbags' per-message decode gives, and leaves to it every
message whose layout differs (other names, frame ids, lengths)."""

from __future__ import annotations

import numpy as np

from cobra_analysis.bag_reader import (_contact_wrenches_reference, _joint_reference, _odometry_reference,
                                       _wrench_reference)
from cobra_analysis.synthetic import TYPESTORE
from cobra_common import cdr

T = TYPESTORE.types
JOINT_STATE, ODOMETRY, WRENCH = 'sensor_msgs/msg/JointState', 'nav_msgs/msg/Odometry', 'geometry_msgs/msg/WrenchStamped'


def header(seq: int, frame: str) -> object:
    return T['std_msgs/msg/Header'](T['builtin_interfaces/msg/Time'](seq, 1000 * seq), frame)


def joint_state(seq: int, names: list[str], with_velocity: bool = True) -> bytes:
    count = len(names)
    message = T[JOINT_STATE](header(seq, ''), names, np.arange(count) + 0.1 * seq,
                             np.full(count, -0.5 * seq) if with_velocity else np.zeros(0), np.zeros(0))
    return bytes(TYPESTORE.serialize_cdr(message, JOINT_STATE))


def decode(raws: list[bytes], msgtype: str, layout_of, reference):
    return cdr.decode_bulk(raws, layout_of, lambda raw: reference(TYPESTORE.deserialize_cdr(raw, msgtype)))


def test_joint_states_of_mixed_layouts():
    names = [f'joint_{i}' for i in range(1, 12)]
    raws = [joint_state(seq, names) for seq in range(50)]
    raws[10] = joint_state(10, names[:-1] + ['joint_99'])  # same length, another name: left over
    raws[20] = joint_state(20, names, with_velocity=False)  # another length: its own group
    raws[30] = joint_state(30, ['latch_joint'] + names[1:])  # another length and names
    results, leftover = decode(raws, JOINT_STATE, cdr.joint_state_layout, _joint_reference)
    assert len(raws[10]) == len(raws[0]) and 10 in leftover
    assert 0 not in leftover and 20 not in leftover  # the majority, and a group of its own
    decoded = {}
    for result in results:
        for row, index in enumerate(result.rows):
            decoded[int(index)] = (result.stamps_s[row], {k: v[row] for k, v in result.values.items()})
    assert sorted(list(decoded) + leftover) == list(range(50))
    for index, (stamp, values) in decoded.items():
        message = TYPESTORE.deserialize_cdr(raws[index], JOINT_STATE)
        assert stamp == message.header.stamp.sec + message.header.stamp.nanosec * 1e-9
        for name, expected in _joint_reference(message).items():
            np.testing.assert_array_equal(values[name], expected)


def test_odometry_and_wrench():
    def odometry(seq: int) -> bytes:
        pose = T['geometry_msgs/msg/Pose'](T['geometry_msgs/msg/Point'](seq, 2.0 * seq, -seq),
                                           T['geometry_msgs/msg/Quaternion'](0.0, 0.0, 0.6, 0.8))
        twist = T['geometry_msgs/msg/Twist'](T['geometry_msgs/msg/Vector3'](1.0, seq, 3.0),
                                             T['geometry_msgs/msg/Vector3'](4.0, 5.0, -seq))
        message = T[ODOMETRY](header(seq, 'odom'), 'base_link',
                              T['geometry_msgs/msg/PoseWithCovariance'](pose, np.full(36, float(seq))),
                              T['geometry_msgs/msg/TwistWithCovariance'](twist, np.arange(36.0) * seq))
        return bytes(TYPESTORE.serialize_cdr(message, ODOMETRY))

    raws = [odometry(seq) for seq in range(20)]
    [result], leftover = decode(raws, ODOMETRY, cdr.odometry_layout, _odometry_reference)
    assert leftover == [] and result.rows.tolist() == list(range(20))
    for row, raw in enumerate(raws):
        expected = _odometry_reference(TYPESTORE.deserialize_cdr(raw, ODOMETRY))
        for name in ('pose', 'twist', 'pose_covariance', 'twist_covariance'):
            np.testing.assert_array_equal(result.values[name][row], expected[name])

    def wrench(seq: int, frame: str) -> bytes:
        vector = T['geometry_msgs/msg/Vector3']
        message = T[WRENCH](header(seq, frame), T['geometry_msgs/msg/Wrench'](vector(seq, 0.5, 9.8), vector(0, 0, seq)))
        return bytes(TYPESTORE.serialize_cdr(message, WRENCH))

    raws = [wrench(seq, 'link_1') for seq in range(5)] + [wrench(5, 'link_2')]  # same length, other frame
    [result], leftover = decode(raws, WRENCH, cdr.wrench_layout, _wrench_reference)
    assert leftover == [5]
    np.testing.assert_array_equal(result.values['wrench'][:, :3], [[seq, 0.5, 9.8] for seq in range(5)])


def test_contact_wrenches_of_every_link():
    kind = 'cobra_interfaces/msg/ContactWrenches'
    vector = T['geometry_msgs/msg/Vector3']

    def contacts(seq: int, links: list[str]) -> bytes:
        wrenches = [T['geometry_msgs/msg/Wrench'](vector(seq, index, 9.8), vector(0.0, -index, seq))
                    for index in range(len(links))]
        return bytes(TYPESTORE.serialize_cdr(T[kind](header(seq, ''), links, wrenches), kind))

    links = ['base_link'] + [f'link_{i}' for i in range(1, 12)]
    raws = [contacts(seq, links) for seq in range(8)]
    raws[3] = contacts(3, links[:-1] + ['link_99'])  # same length, another name: left over
    [result], leftover = decode(raws, kind, cdr.contact_wrenches_layout, _contact_wrenches_reference)
    assert leftover == [3] and result.values['wrenches'].shape == (7, 6 * len(links))
    for row, index in enumerate(result.rows):
        expected = _contact_wrenches_reference(TYPESTORE.deserialize_cdr(raws[index], kind))['wrenches']
        np.testing.assert_array_equal(result.values['wrenches'][row], expected)
    row_of_5 = result.rows.tolist().index(5)
    assert result.values['wrenches'][row_of_5].reshape(-1, 6)[2].tolist() == [5.0, 2.0, 9.8, 0.0, -2.0, 5.0]


def test_big_endian_and_garbage_are_left_over():
    raw = bytearray(joint_state(1, ['a', 'b']))
    raw[1] = 0  # CDR_BE
    results, leftover = decode([bytes(raw), b'\x00\x01\x00\x00\x01'], JOINT_STATE, cdr.joint_state_layout,
                               _joint_reference)
    assert results == [] and leftover == [0, 1]
