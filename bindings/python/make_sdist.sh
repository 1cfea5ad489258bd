#!/usr/bin/env bash
# Builds the sdist of the Python package:
#
#   bash bindings/python/make_sdist.sh OUTDIR [PYTHON]     -> OUTDIR/pyabloom-VERSION.tar.gz
#
# An sdist holds nothing outside bindings/python, and the engine lives in ../../core, so the sdist
# is built from a staging copy: this folder's files (tracked, or untracked and not ignored) plus
# engine/, the engine copy that scripts/bundle-engine.sh --engine-to writes (the same copy the Rust
# -sys crate carries when packaged, with xxHash's header). The copy is never committed; the
# package's CMakeLists.txt compiles engine/ when it is there, ../../core otherwise.
#
# Needs nothing but a CPython >= 3.9 (PYTHON, default python3), and git. When PYTHON cannot import
# PyPI's `build`, the script makes a venv of its own with the release tools at their pins, `build`
# among them (scripts/lib/python-release.sh), in ${ABLOOM_BUILD_ROOT:-build}/sdist-venv of the checkout, and
# reuses it. `build` runs from the staging folder, never from the caller's: a `build/` folder in
# the current directory (the README's own `cmake -B build` makes one) would otherwise be imported
# in place of the package ("No module named build.__main__").
set -euo pipefail

out=${1:?usage: make_sdist.sh OUTDIR [PYTHON]}
py=${2:-python3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

stage=$(mktemp -d "${TMPDIR:-/tmp}/abloom-sdist.XXXXXX")
trap 'rm -rf "$stage"' EXIT
(cd "$root" && git ls-files --cached --others --exclude-standard -z -- bindings/python) |
  (cd "$root" && xargs -0 tar -cf - --) | tar -xf - -C "$stage"
pkg="$stage/bindings/python"
bash "$root/scripts/bundle-engine.sh" --engine-to "$pkg/engine" >/dev/null
cp "$root/LICENSE" "$pkg/LICENSE"
# Does PYTHON have `build`? Asked from the staging folder, like the build itself.
if ! (cd "$stage" && "$py" -c 'import build.__main__') >/dev/null 2>&1; then
  command -v "$py" >/dev/null || { echo "make_sdist.sh: '$py' not found" >&2; exit 1; }
  source "$root/scripts/lib/python-release.sh"
  build_root=${ABLOOM_BUILD_ROOT:-build}
  [[ "$build_root" = /* ]] || build_root=$root/$build_root
  ensure_python_tools "$build_root/sdist-venv" "$py" >&2
  py=$build_root/sdist-venv/bin/python
fi
(cd "$stage" && "$py" -m build --sdist --outdir "$out" "$pkg")
