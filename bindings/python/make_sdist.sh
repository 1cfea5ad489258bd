#!/usr/bin/env bash
# Builds the sdist of the Python package:
#
#   bash bindings/python/make_sdist.sh OUTDIR [PYTHON]     -> OUTDIR/abloom-VERSION.tar.gz
#
# An sdist holds nothing outside bindings/python, and the engine lives in ../../core, so the sdist
# is built from a staging copy: this folder's files (tracked, or untracked and not ignored) plus
# engine/, the engine copy that scripts/bundle-engine.sh --engine-to writes (the same copy the Go
# module and the Rust -sys crate carry, with xxHash's header). The copy is never committed; the
# package's CMakeLists.txt compiles engine/ when it is there, ../../core otherwise.
#
# PYTHON (default python3) needs the `build` package (the CI venv has it).
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
"$py" -m build --sdist --outdir "$out" "$pkg"
