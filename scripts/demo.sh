#!/usr/bin/env bash
# The main job, end to end: scripts/demo.sh [--keys N] [--fpr P] [--kind blocked|classic]
#                                            [--shards S] [--threads T]
#
# Sets up (scripts/setup.sh), builds (Release, build/release: the abloom command and the demo
# program), then:
#  1. the abloom command (cli/) on N keys, one 16-byte line each (key-000000000001, ...), in a file:
#     `abloom plan`, `abloom build` (throughput, and `wc -l` on the same file for scale; peak RSS),
#     `abloom info`, `abloom query` of every key added (a single one reported absent is a false
#     negative: exit 1), `abloom query --count` of N keys never added (the measured FPR against the
#     model's), `abloom verify`;
#  2. examples/demo.c: the same job in process through the bulk C API (16-byte binary keys), with
#     --threads threads: the library's own throughput, without reading or parsing text.
# --threads applies to part 2 (the command uses every core for its bulk calls). --shards 0 (the
# default) is the library's choice. Defaults: 10000000 keys, FPR 0.01, blocked.
#
# Setup and build output go to stderr, so stdout is the demo's own; so does abloom build's progress
# line when stderr is a terminal. Exits 1 on a false negative, 2 on a bad argument.
# Env: ABLOOM_JOBS (default 2) build parallelism; ABLOOM_DEMO_CLI and ABLOOM_DEMO_PROGRAM (both or
#      neither): an abloom command and an abloom_demo already built, used as they are, with no setup
#      and no build (tests/CMakeLists.txt's demo_script test); TMPDIR for the key files (2 x 17 x N
#      bytes).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_DIR=build/release

usage() {
  echo "usage: scripts/demo.sh [--keys N] [--fpr P] [--kind blocked|classic] [--shards S] [--threads T]"
}
die() {
  echo "demo.sh: $*" >&2
  exit 2
}
keys=10000000 fpr=0.01 kind=blocked shards=0 threads=0
demo_args=("$@")
while [[ $# -gt 0 ]]; do
  case $1 in
  -h | --help) usage && exit 0 ;;
  --keys | --fpr | --kind | --shards | --threads)
    [[ $# -ge 2 ]] || die "$1 needs a value"
    case $1 in
    --keys) keys=$2 ;;
    --fpr) fpr=$2 ;;
    --kind) kind=$2 ;;
    --shards) shards=$2 ;;
    --threads) threads=$2 ;;
    esac
    shift 2
    ;;
  *) usage >&2 && die "unknown argument '$1'" ;;
  esac
done
[[ $keys =~ ^[1-9][0-9]*$ ]] || die "--keys must be a positive whole number, not '$keys'"
[[ $shards =~ ^[0-9]+$ ]] || die "--shards must be a whole number (0: the library's choice), not '$shards'"
[[ $threads =~ ^[0-9]+$ ]] || die "--threads must be a whole number, not '$threads'"

if [[ -n ${ABLOOM_DEMO_CLI:-} || -n ${ABLOOM_DEMO_PROGRAM:-} ]]; then
  [[ -x ${ABLOOM_DEMO_CLI:-} && -x ${ABLOOM_DEMO_PROGRAM:-} ]] ||
    die "ABLOOM_DEMO_CLI and ABLOOM_DEMO_PROGRAM must both name programs"
  abloom=$(realpath "$ABLOOM_DEMO_CLI")
  demo=$(realpath "$ABLOOM_DEMO_PROGRAM")
else
  {
    bash scripts/setup.sh
    cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DABLOOM_BUILD_EXAMPLES=ON \
      -DABLOOM_BUILD_CLI=ON -DABLOOM_BUILD_TESTS=OFF -DABLOOM_BUILD_BENCH=OFF -DABLOOM_SANITIZE=
    cmake --build "$BUILD_DIR" -j "${ABLOOM_JOBS:-2}" --target abloom_cli abloom_demo
  } >&2
  abloom=$ROOT/$BUILD_DIR/cli/abloom
  demo=$ROOT/$BUILD_DIR/examples/abloom_demo
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/abloom-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

