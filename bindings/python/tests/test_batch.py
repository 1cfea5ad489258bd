"""Batches: update, add_many, contains_many, over lists, iterables and NumPy arrays."""

from __future__ import annotations

import array
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import pyabloom as abloom
from pyabloom import BloomFilter


def keys(n: int, tag: str = "k") -> list[bytes]:
    return [f"{tag}{i}".encode() for i in range(n)]


def test_batches_match_single_keys_across_chunks() -> None:
    ks = keys(150_000)  # many batches of 4096 keys, the last one partial
    a, b = BloomFilter(200_000, seed=5), BloomFilter(200_000, seed=5)
    for k in ks:
        a.add(k)
    assert 149_000 < b.add_many(ks) <= 150_000  # a few collide with earlier keys
    assert a == b
    assert b.contains_many(ks) == [True] * len(ks)
    absent = b.contains_many(keys(10_000, "absent"))
    assert isinstance(absent, list) and 0 < sum(absent) < 300
    # Present and absent keys interleaved: every answer lands at its own index, in every batch.
    mixed = [k for pair in zip(ks[:20_001], keys(20_001, "other")) for k in pair]
    assert b.contains_many(mixed) == [k in b for k in mixed]
    assert b.contains_many(iter(mixed)) == [k in b for k in mixed]


# Batches hash each key in the binding (the filter's XXH3-64 with its seed) and hash keys of
# 2048 bytes or more later, with the GIL released: every length, every key type and both paths
# must give the bits that single calls give.
LENGTHS = [*range(0, 300), 1000, 2046, 2047, 2048, 2049, 4096, 5000, 100_000]


