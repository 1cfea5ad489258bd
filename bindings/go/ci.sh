#!/usr/bin/env bash
# CI for the Go binding:  bash bindings/go/ci.sh PREFIX
#
# PREFIX is an absolute path where the C library is installed (include/abloom.h,
# lib/libabloom.so, lib/pkgconfig/abloom.pc). Runs, and fails on the first failure of:
#   gofmt (must list nothing), the SWIG freshness check (the committed generated layer equals
#   what abloom.i generates now), go vet, go test, go test -race, and a one-iteration smoke run
#   of every benchmark (1M keys). Dependencies of the benchmark module come from the Go module
#   proxy, pinned by the committed go.sum; the binding itself has none.
set -euo pipefail

die() { echo "bindings/go/ci.sh: $*" >&2; exit 1; }
step() { echo "== go: $*"; }

[[ $# -eq 1 ]] || die "usage: bash bindings/go/ci.sh PREFIX"
prefix=$1
[[ "$prefix" = /* ]] || die "PREFIX must be absolute: $prefix"
[[ -f "$prefix/include/abloom.h" ]] || die "no abloom install at $prefix (include/abloom.h missing)"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# ---- toolchain --------------------------------------------------------------------------------
command -v go >/dev/null || die "go not found (need Go 1.24 or newer)"
gov=$(go env GOVERSION)                     # e.g. go1.26.8
minor=$(echo "$gov" | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
[[ -n "$minor" && "$minor" -ge 24 ]] || die "Go $gov is too old (need 1.24+: #cgo noescape/nocallback, runtime.AddCleanup)"
command -v pkg-config >/dev/null || die "pkg-config not found"
command -v "${CC:-cc}" >/dev/null || die "C compiler ${CC:-cc} not found (cgo and the interop test need it)"
command -v swig >/dev/null || die "swig not found (needed for the freshness check of the generated layer; SWIG 4.1)"
[[ "$(go env CGO_ENABLED)" == 1 ]] || die "cgo is disabled (CGO_ENABLED=0)"

# ---- library ----------------------------------------------------------------------------------
for d in "$prefix/lib/pkgconfig" "$prefix/lib64/pkgconfig"; do
  [[ -d "$d" ]] && export PKG_CONFIG_PATH="$d${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
done
pkg-config --exists abloom || die "pkg-config cannot find abloom under $prefix"
libdir=$(pkg-config --variable=libdir abloom)
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "== go: $gov, abloom $(pkg-config --modversion abloom) from $prefix"

cd "$here"

# ---- format and generated code ----------------------------------------------------------------
step "gofmt"
unformatted=$(gofmt -l .)
[[ -z "$unformatted" ]] || die "gofmt -l lists files:"$'\n'"$unformatted"

step "SWIG layer is fresh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash internal/capi/generate.sh "$tmp"
for f in capi.go abloom_wrap.c; do
  if ! diff -u "internal/capi/$f" "$tmp/$f" >"$tmp/$f.diff"; then
    head -40 "$tmp/$f.diff" >&2
    die "internal/capi/$f is stale: run bash bindings/go/internal/capi/generate.sh and commit"
  fi
done

# ---- vet, tests -------------------------------------------------------------------------------
step "go vet"
go vet ./...
(cd bench && go vet ./...)

step "go test"
go test -count=1 ./...

step "go test -race"
go test -race -count=1 ./...

# ---- benchmarks: compile and run one iteration each ----------------------------------------------
step "benchmark smoke (1 iteration, 1M keys)"
go test -count=1 -run '^$' -bench . -benchtime=1x ./... >"$tmp/bench-binding.txt" ||
  { cat "$tmp/bench-binding.txt" >&2; die "binding benchmarks failed"; }
(cd bench && go test -count=1 -run '^$' -bench . -benchtime=1x . -args -sizes=1M) >"$tmp/bench-peers.txt" ||
  { cat "$tmp/bench-peers.txt" >&2; die "peer benchmarks failed"; }
echo "== go: $(grep -c '^Benchmark' "$tmp/bench-binding.txt" "$tmp/bench-peers.txt" | awk -F: '{s+=$2} END {print s}') benchmarks ran"
echo "== go: ok"
