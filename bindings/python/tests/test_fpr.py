"""The false-positive rate at capacity is the target, within a binomial bound (fixed seeds, so the
test is deterministic)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyabloom import BloomFilter


@pytest.mark.parametrize(
    ("kind", "layout", "fpr"),
    [
        ("blocked", "default", 0.01),
        ("blocked", "distinct", 0.01),
        ("blocked", "split", 0.01),
        ("blocked", "half", 0.01),
        ("blocked", "half", 0.001),
        ("classic", "default", 0.01),
        ("blocked", "default", 0.001),
    ],
)
def test_fpr_at_capacity(kind: str, layout: str, fpr: float) -> None:
    n, trials = 200_000, 1_000_000
    f = BloomFilter(n, fpr, kind=kind, layout=layout, seed=0xF00D)  # type: ignore[arg-type]
    f.add_many(np.arange(n, dtype=np.uint64))
    hits = int(f.contains_many(np.arange(2**40, 2**40 + trials, dtype=np.uint64)).sum())
    # The model's FPR (<= the target) is the mean; allow 5 standard deviations of a binomial.
    p = f.info.expected_fpr
    assert p <= fpr
    sigma = math.sqrt(trials * p * (1 - p))
    assert abs(hits - trials * p) <= 5 * sigma, (hits, trials * p, sigma)
    assert hits <= trials * fpr + 5 * math.sqrt(trials * fpr * (1 - fpr))
    assert f.estimated_fpr == pytest.approx(p, rel=0.2)
    assert f.approx_len() == pytest.approx(n, rel=0.03)
