"""Keys: which types are keys, and the int encoding shared with the Java and Go bindings."""

from __future__ import annotations

import enum

import numpy as np
import pytest

from pyabloom import BloomFilter


def le8(v: int) -> bytes:
    return (v % 2**64).to_bytes(8, "little")


@pytest.mark.parametrize(
    "v", [0, 1, 255, 256, 2**32, 2**63 - 1, -1, -(2**63), 2**64 - 1, 0x0102030405060708]
)
def test_int_key_is_its_8_little_endian_bytes(v: int) -> None:
    # Java's put(long) and the Go and Rust batches of 64-bit keys hash exactly these 8 bytes.
    f = BloomFilter(1000, seed=99)
    f.add(v)
    g = BloomFilter(1000, seed=99)
    g.add(le8(v))
    assert f == g
    assert le8(v) in f


def test_minus_one_and_max_uint64_are_the_same_key() -> None:
    f = BloomFilter(100)
    f.add(-1)
    assert 2**64 - 1 in f and b"\xff" * 8 in f


def test_int_likes_are_ints_but_bool_is_refused() -> None:
    class Color(enum.IntEnum):
        RED = 5

    f = BloomFilter(100)
    f.add(Color.RED)
    assert 5 in f
    assert np.uint64(5) in f and np.int64(5) in f
    # An older numpy's np.bool_ has __index__ (deprecated; 2.1.3's has it, 2.4.6's not), so it is
    # an int-like there, as any object with __index__ is here. The pinned numpy (pyproject's test
    # extra) has none; the Windows run under wine has 2.1.3 (scripts/release/check-python.sh).
    refused: list[object] = [True, False]
    if not hasattr(np.bool_, "__index__"):
        refused.append(np.bool_(True))
    for b in refused:
        with pytest.raises(TypeError):
            f.add(b)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            b in f  # noqa: B015


@pytest.mark.parametrize("v", [2**64, -(2**63) - 1, 10**30, -(10**30)])
def test_ints_outside_64_bits_overflow(v: int) -> None:
    f = BloomFilter(100)
    with pytest.raises(OverflowError, match="2\\*\\*63"):
        f.add(v)
    with pytest.raises(OverflowError):
        v in f  # noqa: B015
    with pytest.raises(OverflowError):
        f.add_many([1, v])
    assert 1 not in f  # the batch failed before the library saw any key


@pytest.mark.parametrize("bad", [1.5, None, [1], (1,), {"a": 1}, object(), {1}, 1j])
def test_other_types_are_type_errors(bad: object) -> None:
    f = BloomFilter(100)
    with pytest.raises(TypeError, match="abloom keys are"):
        f.add(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        bad in f  # noqa: B015
    with pytest.raises(TypeError):
        f.add_many(["ok", bad])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        f.contains_many([bad])  # type: ignore[list-item]


def test_str_that_is_not_utf8_encodable() -> None:
    f = BloomFilter(100)
    with pytest.raises(UnicodeEncodeError):
        f.add("\ud800")


def test_empty_key_and_long_key() -> None:
    f = BloomFilter(100)
    f.add(b"")
    assert "" in f
    long = b"x" * 1_000_000
    f.add(long)
    assert long in f and long[:-1] not in f


def test_non_contiguous_memoryview_is_refused() -> None:
    f = BloomFilter(100)
    with pytest.raises(BufferError):
        f.add(memoryview(b"abcdef")[::2])


def test_memoryview_of_other_formats_is_its_bytes() -> None:
    import array

    f = BloomFilter(100)
    a = array.array("I", [1, 2])
    f.add(memoryview(a))
    assert a.tobytes() in f
