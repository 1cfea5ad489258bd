#!/usr/bin/env bash
# Runs a cargo command that packages the crates (`cargo package`, `cargo publish`) with the files a
# packaged crate needs and the repository commits only once, so that the .crate files are
# self-contained (as zstd-sys carries zstd):
#
#   abloom-sys/bundled/          the engine at its repository paths: core/ (every .cpp and .hpp,
#                                in their rooms), capi/abloom_capi.cpp, capi/abloom.h,
#                                capi/abloom_layout.h; and xxHash's xxhash.h (pinned 0.8.1) and
#                                its license (scripts/bundle-engine.sh --engine-to); build.rs
#                                compiles it when the crate is not in a checkout
#   abloom/tests/data/vectors/   the golden vectors of tests/vectors/, byte for byte
#                                (scripts/bundle-engine.sh --vectors-to), for tests/vectors.rs
#
# Both folders are git-ignored, listed in the crates' `include`, made before the cargo command and
# removed after it. In a checkout nothing reads them: build.rs compiles ../../../core and
# ../../../capi, and tests/vectors.rs reads ../../../tests/vectors.
#
# Usage: bash bindings/rust/package.sh CARGO-ARGS...
#   e.g. bash bindings/rust/package.sh package --workspace
#        bash bindings/rust/package.sh publish -p abloom-sys
# The cargo command runs in bindings/rust.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
[[ $# -gt 0 ]] || {
  echo "usage: bash bindings/rust/package.sh CARGO-ARGS... (e.g. package --workspace)" >&2
  exit 2
}
made=("$HERE/abloom-sys/bundled" "$HERE/abloom/tests/data")
cleanup() { rm -rf "${made[@]}"; }
trap cleanup EXIT
cleanup
bash "$ROOT/scripts/bundle-engine.sh" --engine-to "$HERE/abloom-sys/bundled" >/dev/null
bash "$ROOT/scripts/bundle-engine.sh" --vectors-to "$HERE/abloom/tests/data/vectors" >/dev/null
cd "$HERE"
cargo "$@"
