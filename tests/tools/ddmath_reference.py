#!/usr/bin/env python3
"""Prints the reference rows of tests/core_ddmath_test.cpp: exp, expm1, log, log1p and whole powers
at fixed inputs, to 300 bits with mpmath (PyPI), as the double nearest to the true value (hi) and
the double nearest to the remainder (lo). Inputs lying within 2^-90 (relative) of a midpoint
between two doubles are skipped: there no double-double of ddmath.hpp's accuracy can promise the
correctly rounded hi.

Run by hand when the table needs new rows:  python3 tests/tools/ddmath_reference.py
"""
import random

import mpmath

mpmath.mp.prec = 300


def split(v):
    hi = float(v)
    return hi, float(v - mpmath.mpf(hi))


def near_midpoint(v):
    hi = float(v)
    if hi == 0:
        return False
    ulp = mpmath.mpf(abs(hi)) * mpmath.mpf(2) ** -52
    frac = abs(v - mpmath.mpf(hi)) / ulp  # 0 at hi, 0.5 at a midpoint
    return abs(frac - 0.5) < mpmath.mpf(2) ** -38


def main():
    rng = random.Random(20261202)
    rows = []
    # exp: the model's range (the split terms, the Poisson mode), and the reduction's edges; not
    # below -600, where lo would be subnormal (ddmath.hpp: the model never goes there).
    xs = [-600.0, -88.7, -30.0, -1.0, -0.5, -2**-11, 0.0, 2**-30, 0.34657359, 1.0, 700.0]
    xs += [rng.uniform(-60, 1) for _ in range(16)]
    for x in xs:
        rows.append(("Exp", x, 0, mpmath.exp(mpmath.mpf(x))))
    # expm1: around 0 (the series), both sides of 2^-10, and the model's -k/c and i k ln(511/512).
    xs = [-2**-40, 2**-40, -0.999 * 2**-10, 0.999 * 2**-10, -2**-10, 2**-10, -0.001953125, -2 / 3]
    xs += [-rng.uniform(0, 0.002) for _ in range(6)] + [-rng.uniform(0, 40) for _ in range(10)]
    for x in xs:
        rows.append(("Expm1", x, 0, mpmath.expm1(mpmath.mpf(x))))
    # log: small whole numbers (Stirling's i, the Poisson lambda), near 1, and far.
    xs = [2.0, 3.0, 31.0, 32.0, 1e5, 1 - 1 / 512, 1 + 2**-52, 1 - 2**-53, 0.9990234375, 1e-250,
          1e250, 0.70710678118654746, 1.4142135623730951]
    xs += [rng.uniform(0.001, 600) for _ in range(12)]
    for x in xs:
        rows.append(("Log", x, 0, mpmath.log(mpmath.mpf(x))))
    # log1p: the estimate's -x/m and -k/512, down to tiny.
    xs = [-1 / 512, -7 / 512, -0.5, -511 / 512, -1e-9, 1e-300, -2**-60, 0.25, 3.0]
    xs += [-rng.uniform(0, 1) for _ in range(10)]
    for x in xs:
        rows.append(("Log1p", x, 0, mpmath.log1p(mpmath.mpf(x))))
    # whole powers, k = 1..64: the block FPRs' (1 - r^i)^k and r = (511/512)^k.
    for k in [1, 2, 3, 7, 9, 16, 22, 33, 64]:
        for x in [511 / 512, rng.uniform(0.001, 1), rng.uniform(0.5, 1)]:
            rows.append(("Pow", x, k, mpmath.mpf(x) ** k))
    for fn, x, k, v in rows:
        if near_midpoint(v):
            continue
        hi, lo = split(v)
        print(f"    {{Fn::k{fn}, {x.hex()}, {k}, {hi.hex()}, {lo.hex()}}},")


if __name__ == "__main__":
    main()
