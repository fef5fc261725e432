#!/usr/bin/env bash
# Set up what is missing, idempotently: .venv with the pinned requirements, then the colcon
# workspace in install/. Fast when nothing changed (both steps are skipped by content hash).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# one setup at a time per checkout (two shells running the tests together)
exec 9>".setup.lock"
flock 9

# This checkout's pyenv version (below) links to .venv: without .venv it is gone, and python3 here
# must be the base interpreter again to create it
if [ ! -x .venv/bin/python ] && grep -qs '^cobra-venv-' .python-version; then
    rm -f .python-version
fi
if [ ! -x .venv/bin/python ]; then
    echo "[setup] creating .venv"
    python3 -m venv .venv
fi
# shellcheck disable=SC1091
source .venv/bin/activate

# requirements.txt includes the groups under requirements/ (-r): a change to any of them reinstalls
requirements_hash=$(sha256sum requirements.txt requirements/*.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat .venv/.requirements.sha256 2>/dev/null)" != "$requirements_hash" ]; then
    echo "[setup] installing pinned Python requirements"
    python -m pip install --quiet --upgrade pip
    python -m pip install --quiet -r requirements.txt
    echo "$requirements_hash" > .venv/.requirements.sha256
fi

# Interface packages built from message definitions (src/tf2_msgs, src/cobra_interfaces; both
# COLCON_IGNOREd by the workspace build): PyPI has no tf2_msgs wheel, and cobra_interfaces is ours.
# Each is built with ament_cmake and the rosidl generators of the pinned wheels and installed into
# the venv like a wheel: its libraries land in .venv/lib, which the wheels' bootstrap puts on
# LD_LIBRARY_PATH, so every process of the venv (tests included) imports it without sourcing
# anything. Built only where it is missing: a package that is importable and not ours (a full ROS
# install, or a workspace that built it, sourced) is never shadowed. Rebuilt when its sources change.
build_interface_package() {  # $1 = package name, $2 = a type to import as the check
    local name=$1 check_type=$2 hash stamp build_dir
    hash=$(find "src/$name/CMakeLists.txt" "src/$name/package.xml" "src/$name/msg" \
                $([ -d "src/$name/action" ] && echo "src/$name/action") -type f | LC_ALL=C sort \
        | xargs sha256sum | sha256sum | cut -d' ' -f1)
    stamp="$VIRTUAL_ENV/.$name.sha256"
    if { [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; } \
        || { [ ! -f "$stamp" ] && python -c "import $name.msg" 2>/dev/null; }; then
        return 0
    fi
    echo "[setup] building $name into the venv"
    build_dir=$(mktemp -d)
    if ! { cmake -S "src/$name" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
              "-DCMAKE_PREFIX_PATH=$VIRTUAL_ENV" "-DCMAKE_INSTALL_PREFIX=$VIRTUAL_ENV" \
              "-DPython3_EXECUTABLE=$VIRTUAL_ENV/bin/python" -DBUILD_TESTING=OFF \
           && cmake --build "$build_dir" -j "$(nproc)" && cmake --install "$build_dir"; } \
           >"$build_dir.log" 2>&1; then
        echo "[setup] $name build failed (ament_cmake and rosidl_default_generators come from" \
             "requirements.txt; cmake and g++ from the system): see $build_dir.log" >&2
        exit 1
    fi
    rm -rf "$build_dir" "$build_dir.log"
    python -c "from $name.msg import $check_type" \
        || { echo "[setup] $name was installed into $VIRTUAL_ENV but does not import" >&2; exit 1; }
    echo "$hash" > "$stamp"
}
build_interface_package tf2_msgs TFMessage
build_interface_package cobra_interfaces ContactWrenches

source_hash=$(find src urdf launch config colcon.meta -type f -not -path '*/__pycache__/*' \
    | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
if [ "$(cat install/.source.sha256 2>/dev/null)" != "$source_hash" ]; then
    echo "[setup] building the workspace with colcon"
    # built beside the old install and swapped in at the end, so a run that uses install/ while
    # another shell rebuilds sees one whole workspace or the other
    rm -rf build install.new
    colcon --log-base log build --install-base install.new --event-handlers console_cohesion- summary+ \
        >/dev/null 2>&1 || { echo "[setup] colcon build failed; see log/latest_build" >&2; exit 1; }
    if colcon list | grep -v '(ros.ament_python)' | grep -q .; then
        echo "[setup] a package is not recognised as ROS (check its package.xml):" >&2
        colcon list >&2
        exit 1
    fi
    # compile the soil kernels and the sim's wrench coupling once into numba's cache beside the
    # installed sources (~10 s; a terrain:=scm node then loads them in < 1 s instead of compiling at start)
    ( set +u; source install.new/setup.bash; python -c 'from cobra_soil import compile_kernels; compile_kernels()
from cobra_sim import wrench_coupling; wrench_coupling.compile_kernels()' )
    echo "$source_hash" > install.new/.source.sha256
    rm -rf install.old; [ ! -d install ] || mv install install.old
    mv install.new install && rm -rf install.old
fi

# The venv finds the workspace without `source install/setup.bash`: a .pth puts each installed
# package's site-packages on sys.path and appends its prefix to AMENT_PREFIX_PATH (where the
# runner and the nodes look up executables and share files), so `.venv/bin/python -m
# cobra_bringup.runner ...` works in a plain shell too. A sourced workspace still comes first.
# Every path is relative to the venv's real location (the venv reached through a link, as pyenv
# does below, included), so a checkout that is moved or mounted elsewhere keeps working.
python - "$PWD/install" <<'PY'
import os, pathlib, sys
install = pathlib.Path(sys.argv[1])
prefixes = sorted(os.path.relpath(p, sys.prefix) for p in install.iterdir() if (p / 'share' / 'ament_index').is_dir())
site = os.path.join('lib', f'python{sys.version_info.major}.{sys.version_info.minor}', 'site-packages')
# site runs the line with exec in a function: names it binds are not seen inside comprehensions, so
# the line passes them to a lambda
line = ("import os, sys; (lambda venv, prefixes: (lambda installed: ("
        f"sys.path.extend(s for s in (os.path.join(p, {site!r}) for p in installed) "
        "if s not in sys.path and os.path.isdir(s)), "
        "os.environ.__setitem__('AMENT_PREFIX_PATH', os.pathsep.join(dict.fromkeys("
        "[p for p in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if p] + installed)))))"
        "([os.path.normpath(os.path.join(venv, p)) for p in prefixes]))"
        f"(os.path.realpath(sys.prefix), {prefixes!r})")
pth = pathlib.Path(sys.prefix, site, 'cobra_workspace.pth')
pth.write_text(line + '\n')
PY

# Where pyenv picks the interpreter (as on this project's machines), the venv becomes this
# checkout's local Python, as `pyenv local` does: a version that links to .venv, named in a
# .python-version that git ignores. Then `python -m cobra_bringup.runner ...` works here without
# activating anything. A .python-version of the user's own is left as it is; links to checkouts
# that are gone are removed. COBRA_PYENV_LOCAL=0 turns this off.
if [ "${COBRA_PYENV_LOCAL:-1}" != 0 ] && command -v pyenv >/dev/null \
    && { [ ! -e .python-version ] || grep -qs '^cobra-venv-' .python-version; }; then
    pyenv_versions="$(pyenv root)/versions"
    version_name="cobra-venv-$(printf '%s' "$PWD" | sha256sum | cut -c1-12)"
    for link in "$pyenv_versions"/cobra-venv-*; do
        if [ -L "$link" ] && [ ! -e "$link" ]; then rm -f "$link"; fi
    done
    if ln -sfn "$PWD/.venv" "$pyenv_versions/$version_name" 2>/dev/null; then
        echo "$version_name" > .python-version
    fi
fi
