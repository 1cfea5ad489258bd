#!/usr/bin/env bash
# The C test suites on CPUs this machine is not, built with Debian's cross compilers and run under
# Debian's qemu-user (the toolchain files in cmake/toolchains/ set CMAKE_CROSSCOMPILING_EMULATOR,
# so ctest runs every test binary through qemu):
#
#   aarch64   the whole ctest suite (golden vectors, format, file I/O, threads, kernels, fuzz corpus
#             replay ...): the files it writes must be byte-identical to x86-64's.
#   s390x     the big-endian guard: the format and golden-vector tests. The format is
#             little-endian by definition, and only a big-endian run proves the code agrees.
#             (Mapping a file in place is refused there with ABLOOM_ERR_UNSUPPORTED, which the
#             golden-vector tests assert; the rest of the suite is not about byte order.)
#
# GoogleTest is built from Debian's source package (/usr/src/googletest): the cross sysroots have
# no libgtest. `scripts/setup.sh cross` installs the compilers and qemu. The trees are
# RelWithDebInfo with line tables only (-g1): nobody debugs them here, and full debug information
# costs compile time.
#
# Usage: scripts/cross-test.sh [aarch64] [s390x]     (no argument: both)
# Env:   ABLOOM_BUILD_ROOT (default build): trees in $ABLOOM_BUILD_ROOT/<arch>;
#        ABLOOM_JOBS (default 2).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_ROOT=${ABLOOM_BUILD_ROOT:-build}
JOBS=${ABLOOM_JOBS:-2}
export CTEST_OUTPUT_ON_FAILURE=1

# The s390x run: the golden vectors, and every format test that does not map a file in place.
S390X_FILTER='Vectors/*:*SerialRoundTrip.Deserialize/*:*SerialRoundTrip.Misaligned/*'
S390X_FILTER+=':*SerialRoundTrip.SizeAndTooSmall/*:*Hostile.EveryHeaderBitFlip/*'
S390X_FILTER+=':*Hostile.EveryTruncation/*'

configure() { # ARCH extra cmake args...
  local arch=$1
  shift
  cmake -S . -B "$BUILD_ROOT/$arch" -G Ninja \
    -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/$arch-linux-gnu.cmake" \
    -DABLOOM_GTEST_SOURCE_DIR=/usr/src/googletest -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DABLOOM_WERROR=ON -DABLOOM_SANITIZE= "$@" >/dev/null
}

run_aarch64() {
  # Per program: each GoogleTest program runs once, whole, under qemu (tests/CMakeLists.txt).
  configure aarch64 -DABLOOM_BUILD_TESTS=ON -DABLOOM_BUILD_EXAMPLES=ON -DABLOOM_TEST_PER_PROGRAM=ON
  cmake --build "$BUILD_ROOT/aarch64" -j "$JOBS"
  ctest --test-dir "$BUILD_ROOT/aarch64" --no-tests=error -j "$JOBS" | tail -n 15
}

run_s390x() {
  # Only the sources of the tests S390X_FILTER selects (tests/CMakeLists.txt, byte order only).
  configure s390x -DABLOOM_BUILD_TESTS=ON -DABLOOM_BUILD_EXAMPLES=OFF -DABLOOM_TEST_BYTE_ORDER_ONLY=ON \
    -DABLOOM_TEST_PER_PROGRAM=ON
  cmake --build "$BUILD_ROOT/s390x" -j "$JOBS" --target abloom_capi_tests
  qemu-s390x -L /usr/s390x-linux-gnu -E LD_LIBRARY_PATH=/usr/s390x-linux-gnu/lib \
    "$BUILD_ROOT/s390x/tests/abloom_capi_tests" \
    --gtest_filter="$S390X_FILTER" --gtest_brief=1
}

ARCHES=("$@")
[[ ${#ARCHES[@]} -gt 0 ]] || ARCHES=(aarch64 s390x)
for arch in "${ARCHES[@]}"; do
  declare -F "run_$arch" >/dev/null || { echo "unknown arch '$arch' (aarch64, s390x)" >&2 && exit 2; }
  for tool in "$arch-linux-gnu-g++" "qemu-$arch"; do
    command -v "$tool" >/dev/null ||
      { echo "$tool not found: run bash scripts/setup.sh cross" >&2 && exit 1; }
  done
  echo "== $arch (qemu-$arch)"
  t0=$SECONDS
  "run_$arch"
  echo "-- $arch: passed ($((SECONDS - t0))s)"
done