def long_and_short_keys(seed: int) -> list[Any]:
    rng = np.random.default_rng(seed)
    out: list[Any] = []
    for n in LENGTHS:
        raw = rng.integers(0, 256, size=n, dtype=np.uint8).tobytes()
        text = "".join(chr(0x61 + b % 26) for b in raw[: n // 2]) + "\u00e9\u4e2d" * (n % 3)
        out += [raw, bytearray(raw[::-1]), memoryview(raw)[1:], text, n, -n - 1]
    return out


@pytest.mark.parametrize("seed", [0, 7, 2**64 - 1])
def test_batches_hash_every_length_and_type_as_single_calls(seed: int) -> None:
    ks = long_and_short_keys(seed % 1000)
    single, batched = BloomFilter(5000, seed=seed), BloomFilter(5000, seed=seed)
    for k in ks:
        single.add(k)
    batched.update(ks)
    assert single == batched
    assert batched.contains_many(ks) == [True] * len(ks)
    # Long and short absent keys interleaved with present ones: each answer at its own index.
    absent = [bytes(x) + b"!" if isinstance(x, (bytes, bytearray, memoryview)) else x for x in ks]
    absent = [a for a in absent if not isinstance(a, (int, str))]
    mixed = [k for pair in zip(ks, absent) for k in pair]
    assert batched.contains_many(mixed) == [k in batched for k in mixed]


def test_long_keys_stay_alive_while_a_batch_holds_them() -> None:
    # A generator drops each key as soon as the batch has it; a deferred (long) key must still be
    # hashed correctly from the object the batch references.
    def gen() -> Iterator[bytes]:
        for i in range(3000):
            yield bytes([i % 251]) * (2048 + i)

    f = BloomFilter(10_000)
    f.update(gen())
    assert all(bytes([i % 251]) * (2048 + i) in f for i in range(3000))


def test_add_many_counts_new_keys() -> None:
    f = BloomFilter(1000)
    assert f.add_many(["a", "b", "a"]) == 2
    assert f.add_many(["a", "b"]) == 0
    assert f.add_many([]) == 0 and f.contains_many([]) == []


def test_update_takes_any_iterables() -> None:
    f = BloomFilter(1000)

    def gen() -> Iterator[str]:
        yield from ("g1", "g2")

    f.update(gen(), ("t1", 2), {"s1"}, range(3, 5), (x for x in [b"x"]))
    assert all(k in f for k in ("g1", "g2", "t1", 2, "s1", 3, 4, b"x"))
    assert f.update() is None  # type: ignore[func-returns-value]
    with pytest.raises(TypeError):
        f.update(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        f.add_many(None)  # type: ignore[arg-type]


def test_iterator_errors_propagate() -> None:
    def bad() -> Iterator[str]:
        yield "a"
        raise RuntimeError("boom")

    f = BloomFilter(100)
    with pytest.raises(RuntimeError, match="boom"):
        f.update(bad())


def test_mixed_key_types_in_one_batch() -> None:
    f = BloomFilter(1000)
    f.add_many(["s", b"b", bytearray(b"ba"), memoryview(b"m"), 1, -1])
    assert f.contains_many(["s", b"b", b"ba", b"m", 1, 2**64 - 1, "no"]) == [True] * 6 + [False]


@pytest.mark.parametrize("dtype", [np.uint64, np.int64])
def test_numpy_int_arrays_in_one_call(dtype: type) -> None:
    a: np.ndarray[Any, Any] = np.arange(0, 100_000, dtype=dtype)
    f = BloomFilter(200_000, seed=8)
    assert 99_500 < f.add_many(a) <= 100_000
    g = BloomFilter(200_000, seed=8)
    g.update(int(x) for x in a)
    assert f == g  # the same 8-byte keys as Python ints
    r = f.contains_many(a)
    assert isinstance(r, np.ndarray) and r.dtype == np.bool_ and r.shape == (100_000,) and r.all()
    absent = f.contains_many(np.arange(10**9, 10**9 + 20_000, dtype=dtype))
    assert 0 < int(absent.sum()) < 500


def test_int_arrays_across_chunks_answer_key_by_key() -> None:
    # Arrays go to the engine in chunks of 65536 keys, hashed here 4096 at a time: every answer
    # must land at its own index, in the NumPy result and in the list one (array module), and
    # every key must be added.
    rng = np.random.default_rng(17)
    keys = rng.integers(0, 2**63, size=150_001, dtype=np.uint64)
    f = BloomFilter(200_000, seed=5)
    added = f.add_many(keys[::2])
    assert 74_000 < added <= 75_001  # new keys, less the few that were false positives
    assert f.add_many(keys[::2]) == 0  # every chunk's keys were added
    one = BloomFilter(200_000, seed=5)
    for k in keys[::2].tolist():
        one.add(k)
    assert f == one
    want = [k in f for k in keys.tolist()]
    assert all(want[::2]) and sum(want[1::2]) < 1_500
    assert f.contains_many(keys).tolist() == want
    assert f.contains_many(array.array("Q", keys.tolist())) == want


def test_numpy_strided_arrays_and_array_module() -> None:
    f = BloomFilter(1000)
    a = np.arange(20, dtype=np.uint64)
    f.add_many(a[::2])
    assert f.contains_many(a).tolist() == [i % 2 == 0 for i in range(20)]
    arr = array.array("Q", [7, 8])
    f.add_many(arr)
    assert f.contains_many(array.array("q", [7, 8, 9])) == [True, True, False]
    f.add_many(memoryview(array.array("Q", [10])))
    assert 10 in f
    bigendian = np.arange(5, dtype=">u8")
    assert f.contains_many(bigendian.astype(np.uint64)).tolist() == [True, False, True, False, True]


def test_numpy_bad_arrays() -> None:
    f = BloomFilter(1000)
    for bad in (
        np.arange(3, dtype=np.int32),
        np.arange(3, dtype=np.float64),
        np.zeros(3, dtype=">u8"),
    ):
        with pytest.raises(TypeError, match="8-byte integers"):
            f.add_many(bad)
        with pytest.raises(TypeError):
            f.contains_many(bad)
    with pytest.raises(ValueError, match="1-dimensional"):
        f.add_many(np.zeros((2, 2), dtype=np.uint64))
    assert f.approx_len() == 0.0
    objs = np.array(["a", "b"], dtype=object)  # no buffer: iterated as Python keys
    f.add_many(objs)
    assert "a" in f


def test_bytes_object_is_iterated_like_a_set_would() -> None:
    f = BloomFilter(100)
    f.update(b"ab")  # set().update(b"ab") adds 97 and 98
    assert 97 in f and 98 in f and b"ab" not in f


def dedupe_keys(n: int, old: list[bytes]) -> list[Any]:
    """Mixed types and lengths with repeats of earlier keys of the batch and of `old`."""
    out: list[Any] = []
    for i in range(n):
        if i % 7 == 3:
            out.append(out[i // 2])
        elif i % 11 == 5:
            out.append(out[i - 1])
        elif i % 13 == 0:
            out.append(old[i % len(old)])
        elif i % 3 == 0:
            out.append(i)
        else:
            out.append(f"d{i}" * (i % 5))
    return out


@pytest.mark.parametrize("growing", [False, True])
def test_test_and_add_many_answers_as_one_test_and_add_per_key(growing: bool) -> None:
    def new() -> BloomFilter:
        f = BloomFilter(seed=3, capacity=1000, growth=2) if growing else BloomFilter(20_000, seed=3)
        f.add_many(old)
        return f

    old = keys(300, "old")
    ks = dedupe_keys(20_000, old)  # across batches of 4096 keys and, growing, several stages
    batched, single = new(), new()
    stages = batched.info.stages
    answers = batched.test_and_add_many(ks)
    expected = [single.test_and_add(k) for k in ks]
    assert answers == expected
    assert answers.count(True) > 0 and answers.count(False) > 0
    assert batched == single
    assert batched.info.keys == single.info.keys
    if growing:
        assert batched.info.stages >= stages + 2
    # Any iterable, in order; every key is present now.
    assert batched.test_and_add_many(iter(ks[:5000])) == [True] * 5000
    assert batched.test_and_add_many(()) == []
    assert batched == single


def test_test_and_add_many_of_int_arrays() -> None:
    ints = np.arange(100_000, dtype=np.uint64) % 70_000  # repeats within the array
    a, b, c = (BloomFilter(100_000, seed=9) for _ in range(3))
    expected = [b.test_and_add(int(k)) for k in ints]
    got = a.test_and_add_many(ints)
    assert isinstance(got, np.ndarray) and got.dtype == np.bool_
    assert got.tolist() == expected
    assert c.test_and_add_many(array.array("Q", ints.tolist())) == expected
    assert a == b == c


def test_test_and_add_many_errors_add_nothing(tmp_path: Any) -> None:
    f = BloomFilter(1000, seed=1)
    f.add("k")
    with pytest.raises(TypeError):
        f.test_and_add_many(["a", 1.5])  # type: ignore[list-item]  # fails before "a" is added
    assert "a" not in f
    with pytest.raises(TypeError):
        f.test_and_add_many(np.zeros(3, dtype=np.float64))
    path = tmp_path / "f.abloom"
    f.save(path)
    ro = BloomFilter.open(path)
    with pytest.raises(abloom.ReadOnlyError):
        ro.test_and_add_many(["x", "k"])
    with pytest.raises(abloom.ReadOnlyError):
        ro.test_and_add_many(np.arange(3, dtype=np.uint64))
    assert "x" not in ro and "k" in ro
    ro.close()
    with pytest.raises(abloom.ClosedError):
        ro.test_and_add_many(["x"])
