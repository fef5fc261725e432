"""Calibration targets read from a recorded bag, and sim-made bags with known soil to test them.

`bag_target(path)`: the head's stride per cycle over the bag's steady gait cycles, its median height
where the bag has ground truth, a measured sinkage from custom_data. `record_trial_bag(params, path)`:
a sweep trial written as a rosbag2 MCAP bag. Design notes: the package README, "cobra_sweeps.bag_target".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cobra_gaits.sidewinding import SidewindingGenerator, SidewindingParams
from cobra_sweeps.trial import GAIT_KEYS, TRIAL_DEFAULTS, build_sim, check_param_keys, play_gait

SINKAGE_CUSTOM_KEY = 'cobra.sinkage_m'
RECORD_RATE_HZ = 50.0


class BagTargetError(ValueError):
    """A bag that cannot give a calibration target; the text names the bag and the fix."""


@dataclass(frozen=True)
class BagTarget:
    target: dict[str, float]
    frequency_hz: float
    steady_cycles: int
    head_topic: str
    notes: list[str]


def bag_target(path: str | Path) -> BagTarget:
    """Stride per cycle (+ head height or sinkage where the bag has them) of a bag's steady gait."""
    from cobra_analysis.analysis import analyse_bag
    from cobra_analysis.bag_reader import BagError, matches, read_bag
    try:
        bag = read_bag(path)
    except BagError as error:
        raise BagTargetError(str(error)) from error
    analysis = analyse_bag(bag, Path(path).name)
    if analysis.locomotion is None:
        why = analysis.absent.get('locomotion') or analysis.absent.get('gait') or 'no locomotion section'
        raise BagTargetError(f'{path}: no stride per cycle in this bag ({why}); record whole gait cycles at '
                             f'full amplitude with joint_commands and odom or ground_truth/odom')
    notes = []
    cycles = analysis.cycles
    steady = np.asarray(cycles.steady_indices)
    vectors = np.asarray(analysis.locomotion.stride_vectors_m)
    if steady[0] == 0 and len(steady) >= 2:  # the gait's first cycle holds its amplitude ramp
        steady, vectors = steady[1:], vectors[1:]
        notes.append('first gait cycle (amplitude ramp) left out')
    target = {'head_stride_m_per_cycle': float(np.linalg.norm(vectors.mean(axis=0)))}
    begin_s, end_s = float(cycles.bounds_s[steady[0]]), float(cycles.bounds_s[steady[-1] + 1])
    head = bag.head
    if matches(head.topic, 'ground_truth/odom'):
        inside = (head.times_s >= begin_s) & (head.times_s < end_s)
        target['head_height_m'] = float(np.median(head.position_m[inside, 2]))
    else:
        notes.append('no ground_truth/odom: no head height target (odometry z is an estimate, not used)')
    if SINKAGE_CUSTOM_KEY in bag.custom_data:
        try:
            target['sinkage_m'] = float(bag.custom_data[SINKAGE_CUSTOM_KEY])
        except ValueError as error:
            raise BagTargetError(f"{path}: custom_data {SINKAGE_CUSTOM_KEY} = '{bag.custom_data[SINKAGE_CUSTOM_KEY]}' "
                                 f'is not a number: give the measured sinkage in metres') from error
    return BagTarget(target, float(analysis.frequency_hz), int(len(steady)), head.topic, notes)


