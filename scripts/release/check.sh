#!/usr/bin/env bash
# Checks a release folder made by scripts/build-release.sh: its SHA256SUMS, then each part's
# scripts/release/check-PART.sh (where the artifacts install and run).
#
# Usage: scripts/release/check.sh OUT [PART...]   (no part: java python debs)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[[ $# -ge 1 ]] || { echo "usage: scripts/release/check.sh OUT [PART...]" >&2 && exit 2; }
out=$(cd "$1" && pwd)
shift
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(java python debs)

[[ -s "$out/SHA256SUMS" ]] || { echo "no $out/SHA256SUMS" >&2 && exit 1; }
(cd "$out" && sha256sum --quiet --strict -c SHA256SUMS)
listed=$(awk '{print $2}' "$out/SHA256SUMS" | LC_ALL=C sort)
present=$(cd "$out" && find . -type f ! -name SHA256SUMS -printf '%P\n' | LC_ALL=C sort)
[[ "$listed" == "$present" ]] || {
  echo "SHA256SUMS does not list exactly the files in $out:" >&2
  diff <(echo "$listed") <(echo "$present") >&2 || true
  exit 1
}
echo "== SHA256SUMS: $(echo "$listed" | wc -l) files, all match"

failed=()
for part in "${parts[@]}"; do
  echo "== check: $part"
  bash "$ROOT/scripts/release/check-$part.sh" "$out" || failed+=("$part")
done
[[ ${#failed[@]} -eq 0 ]] || { echo "release checks failed: ${failed[*]}" >&2 && exit 1; }
echo "== release: every check passed"
