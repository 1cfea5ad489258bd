# shellcheck shell=bash
# Sourced by the abloom command's test scripts. A cross build's programs run under its emulator
# (ABLOOM_TEST_EMULATOR: the words of CMAKE_CROSSCOMPILING_EMULATOR, wine for a Windows build,
# which ctest passes to these tests): each program the tests start becomes a script of the same
# job that starts it under the emulator.
#
#   program=$(emulated PROGRAM NAME DIR)   # DIR/NAME starting PROGRAM under the emulator, or
#                                          # PROGRAM itself when there is none
emulated() {
  local program=$1 name=$2 dir=$3
  if [[ -z "${ABLOOM_TEST_EMULATOR:-}" ]]; then
    echo "$program"
    return
  fi
  mkdir -p "$dir"
  # The emulator keeps files of its own in TMPDIR (wine: wine-XXXXXX), where tests look for what
  # the program left: it gets the TMPDIR of the test's start instead (a Windows program's
  # temporary folder is %TEMP%, which TMPDIR does not set).
  printf '#!/bin/sh\nTMPDIR=%q exec %s %q "$@"\n' "${TMPDIR:-/tmp}" "$ABLOOM_TEST_EMULATOR" "$program" >"$dir/$name"
  chmod +x "$dir/$name"
  echo "$dir/$name"
}
