"""COBRA's tumbling latch through the pip-mode runner: tumble.launch.py on the 24° slope.

Needs the colcon install (scripts/setup.sh). One unpaced run of the whole sequence as a newcomer
starts it: the gait sidewinds 8 s (tumble.start_after_s), ramps down, curls, latches, tumbles
10 s (tumble.tumbling_timeout_s), releases and uncurls; the run summary reads it from the bag.
"""

from __future__ import annotations

import re

STATES = 'sidewinding -> ramp_down -> curling -> latching -> tumbling -> releasing -> uncurling -> ready'


def test_tumble_launch_runs_the_whole_sequence_on_the_slope(start_runner, tmp_path):
    bag = tmp_path / 'bag'
    process = start_runner(tmp_path, 'tumble.launch.py', 'duration:=32', 'real_time_factor:=0',
                     f'bag_path:={bag}')
    output, _ = process.communicate(timeout=400)
    assert process.returncode == 0, output
    assert 'Traceback' not in output and 'LOSS' not in output and 'PROBLEM' not in output
    assert f'tumble states         {STATES}' in output, output
    tumbling = re.search(r'tumbling +([\d.]+) s: head moved ([\d.]+) m', output)
    assert tumbling, output
    assert 8.0 < float(tumbling.group(1)) < 12.0  # the 10 s tumbling_timeout_s of node time
    assert float(tumbling.group(2)) > 0.2  # the latched loop rolled down the 24° slope
