#!/usr/bin/env bash
# The README's block on the abloom command, run as written (scripts/check-readme-blocks.py keeps
# its lines equal to the ones here), with checks of what it prints in between.
#   readme_test.sh DIR_OF_ABLOOM
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/emulator.sh"
T=$(mktemp -d)
BIN=$(mktemp -d)
trap 'rm -rf "$T" "$BIN"' EXIT
dir=$(realpath "$1")
if [[ -n "${ABLOOM_TEST_EMULATOR:-}" ]]; then
  # A cross build's command (tests/cli/emulator.sh), abloom.exe for Windows: run as `abloom`.
  exe=$dir/abloom
  [[ -f $exe ]] || exe=$dir/abloom.exe
  emulated "$exe" abloom "$BIN" >/dev/null
  dir=$BIN
fi
PATH="$dir:$PATH"
cd "$T"

seq 1 1000000 > ids.txt                                   # one key per line
abloom build -o ids.abloom --fpr 0.001 ids.txt            # counts the lines first, then builds
abloom info ids.abloom                                    # shape, bytes, k, estimated count, fill
[[ $(abloom info --json ids.abloom) == *'"capacity": 1000000,'* ]]
seq 999990 1000010 | abloom query ids.abloom              # the keys that may be present
[[ $(seq 999990 1000010 | abloom query ids.abloom | head -n 11) == "$(seq 999990 1000000)" ]]
seq 2000001 2001000 > new-ids.txt                         # 1000 keys not in ids.txt
abloom query --absent --count ids.abloom new-ids.txt      # how many are definitely new
(($(abloom query --absent --count ids.abloom new-ids.txt) >= 990))
seq 1 1000 | sed 's/^/event-/' > events.log               # a log of 1000 events...
seq 1 1000 | sed 's/^/event-/' >> events.log              # ...each seen twice
(($(wc -l < events.log) == 2000))
abloom dedupe --capacity 10000000 < events.log > first-seen.log
cmp first-seen.log <(seq 1 1000 | sed 's/^/event-/')
abloom plan --capacity 1000000 --fpr 0.1%                 # a rate as a percentage: 0.001
[[ $(abloom plan --capacity 1000000 --fpr 0.1%) == "$(abloom plan --capacity 1000000 --fpr 0.001)" ]]
abloom verify ids.abloom && echo intact
echo "readme block: ok"
