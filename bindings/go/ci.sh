#!/usr/bin/env bash
# CI for the Go binding:  bash bindings/go/ci.sh PREFIX
#
# PREFIX is an absolute path where the C library is installed (include/abloom.h,
# lib/libabloom.so, lib/pkgconfig/abloom.pc). Runs, and fails on the first failure of:
#   gofmt (must list nothing), the SWIG freshness check (the committed generated layer equals
#   what abloom.i generates now), then the binding in both of its build modes:
#
#   bundled (the default: the engine compiled by cgo from internal/engine, nothing installed),
#     with PKG_CONFIG_PATH and LD_LIBRARY_PATH unset: go vet, go test, go test -race, a
#     one-iteration smoke run of every benchmark (1M keys), and a check that the test binary
#     does not load a libabloom;
#   system (-tags abloom_system: libabloom from PREFIX through pkg-config), with
#     PKG_CONFIG_PATH=PREFIX/lib/pkgconfig and CGO_LDFLAGS=-Wl,-rpath,PREFIX/lib as the README
#     tells users: go vet and go test (the same tests; the Go code is the same in both modes, so
#     -race and the benchmark smoke run once, in the bundled mode), and a check that the test
#     binary loads PREFIX's libabloom.so.0;
#
#   The package as a user gets it (package_check.sh --prefix=PREFIX: a consumer module outside
#   the repository, in both modes, and the module's own tests from a copy of its files) is
#   scripts/test-all.sh's stage packages, which collects the file it writes.
#
# The interop tests compile testdata/interop.c against PREFIX in both modes (ABLOOM_C_PREFIX, read
# by the test only), so files cross between the Go build and CMake's build of the library.
# Dependencies of the benchmark module come from the Go module proxy, pinned by the committed
# go.sum; the binding itself has none.
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
command -v "${CXX:-g++}" >/dev/null || die "C++ compiler ${CXX:-g++} not found (the bundled engine needs C++20)"
command -v readelf >/dev/null || die "readelf not found (binutils: checks which libraries a build loads)"
command -v swig >/dev/null || die "swig not found (needed for the freshness check of the generated layer; SWIG 4.1)"
[[ "$(go env CGO_ENABLED)" == 1 ]] || die "cgo is disabled (CGO_ENABLED=0)"

# ---- library (for the system mode and the C side of the interop tests) --------------------------
pcdir=
for d in "$prefix/lib/pkgconfig" "$prefix/lib64/pkgconfig"; do
  [[ -f "$d/abloom.pc" ]] && { pcdir=$d; break; }
done
[[ -n "$pcdir" ]] || die "no abloom.pc under $prefix/lib/pkgconfig or $prefix/lib64/pkgconfig"
libdir=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=libdir abloom) || die "pkg-config cannot read $pcdir/abloom.pc"
cversion=$(PKG_CONFIG_PATH=$pcdir pkg-config --modversion abloom)
echo "== go: $gov, $(${CXX:-g++} --version | head -1); C library $cversion from $prefix"
# The bundled mode must work without them: they are set only for the system mode below.
unset PKG_CONFIG_PATH LD_LIBRARY_PATH
export ABLOOM_C_PREFIX=$prefix
# The system mode's environment. CGO_LDFLAGS also keys Go's build cache on the prefix: the cache
# does not notice a change of PKG_CONFIG_PATH alone, and would reuse a package built against
# another install.
sysenv=(PKG_CONFIG_PATH="$pcdir" CGO_LDFLAGS="-Wl,-rpath,$libdir")

# needed BINARY: the shared libraries it needs (ELF NEEDED entries), one line.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '; }

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

# ---- bundled (default) mode ---------------------------------------------------------------------
step "bundled: go vet"
go vet ./...
(cd bench && go vet ./...)

step "bundled: go test (first build compiles the engine: about 30 s with an empty Go cache)"
go test -count=1 ./...

step "bundled: the test binary does not load a libabloom"
go test -c -o "$tmp/bundled.test" .
libs=$(needed "$tmp/bundled.test")
[[ "$libs" != *libabloom* ]] || die "the bundled build loads a libabloom: $libs"
echo "   needs: $libs"

step "bundled: go test -race"
go test -race -count=1 ./...

# ---- benchmarks: compile and run one iteration each ----------------------------------------------
step "bundled: benchmark smoke (1 iteration, 1M keys)"
go test -count=1 -run '^$' -bench . -benchtime=1x ./... >"$tmp/bench-binding.txt" ||
  { cat "$tmp/bench-binding.txt" >&2; die "binding benchmarks failed"; }
(cd bench && go test -count=1 -run '^$' -bench . -benchtime=1x . -args -sizes=1M) >"$tmp/bench-peers.txt" ||
  { cat "$tmp/bench-peers.txt" >&2; die "peer benchmarks failed"; }
echo "== go: $(grep -c '^Benchmark' "$tmp/bench-binding.txt" "$tmp/bench-peers.txt" | awk -F: '{s+=$2} END {print s}') benchmarks ran"

# ---- system mode: -tags abloom_system against PREFIX ---------------------------------------------
step "system: go vet -tags abloom_system (${sysenv[*]})"
env "${sysenv[@]}" go vet -tags abloom_system ./...
(cd bench && env "${sysenv[@]}" go vet -tags abloom_system ./...)

step "system: go test -tags abloom_system"
env "${sysenv[@]}" go test -tags abloom_system -count=1 ./...

step "system: the test binary loads PREFIX's libabloom.so.0"
env "${sysenv[@]}" go test -tags abloom_system -c -o "$tmp/system.test" .
libs=$(needed "$tmp/system.test")
[[ "$libs" == *libabloom.so.0* ]] || die "the abloom_system build does not load libabloom.so.0: $libs"
loaded=$(ldd "$tmp/system.test" | sed -n 's/.*libabloom\.so\.0 => \([^ ]*\).*/\1/p')
[[ "$loaded" == "$prefix"/* ]] || die "libabloom.so.0 resolves to '$loaded', not under $prefix"
echo "   libabloom.so.0 => $loaded"

echo "== go: ok"
