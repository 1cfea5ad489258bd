#!/usr/bin/env bash
# Install a built tree into a temporary prefix and use it the way downstream projects do:
#   (a) pkg-config: a C program built with only `pkg-config --cflags --libs abloom`, linked
#       dynamically (must need libabloom.so.0) and statically (must not), and run;
#   (b) CMake: find_package(abloom CONFIG REQUIRED), one C program per imported target
#       (abloom::abloom, abloom::abloom_static), built and run.
#
# Usage: tests/install/run_install_tests.sh BUILD_DIR
# Env:   CC (default cc), KEEP_TMP=1 to keep the temporary directory for inspection.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
BUILD_DIR=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CC=${CC:-cc}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/abloom-install-test.XXXXXX")
cleanup() {
  if [[ "${KEEP_TMP:-0}" == 1 ]]; then
    echo "install tests: kept $TMP"
  else
    rm -rf "$TMP"
  fi
}
trap cleanup EXIT

PREFIX="$TMP/prefix"
PASSED=0
FAILED=0
pass() {
  echo "PASS: $*"
  PASSED=$((PASSED + 1))
}
fail() {
  echo "FAIL: $*"
  FAILED=$((FAILED + 1))
}
# check DESCRIPTION COMMAND...: run COMMAND (its output goes to the log), PASS/FAIL on its status.
check() {
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
finish() {
  echo "install tests: $PASSED passed, $FAILED failed"
  if [[ $FAILED -ne 0 ]]; then exit 1; fi
  exit 0
}

# ---- Install -----------------------------------------------------------------------------------
echo "== cmake --install $BUILD_DIR --prefix $PREFIX"
if ! cmake --install "$BUILD_DIR" --prefix "$PREFIX" >"$TMP/install.log" 2>&1; then
  cat "$TMP/install.log"
  fail "cmake --install"
  finish
fi
pass "cmake --install"

PC_FILE=$(find "$PREFIX" -name abloom.pc -path '*/pkgconfig/*' | head -n1)
CONFIG_FILE=$(find "$PREFIX" -name abloomConfig.cmake | head -n1)
if [[ -z "$PC_FILE" || -z "$CONFIG_FILE" ]]; then
  find "$PREFIX" | sort
  fail "abloom.pc and abloomConfig.cmake installed"
  finish
fi
PC_DIR=$(dirname "$PC_FILE")
LIBDIR=$(dirname "$PC_DIR")

installed_files_ok() {
  local f ok=0
  for f in "$PREFIX/include/abloom.h" "$PREFIX/include/abloom_inline.h" "$PREFIX/include/abloom_layout.h" \
    "$LIBDIR/libabloom.so" \
    "$LIBDIR/libabloom.so.0" "$LIBDIR/libabloom.a" "$(dirname "$CONFIG_FILE")/abloomConfigVersion.cmake" \
    "$(dirname "$CONFIG_FILE")/abloomTargets.cmake"; do
    if [[ ! -e "$f" ]]; then
      echo "missing: $f"
      ok=1
    fi
  done
  [[ -L "$LIBDIR/libabloom.so.0" ]] || { echo "libabloom.so.0 is not a symlink" && ok=1; }
  for f in capi/abloom.h capi/abloom_inline.h capi/abloom_layout.h; do
    cmp -s "$PREFIX/include/$(basename "$f")" "$HERE/../../$f" ||
      { echo "installed $(basename "$f") differs from $f" && ok=1; }
  done
  return $ok
}
check "installed files (headers, libabloom.so{,.0}, libabloom.a, CMake package)" installed_files_ok

# The abloom command, when the tree built it (ABLOOM_BUILD_CLI): installed in bin/, it runs from
# there with no LD_LIBRARY_PATH (its run path finds the installed library) and works end to end.
installed_cli_ok() {
  local cli="$PREFIX/bin/abloom" dir="$TMP/cli"
  mkdir -p "$dir"
  seq 1 1000 >"$dir/keys.txt"
  env -u LD_LIBRARY_PATH "$cli" build -o "$dir/f.abloom" "$dir/keys.txt" &&
    [[ $(env -u LD_LIBRARY_PATH "$cli" query --count "$dir/f.abloom" "$dir/keys.txt") == 1000 ]] ||
    return 1
  # ldd prints the $ORIGIN path (bin/../lib/...): the same file as the prefix's library?
  local lib
  lib=$(env -u LD_LIBRARY_PATH ldd "$cli" | sed -n 's/.*libabloom\.so\.0 => \([^ ]*\) .*/\1/p')
  echo "bin/abloom loads $lib"
  [[ -n "$lib" && "$(realpath "$lib")" == "$(realpath "$LIBDIR/libabloom.so.0")" ]]
}

export PKG_CONFIG_PATH="$PC_DIR"
pc() { pkg-config "$@" abloom; }

pc_prefix_ok() {
  local prefix
  prefix=$(pc --variable=prefix)
  echo "abloom.pc: prefix=$prefix libdir=$(pc --variable=libdir) version=$(pc --modversion)"
  [[ "$(cd "$prefix" && pwd -P)" == "$(cd "$PREFIX" && pwd -P)" ]]
}
check "abloom.pc prefix is the install prefix" pc_prefix_ok
check "pkg-config --validate abloom.pc" pkg-config --validate "$PC_FILE"

# Runs a consumer binary; its output goes to the log. Checks that it printed the version that
# pkg-config reports.
run_consumer() {
  local bin=$1 out
  shift
  if ! out=$("$@" "$bin" 2>&1); then
    echo "$out"
    return 1
  fi
  echo "$out"
  grep -q "abloom version $(pc --modversion) " <<<"$out" ||
    grep -q "abloom $(pc --modversion) " <<<"$out" ||
    { echo "version $(pc --modversion) not printed" && return 1; }
}

needs_lib() { readelf -d "$1" | grep 'NEEDED.*\[libabloom\.so\.0\]' >/dev/null; }
no_libabloom_dep() { ! readelf -d "$1" | grep 'NEEDED.*libabloom' >/dev/null; }
resolves_to_prefix() {
  local line
  line=$(ldd "$1" | grep 'libabloom\.so\.0') || { echo "ldd: libabloom.so.0 not found" && return 1; }
  echo "ldd:$line"
  [[ "$line" == *"=> $LIBDIR/libabloom.so.0 "* ]]
}
# grep reads all of nm's output (no -q): with pipefail, a grep that quits at the first match kills
# nm with SIGPIPE once its output outgrows the pipe buffer, and the check would fail at random.
defines_abloom_add() { nm "$1" | grep -E ' T abloom_add$' >/dev/null; }
# Its manual page, as written (the Debian package's compressed copy is not for plain installs).
installed_man_ok() {
  cmp "$PREFIX/share/man/man1/abloom.1" "$HERE/../../cli/abloom.1" &&
    [[ ! -e "$PREFIX/share/man/man1/abloom.1.gz" ]]
}
# The files only the Debian packages have (cmake/package.cmake: copyright, changelog, lintian
# overrides) stay out of a plain install.
no_debian_files() {
  local found
  found=$(find "$PREFIX" -path "$PREFIX/share/doc*" -o -path "$PREFIX/share/lintian*")
  [[ -z $found ]] || { echo "in the prefix: $found" && return 1; }
}
if [[ -e "$BUILD_DIR/cli/abloom" ]]; then
  check "bin/abloom installed, runs from the prefix (build, query)" installed_cli_ok
  check "share/man/man1/abloom.1 installed, the same as cli/abloom.1" installed_man_ok
fi
check "no share/doc or share/lintian files (only the Debian packages have them)" no_debian_files

# ---- (a) pkg-config ----------------------------------------------------------------------------
SRC="$HERE/pkgconfig_consumer/main.c"
WARN=(-std=c99 -Wall -Wextra -pedantic -Werror)

echo "== pkg-config, dynamic: $CC main.c $(pc --cflags --libs)"
# shellcheck disable=SC2046 # word splitting of pkg-config output is intended
if "$CC" "${WARN[@]}" "$SRC" -o "$TMP/pc_dynamic" $(pc --cflags --libs) -Wl,-rpath,"$LIBDIR"; then
  pass "pkg-config dynamic: compile and link"
  check "pkg-config dynamic: NEEDED libabloom.so.0" needs_lib "$TMP/pc_dynamic"
  check "pkg-config dynamic: ldd resolves libabloom.so.0 in the install prefix" \
    resolves_to_prefix "$TMP/pc_dynamic"
  check "pkg-config dynamic: run" run_consumer "$TMP/pc_dynamic"
else
  fail "pkg-config dynamic: compile and link"
fi

# Static: libabloom.a instead of the .so, plus Libs.private (C++ runtime, libm, pthread).
STATIC_LIBS=()
for w in $(pc --static --libs); do
  if [[ "$w" == -labloom ]]; then
    STATIC_LIBS+=(-Wl,-Bstatic -labloom -Wl,-Bdynamic)
  else
    STATIC_LIBS+=("$w")
  fi
done
echo "== pkg-config, static: $CC main.c $(pc --static --cflags) ${STATIC_LIBS[*]}"
# shellcheck disable=SC2046
if "$CC" "${WARN[@]}" "$SRC" -o "$TMP/pc_static" $(pc --static --cflags) "${STATIC_LIBS[@]}"; then
  pass "pkg-config static: compile and link"
  check "pkg-config static: no libabloom.so dependency" no_libabloom_dep "$TMP/pc_static"
  check "pkg-config static: abloom_add linked in" defines_abloom_add "$TMP/pc_static"
  check "pkg-config static: run" run_consumer "$TMP/pc_static" env -u LD_LIBRARY_PATH
else
  fail "pkg-config static: compile and link"
fi

# ---- (b) CMake package -------------------------------------------------------------------------
GEN=()
if command -v ninja >/dev/null 2>&1; then GEN=(-G Ninja); fi
CBUILD="$TMP/cmake_consumer"
echo "== CMake: find_package(abloom CONFIG REQUIRED) with CMAKE_PREFIX_PATH=$PREFIX"
if cmake -S "$HERE/cmake_consumer" -B "$CBUILD" "${GEN[@]}" -DCMAKE_PREFIX_PATH="$PREFIX" \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=Release -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON \
  >"$TMP/cmake_configure.log" 2>&1; then
  grep 'Found abloom' "$TMP/cmake_configure.log" || true
  pass "CMake consumer: configure"
  if cmake --build "$CBUILD" -j2 >"$TMP/cmake_build.log" 2>&1; then
    pass "CMake consumer: build"
    check "CMake consumer: abloom::abloom NEEDED libabloom.so.0" needs_lib "$CBUILD/consumer_shared"
    check "CMake consumer: abloom::abloom resolves libabloom.so.0 in the install prefix" \
      resolves_to_prefix "$CBUILD/consumer_shared"
    check "CMake consumer: abloom::abloom run" run_consumer "$CBUILD/consumer_shared"
    check "CMake consumer: abloom::abloom_static has no libabloom.so dependency" \
      no_libabloom_dep "$CBUILD/consumer_static"
    check "CMake consumer: abloom::abloom_static run" run_consumer "$CBUILD/consumer_static"
  else
    cat "$TMP/cmake_build.log"
    fail "CMake consumer: build"
  fi
else
  cat "$TMP/cmake_configure.log"
  fail "CMake consumer: configure"
fi

# The package version file must accept the same major version and refuse another one.
VERSION=$(pc --modversion)
MAJOR=${VERSION%%.*}
version_accepted() {
  cmake -S "$HERE/cmake_consumer" -B "$TMP/cmake_version_ok" "${GEN[@]}" \
    -DCMAKE_PREFIX_PATH="$PREFIX" -DABLOOM_CONSUMER_REQUIRE_VERSION="$MAJOR.0" >/dev/null 2>&1
}
version_refused() {
  ! cmake -S "$HERE/cmake_consumer" -B "$TMP/cmake_version_bad" "${GEN[@]}" \
    -DCMAKE_PREFIX_PATH="$PREFIX" -DABLOOM_CONSUMER_REQUIRE_VERSION="$((MAJOR + 1)).0" \
    >/dev/null 2>&1
}
check "CMake package: find_package(abloom $MAJOR.0) accepted" version_accepted
check "CMake package: find_package(abloom $((MAJOR + 1)).0) refused" version_refused

finish
