#!/usr/bin/env bash
# Test command: set up what is missing (scripts/setup.sh), then run every test on
# COBRA_TEST_WORKERS pytest-xdist workers (default 2: most tests wait on ROS processes, so two
# workers halve the wall time on a 2-core machine). Extra words go to pytest and come last, so
# they win: scripts/test.sh -k sidewind, scripts/test.sh -n 0 (one process, e.g. with --pdb)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
# shellcheck disable=SC1091
source .venv/bin/activate
# DDS stays on loopback; each test also claims its own ROS_DOMAIN_ID (see conftest.py)
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export ROS_LOG_DIR="${ROS_LOG_DIR:-$(mktemp -d)}"
exec python -m pytest -n "${COBRA_TEST_WORKERS:-2}" "$@"
