#!/usr/bin/env bash
# The manual page cli/abloom.1 against the command it documents, run by ctest:
#   man_test.sh ABLOOM MANPAGE
# Fails when a subcommand that `abloom --help` lists, or an option (long, and short) that
# `abloom --help` or `abloom COMMAND --help` shows, is missing from the page (options as troff
# writes them: \-\-name, \-x); when a subcommand has no section of its own (.SS "NAME ...");
# when the version in .TH is not `abloom --version`; or when the page lacks a section it should
# have. Then, where man-db's man (or groff) is installed, renders it and fails on any warning:
# `man --warnings` (groff -ww) at 80 columns, as lintian does, or `groff -man -ww -z`. Neither
# installed: that part is skipped, saying so (scripts/setup.sh installs man-db).
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/emulator.sh"
BIN=$(mktemp -d)
trap 'rm -rf "$BIN"' EXIT
ABLOOM=$(emulated "$1" abloom "$BIN") # a cross build's command under its emulator
PAGE=$2
FAILED=0
ok() { echo "ok   $*"; }
fail() {
  echo "FAIL $*"
  FAILED=1
}
[[ -s $PAGE ]] || { echo "FAIL no manual page at $PAGE" && exit 1; }

# CLI11's help: the subcommands are the lines under "Subcommands:", the options the lines that
# start (after the indent) with -x, or --name.
help=$("$ABLOOM" --help) || { echo "FAIL abloom --help" && exit 1; }
mapfile -t commands < <(awk '/^Subcommands:/ {on = 1; next} on && /^$/ {exit} on && /^  [a-z]/ {print $1}' <<<"$help")
[[ ${#commands[@]} -ge 9 ]] || fail "abloom --help lists ${#commands[@]} subcommands (${commands[*]}), not the 9 or more expected"

# options HELP: every option a help text shows, one per line: -x and --name.
options() {
  grep -oE '^ +(-[A-Za-z0-9],)?--[a-z0-9][a-z0-9-]*' <<<"$1" | tr -d ' ' | tr ',' '\n'
}
# in_page OPTION: the page has it as troff writes it (every - as \-), not followed by more of a name.
in_page() {
  local troff=${1//-/\\-}
  grep -qE -- "$(sed 's/[\\.]/\\&/g' <<<"$troff")([^a-z0-9\\-]|\\\\f|$)" "$PAGE"
}

declare -A seen=()
for opt in $(options "$help"); do
  seen[$opt]=1
done
for cmd in "${commands[@]}"; do
  if grep -qE "^\.SS \"$cmd( |\")" "$PAGE"; then ok "subcommand $cmd has a section"; else
    fail "subcommand $cmd has no .SS \"$cmd ...\" section in $PAGE"
  fi
  sub=$("$ABLOOM" "$cmd" --help) || { fail "abloom $cmd --help" && continue; }
  for opt in $(options "$sub"); do
    seen[$opt]=1
  done
done
[[ ${#seen[@]} -ge 20 ]] || fail "only ${#seen[@]} options found in the help texts: is the parsing of CLI11's help broken?"
for opt in $(printf '%s\n' "${!seen[@]}" | sort); do
  if in_page "$opt"; then ok "option $opt"; else fail "option $opt (shown by abloom's help) is not in $PAGE"; fi
done

version=$("$ABLOOM" --version)
if grep -qE "^\.TH ABLOOM 1 \"[0-9]{4}-[0-9]{2}-[0-9]{2}\" \"abloom ${version//./\\.}\"" "$PAGE"; then
  ok ".TH names abloom $version"
else
  fail ".TH does not name abloom $version (the page's version is stale): $(grep '^\.TH' "$PAGE")"
fi
for section in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS '"EXIT STATUS"' ENVIRONMENT FILES EXAMPLES; do
  if grep -qx "\.SH $section" "$PAGE"; then ok "section $section"; else fail "no .SH $section"; fi
done

# Rendering: no warning from groff (an unknown macro, a bad escape, a line it cannot break).
# (man-db's man has --warnings; mandoc's does not.)
if command -v man >/dev/null && command -v nroff >/dev/null && [[ $(man --help 2>&1) == *--warnings* ]]; then
  warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$PAGE" 2>&1 >/dev/null)
  how="man --warnings -l"
elif command -v groff >/dev/null; then
  warnings=$(groff -man -ww -z "$PAGE" 2>&1)
  how="groff -man -ww -z"
else
  how=
  echo "skip rendering: neither man-db's man nor groff is installed"
fi
if [[ -n $how ]]; then
  if [[ -z $warnings ]]; then ok "$how: no warnings"; else fail "$how warns:
$warnings"; fi
fi

exit $FAILED
