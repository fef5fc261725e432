#!/usr/bin/env bash
# Test command: set up what is missing (scripts/setup.sh), then run every test. Extra words go
# to pytest, e.g. scripts/test.sh -k sidewind
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
# shellcheck disable=SC1091
source .venv/bin/activate
# DDS stays on loopback; each test also claims its own ROS_DOMAIN_ID (see conftest.py)
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export ROS_LOG_DIR="${ROS_LOG_DIR:-$(mktemp -d)}"
exec python -m pytest "$@"
