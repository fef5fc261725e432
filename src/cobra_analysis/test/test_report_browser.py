"""The report as a reader sees it: opened in headless Chromium (Debian's `chromium`; .ci/run
installs it), the single-bag and the comparison page screenshotted, and the rendered page checked:
the summary table first and above the fold, the comparison linked from the top, every image
decoded and described, every figure's axes labelled, no NaN anywhere in the text.

Skipped, with the reason, only where no Chromium is installed.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from cobra_analysis.report import main
from cobra_analysis.synthetic import COBRA_LINKS, SyntheticRun, write_bag

GAIT1 = {'cobra.gait.gait': 'gait1', 'cobra.gait.frequency_hz': '0.5', 'cobra.git_rev': 'abc1234',
         'cobra.class': 'sim', 'cobra.launch_file': 'sidewind.launch.py'}
CATEGORIES = {'link', 'joint', 'twist joint', 'steady cycle', 'gait i', 'gait j'}  # axes of names: no unit
WINDOW = (1300, 1600)  # px: a laptop browser window
BROWSER_TIMEOUT_S = 120
# Runs in the page after it loaded (file:// allows no cross-document access, so the test adds this
# to a copy of the page); writes what the reader sees into <pre id="browser-check">.
CHECK_SCRIPT = """<script>
window.addEventListener('load', () => {
  const top = element => element.getBoundingClientRect().top + window.scrollY;
  const firstTable = document.querySelector('table');
  const summary = document.getElementById('summary');
  const result = {
    first_table_id: firstTable ? firstTable.id : null,
    summary_bottom_px: summary ? summary.getBoundingClientRect().bottom : null,
    first_h2_top_px: top(document.querySelector('h2')),
    comparison_link: !!document.querySelector('nav a[href="#comparison"]'),
    comparison_top_px: document.getElementById('comparison') ? top(document.getElementById('comparison')) : null,
    images: Array.from(document.images).map(image => ({src: image.getAttribute('src'), alt: image.alt,
      width: image.naturalWidth, shown_width: image.getBoundingClientRect().width})),
    figures: Array.from(document.querySelectorAll('figure')).map(figure => JSON.parse(figure.dataset.axes)),
    text: document.body.innerText,
  };
  const out = document.createElement('pre');
  out.id = 'browser-check';
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
});
</script>"""


def chromium() -> str | None:
    return next((path for name in ('chromium', 'chromium-browser', 'google-chrome')
                 if (path := shutil.which(name))), None)


def browser(arguments: list[str], profile: Path) -> subprocess.CompletedProcess[str]:
    """Headless Chromium as root in a container: no sandbox, no GPU, its own profile directory."""
    command = [chromium(), '--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
               '--allow-file-access-from-files', f'--user-data-dir={profile}', *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=BROWSER_TIMEOUT_S, check=False)


def rendered_check(page: Path, profile: Path) -> dict:
    """What CHECK_SCRIPT saw in Chromium, for a copy of `page` beside it (same relative images)."""
    checked = page.with_name('browser_check.html')
    checked.write_text(page.read_text().replace('</body>', CHECK_SCRIPT + '</body>'))
    result = browser([f'--window-size={WINDOW[0]},{WINDOW[1]}', '--virtual-time-budget=10000', '--dump-dom',
                      checked.as_uri()], profile)
    checked.unlink()
    match = re.search(r'<pre id="browser-check">(.*?)</pre>', result.stdout, re.S)
    assert match, f'the check script did not run in Chromium: {result.stderr[-2000:]}'
    return json.loads(html.unescape(match.group(1)))


def screenshot(url: str, path: Path, profile: Path, height_px: int = WINDOW[1]) -> np.ndarray:
    result = browser([f'--screenshot={path}', f'--window-size={WINDOW[0]},{height_px}', url], profile)
    assert path.exists(), f'no screenshot of {url}: {result.stderr[-2000:]}'
    from PIL import Image
    image = np.asarray(Image.open(path).convert('RGB'))
    assert image.shape == (height_px, WINDOW[0], 3)
    return image


@pytest.fixture(scope='module')
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A one-bag report (a sim run with contact forces and a heightmap) and a comparison of three
    bags of gait1: that run, the robot (wall-clock stamps, sqlite3) and a short run with two steady
    cycles."""
    if chromium() is None:
        pytest.skip('Chromium is not installed (apt-get install chromium; .ci/run installs it): '
                    'the rendered page cannot be checked')
    root = tmp_path_factory.mktemp('browser')
    sim = write_bag(root / 'sim_scm', SyntheticRun(duration_s=14.0, contact_links=COBRA_LINKS, heightmap=True,
                                                   custom_data={**GAIT1, 'cobra.terrain': 'scm'}))
    robot = write_bag(root / 'robot_run', SyntheticRun(duration_s=14.0, storage='sqlite3', ground_truth=False,
                                                       start_time_s=1.7e9, stride_m=0.09,
                                                       custom_data={'cobra.robot': 'cobra'}))
    short = write_bag(root / 'sim_short', SyntheticRun(duration_s=8.0, custom_data={**GAIT1, 'cobra.terrain': 'rigid'}))
    single, comparison = root / 'single', root / 'comparison'
    assert main([str(sim), '--out', str(single)]) == 0
    assert main([str(sim), str(robot), str(short), '--out', str(comparison), '--label', 'robot_run=robot:gait1']) == 0
    return {'single': single / 'index.html', 'comparison': comparison / 'index.html', 'root': root}


