# Sourced by the hardware check scripts (bench/device_check.sh, bench/aarch64_check.sh): one
# step of a check, with a time limit, its output kept in a log and its result in the summary.
# The sourcing script sets OUT_DIR, SUMMARY, BUILD and an array `failed` first.

# step NAME LIMIT_SECONDS COMMAND...: runs it with a time limit, output to OUT_DIR/NAME.log.
step() {
  local name=$1 limit=$2 start rc
  shift 2
  start=$(date +%s)
  echo "== $name (limit ${limit}s): $*"
  timeout --kill-after=10 "$limit" "$@" >"$OUT_DIR/$name.log" 2>&1
  rc=$?
  echo "-- $name: exit $rc in $(($(date +%s) - start))s"
  echo "- step \`$name\`: exit $rc in $(($(date +%s) - start)) s" >>"$SUMMARY"
  if [[ $rc -ne 0 ]]; then
    failed+=("$name")
    tail -n 20 "$OUT_DIR/$name.log"
  fi
  return $rc
}

# summary_header WHAT CPU: the summary's first lines: what check, when, on which commit, and CPU.
summary_header() {
  {
    echo "# abloom $1, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo
    echo "CPU: $2"
    echo
  } >>"$SUMMARY"
}

# build_once LIMIT_SECONDS [TARGET...]: configures BUILD (Release, tests and benchmarks) and builds
# TARGETs (all when none), as step `build`, unless BUILD already has abloom_bench.
build_once() {
  local limit=$1 targets=""
  shift
  if [[ $# -gt 0 ]]; then targets="--target $*"; fi
  [[ -x "$BUILD/bench/abloom_bench" ]] && return 0
  step build "$limit" bash -c "cmake -S . -B '$BUILD' -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DABLOOM_BUILD_TESTS=ON -DABLOOM_BUILD_BENCH=ON && cmake --build '$BUILD' -j $(nproc) $targets"
}
