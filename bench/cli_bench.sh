#!/usr/bin/env bash
# The abloom command against the shell tools it replaces (issue 34's goals), on one machine, in one
# run: bench/cli_bench.sh ABLOOM [N] [WORKDIR]
#   build: `abloom build` of N 16-byte lines from a cached file, against `wc -l` of that file;
#   query: `abloom query --count` of the same N lines, against `wc -l`;
#   dedupe: N lines with 50% duplicates, against awk '!seen[$0]++' and sort -u (time and peak
#   memory from /usr/bin/time -v).
# Each abloom and wc timing is the best of 3 (awk and sort -u: one run, they are slow) (the file is read once first, so it is in the page cache).
set -euo pipefail
ABLOOM=$(realpath "$1")
N=${2:-10000000}
W=${3:-$(mktemp -d)}
mkdir -p "$W"
cd "$W"
[[ -s keys.txt ]] || awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "%016d\n", i * 7 }' >keys.txt
# Every key twice, in a shuffled-looking but fixed order: N lines, N/2 distinct.
[[ -s dup.txt ]] || awk -v n="$N" 'BEGIN { m = n / 2; for (i = 0; i < n; i++) printf "%016d\n", (i * 7919) % m }' >dup.txt
cat keys.txt dup.txt >/dev/null

# best RUNS CMD...: the best time of RUNS runs of CMD, and its peak memory: "seconds max_rss_kb"
best() {
  local runs=$1 b="" m="" out
  shift
  for ((r = 0; r < runs; r++)); do
    /usr/bin/time -o time.out -f '%e %M' "$@" >/dev/null 2>/dev/null || true
    out=$(tail -n1 time.out)
    if [[ -z "$b" ]] || awk -v a="${out% *}" -v b="$b" 'BEGIN { exit !(a < b) }'; then b=${out% *}; fi
    m=${out#* }
  done
  echo "$b $m"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

read -r wc_s _ <<<"$(best 3 wc -l keys.txt)"
read -r build_s build_kb <<<"$(best 3 "$ABLOOM" build -q -o f.abloom keys.txt)"
read -r buildc_s _ <<<"$(best 3 "$ABLOOM" build -q -o f.abloom --capacity "$N" keys.txt)"
read -r query_s _ <<<"$(best 3 "$ABLOOM" query --count f.abloom keys.txt)"
read -r dd_s dd_kb <<<"$(best 3 "$ABLOOM" dedupe --capacity $((N / 2)) dup.txt)"
read -r awk_s awk_kb <<<"$(best 1 awk '!seen[$0]++' dup.txt)"
read -r sort_s sort_kb <<<"$(best 1 sort -u dup.txt)"

echo "N=$N lines of 16 bytes ($(stat -c %s keys.txt) bytes); CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
echo "wc -l                          ${wc_s}s"
echo "abloom build (counts first)    ${build_s}s  $(ratio "$build_s" "$wc_s")x wc -l  (${build_kb} KB peak)"
echo "abloom build --capacity        ${buildc_s}s  $(ratio "$buildc_s" "$wc_s")x wc -l"
echo "abloom query --count           ${query_s}s  $(ratio "$query_s" "$wc_s")x wc -l"
echo "abloom dedupe (50% dups)       ${dd_s}s  ${dd_kb} KB peak"
echo "awk '!seen[\$0]++'              ${awk_s}s  ${awk_kb} KB peak  abloom $(ratio "$awk_s" "$dd_s")x faster, $(ratio "$awk_kb" "$dd_kb")x less memory"
echo "sort -u                        ${sort_s}s  ${sort_kb} KB peak  abloom $(ratio "$sort_s" "$dd_s")x faster, $(ratio "$sort_kb" "$dd_kb")x less memory"
