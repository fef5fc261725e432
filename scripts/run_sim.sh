#!/usr/bin/env bash
# Main job: set up what is missing, then a headless simulated sidewind (20 s of sim time by
# default) that records a bag under bags/ and prints a summary. Extra words are launch
# arguments and override the defaults, e.g. scripts/run_sim.sh gait:=gait2 direction:=right
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
# shellcheck disable=SC1091
source .venv/bin/activate
set +u  # colcon's setup scripts read unset variables
# shellcheck disable=SC1091
source install/setup.bash
set -u
export ROS_LOG_DIR="${ROS_LOG_DIR:-$PWD/log/ros}"
exec python -m cobra_bringup.runner sidewind.launch.py use_sim:=true record:=true duration:=20.0 "$@"
