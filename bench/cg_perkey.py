#!/usr/bin/env python3
"""Per-key instruction and branch counts from two cachegrind runs of one program (issue 53).

usage: cg_perkey.py BASE.out RUN.out N [--by=total|function|line] [--top=T] [--min=M]

BASE.out and RUN.out are `valgrind --tool=cachegrind --branch-sim=yes` outputs of the same
program doing the same preparation, RUN with N keys of the operation and BASE with none
(boost_bloom_peer --count=IMPL/OP/N and .../0). Prints (RUN - BASE) / N per key:
  total      one line: instructions (Ir), conditional branches (Bc), mispredicted conditional
             and indirect branches (Bcm + Bim)
  function   the difference by function (template arguments and parameters dropped) and file
  line       the difference by source line (file:line), the lines of at least --min
             instructions per key (default 0.5), most first
"""
import collections
import os
import sys


def parse(path):
    """{(file, function, line): [Ir, Bc, Bcm, Bi, Bim]} and the summary totals."""
    counts = collections.defaultdict(lambda: [0] * 5)
    fl = fn = None
    summary = None
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith("fl=") or line.startswith("fi=") or line.startswith("fe="):
                fl = line[3:]
            elif line.startswith("fn="):
                fn = line[3:]
            elif line.startswith("summary:"):
                summary = [int(x) for x in line.split()[1:]]
            elif line and line[0].isdigit():
                parts = [int(x) for x in line.split()]
                c = counts[(fl, fn, parts[0])]
                for i, v in enumerate(parts[1:6]):
                    c[i] += v
    return counts, summary


def short_function(name):
    """The function's name without template arguments, parameters or a clone suffix."""
    out, depth, i = [], 0, 0
    # Cut at the parameter list: the first '(' outside template arguments that does not open
    # "(anonymous namespace)".
    while i < len(name):
        ch = name[i]
        if name.startswith("(anonymous namespace)", i):
            if depth == 0:
                out.append("(anon)")
            i += len("(anonymous namespace)")
            continue
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            break
        elif depth == 0:
            out.append(ch)
        i += 1
    s = "".join(out)
    # "unsigned long abloom::(anon)::bulk_test" -> drop a leading return type.
    if " " in s:
        s = s.split(" ")[-1]
    return s


def short_file(path):
    path = os.path.normpath(path)
    for marker in ("/wt-boost/", "/boost-headers/include/", "/include/"):
        if marker in path:
            return path.split(marker, 1)[1]
    return os.path.basename(path)


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    base, base_sum = parse(argv[1])
    run, run_sum = parse(argv[2])
    n = float(argv[3])
    by, top, minimum = "total", 40, 0.5
    for a in argv[4:]:
        if a.startswith("--by="):
            by = a[5:]
        elif a.startswith("--top="):
            top = int(a[6:])
        elif a.startswith("--min="):
            minimum = float(a[6:])
    ir, bc, bcm, bi, bim = [(r - b) / n for r, b in zip(run_sum, base_sum)]
    print(f"Ir/key {ir:.1f}  Bc/key {bc:.2f}  mispredicts/key {bcm + bim:.3f}")
    if by == "total":
        return 0
    diff = collections.defaultdict(lambda: [0] * 5)
    for key in set(run) | set(base):
        r, b = run.get(key, [0] * 5), base.get(key, [0] * 5)
        if by == "function":
            k = (short_function(key[1] or "?"), short_file(key[0] or "?"))
        else:
            k = (f"{short_file(key[0] or '?')}:{key[2]}", short_function(key[1] or "?"))
        d = diff[k]
        for i in range(5):
            d[i] += r[i] - b[i]
    rows = sorted(diff.items(), key=lambda kv: -kv[1][0])
    print(f"{'Ir/key':>8} {'mispr/key':>9}  {'function' if by == 'function' else 'line'}")
    for k, v in rows[:top]:
        if v[0] / n < minimum:
            continue
        print(f"{v[0] / n:8.2f} {(v[2] + v[4]) / n:9.3f}  {k[0]}  [{k[1]}]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
