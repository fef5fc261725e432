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

# tf2_msgs: PyPI has no wheel for it, so src/tf2_msgs builds it from its message definition
# (ament_cmake + rosidl generators from the pinned wheels). Where a tf2_msgs is already
# importable without this workspace (a full ROS install sourced), it is skipped so that ours never
# shadows the real one; the choice is part of the build hash.
workspace_pythonpath=$(printf '%s' "${PYTHONPATH:-}" | tr ':' '\n' | { grep -v "^$PWD/install" || true; } | paste -sd: -)
if PYTHONPATH="$workspace_pythonpath" python -c 'import tf2_msgs.msg' 2>/dev/null; then
    colcon_skip=(--packages-skip tf2_msgs)
    tf2_msgs_source=installed
else
    colcon_skip=()
    tf2_msgs_source=workspace
fi
source_hash=$( { find src urdf launch config colcon.meta -type f -not -path '*/__pycache__/*' \
    | LC_ALL=C sort | xargs sha256sum; echo "tf2_msgs from $tf2_msgs_source"; } \
    | sha256sum | cut -d' ' -f1)
if [ "$(cat install/.source.sha256 2>/dev/null)" != "$source_hash" ]; then
    echo "[setup] building the workspace with colcon"
    rm -rf build install
    # the interface package is ament_cmake: CMake finds ament_cmake, the rosidl generators and the
    # message packages it depends on in the venv (the wheels install there as an ament prefix)
    CMAKE_PREFIX_PATH="$VIRTUAL_ENV${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}" \
    AMENT_PREFIX_PATH="$VIRTUAL_ENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}" \
    colcon --log-base log build --event-handlers console_cohesion- summary+ "${colcon_skip[@]}" \
        --cmake-args -DBUILD_TESTING=OFF "-DPython3_EXECUTABLE=$VIRTUAL_ENV/bin/python" >/dev/null 2>&1 \
        || { echo "[setup] colcon build failed; see log/latest_build" >&2; exit 1; }
    if colcon list | grep -v '(ros.ament_python)' | grep -v '^tf2_msgs\s.*(ros.ament_cmake)' | grep -q .; then
        echo "[setup] a package is not recognised as ROS (check its package.xml):" >&2
        colcon list >&2
        exit 1
    fi
    # compile the soil kernels once into numba's cache beside the installed sources (~8 s; a
    # terrain:=scm node then loads them in < 1 s instead of compiling at start)
    ( set +u; source install/setup.bash; python -c 'from cobra_sim.soil import compile_kernels; compile_kernels()' )
    ( set +u; source install/setup.bash; python -c 'from tf2_msgs.msg import TFMessage' ) \
        || { echo "[setup] tf2_msgs built but not importable; see log/latest_build/tf2_msgs" >&2; exit 1; }
    echo "$source_hash" > install/.source.sha256
fi