def keep_for_a_person(root: Path, *names: str) -> None:
    """Copy the screenshots to $COBRA_REPORT_SCREENSHOTS when set, to look at them."""
    target = os.environ.get('COBRA_REPORT_SCREENSHOTS')
    if target:
        for name in names:
            shutil.copy(root / name, Path(target) / name)


def check_page(check: dict) -> None:
    """What every report page must be in the browser."""
    assert check['first_table_id'] == 'summary', 'the summary table is not the first table'
    assert check['summary_bottom_px'] < WINDOW[1] / 2, 'the summary table is not near the top of the page'
    assert check['comparison_link'] and check['comparison_top_px'] is not None
    assert not re.search(r'\b(NaN|nan|inf)\b', check['text']), 'NaN or inf on the page'
    assert check['images'], 'no figure on the page'
    for image in check['images']:
        assert image['width'] > 0, f"{image['src']} did not load"
        assert image['shown_width'] <= WINDOW[0], f"{image['src']} is wider than the window"
        assert image['alt'] != image['src'] and len(image['alt'].split()) >= 6, f"{image['src']}: alt {image['alt']!r}"
    assert len(check['figures']) == len(check['images'])
    for axes in check['figures']:
        for ax in axes:
            labels = [ax['y'] or ax['x']] if ax['kind'] == 'colorbar' else [ax['x'], ax['y']]
            for label in labels:
                assert '[' in label or label in CATEGORIES, f'an axis without a label and unit: {ax}'


def test_the_single_bag_page_in_chromium(reports, tmp_path):
    check = rendered_check(reports['single'], tmp_path / 'profile')
    check_page(check)
    text = check['text']
    for shown in ('robot', 'cobra (from the joint names)', 'terrain', 'scm', 'gait1', 'messages per topic',
                  'sim time 1.010 s (the clock started at 0: no date)'):
        assert shown in text, f'{shown!r} is not on the page'
    assert 'Not in this report: one bag only' in text
    tracking = next(axes for image, axes in zip(check['images'], check['figures'])
                    if image['src'] == 'sim_scm_tracking.png')
    assert {(ax['x'], ax['y']) for ax in tracking if ax['title'].startswith('joint_')} == \
        {('time since gait start [s]', 'angle [deg]')}
    image = screenshot(reports['single'].as_uri(), reports['root'] / 'single.png', tmp_path / 'profile')
    assert image.std() > 20, 'a blank screenshot'
    keep_for_a_person(reports['root'], 'single.png')


def test_the_comparison_page_in_chromium(reports, tmp_path):
    check = rendered_check(reports['comparison'], tmp_path / 'profile')
    check_page(check)
    text = check['text']
    assert 'robot_run against sim_scm (gait1)' in text and 'sim_short against sim_scm (gait1)' in text
    assert 'too few cycles to judge (2 steady; needs ≥ 3)' in text
    assert '2023-11-14 22:13:21.010 UTC' in text  # the robot run's date, once in the summary ...
    assert not re.search(r'\b1[67]\d{8}\.\d', text), 'raw epoch seconds on the page'
    comparison = {image['src']: axes for image, axes in zip(check['images'], check['figures'])}['comparison_0.png']
    assert ('time since gait start [s]', 'position error [cm]') in {(ax['x'], ax['y']) for ax in comparison}
    assert ('along travel [strides]', 'across travel [strides]') in {(ax['x'], ax['y']) for ax in comparison}
    # the summary and the whole comparison (it follows the summary), in one tall window
    image = screenshot(reports['comparison'].as_uri(), reports['root'] / 'comparison.png', tmp_path / 'profile',
                       height_px=int(check['comparison_top_px']) + 2200)
    assert image.std() > 20, 'a blank screenshot'
    keep_for_a_person(reports['root'], 'comparison.png')
