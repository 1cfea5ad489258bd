#!/usr/bin/env bash
# Instructions per key of the blocked kind's NEON kernel against the scalar one, counted under
# qemu-aarch64 (no aarch64 machine needed). These are instruction counts, not timings: qemu's speed
# says nothing about a real core's, and a count weighs a table lookup over four registers (vqtbl4q,
# several micro-ops on most cores) the same as an add. bench/aarch64_check.sh times the kernels on
# real hardware.
#
# How: qemu-aarch64 -singlestep makes every guest instruction its own translation block and
# -d nochain,exec logs each block as it runs, so the log's "Trace" lines count executed
# instructions. bench/insn_count_driver.c does the same setup whatever n is (a filter, 2000 keys
# added through the bulk call) and then one operation on n keys (64-bit hashes: the XXH3 both
# kernels share is left out); count(2n) - count(n), divided by n, is one key's instructions,
# calling loop included (a few instructions: the single-key loop's load, call and sum, or the bulk
# loop's own bookkeeping), setup and process start subtracted.
#
# Usage: bench/aarch64_insn_count.sh [BUILD_DIR]
#   BUILD_DIR (default build/aarch64-insn): a cross build of the library (Release, no tests),
#   configured and built when it has no libabloom.a yet. Needs g++-aarch64-linux-gnu, qemu-user.
# Environment: INSN_N (default 500; at most 1000), INSN_FPRS (default "0.01 0.0001"), INSN_JOBS
# (default 2: rows measured at once; each logs about a million lines through grep).
# Prints a Markdown table (bench/JOURNAL.md, "NEON against scalar").
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${1:-build/aarch64-insn}
N=${INSN_N:-500}
JOBS=${INSN_JOBS:-2}
FPRS=${INSN_FPRS:-0.01 0.0001}
SYSROOT=/usr/aarch64-linux-gnu

if [[ ! -f "$BUILD/capi/libabloom.a" ]]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
    -DCMAKE_BUILD_TYPE=Release -DABLOOM_BUILD_TESTS=OFF -DABLOOM_BUILD_EXAMPLES=OFF >/dev/null
  cmake --build "$BUILD" -j2 --target abloom_static >/dev/null
fi
lib=$(find "$BUILD" -name libabloom.a | head -n 1)
driver="$BUILD/insn_count_driver"
# Static: no dynamic loader in the count (it would be subtracted anyway, but costs time).
aarch64-linux-gnu-gcc -O2 -static -Icapi bench/insn_count_driver.c "$lib" -lstdc++ -lm -lpthread \
  -o "$driver"

# count ARGS...: instructions the driver executes.
count() {
  qemu-aarch64 -L "$SYSROOT" -E LD_LIBRARY_PATH="$SYSROOT/lib" -singlestep -d nochain,exec -D /dev/stderr "$driver" "$@" \
    2>&1 >/dev/null | grep -c '^Trace'
}

per_key() {
  local a b
  a=$(count "$@" "$N")
  b=$(count "$@" $((2 * N)))
  awk -v a="$a" -v b="$b" -v n="$N" 'BEGIN { printf "%.1f", (b - a) / n }'
}

echo "qemu-aarch64 instructions per key (n = $N and $((2 * N)) keys; $(qemu-aarch64 --version | head -n 1))"
echo
# row LAYOUT FPR FORM OP: one table row.
row() {
  local s v
  s=$(per_key scalar "$1" "$2" "$4" "$3")
  v=$(per_key neon "$1" "$2" "$4" "$3")
  echo "| $1 | $2 | $3 | $4 | $s | $v | $(awk -v s="$s" -v v="$v" 'BEGIN { printf "%.2f", v / s }') |"
}
export -f row per_key count
export N driver SYSROOT

echo "| layout | fpr | call | op | scalar | neon | neon/scalar |"
echo "|---|---|---|---|---:|---:|---:|"
for layout in distinct split; do
  for fpr in $FPRS; do
    for form in single bulk; do
      for op in test_absent test_present add add_excl; do
        echo "$layout $fpr $form $op"
      done
    done
  done
done | xargs -P "$JOBS" -L 1 bash -c 'row "$@"' _ | sort -t'|' -k2,2 -k3,3 -k4,4r -k5,5
