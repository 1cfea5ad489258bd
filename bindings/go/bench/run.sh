#!/usr/bin/env bash
# Run the Go binding's benchmarks against the native Go filters and print, per benchmark,
# the median ns/key of each filter and its ratio to abloom's (peer / abloom: above 1 means
# abloom is faster).
#
#   bash bindings/go/bench/run.sh PREFIX                 # quick: 1M keys, 3 runs
#   bash bindings/go/bench/run.sh PREFIX --full          # 1M and 100M keys, 3 runs
#   RUNS=5 BENCH='Test$|TestBatch' bash bindings/go/bench/run.sh PREFIX
#   GOFLAGS=-tags=abloom_system bash bindings/go/bench/run.sh PREFIX   # against PREFIX's library
#
# The binding is built in its default mode, the engine compiled from internal/engine (PREFIX is
# then not used); with the build tag abloom_system it links PREFIX's libabloom.so instead (found
# with PKG_CONFIG_PATH, loaded through an rpath: both set here from PREFIX).
#
# Raw `go test -bench` output goes to bindings/go/bench/out-<sizes>.txt (ignored by git).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=${1:?usage: run.sh PREFIX [--full]}
sizes=1M
[[ "${2:-}" == "--full" ]] && sizes=1M,100M
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export CGO_LDFLAGS="-Wl,-rpath,$prefix/lib${CGO_LDFLAGS:+ $CGO_LDFLAGS}" # also keys Go's build cache on PREFIX
cd "$here"
out="$here/out-${sizes//,/_}.txt"
go test -c -o "$here/bench.test" . >/dev/null
: >"$out"
# Whole-suite runs one after another, so that a noisy moment hits every filter alike.
for ((r = 1; r <= ${RUNS:-3}; r++)); do
  "$here/bench.test" -test.run '^$' -test.bench "${BENCH:-.}" -test.benchtime "${BENCHTIME:-1s}" \
    -sizes="$sizes" | tee -a "$out" | grep -E '^Benchmark' >&2
done
rm -f "$here/bench.test"
echo
echo "median ns/key (ratio = peer / abloom) from $out"
awk '
  /^Benchmark/ {
    name = $1; sub(/-[0-9]+$/, "", name)
    n = split(name, parts, "/"); impl = parts[n]
    group = substr(name, 1, length(name) - length(impl) - 1)
    key = group SUBSEP impl
    vals[key] = vals[key] " " $3
    if (!(group in seen)) { seen[group] = 1; order[++ng] = group }
    if (!((group, impl) in have)) { have[group, impl] = 1; impls[group] = impls[group] " " impl }
  }
  function median(s,   a, n, i, j, t) {
    n = split(s, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    for (g = 1; g <= ng; g++) {
      group = order[g]
      base = median(vals[group, "abloom"])
      line = sprintf("%-45s abloom %8.1f", group, base)
      m = split(impls[group], list, " ")
      for (i = 1; i <= m; i++) {
        if (list[i] == "abloom") continue
        v = median(vals[group, list[i]])
        line = line sprintf("   %s %8.1f (x%.2f)", list[i], v, v / base)
      }
      print line
    }
  }' "$out"
