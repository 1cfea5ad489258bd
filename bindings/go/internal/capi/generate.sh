#!/usr/bin/env bash
# Regenerate the SWIG layer (capi.go, abloom_wrap.c) from abloom.i and capi/abloom.h.
#
#   bash bindings/go/internal/capi/generate.sh          # rewrite the committed files in place
#   bash bindings/go/internal/capi/generate.sh OUTDIR   # write them to OUTDIR (ci.sh's freshness check)
#
# Needs SWIG 4.1 (the version the committed files were made with; other versions emit different
# text) and gofmt. Users of the Go package need neither: the generated files are committed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../../.." && pwd)
out=${1:-$here}
want=4.1
command -v swig >/dev/null || { echo "generate.sh: swig not found (need SWIG $want)" >&2; exit 2; }
have=$(swig -version | sed -n 's/^SWIG Version \([0-9]*\.[0-9]*\).*/\1/p')
if [[ "$have" != "$want" ]]; then
  echo "generate.sh: SWIG $have found, the committed files come from SWIG $want" >&2
  exit 2
fi
mkdir -p "$out"
# Run from this directory with a relative input name: SWIG derives the wrapper symbol suffix
# from it, so the output is byte-identical wherever the repository lives.
cd "$here"
swig -go -cgo -intgosize 64 -DSWIGWORDSIZE64 -I"$repo/capi" -o "$out/abloom_wrap.c" -outdir "$out" abloom.i
gofmt -w "$out/capi.go"
