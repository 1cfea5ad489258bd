#!/usr/bin/env bash
# `abloom add` killed (SIGKILL) at random moments, 200 times, one filter file throughout:
#   kill_test.sh ABLOOM [KILLS]
# After each kill, whatever the moment (before the open, while adding, during the sync, after
# the exit): info, query, merge and dedupe --load work on the file; verify says stale (3), or
# intact (0) when the add had not opened the file yet or had synced it; seal then makes verify
# pass; and every key of every add that finished before the kill is found. The moments come from
# a fixed seed, scaled by the time one add takes here (measured first), so that they spread over
# the whole of an add's run on any machine. The keys of the adds that finished are checked in
# full after their own round and at the end, and through a sample (every 50th) after every
# other round, so that the test stays fast. Prints "ok"/"FAIL" lines; exits 1 if any check failed.
set -uo pipefail

ABLOOM=$(realpath "$1")
KILLS=${2:-200}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T=$(mktemp -d)
EMULATED=$(mktemp -d)
trap 'rm -rf "$T" "$EMULATED"' EXIT
cd "$T" || exit 2
source "$HERE/emulator.sh"
ABLOOM=$(emulated "$ABLOOM" abloom "$EMULATED")
FAILED=0
fail() {
  echo "FAIL $*"
  FAILED=1
}

now_us() { date +%s%6N; }
# Round R's keys: K lines "rR-J" (J = 1..K), distinct across rounds.
KEYS_PER_ADD=50000
keys_of() { awk -v r="$1" -v k="$KEYS_PER_ADD" 'BEGIN { for (j = 1; j <= k; j++) printf "r%d-%d\n", r, j }'; }

# Room for every key of every round: the filter never fills up, so an absent key is found absent.
"$ABLOOM" build -q --capacity $((KEYS_PER_ADD * (KILLS + 1))) -o f.abloom /dev/null || exit 2
# The time one add takes here, start to exit (the fastest of three; the moments are spread over
# 1.5 times it).
took=
for r in 0 -1 -2; do
  keys_of "$r" >round.txt
  start=$(now_us)
  "$ABLOOM" add -q f.abloom round.txt || exit 2
  t=$(($(now_us) - start))
  [[ -n "$took" ]] && ((t >= took)) || took=$t
  cat round.txt >>done.txt # every key of the adds that finished
done
awk 'NR % 50 == 1' done.txt >sample.txt
echo "one add of $KEYS_PER_ADD keys: $took us; $KILLS kills"

RANDOM=20240611 # the seed of the moments
finished=0 killed=0 stale=0 intact_after_kill=0
for ((round = 1; round <= KILLS; round++)); do
  keys_of "$round" >round.txt
  delay_us=$(((RANDOM * 32768 + RANDOM) % (took * 3 / 2 + 1)))
  "$ABLOOM" add -q f.abloom round.txt &
  pid=$!
  sleep "$(printf '%d.%06d' $((delay_us / 1000000)) $((delay_us % 1000000)))"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  rc=$?
  where="round $round (kill after $delay_us us, add status $rc)"
  if ((rc == 0)); then
    finished=$((finished + 1))
    cat round.txt >>done.txt
    awk 'NR % 50 == 1' round.txt >>sample.txt
    check=round.txt
  else
    check=/dev/null
    killed=$((killed + 1))
  fi
  # Readers work whatever the state, and leave it as it is.
  "$ABLOOM" info f.abloom >info.out 2>info.err || fail "$where: info: $(head -c 300 info.err)"
  absent=$(cat sample.txt "$check" | "$ABLOOM" query -q --absent --count f.abloom - 2>q.err)
  [[ $? -le 1 && "$absent" == 0 ]] || fail "$where: query: $absent keys of finished adds absent: $(head -c 300 q.err)"
  "$ABLOOM" merge -o m.abloom f.abloom f.abloom 2>m.err || fail "$where: merge: $(head -c 300 m.err)"
  printf 'r0-1\nr0-2\n' | "$ABLOOM" dedupe -q --load f.abloom >d.out 2>d.err ||
    fail "$where: dedupe --load: $(head -c 300 d.err)"
  [[ ! -s d.out ]] || fail "$where: dedupe --load took keys of the file as new: '$(cat d.out)'"
  "$ABLOOM" verify f.abloom >v.out 2>v.err
  vrc=$?
  if ((vrc == 3)); then
    stale=$((stale + 1))
    ((rc != 0)) || fail "$where: a finished add left the file stale"
    grep -qF "abloom: warning: f.abloom: stale" info.err || fail "$where: info did not warn: $(cat info.err)"
    "$ABLOOM" seal f.abloom >s.out 2>s.err || fail "$where: seal: $(cat s.out s.err)"
    grep -qF "f.abloom: sealed (" s.out || fail "$where: seal said: $(cat s.out)"
    "$ABLOOM" verify f.abloom >v.out 2>v.err || fail "$where: verify after seal: $(cat v.out v.err)"
  elif ((vrc == 0)); then
    ((rc == 0)) || intact_after_kill=$((intact_after_kill + 1))
    [[ ! -s info.err ]] || fail "$where: info warned about an intact file: $(cat info.err)"
  else
    fail "$where: verify exited $vrc: $(cat v.out v.err)"
    break
  fi
done
# The whole of every finished add's keys, once more on the sealed file.
absent=$("$ABLOOM" query -q --absent --count f.abloom done.txt)
[[ "$absent" == 0 ]] || fail "at the end: $absent keys of finished adds absent"
echo "$killed killed ($stale left stale, $intact_after_kill intact: killed before the open or after" \
  "the sync), $finished finished"
# The moments must have hit both states, or the test tested little.
((stale > 0)) || fail "no kill left the file stale: the moments missed the adds"
((finished > 0 || intact_after_kill > 0)) || fail "every kill left the file stale"
((FAILED == 0)) && echo "ok   $KILLS kills: every check passed"
exit $FAILED