def record_trial_bag(params: Mapping[str, Any], path: str | Path,
                     custom_data: Mapping[str, str] | None = None) -> dict[str, float]:
    """Run a sidewinding trial and write what it commanded and where its head went as a bag
    (plus `custom_data` in its metadata); the trial's metrics."""
    from rosbags.rosbag2 import StoragePlugin, Writer
    from rosbags.typesys import Stores, get_typestore
    check_param_keys(list(params))
    full = {**TRIAL_DEFAULTS, **params}
    gait = SidewindingParams(**{k: (str(full[k]) if k == 'direction' else float(full[k]))
                                for k in GAIT_KEYS}).validated()
    sim = build_sim(full)
    joints = sim.robot.gait_joints()
    generator = SidewindingGenerator([j.axis_kind for j in joints], gait)
    generator.ramp.start()
    records: list[tuple[float, np.ndarray, np.ndarray, np.ndarray]] = []
    next_record_s = [0.0]

    def next_targets(dt_s: float) -> np.ndarray:
        generator.advance(dt_s)
        return generator.positions()

    def observe(sim_now: Any, targets: np.ndarray) -> None:
        t_s = sim_now.time_s
        if t_s + 1e-9 >= next_record_s[0]:
            position, quaternion_xyzw = sim_now.head_pose()
            records.append((t_s, targets.copy(), position, quaternion_xyzw))
            next_record_s[0] = t_s + 1.0 / RECORD_RATE_HZ

    metrics = play_gait(sim, next_targets, float(full['duration_s']), gait.frequency_hz, gait.ramp_duration_s, observe)
    store = get_typestore(Stores.ROS2_JAZZY)
    types = store.types
    names = [j.name for j in joints]

    def stamp(t_s: float) -> Any:
        sec = math.floor(t_s)
        return types['builtin_interfaces/msg/Time'](sec, min(999_999_999, round((t_s - sec) * 1e9)))

    with Writer(Path(path), version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        commands = writer.add_connection('/joint_commands', 'sensor_msgs/msg/JointState', typestore=store)
        truth = writer.add_connection('/ground_truth/odom', 'nav_msgs/msg/Odometry', typestore=store)
        writer.set_custom_data('cobra.gait.frequency_hz', str(gait.frequency_hz))
        for key, value in full.items():
            if key.startswith('terrain'):
                writer.set_custom_data(f'cobra.{key}', str(value))
        for key, value in (custom_data or {}).items():
            writer.set_custom_data(key, str(value))
        for t_s, targets, position, (x, y, z, w) in records:
            stamp_ns = round(t_s * 1e9)
            header = types['std_msgs/msg/Header'](stamp(t_s), '')
            message = types['sensor_msgs/msg/JointState'](header, names, targets.astype(float), np.zeros(0),
                                                          np.zeros(0))
            writer.write(commands, stamp_ns, store.serialize_cdr(message, 'sensor_msgs/msg/JointState'))
            pose = types['geometry_msgs/msg/Pose'](types['geometry_msgs/msg/Point'](*map(float, position)),
                                                   types['geometry_msgs/msg/Quaternion'](float(x), float(y), float(z),
                                                                                         float(w)))
            zero = types['geometry_msgs/msg/Vector3'](0.0, 0.0, 0.0)
            odometry = types['nav_msgs/msg/Odometry'](
                types['std_msgs/msg/Header'](stamp(t_s), 'odom'), 'base_link',
                types['geometry_msgs/msg/PoseWithCovariance'](pose, np.zeros(36)),
                types['geometry_msgs/msg/TwistWithCovariance'](types['geometry_msgs/msg/Twist'](zero, zero),
                                                               np.zeros(36)))
            writer.write(truth, stamp_ns, store.serialize_cdr(odometry, 'nav_msgs/msg/Odometry'))
    return metrics


def spec_with_bag_target(spec: Any, target: BagTarget) -> Any:
    """The calibration spec aimed at the bag's numbers; its gait frequency must be the bag's."""
    from dataclasses import replace

    from cobra_sweeps.spec import SweepSpecError
    frequency_hz = float(spec.fixed.get('frequency_hz', TRIAL_DEFAULTS['frequency_hz']))
    if 'frequency_hz' in spec.space or abs(frequency_hz - target.frequency_hz) > 0.01 * target.frequency_hz:
        raise SweepSpecError(f'the bag was recorded at {target.frequency_hz:g} Hz but the spec plays '
                             f'{"a searched frequency" if "frequency_hz" in spec.space else f"{frequency_hz:g} Hz"}: '
                             f'set fixed.frequency_hz: {target.frequency_hz:g} (and the bag\'s amplitudes) in the spec')
    scales = {k: v for k, v in spec.target_scale.items() if k in target.target}
    return replace(spec, target=dict(target.target), target_scale=scales)
