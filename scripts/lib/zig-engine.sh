# shellcheck shell=bash
# Sourced (bash): the engine for each zig target, built once into one CMake tree that both the
# platform checks (scripts/platform-builds.sh) and the release's Java natives
# (scripts/release/java.sh) use, so that no run compiles a target's engine twice.
#
#   source scripts/lib/zig.sh && ensure_zig VENV      # sets ZIG
#   source scripts/lib/zig-engine.sh
#   zig_engine BUILD_ROOT TARGET    # $BUILD_ROOT/zig/TARGET: libabloom (shared) and libabloom.a,
#                                   # and the demo (Windows: also the abloom command, bin/abloom.exe
#                                   # beside bin/abloom.dll, which the bindings' tests run under
#                                   # wine); prints the tree's path last
#   zig_engine_tests BUILD_ROOT TARGET  # x86_64-windows-gnu only: the same tree, then its test
#                                   # suite (GoogleTest programs, C99 tests, the command's), for
#                                   # ctest under wine; prints the tree's path last
#
# A tree is a Release build with -Werror through cmake/toolchains/zig.cmake, with hidden
# visibility for everything (CMAKE_<LANG>_VISIBILITY_PRESET): the shared library is the same as
# without it (its target hides all but abloom_* already), and the static archive, which the Java
# natives link into a JNI library, keeps abloom_* hidden too (zig's Mach-O linker ignores export
# lists, so nothing else would hide them there). The musl test suite has a tree of its own
# (scripts/platform-builds.sh, with the portable platform calls). The x86-64 Windows tree holds
# the Windows test suite too (configured here, built by zig_engine_tests), so that the suite run
# under wine tests the very DLL and command the release ships, and nothing is compiled twice;
# zig_engine itself builds only the engine's targets, so the tests cost nothing until asked for.
#
# The headers the trees include from the build machine are copies in folders holding only them
# ($BUILD_ROOT/zig/include: glibc's headers must not shadow the target's), copied with their time
# stamps so that a second run recompiles nothing. Two runs on one tree take turns (flock).
ZIG_ENGINE_TARGETS=(x86_64-linux-gnu.2.17 aarch64-linux-gnu.2.17 x86_64-linux-musl aarch64-linux-musl
  x86_64-macos aarch64-macos x86_64-windows-gnu aarch64-windows-gnu)

# zig_engine_headers BUILD_ROOT: $BUILD_ROOT/zig/include/{xxhash,simde,cli11}; prints the folder.
zig_engine_headers() {
  local inc=$1/zig/include
  mkdir -p "$inc/xxhash" "$inc/simde" "$inc/cli11"
  # Trees of other targets may be compiling from these at this moment (CI's lanes, the parallel
  # engine builds): a header is replaced by a rename and a link only made where it is missing or
  # wrong, so that no compile ever sees one half written or absent.
  if ! cmp -s /usr/include/xxhash.h "$inc/xxhash/xxhash.h"; then
    cp -p /usr/include/xxhash.h "$inc/xxhash/.xxhash.h.$$"
    mv -f "$inc/xxhash/.xxhash.h.$$" "$inc/xxhash/xxhash.h"
  fi
  [[ "$(readlink "$inc/simde/simde")" == /usr/include/simde ]] || ln -sfn /usr/include/simde "$inc/simde/simde"
  [[ "$(readlink "$inc/cli11/CLI")" == /usr/include/CLI ]] || ln -sfn /usr/include/CLI "$inc/cli11/CLI"
  echo "$inc"
}

# The engine's own targets (zig_engine builds these and nothing else), and the targets whose
# tree also holds the test suite.
ZIG_ENGINE_BUILD=(abloom abloom_static abloom_demo)
ZIG_TESTS_TARGETS=(x86_64-windows-gnu)

zig_engine() { # BUILD_ROOT TARGET
  ZIG_ENGINE_ALL=0 zig_engine_build "$@"
}

zig_engine_tests() { # BUILD_ROOT TARGET
  [[ " ${ZIG_TESTS_TARGETS[*]} " == *" $2 "* ]] || { echo "zig_engine_tests: $2's tree holds no tests" >&2 && return 2; }
  ZIG_ENGINE_ALL=1 zig_engine_build "$@"
}

zig_engine_build() { # BUILD_ROOT TARGET   (ZIG_ENGINE_ALL=1: every target of the tree)
  local build_root=$1 target=$2 root dir inc cli=() tests=(-DABLOOM_BUILD_TESTS=OFF) targets
  targets=(--target "${ZIG_ENGINE_BUILD[@]}")
  [[ " ${ZIG_ENGINE_TARGETS[*]} " == *" $target "* ]] || { echo "zig_engine: unknown target $target" >&2 && return 2; }
  [[ -n "${ZIG:-}" ]] || { echo "zig_engine: ZIG is not set (ensure_zig first)" >&2 && return 2; }
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  dir=$build_root/zig/$target
  inc=$(zig_engine_headers "$build_root")
  mkdir -p "$build_root/zig"
  # The command, where no system has it to give: CLI11's header from the build machine's copy.
  if [[ $target == *-windows-gnu ]]; then
    cli=(-DABLOOM_BUILD_CLI=ON -DCLI11_INCLUDE_DIR="$inc/cli11" -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON)
    targets+=(abloom_cli)
  fi
  # The test suite: GoogleTest from Debian's source package, one ctest entry per GoogleTest
  # program (each start of a program under wine costs a second), no AVX-512 emulation (SIMDe's
  # is for the native tree), ctest running each program under wine.
  [[ " ${ZIG_TESTS_TARGETS[*]} " == *" $target "* ]] &&
    tests=(-DABLOOM_BUILD_TESTS=ON -DABLOOM_GTEST_SOURCE_DIR=/usr/src/googletest
      -DSIMDE_INCLUDE_DIR="$inc/simde" -DABLOOM_TEST_AVX512_EMULATION=OFF -DABLOOM_TEST_PER_PROGRAM=ON
      -DCMAKE_CROSSCOMPILING_EMULATOR=wine)
  [[ ${ZIG_ENGINE_ALL:-0} == 1 ]] && targets=()
  (
    flock 9
    cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/zig.cmake" \
      -DABLOOM_ZIG="$ZIG" -DABLOOM_ZIG_TARGET="$target" -DCMAKE_BUILD_TYPE=Release \
      -DABLOOM_WERROR=ON -DXXHASH_INCLUDE_DIR="$inc/xxhash" "${tests[@]}" \
      -DABLOOM_BUILD_EXAMPLES=ON -DABLOOM_BUILD_BENCH=OFF -DCMAKE_C_VISIBILITY_PRESET=hidden \
      -DCMAKE_CXX_VISIBILITY_PRESET=hidden -DCMAKE_VISIBILITY_INLINES_HIDDEN=ON "${cli[@]}" >"$dir.configure.log" 2>&1 ||
      { tail -40 "$dir.configure.log" >&2 && exit 1; }
    cmake --build "$dir" -j "${ABLOOM_JOBS:-2}" "${targets[@]}" >"$dir.build.log" 2>&1 ||
      { tail -40 "$dir.build.log" >&2 && exit 1; }
  ) 9>"$dir.lock" >&2 || { echo "zig_engine: $target failed (logs: $dir.*.log)" >&2 && return 1; }
  echo "$dir"
}
