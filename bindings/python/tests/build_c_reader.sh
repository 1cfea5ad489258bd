#!/usr/bin/env bash
# Builds tests/install/deb/file_reader.c (the C program that reads a filter file another binding
# wrote and checks its keys) against a static libabloom compiled from this checkout, and the
# abloom command (cli/, tests/test_cli_exchange.py) in the same tree:
#
#   bash bindings/python/tests/build_c_reader.sh BUILD_DIR
#     -> BUILD_DIR/file_reader (its path is the last line printed) and BUILD_DIR/cli/abloom
#
# BUILD_DIR is a CMake build tree of the repository, library only (reused when it exists, so the
# engine is compiled once). ABLOOM_JOBS (default 2) build jobs.
set -euo pipefail
dir=${1:?usage: build_c_reader.sh BUILD_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DABLOOM_BUILD_TESTS=OFF \
  -DABLOOM_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$dir" -j "${ABLOOM_JOBS:-2}" --target abloom_static abloom_cli >/dev/null
[[ -x "$dir/cli/abloom" ]] || { echo "build_c_reader.sh: no $dir/cli/abloom" >&2 && exit 1; }
cc -std=c99 -Wall -Wextra -Werror -DABLOOM_STATIC_DEFINE -I "$root/capi" \
  "$root/tests/install/deb/file_reader.c" "$dir/capi/libabloom.a" -lstdc++ -lm -lpthread \
  -o "$dir/file_reader"
echo "$dir/file_reader"
