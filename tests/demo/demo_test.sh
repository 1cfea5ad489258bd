#!/usr/bin/env bash
# scripts/demo.sh (the README's main job) with the programs of this build, on few keys:
#   demo_test.sh ABLOOM ABLOOM_DEMO
# Its two parts run and report what the README says (plan, throughput, memory, FPR against the
# model, no false negatives), its flags reach both parts, and a bad argument is exit 2.
set -uo pipefail
# A cross build's programs run under its emulator (tests/cli/emulator.sh: wine for Windows).
source "$(dirname "${BASH_SOURCE[0]}")/../cli/emulator.sh"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
ABLOOM_DEMO_CLI=$(emulated "$1" abloom "$bin")
ABLOOM_DEMO_PROGRAM=$(emulated "$2" abloom_demo "$bin")
export ABLOOM_DEMO_CLI ABLOOM_DEMO_PROGRAM
demo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/demo.sh
FAILED=0
ok() { echo "ok   $*"; }
fail() {
  echo "FAIL $*"
  FAILED=1
}
has() { # TEXT DESCRIPTION: the last run's stdout has a line starting with TEXT
  if grep -qF -- "$1" <<<"$out"; then ok "$2"; else fail "$2: no '$1' in:"$'\n'"$out"; fi
}

# The demo's working directory goes under a TMPDIR of this test's, which must be empty afterwards.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$bin"' EXIT
err=$tmp/stderr
mkdir "$tmp/demo-tmp"
out=$(TMPDIR=$tmp/demo-tmp bash "$demo" --keys 200000 --fpr 0.02 --kind classic --shards 2 --threads 2 2>"$err")
st=$?
[[ $st == 0 ]] && ok "demo.sh runs (status 0)" || fail "demo.sh: status $st: $(head -c 500 "$err")"
left=$(ls -A "$tmp/demo-tmp")
[[ -z $left ]] && ok "demo.sh leaves nothing in TMPDIR" || fail "demo.sh left in TMPDIR: $left"
has "== the abloom command" "part 1: the abloom command"
has "plan:    abloom plan --capacity 200000 --fpr 0.02 --kind classic --shards 2" "the flags reach abloom plan"
has "kind:         classic" "abloom plan's own output"
has "build:   abloom build -o keys.abloom --capacity 200000" "abloom build"
grep -qE '^         200000 keys in [0-9.]+ s: [0-9.]+ M keys/s, [0-9]+ MB/s' <<<"$out" &&
  ok "build throughput" || fail "no build throughput in:"$'\n'"$out"
has "memory:  " "memory"
has "0 reported absent" "query of the keys added: none absent"
grep -qE '^FPR:     [0-9]+ false positives / 200000 = [0-9.]+% \(target 2.0000%, model [0-9.]+%' <<<"$out" &&
  ok "the command's measured FPR against the model" || fail "no FPR line in:"$'\n'"$out"
has "verify:  abloom verify keys.abloom: the whole file's checksum is intact" "abloom verify"
has "check:   all 200000 added keys found by the command (no false negatives)" "part 1's check"
has "== the same job in process, through the bulk C API" "part 2: the bulk C API"
has "demo: 200000 keys, target FPR 0.02, kind classic, threads 2" "the flags reach the demo program"
has "check:   all 200000 added keys test positive (no false negatives)" "part 2's check"

for bad in "--keys 0" "--fpr 2" "--kind bogus" "--threads x" "--bogus"; do
  # shellcheck disable=SC2086 # one word per flag and value
  bash "$demo" $bad >/dev/null 2>&1
  st=$?
  [[ $st == 2 ]] && ok "demo.sh $bad: status 2" || fail "demo.sh $bad: status $st, not 2"
done
exit $FAILED
