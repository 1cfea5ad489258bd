#!/usr/bin/env bash
# Package check of the Go module, as a user gets it:
#
#   bash bindings/go/package_check.sh [--prefix=PREFIX] [EXCHANGE_DIR]
#
# Builds a consumer module in a new temporary directory outside the repository, with exactly the
# README's recipe for a local clone (bindings/go/README.md, "Install"):
#
#   go mod init example.com/consumer
#   go mod edit -require=github.com/abloom/abloom/bindings/go@v0.0.0 \
#               -replace=github.com/abloom/abloom/bindings/go=CLONE/bindings/go
#   go mod tidy && go build
#
# and runs the program. It creates a filter, adds and tests keys (one by one and in a batch; the
# false positives must be near the 1% asked for), opens tests/vectors/blocked_s1.abloom (written
# by the C library, copied into the temporary directory) and checks the filter it describes,
# that every key of blocked_s1.keys.txt answers present and that every key of
# blocked_s1.absent.txt answers as recorded there. Then it saves a filter of its own, go.abloom
# (blocked, 4 shards, 1000 keys), with its keys one per line, go.keys.txt, reopens the file and
# checks every key. With EXCHANGE_DIR those two files are copied there (scripts/test-all.sh,
# stage packages; stage debian: the C consumer of the Debian packages reads them).
#
# Then the module's own tests run from a copy of what its module zip holds (the files of
# bindings/go that git tracks or does not ignore, less the nested module bench/), in a temporary
# directory outside the repository, at bindings/go beside a copy of tests/vectors/ (the golden
# vectors, which the tests read from the checkout: Go never runs a module's tests from the module
# cache): `go test ./...` there proves that no test reads another file outside the module.
#
# Every go command and the program run with an environment stripped to what a user has:
# `env -i` with PATH and HOME (as they are here), plus, only when they are set here, GOCACHE,
# GOMODCACHE and GOPATH (where Go keeps its caches: they change no result, and sharing them saves
# recompiling the engine) and CC, CXX (the compilers, as for any cgo package); and GOPROXY=off:
# the build fetches nothing. The package's one Go dependency (github.com/zeebo/xxh3, the hash of
# its Go-native single-key path) is downloaded into the module cache first, from the proxy, as a
# user's `go mod tidy` would, and `go mod tidy` itself runs with Go's default proxy (it checks
# go.sum against the checksum database); everything else comes from the module itself. No
# PKG_CONFIG_PATH, LD_LIBRARY_PATH or CGO_* variable: the default build compiles the engine from
# the module's own sources, and the check fails if the program loads a libabloom.
#
# With --prefix=PREFIX (an install of the C library) it then builds and runs the same consumer
# with -tags abloom_system, adding only the two variables the README tells a user of that mode to
# set: PKG_CONFIG_PATH=PREFIX/lib/pkgconfig and CGO_LDFLAGS=-Wl,-rpath,PREFIX/lib. That program
# must load PREFIX's libabloom.so.0, and save the same go.abloom, byte for byte.
#
# Prints each step; exits non-zero on the first failure.
set -euo pipefail

die() { echo "package_check: FAIL: $*" >&2; exit 1; }
step() { echo "== package_check: $*"; }

usage="usage: bash bindings/go/package_check.sh [--prefix=PREFIX] [EXCHANGE_DIR]"
prefix=
exchange=
for arg in "$@"; do
  case "$arg" in
    --prefix=*) prefix=${arg#--prefix=} ;;
    -*) die "$usage" ;;
    *) [[ -z "$exchange" ]] || die "$usage"; exchange=$arg ;;
  esac
