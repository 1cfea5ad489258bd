#!/usr/bin/env bash
# Builds the Debian packages libabloom0, libabloom-dev and abloom-tools (cmake/package.cmake) from
# this tree: a Release build of the library and the abloom command (-DABLOOM_BUILD_CLI=ON, also
# when cross-compiling: CLI11 is header-only, found in /usr/include as libcli11-dev puts it)
# configured for /usr with -DABLOOM_PACKAGE=ON (cmake/package.cmake: CPack's configuration and
# the files only the packages carry), then cpack. Prints the .deb paths.
#
#   ARCH amd64   native build (this machine's architecture must be amd64, or ARCH omitted).
#   ARCH arm64   cross build with Debian's g++-aarch64-linux-gnu (cmake/toolchains/). CPack's
#                dpkg-shlibdeps then computes libabloom0's (and abloom-tools') Depends from the
#                arm64 libraries' own symbols files, exactly as a native arm64 build would; that needs Debian's real
#                arm64 runtime packages next to the amd64 ones (multiarch), because the cross
#                toolchain's libc6-arm64-cross & co. are not what an arm64 system depends on:
#                  dpkg --add-architecture arm64 && apt-get update &&
#                  apt-get install libc6:arm64 libstdc++6:arm64 libgcc-s1:arm64
#
# The packages are for the Debian release they are built on (Depends: libc6 (>= the glibc
# symbols used)), like any Debian package: build them on each distribution release you ship for.
#
# Usage: scripts/build-debs.sh [OUTDIR [ARCH]]   (defaults: build/deb/packages, this machine's arch)
# Env:   ABLOOM_DEB_BUILD (the build tree; default build/deb, build/deb-ARCH when cross),
#        ABLOOM_JOBS (default 2).
# Then:  sudo apt install ./OUTDIR/libabloom0_*.deb ./OUTDIR/libabloom-dev_*.deb ./OUTDIR/abloom-tools_*.deb
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() {
  echo "build-debs.sh: $*" >&2
  exit 1
}
native=$(dpkg --print-architecture)
arch=${2:-$native}
jobs=${ABLOOM_JOBS:-2}

cross_args=()
shlibdeps_env=()
if [[ $arch == "$native" ]]; then
  build=${ABLOOM_DEB_BUILD:-$root/build/deb}
elif [[ $arch == arm64 ]]; then
  build=${ABLOOM_DEB_BUILD:-$root/build/deb-arm64}
  command -v aarch64-linux-gnu-g++ >/dev/null ||
    die "aarch64-linux-gnu-g++ not found: apt-get install g++-aarch64-linux-gnu"
  for p in libc6 libstdc++6 libgcc-s1; do
    grep -q 'install ok installed' <<<"$(dpkg-query -W -f='${Status}' "$p:arm64" 2>/dev/null)" ||
      die "$p:arm64 is not installed: dpkg-shlibdeps needs it to compute libabloom0's Depends
  (dpkg --add-architecture arm64 && apt-get update && apt-get install libc6:arm64 libstdc++6:arm64 libgcc-s1:arm64)"
  done
  # GNUInstallDirs picks lib/<multiarch> only when CMake detects the library architecture; say it
  # outright so that the package installs into /usr/lib/aarch64-linux-gnu like every arm64 library.
  cross_args=(-DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/aarch64-linux-gnu.cmake"
    -DCMAKE_LIBRARY_ARCHITECTURE=aarch64-linux-gnu -DCMAKE_INSTALL_LIBDIR=lib/aarch64-linux-gnu
    -DCPACK_DEBIAN_PACKAGE_ARCHITECTURE=arm64)
  # dpkg-shlibdeps (run by cpack) reads the host architecture from the environment: with arm64 it
  # searches /usr/lib/aarch64-linux-gnu and uses aarch64-linux-gnu-objdump.
  shlibdeps_env=(env DEB_HOST_ARCH=arm64)
else
  die "unknown architecture '$arch' (this machine: $native; cross: arm64)"
fi

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DABLOOM_BUILD_TESTS=OFF -DABLOOM_BUILD_EXAMPLES=OFF -DABLOOM_BUILD_BENCH=OFF -DABLOOM_BUILD_CLI=ON \
  -DABLOOM_PACKAGE=ON \
  "${cross_args[@]}" >/dev/null
cmake --build "$build" -j "$jobs" >/dev/null
out=${1:-$build/packages}
mkdir -p "$out"
(cd "$build" && "${shlibdeps_env[@]}" cpack -G DEB -B "$out" >/dev/null)
rm -rf "$out/_CPack_Packages"
ls "$out"/*_"$arch".deb
