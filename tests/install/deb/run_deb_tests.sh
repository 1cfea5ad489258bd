#!/usr/bin/env bash
# The Debian packages, used the way a C user would (issue 14): build libabloom0, libabloom-dev and
# abloom-tools (scripts/build-debs.sh), `apt-get install` them, then, in a directory outside the
# repo and with an environment stripped to PATH and HOME (no PKG_CONFIG_PATH, no LD_LIBRARY_PATH):
#   - the README's hello example (its "C quick start" block, extracted from README.md) builds with
#     `cc hello.c $(pkg-config --cflags --libs abloom)` and prints "1 0";
#   - the pkg-config consumer (tests/install/pkgconfig_consumer) builds and runs, dynamic and static;
#   - the CMake consumer (tests/install/cmake_consumer) finds the package with no hint and runs;
#   - file_reader (file_reader.c) opens filter files written by other programs (the golden
#     vector, written by C, and every FILE=KEYS pair given: scripts/test-all.sh, stage debian,
#     gives the go, java, rust and python files stage packages wrote), verifies the checksum, checks
#     that every key of KEYS tests present and that keys nobody added mostly test absent;
#   - the abloom command (abloom-tools) from PATH, /usr/bin/abloom with no RPATH, loading the
#     packaged libabloom.so.0: --version is the package's version; `abloom build` of a few lines
#     from stdin and `abloom query` finds exactly them (file_reader too); `abloom verify` passes
#     on every file above and `abloom query --absent --count FILE KEYS` counts none of KEYS absent;
# (and, natively, that dpkg's ldconfig trigger put libabloom.so.0 in the loader's cache; and that
# `man abloom` finds the packaged page), then removes the packages and checks that nothing of them
# is left (files, /usr/share/doc, the loader's cache entry).
#
# --debs DIR: test the packages in DIR (scripts/release/debs.sh made them) instead of building.
# --arch arm64: the arm64 packages on this amd64 machine, installed for real through multiarch
#   (dpkg --add-architecture arm64; apt-get pulls libxxhash-dev:arm64), the consumers built with
#   Debian's aarch64-linux-gnu-gcc (which searches /usr/include and /usr/lib/aarch64-linux-gnu, as a
#   native arm64 compiler would) and run under qemu-aarch64 with the real /lib/ld-linux-aarch64.so.1,
#   so they load the installed /usr/lib/aarch64-linux-gnu/libabloom.so.0. The one variable the user's
#   shell gets is PKG_CONFIG_LIBDIR (what a cross pkg-config sets), the CMake consumer gets the cross
#   compiler and CMAKE_SYSTEM_NAME/PROCESSOR, nothing about abloom.
#
# Needs root (apt-get). Refuses to run when libabloom0, libabloom-dev or abloom-tools is already
# installed.
# Usage: tests/install/deb/run_deb_tests.sh [--debs DIR] [--arch amd64|arm64] [FILE=KEYS ...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
here="$root/tests/install/deb"

