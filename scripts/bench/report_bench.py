#!/usr/bin/env python3
"""Benchmark the validation report on a 10-minute bag (issue 10: < 30 s on this machine).

Synthesises (cobra_analysis.synthetic) a bag of `--minutes` of COBRA sidewinding: joint_states at
500 Hz, joint_commands and odom at 100 Hz (`--contact` adds the sim's contact/forces (12 links per message) at
100 Hz and ground_truth/odom), then times, in the same run and on the same bag:
* bare: a rosbags AnyReader pass over every message, raw bytes only (the floor of any reader);
* decode: the same pass with rosbags' deserialize on every message;
* report: `python -m cobra_analysis.report BAG --out DIR` as a process (imports, reading, analysis,
  plots, HTML, metrics.json: what a user waits for), CPU time of the process beside wall time.
Printed: seconds and the ratio of each to bare. Exit 1 when the report takes longer than
`--target-s` (30 s).

    python scripts/bench/report_bench.py [--minutes 10] [--contact] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE_DIRS = [str(p) for p in sorted((REPO / 'src').iterdir()) if (p / 'package.xml').exists()]
sys.path[:0] = PACKAGE_DIRS

from rosbags.highlevel import AnyReader  # noqa: E402
from rosbags.typesys import Stores, get_typestore  # noqa: E402

from cobra_analysis.synthetic import COBRA_LINKS, SyntheticRun, write_bag  # noqa: E402


def bare_read_s(bag: Path, decode: bool) -> tuple[float, int]:
    """Seconds for one pass over every message (deserialised when decode), and the count."""
    typestore = get_typestore(Stores.ROS2_JAZZY)
    begin = time.perf_counter()
    count = 0
    with AnyReader([bag], default_typestore=typestore) as reader:
        for connection, _, raw in reader.messages():
            if decode:
                reader.deserialize(raw, connection.msgtype)
            count += 1
    return time.perf_counter() - begin, count


def report_s(bag: Path, out: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of the report CLI as a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    begin = time.perf_counter()
    subprocess.run([sys.executable, '-m', 'cobra_analysis.report', str(bag), '--out', str(out)], check=True,
                   env={**os.environ, 'PYTHONPATH': os.pathsep.join(PACKAGE_DIRS + [os.environ.get('PYTHONPATH', '')])},
                   stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - begin
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--minutes', type=float, default=10.0, help='bag length [min] (default 10)')
    parser.add_argument('--contact', action='store_true', help='add contact/forces (12 links per message) and ground_truth/odom')
    parser.add_argument('--keep', type=Path, help='write the bag and report here and keep them')
    parser.add_argument('--target-s', type=float, default=30.0, help='report wall-time target [s]')
    args = parser.parse_args()
    if args.minutes <= 0:
        print(f'error: --minutes {args.minutes} must be > 0', file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix='report_bench_')) if args.keep is None else args.keep
    if args.keep is not None and args.keep.exists():
        print(f'error: --keep {args.keep} exists: give a new directory', file=sys.stderr)
        return 2
    work.mkdir(parents=True, exist_ok=True)
    try:
        run = SyntheticRun(duration_s=60.0 * args.minutes, ground_truth=args.contact,
                           contact_links=COBRA_LINKS if args.contact else ())
        begin = time.perf_counter()
        bag = write_bag(work / 'bench_bag', run)
        size_mb = sum(p.stat().st_size for p in bag.iterdir()) / 1e6
        print(f'bag: {args.minutes:g} min, joint_states 500 Hz, joint_commands + odom 100 Hz'
              f"{', contact/forces 100 Hz x 12 links, ground_truth/odom' if args.contact else ''}; {size_mb:.0f} MB, "
              f'written in {time.perf_counter() - begin:.1f} s')
        bare, count = bare_read_s(bag, decode=False)
        decode, _ = bare_read_s(bag, decode=True)
        wall, cpu = report_s(bag, work / 'report')
        print(f'{count} messages')
        print(f'bare rosbags read (raw)      {bare:7.2f} s   1.00x')
        print(f'rosbags read + deserialize   {decode:7.2f} s   {decode / bare:5.2f}x')
        print(f'report (CLI process, wall)   {wall:7.2f} s   {wall / bare:5.2f}x   (CPU {cpu:.2f} s)')
        verdict = 'OK' if wall < args.target_s else 'OVER TARGET'
        print(f'target: report < {args.target_s:g} s -> {verdict}')
        return 0 if wall < args.target_s else 1
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    raise SystemExit(main())
