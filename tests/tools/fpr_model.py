#!/usr/bin/env python3
"""The reference false-positive-rate model that abloom's sizing (core/model/sizing.cpp) is checked
against: the same formulas, written independently in plain Python floats, with no code shared
with the engine.

  classic   c bits per key, k probes anywhere in the filter:  (1 - e^(-k/c))^k.
  blocked   the distinct layout: keys fall into 512-bit blocks by a Poisson law of mean 512/c, a
            block holding i keys answers a foreign key positive with (1 - (1 - 1/512)^(ik))^k
            (Putze, Sanders and Singler, "Cache-, hash- and space-efficient Bloom filters",
            2007); the FPR is that mixture.
  split     the split layout: a block of 16 words of 32 bits, each key one uniform bit in each of
            k consecutive words (wrapping) from a uniform start. Thinned by start, the keys of
            each start are independent Poisson(512 / (16 c)); a query's word j stays a miss
            unless a key covering it set its bit, so the FPR is E[prod_j (1 - (31/32)^m_j)],
            which inclusion-exclusion over the query's words turns into a finite sum.
  half      the half layout: each key one uniform bit in each of the 8 words of 32 bits of one
            half of its block, k = 8 always. Thinned by half, a half holds Poisson(256 / c) keys,
            and a query's word j stays a miss unless one of them set its bit:
            sum_i Pois(i; 256 / c) (1 - (31/32)^i)^8. Not in the sizing table (its k is fixed);
            --check compares kHalfOracle with it.

Usage:
  fpr_model.py                      the sizing table (bits per key and k for each target)
  fpr_model.py --bits C             the best k and its FPR at C bits per key, per layout
  fpr_model.py --check FILE...      checks the model values that FILEs quote against this model:
                                    tests/core_sizing_test.cpp's kOracle and kNeeds tables, and
                                    the sizing table of a Markdown file (docs/GUIDE.md); exits 1 with
                                    one line per value that differs

Standard library only. CI runs the --check form (tests/CMakeLists.txt: abloom_fpr_model_check).
"""

from __future__ import annotations

import argparse
import functools
import math
import re
import sys
from collections.abc import Callable

BLOCK_BITS = 512
SPLIT_WORDS = 16
SPLIT_WORD_BITS = 32
MAX_K = 64  # core/model/sizing.hpp kMaxK
SPLIT_MAX_K = 16  # capi/abloom_layout.h: one probe per word at most
HALF_WORDS = 8  # capi/abloom_layout.h: the half layout's words, one bit each, so its only k

Model = Callable[[float, int], float]


def fpr_classic(c: float, k: int) -> float:
    return (-math.expm1(-k / c)) ** k


def _poisson_log_pmf(lam: float, i: int) -> float:
    return i * math.log(lam) - lam - math.lgamma(i + 1)


def fpr_blocked(c: float, k: int) -> float:
    lam = BLOCK_BITS / c
    miss = (1.0 - 1.0 / BLOCK_BITS) ** k  # one key leaves a given bit clear
    # The terms beyond 12 standard deviations and 40 more from the mean are below 1e-30.
    reach = 12.0 * math.sqrt(lam) + 40.0
    first, last = max(0, math.floor(lam - reach)), math.ceil(lam + reach)
    terms = (
        math.exp(_poisson_log_pmf(lam, i)) * (1.0 - miss**i) ** k for i in range(first, last + 1)
    )
    return math.fsum(terms)


