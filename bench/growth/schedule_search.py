#!/usr/bin/env python3
"""Searches FPR schedules for growing filters (bench/JOURNAL.md, "Growing filters: the FPR schedule").

    python3 bench/growth/schedule_search.py

With the project's reference FPR model (tests/tools/fpr_model.py: its blocked-512 model and
bits_needed, the ones the sizing is checked against). For targets 1% and 0.1% and
growth 2, it prints the memory of a chain (bits over a fixed filter at the final count) at 10x to
100,000x the initial capacity for the best ramp-and-tail schedules, geometric shares (r = 0.85)
and RedisBloom's (r = 0.5). A few minutes.
"""
import math
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "tools"))
from fpr_model import MAX_K, bits_needed, fpr_blocked  # noqa: E402
LP = [math.log(0.5) - j * 0.1 for j in range(170)]  # down to ~2e-8
BT = [bits_needed(fpr_blocked, math.exp(lp), MAX_K)[0] for lp in LP]  # bits per key, tabulated over log p
def b(p):
    x = (math.log(0.5) - math.log(p)) / 0.1
    j = min(max(int(x), 0), len(BT) - 2); t = x - j
    return BT[j] * (1 - t) + BT[j + 1] * t
def ratio_w(f, g, ws, n):
    total, mem, i = 0.0, 0.0, 0
    while True:
        c = g ** i
        mem += c * b(f * ws[i]); total += c
        if total >= n: break
        i += 1
    return mem / (n * b(f))
NS = [10 ** (1 + 2 * j / 200) for j in range(201)]
def obj(f, g, ws, mode):
    rs = [ratio_w(f, g, ws, n) for n in NS]
    return max(rs) if mode == 'max' else math.exp(sum(map(math.log, rs)) / len(rs))
def mk(logits, rt):
    ws = [math.exp(x) for x in logits]
    tail = [ws[-1] * rt ** (j + 1) for j in range(80)]
    s = sum(ws) + sum(tail)
    return [w / s for w in ws + tail]
def show(name, f, g, ws):
    pts = [ratio_w(f, g, ws, n) for n in (10, 30, 100, 300, 1000)]
    print(f"{name:24s} f={f:<6} g={g} mean={obj(f,g,ws,'mean'):.3f} max={obj(f,g,ws,'max'):.3f} at 10/30/100/300/1000x: " + " ".join(f"{x:.2f}" for x in pts))
NS2 = [10 ** (1 + 4 * j / 200) for j in range(201)]  # 10x .. 100000x
def objw(f, g, ws, ns):
    rs = [ratio_w(f, g, ws, n) for n in ns]
    return math.exp(sum(map(math.log, rs)) / len(rs)), max(rs)
def sched(m, s, R, N=200):
    ramp = [R * 2 ** (i - m) / (1 - 2 ** -m) for i in range(m)] if m else []
    tail = [(1 - R) * s / ((j + s) * (j + s + 1)) for j in range(N)]
    return ramp + tail
best = []
for f in (0.01, 0.001):
    res = []
    for m in (0, 2, 3, 4, 5):
        for s in (2, 3, 4, 6, 8, 12):
            for R in ([0.0] if m == 0 else (0.05, 0.1, 0.15, 0.2, 0.3)):
                ws = sched(m, s, R)
                mean, mx = objw(f, 2, ws, NS2)
                res.append((mean, mx, m, s, R))
    res.sort()
    for r in res[:5]:
        mean, mx, m, s, R = r
        ws = sched(m, s, R)
        pts = [ratio_w(f, 2, ws, n) for n in (10, 30, 100, 300, 1000, 10000, 100000)]
        print(f"f={f} m={m} s={s} R={R}: mean={mean:.3f} max={mx:.3f} | 10,30,100,300,1e3,1e4,1e5x: " + " ".join(f"{x:.2f}" for x in pts), " w0..9:", " ".join(f"{w:.3f}" for w in ws[:10]))
    for r in (0.85,):
        ws = [(1 - r) * r ** i for i in range(200)]
        mean, mx = objw(f, 2, ws, NS2)
        pts = [ratio_w(f, 2, ws, n) for n in (10, 30, 100, 300, 1000, 10000, 100000)]
        print(f"f={f} geom {r}: mean={mean:.3f} max={mx:.3f} | " + " ".join(f"{x:.2f}" for x in pts))
    ws = [0.5 ** (i + 1) for i in range(200)]
    mean, mx = objw(f, 2, ws, NS2)
    pts = [ratio_w(f, 2, ws, n) for n in (10, 30, 100, 300, 1000, 10000, 100000)]
    print(f"f={f} redis: mean={mean:.3f} max={mx:.3f} | " + " ".join(f"{x:.2f}" for x in pts))