done
[[ -z "$prefix" || "$prefix" = /* ]] || die "PREFIX must be absolute: $prefix"
if [[ -n "$exchange" ]]; then
  [[ -d "$exchange" ]] || die "EXCHANGE_DIR $exchange is not a directory"
  exchange=$(cd "$exchange" && pwd)
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) # the module: CLONE/bindings/go
root=$(cd "$here/../.." && pwd)
module=github.com/abloom/abloom/bindings/go
vectors=$root/tests/vectors
for f in blocked_s1.abloom blocked_s1.keys.txt blocked_s1.absent.txt; do
  [[ -f "$vectors/$f" ]] || die "missing $vectors/$f"
done

command -v go >/dev/null || die "go not found on PATH"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/abloom-go-consumer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
case "$tmp/" in "$root"/*) die "temporary directory $tmp is inside the repository" ;; esac

# The user's environment: nothing inherited but what is listed above.
userenv=(PATH="$PATH" HOME="$HOME" GOPROXY=off)
for v in GOCACHE GOMODCACHE GOPATH CC CXX; do
  [[ -n "${!v:-}" ]] && userenv+=("$v=${!v}")
done
run() { env -i "${userenv[@]}" "$@"; }
echo "== package_check: environment: ${userenv[*]}"
step "consumer module in $tmp (replace $module => $here)"

mkdir -p "$tmp/consumer" "$tmp/data"
cp "$vectors"/blocked_s1.abloom "$vectors"/blocked_s1.keys.txt "$vectors"/blocked_s1.absent.txt "$tmp/data/"
cat >"$tmp/consumer/main.go" <<'EOF'
// A program that uses the abloom Go package as a user's would.
package main

import (
	"fmt"
	"os"
	"strings"

	abloom "github.com/abloom/abloom/bindings/go"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "consumer: FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func lines(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func main() {
	if len(os.Args) != 5 {
		fail("usage: consumer FILTER.abloom KEYS.txt ABSENT.txt OUTDIR")
	}
	fmt.Printf("consumer: abloom %s, kernel %s\n", abloom.Version(), abloom.ActiveISA())

	// A new filter: every key added answers present, and others rarely do.
	const n = 100_000
	f, err := abloom.New(2*n, 0.01)
	if err != nil {
		fail("New: %v", err)
	}
	defer f.Close()
	for i := 0; i < n; i++ {
		if err := f.AddString(fmt.Sprintf("key-%d", i)); err != nil {
			fail("AddString: %v", err)
		}
	}
	batch := make([]string, n)
	for i := range batch {
		batch[i] = fmt.Sprintf("batch-key-%d", i)
	}
	if _, err := f.AddBatchStrings(batch); err != nil {
		fail("AddBatchStrings: %v", err)
	}
	for i := 0; i < n; i++ {
		if !f.TestString(fmt.Sprintf("key-%d", i)) {
			fail("key-%d was added but answers absent", i)
		}
	}
	results := make([]bool, n)
	if found, err := f.TestBatchStrings(batch, results); err != nil || found != n {
		fail("TestBatchStrings: %d of %d found, %v", found, n, err)
	}
	fp := 0
	for i := 0; i < n; i++ {
		if f.TestString(fmt.Sprintf("other-%d", i)) {
			fp++
		}
	}
	if fp > n/50 { // target 1%: 2% is far beyond chance
		fail("%d false positives in %d keys never added", fp, n)
	}
	fmt.Printf("consumer: new filter: %d keys added one by one and %d in a batch all present; "+
		"%d false positives in %d others (target 1%%)\n", n, n, fp, n)

	// A file written by the C library.
	g, err := abloom.Open(os.Args[1], abloom.VerifyChecksum)
	if err != nil {
		fail("Open %s: %v", os.Args[1], err)
	}
	defer g.Close()
	info := g.Info()
	if info.Kind != abloom.Blocked || info.Shards != 1 || info.K != 7 || info.Capacity != 450 ||
		info.Seed != 0x0123456789ABCDEF {
		fail("%s: unexpected filter %+v", os.Args[1], info)
	}
	keys := lines(os.Args[2])
	for _, k := range keys {
		if !g.TestString(k) {
			fail("%s: key %q was added by C but answers absent", os.Args[1], k)
		}
	}
	absent, positives := lines(os.Args[3]), 0
	for _, l := range absent {
		want, key, ok := strings.Cut(l, " ")
		if !ok || (want != "0" && want != "1") {
			fail("%s: bad line %q", os.Args[3], l)
		}
		if got := g.TestString(key); got != (want == "1") {
			fail("%s: absent key %q answers %v, C recorded %s", os.Args[1], key, got, want)
		}
		if want == "1" {
			positives++
		}
	}
	fmt.Printf("consumer: %s (written by C, checksum verified): %d keys present, %d absent keys "+
		"answer as recorded (%d false positives)\n", os.Args[1], len(keys), len(absent), positives)

	// A filter of its own, for other languages to read: OUTDIR/go.abloom and its keys.
	out := os.Args[4]
	mine, err := abloom.New(2_000, 0.01, abloom.WithShards(4), abloom.WithSeed(0x474F474F))
	if err != nil {
		fail("New: %v", err)
	}
	var keyLines strings.Builder
	for i := 0; i < 1_000; i++ {
		key := fmt.Sprintf("go-key-%d", i)
		if err := mine.AddString(key); err != nil {
			fail("AddString: %v", err)
		}
		keyLines.WriteString(key + "\n")
	}
	if err := mine.Save(out + "/go.abloom"); err != nil {
		fail("Save: %v", err)
	}
	mine.Close()
	if err := os.WriteFile(out+"/go.keys.txt", []byte(keyLines.String()), 0o644); err != nil {
		fail("%v", err)
	}
	back, err := abloom.Open(out+"/go.abloom", abloom.VerifyChecksum)
	if err != nil {
		fail("Open go.abloom: %v", err)
	}
	defer back.Close()
	if bi := back.Info(); bi.Kind != abloom.Blocked || bi.Shards != 4 || bi.Capacity != 2_000 {
		fail("go.abloom: unexpected filter %+v", bi)
	}
	for i := 0; i < 1_000; i++ {
		if !back.TestString(fmt.Sprintf("go-key-%d", i)) {
			fail("go-key-%d missing from the saved go.abloom", i)
		}
	}
	fmt.Println("consumer: saved go.abloom (blocked, 4 shards, 1000 keys) and go.keys.txt, reopened: 1000 keys present")
	fmt.Println("consumer: ok")
}
EOF

# One build and run; $1 names it (bundled or system), the rest are extra environment assignments.
build_and_run() {
  local name=$1 bin=$tmp/consumer-$1 out=$tmp/out-$1 start
  shift
  local extra=("$@") tags=()
  [[ "$name" == system ]] && tags=(-tags abloom_system)
  mkdir -p "$out"
  step "$name: go build${tags[*]:+ ${tags[*]}}${extra[*]:+ (with ${extra[*]})}"
  start=$SECONDS
  (cd "$tmp/consumer" && run "${extra[@]}" go build "${tags[@]}" -o "$bin" .) ||
    die "$name: the consumer does not build"
  echo "   built in $((SECONDS - start)) s"
  step "$name: run"
  run "${extra[@]}" "$bin" "$tmp/data/blocked_s1.abloom" "$tmp/data/blocked_s1.keys.txt" \
    "$tmp/data/blocked_s1.absent.txt" "$out" || die "$name: the consumer failed"
  local needed
  needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  echo "   shared libraries needed: $needed"
  if [[ "$name" == bundled ]]; then
    [[ "$needed" != *libabloom* ]] || die "bundled: the program loads a libabloom: $needed"
  else
    [[ "$needed" == *libabloom.so.0* ]] || die "system: the program does not load libabloom.so.0: $needed"
    local loaded
    loaded=$(run "${extra[@]}" ldd "$bin" | sed -n 's/.*libabloom\.so\.0 => \([^ ]*\).*/\1/p')
    [[ "$loaded" == "$prefix"/* ]] || die "system: libabloom.so.0 resolves to '$loaded', not under $prefix"
    echo "   libabloom.so.0 => $loaded"
  fi
}

step "go mod download (the binding's dependencies, into the module cache)"
(cd "$here" && go mod download) || die "cannot download the binding's Go dependencies"

step "go mod init, go mod edit (require v0.0.0, replace), go mod tidy"
(
  cd "$tmp/consumer"
  run go mod init example.com/consumer 2>&1
  run go mod edit -require="$module@v0.0.0" -replace="$module=$here"
  # Go's default proxy for this one step, as a user's `go mod tidy` has it: tidy verifies the
  # new go.sum lines against the checksum database, which is reachable here only through the
  # proxy (with GOPROXY=off the go command asks sum.golang.org directly). The builds after it
  # fetch nothing.
  run env GOPROXY=https://proxy.golang.org,direct go mod tidy
) || die "the README's module recipe failed"
sed 's/^/   go.mod: /' "$tmp/consumer/go.mod"

build_and_run bundled

# The module's own tests, from the files its zip would hold: every file of the module directory
# that git tracks or does not ignore, except nested modules (a directory with its own go.mod, as
# bench/), which a module zip leaves out.
step "the module's own tests (go test ./...) from a copy of its files outside the repository"
copy=$tmp/module-copy/bindings/go
mkdir -p "$copy" "$tmp/module-copy/tests"
cp -r "$vectors" "$tmp/module-copy/tests/vectors"
nested=$(cd "$here" && find . -mindepth 2 -name go.mod -printf '%h/\n' | sed 's|^\./||')
n=0
while IFS= read -r f; do
  skip=0
  for d in $nested; do [[ "$f" == "$d"* ]] && skip=1; done
  [[ $skip == 1 || ! -f "$here/$f" ]] && continue
  mkdir -p "$copy/$(dirname "$f")"
  cp "$here/$f" "$copy/$f"
  n=$((n + 1))
done < <(git -C "$here" ls-files --cached --others --exclude-standard -- .)
[[ -f "$copy/go.mod" && -f "$copy/internal/engine/abloom_engine.hpp" ]] || die "the copy of the module lacks go.mod or internal/engine/abloom_engine.hpp"
echo "   $n files (nested modules left out: ${nested:-none})"
start=$SECONDS
(cd "$copy" && run go test -count=1 ./...) || die "the module's tests fail from a copy of the module"
echo "   passed in $((SECONDS - start)) s"

if [[ -n "$prefix" ]]; then
  lib=
  for d in lib lib64; do [[ -f "$prefix/$d/pkgconfig/abloom.pc" ]] && { lib=$prefix/$d; break; }; done
  [[ -n "$lib" ]] || die "no $prefix/lib/pkgconfig/abloom.pc (PREFIX must be an install of the C library)"
  build_and_run system PKG_CONFIG_PATH="$lib/pkgconfig" CGO_LDFLAGS="-Wl,-rpath,$lib"
  for f in go.abloom go.keys.txt; do
    cmp -s "$tmp/out-bundled/$f" "$tmp/out-system/$f" || die "the bundled and system builds saved different $f"
  done
  echo "   both builds saved the same go.abloom and go.keys.txt"
fi

if [[ -n "$exchange" ]]; then
  cp "$tmp/out-bundled/go.abloom" "$tmp/out-bundled/go.keys.txt" "$exchange/"
  step "go.abloom and go.keys.txt (from the bundled build) copied into $exchange"
fi
step "ok"
