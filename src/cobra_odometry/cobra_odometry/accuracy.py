"""Odometry accuracy: ATE and RPE of an `odom` track against ground truth, with evo.

Tracks come from a rosbag2 directory (nav_msgs/Odometry or geometry_msgs/PoseStamped on a topic,
read with `rosbags`) or from a TUM file. Poses are associated by nearest stamp, the estimate is
aligned to the reference by SE(3) (Umeyama without scale) or Sim(3) (with scale, for monocular
SLAM), then evo computes the absolute trajectory error (ATE, translation, after alignment) and
the relative pose error (RPE, translation over a fixed distance or number of frames).

`python -m cobra_odometry.accuracy` is the command line around `main()` here.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from cobra_common.bags import BagReadError, connections_named, open_bag, stamp_s
from cobra_common.rotations import wxyz_from_xyzw

from cobra_odometry.trajectory_formats import PoseSample, read_trajectory

ALIGNMENTS = ('se3', 'sim3', 'none')


class AccuracyError(RuntimeError):
    """The inputs cannot be compared (missing topic, no overlap, ...); the message says why."""


@dataclass(frozen=True)
class AccuracyResult:
    matched_poses: int
    alignment: str
    scale: float
    ate_rmse_m: float
    ate_mean_m: float
    ate_max_m: float
    rpe_rmse_m: float
    rpe_delta: float
    rpe_unit: str

    def report(self) -> str:
        return (f'matched poses: {self.matched_poses}\n'
                f'alignment: {self.alignment} (scale {self.scale:.4f})\n'
                f'ATE translation [m]: rmse {self.ate_rmse_m:.4f}  mean {self.ate_mean_m:.4f}  '
                f'max {self.ate_max_m:.4f}\n'
                f'RPE translation [m] per {self.rpe_delta:g} {self.rpe_unit}: rmse {self.rpe_rmse_m:.4f}')


def read_track(source: str | Path, topic: str | None = None,
               start_s: float | None = None, end_s: float | None = None) -> list[PoseSample]:
    """Poses from a TUM file or (with `topic`) a rosbag2 directory, optionally cut to [start, end]."""
    path = Path(source)
    if not path.exists():
        raise AccuracyError(f'{path} does not exist')
    if path.is_dir() or path.suffix in ('.db3', '.mcap'):
        if not topic:
            raise AccuracyError(f'{path} is a bag: name the topic to read (e.g. odom, ground_truth/odom)')
        samples = _read_bag_track(path if path.is_dir() else path.parent, topic)
    else:
        result = read_trajectory(path, 'tum')
        for issue in result.issues:
            print(f'warning: skipped {issue}', file=sys.stderr)
        samples = result.samples
    samples = [s for s in samples if (start_s is None or s.stamp_s >= start_s)
               and (end_s is None or s.stamp_s <= end_s)]
    if len(samples) < 2:
        raise AccuracyError(f'{path}{" topic " + topic if topic else ""}: fewer than 2 poses '
                            'in the selected time range')
    return samples


def _read_bag_track(bag_dir: Path, topic: str) -> list[PoseSample]:
    try:
        samples = _bag_poses(bag_dir, topic)
    except BagReadError as error:
        raise AccuracyError(str(error)) from error
    samples.sort(key=lambda s: s.stamp_s)
    return samples


def _bag_poses(bag_dir: Path, topic: str) -> list[PoseSample]:
    wanted = topic if topic.startswith('/') else '/' + topic
    samples: list[PoseSample] = []
    with open_bag(bag_dir, own_errors=(AccuracyError,)) as reader:
        connections = connections_named(reader, topic)
        if not connections:
            raise AccuracyError(f'{bag_dir} has no topic {wanted}; it has '
                                f'{sorted({c.topic for c in reader.connections})}')
        for connection, _, raw in reader.messages(connections=connections):
            message = reader.deserialize(raw, connection.msgtype)
            if connection.msgtype == 'nav_msgs/msg/Odometry':
                pose = message.pose.pose
            elif connection.msgtype == 'geometry_msgs/msg/PoseStamped':
                pose = message.pose
            else:
                raise AccuracyError(f'{wanted} is {connection.msgtype}: need nav_msgs/Odometry '
                                    'or geometry_msgs/PoseStamped')
            q = np.array([pose.orientation.x, pose.orientation.y, pose.orientation.z, pose.orientation.w])
            samples.append(PoseSample(stamp_s(message.header.stamp),
                                      np.array([pose.position.x, pose.position.y, pose.position.z]),
                                      q / np.linalg.norm(q)))
    return samples


def _to_evo(samples: list[PoseSample]):
    from evo.core.trajectory import PoseTrajectory3D
    positions = np.array([s.position for s in samples])
    quaternions_wxyz = wxyz_from_xyzw(np.array([s.quaternion_xyzw for s in samples]))  # evo stores w first
    return PoseTrajectory3D(positions_xyz=positions, orientations_quat_wxyz=quaternions_wxyz,
                            timestamps=np.array([s.stamp_s for s in samples]))


def compare(estimate: list[PoseSample], reference: list[PoseSample], alignment: str = 'se3',
            max_time_difference_s: float = 0.02, rpe_delta: float = 1.0,
            rpe_unit: str = 'm', plot_path: str | Path | None = None) -> AccuracyResult:
    """ATE/RPE of `estimate` against `reference`; optionally writes a PNG of both tracks."""
    from evo.core import filters, metrics, sync
    from evo.core.units import Unit
    if alignment not in ALIGNMENTS:
        raise AccuracyError(f"alignment '{alignment}' is unknown: use one of {ALIGNMENTS}")
    units = {'m': Unit.meters, 'frames': Unit.frames}
    if rpe_unit not in units:
        raise AccuracyError(f"rpe unit '{rpe_unit}' is unknown: use m or frames")
    try:
        reference_traj, estimate_traj = sync.associate_trajectories(
            _to_evo(reference), _to_evo(estimate), max_diff=max_time_difference_s)
    except sync.SyncException:
        reference_traj = None
    if reference_traj is None or reference_traj.num_poses < 3:
        matched = 0 if reference_traj is None else reference_traj.num_poses
        raise AccuracyError(f'only {matched} poses match in time '
                            f'(max difference {max_time_difference_s} s): do the stamps share a clock?')
    scale = 1.0
    if alignment != 'none':
        _, _, scale = estimate_traj.align(reference_traj, correct_scale=alignment == 'sim3')
    ape = metrics.APE(metrics.PoseRelation.translation_part)
    ape.process_data((reference_traj, estimate_traj))
    rpe = metrics.RPE(metrics.PoseRelation.translation_part, delta=rpe_delta,
                      delta_unit=units[rpe_unit], all_pairs=False)
    try:
        rpe.process_data((reference_traj, estimate_traj))
        rpe_rmse = float(rpe.get_statistic(metrics.StatisticsType.rmse))
    except (metrics.MetricsException, filters.FilterException) as error:
        raise AccuracyError(f'RPE over {rpe_delta:g} {rpe_unit} impossible: {error} '
                            '(choose a smaller --rpe-delta)') from error
    result = AccuracyResult(
        matched_poses=reference_traj.num_poses, alignment=alignment, scale=float(scale),
        ate_rmse_m=float(ape.get_statistic(metrics.StatisticsType.rmse)),
        ate_mean_m=float(ape.get_statistic(metrics.StatisticsType.mean)),
        ate_max_m=float(ape.get_statistic(metrics.StatisticsType.max)),
        rpe_rmse_m=rpe_rmse, rpe_delta=rpe_delta, rpe_unit=rpe_unit)
    if plot_path is not None:
        _plot(reference_traj, estimate_traj, ape.error, result, Path(plot_path))
    return result


def _plot(reference_traj, estimate_traj, ate_errors: np.ndarray, result: AccuracyResult,
          path: Path) -> None:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from cobra_common.track_error_figure import draw_track_error  # the report's comparison draws the same
    figure, (top, error_axes) = plt.subplots(1, 2, figsize=(11, 4.5))
    draw_track_error(top, error_axes, reference_traj.positions_xyz[:, :2], estimate_traj.positions_xyz[:, :2],
                     reference_traj.timestamps - reference_traj.timestamps[0], ate_errors, 'reference',
                     f'estimate ({result.alignment}-aligned)', 'time since the first matched pose [s]')
    figure.suptitle(f'ATE rmse {result.ate_rmse_m:.4f} m, RPE rmse {result.rpe_rmse_m:.4f} m per '
                    f'{result.rpe_delta:g} {result.rpe_unit}', fontsize=10)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('estimate', help='TUM file or rosbag2 directory with the odom track')
    parser.add_argument('reference', help='TUM file or rosbag2 directory with ground truth')
    parser.add_argument('--estimate-topic', default='odom')
    parser.add_argument('--reference-topic', default='ground_truth/odom')
    parser.add_argument('--align', choices=ALIGNMENTS, default='se3')
    parser.add_argument('--max-dt', type=float, default=0.02, help='stamp association tolerance [s]')
    parser.add_argument('--rpe-delta', type=float, default=1.0)
    parser.add_argument('--rpe-unit', choices=('m', 'frames'), default='m')
    parser.add_argument('--start', type=float, help='only poses from this stamp on [s]')
    parser.add_argument('--end', type=float, help='only poses up to this stamp [s]')
    parser.add_argument('--plot', help='write a PNG plot here')
    args = parser.parse_args(argv)
    try:
        estimate = read_track(args.estimate, args.estimate_topic, args.start, args.end)
        reference = read_track(args.reference, args.reference_topic, args.start, args.end)
        result = compare(estimate, reference, args.align, args.max_dt, args.rpe_delta,
                         args.rpe_unit, args.plot)
    except AccuracyError as error:
        print(f'error: {error}', file=sys.stderr)
        return 1
    print(result.report())
    if args.plot:
        print(f'plot: {args.plot}')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
