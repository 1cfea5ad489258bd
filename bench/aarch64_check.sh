#!/usr/bin/env bash
# The NEON kernel's checks that need a real aarch64 machine (the CI machine only runs it under
# qemu, where speed means nothing), as one bounded script modelled on bench/device_check.sh:
#   1. cpu     what the CPU is, and which kernel abloom picks on it (neon on every aarch64 CPU);
#   2. tests   the kernel tests natively: NEON against the scalar reference (every layout, k,
#              writer, bulk and single calls, concurrent adds), and the C API's byte-identical
#              files under each kernel;
#   3. isa     the blocked kind's ops under scalar and NEON, same run (abloom_bench isa/ section,
#              which forces each kernel in turn), at 1M and 100M keys, 10 and 16 bits/key (k = 7
#              and 11: the 8- and 16-lane paths), for the default split layout and for distinct;
#   4. env     the whole grid's blocked ops once with ABLOOM_ISA=scalar and once with neon (the
#              environment variable's path, as a user would set it).
# Each step has its own time limit; a step that fails or runs out is reported and the rest still
# run. Only the targets it needs are built (the studies in bench/studies/ are not).
#
# Usage: bench/aarch64_check.sh [BUILD_DIR] [OUT_DIR]
#   BUILD_DIR (default build/aarch64-native): configured (Release, tests and benchmarks) and built
#     when it has no abloom_bench yet; needs cmake, ninja, a C++20 compiler, GoogleTest, Google
#     Benchmark, xxHash and SIMDe (scripts/setup.sh installs them).
#   OUT_DIR (default $OUT when set, else build/aarch64-out): logs, JSON, and summary.md.
# Environment: AARCH64_SIZES (default 1M,100M).
set -uo pipefail

cd "$(dirname "$0")/.."
BUILD=${1:-build/aarch64-native}
OUT_DIR=${2:-${OUT:-build/aarch64-out}}
SIZES=${AARCH64_SIZES:-1M,100M}
mkdir -p "$OUT_DIR"
SUMMARY="$OUT_DIR/summary.md"
: >"$SUMMARY"
failed=()

if [[ "$(uname -m)" != aarch64 && "$(uname -m)" != arm64 ]]; then
  echo "aarch64_check: this is $(uname -m), not aarch64 (under qemu, use bench/aarch64_insn_count.sh)" >&2
  exit 2
fi

# shellcheck source=bench/check_steps.sh
source bench/check_steps.sh  # the repository root is the working directory (above)

summary_header "aarch64 check" "$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) CPUs;\
 features: $(grep -m1 '^Features' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
build_once 600 abloom_bench abloom_core_tests abloom_capi_tests abloom_isa_env_check

step cpu 30 bash -c "'$BUILD/tests/abloom_isa_env_check' best && ABLOOM_ISA=neon '$BUILD/tests/abloom_isa_env_check' neon && ABLOOM_ISA=scalar '$BUILD/tests/abloom_isa_env_check' scalar"
grep 'ABLOOM_ISA asks' "$OUT_DIR/cpu.log" | sed 's/^/    /' >>"$SUMMARY"

step tests 300 bash -c "'$BUILD/tests/abloom_core_tests' --gtest_filter='Isa*:IsaKernels*' && \
  '$BUILD/tests/abloom_capi_tests' --gtest_filter='CapiIsa*:CapiLayout*:CapiInline*:Vectors*' && \
  ABLOOM_ISA=scalar '$BUILD/tests/abloom_capi_tests' --gtest_filter='Vectors*'"
grep -E 'SKIPPED|PASSED|FAILED' "$OUT_DIR/tests.log" | sort | uniq -c | sed 's/^/    /' >>"$SUMMARY"

for layout in split distinct; do
  step "isa-$layout" 420 "$BUILD/bench/abloom_bench" --layout="$layout" --sizes="$SIZES" \
    --bpk=10,16 --no-keylen --no-mt --benchmark_filter="^isa/" --benchmark_repetitions=3 \
    --benchmark_out="$OUT_DIR/isa-$layout.json" --benchmark_out_format=json
done

for isa in scalar neon; do
  step "env-$isa" 300 env ABLOOM_ISA="$isa" "$BUILD/bench/abloom_bench" --sizes="$SIZES" \
    --bpk=10 --grid-only --benchmark_repetitions=3 --benchmark_min_time=0.1 \
    --benchmark_filter='^grid/(blocked|limit)/' \
    --benchmark_out="$OUT_DIR/env-$isa.json" --benchmark_out_format=json
done

for j in isa-split isa-distinct env-scalar env-neon; do
  if [[ -s "$OUT_DIR/$j.json" ]]; then
    { echo; echo "## $j"; python3 bench/summarize.py "$OUT_DIR/$j.json"; } >>"$SUMMARY" 2>&1
  fi
done

echo
cat "$SUMMARY"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "aarch64_check: failed or timed out: ${failed[*]}"
  exit 1
fi
echo "aarch64_check: all steps passed"
