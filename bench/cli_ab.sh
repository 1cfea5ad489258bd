#!/usr/bin/env bash
# A/B wall times of two abloom builds on cli_bench.sh's inputs (run that first, with the same WORKDIR):
#   bench/cli_ab.sh OLD_ABLOOM NEW_ABLOOM WORKDIR [ROUNDS]
# Each op is timed ROUNDS times, old and new alternating; the minimum of each is kept (ms, 0.1 ms
# resolution from date +%s%N), so drift on a shared machine hits both alike.
OLD=$1 NEW=$2 W=$3 R=${4:-9}
cd "$W"
N=$(wc -l <keys.txt)
t() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(((e - s) / 100000)); }
declare -A best
for ((r = 0; r < R; r++)); do
  for which in old new; do
    A=$OLD; [[ $which == new ]] && A=$NEW
    for op in build buildc query dedupe; do
      case $op in
        build) v=$(t "$A" build -q -o f.$which.abloom keys.txt) ;;
        buildc) v=$(t "$A" build -q -o f.$which.abloom --capacity "$N" keys.txt) ;;
        query) v=$(t "$A" query --count f.$which.abloom keys.txt) ;;
        dedupe) v=$(t "$A" dedupe --capacity $((N / 2)) dup.txt) ;;
      esac
      k=$which.$op
      [[ -z ${best[$k]:-} || $v -lt ${best[$k]} ]] && best[$k]=$v
    done
  done
done
for op in build buildc query dedupe; do
  o=${best[old.$op]} n=${best[new.$op]}
  awk -v op="$op" -v o="$o" -v n="$n" 'BEGIN { printf "%-8s old %6.1f ms  new %6.1f ms  new/old %.3f\n", op, o/10, n/10, n/o }'
done
