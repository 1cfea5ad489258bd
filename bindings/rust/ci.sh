#!/usr/bin/env bash
# CI for the Rust binding (abloom-sys + abloom), in both of abloom-sys's modes:
#
#   bash bindings/rust/ci.sh PREFIX        # PREFIX: absolute path of a `cmake --install` of abloom
#
# bundled (the default: the engine compiled from core/ and capi/ by the cc crate), with no
# environment variable at all (PKG_CONFIG_PATH, LD_LIBRARY_PATH and ABLOOM_* unset):
#   - the build, whose C++ compile must print no warning;
#   - cargo test --features serde (unit, integration incl. the header check against
#     capi/abloom.h, golden vectors, files exchanged with a C program linked to the same static
#     library, threads; and doctests); the test binaries must not need libabloom.so.
# system (the installed library in PREFIX: feature `system`, PKG_CONFIG_PATH, LD_LIBRARY_PATH):
#   - cargo clippy (all targets and features, -D warnings); cargo test --all-features; a build
#     without features; rustdoc with -D warnings; the benchmark compiled and run once on a tiny
#     size (smoke only). These check Rust code that is the same in both modes, so they run once,
#     here, where no C++ is compiled;
#   - ABLOOM_SYSTEM=1 without the feature (abloom-sys's tests; they must link libabloom.so);
#   - a static-link build (ABLOOM_LIB_DIR + ABLOOM_STATIC=1) whose test binaries must not need
#     libabloom.so.
# The package as a user gets it (package_check.sh: cargo package --workspace, then a consumer
# crate built in a temporary directory outside the repository with a stripped environment, from
# a path dependency and from the packaged .crate files, and run; then the crates' own tests from
# the packaged .crate files) is scripts/test-all.sh's stage packages.
# Crates come from crates.io at the versions of Cargo.lock (--locked); build output goes to
# bindings/rust/target (ignored).
set -euo pipefail

PREFIX=${1:?usage: bash bindings/rust/ci.sh PREFIX (an install of the abloom C library)}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() {
  echo "rust ci: $*" >&2
  exit 1
}
step() { echo "== rust: $* (at ${SECONDS}s)"; }

[ -d "$PREFIX" ] || die "PREFIX $PREFIX is not a directory"
PREFIX=$(cd "$PREFIX" && pwd)
[ -f "$PREFIX/lib/pkgconfig/abloom.pc" ] || die "$PREFIX/lib/pkgconfig/abloom.pc not found: is $PREFIX an abloom install?"
[ -f "$PREFIX/include/abloom.h" ] || die "$PREFIX/include/abloom.h not found"
for tool in cargo rustc cc c++ pkg-config; do
  command -v "$tool" >/dev/null || die "'$tool' not found on PATH (needs a Rust toolchain: cargo, rustc; C and C++20 compilers; pkg-config)"
done
cargo fmt --version >/dev/null 2>&1 || die "rustfmt missing (rustup component add rustfmt)"
cargo clippy --version >/dev/null 2>&1 || die "clippy missing (rustup component add clippy)"
echo "rust ci: $(rustc --version), $(cargo --version), $(c++ --version | head -1), PREFIX=$PREFIX"

cd "$HERE"
export CARGO_TARGET_DIR="$HERE/target"
export CARGO_TERM_COLOR=never
unset ABLOOM_SYSTEM ABLOOM_LIB_DIR ABLOOM_INCLUDE_DIR ABLOOM_STATIC RUSTFLAGS PKG_CONFIG_PATH LD_LIBRARY_PATH
# The system mode's environment, given to those steps only.
system_env=(env "PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig" "LD_LIBRARY_PATH=$PREFIX/lib")

