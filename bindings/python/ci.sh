#!/usr/bin/env bash
# CI for the Python binding (scripts/test-all.sh, stage `python`):
#
#   bash bindings/python/ci.sh [BUILD_DIR]    BUILD_DIR (default build/python-ci): the C reader's
#                                             CMake tree, kept between runs
#
#  1. a fresh virtual environment; `pip install ./bindings/python[test,lint]` compiles the
#     extension and the engine from this checkout (scikit-build-core, CMake, nanobind), with no
#     installed libabloom and no environment variable; the extension's compile must print no
#     warning;
#  2. clang-format over the extension's C++; ruff (lint and format) and mypy --strict over the
#     package, its stubs, the tests and the benchmark; stubtest (the stubs against the installed
#     extension, with stubtest-allowlist.txt for what nanobind does differently);
#  3. the C reader (tests/install/deb/file_reader.c against a static libabloom of this checkout),
#     for the test that a C program reads a file Python wrote;
#  4. pytest.
#
# The sdist is checked elsewhere, once each way a user meets it: stage `packages` pip-installs it
# into a bare venv from outside the repository and runs a consumer (package_check.sh); stage
# `release` builds the wheels from the sdist's own tree and runs this suite against them on
# CPython 3.11, 3.12 and 3.13 (scripts/release/check-python.sh). Building and testing it here
# too cost a third compile of the engine for nothing new.
#
# Tools come from PyPI at the versions pinned in pyproject.toml. ABLOOM_JOBS (default 2) bounds
# the compile jobs. Nothing is left behind but BUILD_DIR and bindings/python/build (ignored).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/python-ci}
mkdir -p "$build"
build=$(cd "$build" && pwd)
export CMAKE_BUILD_PARALLEL_LEVEL=${ABLOOM_JOBS:-2}
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1 NO_COLOR=1
unset PYTHONPATH ABLOOM_C_FILE_READER

step() { echo "== python: $* (at ${SECONDS}s)"; }
die() {
  echo "python ci: $*" >&2
  exit 1
}
for tool in python3 cmake ninja cc c++ clang-format; do
  command -v "$tool" >/dev/null || die "'$tool' not found on PATH (scripts/setup.sh installs it)"
done
python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' || die "python3 must be >= 3.9"
echo "python ci: $(python3 --version), $(cmake --version | head -1), $(c++ --version | head -1)"

work=$(mktemp -d "${TMPDIR:-/tmp}/abloom-python-ci.XXXXXX")
trap 'rm -rf "$work"' EXIT

step "venv + pip install ./bindings/python[test,lint] (compiles the engine and the extension)"
python3 -m venv "$work/venv"
venv=$work/venv/bin
"$venv/pip" install -v "$here[test,lint]" >"$work/install.log" 2>&1 ||
  { tail -50 "$work/install.log" && die "pip install failed"; }
if grep -E "warning:" "$work/install.log"; then die "the build printed compiler warnings (above)"; fi
grep -E "abloom: engine from" "$work/install.log"

step "clang-format (the repository's .clang-format), ruff, mypy --strict, stubtest"
cd "$here"
clang-format --dry-run --Werror src/ext/*.cpp src/ext/*.hpp
"$venv/ruff" check --output-format concise src tests bench
"$venv/ruff" format --check src tests bench
"$venv/mypy"
# The stubs against the installed extension (run outside the checkout, so that `pyabloom` is the
# installed package): every public name on both sides.
(cd "$work" && "$venv/python" -m mypy.stubtest pyabloom --allowlist "$here/stubtest-allowlist.txt")

step "the C file reader (tests/install/deb/file_reader.c, static libabloom)"
ABLOOM_C_FILE_READER=$(bash "$here/tests/build_c_reader.sh" "$build/c-reader")
export ABLOOM_C_FILE_READER

step "pytest (installed from the checkout)"
cd "$work"
"$venv/python" -c 'import pyabloom, sys; assert pyabloom.__file__.startswith(sys.prefix), pyabloom.__file__'
"$venv/python" -m pytest -q -p no:cacheprovider "$here/tests"

step "done"
