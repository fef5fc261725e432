"""Domain id claims: two holders never get the same id; a released id is handed out again."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cobra_common import ros_domain
from cobra_common.ros_domain import claim_domain_id


def test_two_claims_get_different_ids_and_release_frees(tmp_path):
    first = claim_domain_id(tmp_path)
    second = claim_domain_id(tmp_path)
    assert first.domain_id != second.domain_id
    first.release()
    with claim_domain_id(tmp_path) as third:
        assert third.domain_id == first.domain_id
    second.release()


def test_a_claim_held_by_another_process_is_skipped(tmp_path):
    holder = subprocess.Popen(
        [sys.executable, '-c', 'import sys; from pathlib import Path; '
         'from cobra_common.ros_domain import claim_domain_id; '
         'c = claim_domain_id(Path(sys.argv[1])); print(c.domain_id, flush=True); sys.stdin.read()',
         str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={'PYTHONPATH': ros_domain.__file__.rsplit('/cobra_common/', 1)[0]})
    try:
        held = int(holder.stdout.readline())
        with claim_domain_id(tmp_path) as mine:
            assert mine.domain_id != held
    finally:
        holder.communicate('')
    with claim_domain_id(tmp_path) as after:
        assert after.domain_id == held  # the holder exited: its lock is gone


def test_all_ids_held_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(ros_domain, 'DOMAIN_IDS', range(1, 3))
    claims = [claim_domain_id(tmp_path), claim_domain_id(tmp_path)]
    with pytest.raises(RuntimeError, match='all ROS domain ids 1-2 are held.*set ROS_DOMAIN_ID'):
        claim_domain_id(tmp_path)
    for claim in claims:
        claim.release()