die() {
  echo "FAIL: $*" >&2
  exit 1
}
native=$(dpkg --print-architecture)
arch=$native
debs=
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
  --debs) [[ $# -ge 2 && -d $2 ]] || die "--debs needs a directory"; debs=$(cd "$2" && pwd); shift 2 ;;
  --arch) [[ $# -ge 2 ]] || die "--arch needs an architecture"; arch=$2; shift 2 ;;
  *) die "unknown option $1 (--debs DIR, --arch ARCH)" ;;
  esac
done
# How this architecture's consumers are built and run: cc and plain execution when native;
# otherwise the cross compiler, qemu-user, and pkg-config pointed at the multiarch directory.
cc=cc
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
run=()
# ldd's way, in the program's own loader; qemu-user's -E sets it for the guest, not for qemu.
trace=(env LD_TRACE_LOADED_OBJECTS=1)
cmake_cross=()
pc_env=()
machine=X86-64
if [[ $arch == arm64 && $native != arm64 ]]; then
  ma=aarch64-linux-gnu
  for tool in "$ma-gcc" qemu-aarch64; do
    command -v "$tool" >/dev/null || die "$tool not found (apt-get install gcc-aarch64-linux-gnu qemu-user)"
  done
  dpkg --print-foreign-architectures | grep -x arm64 >/dev/null ||
    die "arm64 is not a dpkg architecture here: dpkg --add-architecture arm64 && apt-get update"
  cc=$ma-gcc
  run=(qemu-aarch64)
  trace=(qemu-aarch64 -E LD_TRACE_LOADED_OBJECTS=1)
  cmake_cross=(-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 -DCMAKE_C_COMPILER="$ma-gcc")
  pc_env=("PKG_CONFIG_LIBDIR=/usr/lib/$ma/pkgconfig:/usr/share/pkgconfig")
  machine=AArch64
elif [[ $arch != "$native" ]]; then
  die "cannot test $arch packages on $native (native, or arm64 under qemu)"
fi
if [[ -n $debs ]]; then
  for p in libabloom0 libabloom-dev abloom-tools; do
    [[ $(compgen -G "$debs/${p}_*_$arch.deb" | wc -l) == 1 ]] || die "not exactly one ${p}_*_$arch.deb in $debs"
  done
fi
[[ $(id -u) == 0 ]] || die "needs root (apt-get install)"
# The packages go into this machine's /usr: one run at a time, machine-wide (CI's packages and
# release stages run at once, each with a run of this script). Held until this script exits.
exec 8>/var/lock/abloom-deb-tests.lock
if ! flock -n 8; then
  echo "== waiting for another run_deb_tests.sh to finish (/var/lock/abloom-deb-tests.lock)"
  flock 8
fi
for p in libabloom0 libabloom-dev abloom-tools; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'install ok installed' >/dev/null; then
    die "$p is already installed: remove it first"
  fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/abloom-deb-test.XXXXXX")
installed=0
cleanup() {
  if [[ $installed == 1 ]]; then
    apt-get remove -y --purge "abloom-tools:$arch" "libabloom-dev:$arch" "libabloom0:$arch" >/dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

if [[ -z $debs ]]; then
  echo "== building the packages"
  bash "$root/scripts/build-debs.sh" "$tmp/debs" "$arch"
  debs=$tmp/debs
fi
echo "== apt-get install ($arch)"
apt-get install -y "$debs"/libabloom0_*_"$arch".deb "$debs"/libabloom-dev_*_"$arch".deb \
  "$debs"/abloom-tools_*_"$arch".deb >/dev/null
installed=1
dpkg -L "libabloom0:$arch" "libabloom-dev:$arch" "abloom-tools:$arch" | grep -E '\.(so|a|h|pc)(\.|$)|/bin/abloom$' | sed 's/^/   /'

# dpkg ran libc's ldconfig trigger (libabloom0's triggers file; it has no maintainer scripts): the
# loader's cache lists the library (as /lib/MA or /usr/lib/MA: /lib is /usr/lib). Native only:
# this machine's ldconfig does not index a foreign architecture's directory.
in_ld_cache() { [[ $(ldconfig -p) == *"libabloom.so.$1 "*"=> "*"/lib/$ma/libabloom.so.$1"* ]]; }
if [[ $arch == "$native" ]]; then
  in_ld_cache 0 || die "ldconfig's cache does not list libabloom.so.0 in /usr/lib/$ma (did the ldconfig trigger run?)"
  echo "PASS: the ldconfig trigger ran: libabloom.so.0 is in the loader's cache"
fi
if command -v man >/dev/null; then
  man_page=$(man -w abloom 2>/dev/null) || true
  [[ $man_page == /usr/share/man/man1/abloom.1.gz ]] || die "man -w abloom: '$man_page', not /usr/share/man/man1/abloom.1.gz"
fi

# What a user's shell has: no variables of ours.
user_env=(env -i "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$tmp/home" "${pc_env[@]}")
# The program was built for ARCH (a stray native build would run here without qemu and prove nothing).
check_machine() {
  local m
  m=$(readelf -h "$1" | sed -n 's/^ *Machine: *//p')
  [[ $m == *"$machine" ]] || die "$1 is for '$m', not $machine"
}
mkdir -p "$tmp/home" "$tmp/work"
cd "$tmp/work"

echo "== README hello example"
awk '/^## C quick start/ {on = 1} on && /^```c$/ {grab = 1; next} grab && /^```$/ {exit} grab' \
  "$root/README.md" >hello.c
grep -q 'pkg-config --cflags --libs abloom' hello.c || die "no hello example found in README.md"
"${user_env[@]}" sh -c "$cc hello.c \$(pkg-config --cflags --libs abloom) -o hello"
check_machine hello
out=$("${user_env[@]}" "${run[@]}" ./hello)
[[ "$out" == "1 0" ]] || die "hello printed '$out', not '1 0'"
readelf -d hello | grep 'NEEDED.*libabloom.so.0' >/dev/null || die "hello does not link libabloom.so.0"
! readelf -d hello | grep -E 'RPATH|RUNPATH' >/dev/null || die "hello needed an rpath"
# The loader (under qemu for arm64: the real arm64 one) finds the packaged library in its multiarch dir.
loaded=$("${user_env[@]}" "${trace[@]}" ./hello | grep 'libabloom.so.0 =>' || true)
[[ $loaded == *"=> /usr/lib/$ma/libabloom.so.0 "* || $loaded == *"=> /lib/$ma/libabloom.so.0 "* ]] ||
  die "hello does not load /usr/lib/$ma/libabloom.so.0: '$loaded'"
echo "PASS: hello.c built with pkg-config and ran: $out"

echo "== pkg-config consumer, dynamic and static"
# Compiled where it stands: it includes ../consumer_check.h by its relative path.
consumer_c=$root/tests/install/pkgconfig_consumer/main.c
"${user_env[@]}" sh -c "$cc -std=c99 '$consumer_c' \$(pkg-config --cflags --libs abloom) -o consumer_dyn"
# Static: pkg-config's own --static flags, with -labloom taken from libabloom.a (as a user would
# when a .so sits beside the .a; tests/install/run_install_tests.sh does the same).
static_libs=$("${user_env[@]}" pkg-config --static --libs abloom | sed 's/-labloom/-Wl,-Bstatic -labloom -Wl,-Bdynamic/')
"${user_env[@]}" sh -c "$cc -std=c99 '$consumer_c' \$(pkg-config --static --cflags abloom) $static_libs -o consumer_static"
check_machine consumer_dyn
check_machine consumer_static
readelf -d consumer_dyn | grep 'NEEDED.*libabloom.so.0' >/dev/null || die "consumer_dyn does not link libabloom.so.0"
"${user_env[@]}" "${run[@]}" ./consumer_dyn >/dev/null
"${user_env[@]}" "${run[@]}" ./consumer_static >/dev/null
! readelf -d consumer_static | grep 'libabloom.so' >/dev/null || die "the static consumer needs libabloom.so"
echo "PASS: pkg-config consumer ran, dynamic and static"

echo "== CMake consumer"
"${user_env[@]}" cmake -S "$root/tests/install/cmake_consumer" -B cmake_build "${cmake_cross[@]}" >/dev/null
"${user_env[@]}" cmake --build cmake_build >/dev/null
check_machine cmake_build/consumer_shared
readelf -d cmake_build/consumer_shared | grep 'NEEDED.*libabloom.so.0' >/dev/null ||
  die "the CMake consumer_shared does not link libabloom.so.0"
"${user_env[@]}" "${run[@]}" ./cmake_build/consumer_shared >/dev/null
"${user_env[@]}" "${run[@]}" ./cmake_build/consumer_static >/dev/null
echo "PASS: find_package(abloom) with no hint, both targets ran"

echo "== files written by other programs"
"${user_env[@]}" sh -c "$cc -std=c99 '$here/file_reader.c' \$(pkg-config --cflags --libs abloom) -o file_reader"
check_machine file_reader
pairs=("$root/tests/vectors/blocked_s1.abloom=$root/tests/vectors/blocked_s1.keys.txt" "$@")
for pair in "${pairs[@]}"; do
  [[ "$pair" == *=* ]] || die "not FILE=KEYS: $pair"
  "${user_env[@]}" "${run[@]}" ./file_reader "${pair%%=*}" "${pair#*=}"
done
echo "PASS: file_reader read ${#pairs[@]} files, every key present"

echo "== the abloom command (abloom-tools)"
abloom=$("${user_env[@]}" sh -c 'command -v abloom') || die "abloom is not on the user's PATH"
[[ $abloom == /usr/bin/abloom ]] || die "abloom is $abloom, not /usr/bin/abloom"
check_machine "$abloom"
! readelf -d "$abloom" | grep -E 'RPATH|RUNPATH' >/dev/null || die "$abloom has an rpath"
loaded=$("${user_env[@]}" "${trace[@]}" "$abloom" | grep 'libabloom.so.0 =>' || true)
[[ $loaded == *"=> /usr/lib/$ma/libabloom.so.0 "* || $loaded == *"=> /lib/$ma/libabloom.so.0 "* ]] ||
  die "abloom does not load /usr/lib/$ma/libabloom.so.0: '$loaded'"
tools_version=$(dpkg-query -W -f='${Version}' "abloom-tools:$arch")
out=$("${user_env[@]}" "${run[@]}" "$abloom" --version)
[[ $out == "${tools_version%-*}" ]] || die "abloom --version printed '$out', not ${tools_version%-*}"
# A filter from a few lines on stdin (which needs --capacity), then queried: the three keys added
# are printed, in input order, and none of the three others (at --fpr 1e-6, a false positive
# here would be a one-in-100000 event). file_reader finds the same three keys through the C API.
printf 'apple\nbanana\r\ncherry\n' >cli_in.txt
printf 'apple\nbanana\ncherry\n' >cli_keys.txt
"${user_env[@]}" "${run[@]}" "$abloom" build -o cli.abloom --capacity 1000 --fpr 1e-6 <cli_in.txt
[[ -s cli.abloom ]] || die "abloom build wrote no cli.abloom"
out=$(printf 'date\nbanana\napple\nelder\ncherry\nfig\n' | "${user_env[@]}" "${run[@]}" "$abloom" query cli.abloom)
[[ $out == $'banana\napple\ncherry' ]] || die "abloom query printed '$out', not banana, apple, cherry"
"${user_env[@]}" "${run[@]}" ./file_reader cli.abloom cli_keys.txt
# Every file the other programs wrote: intact, and none of its keys definitely absent.
for pair in "$PWD/cli.abloom=$PWD/cli_keys.txt" "${pairs[@]}"; do
  "${user_env[@]}" "${run[@]}" "$abloom" verify "${pair%%=*}" >/dev/null || die "abloom verify failed on ${pair%%=*}"
  rc=0
  out=$("${user_env[@]}" "${run[@]}" "$abloom" query --absent --count "${pair%%=*}" "${pair#*=}") || rc=$?
  [[ $rc == 1 && $out == 0 ]] ||
    die "abloom query --absent --count ${pair%%=*} ${pair#*=}: '$out' (exit $rc), not 0 (exit 1)"
done
echo "PASS: abloom $tools_version: --version, build and query; verify and query on ${#pairs[@]} files from others"

echo "== apt-get remove"
cd /
apt-get remove -y --purge "abloom-tools:$arch" "libabloom-dev:$arch" "libabloom0:$arch" >/dev/null
installed=0
for f in /usr/bin/abloom /usr/include/abloom.h /usr/include/abloom_inline.h /usr/include/abloom_layout.h /usr/lib/*/libabloom.so.0 /usr/lib/*/pkgconfig/abloom.pc \
  /usr/share/man/man1/abloom.1.gz /usr/share/doc/libabloom0 /usr/share/doc/libabloom-dev /usr/share/doc/abloom-tools; do
  [[ ! -e "$f" ]] || die "$f is left after removal"
done
if [[ $arch == "$native" ]]; then
  ! in_ld_cache 0 || die "ldconfig's cache still lists libabloom.so.0 after removal (the trigger did not run)"
fi
! env "${pc_env[@]}" pkg-config --exists abloom 2>/dev/null || die "pkg-config still finds abloom after removal"
echo "PASS: removed, nothing left"
