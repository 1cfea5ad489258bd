#!/usr/bin/env bash
# Check the ABI surface of the shared library:
#   1. every defined dynamic symbol starts with `abloom_` (the version node ABLOOM_0, which nm
#      may list as an absolute symbol, is the only exception), and is bound to an ABLOOM_* version;
#   2. the SONAME is libabloom.so.0;
#   3. every function declared with ABLOOM_API in capi/abloom.h is exported (a declared but
#      missing symbol is an error); exported functions not in the header are reported (an error
#      with ABLOOM_STRICT_EXPORTS=1).
#
# Usage: tests/check_exports.sh LIBFILE [HEADER]   (HEADER defaults to capi/abloom.h)
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 LIBFILE [HEADER]" >&2
  exit 2
fi
LIB=$1
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HEADER=${2:-"$HERE/../capi/abloom.h"}
EXPECTED_SONAME=libabloom.so.0

[[ -f "$LIB" ]] || { echo "FAIL: no such library: $LIB" >&2; exit 1; }
[[ -f "$HEADER" ]] || { echo "FAIL: no such header: $HEADER" >&2; exit 1; }

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# ---- 1. Exported symbols -------------------------------------------------------------------------
# `nm -D --defined-only` prints "VALUE TYPE NAME[@[@]VERSION]" (binutils >= 2.35 adds versions).
nm_out=$(nm -D --defined-only "$LIB")
declare -a exported=()
bad=()
unversioned=()
while read -r value type name rest; do
  [[ -n "${value:-}" ]] || continue
  # Lines without a value (undefined symbols) are filtered by --defined-only; be defensive anyway.
  if [[ -z "${name:-}" ]]; then
    name=$type
    type=$value
  fi
  base=${name%%@*}
  version=
  [[ "$name" == *@* ]] && version=${name##*@}
  if [[ "$type" == A && "$base" == ABLOOM_* && ( -z "$version" || "$version" == "$base" ) ]]; then
    continue # the version node itself, e.g. "0000000000000000 A ABLOOM_0"
  fi
  if [[ "$base" != abloom_* ]]; then
    bad+=("$type $name")
    continue
  fi
  if [[ "$name" == *@* && "$version" != ABLOOM_* ]]; then
    unversioned+=("$name")
  fi
  exported+=("$base")
done <<<"$nm_out"

if [[ ${#bad[@]} -ne 0 ]]; then
  fail "${#bad[@]} exported symbol(s) without the abloom_ prefix:"
  printf '    %s\n' "${bad[@]}"
else
  echo "PASS: all ${#exported[@]} exported symbols start with abloom_"
fi
if [[ ${#unversioned[@]} -ne 0 ]]; then
  fail "symbol(s) not in an ABLOOM_* version node (see capi/abloom.map):"
  printf '    %s\n' "${unversioned[@]}"
fi
if [[ ${#exported[@]} -eq 0 ]]; then
  fail "no abloom_ symbols exported at all"
fi

# ---- 2. SONAME -----------------------------------------------------------------------------------
soname=$(readelf -d "$LIB" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
if [[ "$soname" == "$EXPECTED_SONAME" ]]; then
  echo "PASS: SONAME is $soname"
else
  fail "SONAME is '${soname:-<none>}', expected $EXPECTED_SONAME"
fi

# ---- 3. Header declarations vs. exports ----------------------------------------------------------
# Strip comments and preprocessor lines, then take the name of every `ABLOOM_API ... name(`.
mapfile -t declared < <(perl -0777 -ne '
  s{/\*.*?\*/}{ }gs;          # block comments
  s{//[^\n]*}{}g;             # line comments
  s{^[ \t]*#(?:[^\n]*\\\n)*[^\n]*}{}mg;  # preprocessor lines, with continuations
  while (/\bABLOOM_API\b[^;{(]*?\b(abloom_\w+)\s*\(/g) { print "$1\n"; }
' "$HEADER" | sort -u)

if [[ ${#declared[@]} -eq 0 ]]; then
  fail "found no ABLOOM_API declarations in $HEADER"
fi

declare -A is_exported=()
for s in "${exported[@]}"; do is_exported[$s]=1; done
declare -A is_declared=()
missing=()
for s in "${declared[@]}"; do
  is_declared[$s]=1
  [[ -n "${is_exported[$s]:-}" ]] || missing+=("$s")
done
if [[ ${#missing[@]} -ne 0 ]]; then
  fail "${#missing[@]} function(s) declared ABLOOM_API in $(basename "$HEADER") but not exported:"
  printf '    %s\n' "${missing[@]}"
else
  echo "PASS: all ${#declared[@]} ABLOOM_API functions of $(basename "$HEADER") are exported"
fi

extra=()
for s in "${exported[@]}"; do
  [[ -n "${is_declared[$s]:-}" ]] || extra+=("$s")
done
if [[ ${#extra[@]} -ne 0 ]]; then
  if [[ "${ABLOOM_STRICT_EXPORTS:-0}" == 1 ]]; then
    fail "${#extra[@]} exported symbol(s) not declared in $(basename "$HEADER"):"
  else
    echo "WARNING: ${#extra[@]} exported symbol(s) not declared in $(basename "$HEADER"):"
  fi
  printf '    %s\n' "${extra[@]}"
fi

if [[ $failures -ne 0 ]]; then
  echo "check_exports: $failures check(s) failed for $LIB"
  exit 1
fi
echo "check_exports: OK ($LIB)"
