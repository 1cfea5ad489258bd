"""Growing filters: BloomFilter() without a capacity, as a set needs none."""

from __future__ import annotations

from pathlib import Path

import pytest

import pyabloom as abloom
from pyabloom import BloomFilter


def test_no_capacity_gives_a_growing_filter_that_holds_its_fpr() -> None:
    f = BloomFilter()  # no capacity, as for a set
    assert f.info.growth == 2.0
    f.update(range(100_000))
    info = f.info
    assert info.stages == 7  # 1024 * (2**7 - 1) >= 100000
    assert info.target_fpr == 0.01 and info.expected_fpr < 0.01
    assert not info.growth_failed
    # Keys counted as new: those a false positive made look present are not (under 1%).
    assert 99_000 <= info.keys <= 100_000
    assert all(i in f for i in range(100_000))
    assert all(f.contains_many(list(range(100_000))))
    # 200000 absent keys: false positives ~ Binomial(200000, p <= 0.01), mean <= 2000, sd 44.5.
    fp = sum(f.contains_many(list(range(10**9, 10**9 + 200_000))))
    assert fp <= 2270


def test_capacity_and_growth_set_the_first_stage() -> None:
    f = BloomFilter(5000, 0.001, growth=4.0, seed=3)
    f.add_many(range(30_000))
    info = f.info
    assert info.growth == 4.0 and info.stages == 3  # 5000 + 20000 < 30000 <= 5000 + 20000 + 80000
    assert info.capacity == 5000 + 20000 + 80000
    assert BloomFilter(1000).info.growth == 0.0  # a capacity alone: a fixed filter
    for bad in (1.0, 0.5, 17.0, float("nan")):
        with pytest.raises(ValueError):
            BloomFilter(growth=bad)


def test_files_and_bytes_keep_every_stage(tmp_path: Path) -> None:
    f = BloomFilter(seed=9)
    f.update(f"key-{i}" for i in range(20_000))
    data = f.to_bytes()
    g = BloomFilter.from_bytes(data)
    assert g == f and g.info.stages == f.info.stages >= 4
    path = tmp_path / "g.abloom"
    f.save(path)
    assert path.read_bytes() == data
    with BloomFilter.open(path) as opened:
        assert opened == f
        assert opened.info.storage == "mapped"
        assert all(f"key-{i}" in opened for i in range(20_000))
        with pytest.raises(abloom.ReadOnlyError):
            opened.add("x")
    # Mapped read-write, a growing file grows in place: every key there once it is closed.
    with BloomFilter.open(path, "r+", verify=True) as rw:
        stages = rw.info.stages
        rw.update(f"more-{i}" for i in range(60_000))
        assert rw.info.stages > stages
        rw.sync()
        with pytest.raises(abloom.StaleError):
            BloomFilter.open(path, verify=True)
    with BloomFilter.open(path, verify=True) as sealed:
        assert sealed.info.stages > stages
        assert all(f"key-{i}" in sealed for i in range(20_000))
        assert all(f"more-{i}" in sealed for i in range(60_000))
    # A damaged stage is refused.
    bad = bytearray(data)
    bad[-1] ^= 1
    with pytest.raises(abloom.ChecksumError):
        BloomFilter.from_bytes(bytes(bad))


def test_set_operations_on_growing_filters() -> None:
    a, b = BloomFilter(), BloomFilter()
    a.update(range(3000))
    b.update(range(3000, 12_000))
    u = a | b
    assert all(i in u for i in range(12_000))
    with pytest.raises(abloom.ShapeMismatchError):
        _ = a | BloomFilter(1000)
    with pytest.raises(abloom.UnsupportedFormatError, match="growing filters"):
        _ = a & b
    c = u.copy()
    assert c == u
    c.clear()
    assert c.info.keys == 0 and 5 not in c


VECTORS = Path(__file__).resolve().parents[3] / "tests" / "vectors"


def test_the_growing_golden_vector_reads_and_rebuilds_byte_for_byte(tmp_path: Path) -> None:
    # tests/vectors/README.md, growing_s1: growth 2 from 100 keys, target 10%, three stages.
    data = (VECTORS / "growing_s1.abloom").read_bytes()
    keys = (VECTORS / "growing_s1.keys.txt").read_bytes().splitlines()
    absent = [
        line.split(b" ", 1)
        for line in (VECTORS / "growing_s1.absent.txt").read_bytes().splitlines()
    ]
    f = BloomFilter.from_bytes(data)
    assert f.info.stages == 3 and f.info.growth == 2.0 and f.info.capacity == 700
    assert all(k in f for k in keys)
    assert [int(k in f) for _, k in absent] == [int(a) for a, _ in absent]
    g = BloomFilter(100, 0.1, shards=1, seed=0x6A0E1A6000000003, growth=2.0)
    for k in keys:
        g.add(k)
    assert g.to_bytes() == data
    path = tmp_path / "g.abloom"
    g.save(path)
    assert path.read_bytes() == data