# A number from abloom's flat --json output: json_field NAME JSON.
json_field() { sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p" <<<"$2"; }
calc() { awk "BEGIN { $1 }"; }
# timed CMD...: runs CMD with its stdout in $work/stdout; sets secs (wall) and rss_mib (peak
# resident memory, from /usr/bin/time; "?" without it) and status (CMD's exit status).
timed() {
  local t0=$EPOCHREALTIME t1
  status=0
  if [[ -x /usr/bin/time ]]; then
    /usr/bin/time -f %M -o rss.txt "$@" >stdout || status=$?
  else
    echo "?" >rss.txt
    "$@" >stdout || status=$?
  fi
  t1=$EPOCHREALTIME
  secs=$(calc "printf \"%.3f\", $t1 - $t0")
  rss_mib=$(tail -n 1 rss.txt)
  [[ $rss_mib == "?" ]] || rss_mib=$(calc "printf \"%.1f\", $rss_mib / 1024")
}
rate() { calc "s = $2; if (s < 1e-6) s = 1e-6; printf \"%.2f M keys/s\", $1 / s / 1e6"; }
mb_per_s() { calc "s = $2; if (s < 1e-6) s = 1e-6; printf \"%.0f MB/s\", $1 / s / 1e6"; }

shape=(--fpr "$fpr" --kind "$kind")
[[ $shards == 0 ]] || shape+=(--shards "$shards")
version=$("$abloom" --version)
echo "== the abloom command $version: a filter file of $keys keys, target FPR $fpr, kind $kind"
echo "plan:    abloom plan --capacity $keys ${shape[*]}"
plan=$("$abloom" plan --json --capacity "$keys" "${shape[@]}") || die "abloom plan rejected the shape"
"$abloom" plan --capacity "$keys" "${shape[@]}" | sed 's/^/         /'

seq -f 'key-%012.0f' 1 "$keys" >keys.txt
seq -f 'key-%012.0f' $((keys + 1)) $((2 * keys)) >others.txt
bytes=$(stat -c %s keys.txt)
timed wc -l keys.txt
wc_secs=$secs
echo "keys:    keys.txt, $keys lines of 16 bytes ($(calc "printf \"%.1f\", $bytes / 1e6") MB, key-000000000001 ...);" \
  "others.txt, $keys keys never added; wc -l reads keys.txt in $wc_secs s"

timed "$abloom" build -o keys.abloom --capacity "$keys" "${shape[@]}" keys.txt
[[ $status == 0 ]] || { echo "abloom build failed (exit $status)" && exit 1; }
echo "build:   abloom build -o keys.abloom --capacity $keys ${shape[*]} keys.txt"
echo "         $keys keys in $secs s: $(rate "$keys" "$secs"), $(mb_per_s "$bytes" "$secs")" \
  "($(calc "printf \"%.1f\", $secs / ($wc_secs < 1e-3 ? 1e-3 : $wc_secs)")x wc -l's time); peak RSS $rss_mib MiB"
info=$("$abloom" info --json keys.abloom)
filter_bytes=$(json_field bytes "$info")
echo "memory:  $filter_bytes bytes of bits ($(calc "printf \"%.2f\", $filter_bytes / 1048576") MiB)," \
  "$(calc "printf \"%.3f\", $filter_bytes * 8 / $keys") bits/key; the file: $(stat -c %s keys.abloom) bytes"
echo "info:    abloom info keys.abloom"
"$abloom" info keys.abloom | sed 's/^/         /'

# Every key added must be found: --absent --count counts the ones that are not (exit 1: none).
timed "$abloom" query --absent --count keys.abloom keys.txt
missing=$(cat stdout)
echo "query:   abloom query --absent --count keys.abloom keys.txt"
echo "         $keys keys added in $secs s: $(rate "$keys" "$secs"), $(mb_per_s "$bytes" "$secs"); $missing reported absent"
if [[ $status != 1 || $missing != 0 ]]; then
  echo "check:   FAILED: $missing of the keys added are reported absent (false negatives; exit $status)"
  exit 1
fi

timed "$abloom" query --count keys.abloom others.txt
[[ $status == 0 || $status == 1 ]] || { echo "abloom query failed (exit $status)" && exit 1; }
fp=$(cat stdout)
echo "query:   abloom query --count keys.abloom others.txt"
echo "         $keys keys never added in $secs s: $(rate "$keys" "$secs")"
model=$(json_field expected_fpr "$info")
estimated=$(json_field estimated_fpr "$info")
echo "FPR:     $fp false positives / $keys = $(calc "printf \"%.4f%%\", 100 * $fp / $keys")" \
  "(target $(calc "printf \"%.4f%%\", 100 * $fpr"), model $(calc "printf \"%.4f%%\", 100 * $model")," \
  "estimated from fill $(calc "printf \"%.4f%%\", 100 * $estimated")):" \
  "$(calc "p = $model; n = $keys; d = $fp / n - p; sd = sqrt(p * (1 - p) / n);
           if (d <= 3 * sd) print \"within the model (inside 3 sigma of sampling noise)\";
           else printf \"%.1f sigma above the model\", d / sd")"
"$abloom" verify keys.abloom >/dev/null || { echo "verify:  FAILED: $("$abloom" verify keys.abloom)" && exit 1; }
echo "verify:  abloom verify keys.abloom: the whole file's checksum is intact"
echo "check:   all $keys added keys found by the command (no false negatives)"

echo
echo "== the same job in process, through the bulk C API (examples/demo.c, 16-byte binary keys)"
# exec skips the EXIT trap: part 1's files go first.
cd / && rm -rf "$work" && trap - EXIT
exec "$demo" "${demo_args[@]}"
