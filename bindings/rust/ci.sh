#!/usr/bin/env bash
# CI for the Rust binding (abloom-sys + abloom), against an installed abloom C library:
#
#   bash bindings/rust/ci.sh PREFIX        # PREFIX: absolute path of a `cmake --install` of abloom
#
# Runs: cargo fmt --check; cargo clippy (all targets and features, -D warnings); cargo test (all
# features: unit, integration incl. the header check, golden vectors, files exchanged with a C
# program, threads; and doctests); a build without features; rustdoc with -D warnings; the
# benchmark compiled and run once on a tiny size (smoke only); and a static-link build
# (ABLOOM_LIB_DIR + ABLOOM_STATIC=1) whose test binaries must not need libabloom.so.
# Crates come from crates.io at the versions of Cargo.lock (--locked); build output goes to
# bindings/rust/target (ignored).
set -euo pipefail

PREFIX=${1:?usage: bash bindings/rust/ci.sh PREFIX (an install of the abloom C library)}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() {
  echo "rust ci: $*" >&2
  exit 1
}
step() { echo "== rust: $*"; }

[ -d "$PREFIX" ] || die "PREFIX $PREFIX is not a directory"
PREFIX=$(cd "$PREFIX" && pwd)
[ -f "$PREFIX/lib/pkgconfig/abloom.pc" ] || die "$PREFIX/lib/pkgconfig/abloom.pc not found: is $PREFIX an abloom install?"
[ -f "$PREFIX/include/abloom.h" ] || die "$PREFIX/include/abloom.h not found"
for tool in cargo rustc cc pkg-config; do
  command -v "$tool" >/dev/null || die "'$tool' not found on PATH (needs a Rust toolchain: cargo, rustc; a C compiler; pkg-config)"
done
cargo fmt --version >/dev/null 2>&1 || die "rustfmt missing (rustup component add rustfmt)"
cargo clippy --version >/dev/null 2>&1 || die "clippy missing (rustup component add clippy)"
echo "rust ci: $(rustc --version), $(cargo --version), PREFIX=$PREFIX"

cd "$HERE"
export CARGO_TARGET_DIR="$HERE/target"
export CARGO_TERM_COLOR=never
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset ABLOOM_LIB_DIR ABLOOM_INCLUDE_DIR ABLOOM_STATIC RUSTFLAGS

step "fmt"
cargo fmt --all --check

step "fetch (crates.io, Cargo.lock)"
cargo fetch --locked -q

step "clippy -D warnings"
cargo clippy --locked -q --all-targets --all-features -- -D warnings

step "test --all-features (library found by pkg-config)"
cargo test --locked -q --all-features 2>&1 | grep -v '^$'

step "build without features"
cargo check --locked -q -p abloom --no-default-features

step "rustdoc -D warnings"
RUSTDOCFLAGS="-D warnings" cargo doc --locked -q --no-deps --all-features

step "bench: compile, and one tiny smoke run (not a measurement)"
cargo bench --locked -q --no-run
ABLOOM_BENCH_QUICK=1 ABLOOM_BENCH_SIZES=20000 cargo bench --locked -q -p abloom --bench vs_fastbloom >/dev/null

step "static link (ABLOOM_LIB_DIR=$PREFIX/lib ABLOOM_STATIC=1)"
static_env=(env -u LD_LIBRARY_PATH -u PKG_CONFIG_PATH ABLOOM_LIB_DIR="$PREFIX/lib" ABLOOM_STATIC=1)
"${static_env[@]}" cargo test --locked -q -p abloom-sys -p abloom --all-features \
  --test header --test vectors --test threads --test api 2>&1 | grep -v '^$'
exes=$("${static_env[@]}" cargo test --locked -q -p abloom --all-features --test vectors --no-run \
  --message-format=json | grep -o '"executable":"[^"]*"' | cut -d'"' -f4)
[ -n "$exes" ] || die "static: no test executable found"
for exe in $exes; do
  if ldd "$exe" | grep libabloom >/dev/null; then
    die "static: $exe still needs libabloom.so"
  fi
done

echo "rust ci: all passed"
