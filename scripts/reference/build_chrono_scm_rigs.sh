#!/usr/bin/env bash
# Build chrono_scm_rigs (our terrain rigs on Chrono's own SCMTerrain) against a Project Chrono
# source tree: Chrono's core library with its CMake, then this driver with SCMTerrain.cpp and the few
# Chrono::Vehicle files it needs compiled in (no other vehicle module). Debian 12: apt install cmake
# g++ libeigen3-dev. About 10 min on two cores.
#   scripts/reference/build_chrono_scm_rigs.sh CHRONO_SOURCE_DIR [BUILD_DIR]
# Prints the path of the binary on its last line.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -f "$1/src/chrono_vehicle/terrain/SCMTerrain.cpp" ]; then
    echo "usage: $0 CHRONO_SOURCE_DIR [BUILD_DIR]  (a checkout of github.com/projectchrono/chrono)" >&2
    exit 2
fi
source_dir=$(cd "$1" && pwd)
build_dir=${2:-$PWD/chrono-build}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$build_dir" "$source_dir/data" "$source_dir/template_project"  # Chrono's CMake copies these
[ -f "$source_dir/README.md" ] || touch "$source_dir/README.md"         # and packs this
cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DBUILD_DEMOS=OFF -DBUILD_TESTING=OFF \
    -DBUILD_BENCHMARKING=OFF -DCH_ENABLE_YAML=OFF -DCH_ENABLE_HDF5=OFF -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON >/dev/null
cmake --build "$build_dir" --target Chrono_core -j"$(nproc)" >/dev/null
# The vehicle module's generated configuration header, without its optional parts (no GPU SCM)
mkdir -p "$build_dir/chrono_vehicle"
printf '#ifndef CH_CONFIG_VEHICLE_H\n#define CH_CONFIG_VEHICLE_H\n#include "chrono/ChConfig.h"\n#endif\n' \
    > "$build_dir/chrono_vehicle/ChConfigVehicle.h"
vehicle="$source_dir/src/chrono_vehicle"
c++ -O2 -std=gnu++17 -fopenmp -DNDEBUG -I"$build_dir" -I"$source_dir/src" -I"$source_dir/src/chrono/collision/bullet" \
    -isystem /usr/include/eigen3 -o "$build_dir/chrono_scm_rigs" "$here/chrono_scm_rigs.cpp" \
    "$vehicle/terrain/SCMTerrain.cpp" "$vehicle/ChWorldFrame.cpp" "$vehicle/ChVehicleDataPath.cpp" \
    "$vehicle/ChTerrain.cpp" "$source_dir/src/chrono_thirdparty/stb/stb_image.cpp" -L"$build_dir/lib" -lChrono_core -Wl,-rpath,"$build_dir/lib"
echo "$build_dir/chrono_scm_rigs"
