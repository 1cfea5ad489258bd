#!/usr/bin/env bash
# Builds the Debian packages libabloom0 and libabloom-dev (cmake/package.cmake) from this tree:
# a Release, library-only build configured for /usr, then cpack. Prints the .deb paths.
#
# Usage: scripts/build-debs.sh [OUTDIR]   (default: build/deb/packages)
# Then:  sudo apt install ./OUTDIR/libabloom0_*.deb ./OUTDIR/libabloom-dev_*.deb
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ABLOOM_DEB_BUILD:-$root/build/deb}
out=${1:-$build/packages}
jobs=${ABLOOM_JOBS:-2}

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DABLOOM_BUILD_TESTS=OFF -DABLOOM_BUILD_EXAMPLES=OFF -DABLOOM_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$jobs" >/dev/null
mkdir -p "$out"
(cd "$build" && cpack -G DEB -B "$out" >/dev/null)
rm -rf "$out/_CPack_Packages"
ls "$out"/*.deb