# The test executables `cargo test ARGS` builds (one per line).
test_exes() {
  "$@" --no-run --message-format=json | grep -o '"executable":"[^"]*"' | cut -d'"' -f4
}
# Fails when one of the executables needs (or does not need, with "needs") libabloom.so. grep
# reads all of ldd's output (no -q): under pipefail an early exit made ldd die of SIGPIPE and
# the check fail at random.
check_links() { # needs|static EXE...
  local want=$1 exe
  shift
  [ $# -gt 0 ] || die "no test executable found"
  for exe in "$@"; do
    if ldd "$exe" | grep libabloom >/dev/null; then
      [ "$want" = needs ] || die "$exe needs libabloom.so: $(ldd "$exe" | grep libabloom)"
    else
      [ "$want" = static ] || die "$exe does not link libabloom.so: the system library was not used"
    fi
  done
}

step "fmt"
cargo fmt --all --check

step "fetch (crates.io, Cargo.lock)"
cargo fetch --locked -q

step "bundled: build (no environment; the C++ compile prints no warning)"
build_log=$(cargo build --locked --all-targets --features serde 2>&1) || {
  echo "$build_log"
  die "bundled build failed"
}
if grep -q '^warning: abloom-sys@' <<<"$build_log"; then
  grep '^warning: abloom-sys@' <<<"$build_log" | head -40
  die "the bundled engine compiles with warnings"
fi

step "bundled: test --features serde (tests/cli_exchange.rs with the install's abloom command)"
[ -x "$PREFIX/bin/abloom" ] || die "$PREFIX/bin/abloom not found: the CLI exchange tests need the abloom command"
ABLOOM_CLI="$PREFIX/bin/abloom" cargo test --locked -q --features serde 2>&1 | grep -v '^$'
mapfile -t exes < <(test_exes cargo test --locked -q --features serde)
check_links static "${exes[@]}"

step "system: clippy -D warnings (--all-features: feature system wins)"
"${system_env[@]}" cargo clippy --locked -q --all-targets --all-features -- -D warnings

step "system: test --all-features (library found by pkg-config)"
"${system_env[@]}" cargo test --locked -q --all-features 2>&1 | grep -v '^$'
mapfile -t exes < <(test_exes "${system_env[@]}" cargo test --locked -q --all-features --test vectors --test header)
check_links needs "${exes[@]}"

step "system: build without features (abloom-sys with neither feature: pkg-config)"
"${system_env[@]}" cargo check --locked -q -p abloom --no-default-features

step "system: ABLOOM_SYSTEM=1, default features (own target dir: the bundled build stays cached)"
env_system=("${system_env[@]}" ABLOOM_SYSTEM=1 CARGO_TARGET_DIR="$HERE/target/abloom-system-env")
"${env_system[@]}" cargo test --locked -q -p abloom-sys 2>&1 | grep -v '^$'
mapfile -t exes < <(test_exes "${env_system[@]}" cargo test --locked -q -p abloom-sys --test header)
check_links needs "${exes[@]}"

step "system: rustdoc -D warnings"
"${system_env[@]}" RUSTDOCFLAGS="-D warnings" cargo doc --locked -q --no-deps --all-features

step "system: bench: compile, and one tiny smoke run (not a measurement)"
"${system_env[@]}" cargo bench --locked -q --all-features --no-run
"${system_env[@]}" ABLOOM_BENCH_QUICK=1 ABLOOM_BENCH_SIZES=20000 \
  cargo bench --locked -q -p abloom --all-features --bench vs_fastbloom >/dev/null

step "system: static link (ABLOOM_LIB_DIR=$PREFIX/lib ABLOOM_STATIC=1)"
static_env=(env ABLOOM_LIB_DIR="$PREFIX/lib" ABLOOM_STATIC=1)
"${static_env[@]}" cargo test --locked -q -p abloom-sys -p abloom --all-features \
  --test header --test vectors --test threads --test api --test files 2>&1 | grep -v '^$'
mapfile -t exes < <(test_exes "${static_env[@]}" cargo test --locked -q -p abloom --all-features --test vectors)
check_links static "${exes[@]}"

echo "rust ci: all passed in ${SECONDS}s"
