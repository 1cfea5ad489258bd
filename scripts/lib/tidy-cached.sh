#!/usr/bin/env bash
# clang-tidy on one source file, skipped when this exact input passed before (stage tidy of
# scripts/test-all.sh runs it per file, in parallel):
#
#   bash scripts/lib/tidy-cached.sh BUILD_DIR FILE [clang-tidy options...]
#
# The key is the SHA-256 of everything the verdict depends on: clang-tidy's version, the
# repository's .clang-tidy, the options given, the file's compile command from
# BUILD_DIR/compile_commands.json and the file as the compiler's preprocessor expands it (so an
# edit of any header it includes is a new key). A pass leaves an empty file named by the key in
# $ABLOOM_CI_CACHE/clang-tidy (no cache without ABLOOM_CI_CACHE); a failure leaves nothing, so
# it is checked again, and printed, on every run.
set -euo pipefail

build=${1:?usage: tidy-cached.sh BUILD_DIR FILE [clang-tidy options...]}
file=${2:?usage: tidy-cached.sh BUILD_DIR FILE [clang-tidy options...]}
shift 2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
abs=$(cd "$(dirname "$file")" && pwd)/$(basename "$file")

if [[ -z "${ABLOOM_CI_CACHE:-}" ]]; then
  exec clang-tidy -p "$build" --quiet "$@" "$file"
fi

# The compile command (the "command" form CMake writes), and the preprocessed text it gives.
command=$(python3 - "$build/compile_commands.json" "$abs" <<'PY'
import json, shlex, sys
for entry in json.load(open(sys.argv[1])):
    if entry["file"] == sys.argv[2]:
        print(entry["directory"])
        print(entry["command"])
        break
else:
    sys.exit("tidy-cached.sh: %s is not in %s" % (sys.argv[2], sys.argv[1]))
PY
)
dir=$(sed -n 1p <<<"$command")
cmd=$(sed -n 2p <<<"$command")
# The same command, preprocessing to stdout instead of compiling (-E replaces -c; -o goes).
read -r -a argv <<<"$cmd"
pre=()
skip=0
for a in "${argv[@]}"; do
  if [[ $skip == 1 ]]; then skip=0 && continue; fi
  case $a in
  -o) skip=1 ;;
  -c) pre+=(-E) ;;
  *) pre+=("$a") ;;
  esac
done
key=$( {
  clang-tidy --version
  cat "$root/.clang-tidy"
  printf '%s\n' "$@" "$cmd"
  (cd "$dir" && "${pre[@]}" -o - 2>/dev/null)
} | sha256sum | cut -c1-64)
store=$ABLOOM_CI_CACHE/clang-tidy
if [[ -e "$store/$key" ]]; then
  echo "clang-tidy: $file unchanged since it passed (cached)"
  exit 0
fi
clang-tidy -p "$build" --quiet "$@" "$file"
mkdir -p "$store"
: >"$store/$key"
