#!/usr/bin/env bash
# Build (Release, build/release) and run the demo: scripts/demo.sh [DEMO ARGS...]
# Setup and build output go to stderr, so stdout is the demo's own.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_DIR=build/release

{
  bash scripts/setup.sh
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DABLOOM_BUILD_EXAMPLES=ON \
    -DABLOOM_BUILD_TESTS=OFF -DABLOOM_BUILD_BENCH=OFF -DABLOOM_SANITIZE=
  cmake --build "$BUILD_DIR" -j "${ABLOOM_JOBS:-2}" --target abloom_demo
} >&2

exec "$BUILD_DIR/examples/abloom_demo" "$@"
