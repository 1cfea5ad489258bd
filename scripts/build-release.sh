#!/usr/bin/env bash
# Builds every prebuilt artifact of a release into OUT, from a clean checkout, then OUT/SHA256SUMS:
#
#   java     the jar with natives for Linux x86-64 and aarch64 (glibc 2.17 and newer) and macOS
#            x86-64 and arm64, and the Spark module's jar on top of it  (scripts/release/java.sh)
#   python   manylinux2014 wheels for x86-64 and aarch64, win_amd64 wheels, and the sdist
#            (scripts/release/python.sh)
#   debs     libabloom0, libabloom-dev and abloom-tools for amd64 and arm64  (scripts/release/debs.sh)
#
# The Go module and the Rust crates have no prebuilt artifact: `go get` and `cargo add` compile the
# bundled engine on the user's machine.
#
# Each part's scripts/release/check-PART.sh proves that its artifacts install and run where the
# README says (scripts/test-all.sh runs them all: stage release, scripts/release/check.sh OUT java python;
# stage debian, check-debs.sh).
#
# Usage: scripts/build-release.sh OUT [PART...]   (no part: all three)
# Env:   ABLOOM_BUILD_ROOT (default build) for the build trees; ABLOOM_JOBS (default 2).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage="usage: scripts/build-release.sh OUT [java|python|debs ...]"
[[ $# -ge 1 ]] || { echo "$usage" >&2 && exit 2; }
out=$1
shift
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(java python debs)
for part in "${parts[@]}"; do
  [[ -f "$ROOT/scripts/release/$part.sh" ]] || { echo "unknown part '$part'; $usage" >&2 && exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

for part in "${parts[@]}"; do
  echo "== release: $part"
  t0=$SECONDS
  bash "$ROOT/scripts/release/$part.sh" "$out"
  echo "-- release: $part built ($((SECONDS - t0))s)"
done

# Every file in OUT but the sums themselves, by relative path, in a stable order.
(
  cd "$out"
  find . -type f ! -name SHA256SUMS -printf '%P\n' | LC_ALL=C sort | xargs -r -d '\n' sha256sum >SHA256SUMS
)
echo "== release: $(wc -l <"$out/SHA256SUMS") files in $out (SHA256SUMS)"
