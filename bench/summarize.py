#!/usr/bin/env python3
"""Summarize abloom_bench results (Google Benchmark JSON) as markdown tables with ratios.

Usage:
  abloom_bench --quick --benchmark_out=quick.json --benchmark_out_format=json
  python3 bench/summarize.py quick.json            # or: abloom_bench --benchmark_format=json | \
                                                   #     python3 bench/summarize.py -

Per benchmark it takes the median aggregate when there is one (--benchmark_repetitions > 1),
else the mean of the runs, and turns items_per_second into ns per key (wall clock; for the
threaded adds, aggregate throughput of all threads). Every ratio is between two benchmarks of the
same file, i.e. of the same run. The goals of issue 12 are marked (each a ratio to the random-access limit of the
same run: `read_nopf`, the plain loop, for single-key calls; `read`, prefetched, for bulk calls):
single test <= 1.3x at 10M keys and up (<= 2.0x below), bulk test <= 1.2x, lock-free bulk add <=
2.5x at 10M and up, lock-free single add <= 2.0x at 10M and up, exclusive-writer bulk add <= 1.5x,
exclusive-writer single add <= 1.2x at 10M and up, and >= 5x libbloom's speed at 100M keys.
"""

import json
import sys
from collections import defaultdict

LIBBLOOM_GOAL = 5.0
OUT_OF_CACHE = 10e6  # keys: the goals' "out of cache" sizes start here
OPS = ["add", "test", "test_present", "test_and_add", "add_hashes", "test_hashes", "add_packed",
       "test_packed", "test_packed_present", "add_x", "add_packed_x"]
IMPLS = ["blocked", "classic", "libbloom", "mutex"]


def parse_name(run_name):
    """'grid/blocked/test/keys:1M/bpk:10/real_time' -> (('grid','blocked','test'), {...})."""
    words, params = [], {}
    for part in run_name.split("/"):
        if part == "real_time":
            continue
        if ":" in part:
            key, value = part.split(":", 1)
            params[key] = value
        else:
            words.append(part)
    return tuple(words), params


def load(paths):
    """{(words, frozenset(params.items())): ns_per_key}, and the context of the first file."""
    medians, runs, context = {}, defaultdict(list), None
    for path in paths:
        with (sys.stdin if path == "-" else open(path)) as f:
            data = json.load(f)
        context = context or data.get("context", {})
        for b in data.get("benchmarks", []):
            ips = b.get("items_per_second")
            if not ips:
                continue
            name = b.get("run_name", b["name"])
            if b.get("run_type") == "aggregate":
                if b.get("aggregate_name") == "median":
                    medians[name] = 1e9 / ips
            else:
                runs[name].append(1e9 / ips)
    out = {}
    for name, values in runs.items():
        out[name] = sum(values) / len(values)
    out.update(medians)
    table = {}
    for name, ns in out.items():
        words, params = parse_name(name)
        table[(words, frozenset(params.items()))] = ns
    return table, context or {}


def count_value(label):
    mult = {"K": 1e3, "M": 1e6}.get(label[-1:], 1)
    return float(label.rstrip("KM")) * mult


class Results:
    def __init__(self, table):
        self.t = table

    def get(self, words, **params):
        return self.t.get((tuple(words), frozenset((k, str(v)) for k, v in params.items())))

    def values(self, section, key):
        vals = set()
        for (words, params) in self.t:
            if words and words[0] == section:
                d = dict(params)
                if key in d:
                    vals.add(d[key])
        return vals


def fmt(ns):
    return "-" if ns is None else f"{ns:.2f}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def fmt_ratio(r, digits=2):
    return "-" if r is None else f"{r:.{digits}f}"


def goal(r, ok):
    if r is None:
        return "-"
    return f"{r:.2f} {'met' if ok(r) else 'not yet'}"


