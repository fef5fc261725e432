#!/usr/bin/env bash
# Set up what is missing, idempotently: .venv with the pinned requirements, then the colcon
# workspace in install/. Fast when nothing changed (both steps are skipped by content hash).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ ! -x .venv/bin/python ]; then
    echo "[setup] creating .venv"
    python3 -m venv .venv
fi
# shellcheck disable=SC1091
source .venv/bin/activate

requirements_hash=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ "$(cat .venv/.requirements.sha256 2>/dev/null)" != "$requirements_hash" ]; then
    echo "[setup] installing pinned Python requirements"
    python -m pip install --quiet --upgrade pip
    python -m pip install --quiet -r requirements.txt
    echo "$requirements_hash" > .venv/.requirements.sha256
fi

source_hash=$(find src urdf launch config colcon.meta -type f -not -path '*/__pycache__/*' \
    | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
if [ "$(cat install/.source.sha256 2>/dev/null)" != "$source_hash" ]; then
    echo "[setup] building the workspace with colcon"
    rm -rf build install
    colcon --log-base log build --event-handlers console_cohesion- summary+ >/dev/null 2>&1 \
        || { echo "[setup] colcon build failed; see log/latest_build" >&2; exit 1; }
    if colcon list | grep -v '(ros.ament_python)' | grep -q .; then
        echo "[setup] a package is not recognised as ROS (check its package.xml):" >&2
        colcon list >&2
        exit 1
    fi
    # compile the soil kernels once into numba's cache beside the installed sources (~8 s; a
    # terrain:=scm node then loads them in < 1 s instead of compiling at start)
    ( set +u; source install/setup.bash; python -c 'from cobra_sim.soil import compile_kernels; compile_kernels()' )
    echo "$source_hash" > install/.source.sha256
fi
