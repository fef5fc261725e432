#!/usr/bin/env python3
"""ATE/RPE of an odom track against ground truth (evo); see cobra_odometry.accuracy.

  scripts/odom_accuracy.py <estimate: bag dir | TUM> <reference: bag dir | TUM> [--align se3|sim3]
      [--estimate-topic odom] [--reference-topic ground_truth/odom] [--plot out.png]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src' / 'cobra_odometry'))

from cobra_odometry.accuracy import main  # noqa: E402

if __name__ == '__main__':
    raise SystemExit(main())
