#!/usr/bin/env bash
# A plain configure runs neither git nor gzip, and sets up no Debian packaging: cmake/package.cmake
# is for -DABLOOM_PACKAGE=ON alone (scripts/build-debs.sh). Run by ctest:
#   plain_configure_test.sh SOURCE_DIR
# git and gzip are stand-ins on PATH that log each call, so that the test sees every run of them;
# the same configure with -DABLOOM_PACKAGE=ON must call both (else the stand-ins are not what
# CMake finds, and the plain configure's silence would prove nothing). SOURCE_DATE_EPOCH is unset:
# with it, package.cmake needs no git.
set -uo pipefail

SRC=$(cd "$1" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FAILED=0
ok() { echo "ok   $*"; }
fail() {
  echo "FAIL $*"
  FAILED=1
}

mkdir "$T/bin"
for tool in git gzip; do
  real=$(command -v "$tool") || { echo "FAIL $tool not found" && exit 1; }
  # Logs the call, then does the real work (package.cmake needs git's date and a real .gz).
  printf '#!/bin/sh\necho %s >>"%s/calls"\nexec "%s" "$@"\n' "$tool" "$T" "$real" >"$T/bin/$tool"
  chmod +x "$T/bin/$tool"
done

# configure DIR ARGS...: the library alone (no tests, demo or command: only the configure matters).
configure() {
  local dir=$1
  shift
  rm -f "$T/calls"
  PATH="$T/bin:$PATH" env -u SOURCE_DATE_EPOCH cmake -S "$SRC" -B "$dir" -DABLOOM_BUILD_TESTS=OFF \
    -DABLOOM_BUILD_EXAMPLES=OFF -DABLOOM_BUILD_CLI=OFF "$@" >"$dir.log" 2>&1 ||
    { fail "cmake $*: $(tail -n 5 "$dir.log")" && return 1; }
}

if configure "$T/plain"; then
  [[ ! -e $T/calls ]] && ok "a plain configure runs neither git nor gzip" ||
    fail "a plain configure ran: $(tr '\n' ' ' <"$T/calls")"
  [[ ! -e $T/plain/CPackConfig.cmake && ! -e $T/plain/debian ]] &&
    ok "a plain configure writes no CPack configuration or debian/ files" ||
    fail "a plain configure wrote $(ls -d "$T"/plain/CPackConfig.cmake "$T"/plain/debian 2>/dev/null)"
fi

if configure "$T/package" -DABLOOM_PACKAGE=ON -DCMAKE_INSTALL_PREFIX=/usr; then
  grep -qx git "$T/calls" 2>/dev/null && grep -qx gzip "$T/calls" &&
    ok "-DABLOOM_PACKAGE=ON runs git and gzip (the stand-ins are what CMake finds)" ||
    fail "-DABLOOM_PACKAGE=ON: calls '$(tr '\n' ' ' <"$T/calls" 2>/dev/null)', not git and gzip"
  [[ -e $T/package/CPackConfig.cmake && -s $T/package/debian/changelog.Debian.gz ]] &&
    ok "-DABLOOM_PACKAGE=ON writes CPackConfig.cmake and debian/changelog.Debian.gz" ||
    fail "-DABLOOM_PACKAGE=ON wrote no CPackConfig.cmake or changelog.Debian.gz"
fi
exit $FAILED
