"""Command line: write a sidewinding preset as a time-indexed trajectory CSV for replay.

The file holds the steady wave from t = 0, without the start ramp: the replay ramps it in itself,
so replaying the file commands exactly what the preset's generator does. A duration of a whole
number of gait cycles makes the file loopable (csv_loop:=true).
"""

from __future__ import annotations

import argparse
import math
import sys

from cobra_description.robot_model import RobotModelError, load_robot_model
from cobra_gaits.presets import load_gait_parameters, preset_params
from cobra_gaits.speed_limit import check_sidewinding_speed
from cobra_gaits.sidewinding import GaitError, sample_sidewinding
from cobra_gaits.trajectory_csv import write_trajectory_csv


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--params-file', required=True, action='append',
                        help='gait node parameter file (config/gait.yaml); repeat to add a params_file')
    parser.add_argument('--gait', default='gait1', help='preset name')
    parser.add_argument('--direction', choices=['left', 'right'], default=None)
    parser.add_argument('--duration', type=float, default=20.0, help='seconds of trajectory')
    parser.add_argument('--rate', type=float, default=100.0, help='samples per second')
    parser.add_argument('--urdf', default=None, help='robot URDF (default: installed cobra_description)')
    parser.add_argument('--output', required=True, help='CSV file to write')
    options = parser.parse_args(argv)
    try:
        parameters = load_gait_parameters(*options.params_file)
        if options.direction:
            parameters['direction'] = options.direction
        params = preset_params(parameters, options.gait)
        joints = load_robot_model(options.urdf).gait_joints()
        check_sidewinding_speed(joints, params)
        times, positions = sample_sidewinding([j.axis_kind for j in joints], params,
                                              options.duration, options.rate, ramp_in=False)
        cycles = params.frequency_hz * options.duration
        comments = [f'{options.gait}: sidewinding {params.frequency_hz:g} Hz, amplitudes '
                    f'{params.amplitude_vertical_rad:g} / {params.amplitude_horizontal_rad:g} rad, '
                    f'direction {params.direction}, {cycles:g} cycles',
                    'steady wave from t = 0 without a ramp: the replay ramps it in (ramp_duration_s)']
        write_trajectory_csv(options.output, [j.name for j in joints], times, positions, comments)
    except (GaitError, RobotModelError) as error:
        print(f'error: {error}', file=sys.stderr)
        return 2
    whole = math.isclose(cycles, round(cycles), abs_tol=1e-9) and round(cycles) > 0
    print(f'wrote {len(times)} samples of {options.gait} to {options.output} ({cycles:g} gait cycles'
          f"{'' if whole else ': not a whole number, so not loopable with csv_loop'})")
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