@functools.cache
def _split_classes(k: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """The subsets S of the query's k words, grouped by what their term depends on: for each
    number n of S's words that a start's window covers, how many of the 16 starts cover n.
    Returns (that histogram, the signed count of its subsets) pairs."""
    full = (1 << k) - 1
    windows = [((full << s) | (full >> (SPLIT_WORDS - s))) & ((1 << SPLIT_WORDS) - 1)
               for s in range(SPLIT_WORDS)]
    classes: dict[tuple[int, ...], int] = {}
    for subset in range(1 << k):
        histogram = [0] * (SPLIT_WORDS + 1)
        for window in windows:
            histogram[bin(window & subset).count("1")] += 1
        key = tuple(histogram)
        classes[key] = classes.get(key, 0) + (-1 if bin(subset).count("1") % 2 else 1)
    return tuple((h, n) for h, n in classes.items() if n != 0)


def fpr_split(c: float, k: int) -> float:
    if k > SPLIT_MAX_K:
        return 1.0
    per_start = BLOCK_BITS / c / SPLIT_WORDS
    q = 1.0 - 1.0 / SPLIT_WORD_BITS
    terms = []
    for histogram, signed_count in _split_classes(k):
        # E[q^(sum over starts of N_s n_s)] for independent N_s ~ Poisson(per_start).
        exponent = sum(count * (q**n - 1.0) for n, count in enumerate(histogram) if count)
        terms.append(signed_count * math.exp(per_start * exponent))
    return min(1.0, max(0.0, math.fsum(terms)))


def fpr_half(c: float, k: int) -> float:
    if k != HALF_WORDS:
        return 1.0
    lam = BLOCK_BITS / 2 / c
    miss = 1.0 - 1.0 / SPLIT_WORD_BITS  # one key leaves a given bit of its word clear
    reach = 12.0 * math.sqrt(lam) + 40.0
    first, last = max(0, math.floor(lam - reach)), math.ceil(lam + reach)
    terms = (
        math.exp(_poisson_log_pmf(lam, i)) * (1.0 - miss**i) ** k for i in range(first, last + 1)
    )
    return math.fsum(terms)


LAYOUTS: dict[str, tuple[Model, int]] = {
    "blocked": (fpr_blocked, MAX_K),
    "split": (fpr_split, SPLIT_MAX_K),
    "classic": (fpr_classic, MAX_K),
}


def best_k(model: Model, c: float, top: int) -> tuple[float, int]:
    """The lowest FPR over k = 1..top at c bits per key, and its k (the smallest, on a tie)."""
    return min((model(c, k), k) for k in range(1, top + 1))


def bits_needed(model: Model, target: float, top: int) -> tuple[float, int]:
    """The least bits per key whose best k meets `target`, by bisection, and that k."""
    lo, hi = 0.5, 128.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if best_k(model, mid, top)[0] > target:
            lo = mid
        else:
            hi = mid
    return hi, best_k(model, hi, top)[1]


TARGETS = (0.1, 0.01, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8)


def table() -> None:
    print("| target FPR | " + " | ".join(f"{name} bits/key | {name} k" for name in LAYOUTS) + " |")
    print("|---|" + "---|---|" * len(LAYOUTS))
    for target in TARGETS:
        cells = []
        for model, top in LAYOUTS.values():
            c, k = bits_needed(model, target, top)
            cells += [f"{c:.2f}", str(k)]
        print(f"| {target:g} | " + " | ".join(cells) + " |")


# ---- --check ---------------------------------------------------------------------------------

NUMBER = r"[-+0-9.eE]+"


def check_cpp(text: str, problems: list[str]) -> int:
    """tests/core_sizing_test.cpp: kOracle rows {c, k, blocked, classic}, kNeeds rows
    {p, blocked_c, blocked_k, classic_c, classic_k} and kHalfOracle rows {c, half}."""
    checked = 0
    oracle = re.search(r"kOracle\[\] = \{(.*?)\};", text, re.S)
    needs = re.search(r"kNeeds\[\] = \{(.*?)\};", text, re.S)
    half = re.search(r"kHalfOracle\[\] = \{(.*?)\};", text, re.S)
    if not oracle or not needs or not half:
        problems.append("no kOracle, kNeeds or kHalfOracle table")
        return 0
    for row in re.findall(r"\{([^{}]*)\}", half.group(1)):
        c, want = (float(x) for x in row.split(","))
        got = fpr_half(c, HALF_WORDS)
        checked += 1
        if abs(got - want) > 1e-9 * want:
            problems.append(f"kHalfOracle c={c:g}: {want!r}, the model {got!r}")
    for row in re.findall(r"\{([^{}]*)\}", oracle.group(1)):
        c, k, blocked, classic = (float(x) for x in row.split(","))
        for name, want, got, tol in (("blocked", blocked, fpr_blocked(c, int(k)), 1e-9),
                                     ("classic", classic, fpr_classic(c, int(k)), 1e-12)):
            checked += 1
            if abs(got - want) > tol * want:
                problems.append(f"kOracle c={c:g} k={k:g} {name}: {want!r}, the model {got!r}")
    for row in re.findall(r"\{([^{}]*)\}", needs.group(1)):
        p, b_c, b_k, c_c, c_k = (float(x) for x in row.split(","))
        for name, want_c, want_k in (("blocked", b_c, b_k), ("classic", c_c, c_k)):
            model, top = LAYOUTS[name]
            got_c, got_k = bits_needed(model, p, top)
            checked += 1
            if abs(got_c - want_c) > 1e-9 * want_c or got_k != int(want_k):
                problems.append(f"kNeeds p={p:g} {name}: {want_c!r} bits, k {want_k:g}; the model "
                                f"{got_c!r}, k {got_k}")
    return checked


def check_markdown(text: str, problems: list[str]) -> int:
    """A sizing table: rows '| 1% | 9.90 | 6 | **10.12** (+2.3%) | 7 | 9.59 | 7 | ... |', its
    columns blocked (distinct) bits and k, split bits and k, classic bits and k."""
    checked = 0
    for line in text.splitlines():
        match = re.match(r"\|\s*([0-9.]+)%\s*\|(.*)", line)
        if not match:
            continue
        target = float(match.group(1)) / 100
        cells = [cell.strip() for cell in match.group(2).split("|")]
        values = [re.search(NUMBER, cell.replace("*", "")) for cell in cells[:6]]
        if len(values) < 6 or not all(values):
            continue
        numbers = [float(v.group(0)) for v in values if v]
        for i, name in enumerate(LAYOUTS):
            model, top = LAYOUTS[name]
            c, k = bits_needed(model, target, top)
            checked += 1
            if f"{c:.2f}" != f"{numbers[2 * i]:.2f}" or k != int(numbers[2 * i + 1]):
                problems.append(f"{target:g} {name}: {numbers[2 * i]:.2f} bits, k "
                                f"{numbers[2 * i + 1]:g}; the model {c:.2f}, k {k}")
    if checked == 0:
        problems.append("no sizing table rows")
    return checked


def check(paths: list[str]) -> int:
    problems: list[str] = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        mine: list[str] = []
        checked = check_cpp(text, mine) if path.endswith(".cpp") else check_markdown(text, mine)
        problems += [f"{path}: {p}" for p in mine]
        print(f"{path}: {checked} model values checked, {len(mine)} differ")
    for p in problems:
        print(p)
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bits", type=float, help="bits per key: the best k and FPR per layout")
    parser.add_argument("--check", nargs="+", metavar="FILE",
                        help="check the model values FILEs quote")
    args = parser.parse_args()
    if args.check:
        return check(args.check)
    if args.bits:
        for name, (model, top) in LAYOUTS.items():
            fpr, k = best_k(model, args.bits, top)
            print(f"{name:8s} c={args.bits:g}  k={k:2d}  fpr={fpr:.6%}")
        return 0
    table()
    return 0


if __name__ == "__main__":
    sys.exit(main())
