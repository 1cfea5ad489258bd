#!/usr/bin/env bash
# Shell-level tests of the abloom command (cli/), run by ctest:
#   cli_test.sh ABLOOM READ_FILTER [GROUP...]
# ABLOOM is the command, READ_FILTER the C reader tests/cli/read_filter.c (files the command writes
# read through the C API). GROUP selects some groups (default: all): basics errors formats records
# combine dedupe grep_habits compressed skip_bad full progress threads stale clobber options small.
# Every check prints "ok" or "FAIL"; the script exits 1 if any failed.
set -uo pipefail

ABLOOM=$(realpath "$1")
READ=$(realpath "$2")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
shift 2
GROUPS_SEL=("$@")
[[ ${#GROUPS_SEL[@]} -gt 0 ]] || GROUPS_SEL=(basics errors formats records combine dedupe growing grep_habits compressed skip_bad full progress threads stale clobber options small)

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
# A cross build's programs run under its emulator (tests/cli/emulator.sh), from a folder outside
# the one the tests list.
source "$HERE/emulator.sh"
EMULATED=$(mktemp -d)
trap 'rm -rf "$T" "$EMULATED"' EXIT
ABLOOM=$(emulated "$ABLOOM" abloom "$EMULATED")
READ=$(emulated "$READ" read_filter "$EMULATED")
FAILED=0
# Set when the command is a Windows build under wine (tests/cli/emulator.sh).
WINDOWS=
[[ ${ABLOOM_TEST_EMULATOR:-} != *wine* ]] || WINDOWS=1

ok() { echo "ok   $*"; }
fail() {
  echo "FAIL $*"
  FAILED=1
}
# expect STATUS DESCRIPTION CMD...: runs CMD, stdout to out, stderr to err; checks the status.
expect() {
  local want=$1 what=$2
  shift 2
  "$@" >out 2>err
  local got=$?
  # A Windows build's stderr is in text mode: its lines end with \r\n there.
  [[ -z $WINDOWS ]] || sed -i 's/\r$//' err
  if [[ $got -eq $want ]]; then ok "$what (status $got)"; else
    fail "$what: status $got, expected $want; stderr: $(head -c 300 err)"
  fi
}
# has FILE TEXT DESCRIPTION: FILE contains TEXT (fixed string).
has() {
  if grep -qF -- "$2" "$1"; then ok "$3"; else fail "$3: '$2' not in $1: $(head -c 300 "$1")"; fi
}
same() { # A B DESCRIPTION: two strings are equal
  if [[ "$1" == "$2" ]]; then ok "$3"; else fail "$3: '$1' != '$2'"; fi
}

basics() {
  for cmd in build add query dedupe merge intersect info verify seal plan; do
    expect 0 "$cmd --help" "$ABLOOM" "$cmd" --help
    has out "Example:" "$cmd --help shows an example"
  done
  expect 2 "no subcommand is a usage error" "$ABLOOM"
  expect 2 "an unknown option is a usage error" "$ABLOOM" build -o x --bogus
  "$ABLOOM" dedupe --help >dh
  has dh "false" "dedupe --help says a false positive drops a new key"
  has dh "at most --fpr" "dedupe --help gives the chance"

  seq 1 100000 >keys.txt
  expect 0 "build from a file, no --capacity (counted)" "$ABLOOM" build -o f.abloom keys.txt
  expect 0 "info" "$ABLOOM" info f.abloom
  has out "capacity:         100000" "info: capacity is the counted records"
  expect 0 "info --json" "$ABLOOM" info --json f.abloom
  local keys
  keys=$(python3 -c 'import json,sys; d=json.load(open("out")); print(",".join(d))')
  same "$keys" "file,kind,layout,k,shards,blocks_per_shard,bits,bytes,file_bytes,capacity,seed,target_fpr,expected_fpr,estimated_count,estimated_fpr,set_bits,fill,growth,growth_failed,keys,stages" \
    "info --json: the stable keys, in order"
  python3 -c 'import json; d=json.load(open("out")); assert d["kind"]=="blocked" and d["capacity"]==100000 and 0.3<d["fill"]<0.7 and abs(d["estimated_count"]-100000)<3000 and d["growth"]==0 and d["keys"] is None and len(d["stages"])==1 and d["stages"][0]["capacity"]==100000, d' &&
    ok "info --json values" || fail "info --json values: $(cat out)"
  expect 0 "verify an intact file" "$ABLOOM" verify f.abloom
  has out "OK" "verify says OK"
  # --threads: the bits must not depend on how many threads set them, for build and for add
  # (the threads group tests inputs of many parts).
  expect 0 "build --threads 1" "$ABLOOM" build -q --threads 1 -o t1.abloom keys.txt
  expect 0 "build --threads 3" "$ABLOOM" build -q --threads 3 -o t3.abloom keys.txt
  cmp -s t1.abloom t3.abloom && cmp -s t1.abloom f.abloom && ok "build: the same file on 1 and 3 threads and by default" ||
    fail "build --threads changes the file"
  expect 0 "an empty filter for add" "$ABLOOM" build -q --capacity 100000 -o e1.abloom /dev/null
  cp e1.abloom e4.abloom
  expect 0 "add --threads 1" "$ABLOOM" add -q --threads 1 e1.abloom keys.txt
  expect 0 "add --threads 4" "$ABLOOM" add -q --threads 4 e4.abloom keys.txt
  cmp -s e1.abloom e4.abloom && ok "add: the same file on 1 and 4 threads" || fail "add --threads changes the file"
  expect 2 "build --threads 0" "$ABLOOM" build -q --threads 0 -o t0.abloom keys.txt
  has err "--threads" "the error names --threads"
  expect 2 "add --threads 257" "$ABLOOM" add -q --threads 257 e1.abloom keys.txt
  [[ ! -e t0.abloom ]] && ok "a refused build writes no file" || fail "build --threads 0 wrote t0.abloom"

  expect 1 "query --absent of the keys added: none (no false negatives)" \
    "$ABLOOM" query --absent f.abloom keys.txt
  same "$(wc -c <out)" "0" "query --absent printed nothing"
  expect 0 "query of the keys added" "$ABLOOM" query --count f.abloom keys.txt
  same "$(cat out)" "100000" "query --count: every key added is found"
  seq 100001 200000 >others.txt
  expect 0 "query of 100000 keys never added" "$ABLOOM" query --count f.abloom others.txt
  local fp
  fp=$(cat out)
  # Target 1%: 1000 expected; 1400 is 12 standard deviations above.
  if ((fp > 0 && fp < 1400)); then ok "false positives $fp of 100000 at 1%"; else fail "false positives $fp"; fi
  "$ABLOOM" query f.abloom others.txt >fps
  same "$(wc -l <fps)" "$fp" "query prints the matching lines"
  # query --threads N: the same lines, in the same order, and the same count as one thread's, for
  # keys present and absent (others.txt has about 1000 false positives spread over its 100000
  # lines). The threads group tests inputs of many parts.
  "$ABLOOM" query --threads 4 f.abloom others.txt >q4
  cmp -s fps q4 && [[ -s fps ]] && ok "query: the same lines on 1 and 4 threads" || fail "query --threads 4 prints other lines"
  "$ABLOOM" query --absent --threads 3 f.abloom others.txt >q3
  same "$(($(wc -l <q3) + $(wc -l <fps)))" "100000" "query --absent on 3 threads: the complement of the matches"
  expect 0 "query --count --threads 2" "$ABLOOM" query --count --threads 2 f.abloom keys.txt
  same "$(cat out)" "100000" "query --count on 2 threads finds every key"
  expect 2 "query --threads 0" "$ABLOOM" query --threads 0 f.abloom keys.txt
  has err "--threads" "query: the error names --threads"
  expect 1 "query with no line printed exits 1" "$ABLOOM" query f.abloom /dev/null
  printf 'zzz-not-a-key\n' >one.txt
  expect 1 "query of an absent key exits 1" "$ABLOOM" query f.abloom one.txt
  expect 0 "query --absent of an absent key exits 0" "$ABLOOM" query --absent f.abloom one.txt
  same "$(cat out)" "zzz-not-a-key" "query --absent prints the record"
  expect 1 "query --count with no match: prints 0, exits 1" "$ABLOOM" query --count f.abloom one.txt
  same "$(cat out)" "0" "query --count prints 0"

  # The C API reads what the command wrote (mmap, full checksum), key for key.
  expect 0 "C reader opens the file" "$READ" f.abloom 1 50000 100000
  same "$(tr -d '\n' <out)" "111" "C reader finds the keys"

  expect 0 "add to the file in place" "$ABLOOM" add f.abloom one.txt
  expect 0 "query finds the added key" "$ABLOOM" query f.abloom one.txt
  expect 0 "verify after add (synced)" "$ABLOOM" verify f.abloom

  expect 0 "plan" "$ABLOOM" plan --capacity 1000000 --fpr 0.001
  has out "k:            10" "plan: k"
  expect 0 "plan --json" "$ABLOOM" plan --json --capacity 1000000 --fpr 0.001
  python3 -c 'import json; d=json.load(open("out")); assert d["k"]==10 and d["capacity"]==1000000 and d["expected_fpr"]<=0.001 and d["bytes"]*8==d["bits"], d' &&
    ok "plan --json values" || fail "plan --json: $(cat out)"
  expect 0 "plan of the classic kind" "$ABLOOM" plan --capacity 1000 --kind classic
  has out "classic" "plan: classic kind"
  expect 2 "plan: unknown kind" "$ABLOOM" plan --capacity 1000 --kind bogus
  has err "--kind: 'bogus' is not a kind: give blocked or classic" "plan: names the option, the bad kind and the kinds"
  expect 2 "plan: --fpr out of range" "$ABLOOM" plan --capacity 1000 --fpr 2

  # Names with spaces and outside ASCII, as the file system spells them (UTF-8; on Windows the
  # command converts them to and from UTF-16): every command that opens or writes a file.
  mkdir -p "dir ü"
  printf 'ä\r\nb c\r\n日本\r\n' >"dir ü/keys é 日本.txt"
  local named="dir ü/filter ø 日本.abloom"
  expect 0 "build: input and output named in UTF-8, with spaces" "$ABLOOM" build -o "$named" "dir ü/keys é 日本.txt"
  [[ -f "$named" ]] && ok "the output has the name it was given" || fail "no file '$named': $(ls "dir ü")"
  printf '日本\nb c\nnot-a-key\n' >"q ü.txt"
  expect 0 "query: both names in UTF-8, \\r\\n keys" "$ABLOOM" query "$named" "q ü.txt"
  same "$(cat out)" "日本"$'\n'"b c" "query finds the UTF-8 and the spaced keys"
  expect 0 "query: keys from stdin" "$ABLOOM" query --count "$named" - <"q ü.txt"
  same "$(cat out)" "2" "query from stdin counts the keys"
  expect 0 "add: a UTF-8 named filter" "$ABLOOM" add "$named" "q ü.txt"
  expect 0 "merge: UTF-8 names" "$ABLOOM" merge -o "dir ü/merged ø.abloom" "$named" "$named"
  expect 0 "info: a UTF-8 name" "$ABLOOM" info "dir ü/merged ø.abloom"
  expect 0 "verify: a UTF-8 name" "$ABLOOM" verify "dir ü/merged ø.abloom"
  expect 2 "a missing UTF-8 name is an error" "$ABLOOM" info "dir ü/none ø.abloom"
  has err "dir ü/none ø.abloom" "the error names the file as given"
  [[ -z "$(ls -A "dir ü" | grep -v -e '^keys é 日本.txt$' -e '^filter ø 日本.abloom$' -e '^merged ø.abloom$')" ]] &&
    ok "nothing else left beside the UTF-8 names" || fail "left in 'dir ü': $(ls -A "dir ü")"
}

errors() {
  seq 1 1000 >keys.txt
  "$ABLOOM" build -o f.abloom keys.txt
  expect 2 "build: missing input" "$ABLOOM" build -o x.abloom missing.txt
  has err "missing.txt: No such file or directory" "names the missing file and the reason"
  [[ ! -e x.abloom ]] && ok "no output for a failed build" || fail "a failed build left x.abloom"
  mkdir adir
  expect 2 "build: a directory as input" "$ABLOOM" build -o x.abloom --capacity 10 adir
  has err "adir: Is a directory" "names the directory"
  expect 2 "query: a directory as filter" "$ABLOOM" query adir keys.txt
  has err "adir" "names the directory filter"
  expect 2 "query: missing filter" "$ABLOOM" query nofile.abloom keys.txt
  has err "nofile.abloom" "names the missing filter"
  expect 2 "verify: missing file is an error (2), not a corrupt one" "$ABLOOM" verify nofile.abloom
  expect 1 "verify: not a filter" "$ABLOOM" verify keys.txt
  has out "FAILED" "verify says FAILED"
  expect 2 "query: not a filter" "$ABLOOM" query keys.txt keys.txt
  has err "keys.txt: " "names the file that is not a filter"

  # A byte of the body flipped: the header is intact, only the full checksum sees it.
  cp f.abloom body.abloom
  printf '\xff' | dd of=body.abloom bs=1 seek=200 conv=notrunc status=none
  expect 1 "verify: a flipped body byte" "$ABLOOM" verify body.abloom
  has out "body.abloom: FAILED: " "verify names the file"
  has out "checksum" "verify says checksum"
  expect 2 "info: a flipped body byte" "$ABLOOM" info body.abloom
  has err "body.abloom: " "info names the corrupt file"
  expect 2 "merge: a corrupt input" "$ABLOOM" merge -o m.abloom f.abloom body.abloom
  # A byte of the header flipped: every command sees it.
  cp f.abloom head.abloom
  printf '\x5a' | dd of=head.abloom bs=1 seek=40 conv=notrunc status=none
  expect 2 "query: a flipped header byte" "$ABLOOM" query head.abloom keys.txt
  has err "head.abloom: " "query names the corrupt file"
  expect 1 "verify: a flipped header byte" "$ABLOOM" verify head.abloom
  # A truncated file.
  head -c 100 f.abloom >short.abloom
  expect 1 "verify: a truncated file" "$ABLOOM" verify short.abloom

  # Atomic output: a build that fails after starting leaves the old file as it was.
  cp f.abloom old.abloom
  expect 2 "build over an existing file, failing input" "$ABLOOM" build -o old.abloom --capacity 10 keys.txt missing.txt
  cmp -s f.abloom old.abloom && ok "the old file is unchanged" || fail "the old file changed"
  # Killed mid-build (the input is a FIFO kept open): no output file, no temporary left.
  mkdir kill && mkfifo kill/p
  "$ABLOOM" build -o kill/out.abloom --capacity 1000 kill/p 2>/dev/null &
  local pid=$!
  exec 3>kill/p
  seq 1 100 >&3
  sleep 0.3
  kill -TERM "$pid"
  wait "$pid"
  exec 3>&-
  [[ $(ls kill) == p ]] && ok "a killed build leaves no file" || fail "a killed build left: $(ls kill)"

  expect 2 "--hex and --u64 together" "$ABLOOM" build -o x --hex --u64 keys.txt
  printf '12\nabc\n' >bad.txt
  expect 2 "--u64 with a non-number" "$ABLOOM" build -o x.abloom --u64 bad.txt
  has err "bad.txt: record 2" "names the file and the record"
  expect 2 "--hex with odd digits" "$ABLOOM" build -o x.abloom --hex bad.txt
  printf 'a,b\nc\n' >short.csv
  expect 2 "CSV without the column" "$ABLOOM" build -o x.abloom --column 2 short.csv
  has err "short.csv: record 2 has no column 2" "names the file, record and column"
  expect 2 "a delimiter of two bytes" "$ABLOOM" build -o x.abloom --column 1 --delimiter ab short.csv
  "$ABLOOM" build -o other.abloom --capacity 5000 keys.txt
  expect 2 "merge: different shapes" "$ABLOOM" merge -o m.abloom f.abloom other.abloom
  has err "not the same shape" "merge says why"
  [[ ! -e m.abloom ]] && ok "no output for a failed merge" || fail "a failed merge left m.abloom"
}

formats() {
  # Empty input.
  : >empty.txt
  expect 0 "build from an empty file" "$ABLOOM" build -o e.abloom empty.txt
  expect 1 "query of an empty input" "$ABLOOM" query e.abloom empty.txt
  expect 0 "dedupe of an empty input" "$ABLOOM" dedupe --capacity 10 <empty.txt
  same "$(wc -c <out)" "0" "dedupe of nothing prints nothing"

  # \r\n lines: the \r is not part of the key.
  printf 'alpha\r\nbeta\r\ngamma' >crlf.txt
  expect 0 "build from \\r\\n lines" "$ABLOOM" build -o c.abloom crlf.txt
  expect 0 "C reader: keys without \\r" "$READ" c.abloom alpha beta gamma
  same "$(tr -d '\n' <out)" "111" "\\r\\n keys found by their bytes (last line without newline too)"
  printf 'alpha\nbeta\ngamma\n' >lf.txt
  expect 0 "query with \\n lines finds \\r\\n keys" "$ABLOOM" query --count c.abloom lf.txt
  same "$(cat out)" "3" "all three"

  # A key of 1 MB: reading never stops on a long line.
  head -c 1048576 /dev/zero | tr '\0' a >big.txt
  printf '\nsmall\n' >>big.txt
  expect 0 "build with a 1 MB key" "$ABLOOM" build -o big.abloom --fpr 1e-6 big.txt
  expect 0 "query finds the 1 MB key" "$ABLOOM" query --count big.abloom big.txt
  same "$(cat out)" "2" "the 1 MB key and the next one"
  { head -c 1048575 /dev/zero | tr '\0' a; printf 'b\n'; } >big2.txt
  expect 1 "a 1 MB key differing in its last byte is absent" "$ABLOOM" query big.abloom big2.txt

  # NUL-separated records (find -print0): newlines are part of the key.
  # (No file is named nul.*: Windows takes NUL, with any extension, for its null device.)
  printf 'one\ntwo\0three\0' >zero-ended.bin
  expect 0 "build -0" "$ABLOOM" build -0 -o n.abloom zero-ended.bin
  expect 0 "C reader: -0 keys" "$READ" n.abloom $'one\ntwo' three one
  same "$(tr -d '\n' <out)" "110" "-0 keys are the bytes between NULs"
  expect 0 "query -0 prints NUL-terminated records" "$ABLOOM" query -0 n.abloom zero-ended.bin
  same "$(od -An -c out | tr -s ' ')" "$(od -An -c zero-ended.bin | tr -s ' ')" "query -0 output"

  # CSV and TSV columns.
  printf 'id,url\n1,http://a\n2,http://b\n' >t.csv
  expect 0 "build --column 2" "$ABLOOM" build -o u.abloom --column 2 t.csv
  expect 0 "C reader: the column's bytes" "$READ" u.abloom http://a http://b 1 'id,url'
  same "$(tr -d '\n' <out)" "1100" "only field 2 is the key"
  printf 'x\thttp://b\n' >t.tsv
  expect 0 "query --column 2 --delimiter tab" "$ABLOOM" query --column 2 --delimiter tab u.abloom t.tsv
  same "$(cat out)" "$(printf 'x\thttp://b')" "query prints the whole record"

  # --hex and --u64: binary keys.
  printf '616263\n00ff\n' >h.txt
  expect 0 "build --hex" "$ABLOOM" build -o h.abloom --hex h.txt
  expect 0 "C reader: hex keys" "$READ" h.abloom abc hex:00ff 616263
  same "$(tr -d '\n' <out)" "110" "--hex keys are the decoded bytes"
  printf '1\n18446744073709551615\n' >n.txt
  expect 0 "build --u64" "$ABLOOM" build -o i.abloom --u64 n.txt
  expect 0 "C reader: u64 keys" "$READ" i.abloom u64:1 u64:18446744073709551615 1 u64:2
  same "$(tr -d '\n' <out)" "1100" "--u64 keys are 8 little-endian bytes"

  # stdin as '-' and as no argument, and a FIFO.
  seq 1 1000 >k.txt
  expect 0 "build from '-' with --capacity" "$ABLOOM" build -o d.abloom --capacity 1000 - <k.txt
  expect 0 "query from stdin" "$ABLOOM" query --count d.abloom <k.txt
  same "$(cat out)" "1000" "stdin keys found"
  mkfifo fifo
  seq 1 1000 >fifo &
  expect 0 "query from a FIFO" "$ABLOOM" query --count d.abloom fifo
  same "$(cat out)" "1000" "FIFO keys found"
  wait
  # Windows has no FIFOs in its file system: under wine a Linux FIFO looks like a regular file,
  # which build counts (reading it whole) and then cannot open again.
  if [[ -z $WINDOWS ]]; then
    seq 1 1000 >fifo &
    expect 0 "build from a FIFO without --capacity (a growing filter)" "$ABLOOM" build -o x.abloom fifo
    wait
    seq 1 1000 >thousand.txt
    expect 0 "query the FIFO's growing filter" "$ABLOOM" query --count x.abloom thousand.txt
    same "$(cat out)" "1000" "its 1000 keys are found"
  fi
}

records() {
  # The reader hands the library keys in place, in its buffer (1 MiB at first, growing), and
  # prints records from there: records that span its refills, batches that span many reads of a
  # slow pipe, records longer than the buffer, empty ones, and the last one without its
  # terminator must all come out whole. Every key of the input is in the filter, so query prints
  # the input again, record for record.
  awk 'BEGIN { srand(7); for (i = 0; i < 150000; i++) { n = int(rand() * 30); s = "";
    for (j = 0; j < n; j++) s = s sprintf("%c", 97 + int(rand() * 26)); print s } }' >mixed.txt
  { head -c 3000000 /dev/zero | tr '\0' q; printf '\n\n'; cat mixed.txt; head -c 2500000 /dev/zero | tr '\0' r; } >rec.txt
  expect 0 "build over records spanning refills" "$ABLOOM" build -o rec.abloom --fpr 1e-6 rec.txt
  expect 0 "query prints every record" "$ABLOOM" query rec.abloom rec.txt
  { cat rec.txt && echo; } >want.txt
  cmp -s out want.txt && ok "records across refills, a 3 MB and an empty one, the last unterminated" ||
    fail "query's output differs from its input: $(cmp out want.txt)"
  expect 0 "query --count" "$ABLOOM" query --count rec.abloom rec.txt
  same "$(cat out)" "$(wc -l <want.txt)" "--count counts every record"
  # A slow pipe: a batch gathers many short reads, and its records move as the buffer refills.
  expect 0 "query from a pipe of small writes" "$ABLOOM" query rec.abloom < <(dd if=rec.txt bs=4099 status=none | cat)
  cmp -s out want.txt && ok "the same records from a pipe" || fail "pipe output differs: $(cmp out want.txt)"
  expect 0 "dedupe of a new filter prints the first copy of each record" \
    "$ABLOOM" dedupe --capacity 400000 --fpr 1e-9 rec.txt rec.txt
  awk '!seen[$0]++' want.txt >first.txt
  cmp -s out first.txt && ok "dedupe output is awk's" || fail "dedupe differs from awk: $(cmp out first.txt)"
  expect 0 "a build from the pipe is the build from the file" \
    "$ABLOOM" build -o pipe.abloom --fpr 1e-6 --capacity "$(wc -l <want.txt)" < <(dd if=rec.txt bs=4099 status=none | cat)
  cmp -s pipe.abloom rec.abloom && ok "same filter from the pipe" || fail "another filter from the pipe"

  # build's counting pass adds up each 32-byte block's terminators in byte counters, summed before
  # they can wrap: an input of terminators alone fills them fastest. 100003 of them (many blocks,
  # then a tail shorter than one) are 100003 empty records, newline- or NUL-ended.
  head -c 100003 /dev/zero | tr '\0' '\n' >newlines.txt
  expect 0 "build counts a file of newlines" "$ABLOOM" build -o nl.abloom newlines.txt
  expect 0 "info of the newlines' filter" "$ABLOOM" info nl.abloom
  has out "capacity:         100003" "every newline ends a record"
  head -c 100003 /dev/zero >nuls.bin
  expect 0 "build -0 counts a file of NULs" "$ABLOOM" build -0 -o nuls.abloom nuls.bin
  expect 0 "info of the NULs' filter" "$ABLOOM" info nuls.abloom
  has out "capacity:         100003" "every NUL ends a record"

  # \r\n lines: the key has no \r, the printed record keeps it.
  sed 's/$/\r/' mixed.txt >crlf.txt
  expect 0 "query \\r\\n lines of \\n keys" "$ABLOOM" query rec.abloom crlf.txt
  cmp -s out crlf.txt && ok "records printed with their \\r" || fail "\\r\\n records differ"

  # NUL-terminated records across refills; newlines are part of them.
  { tr '\n' '\0' <mixed.txt; printf 'two\nlines\0'; head -c 2000000 /dev/zero | tr '\0' z; } >rec0.bin
  expect 0 "build -0 across refills" "$ABLOOM" build -0 -o rec0.abloom --fpr 1e-6 rec0.bin
  expect 0 "query -0 across refills" "$ABLOOM" query -0 rec0.abloom rec0.bin
  { cat rec0.bin && printf '\0'; } >want0.bin
  cmp -s out want0.bin && ok "-0 records come out whole" || fail "-0 output differs: $(cmp out want0.bin)"
  expect 0 "query -0 from a pipe" "$ABLOOM" query -0 rec0.abloom < <(dd if=rec0.bin bs=4099 status=none | cat)
  cmp -s out want0.bin && ok "-0 records from a pipe" || fail "-0 pipe output differs: $(cmp out want0.bin)"

  # Converted keys (--hex, --u64) and fields (--column) across batches and refills: the key is
  # converted, the record printed as read.
  awk 'BEGIN { for (i = 0; i < 200000; i++) printf "%d,%08x,%d\n", i, (i * 2654435761) % 4294967296, i * 13 }' >big.csv
  expect 0 "build --column 3 --u64" "$ABLOOM" build -o u.abloom --column 3 --u64 --fpr 1e-6 big.csv
  expect 0 "query --column 3 --u64 prints every record" "$ABLOOM" query --column 3 --u64 u.abloom big.csv
  cmp -s out big.csv && ok "--u64 records" || fail "--u64 output differs: $(cmp out big.csv)"
  cut -d, -f3 big.csv >col3.txt
  expect 0 "query --u64 of the bare numbers" "$ABLOOM" query --count --u64 u.abloom col3.txt
  same "$(cat out)" "200000" "--column --u64 keys are the numbers' bytes"
  expect 0 "build --column 2 --hex" "$ABLOOM" build -o hx.abloom --column 2 --hex --fpr 1e-6 big.csv
  expect 0 "query --column 2 --hex prints every record" "$ABLOOM" query --column 2 --hex hx.abloom big.csv
  cmp -s out big.csv && ok "--hex records" || fail "--hex output differs: $(cmp out big.csv)"
  expect 0 "query --column 2 --hex from a pipe" "$ABLOOM" query --column 2 --hex hx.abloom < <(dd if=big.csv bs=4099 status=none | cat)
  cmp -s out big.csv && ok "--hex records from a pipe" || fail "--hex pipe output differs: $(cmp out big.csv)"
  expect 0 "build --column 2 (raw field)" "$ABLOOM" build -o col.abloom --column 2 --fpr 1e-6 big.csv
  cut -d, -f2 big.csv >col2.txt
  expect 0 "the field's bytes are the key" "$ABLOOM" query --count col.abloom col2.txt
  same "$(cat out)" "200000" "every field found"
  expect 0 "query --column 2 from a pipe prints every record" "$ABLOOM" query --column 2 col.abloom < <(dd if=big.csv bs=4099 status=none | cat)
  cmp -s out big.csv && ok "fields in place, records from a pipe" || fail "--column pipe output differs: $(cmp out big.csv)"
  "$ABLOOM" query --count col.abloom big.csv >out
  (($(cat out) < 10)) && ok "the whole records are not keys ($(cat out) false positives)" ||
    fail "whole records found: $(cat out)"
  # Regular files are mapped whole; files that say they are empty (/proc's) are read instead.
  if [[ -r /proc/version ]]; then
    expect 0 "build from a /proc file (counted by reading it)" "$ABLOOM" build -o pv.abloom /proc/version
    expect 0 "query of a /proc file" "$ABLOOM" query --count pv.abloom /proc/version
    same "$(cat out)" "1" "its one line found"
  fi
  # An error in a later batch: the batches before it are printed, the status is 2.
  { cat big.csv; echo '1,zz,3'; } >badhex.csv
  expect 2 "--hex error after many batches" "$ABLOOM" query --column 2 --hex hx.abloom badhex.csv
  has err "badhex.csv: record 200001: not hex: 'zz'" "names the record"
}

combine() {
  seq 1 1000 >a.txt
  seq 501 1500 >b.txt
  "$ABLOOM" build -o a.abloom --capacity 2000 --fpr 1e-4 a.txt
  "$ABLOOM" build -o b.abloom --capacity 2000 --fpr 1e-4 b.txt
  expect 0 "merge" "$ABLOOM" merge -o m.abloom a.abloom b.abloom
  expect 0 "merge holds the keys of both" "$ABLOOM" query --count -h m.abloom a.txt b.txt
  same "$(cat out)" "2000" "all keys of both"
  expect 0 "intersect" "$ABLOOM" intersect -o i.abloom a.abloom b.abloom
  seq 501 1000 >common.txt
  expect 0 "intersect holds the common keys" "$ABLOOM" query --count i.abloom common.txt
  same "$(cat out)" "500" "every common key"
  seq 1 500 >only_a.txt
  "$ABLOOM" query --count i.abloom only_a.txt >out
  (($(cat out) < 50)) && ok "intersect drops most keys of one side ($(cat out) of 500 left)" ||
    fail "intersect kept $(cat out) of 500"
  expect 0 "merge leaves its inputs unchanged" "$ABLOOM" query --count a.abloom b.txt
  (($(cat out) < 510)) && ok "a.abloom still lacks b's own keys" || fail "a.abloom changed"
  expect 0 "verify the merge" "$ABLOOM" verify m.abloom
}

dedupe() {
  # 1M lines with known duplicates: line i is key (i*7919 mod 600011), 600011 prime, so the first
  # 600011 lines are distinct and the rest repeat them. awk '!seen[$0]++' is the exact answer.
  awk 'BEGIN { for (i = 1; i <= 1000000; i++) print (i * 7919) % 600011 }' >in.txt
  awk '!seen[$0]++' in.txt >exact.txt
  local distinct
  distinct=$(wc -l <exact.txt)
  same "$distinct" "600011" "the input has 600011 distinct keys"
  expect 0 "dedupe 1M lines" "$ABLOOM" dedupe --capacity 600011 --fpr 0.01 --save seen.abloom <in.txt
  mv out got.txt
  # The output is the exact one with some keys dropped: same order, nothing extra, no repeats.
  local bad
  bad=$(awk 'NR == FNR { pos[$0] = FNR; next } !($0 in pos) || pos[$0] <= last { bad++ } { last = pos[$0] } END { print bad + 0 }' exact.txt got.txt)
  same "$bad" "0" "dedupe output is a subsequence of awk's (no repeat, no invented line)"
  local dropped=$((distinct - $(wc -l <got.txt)))
  # Each new key is dropped with probability at most the filter's FPR at that moment, which
  # grows to 0.01 at the last key: fewer than Binomial(600011, 0.01) drops, mean 6000, sd 77. The
  # mean over the fill is about 0.3%; the bound is the whole 1%'s mean + 6 sd, and > 0 checks
  # that false positives happen at all (a dedupe that never drops would be suspect at 1%).
  if ((dropped > 0 && dropped < 6462)); then ok "dedupe dropped $dropped new keys (bound 6462)"; else
    fail "dedupe dropped $dropped new keys"
  fi
  # Its account on stderr: the lines, what it printed and dropped, and the false positives it
  # expects from the FPR it measured on the way (cli/fullness.hpp), close to the drops counted
  # above: the measurement's error over the run is a few percent (30 samples of 4096 keys), the
  # count's own sd 4% at its mean of about 1800.
  has err "abloom: dedupe: 1000000 lines, $(wc -l <got.txt) printed, $((1000000 - $(wc -l <got.txt))) dropped" \
    "dedupe says how many lines it printed and dropped"
  local expected
  expected=$(sed -n 's/.*of the dropped, about \([0-9]*\) are expected.*/\1/p' err)
  if [[ -n $expected ]] && ((expected * 10 > dropped * 7 && expected * 10 < dropped * 13)); then
    ok "dedupe expects $expected false drops, $dropped happened (within 30%)"
  else fail "dedupe expects '$expected' false drops, $dropped happened"; fi
  expect 0 "dedupe --load: every key already seen" "$ABLOOM" dedupe --load seen.abloom <in.txt
  same "$(wc -c <out)" "0" "nothing printed the second time"
  expect 0 "verify the saved dedupe filter" "$ABLOOM" verify seen.abloom
  # --load, then 50000 new keys twice over. The loaded filter moves into memory of its own after
  # as many keys as it has blocks (about 11000 here, cli/filter.hpp), so the repeats are tested
  # against the copy, and the adds before and after the move must all count: each new key is
  # printed at most once, in first-seen order; false positives drop each new key with at most the
  # FPR of all 650011 keys in the filter (abloom_layout_model_fpr: 1.42% at 9.35 bits per key,
  # k = 7, split), so fewer than Binomial(50000, 0.0142) drops, mean 710 + 6 sd = 870; and the
  # file is not changed.
  awk 'BEGIN { for (i = 1; i <= 50000; i++) print "new-" i }' >new.txt
  cat new.txt new.txt >new2.txt
  local before
  before=$(cksum <seen.abloom)
  expect 0 "dedupe --load of new keys, each twice" "$ABLOOM" dedupe --load seen.abloom new2.txt
  bad=$(awk 'NR == FNR { pos[$0] = FNR; next } !($0 in pos) || pos[$0] <= last { bad++ } { last = pos[$0] } END { print bad + 0 }' new.txt out)
  same "$bad" "0" "dedupe --load output is a subsequence of the new keys (no repeat)"
  dropped=$((50000 - $(wc -l <out)))
  if ((dropped > 0 && dropped < 870)); then ok "dedupe --load dropped $dropped new keys (bound 870)"; else
    fail "dedupe --load dropped $dropped new keys"
  fi
  same "$(cksum <seen.abloom)" "$before" "dedupe --load leaves the file unchanged"
  printf 'x\ny\nx\n' >small.txt
  expect 0 "dedupe reads -0" "$ABLOOM" dedupe -0 --capacity 10 < <(tr '\n' '\0' <small.txt)
  same "$(tr '\0' ' ' <out)" "x y " "dedupe -0 output is NUL-terminated"
}

# Growing filters (abloom_options.growth): what build from standard input and dedupe make without
# --capacity, which hold their FPR at any count of keys; add grows one's file through a save; info
# shows its stages; the other commands read it as any filter.
growing() {
  seq 1 100000 >keys.txt
  # The issue's case: 100000 keys into a filter sized for 10 lets every key through.
  expect 0 "build --capacity 10 over 100000 keys (warned)" "$ABLOOM" build -o tiny.abloom --capacity 10 keys.txt
  has err "over its capacity" "an overfull fixed filter is warned of"
  expect 0 "build from stdin without --capacity" "$ABLOOM" build -o g.abloom <keys.txt
  same "$(wc -c <err)" "0" "a growing filter is never over its capacity: no warning"
  expect 0 "info of a growing filter" "$ABLOOM" info g.abloom
  has out "growing:          7 stages, each 2 times the last" "info shows 7 stages (1024 * 127 >= 100000)"
  has out "  stage 6 " "info lists each stage"
  expect 0 "verify a growing filter (every stage's checksum)" "$ABLOOM" verify g.abloom
  has out "OK" "verify says OK"
  expect 1 "query: every key present (none absent: status 1)" "$ABLOOM" query --count --absent g.abloom keys.txt
  same "$(cat out)" "0" "no false negative across 7 stages"
  # 100000 keys never added: false positives ~ Binomial(100000, p <= 0.01): mean <= 1000, sd 31.5.
  seq 1000001 1100000 >absent.txt
  expect 0 "query 100000 absent keys" "$ABLOOM" query --count g.abloom absent.txt
  local fp
  fp=$(cat out)
  if ((fp < 1190)); then ok "growing filter: $fp false positives of 100000 (bound 1190 at 1%)"; else
    fail "growing filter: $fp false positives of 100000"; fi
  # add: the file grows, through a save (the same inode is not written in place).
  seq 100001 300000 >more.txt
  expect 0 "add to a growing filter's file" "$ABLOOM" add g.abloom more.txt
  expect 0 "info --json after the add" "$ABLOOM" info --json g.abloom
  python3 -c 'import json; d=json.load(open("out")); assert d["growth"]==2 and len(d["stages"])==9 and d["set_bits"] is None and 290000<d["keys"]<=300000 and d["growth_failed"] is False and d["expected_fpr"]<0.01, d' &&
    ok "info --json: 9 stages, the keys counted" || fail "info --json of the grown file: $(cat out)"
  cat keys.txt more.txt >all.txt
  expect 1 "query --absent: all 300000 keys present" "$ABLOOM" query --absent g.abloom all.txt
  expect 0 "verify the grown file" "$ABLOOM" verify g.abloom
  # The same input makes the same file with any --threads: one thread adds a growing filter's
  # keys in input order (which stage takes a key depends on the keys before it). Standard input
  # comes in many reads here (a writer that pauses), each a part that another thread could take.
  "$ABLOOM" build -q --threads 1 -o g1.abloom <keys.txt
  for t in 4 8; do
    (for start in 1 25001 50001 75001; do
      seq "$start" $((start + 24999))
      sleep 0.05
    done) | "$ABLOOM" build -q --threads "$t" -o "g$t.abloom"
    if cmp -s g1.abloom "g$t.abloom"; then ok "growing build from stdin in 4 writes, --threads $t: the bytes of --threads 1"; else
      fail "growing build with --threads $t differs from --threads 1"; fi
  done
  cp g1.abloom g1add.abloom
  cp g1.abloom g4add.abloom
  "$ABLOOM" add -q --threads 1 g1add.abloom more.txt
  "$ABLOOM" add -q --threads 4 g4add.abloom more.txt
  if cmp -s g1add.abloom g4add.abloom; then ok "add to a growing file with --threads 4: the bytes of --threads 1"; else
    fail "add to a growing file with --threads 4 differs from --threads 1"; fi
  # merge: stage by stage, for two growing filters made alike; never with a fixed one.
  seq 1 5000 | "$ABLOOM" build -o a.abloom
  seq 5001 20000 | "$ABLOOM" build -o b.abloom
  expect 0 "merge two growing filters" "$ABLOOM" merge -o ab.abloom a.abloom b.abloom
  seq 1 20000 >ab.txt
  expect 1 "merged: every key of both" "$ABLOOM" query --absent ab.abloom ab.txt
  expect 2 "merge a growing filter with a fixed one" "$ABLOOM" merge -o x.abloom a.abloom tiny.abloom
  expect 2 "intersect growing filters: refused" "$ABLOOM" intersect -o x.abloom a.abloom b.abloom
  has err "unsupported" "intersect says it is unsupported"
  # dedupe without --capacity: each new key dropped with at most 1% (Binomial(150000, 0.01):
  # mean 1500, sd 38.5), repeats never printed.
  (seq 1 100000; seq 50001 150000) >dup.txt
  expect 0 "dedupe without --capacity" "$ABLOOM" dedupe --save d.abloom <dup.txt
  local printed
  printed=$(wc -l <out)
  if ((printed <= 150000 && printed > 150000 - 1730)); then ok "dedupe printed $printed of 150000 distinct"; else
    fail "dedupe printed $printed of 150000 distinct"; fi
  same "$(sort out | uniq -d | wc -l)" "0" "dedupe printed no key twice"
  expect 0 "dedupe's saved filter is a growing one" "$ABLOOM" info --json d.abloom
  python3 -c 'import json; d=json.load(open("out")); assert d["growth"]==2 and len(d["stages"])>=8, d' &&
    ok "dedupe saved its growing filter" || fail "dedupe's filter: $(cat out)"
  # plan --growing: 100000 keys take 7 stages (1024 * (2^7 - 1) >= 100000 > 1024 * (2^6 - 1)),
  # the bytes of the file build made above less its headers, more than a fixed filter's.
  expect 0 "plan --growing" "$ABLOOM" plan --growing --capacity 100000
  has out "stages:       7" "plan --growing: 7 stages at 100000 keys"
  expect 0 "plan --growing --json" "$ABLOOM" plan --growing --json --capacity 100000 --fpr 0.001
  python3 -c 'import json; d=json.load(open("out")); assert d["keys"]==100000 and d["stages"]==7 and d["fpr_bound"]<0.001 and d["bytes"]>d["fixed_bytes"]>0 and abs(d["ratio_to_fixed"]-d["bytes"]/d["fixed_bytes"])<1e-9, d' &&
    ok "plan --growing --json values" || fail "plan --growing --json: $(cat out)"
  expect 2 "plan --growing with --k" "$ABLOOM" plan --growing --capacity 1000 --k 5
}

# A filter over its capacity is never silent (cli/fullness.hpp): build, add and dedupe warn when
# the estimated FPR ends above twice its target, --strict makes it exit status 4, --quiet silences
# the warning but not --strict's status, and the file is written all the same.
# query as grep reads its files: an input that cannot be read (missing, a directory, a bad record)
# is reported and the others are read all the same, with exit status 2 at the end; -H / -h and
# the default of names with more than one input; -c per input with names.
grep_habits() {
  seq 1 100 >a.txt
  seq 51 150 >b.txt
  "$ABLOOM" build -q -o a.abloom --fpr 1e-6 a.txt
  expect 2 "query: a missing input between two files" "$ABLOOM" query a.abloom a.txt missing.txt b.txt
  has err "abloom: missing.txt: No such file or directory" "the missing input is named with the reason"
  same "$(grep -c . err)" "1" "one message"
  same "$(head -n 1 out)" "a.txt:1" "more than one input: each record after its input's name"
  same "$(grep -c '^a.txt:' out) $(grep -c '^b.txt:' out)" "100 50" "the inputs after the missing one are read"
  same "$(tail -n 1 out)" "b.txt:100" "b.txt's records in order"
  expect 2 "query --count: a missing input" "$ABLOOM" query -c a.abloom a.txt missing.txt b.txt
  same "$(cat out | tr '\n' ' ')" "a.txt:100 b.txt:50 " "--count with names: one count per input read"
  expect 2 "query -c -h: a missing input" "$ABLOOM" query -c -h a.abloom a.txt missing.txt b.txt
  same "$(cat out)" "150" "--count without names: the total of the inputs read"
  # Inputs are files, not <(...): a Windows build under wine cannot open /dev/fd/N.
  seq 1000 1010 >none.txt
  expect 1 "query: no match, no error" "$ABLOOM" query a.abloom none.txt
  expect 2 "query: no match, but an error" "$ABLOOM" query a.abloom missing.txt none.txt
  mkdir -p dir
  expect 2 "query: a directory first" "$ABLOOM" query -h a.abloom dir b.txt
  has err "abloom: dir: Is a directory" "the directory named"
  same "$(wc -l <out)" "50" "the input after the directory is read"
  printf '1\nzz\n' >bad.hex
  printf '64\n' >good.hex
  expect 2 "query --hex: a bad record, then a good input" "$ABLOOM" query --hex -h a.abloom bad.hex good.hex
  has err "bad.hex: record 1: odd number of hex digits" "the bad record is named"
  "$ABLOOM" build -q -o h.abloom --hex good.hex
  expect 2 "query --hex: the good input after the bad one" "$ABLOOM" query --hex h.abloom bad.hex good.hex
  same "$(cat out)" "good.hex:64" "the good input's match, with its name"
  # -H with one input, -h with several, stdin's name.
  expect 0 "query -H, one input" "$ABLOOM" query -H a.abloom b.txt
  same "$(head -n 1 out)" "b.txt:51" "-H: the name with one input too"
  expect 0 "query -h, two inputs" "$ABLOOM" query -h a.abloom a.txt b.txt
  same "$(head -n 1 out) $(wc -l <out)" "1 150" "-h: no names"
  expect 0 "query --with-filename from stdin" "$ABLOOM" query --with-filename a.abloom <b.txt
  same "$(head -n 1 out)" "(stdin):51" "stdin's name"
  expect 0 "query -c -H, one input" "$ABLOOM" query -c -H a.abloom b.txt
  same "$(cat out)" "b.txt:50" "-c -H: the count after the name"
  expect 0 "query -c, one input" "$ABLOOM" query -c a.abloom b.txt
  same "$(cat out)" "50" "-c, one input: the count alone"
  printf '7\0' >seven.nul
  expect 0 "query -0 -H" "$ABLOOM" query -0 -H a.abloom seven.nul
  same "$(tr '\0' '|' <out)" "seven.nul:7|" "-0 -H: the name, a colon and the record, then NUL"
  expect 2 "-H and -h together are refused" "$ABLOOM" query -H -h a.abloom a.txt
  expect 0 "query --help still works (-h is --no-filename)" "$ABLOOM" query --help
  has out "--no-filename" "query --help lists -h"
}

# Compressed input (cli/decompress.hpp), recognised by its magic bytes: gzip read through zlib
# where the command was built with it (ABLOOM_TEST_GZIP=read, from tests/CMakeLists.txt), else
# refused by name (refuse); zstd, xz, bzip2 and lz4 always refused by name, never read as keys.
compressed() {
  local gzip_mode=${ABLOOM_TEST_GZIP:?ABLOOM_TEST_GZIP must be read or refuse (tests/CMakeLists.txt)}
  seq 1 200000 >k.txt
  "$ABLOOM" build -q -o k.abloom k.txt
  # Two members, as `cat a.gz b.gz` makes: the second must be read too. Made with Python's gzip
  # module, so that the test needs no gzip program (the Windows run has none).
  python3 -c 'import gzip, sys
data = open("k.txt", "rb").read()
half = data.index(b"\n", len(data) // 2) + 1
open("k.txt.gz", "wb").write(gzip.compress(data[:half]) + gzip.compress(data[half:]))
open("trunc.gz", "wb").write(gzip.compress(data)[:5000])
bad = bytearray(gzip.compress(data)); bad[len(bad) // 2] ^= 0xff
open("bad.gz", "wb").write(bytes(bad))
for name, magic in [("zst", b"\x28\xb5\x2f\xfd"), ("xz", b"\xfd7zXZ\x00"), ("bz2", b"BZh9"),
                    ("lz4", b"\x04\x22\x4d\x18")]:
    open("k." + name, "wb").write(magic + bytes(64))'
  if [[ $gzip_mode == read ]]; then
    expect 0 "build from a gzip file (counted through zlib)" "$ABLOOM" build -o kgz.abloom k.txt.gz
    cmp -s kgz.abloom k.abloom && ok "the same filter as from the plain file" || fail "gzip built another filter"
    expect 0 "query --count of a gzip file" "$ABLOOM" query -c k.abloom k.txt.gz
    same "$(cat out)" "200000" "every key of both members"
    expect 0 "query of gzip from stdin" "$ABLOOM" query -h k.abloom - <k.txt.gz
    cmp -s out k.txt && ok "stdin's gzip: every record, in order" || fail "stdin's gzip: $(cmp out k.txt)"
    expect 0 "query of gzip on 3 threads" "$ABLOOM" query --threads 3 k.abloom k.txt.gz
    cmp -s out k.txt && ok "gzip on 3 threads: every record, in order" || fail "gzip on 3 threads: $(cmp out k.txt)"
    "$ABLOOM" build -q --capacity 200000 -o e.abloom /dev/null
    expect 0 "add from gzip" "$ABLOOM" add e.abloom k.txt.gz
    cmp -s e.abloom k.abloom && ok "add from gzip: the same filter" || fail "add from gzip: another filter"
    # At an FPR of 1e-9 no key is dropped (the hash is seeded, so this run is always the same).
    expect 0 "dedupe of gzip" "$ABLOOM" dedupe -q --capacity 200000 --fpr 1e-9 k.txt.gz
    cmp -s out k.txt && ok "dedupe reads every line of it" || fail "dedupe of gzip: $(cmp out k.txt)"
    expect 2 "query of a truncated gzip file" "$ABLOOM" query -c k.abloom trunc.gz
    has err "trunc.gz: gzip data ends early" "a truncated gzip file is named as such"
    expect 2 "query of a corrupt gzip file" "$ABLOOM" query -c k.abloom bad.gz
    has err "bad.gz: not valid gzip data" "a corrupt gzip file is named as such"
  else
    expect 2 "gzip refused" "$ABLOOM" query -c k.abloom k.txt.gz
    has err "k.txt.gz: compressed with gzip; this abloom was built without zlib" "gzip refused by name"
    has err "(gzip -dc k.txt.gz | abloom ...)" "with the command to run instead"
    expect 2 "build from gzip refused" "$ABLOOM" build -o x.abloom k.txt.gz
    [[ ! -e x.abloom ]] && ok "no file written" || fail "a file was written from refused input"
  fi
  for ext in zst xz bz2 lz4; do
    expect 2 "query of a .$ext file" "$ABLOOM" query -c k.abloom "k.$ext"
    has err "k.$ext: compressed with " "the .$ext file is refused by name"
  done
  expect 2 "xz on stdin" "$ABLOOM" query -c k.abloom <k.xz
  has err "(stdin): compressed with xz; abloom reads plain or gzip input only: decompress it first (xz -dc | abloom ...)" \
    "stdin's xz refused, with the command to run"
  expect 2 "build from a bzip2 file refused" "$ABLOOM" build --capacity 10 -o x.abloom k.bz2
  # A plain file that starts like a magic number but is text: read as keys.
  printf 'BZh\nBZhx\n' >text.txt
  expect 0 "text starting with BZh is plain" "$ABLOOM" build -o t.abloom text.txt
}

# --skip-bad: records without the column, or not valid --hex / --u64, are skipped and counted on
# stderr, naming the first by its input and record (counted from the input's start on any number
# of threads); without it the first is an error.
skip_bad() {
  printf 'a,1\nb\nc,3\nd,x\ne,5\n' >s.csv
  expect 2 "a bad record is an error" "$ABLOOM" build --column 2 --u64 -o s.abloom s.csv
  has err "s.csv: record 2 has no column 2" "the error names the record"
  expect 0 "build --skip-bad" "$ABLOOM" build --skip-bad --column 2 --u64 -o s.abloom s.csv
  has err "abloom: warning: skipped 2 records that could not become keys (the first: s.csv: record 2 has no column 2 (only 1 field))" \
    "build --skip-bad counts the skipped records and names the first"
  expect 0 "query --skip-bad" "$ABLOOM" query --skip-bad --column 2 --u64 s.abloom s.csv
  same "$(tr '\n' ' ' <out)" "a,1 c,3 e,5 " "the good records match, the bad ones are left out"
  has err "skipped 2 records" "query --skip-bad counts them too"
  expect 0 "query --skip-bad --quiet" "$ABLOOM" query -q --skip-bad --column 2 --u64 s.abloom s.csv
  same "$(wc -c <err)" "0" "--quiet: no count"
  expect 0 "dedupe --skip-bad" "$ABLOOM" dedupe -q --skip-bad --column 2 --capacity 10 <s.csv
  same "$(tr '\n' ' ' <out)" "a,1 c,3 d,x e,5 " "dedupe --skip-bad leaves out the record without the column"
  printf '00ff\nzz\n0\nabcd\n' >h.txt
  expect 0 "--hex --skip-bad" "$ABLOOM" build --skip-bad --hex -o h.abloom h.txt
  has err "skipped 2 records that could not become keys (the first: h.txt: record 2: not hex: 'zz')" "--hex: bad digits and odd lengths skipped"
  printf '00ff\nabcd\n' >good.txt
  expect 0 "the good hex keys are in it" "$ABLOOM" query -c --hex h.abloom good.txt
  same "$(cat out)" "2" "both good hex keys"
  # Many parts on 4 threads: the first bad record named by its number in its input.
  awk 'BEGIN { for (i = 1; i <= 400000; i++) if (i % 100000 == 0) print "bad"; else print "k," i }' >big.csv
  expect 0 "build --skip-bad on 4 threads" "$ABLOOM" build --threads 4 --skip-bad --column 2 -o big.abloom big.csv
  has err "skipped 4 records that could not become keys (the first: big.csv: record 100000 has no column 2" \
    "4 threads: the count, and the first record's number in its input"
  expect 0 "add --skip-bad to it from two inputs" "$ABLOOM" add --skip-bad --column 2 big.abloom s.csv big.csv
  has err "skipped 5 records that could not become keys (the first: s.csv: record 2 " "counted over every input (1 + 4)"
  expect 0 "query --skip-bad on 4 threads" "$ABLOOM" query -c --threads 4 --skip-bad --column 2 big.abloom big.csv
  same "$(cat out)" "399996" "every good record is found"
}

full() {
  seq 1 100000 >keys.txt
  expect 0 "build --capacity 10 of 100000 keys" "$ABLOOM" build --capacity 10 -o tiny.abloom keys.txt
  has err "warning: tiny.abloom is over its capacity" "build warns of a filter over its capacity"
  has err "sized for 10 keys" "the warning names the capacity"
  has err "estimated FPR is 1," "the warning gives the estimated FPR"
  has err "Build it again with a --capacity" "the warning says what to do"
  same "$(grep -c . err)" "1" "the warning is one line"
  expect 0 "the file is written all the same" "$ABLOOM" verify tiny.abloom
  expect 4 "build --strict of a filter over its capacity" "$ABLOOM" build --strict --capacity 10 -o strict.abloom keys.txt
  has err "over its capacity" "--strict warns too"
  expect 0 "--strict writes the file all the same" "$ABLOOM" verify strict.abloom
  expect 4 "build --strict --quiet" "$ABLOOM" build --strict --quiet --capacity 10 -o quiet.abloom keys.txt
  same "$(wc -c <err)" "0" "--quiet: no warning"
  expect 0 "build --quiet over capacity" "$ABLOOM" build --quiet --capacity 10 -o quiet.abloom keys.txt
  # 5x the capacity: an estimated count is given, and a capacity to type.
  expect 0 "build --capacity 20000 of 100000 keys" "$ABLOOM" build --capacity 20000 -o over.abloom keys.txt
  # The estimate is within a few percent at 5x (capi/abloom.h): 95,000 to 105,000.
  if grep -qE "about (9[5-9]|10[0-4]),[0-9]{3} keys" err; then ok "the warning gives the estimated keys"; else
    fail "no estimated count of about 100,000: $(cat err)"
  fi
  if grep -qE -- "--capacity (19|20)[0-9]{4} or more" err; then ok "the warning suggests a capacity for the keys and as many again"; else
    fail "no suggested capacity: $(cat err)"
  fi
  # Within capacity, or at the target FPR: nothing.
  expect 0 "build at capacity" "$ABLOOM" build --capacity 100000 -o fits.abloom keys.txt
  same "$(wc -c <err)" "0" "a filter at its capacity: no warning"
  expect 0 "build --strict at capacity" "$ABLOOM" build --strict -o fits.abloom keys.txt
  # add: 200k keys into a filter sized for 1k.
  seq 1 1000 >thousand.txt
  seq 1 10 >ten.txt
  expect 0 "build a filter for 1000 keys" "$ABLOOM" build --capacity 1000 -o small.abloom thousand.txt
  same "$(wc -c <err)" "0" "1000 keys in a filter for 1000: no warning"
  seq 1001 201000 >more.txt
  expect 0 "add 200k keys to a filter for 1k" "$ABLOOM" add small.abloom more.txt
  has err "warning: small.abloom is over its capacity" "add warns"
  expect 4 "add --strict" "$ABLOOM" add --strict small.abloom ten.txt
  # dedupe far over its capacity: 100000 distinct lines, so every line dropped is a new key lost
  # to a false positive, and its account must say so.
  expect 0 "dedupe 100000 distinct lines with --capacity 1000" "$ABLOOM" dedupe --capacity 1000 <keys.txt
  local printed dropped expected
  printed=$(wc -l <out)
  dropped=$((100000 - printed))
  has err "abloom: dedupe: 100000 lines, $printed printed, $dropped dropped" "dedupe's account of its lines"
  expected=$(sed -n 's/.*of the dropped, about \([0-9]*\) are expected.*/\1/p' err)
  if [[ -n $expected ]] && ((expected * 100 >= dropped * 95)); then
    ok "dedupe over capacity expects $expected of $dropped drops to be false positives"
  else fail "dedupe over capacity expects '$expected' false drops of $dropped"; fi
  has err "warning: dedupe's filter is over its capacity" "dedupe warns"
  expect 4 "dedupe --strict" "$ABLOOM" dedupe --strict --capacity 1000 <keys.txt
  expect 0 "dedupe --quiet" "$ABLOOM" dedupe --quiet --capacity 1000 --save d.abloom <keys.txt
  same "$(wc -c <err)" "0" "dedupe --quiet: no account, no warning"
  has <("$ABLOOM" dedupe --capacity 1000 --save d.abloom <keys.txt 2>&1 >/dev/null) "d.abloom is over its capacity" \
    "dedupe --save: the warning names the saved file"
}

progress() {
  # `abloom build` shows a progress line on stderr when stderr is a terminal, and only then; never
  # with --quiet. under_pty.py gives the command a pseudo-terminal and writes what it got to a
  # file. The line is drawn at most every 250 ms, so every run that should draw one is made to
  # take longer than that partway through: a FIFO's keys come with a pause of 600 ms in the
  # middle, and a file's reader is stopped for 0.5 s once it has read part of it (under_pty.py
  # --pause-while-reading). --quiet and a stderr that is no terminal are tested under the same
  # pauses, so their silence is not for want of time.
  local pty=(python3 "$HERE/under_pty.py")
  # progress_line OUT: the last progress line drawn in OUT: \r, the line, then erase to the end of
  # the line (\e[K), which is left out here.
  progress_line() { tr '\r' '\n' <"$1" | LC_ALL=C sed 's/\x1b\[K$//' | grep -aE '^[0-9]+ keys, ' | tail -n 1; }
  # erased OUT DESCRIPTION: OUT ends with the line erased (\r, then erase to end of line), so
  # whatever comes next starts on a clean line.
  erased() {
    same "$(tail -c 4 "$1" | od -An -c | tr -s ' ')" "$(printf '\r\033[K' | od -An -c | tr -s ' ')" "$2"
  }
  # counts LINE MAX DESCRIPTION: the keys LINE counts were read: more than the first batch, at most
  # all MAX of them.
  counts() {
    local n=${1%% *}
    if [[ -n $1 ]] && ((n >= 65536 && n <= $2)); then ok "$3: $n keys"; else
      fail "$3: '$n' keys"
    fi
  }

  # ---- A FIFO: no size to go by, so no ETA.
  mkfifo keys.fifo
  feed() { { seq 1 100000 && sleep 0.6 && seq 100001 200000; } >keys.fifo; }
  # After a build that failed before reading everything: read the rest so the writer ends (a
  # writer still blocked on the FIFO would hang the wait below until ctest's timeout).
  drain() { [[ $1 == 0 ]] || timeout 10 cat keys.fifo >/dev/null 2>&1 || true; }
  # build_fifo OUT [--no-pty] ARGS...: abloom build ARGS reading keys.fifo as feed writes it, under
  # a pty (or not, with --no-pty); what the terminal got goes to OUT.
  build_fifo() {
    local out=$1 opts=()
    shift
    [[ $1 != --no-pty ]] || { opts=(--no-pty) && shift; }
    feed &
    "${pty[@]}" "${opts[@]}" "$out" "$ABLOOM" build "$@" </dev/null
    local st=$?
    drain $st
    wait
    return $st
  }

  expect 0 "build from a FIFO under a terminal" build_fifo tty.txt -o tty.abloom --capacity 200000 keys.fifo
  local line
  line=$(progress_line tty.txt)
  if [[ $line =~ ^[0-9]+\ keys,\ [0-9]+\ keys/s,\ [0-9]+\.[0-9]\ MB$ ]]; then
    ok "a FIFO: a progress line without a total or an ETA: '$line'"
  else
    fail "a FIFO: not 'N keys, R keys/s, B MB' alone: '$line': $(od -c tty.txt | head -n 5)"
  fi
  counts "$line" 200000 "a FIFO: the line counts keys read"
  erased tty.txt "a FIFO: the line is erased when the build ends"
  expect 0 "the terminal's build holds every key" "$ABLOOM" query --count tty.abloom <(seq 1 200000)
  same "$(cat out)" "200000" "all 200000 keys"

  expect 0 "build --quiet from a FIFO under a terminal" build_fifo quiet.txt -q -o quiet.abloom --capacity 200000 keys.fifo
  same "$(wc -c <quiet.txt)" "0" "a FIFO, --quiet: nothing on the terminal"
  cmp -s tty.abloom quiet.abloom && ok "--quiet builds the same file" || fail "--quiet built another file"

  expect 0 "build from a FIFO with stderr not a terminal" build_fifo file.txt --no-pty -o file.abloom --capacity 200000 keys.fifo
  same "$(wc -c <file.txt)" "0" "a FIFO, stderr to a file: no progress line"
  cmp -s tty.abloom file.abloom && ok "the same file without a terminal" || fail "another file without a terminal"

  # ---- A regular file: its size is known, so the line also gives the total and an ETA. 2M lines
  # of 16 bytes (32.0 MB) and --capacity, so that nothing reads the file before the build does
  # (the counting pass would, and under_pty.py would pause that instead).
  seq -f '%015.0f' 1 2000000 >keys.txt
  local size=32.0
  same "$(stat -c %s keys.txt)" "32000000" "the input is 32.0 MB"
  # build_file OUT [--no-pty] ARGS...: abloom build ARGS (which read keys.txt), paused once partway
  # through keys.txt.
  build_file() {
    local out=$1 opts=()
    shift
    [[ $1 != --no-pty ]] || { opts=(--no-pty) && shift; }
    "${pty[@]}" "${opts[@]}" --pause-while-reading keys.txt "$out" "$ABLOOM" build "$@"
  }

  expect 0 "build from a file under a terminal" build_file eta.txt -o eta.abloom --capacity 2000000 keys.txt </dev/null
  line=$(progress_line eta.txt)
  if [[ $line =~ ^[0-9]+\ keys,\ [0-9]+\ keys/s,\ ([0-9]+\.[0-9])\ MB\ of\ "$size"\ MB,\ ETA\ [0-9]+\ s$ ]] &&
    awk -v b="${BASH_REMATCH[1]}" -v t="$size" 'BEGIN { exit !(b > 0 && b <= t) }'; then
    ok "a file: keys, keys/s, the bytes read of its $size MB and an ETA: '$line'"
  else
    fail "a file: not 'N keys, R keys/s, B MB of $size MB, ETA S s' (0 < B <= $size): '$line': $(od -c eta.txt | head -n 5)"
  fi
  counts "$line" 2000000 "a file: the line counts keys read"
  erased eta.txt "a file: the line is erased when the build ends"
  expect 0 "the file's build holds every key" "$ABLOOM" query --count eta.abloom keys.txt
  same "$(cat out)" "2000000" "all 2000000 keys"

  expect 0 "build --quiet from a file under a terminal" build_file quiet_file.txt -q -o quiet_file.abloom --capacity 2000000 keys.txt </dev/null
  same "$(wc -c <quiet_file.txt)" "0" "a file, --quiet: nothing on the terminal"
  expect 0 "build from a file with stderr not a terminal" build_file file_file.txt --no-pty -o file_file.abloom --capacity 2000000 keys.txt </dev/null
  same "$(wc -c <file_file.txt)" "0" "a file, stderr to a file: no progress line"
  cmp -s eta.abloom quiet_file.abloom && cmp -s eta.abloom file_file.abloom &&
    ok "a file: the same filter with a terminal, --quiet and without" || fail "a file: the filters differ"

  # Standard input has no size for the command ("-" is read as a stream, whatever it is), so no
  # total and no ETA, even when it is that file.
  expect 0 "build from stdin (the file) under a terminal" build_file stdin.txt -o stdin.abloom --capacity 2000000 - <keys.txt
  line=$(progress_line stdin.txt)
  if [[ $line =~ ^[0-9]+\ keys,\ [0-9]+\ keys/s,\ [0-9]+\.[0-9]\ MB$ ]]; then
    ok "stdin: a progress line without a total or an ETA: '$line'"
  else
    fail "stdin: not 'N keys, R keys/s, B MB' alone: '$line': $(od -c stdin.txt | head -n 5)"
  fi
  erased stdin.txt "stdin: the line is erased when the build ends"
  cmp -s eta.abloom stdin.abloom && ok "stdin: the same filter" || fail "stdin: another filter"

  # ---- query and dedupe, whose standard output is their output: a progress line only when that
  # is not the terminal, or with --count, which prints only at the end.
  # run_file OUT CMD...: CMD under a terminal, paused once partway through keys.txt.
  run_file() {
    local out=$1
    shift
    "${pty[@]}" --pause-while-reading keys.txt "$out" "$@" </dev/null
  }
  # to_file FILE CMD...: CMD with its standard output to FILE, the same process (exec).
  local to_file=(bash -c 'f=$1; shift; exec "$@" >"$f"' _)
  eta_line() { [[ $1 =~ ^[0-9]+\ keys,\ [0-9]+\ keys/s,\ [0-9]+\.[0-9]\ MB\ of\ "$size"\ MB,\ ETA\ [0-9]+\ s$ ]]; }
  expect 0 "query --count from a file under a terminal" run_file qc.txt "$ABLOOM" query --count eta.abloom keys.txt
  line=$(progress_line qc.txt)
  eta_line "$line" && ok "query --count: a progress line with an ETA: '$line'" || fail "query --count: '$line'"
  counts "$line" 2000000 "query --count: the line counts keys tested"
  same "$(tr -d '\r' <qc.txt | LC_ALL=C sed 's/.*\x1b\[K//' | tail -n 1)" "2000000" "query --count: the count after the erased line"
  expect 0 "query printing to the terminal" run_file qt.txt "$ABLOOM" query eta.abloom keys.txt
  same "$(grep -ac ' keys/s' qt.txt)" "0" "query printing to the terminal: no progress line between its records"
  same "$(tr -d '\r' <qt.txt | wc -l)" "2000000" "query printing to the terminal: every record"
  expect 0 "query to a file, stderr a terminal" run_file qf.txt "${to_file[@]}" q.out "$ABLOOM" query eta.abloom keys.txt
  line=$(progress_line qf.txt)
  eta_line "$line" && ok "query to a file: a progress line with an ETA: '$line'" || fail "query to a file: '$line'"
  erased qf.txt "query to a file: the line is erased at the end"
  cmp -s q.out keys.txt && ok "query to a file: every record in it" || fail "query to a file: $(cmp q.out keys.txt)"
  expect 0 "query -q to a file" run_file qq.txt "${to_file[@]}" q.out "$ABLOOM" query -q eta.abloom keys.txt
  same "$(wc -c <qq.txt)" "0" "query --quiet: nothing on the terminal"
  expect 0 "dedupe to a file, stderr a terminal" run_file df.txt "${to_file[@]}" d.out "$ABLOOM" dedupe --capacity 2000000 keys.txt
  line=$(progress_line df.txt)
  eta_line "$line" && ok "dedupe to a file: a progress line with an ETA: '$line'" || fail "dedupe to a file: '$line'"
  counts "$line" 2000000 "dedupe: the line counts keys read"
  has df.txt "abloom: dedupe: 2000000 lines" "dedupe: its account after the progress line"
  expect 0 "dedupe printing to the terminal" run_file dt.txt "$ABLOOM" dedupe --capacity 2000000 keys.txt
  same "$(grep -ac ' keys/s' dt.txt)" "0" "dedupe printing to the terminal: no progress line between its lines"
}

threads() {
  # --threads N: each thread reads a part of the input (one read, at most 1 MiB, cut after its
  # last record end), parses it and adds or tests its keys (cli/parallel_input.hpp). Records that
  # straddle parts, records longer than a part, several inputs, pipes, and output in input order
  # must all come out as on one thread; errors too, numbered from the start of their input.
  awk 'BEGIN { srand(11); for (i = 0; i < 150000; i++) { n = int(rand() * 30); s = "";
    for (j = 0; j < n; j++) s = s sprintf("%c", 97 + int(rand() * 26)); print s } }' >mixed.txt
  { head -c 3000000 /dev/zero | tr '\0' q; printf '\n\n'; cat mixed.txt; head -c 2500000 /dev/zero | tr '\0' r; } >rec.txt
  printf 'only\n' >one.txt
  : >empty.txt
  local inputs=(rec.txt empty.txt mixed.txt one.txt)
  { cat rec.txt && echo && cat mixed.txt one.txt; } >want.txt

  expect 0 "build on 1 thread" "$ABLOOM" build -q --threads 1 --fpr 1e-6 -o b1.abloom "${inputs[@]}"
  expect 0 "build on 4 threads" "$ABLOOM" build -q --threads 4 --fpr 1e-6 -o b4.abloom "${inputs[@]}"
  cmp -s b1.abloom b4.abloom && ok "build: the same file on 1 and 4 threads" || fail "build: 4 threads wrote another file"
  # The counting pass splits rec.txt (over 4 MiB, its last record unterminated) between threads.
  expect 0 "info of the 4-thread build" "$ABLOOM" info b4.abloom
  has out "capacity:         $(wc -l <want.txt) " "4 threads count every record, the unterminated last one too"
  # And a terminated one (over 8 MiB, two counting ranges, one cut inside a record): no record more.
  seq 1 1200000 >counted.txt
  expect 0 "build on 4 threads, counted" "$ABLOOM" build -q --threads 4 -o counted.abloom counted.txt
  expect 0 "info of the counted build" "$ABLOOM" info counted.abloom
  has out "capacity:         1200000 " "4 threads count 1200000 records"
  expect 0 "build on 3 threads from a pipe of small writes" "$ABLOOM" build -q --threads 3 --fpr 1e-6 \
    --capacity "$(wc -l <want.txt)" -o p3.abloom < <(dd if=want.txt bs=4099 status=none | cat)
  expect 0 "build --capacity on 1 thread" "$ABLOOM" build -q --fpr 1e-6 --capacity "$(wc -l <want.txt)" -o p1.abloom "${inputs[@]}"
  cmp -s p1.abloom p3.abloom && ok "build: the same file from a pipe of the same records on 3 threads" ||
    fail "build: the pipe on 3 threads differs"
  "$ABLOOM" build -q --fpr 1e-6 --capacity "$(wc -l <want.txt)" -o a1.abloom /dev/null
  cp a1.abloom a4.abloom
  expect 0 "add on 1 thread" "$ABLOOM" add -q a1.abloom "${inputs[@]}"
  expect 0 "add on 4 threads" "$ABLOOM" add -q --threads 4 a4.abloom "${inputs[@]}"
  cmp -s a1.abloom a4.abloom && cmp -s a1.abloom p1.abloom && ok "add: the same file on 1 and 4 threads, and as build's" ||
    fail "add: 4 threads wrote another file"
  expect 0 "verify the file added to on 4 threads" "$ABLOOM" verify a4.abloom

  expect 0 "query on 4 threads" "$ABLOOM" query -h --threads 4 b4.abloom "${inputs[@]}"
  cmp -s out want.txt && ok "query on 4 threads prints every record, in input order" || fail "query on 4 threads: $(cmp out want.txt)"
  expect 0 "query on 3 threads from a pipe" "$ABLOOM" query --threads 3 b4.abloom < <(cat rec.txt | dd bs=4099 status=none | cat)
  { cat rec.txt && echo; } >want_rec.txt
  cmp -s out want_rec.txt && ok "the same records from a pipe on 3 threads" || fail "pipe on 3 threads: $(cmp out want_rec.txt)"
  expect 0 "query --count on 2 threads" "$ABLOOM" query --count -h --threads 2 b4.abloom "${inputs[@]}"
  same "$(cat out)" "$(wc -l <want.txt)" "--count on 2 threads counts every record"
  awk 'BEGIN { srand(12); for (i = 0; i < 300000; i++) printf "other-%d\n", int(rand() * 1e9) }' >others.txt
  "$ABLOOM" query --absent b1.abloom others.txt mixed.txt >absent1
  expect 0 "query --absent on 4 threads" "$ABLOOM" query --absent --threads 4 b1.abloom others.txt mixed.txt
  cmp -s out absent1 && [[ -s absent1 ]] && ok "--absent: the same lines on 1 and 4 threads" || fail "--absent on 4 threads differs"

  # A regular file is cut into 1 MiB ranges, and each record goes to the range its first byte is
  # in: a terminator just before, at, and just after a range's end, and 16-byte records that end
  # exactly at every range's end.
  local edge
  for edge in 1048574 1048575 1048576; do
    { head -c "$edge" /dev/zero | tr '\0' e; echo; seq 1 100000; } >edge.txt
    "$ABLOOM" build -q --fpr 1e-6 -o edge.abloom edge.txt
    expect 0 "query on 3 threads, a record end at byte $edge" "$ABLOOM" query --threads 3 edge.abloom edge.txt
    cmp -s out edge.txt && ok "every record once, in order (end at byte $edge)" || fail "end at byte $edge: $(cmp out edge.txt)"
  done
  seq -f '%015.0f' 1 200000 >sixteen.txt
  "$ABLOOM" build -q -o s1.abloom sixteen.txt
  expect 0 "build on 4 threads, records ending at every range's end" "$ABLOOM" build -q --threads 4 -o s4.abloom sixteen.txt
  cmp -s s1.abloom s4.abloom && ok "the same file as on 1 thread" || fail "16-byte records on 4 threads: another file"
  expect 0 "query --count on 4 threads, records ending at every range's end" "$ABLOOM" query --count --threads 4 s4.abloom sixteen.txt
  same "$(cat out)" "200000" "each record counted once"

  # The default: the CPUs the command may run on (its affinity mask), at most 8; help shows it.
  taskset -c 0 "$ABLOOM" build --help >help1
  has help1 "at most 8: 1 here" "one CPU allowed: one thread by default"
  if (($(nproc) >= 2)); then
    taskset -c 0,1 "$ABLOOM" query --help >help2
    has help2 "at most 8: 2 here" "two CPUs allowed: two threads by default"
  fi

  # NUL-ended records across parts.
  { tr '\n' '\0' <mixed.txt; printf 'two\nlines\0'; head -c 2000000 /dev/zero | tr '\0' z; } >rec0.bin
  expect 0 "build -0 on 3 threads" "$ABLOOM" build -q -0 --threads 3 --fpr 1e-6 -o r0.abloom rec0.bin
  expect 0 "query -0 on 3 threads" "$ABLOOM" query -0 --threads 3 r0.abloom rec0.bin
  { cat rec0.bin && printf '\0'; } >want0.bin
  cmp -s out want0.bin && ok "-0 records come out whole on 3 threads" || fail "-0 on 3 threads: $(cmp out want0.bin)"

  # Fields and converted keys on threads: the key converted, the record printed as read.
  awk 'BEGIN { for (i = 0; i < 200000; i++) printf "%d,%08x,%d\n", i, (i * 2654435761) % 4294967296, i * 13 }' >big.csv
  expect 0 "build --column 2 --hex on 4 threads" "$ABLOOM" build -q --threads 4 --column 2 --hex --fpr 1e-6 -o hx.abloom big.csv
  expect 0 "query --column 2 --hex on 4 threads" "$ABLOOM" query --threads 4 --column 2 --hex hx.abloom big.csv
  cmp -s out big.csv && ok "--hex records on 4 threads" || fail "--hex on 4 threads: $(cmp out big.csv)"

  # Errors: the first in input order, its record counted from the start of its input; the parts
  # before it printed, as on one thread, and none after it.
  { cat big.csv; echo '1,zz,3'; cat big.csv; } >badhex.csv
  expect 2 "query: a bad record on 1 thread" "$ABLOOM" query -h --column 2 --hex hx.abloom big.csv badhex.csv
  mv out bad1
  has err "badhex.csv: record 200001: not hex: 'zz'" "1 thread: the error names the record"
  expect 2 "query: a bad record on 4 threads" "$ABLOOM" query -h --threads 4 --column 2 --hex hx.abloom big.csv badhex.csv
  has err "badhex.csv: record 200001: not hex: 'zz'" "4 threads: the record counted from the start of its input"
  cmp -s out bad1 && ok "4 threads print what 1 thread prints before the error" || fail "output before the error differs: $(cmp out bad1)"
  (($(wc -l <out) >= 200000)) && cmp -s -n "$(wc -c <out)" out <(cat big.csv big.csv) &&
    ok "every record of the first input was printed, and only records before the error" ||
    fail "output before the error: $(wc -l <out) lines"
  expect 2 "build: a bad record on 4 threads" "$ABLOOM" build -q --threads 4 --column 2 --hex -o bad.abloom big.csv badhex.csv
  has err "badhex.csv: record 200001: not hex: 'zz'" "build on 4 threads names the record"
  [[ ! -e bad.abloom ]] && ok "a failed build on threads writes no file" || fail "bad.abloom written"
  { cat big.csv; echo 'no-comma'; } >nocol.csv
  expect 2 "query --column on 3 threads: a record without the column" "$ABLOOM" query --count --threads 3 --column 2 hx.abloom nocol.csv
  has err "nocol.csv: record 200001 has no column 2 (only 1 field)" "the record without the column, counted"
  # Each thread adds to an empty filter of the filter's own shape, and these are ORed together
  # in pairs as threads finish: for every kind, layout, shard count, k and seed, 1, 4 and 8
  # threads must set the same bits, in build and in add.
  local shape i=0
  for shape in "--kind classic" "--layout split --shards 4" "--layout distinct --k 3 --seed 77 --shards 2" "--layout half --shards 2 --seed 9"; do
    i=$((i + 1))
    # shellcheck disable=SC2086 # the shape is words
    expect 0 "build $shape on 1 thread" "$ABLOOM" build -q --threads 1 $shape -o sh1.abloom mixed.txt rec.txt
    # shellcheck disable=SC2086
    expect 0 "build $shape on 8 threads" "$ABLOOM" build -q --threads 8 $shape -o sh8.abloom mixed.txt rec.txt
    "$ABLOOM" info --json sh1.abloom >shape.json
    # shellcheck disable=SC2086
    expect 0 "an empty $shape filter" "$ABLOOM" build -q $shape --capacity "$(sed 's/.*"capacity": \([0-9]*\).*/\1/' shape.json)" -o sha.abloom /dev/null
    expect 0 "add to it on 4 threads" "$ABLOOM" add -q --threads 4 sha.abloom mixed.txt rec.txt
    cmp -s sh1.abloom sh8.abloom && cmp -s sh1.abloom sha.abloom && ok "shape $i: the same file on 1, 4 and 8 threads" ||
      fail "shape $i ($shape): threads wrote another file"
  done
  mkdir -p adir
  expect 2 "query on 3 threads: a directory after a file" "$ABLOOM" query -h --threads 3 b4.abloom mixed.txt adir
  has err "adir: Is a directory" "the directory named"
  cmp -s out mixed.txt && ok "the file before the directory printed whole" || fail "output before the directory: $(cmp out mixed.txt)"
}

# An output that names an input, or replaces a file that is not a filter, is refused before any
# key is read (issue 50, A).
clobber() {
  seq 1 1000 >in.txt
  cp in.txt in.orig
  expect 2 "build -o INPUT" "$ABLOOM" build -o in.txt in.txt
  same "$(cat err)" "abloom: --output in.txt: is the input 'in.txt' (the same file): write the filter to another file" "build -o INPUT: the message"
  cmp -s in.txt in.orig && ok "the input is unchanged" || fail "build -o INPUT changed the input"
  expect 2 "build -o INPUT --force: refused all the same" "$ABLOOM" build --force -o in.txt in.txt
  cmp -s in.txt in.orig && ok "the input is unchanged after --force" || fail "--force clobbered the input"
  ln -s in.txt link.txt
  ln in.txt hard.txt
  expect 2 "build -o through a symbolic link to the input" "$ABLOOM" build -o link.txt in.txt
  has err "--output link.txt: is the input 'in.txt' (the same file)" "the link is the input"
  expect 2 "build -o a hard link of the input" "$ABLOOM" build -o hard.txt --force ./in.txt
  has err "--output hard.txt: is the input './in.txt' (the same file)" "the hard link is the input"
  expect 2 "build -o the file on standard input" "$ABLOOM" build -o in.txt --capacity 10 <in.txt
  if [[ -z $WINDOWS ]]; then
    has err "--output in.txt: is the input standard input (the same file)" "standard input is the input"
  else
    # Wine gives a redirected standard input no file index of its own (Windows does): refused as
    # a file that is not a filter instead.
    has err "--output in.txt: " "standard input's file is refused as an output"
  fi
  cmp -s in.txt in.orig && ok "the input is unchanged" || fail "the input changed"

  # An existing file that is not a filter needs --force; a filter, or no file, does not.
  seq 1 10 >notes.txt
  expect 2 "build over a text file" "$ABLOOM" build -o notes.txt in.txt
  same "$(cat err)" "abloom: --output notes.txt: exists and is not an abloom filter; give --force to replace it" "the message says --force"
  same "$(head -n 1 notes.txt)" "1" "the text file is unchanged"
  : >empty.txt
  expect 2 "build over an empty file" "$ABLOOM" build -o empty.txt in.txt
  expect 0 "build over a text file with --force" "$ABLOOM" build --force -o notes.txt in.txt
  expect 0 "the result is a filter" "$ABLOOM" verify notes.txt
  expect 0 "build over an existing filter" "$ABLOOM" build -o notes.txt in.txt
  expect 0 "build to a new file" "$ABLOOM" build -o new.abloom in.txt
  "$ABLOOM" build -o b.abloom --capacity 1000 in.txt

  # merge and intersect: -o one of the FILTERs, or a text file.
  expect 2 "merge -o one of its inputs" "$ABLOOM" merge -o b.abloom new.abloom b.abloom
  has err "--output b.abloom: is the input 'b.abloom' (the same file)" "merge names the input"
  expect 2 "intersect -o a text file" "$ABLOOM" intersect -o in.txt new.abloom b.abloom
  has err "--output in.txt: exists and is not an abloom filter" "intersect refuses it"
  expect 0 "intersect -o a text file with --force" "$ABLOOM" intersect --force -o notes.txt new.abloom b.abloom

  # dedupe: --save may be the --load file (the filter grows), not an input or a text file.
  expect 2 "dedupe --save INPUT" "$ABLOOM" dedupe --capacity 100 --save in.txt in.txt
  has err "--save in.txt: is the input 'in.txt' (the same file)" "dedupe names the input"
  expect 2 "dedupe --save the file on standard input" "$ABLOOM" dedupe --capacity 100 --save in.txt <in.txt
  expect 2 "dedupe --save a text file" "$ABLOOM" dedupe --capacity 100 --save in.orig </dev/null
  has err "--save in.orig: exists and is not an abloom filter; give --force" "dedupe says --force"
  cmp -s in.txt in.orig && ok "the input is unchanged" || fail "dedupe changed the input"
  seq 1 5 | "$ABLOOM" dedupe --capacity 100 --save seen.abloom >/dev/null
  seq 1 8 >more.txt
  expect 0 "dedupe --load F --save F" "$ABLOOM" dedupe --load seen.abloom --save seen.abloom more.txt
  same "$(cat out)" "$(seq 6 8)" "only the new keys printed"
  expect 0 "the saved filter has all 8" "$ABLOOM" query --count seen.abloom more.txt
  same "$(cat out)" "8" "all 8 keys in the filter saved over the loaded one"
}

# Each option's value is checked before the library is called; the message names the option, the
# value and what it may be (issue 50, B).
options() {
  seq 1 100 >k.txt
  # bad ARGS... MESSAGE: `abloom ARGS` fails with status 2 and this first line on stderr.
  bad() {
    local msg=${*: -1}
    expect 2 "${*:1:$#-1}" "$ABLOOM" "${@:1:$#-1}"
    same "$(head -n 1 err)" "abloom: $msg" "${*:1:$#-1}: the message"
  }
  local rate="give a rate above 0 and below 1, as a number (0.001, 1e-4) or a percentage (0.1%)"
  bad plan --capacity 10 --fpr 0 "--fpr: 0 is out of range: $rate"
  bad plan --capacity 10 --fpr 1 "--fpr: 1 is out of range: $rate"
  bad plan --capacity 10 --fpr 150% "--fpr: 150% is out of range: $rate"
  bad plan --capacity 10 --fpr abc "--fpr: 'abc' is not a number: $rate"
  bad plan --capacity 10 --fpr nan "--fpr: 'nan' is not a number: $rate"
  bad plan --capacity 10 --fpr 1%% "--fpr: '1%%' is not a number: $rate"
  # A percentage is the same rate as its number: the same plan.
  "$ABLOOM" plan --json --capacity 1000 --fpr 0.01 >p1
  expect 0 "--fpr 1%" "$ABLOOM" plan --json --capacity 1000 --fpr 1%
  cmp -s out p1 && ok "--fpr 1% plans as 0.01" || fail "--fpr 1%: $(cat out) vs $(cat p1)"
  "$ABLOOM" plan --json --capacity 1000 --fpr 0.005 >p2
  expect 0 "--fpr 0.5%" "$ABLOOM" plan --json --capacity 1000 --fpr 0.5%
  cmp -s out p2 && ok "--fpr 0.5% plans as 0.005" || fail "--fpr 0.5%: $(cat out) vs $(cat p2)"
  bad plan --capacity 10 --shards 3 "--shards: 3 is not a power of two: give 1, 2, 4, 8, ... up to 65536 (or leave --shards out: by size)"
  bad plan --capacity 10 --shards 131072 "--shards: 131072 is out of range: give 1 to 65536"
  bad plan --capacity 10 --shards 0 "--shards: 0 is out of range: give 1 to 65536"
  expect 0 "--shards 65536" "$ABLOOM" plan --capacity 10 --shards 65536
  bad plan --capacity 10 --k 100 "--k: 100 is out of range: give 1 to 64"
  bad plan --capacity 10 --k 0 "--k: 0 is out of range: give 1 to 64"
  expect 0 "--k 64" "$ABLOOM" plan --capacity 10 --k 64
  bad plan --capacity 10 --layout split --k 17 "--k 17 is too many for --layout split: it sets one bit in each of a block's 32-bit words, at most 16; give a --k of 1 to 16, or --layout distinct (up to 64)"
  expect 0 "--layout split --k 16" "$ABLOOM" plan --capacity 10 --layout split --k 16
  bad build -o x.abloom --kind classic --layout split k.txt "--layout split is for the blocked kind only: the classic kind spreads a key's bits over its whole shard and has no layout to choose; drop --layout, or give --kind blocked"
  bad plan --capacity 10 --layout packed "--layout: 'packed' is not a layout: give default, split, distinct or half"
  # The half layout: k is always 8 (given, or left to the sizing), and the blocked kind's only.
  local half_k="does not fit --layout half: it sets one bit in each of the 8 32-bit words of half a block, so k is always 8; drop --k (or give --k 8), or give --layout split or distinct"
  bad plan --capacity 10 --layout half --k 7 "--k 7 $half_k"
  bad plan --capacity 10 --layout half --k 9 "--k 9 $half_k"
  bad build -o x.abloom --layout half --k 16 k.txt "--k 16 $half_k"
  expect 0 "--layout half --k 8" "$ABLOOM" plan --capacity 10 --layout half --k 8
  expect 0 "--layout half without --k" "$ABLOOM" plan --capacity 10 --layout half
  bad build -o x.abloom --kind classic --layout half k.txt "--layout half is for the blocked kind only: the classic kind spreads a key's bits over its whole shard and has no layout to choose; drop --layout, or give --kind blocked"
  bad dedupe --capacity 10 --kind classic --layout half "--layout half is for the blocked kind only: the classic kind spreads a key's bits over its whole shard and has no layout to choose; drop --layout, or give --kind blocked"
  bad build -o x.abloom --column 0 k.txt "--column: 0 is out of range: give 1 to 4294967295 (fields count from 1)"
  bad build -o x.abloom --capacity 0 k.txt "--capacity: 0 is out of range: give 1 or more (or leave --capacity out to count the records)"
  # Negative numbers, which CLI11 would wrap around for an unsigned option.
  bad plan --capacity -5 "--capacity: -5 is negative: give 1 or more"
  bad plan --capacity 10 --seed -1 "--seed: -1 is negative: give 0 or more"
  bad plan --capacity 10 --k -3 "--k: -3 is negative: give 1 to 64"
  bad plan --capacity 10 --shards -2 "--shards: -2 is negative: give 1 to 65536"
  bad build -o x.abloom --column -1 k.txt "--column: -1 is negative: give 1 to 4294967295 (fields count from 1)"
  bad build -o x.abloom --threads -1 k.txt "--threads: -1 is negative: give 1 to 256"
  bad dedupe --capacity -1 "--capacity: -1 is negative: give 1 or more"
  bad plan --capacity 0x10 "--capacity: '0x10' is not a whole number: give 1 or more"
  bad plan --capacity 99999999999999999999 "--capacity: 99999999999999999999 is out of range: give 1 to 18446744073709551615"
  [[ ! -e x.abloom ]] && ok "no file from a refused build" || fail "a refused build wrote x.abloom"
  # Leading zeros are decimal (CLI11 alone reads 010 as octal 8).
  expect 0 "--seed 010" "$ABLOOM" build -q --seed 010 -o s.abloom k.txt
  "$ABLOOM" info --json s.abloom >info.json
  has info.json '"seed": 10,' "--seed 010 is ten"

  bad frobnicate "unknown command 'frobnicate'; the commands are: build, add, query, dedupe, merge, intersect, info, verify, seal, plan"
  # Standard output that cannot be written: status 2 and the reason, for help and --version too.
  if [[ -w /dev/full ]]; then
    local args
    for args in "--help" "--version" "build --help" "plan --capacity 10" "query --count s.abloom k.txt"; do
      # shellcheck disable=SC2086 # the arguments are words
      "$ABLOOM" $args >/dev/full 2>err
      local st=$?
      [[ -z $WINDOWS ]] || sed -i 's/\r$//' err
      # Wine maps some failed writes to /dev/full (which Windows lacks) to EIO, not ENOSPC.
      if [[ -n $WINDOWS && $(cat err) == "abloom: standard output: Input/output error" ]]; then
        same "$st" "2" "abloom $args >/dev/full (wine: EIO)"
      else
        same "$st:$(cat err)" "2:abloom: standard output: No space left on device" "abloom $args >/dev/full"
      fi
    done
  else
    echo "skip /dev/full: not writable here"
  fi
  # I/O errors give the system's reason, not the library's "file system error (see errno)".
  expect 2 "build -o in a missing directory" "$ABLOOM" build -o no-such-dir/x.abloom k.txt
  same "$(cat err)" "abloom: no-such-dir/x.abloom: No such file or directory" "the reason of a missing directory"
  expect 2 "build -o under a file" "$ABLOOM" build -o k.txt/x.abloom k.txt
  # Windows has no ENOTDIR for this: its reason is a path not found.
  if [[ -z $WINDOWS ]]; then
    same "$(cat err)" "abloom: k.txt/x.abloom: Not a directory" "the reason of a file as a directory"
  else
    same "$(cat err)" "abloom: k.txt/x.abloom: No such file or directory" "the reason of a file as a directory (Windows)"
  fi
  mkdir -p adir
  expect 2 "build -o a directory" "$ABLOOM" build -o adir k.txt
  same "$(cat err)" "abloom: adir: Is a directory" "the reason of a directory as output"
  if [[ $(id -u) != 0 ]]; then
    mkdir -p ro && chmod 555 ro
    expect 2 "build -o in a read-only directory" "$ABLOOM" build -o ro/x.abloom k.txt
    same "$(cat err)" "abloom: ro/x.abloom: Permission denied" "the reason of a read-only directory"
    chmod 755 ro
  else
    echo "skip read-only directory: root writes there"
  fi
}

# info's layout of the classic kind, JSON of names that are not UTF-8, merge's mismatch fields and
# a failed add's count (issue 50, C).
small() {
  seq 1 1000 >k.txt
  "$ABLOOM" build -q --kind classic -o c.abloom k.txt
  expect 0 "info of a classic filter" "$ABLOOM" info c.abloom
  has out "layout:           - (classic kind: bits spread over the shard)" "info: no layout for the classic kind"
  expect 0 "info --json of a classic filter" "$ABLOOM" info --json c.abloom
  has out '"layout": "none",' "info --json: layout none"
  expect 0 "plan --json of the classic kind" "$ABLOOM" plan --json --capacity 10 --kind classic
  has out '"layout": "none",' "plan --json: layout none"
  "$ABLOOM" build -q -o b.abloom k.txt
  "$ABLOOM" info --json b.abloom >b.json
  has b.json '"layout": "split",' "a blocked filter keeps its layout"

  # The half layout: only when asked for; k 8; info and plan name it; the file records it (layout
  # id 3 at header offset 20) and it is part of the shape.
  expect 0 "build --layout half" "$ABLOOM" build -q --layout half -o h.abloom k.txt
  expect 0 "info of a half filter" "$ABLOOM" info h.abloom
  has out "layout:           half" "info: layout half"
  has out "k:                8" "info: a half filter's k is 8"
  expect 0 "info --json of a half filter" "$ABLOOM" info --json h.abloom
  has out '"layout": "half", "k": 8,' "info --json: layout half, k 8"
  same "$(od -An -tu4 -j20 -N4 h.abloom | tr -d ' ')" "3" "the file records layout id 3"
  expect 0 "plan --layout half" "$ABLOOM" plan --capacity 1000 --layout half
  has out "layout:       half" "plan: layout half"
  has out "k:            8" "plan: k 8"
  expect 0 "plan --json --layout half" "$ABLOOM" plan --json --capacity 1000 --layout half
  has out '"layout": "half", "k": 8,' "plan --json: layout half, k 8"
  local split_bits half_bits
  split_bits=$("$ABLOOM" plan --json --capacity 100000 --layout split | sed 's/.*"bits": \([0-9]*\).*/\1/')
  half_bits=$("$ABLOOM" plan --json --capacity 100000 --layout half | sed 's/.*"bits": \([0-9]*\).*/\1/')
  ((half_bits > split_bits)) && ok "half takes more bits than split ($half_bits > $split_bits)" ||
    fail "half $half_bits bits, split $split_bits"
  expect 0 "plan: the default is never half" "$ABLOOM" plan --json --capacity 1000 --k 8
  has out '"layout": "split",' "plan --k 8 without --layout: split"
  expect 0 "every key of a half filter" "$ABLOOM" query --count h.abloom k.txt
  same "$(cat out)" "1000" "query finds every key of the half filter"
  expect 0 "verify a half filter" "$ABLOOM" verify h.abloom
  "$ABLOOM" build -q -o h2.abloom --layout half --seed 0 k.txt
  expect 0 "merge two half filters" "$ABLOOM" merge -o hm.abloom h.abloom h2.abloom
  "$ABLOOM" info --json hm.abloom >hm.json
  has hm.json '"layout": "half",' "the merged file is half"
  "$ABLOOM" build -q -o hs.abloom --layout split --k 8 --capacity "$(sed 's/.*"capacity": \([0-9]*\).*/\1/' hm.json)" k.txt
  expect 2 "merge: half and split" "$ABLOOM" merge -o m.abloom h.abloom hs.abloom
  has err "layout half and split" "merge names both layouts"
  "$ABLOOM" build --help >help
  has help "Probes per key" "--k's help says probes"

  # A name with a byte that is not UTF-8 (\xff) beside one that is (é): valid JSON, U+FFFD for it.
  # (Windows names are UTF-16: no such name reaches a Windows build, so there the check is of a
  # name with é and a space only.)
  local name
  name=$(printf 'n\xff\xc3\xa9"q.abloom')
  [[ -z $WINDOWS ]] || name=$(printf 'n\xc3\xa9 q.abloom')  # nor a quote, which Windows refuses
  cp b.abloom "$name"
  expect 0 "info --json of a name that is not UTF-8" "$ABLOOM" info --json "$name"
  WIN=$WINDOWS python3 -c 'import json, os
d = json.loads(open("out", "rb").read().decode("utf-8"))
want = "n\u00e9 q.abloom" if os.environ["WIN"] else "n\ufffd\u00e9\"q.abloom"
assert d["file"] == want, d["file"]' &&
    ok "the JSON is UTF-8, the bad byte U+FFFD, é and the quote kept" || fail "info --json of a non-UTF-8 name: $(cat out)"

  "$ABLOOM" build -q -o s5.abloom --seed 5 --k 3 k.txt
  expect 2 "merge: different k and seed" "$ABLOOM" merge -o m.abloom b.abloom s5.abloom
  has err "abloom: b.abloom and s5.abloom are not the same shape: k " "names both files"
  "$ABLOOM" info --json b.abloom >x.json
  "$ABLOOM" info --json s5.abloom >y.json
  local k1 k2
  k1=$(python3 -c 'import json; print(json.load(open("x.json"))["k"])')
  k2=$(python3 -c 'import json; print(json.load(open("y.json"))["k"])')
  has err "k $k1 and 3" "merge: k of both"
  has err "seed 0 and 5" "merge: seed of both"
  expect 2 "intersect: blocked and classic" "$ABLOOM" intersect -o m.abloom b.abloom c.abloom
  has err "kind blocked and classic" "intersect: the kinds"
  [[ $k2 == 3 ]] && ok "k 3 as asked" || fail "k $k2"

  # add: a bad record after 65536 good ones (one batch) on one thread: those stay, synced.
  (seq 1 70000 && echo x) >bad.txt
  "$ABLOOM" build -q --capacity 100000 -o e.abloom /dev/null
  expect 2 "add with a bad record" "$ABLOOM" add -q --threads 1 --u64 e.abloom bad.txt
  same "$(cat err)" "abloom: bad.txt: record 70001: not an unsigned 64-bit decimal integer: 'x'; e.abloom keeps the 65536 keys added before the error (synced)" "add says what it kept"
  seq 1 65536 >kept.txt
  expect 0 "the kept keys are in the file" "$ABLOOM" query --count --u64 e.abloom kept.txt
  same "$(cat out)" "65536" "all 65536 kept keys found"
  expect 0 "verify after the failed add" "$ABLOOM" verify e.abloom
}

# stale_flag FILE: the header's flag word (offset 52): 1 while a read-write writer has not synced.
stale_flag() { od -An -tu4 -j52 -N4 "$1" | tr -d ' '; }

stale() {
  # A stale file as a killed writer leaves it: `abloom add` reading keys from a FIFO that never
  # ends, killed (SIGKILL) once its open has marked the file.
  seq 1 100000 >keys.txt
  "$ABLOOM" build -q --capacity 200000 -o s.abloom keys.txt
  cp s.abloom intact.abloom
  mkfifo more.fifo
  "$ABLOOM" add -q s.abloom - <more.fifo &
  local pid=$!
  exec 3>more.fifo
  seq 100001 100100 >&3
  local i
  for ((i = 0; i < 500; i++)); do
    [[ "$(stale_flag s.abloom)" == 1 ]] && break
    sleep 0.02
  done
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null
  exec 3>&-
  same "$(stale_flag s.abloom)" "1" "a killed add leaves the file marked stale"
  cp s.abloom pristine-stale.abloom
  # warned FILE DESCRIPTION: stderr holds the stale warning for FILE, exactly once.
  warned() {
    local n
    n=$(grep -cF "abloom: warning: $1: stale: a writer did not finish" err)
    same "$n" "1" "$2: warns once"
    has err "'abloom seal $1' checks and seals it" "$2: the warning says how to seal"
  }

  expect 3 "verify: a stale file exits 3" "$ABLOOM" verify s.abloom
  has out "s.abloom: STALE: a writer did not finish" "verify says STALE"
  expect 0 "info opens a stale file" "$ABLOOM" info s.abloom
  has out "capacity:         200000" "info describes it"
  warned s.abloom "info"
  expect 1 "query --absent of the built keys: none missing" "$ABLOOM" query --absent s.abloom keys.txt
  warned s.abloom "query"
  expect 0 "query -q: no warning" "$ABLOOM" query -q --count s.abloom keys.txt
  same "$(cat out)" "100000" "query finds every built key"
  same "$(wc -c <err)" "0" "query -q prints nothing on stderr"
  expect 0 "merge of a stale file (named twice) and an intact one" "$ABLOOM" merge -o m.abloom s.abloom s.abloom intact.abloom
  warned s.abloom "merge"
  expect 0 "the merged file verifies" "$ABLOOM" verify m.abloom
  expect 0 "intersect of a stale file" "$ABLOOM" intersect -o i.abloom intact.abloom s.abloom
  warned s.abloom "intersect"
  printf 'new-key\n1\n' >dd.txt
  expect 0 "dedupe --load a stale file" "$ABLOOM" dedupe --load s.abloom <dd.txt
  same "$(cat out)" "new-key" "dedupe --load: the stale file's keys count as seen"
  warned s.abloom "dedupe --load"
  same "$(stale_flag s.abloom)" "1" "the readers left the file stale"
  cmp -s s.abloom pristine-stale.abloom && ok "the readers left the file unchanged" || fail "a reader wrote the stale file"
  expect 0 "add to a stale file" "$ABLOOM" add s.abloom dd.txt
  warned s.abloom "add"
  expect 0 "add's sync sealed it" "$ABLOOM" verify s.abloom
  expect 0 "query after the add, no warning" "$ABLOOM" query --count s.abloom keys.txt
  same "$(wc -c <err)" "0" "a sealed file: no warning"

  cp pristine-stale.abloom s.abloom
  expect 0 "seal a stale file" "$ABLOOM" seal s.abloom
  has out "s.abloom: sealed (" "seal says sealed"
  has out "estimated keys)" "seal gives the estimate"
  expect 0 "verify after seal" "$ABLOOM" verify s.abloom
  same "$(stale_flag s.abloom)" "0" "the flag is cleared"
  expect 1 "every built key after seal" "$ABLOOM" query --absent s.abloom keys.txt
  cp s.abloom sealed.abloom
  expect 0 "seal again: nothing to do" "$ABLOOM" seal s.abloom
  has out "s.abloom: already sealed" "seal says already sealed"
  cmp -s s.abloom sealed.abloom && ok "sealing a sealed file writes nothing" || fail "seal rewrote a sealed file"

  # Corrupt, not stale: a body byte flipped. seal refuses (1) and leaves the file as it is.
  cp intact.abloom bad.abloom
  printf '\x5a' | dd of=bad.abloom bs=1 seek=1000 conv=notrunc status=none
  cp bad.abloom bad-before.abloom
  expect 1 "seal of a corrupt file exits 1" "$ABLOOM" seal bad.abloom
  has out "bad.abloom: FAILED: serialized filter checksum mismatch; not sealed" "seal says why"
  cmp -s bad.abloom bad-before.abloom && ok "a refused seal leaves the file unchanged" || fail "seal wrote a corrupt file"
  expect 1 "verify of the corrupt file still exits 1" "$ABLOOM" verify bad.abloom
  # Stale and its bits cleared (not what adds do): corrupt too.
  cp pristine-stale.abloom cleared.abloom
  dd if=/dev/zero of=cleared.abloom bs=1 seek=128 count=100000 conv=notrunc status=none
  cp cleared.abloom cleared-before.abloom
  expect 1 "seal of a stale file with cleared bits exits 1" "$ABLOOM" seal cleared.abloom
  has out "FAILED" "seal says FAILED"
  cmp -s cleared.abloom cleared-before.abloom && ok "and leaves it unchanged" || fail "seal wrote a cleared file"
  expect 2 "seal of a missing file exits 2" "$ABLOOM" seal none.abloom
  has err "none.abloom" "the error names the file"
  expect 1 "seal of a file that is not a filter exits 1" "$ABLOOM" seal keys.txt
}

for g in "${GROUPS_SEL[@]}"; do
  echo "== $g"
  "$g"
done
exit $FAILED
