"""What the stable ABI costs: the same calls timed in two builds of the extension for one CPython,
the release's abi3 build and the full-API build a source install makes (bench/JOURNAL.md, "Python
wheels for 3.12 and later: the stable ABI").

    python bench/abi3_ab.py --full PYTHON_A --abi3 PYTHON_B [--keys 200000] [--rounds 7]

PYTHON_A and PYTHON_B are interpreters (venvs) of the same CPython version with abloom installed,
one from a full-API wheel, one from the abi3 wheel. The driver runs this file in each as a worker,
alternating rounds so that both see the same machine, keeps each call's best time, and prints ns
per key and the abi3/full ratio. The filter is small (in cache), so the figures are the call's own
cost, the part the stable ABI changes. Needs nothing beyond abloom.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from collections.abc import Callable


def worker(n: int) -> dict[str, float]:
    import pyabloom as abloom

    bkeys = [b"user:%011d" % i for i in range(n)]  # 16-byte bytes keys
    skeys = [f"user:{i:011d}" for i in range(n)]
    f = abloom.BloomFilter(n, 0.01)
    f.update(bkeys[: n // 2])

    def per_key(run: Callable[[], object]) -> float:
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - t0)
        return best / n * 1e9

    def contains_loop(keys: list[bytes] | list[str]) -> Callable[[], object]:
        return lambda: sum(1 for k in keys if k in f)

    def add_loop() -> None:
        add = abloom.BloomFilter(n, 0.01).add
        for k in bkeys:
            add(k)

    return {
        "k in f (bytes)": per_key(contains_loop(bkeys)),
        "k in f (str)": per_key(contains_loop(skeys)),
        "f.add(bytes)": per_key(add_loop),
        "update(list of bytes)": per_key(lambda: abloom.BloomFilter(n, 0.01).update(bkeys)),
        "contains_many(list of bytes)": per_key(lambda: f.contains_many(bkeys)),
        "contains_many(list of str)": per_key(lambda: f.contains_many(skeys)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--full", help="interpreter with the full-API build")
    ap.add_argument("--abi3", help="interpreter with the abi3 build")
    ap.add_argument("--keys", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        print(json.dumps(worker(a.keys)))
        return
    if not (a.full and a.abi3):
        ap.error("--full and --abi3 are required")
    builds = {"full": a.full, "abi3": a.abi3}
    best: dict[str, dict[str, float]] = {b: {} for b in builds}
    for _ in range(a.rounds):
        for b, py in builds.items():
            out = subprocess.run(
                [py, __file__, "--worker", "--keys", str(a.keys)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            for op, ns in json.loads(out).items():
                best[b][op] = min(best[b].get(op, float("inf")), ns)
    for b, py in builds.items():
        show = "import sys, pyabloom; print(sys.version.split()[0], pyabloom._abloom.__file__)"
        info = subprocess.run(
            [py, "-c", show],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        print(f"{b}: {info}")
    print(f"{a.keys} keys, best of {a.rounds} rounds x 3, ns per key")
    print("| call | full API | abi3 | abi3 / full |\n|---|---:|---:|---:|")
    for op in best["full"]:
        f, s = best["full"][op], best["abi3"][op]
        print(f"| {op} | {f:.1f} | {s:.1f} | {s / f:.2f} |")


if __name__ == "__main__":
    main()
