#!/usr/bin/env bash
# Issue 51's dedupe goal: `abloom dedupe` of 10M lines without --capacity (a growing filter)
# against the same with --capacity 10000000, and `sort -u`'s time and memory (bench/RESULTS.md).
# 10M lines "user-NNNNNNNNN": line i holds key i, but every fifth line a random key below 8M
# (8.35M distinct in all); fixed seed. Three runs each; /usr/bin/time's wall seconds and peak RSS.
#
#   bash bench/dedupe_growth.sh build/rel/cli/abloom [WORKDIR]
set -euo pipefail
ab=${1:?usage: dedupe_growth.sh ABLOOM [WORKDIR]}
work=${2:-$(mktemp -d)}
data=$work/dedupe-10M.txt
[[ -s $data ]] || python3 -c '
import random, sys
random.seed(51)
with open(sys.argv[1], "w") as f:
    for i in range(10_000_000):
        f.write("user-%09d\n" % (random.randrange(8_000_000) if i % 5 == 0 else i))
' "$data"
run() { # LABEL CMD...
  local label=$1
  shift
  for _ in 1 2 3; do
    /usr/bin/time -f "$label %e s %M KiB" "$@" <"$data" >"$work/out-$label.txt" 2>>"$work/times.txt"
  done
  echo "$label: $(wc -l <"$work/out-$label.txt") lines printed"
}
: >"$work/times.txt"
run fixed "$ab" dedupe -q --capacity 10000000
run growing "$ab" dedupe -q
run sort sort -u
cat "$work/times.txt"
