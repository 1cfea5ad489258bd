#!/usr/bin/env bash
# The Debian packages, used the way a C user would (issue 14): build libabloom0 and libabloom-dev
# (scripts/build-debs.sh), `apt-get install` them, then, in a directory outside the repo and with
# an environment stripped to PATH and HOME (no PKG_CONFIG_PATH, no LD_LIBRARY_PATH):
#   - the README's hello example (its "C quick start" block, extracted from README.md) builds with
#     `cc hello.c $(pkg-config --cflags --libs abloom)` and prints "1 0";
#   - the pkg-config consumer (tests/install/pkgconfig_consumer) builds and runs, dynamic and static;
#   - the CMake consumer (tests/install/cmake_consumer) finds the package with no hint and runs;
#   - file_reader (file_reader.c) opens filter files written by other programs (the golden
#     vector, written by C, and every FILE=KEYS pair given: scripts/test-all.sh, stage packages,
#     gives the go, java and rust files its package checks wrote), verifies the checksum, checks
#     that every key of KEYS tests present and that keys nobody added mostly test absent;
# then removes the packages and checks that nothing of them is left.
#
# Needs root (apt-get). Refuses to run when libabloom0 or libabloom-dev is already installed.
# Usage: tests/install/deb/run_deb_tests.sh [FILE=KEYS ...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
here="$root/tests/install/deb"

die() {
  echo "FAIL: $*" >&2
  exit 1
}
[[ $(id -u) == 0 ]] || die "needs root (apt-get install)"
for p in libabloom0 libabloom-dev; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'install ok installed' >/dev/null; then
    die "$p is already installed: remove it first"
  fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/abloom-deb-test.XXXXXX")
installed=0
cleanup() {
  if [[ $installed == 1 ]]; then apt-get remove -y --purge libabloom-dev libabloom0 >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "== building the packages"
bash "$root/scripts/build-debs.sh" "$tmp/debs"
echo "== apt-get install"
apt-get install -y "$tmp"/debs/libabloom0_*.deb "$tmp"/debs/libabloom-dev_*.deb >/dev/null
installed=1
dpkg -L libabloom0 libabloom-dev | grep -E '\.(so|a|h|pc)(\.|$)' | sed 's/^/   /'

# What a user's shell has: no variables of ours.
user_env=(env -i "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$tmp/home")
mkdir -p "$tmp/home" "$tmp/work"
cd "$tmp/work"

echo "== README hello example"
awk '/^## C quick start/ {on = 1} on && /^```c$/ {grab = 1; next} grab && /^```$/ {exit} grab' \
  "$root/README.md" >hello.c
grep -q 'pkg-config --cflags --libs abloom' hello.c || die "no hello example found in README.md"
"${user_env[@]}" sh -c 'cc hello.c $(pkg-config --cflags --libs abloom) -o hello'
out=$("${user_env[@]}" ./hello)
[[ "$out" == "1 0" ]] || die "hello printed '$out', not '1 0'"
readelf -d hello | grep 'NEEDED.*libabloom.so.0' >/dev/null || die "hello does not link libabloom.so.0"
! readelf -d hello | grep -E 'RPATH|RUNPATH' >/dev/null || die "hello needed an rpath"
echo "PASS: hello.c built with pkg-config and ran: $out"

echo "== pkg-config consumer, dynamic and static"
cp "$root/tests/install/pkgconfig_consumer/main.c" consumer.c
"${user_env[@]}" sh -c 'cc -std=c99 consumer.c $(pkg-config --cflags --libs abloom) -o consumer_dyn'
# Static: pkg-config's own --static flags, with -labloom taken from libabloom.a (as a user would
# when a .so sits beside the .a; tests/install/run_install_tests.sh does the same).
static_libs=$(pkg-config --static --libs abloom | sed 's/-labloom/-Wl,-Bstatic -labloom -Wl,-Bdynamic/')
"${user_env[@]}" sh -c "cc -std=c99 consumer.c \$(pkg-config --static --cflags abloom) $static_libs -o consumer_static"
"${user_env[@]}" ./consumer_dyn >/dev/null
"${user_env[@]}" ./consumer_static >/dev/null
! readelf -d consumer_static | grep 'libabloom.so' >/dev/null || die "the static consumer needs libabloom.so"
echo "PASS: pkg-config consumer ran, dynamic and static"

echo "== CMake consumer"
"${user_env[@]}" cmake -S "$root/tests/install/cmake_consumer" -B cmake_build >/dev/null
"${user_env[@]}" cmake --build cmake_build >/dev/null
"${user_env[@]}" ./cmake_build/consumer_shared >/dev/null
"${user_env[@]}" ./cmake_build/consumer_static >/dev/null
echo "PASS: find_package(abloom) with no hint, both targets ran"

echo "== files written by other programs"
"${user_env[@]}" sh -c "cc -std=c99 '$here/file_reader.c' \$(pkg-config --cflags --libs abloom) -o file_reader"
pairs=("$root/tests/vectors/blocked_s1.abloom=$root/tests/vectors/blocked_s1.keys.txt" "$@")
for pair in "${pairs[@]}"; do
  [[ "$pair" == *=* ]] || die "not FILE=KEYS: $pair"
  "${user_env[@]}" ./file_reader "${pair%%=*}" "${pair#*=}"
done
echo "PASS: file_reader read ${#pairs[@]} files, every key present"

echo "== apt-get remove"
cd /
apt-get remove -y --purge libabloom-dev libabloom0 >/dev/null
installed=0
for f in /usr/include/abloom.h /usr/include/abloom_inline.h /usr/lib/*/libabloom.so.0 /usr/lib/*/pkgconfig/abloom.pc; do
  [[ ! -e "$f" ]] || die "$f is left after removal"
done
! pkg-config --exists abloom 2>/dev/null || die "pkg-config still finds abloom after removal"
echo "PASS: removed, nothing left"
