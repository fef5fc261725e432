"""eps from a bag (the geometric-mechanics paper §IV-C): `python -m cobra_gaits.predictor.calibrate_bag BAG`.

The commanded joint rows (joint_commands) give the shapes by forward kinematics of the URDF; the
shapes are projected on their support plane with contact weights (contact.py: lifted modules
carry ~0 weight, so COBRA's sidewinding is predicted); the recorded head track is the head
module's centre of mass placed by the ground_truth/odom (else odom) pose. calibrate_epsilon then
finds the eps whose predicted head track fits the recorded one best after a rigid alignment (the
predictor's frame is not the odom frame), and the RMS error of that fit. Prints one line; a bag
that cannot give a track is one error line and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from cobra_common.rotations import matrix_from_quaternion
from cobra_description.robot_model import RobotModel, RobotModelError, load_robot_model

from cobra_gaits.predictor.bag_track import BagTrack, BagTrackError, read_bag_track
from cobra_gaits.predictor.calibrate import calibrate_epsilon
from cobra_gaits.predictor.contact import DEFAULT_CONTACT_BAND_M, contact_weights, planar_shapes_m, support_frames
from cobra_gaits.predictor.curve import PredictorError
from cobra_gaits.predictor.gait_path import BodyModel, batched_link_points_m

EXIT_BAD_INPUT = 2


@dataclass(frozen=True)
class BagFit:
    epsilon: float
    rms_error_m: float
    samples: int
    duration_s: float
    odom_topic: str


def fit_track(robot: RobotModel, track: BagTrack, bounds: tuple[float, float] = (1e-3, 1.0),
              band_m: float = DEFAULT_CONTACT_BAND_M) -> BagFit:
    """eps and RMS head-track error of one bag's track (PredictorError/BagTrackError on bad input)."""
    body = BodyModel.from_robot(robot)
    missing = [name for name in body.joint_names if name not in track.joint_names]
    if missing:
        raise BagTrackError(f"joint_commands lack the URDF's gait joints {missing} (they name "
                            f'{list(track.joint_names)}): give the URDF the bag was recorded with (--urdf)')
    rows = track.joint_rows_rad[:, [track.joint_names.index(name) for name in body.joint_names]]
    points = batched_link_points_m(robot, body.joint_names, rows, body.links)
    frames = support_frames(points)
    shapes = planar_shapes_m(points, frames)
    weights = contact_weights(points, body.masses_kg, band_m, frames)
    head_world = track.position_m + np.einsum('tij,tj->ti', matrix_from_quaternion(track.quaternion_xyzw),
                                              points[:, 0])
    fit = calibrate_epsilon(shapes, head_world[:, :2], weights, track='head', align='rigid', bounds=bounds)
    return BagFit(fit.epsilon, fit.rms_error_m, len(track.times_s), float(track.times_s[-1] - track.times_s[0]),
                  track.odom_topic)


def calibrate_bag(path: str | Path, robot: RobotModel, max_rate_hz: float = 20.0,
                  bounds: tuple[float, float] = (1e-3, 1.0), band_m: float = DEFAULT_CONTACT_BAND_M) -> BagFit:
    return fit_track(robot, read_bag_track(path, max_rate_hz), bounds, band_m)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog='python -m cobra_gaits.predictor.calibrate_bag', description=(
        'Fit the predictor anisotropy eps to a bag: joint_commands shapes against the '
        'ground_truth/odom (else odom) head track; prints eps and the RMS fit error.'))
    parser.add_argument('bag', type=Path, help='rosbag2 directory or .mcap/.db3 file')
    parser.add_argument('--urdf', type=Path, default=None, help='robot URDF (default: installed COBRA)')
    parser.add_argument('--max-rate-hz', type=float, default=20.0, help='shapes per second used at most')
    parser.add_argument('--bounds', type=float, nargs=2, default=(1e-3, 1.0), metavar=('LOW', 'HIGH'),
                        help='eps search interval, 0 < LOW < HIGH')
    parser.add_argument('--band-m', type=float, default=DEFAULT_CONTACT_BAND_M,
                        help='a module within this height of the support plane touches the ground [m]')
    args = parser.parse_args(argv)
    try:
        robot = load_robot_model(str(args.urdf) if args.urdf else None)
        fit = calibrate_bag(args.bag, robot, args.max_rate_hz, tuple(args.bounds), args.band_m)
    except (BagTrackError, PredictorError, RobotModelError) as error:
        print(f'calibrate_bag: error: {error}', file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f'epsilon {fit.epsilon:.4f}  rms_error_m {fit.rms_error_m:.3g}  '
          f'({fit.samples} shapes over {fit.duration_s:.1f} s, track {fit.odom_topic})')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
