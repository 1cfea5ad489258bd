#!/usr/bin/env bash
# Instructions and mispredicted branches per key, abloom against Boost.Bloom (issue 53), under
# cachegrind: for each filter and operation, boost_bloom_peer --count=IMPL/OP/N (the filters of a
# 1M-key set built as the benchmarks build them, then OP once over N keys) and the same with N = 0;
# the difference over N is one key's cost, the calling loop included. valgrind runs no AVX-512:
# abloom runs its AVX2 kernel here (Boost has AVX2 code only).
#
# usage: bench/boost_bloom_insn.sh BUILD/bench/boost_bloom_peer [OUTDIR] [N]
#   OUTDIR (default /tmp/boost_bloom_insn) keeps each run's cachegrind.out.IMPL.OP.{0,N}, for
#   bench/cg_perkey.py's breakdowns by function, line or step. N defaults to 524288.
# Prints a markdown table: Ir (instructions), Bc (conditional branches) and mispredicted branches
# (conditional and indirect) per key. About 10 minutes on a 2-vCPU VM.
set -euo pipefail
bin=${1:?usage: boost_bloom_insn.sh PATH/TO/boost_bloom_peer [OUTDIR] [N]}
out=${2:-/tmp/boost_bloom_insn}
n=${3:-524288}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
# IMPLS (environment) narrows the filters, e.g. IMPLS=abloom after a change to abloom alone.
read -r -a impls <<<"${IMPLS:-abloom abloom_half fmb32_s1 fmb32x8_s0 fmb64_s0}"
ops=(test_bulk_present test_bulk_absent add_bulk add_bulk_counted add_bulk_lockfree test_single_present
  test_single_absent)
echo "| op | filter | Ir/key | Bc/key | mispredicts/key |"
echo "|---|---|---|---|---|"
for op in "${ops[@]}"; do
  for impl in "${impls[@]}"; do
    [[ $op == add_bulk_lockfree || $op == add_bulk_counted ]] && [[ $impl != abloom ]] && continue
    for count in 0 "$n"; do
      valgrind --tool=cachegrind --branch-sim=yes --cache-sim=no \
        --cachegrind-out-file="$out/cachegrind.out.$impl.$op.$count" \
        "$bin" --sizes=1M --count="$impl/$op/$count" >"$out/stdout.$impl.$op.$count" 2>&1
    done
    python3 "$here/cg_perkey.py" "$out/cachegrind.out.$impl.$op.0" \
      "$out/cachegrind.out.$impl.$op.$n" "$n" |
      awk -v op="$op" -v impl="$impl" '{ printf "| %s | %s | %s | %s | %s |\n", op, impl, $2, $4, $6 }'
  done
done
