#!/usr/bin/env bash
# The checks that need hardware the CI machine lacks, as one bounded script for a session that is
# lent a bigger machine (16 cores, likely with AVX-512; see the device notes in the guide):
#   1. cpu     what the CPU is, and which kernel abloom picks on it;
#   2. tests   the kernel tests natively: every kernel the CPU has (AVX-512 included, where the CI
#              machine only runs it emulated) against the scalar reference, and the C API's
#              byte-identical files under each kernel;
#   3. isa     the blocked kind's ops under each kernel, same run (abloom_bench isa/ section), at
#              1M and 100M keys, 10 and 16 bits/key (k = 7 and 11: one and two AVX2 groups);
#   4. threads concurrent abloom_add from 1 to 16 threads on one filter (mt_add: mutex, atomic,
#              sharded);
#   5. variants the AVX-512 kernel with each repeat check (ABLOOM_ISA=avx512-conflict and
#              avx512-packed): which one the vendor rule in core/kernels/kernel_dispatch.cpp
#              should pick on this CPU (issue 12 chose packed for Intel without an Intel machine
#              to measure);
#   6. layouts the blocked kind's grid in each in-block layout (abloom_bench --layout=distinct and
#              --layout=split), against the same run's limits: whether split can be the default;
#   7. limits  bench/studies/single_key_limits (what bounds a single-key call out of cache).
# Each step has its own time limit; a step that fails or runs out is reported and the rest still
# run. Total: about 9 minutes on 16 cores (build included).
#
# Usage: bench/device_check.sh [BUILD_DIR] [OUT_DIR]
#   BUILD_DIR (default build/device): configured (Release, tests and benchmarks) and built when it
#     has no abloom_bench yet; needs cmake, ninja, a C++20 compiler, GoogleTest, Google Benchmark,
#     xxHash and SIMDe (scripts/setup.sh installs them).
#   OUT_DIR (default $OUT when set, else build/device-out): logs, JSON, and summary.md.
# Environment: DEVICE_SIZES (default 1M,100M), DEVICE_THREADS (default 1,2,4,8,16).
set -uo pipefail

cd "$(dirname "$0")/.."
BUILD=${1:-build/device}
OUT_DIR=${2:-${OUT:-build/device-out}}
SIZES=${DEVICE_SIZES:-1M,100M}
THREADS=${DEVICE_THREADS:-1,2,4,8,16}
mkdir -p "$OUT_DIR"
SUMMARY="$OUT_DIR/summary.md"
: >"$SUMMARY"
failed=()

# shellcheck source=bench/check_steps.sh
source bench/check_steps.sh  # the repository root is the working directory (above)

summary_header "device check" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs;\
 AVX-512 F/CD flags: $(grep -m1 -o -w 'avx512f' /proc/cpuinfo || echo no)/$(grep -m1 -o -w 'avx512cd' /proc/cpuinfo || echo no)"
build_once 420

step cpu 30 bash -c "'$BUILD/tests/abloom_isa_env_check' best; ABLOOM_ISA=avx512 '$BUILD/tests/abloom_isa_env_check' avx512"
grep 'ABLOOM_ISA asks' "$OUT_DIR/cpu.log" | sed 's/^/    /' >>"$SUMMARY"

step tests 180 bash -c "'$BUILD/tests/abloom_core_tests' --gtest_filter='Isa*:IsaKernels*' && \
  '$BUILD/tests/abloom_capi_tests' --gtest_filter='CapiIsa*:Vectors*' && \
  ABLOOM_ISA=scalar '$BUILD/tests/abloom_capi_tests' --gtest_filter='Vectors*'"
grep -E 'SKIPPED|PASSED|FAILED' "$OUT_DIR/tests.log" | sort | uniq -c | sed 's/^/    /' >>"$SUMMARY"

step isa 420 "$BUILD/bench/abloom_bench" --sizes="$SIZES" --bpk=10,16 --no-keylen --no-mt \
  --benchmark_filter="^isa/" --benchmark_repetitions=3 \
  --benchmark_out="$OUT_DIR/isa.json" --benchmark_out_format=json

step threads 300 "$BUILD/bench/abloom_bench" --sizes=1M --bpk=10 --no-keylen --no-isa \
  --threads="$THREADS" --benchmark_filter='^mt_add/' --benchmark_repetitions=3 \
  --benchmark_out="$OUT_DIR/threads.json" --benchmark_out_format=json

for variant in conflict packed; do
  step "variants-$variant" 240 env ABLOOM_ISA="avx512-$variant" "$BUILD/bench/abloom_bench" \
    --sizes="$SIZES" --bpk=10,16 --grid-only --benchmark_repetitions=3 \
    --benchmark_filter='^grid/blocked/(test|test_present|test_packed|test_packed_present|add_packed|add_packed_x)/' \
    --benchmark_out="$OUT_DIR/variants-$variant.json" --benchmark_out_format=json
done

for layout in distinct split; do
  step "layout-$layout" 200 "$BUILD/bench/abloom_bench" --layout="$layout" --sizes="$SIZES" \
    --bpk=10 --grid-only --benchmark_repetitions=3 --benchmark_min_time=0.1 \
    --benchmark_filter='^grid/(blocked|limit)/' \
    --benchmark_out="$OUT_DIR/layout-$layout.json" --benchmark_out_format=json
done

step limits 120 "$BUILD/bench/studies/single_key_limits" --benchmark_repetitions=3 \
  --benchmark_min_time=0.1 --benchmark_out="$OUT_DIR/limits.json" --benchmark_out_format=json

for j in isa threads variants-conflict variants-packed layout-distinct layout-split; do
  if [[ -s "$OUT_DIR/$j.json" ]]; then
    { echo; python3 bench/summarize.py "$OUT_DIR/$j.json"; } >>"$SUMMARY" 2>&1
  fi
done

echo
cat "$SUMMARY"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "device_check: failed or timed out: ${failed[*]}"
  exit 1
fi
echo "device_check: all steps passed"
