"""The papers are cited by name (README's References section), never by the file numbers the
project was started from: users know papers, not seeds."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ('src', 'docs', 'config', 'launch', 'scripts', 'tests', 'docker', 'README.md')
# built from pieces so that this file does not match itself
SEED_CITATION = re.compile('seed' + r'[ -]?00[0-2]\b|thesis ' + r'000\b|seed' + r'[ -]facts', re.IGNORECASE)
PAPERS = {  # arXiv id or title -> what the References section must say about the paper
    'the thesis': ('2512.05008', 'COBRA'),
    'the geometric-mechanics paper': ('A variational approach to geometric mechanics for undulating robotic '
                                      'locomotion', 'Özkan-Aydın'),
    'the LTS paper': ('2610.29461', 'Linear Twisting Sidewinding Gaits for Twistable Snake Robot Motion Planning '
                                    'on Complex Terrains'),
}


def project_files() -> list[Path]:
    """Tracked and new (not ignored) files under the scanned paths."""
    listed = subprocess.run(['git', 'ls-files', '--cached', '--others', '--exclude-standard', '--', *SCANNED],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split('\n')
    return [ROOT / name for name in dict.fromkeys(listed) if name and (ROOT / name).is_file()]


def test_no_file_cites_a_paper_as_a_seed() -> None:
    offenders = []
    for path in project_files():
        try:
            text = path.read_text(encoding='utf-8')
        except UnicodeDecodeError:
            continue  # images, bags
        for number, line in enumerate(text.splitlines(), 1):
            if SEED_CITATION.search(line):
                offenders.append(f'{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}')
    assert offenders == [], 'cite the paper by its short name (README References):\n' + '\n'.join(offenders)


def test_the_readme_lists_each_paper_once_with_title_authors_and_arxiv_id() -> None:
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    assert readme.count('\n## References\n') == 1
    references = ' '.join(readme.split('\n## References\n', 1)[1].split('\n## ', 1)[0].split())  # one line
    for short_name, facts in PAPERS.items():
        assert f'[{short_name}]' in references, short_name
        for fact in facts:
            assert fact in references, (short_name, fact)
    assert 'Fan' in references and 'Ren' in references and 'Schröder' in references
    for arxiv_id in ('2512.05008', '2610.29461'):  # each paper listed once
        assert references.count(f'arXiv:{arxiv_id}') == 1, arxiv_id
