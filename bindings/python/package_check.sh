#!/usr/bin/env bash
# Installs the Python package the way a user does, from nothing but its sdist, and runs a consumer
# script with it (scripts/test-all.sh, stage packages):
#
#   bash bindings/python/package_check.sh [EXCHANGE_DIR]
#
# 1. make_sdist.sh builds the sdist (with its generated copy of the engine) into a temporary
#    directory outside the repository, given a python3 without PyPI's `build` and run from a
#    folder holding a stray build/ (it must make its own venv, and not import that folder);
# 2. a fresh venv there, `pip install pyabloom-*.tar.gz` (no NumPy, no environment variable: PATH
#    and HOME only), from that directory;
# 3. the consumer (consumer.py below) creates a filter, adds and tests 10000 keys (and 10000
#    absent ones: the false positives must be near 1%); opens tests/vectors/blocked_s1.abloom (a
#    file the C library wrote) with the checksum verified and checks its 450 keys and the 2000
#    recorded answers of blocked_s1.absent.txt; with EXCHANGE_DIR, opens every LANG.abloom there
#    that has a LANG.keys.txt (the Go, Rust and Java package checks run before this one) and
#    checks every key; then saves python.abloom (blocked, 4 shards, 1000 keys) and
#    python.keys.txt there, reopened and checked, for the C consumer of the Debian packages.
# ABLOOM_JOBS (default 2) compile jobs. ABLOOM_KEEP=1 keeps the temporary directory.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
exchange=${1:-}
[[ -z "$exchange" ]] || exchange=$(cd "$exchange" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/abloom-python-pkg.XXXXXX")
[[ "${ABLOOM_KEEP:-0}" == 1 ]] || trap 'rm -rf "$work"' EXIT

# As the README says it: a python3 with nothing installed (a bare venv: no `build`), from a folder
# with a stray build/ in it (as `cmake -B build` leaves), which must not be imported as `build`.
python3 -m venv "$work/bare"
mkdir -p "$work/cwd/build"
(cd "$work/cwd" && ABLOOM_BUILD_ROOT="$work/b" bash "$here/make_sdist.sh" "$work/dist" "$work/bare/bin/python") \
  >"$work/sdist.log" 2>&1 || { tail -30 "$work/sdist.log" && exit 1; }
[[ -x "$work/b/sdist-venv/bin/python" ]] || { echo "make_sdist.sh did not make its own venv" >&2 && exit 1; }
sdist=$(ls "$work"/dist/pyabloom-*.tar.gz)
echo "python package: $(basename "$sdist") ($(tar -tzf "$sdist" | wc -l) files)"

cat >"$work/consumer.py" <<'PY'
import os
import sys

import pyabloom as abloom

vectors, exchange = sys.argv[1], sys.argv[2]
assert abloom.__file__.startswith(sys.prefix), abloom.__file__

f = abloom.BloomFilter(10_000, 0.01)
f.update(f"user:{i}" for i in range(10_000))
assert all(f"user:{i}" in f for i in range(10_000))
fp = sum(f"other:{i}" in f for i in range(10_000))
assert 30 <= fp <= 200, fp

with abloom.BloomFilter.open(os.path.join(vectors, "blocked_s1.abloom"), verify=True) as v:
    with open(os.path.join(vectors, "blocked_s1.keys.txt"), encoding="ascii") as k:
        keys = k.read().split("\n")[:-1]
    assert len(keys) == 450 and all(key in v for key in keys)
    with open(os.path.join(vectors, "blocked_s1.absent.txt"), encoding="ascii") as a:
        rows = [line.split(" ", 1) for line in a.read().split("\n")[:-1]]
    assert len(rows) == 2000 and all((key in v) == (ans == "1") for ans, key in rows)
print("consumer: golden vector blocked_s1 read, 450 keys and 2000 answers match")

if exchange:
    for name in sorted(os.listdir(exchange)):
        lang, ext = os.path.splitext(name)
        keys_path = os.path.join(exchange, lang + ".keys.txt")
        if ext != ".abloom" or lang == "python" or not os.path.isfile(keys_path):
            continue
        with abloom.BloomFilter.open(os.path.join(exchange, name), verify=True) as g:
            with open(keys_path, encoding="utf-8") as k:
                keys = k.read().split("\n")[:-1]
            assert keys and all(key in g for key in keys), lang
            print(f"consumer: {name} ({g.info.kind}, {g.info.shards} shards): {len(keys)} keys present")
    mine = abloom.BloomFilter(1000, 0.01, shards=4)
    keys = [f"python:{i}" for i in range(1000)]
    mine.update(keys)
    mine.save(os.path.join(exchange, "python.abloom"))
    with open(os.path.join(exchange, "python.keys.txt"), "w", encoding="utf-8") as out:
        out.write("".join(key + "\n" for key in keys))
    with abloom.BloomFilter.open(os.path.join(exchange, "python.abloom"), verify=True) as back:
        assert back == mine and all(key in back for key in keys)
    print("consumer: python.abloom and python.keys.txt written to", exchange)
PY

# CI's compiler cache (scripts/lib/ci-cache.sh) is passed on: it changes no result.
source "$root/scripts/lib/ci-cache.sh"
mapfile -t cache_env < <(ci_cache_vars)
cd "$work"
env -i PATH="$PATH" HOME="$HOME" CMAKE_BUILD_PARALLEL_LEVEL="${ABLOOM_JOBS:-2}" "${cache_env[@]}" \
  sh -c 'python3 -m venv venv && venv/bin/pip install -q --disable-pip-version-check --no-cache-dir "$1"' \
  sh "$sdist"
env -i PATH="$PATH" HOME="$HOME" venv/bin/python consumer.py "$root/tests/vectors" "$exchange"
echo "python package: PASS"
