#!/usr/bin/env bash
# The abloom command's bulk threads against `wc -l` (issue 34's goals), for a machine with idle
# cores (bench/cli_bench.sh is the one-thread comparison with awk and sort -u):
#
#   bash bench/cli_threads_bench.sh ABLOOM [N] [WORKDIR] [THREADS]
#
# N 16-byte lines (default 10000000, written as cli_bench.sh writes them) from a cached file, and
# for each thread count in THREADS (default 1,2,4,8,16): `build` (counts first), `build
# --capacity`, `add` into a fresh empty filter (the copy is not timed) and `query --count`. Every
# time is the best of CLI_RUNS runs (default 5), each run of a row one after the other, with `wc -l`
# of the same file in the same rounds.
# Needs only bash, awk and coreutils (no /usr/bin/time). Prints one table row per thread count.
set -euo pipefail
ABLOOM=$(realpath "$1")
N=${2:-10000000}
W=${3:-$(mktemp -d)}
THREADS=${4:-1,2,4,8,16}
RUNS=${CLI_RUNS:-5}
mkdir -p "$W"
cd "$W"
[[ -s keys.txt ]] || awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "%016d\n", i * 7 }' >keys.txt
cat keys.txt >/dev/null
"$ABLOOM" build -q -o empty.abloom --capacity "$N" /dev/null
"$ABLOOM" build -q -o f.abloom keys.txt

now() { date +%s%N; }
# time_of CMD...: seconds CMD took (its output discarded; a failure stops the script).
time_of() {
  local t0 t1
  t0=$(now)
  "$@" >/dev/null
  t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }'
}
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }

echo "N=$N lines of 16 bytes ($(stat -c %s keys.txt) bytes); CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs; best of $RUNS"
echo "| threads | wc -l | build | build --capacity | add | query --count |"
echo "|---|---|---|---|---|---|"
IFS=, read -r -a counts <<<"$THREADS"
for t in "${counts[@]}"; do
  wc_s="" b_s="" bc_s="" a_s="" q_s=""
  for ((r = 0; r < RUNS; r++)); do
    wc_s=$(min "$(time_of wc -l keys.txt)" "$wc_s")
    b_s=$(min "$(time_of "$ABLOOM" build -q --threads "$t" -o b.abloom keys.txt)" "$b_s")
    bc_s=$(min "$(time_of "$ABLOOM" build -q --threads "$t" --capacity "$N" -o b.abloom keys.txt)" "$bc_s")
    cp empty.abloom a.abloom
    a_s=$(min "$(time_of "$ABLOOM" add -q --threads "$t" a.abloom keys.txt)" "$a_s")
    q_s=$(min "$(time_of "$ABLOOM" query --count --threads "$t" f.abloom keys.txt)" "$q_s")
  done
  cmp -s a.abloom f.abloom || { echo "add with $t threads wrote a different filter" >&2; exit 1; }
  echo "| $t | ${wc_s} s | ${b_s} s, $(ratio "$b_s" "$wc_s")x | ${bc_s} s, $(ratio "$bc_s" "$wc_s")x | ${a_s} s, $(ratio "$a_s" "$wc_s")x | ${q_s} s, $(ratio "$q_s" "$wc_s")x |"
done
rm -f b.abloom a.abloom
