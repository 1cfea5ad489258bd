#!/usr/bin/env bash
# JMH benchmark of io.abloom.BloomFilter against Guava's BloomFilter on the same keys.
#
#   bash bindings/java/bench/run-bench.sh [--quick] [PREFIX]
#
# Builds the benchmark jar if needed (PREFIX: the abloom install whose lib/libabloom.a is linked
# in; none: the engine is built from this repository's sources), then runs
# mightContain (single and 1024-key batches), put and putAll at 1M keys, and mightContain
# (single and batch) at 100M keys (skipped with --quick). Each run prints the JMH table and the
# ratios Guava/abloom of time per key, measured in the same run. Results go to
# bindings/java/bench-results/. Memory: the 100M case holds about 120 MB of native abloom bits,
# 120 MB of Guava bits on the heap and a 48 MB query pool (-Xmx4g is set for the fork).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
quick=0
prefix=""
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    *) prefix=$a ;;
  esac
done
cd "$here"
jar=bench/target/benchmarks.jar
if [[ ! -f $jar ]]; then
  mvn -B -q -ntp -Dabloom.prefix="$prefix" -DskipTests package
fi
out=bench-results
mkdir -p "$out"
stamp=$(date -u +%Y%m%dT%H%M%SZ)

ratios() { # JMH text output -> guava/abloom ratios per (benchmark, n)
  awk '
    $1 ~ /^AbloomVsGuava\./ {
      name = $1; sub(/^AbloomVsGuava\./, "", name)
      side = (name ~ /^abloom/) ? "abloom" : "guava"; op = name; sub(/^(abloom|guava)/, "", op)
      t[side, op, $2] = $5; seen[op, $2] = 1
    }
    END {
      for (k in seen) {
        split(k, p, SUBSEP)
        if (t["abloom", p[1], p[2]] > 0 && t["guava", p[1], p[2]] > 0)
          printf "ratio guava/abloom  %-20s n=%-10s %.2fx  (%.1f vs %.1f ns/key)\n", p[1], p[2],
                 t["guava", p[1], p[2]] / t["abloom", p[1], p[2]], t["guava", p[1], p[2]], t["abloom", p[1], p[2]]
      }
    }' "$1" | sort
}

run() { # LABEL JMH-ARGS...
  local label=$1
  shift
  local file="$out/$stamp-$label.txt"
  java -jar "$jar" "$@" 2>&1 | tee "$file" | grep -E "^(Benchmark|AbloomVsGuava)" || true
  ratios "$file" | tee -a "$file"
}

if [[ $quick == 1 ]]; then
  run quick-1M -p n=1000000 -f 1 -wi 2 -w 1s -i 3 -r 1s 'AbloomVsGuava\.(abloom|guava)MightContain'
else
  run 1M -p n=1000000 -f 1 -wi 3 -w 1s -i 5 -r 1s 'AbloomVsGuava\.'
  run 100M -p n=100000000 -f 1 -wi 2 -w 2s -i 3 -r 2s 'AbloomVsGuava\.(abloom|guava)(MightContain|Put)'
fi
