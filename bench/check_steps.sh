# Sourced by the hardware check scripts (bench/device_check.sh, bench/aarch64_check.sh): one
# step of a check, with a time limit, its output kept in a log and its result in the summary.
# The sourcing script sets OUT_DIR, SUMMARY and an array `failed` first.

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