def grid_tables(r):
    sizes = sorted(r.values("grid", "keys"), key=count_value)
    bpks = sorted(r.values("grid", "bpk"), key=int)
    if not sizes:
        return
    groups = [(k, b) for k in sizes for b in bpks if r.get(("grid", "blocked", "test"), keys=k, bpk=b)
              or r.get(("grid", "limit", "read"), keys=k, bpk=b)]

    print("### Goals of issue 12 (blocked kind; ratios of ns/key, same run)\n")
    print("Single-key calls against `read_nopf` (XXH3 of the key, multiply-high line pick, one read, "
          "a plain loop), bulk calls against `read` (the same, prefetched 32 keys ahead). `_x`: the "
          "exclusive-writer mode. A goal applies where its cell says met or not yet.\n")
    print("| keys | bits/key | read_nopf | read | test | test_present | test_packed | "
          "test_packed_present | add_packed | add | add_packed_x | add_x | "
          "libbloom / blocked: test, present, add |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k, b in groups:
        g = lambda impl, op: r.get(("grid", impl, op), keys=k, bpk=b)  # noqa: E731
        big = count_value(k) >= OUT_OF_CACHE
        nopf, lim = g("limit", "read_nopf"), g("limit", "read")

        def vs(op, limit, bound, applies=True):
            x = ratio(g("blocked", op), limit)
            return goal(x, lambda v: v <= bound) if applies else fmt_ratio(x)

        lb = [ratio(g("libbloom", op), g("blocked", op)) for op in ("test", "test_present", "add")]
        lb_cell = ", ".join(
            goal(x, lambda v: v >= LIBBLOOM_GOAL) if count_value(k) >= 100e6 else fmt_ratio(x)
            for x in lb)
        cells = [
            fmt(nopf), fmt(lim),
            vs("test", nopf, 1.3 if big else 2.0),
            vs("test_present", nopf, 1.3 if big else 2.0),
            vs("test_packed", lim, 1.2),
            vs("test_packed_present", lim, 1.2),
            vs("add_packed", lim, 2.5, big),
            vs("add", nopf, 2.0, big),
            vs("add_packed_x", lim, 1.5),
            vs("add_x", nopf, 1.2, big),
            lb_cell,
        ]
        print(f"| {k} | {b} | " + " | ".join(cells) + " |")

    print("\n### ns/key by op (in parentheses: ratio to blocked, same op, keys and bits/key)\n")
    print("| keys | bits/key | op | " + " | ".join(IMPLS) + " |")
    print("|---|---|---|" + "---|" * len(IMPLS))
    for k, b in groups:
        for op in OPS:
            base = r.get(("grid", "blocked", op), keys=k, bpk=b)
            cells = []
            any_value = False
            for impl in IMPLS:
                ns = r.get(("grid", impl, op), keys=k, bpk=b)
                any_value |= ns is not None
                if ns is None:
                    cells.append("-")
                elif impl == "blocked":
                    cells.append(fmt(ns))
                else:
                    cells.append(f"{fmt(ns)} ({fmt_ratio(ratio(ns, base))})")
            if any_value:
                print(f"| {k} | {b} | {op} | " + " | ".join(cells) + " |")

    print("\n### The random-access limit, ns/key (in parentheses: ratio to `read`)\n")
    print("| keys | bits/key | read (prefetch 32 ahead) | read_nopf | read_hashes | write |")
    print("|---|---|---|---|---|---|")
    for k, b in groups:
        base = r.get(("grid", "limit", "read"), keys=k, bpk=b)
        cells = []
        for op in ["read", "read_nopf", "read_hashes", "write"]:
            ns = r.get(("grid", "limit", op), keys=k, bpk=b)
            cells.append(fmt(ns) if op == "read" else f"{fmt(ns)} ({fmt_ratio(ratio(ns, base))})")
        print(f"| {k} | {b} | " + " | ".join(cells) + " |")


def keylen_table(r):
    lens = sorted(r.values("keylen", "len"), key=int)
    if not lens:
        return
    print("\n### Key length: ns/key in a 1M-key filter at 10 bits/key (in cache)\n")
    print("| key bytes | xxh3 hash alone | blocked test | blocked test_packed | libbloom test | "
          "libbloom / blocked test | blocked test - hash |")
    print("|---|---|---|---|---|---|---|")
    for n in lens:
        h = r.get(("keylen", "xxh3", "hash"), len=n)
        t = r.get(("keylen", "blocked", "test"), len=n)
        tp = r.get(("keylen", "blocked", "test_packed"), len=n)
        lb = r.get(("keylen", "libbloom", "test"), len=n)
        probe = None if h is None or t is None else t - h
        print(f"| {n} | {fmt(h)} | {fmt(t)} | {fmt(tp)} | {fmt(lb)} | "
              f"{fmt_ratio(ratio(lb, t))} | {fmt(probe)} |")


ISAS = ["scalar", "avx2", "avx512"]
ISA_OPS = ["test", "test_present", "add", "add_x", "test_packed", "test_packed_present",
           "add_packed", "add_packed_x", "estimate_count", "estimate_fpr", "serialize"]
# Ops timed per 64-byte block of the filter, not per key (abloom_bench.cpp's run_whole).
PER_BLOCK_OPS = {"estimate_count", "estimate_fpr", "serialize"}


def isa_table(r):
    isas = [i for i in ISAS if any(w[:2] == ("isa", i) for (w, _) in r.t)]
    if not isas:
        return
    groups = sorted({(dict(p)["keys"], dict(p)["bpk"]) for (w, p) in r.t if w[:1] == ("isa",)},
                    key=lambda kb: (count_value(kb[0]), int(kb[1])))
    print("\n### Kernels: ns/key of the blocked kind under each kernel this CPU has (in parentheses: "
          "ratio to scalar, same op, keys and bits/key)\n")
    extra = ["avx512 / avx2"] if "avx2" in isas and "avx512" in isas else []
    print("| keys | bits/key | op | " + " | ".join(isas + extra) + " |")
    print("|---|---|---|" + "---|" * (len(isas) + len(extra)))
    for k, b in groups:
        for op in ISA_OPS:
            ns = {i: r.get(("isa", i, op), keys=k, bpk=b) for i in isas}
            if all(v is None for v in ns.values()):
                continue
            cells = [fmt(ns[i]) if i == "scalar" else
                     f"{fmt(ns[i])} ({fmt_ratio(ratio(ns[i], ns.get('scalar')))})" for i in isas]
            if extra:
                cells.append(fmt_ratio(ratio(ns["avx512"], ns["avx2"])))
            label = f"{op} (ns/block)" if op in PER_BLOCK_OPS else op
            print(f"| {k} | {b} | {label} | " + " | ".join(cells) + " |")


def mt_table(r):
    impls = [i for i in ["mutex", "atomic", "sharded"]
             if any(w[:2] == ("mt_add", i) for (w, _) in r.t)]
    if not impls:
        return
    params, counts = {}, set()
    for (words, p) in r.t:
        if words[:1] == ("mt_add",):
            d = dict(p)
            counts.add(int(d["threads"]))
            params = {k: v for k, v in d.items() if k != "threads"}
    counts = sorted(counts)
    top = counts[-1]

    def mkeys(impl, threads):
        ns = r.get(("mt_add", impl), threads=threads, **params)
        return None if ns is None else 1e3 / ns

    print("\n### Concurrent abloom_add on one shared filter: M keys/s, all threads together\n")
    print("| filter | " + " | ".join(f"threads={t}" for t in counts) +
          f" | speedup {top}/1 | threads={top} vs mutex |")
    print("|---|" + "---|" * (len(counts) + 2))
    mutex_top = mkeys("mutex", top)
    for impl in impls:
        vals = [mkeys(impl, t) for t in counts]
        print(f"| {impl} | " + " | ".join(fmt(v) for v in vals) +
              f" | {fmt_ratio(ratio(vals[-1], mkeys(impl, 1)))}x | "
              f"{fmt_ratio(ratio(vals[-1], mutex_top))}x |")


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    table, ctx = load(argv[1:])
    r = Results(table)
    caches = ", ".join(f"L{c.get('level')} {c.get('type', '')} {c.get('size', 0) // 1024} KiB"
                       for c in ctx.get("caches", []))
    print(f"Run: {ctx.get('date', '?')} on {ctx.get('host_name', '?')}, "
          f"{ctx.get('num_cpus', '?')} CPUs at {ctx.get('mhz_per_cpu', '?')} MHz; caches: "
          f"{caches or '?'}; load average {ctx.get('load_avg', '?')}; blocked layout "
          f"{ctx.get('abloom_blocked_layout', 'default')}.\n")
    grid_tables(r)
    keylen_table(r)
    isa_table(r)
    mt_table(r)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
