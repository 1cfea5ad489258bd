"""Construction, single keys, the set operations and the introspection calls."""

from __future__ import annotations

import copy
import math
import pickle
from pathlib import Path

import pytest

import pyabloom as abloom
from pyabloom import BloomFilter


def test_add_and_contains_every_key_type() -> None:
    f = BloomFilter(1000, 0.01)
    keys: list[abloom._abloom.Key] = ["héllo", b"bytes", bytearray(b"ba"), memoryview(b"mv"), 7, -3]
    for k in keys:
        assert k not in f
        f.add(k)
        assert k in f
    assert "absent" not in f
    assert f.approx_len() == pytest.approx(6, abs=0.5)
    assert f.approx_items == f.approx_len()


def test_test_and_add_says_whether_the_key_was_new() -> None:
    f = BloomFilter(100_000, 0.01, seed=5)
    keys: list[abloom._abloom.Key] = ["héllo", b"bytes", bytearray(b"ba"), memoryview(b"mv"), 7, -3]
    for k in keys:
        assert f.test_and_add(k) is False
        assert k in f
        assert f.test_and_add(k) is True
    # The same answers as the C engine's test before an add, over many keys: a key tests
    # present before its add exactly when test_and_add says it was there.
    g = BloomFilter(20_000, 0.2, seed=6)  # small: many keys find their bits already set
    before = 0
    for i in range(40_000):
        was = i in g
        assert g.test_and_add(i) is was
        before += was
    assert 1_000 < before < 20_000
    with pytest.raises(TypeError):
        f.test_and_add(1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        f.test_and_add()  # type: ignore[call-arg]


def test_test_and_add_tells_one_thread_of_each_new_key() -> None:
    import threading

    f = BloomFilter(1_000_000, 0.001, seed=8)
    n, threads = 20_000, 4
    new = [0] * n
    lock = threading.Lock()

    def work() -> None:
        mine = [not f.test_and_add(f"k{i}") for i in range(n)]
        with lock:
            for i, was_new in enumerate(mine):
                new[i] += was_new

    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    # Exactly one thread is told a key is new (the calls hold the GIL), except for the keys that
    # were false positives at their first add: at 1,000,000 capacity and 20,000 keys, about
    # 1e-7 of them; a binomial bound of 5 leaves room.
    assert all(c <= 1 for c in new)
    assert new.count(0) <= 5


def test_hash_is_xxh3_64_with_the_filters_seed() -> None:
    f = BloomFilter(1000)  # seed 0
    # XXH3-64 of the empty input with seed 0, xxHash's own test value.
    assert f.hash(b"") == 0x2D06800538D394C2
    assert f.hash("") == f.hash(bytearray()) == f.hash(memoryview(b""))
    assert f.hash("héllo") == f.hash("héllo".encode())
    assert f.hash(7) == f.hash((7).to_bytes(8, "little"))
    assert f.hash(-1) == f.hash(b"\xff" * 8)
    g = BloomFilter(1000, seed=5)
    assert g.hash(b"k") != f.hash(b"k")  # the seed is part of the hash
    assert g.hash(b"k") == BloomFilter(10, seed=5).hash(b"k")  # and only the seed
    assert all(0 <= f.hash(i) < 2**64 for i in range(1000))
    with pytest.raises(TypeError):
        f.hash(1.5)  # type: ignore[arg-type]
    f.close()
    with pytest.raises(abloom.ClosedError):
        f.hash(b"k")


def test_equivalent_keys_are_one_key() -> None:
    f = BloomFilter(1000, seed=11)
    f.add("héllo")
    assert "héllo".encode() in f
    assert bytearray("héllo".encode()) in f
    assert memoryview("héllo".encode()) in f
    f.add(1)
    assert (1).to_bytes(8, "little") in f


def test_plan_and_info() -> None:
    p = BloomFilter.plan(100_000, 0.01)
    assert (p.kind, p.layout, p.shards) == ("blocked", "split", 1)
    assert p.bits == p.shards * p.blocks_per_shard * 512 and p.bytes == p.bits // 8
    assert 0 < p.expected_fpr <= 0.01
    f = BloomFilter(100_000, 0.01, seed=42)
    i = f.info
    assert (i.kind, i.layout, i.k, i.bits, i.capacity, i.seed) == (
        "blocked",
        "split",
        p.k,
        p.bits,
        100_000,
        42,
    )
    assert (i.storage, i.read_only, i.target_fpr) == ("owned", False, 0.01)
    c = BloomFilter(1000, 0.001, kind="classic", shards=4, layout="distinct")
    assert (c.info.kind, c.info.shards) == ("classic", 4)
    s = BloomFilter(1000, layout="split")
    assert s.info.layout == "split"
    assert "blocked" in repr(f) and "Info(" in repr(i) and "Plan(" in repr(p)


@pytest.mark.parametrize(
    ("fpr", "kind", "want"),
    [
        (0.01, "blocked", "split"),
        (0.001, "blocked", "split"),
        (1e-6, "blocked", "split"),  # distinct's best k is 16: split's k suffices
        (1e-7, "blocked", "distinct"),  # distinct's k 18: split would cost 3% more bits
        (1e-9, "blocked", "distinct"),
        (0.01, "classic", "distinct"),
    ],
)
def test_default_layout_is_split_where_its_k_suffices(fpr: float, kind: str, want: str) -> None:
    p = BloomFilter.plan(100_000, fpr, kind=kind)  # type: ignore[arg-type]
    assert p.layout == want
    same = BloomFilter.plan(100_000, fpr, kind=kind, layout=want)  # type: ignore[arg-type]
    assert (same.bits, same.k) == (p.bits, p.k)
    f = BloomFilter(100_000, fpr, kind=kind)  # type: ignore[arg-type]
    assert f.info.layout == want
    layout_id = int.from_bytes(f.to_bytes()[20:24], "little")
    assert layout_id == {"distinct": 1, "split": 2}[want]


@pytest.mark.parametrize("fpr", [0.1, 0.01, 0.001, 1e-6, 1e-9])
def test_the_default_layout_is_never_half(fpr: float) -> None:
    assert BloomFilter.plan(100_000, fpr).layout != "half"
    assert BloomFilter(1000, fpr).info.layout != "half"


def test_half_layout(tmp_path: Path) -> None:
    # Asked for: k is always 8, a few percent more bits than split at the same target.
    p = BloomFilter.plan(100_000, 0.01, layout="half", shards=4)
    assert (p.kind, p.layout, p.k) == ("blocked", "half", 8)
    assert 0.008 < p.expected_fpr <= 0.01
    assert "layout='half'" in repr(p)
    split = BloomFilter.plan(100_000, 0.01, layout="split", shards=4)
    assert 1.02 <= p.bits_per_key / split.bits_per_key <= 1.06
    f = BloomFilter(100_000, 0.01, layout="half", shards=4, seed=7)
    i = f.info
    assert (i.kind, i.layout, i.k, i.bits, i.shards) == ("blocked", "half", 8, p.bits, 4)
    assert "layout='half'" in repr(i)
    assert int.from_bytes(f.to_bytes()[20:24], "little") == 3
    keys = [f"half-{n}" for n in range(100_000)]
    assert f.add_many(keys[:50_000]) > 49_000
    for key in keys[50_000:51_000]:
        f.add(key)
    f.update(keys[51_000:])
    assert all(f.contains_many(keys)) and keys[123] in f
    # The file records the layout: every way back keeps it, with the same answers.
    absent = [f"absent-{n}" for n in range(20_000)]
    answers = f.contains_many(absent)
    assert 0 < sum(answers) < 2 * 0.01 * len(absent)
    f.save(tmp_path / "h.abloom")
    g = BloomFilter.from_bytes(f.to_bytes())
    with BloomFilter.open(tmp_path / "h.abloom", verify=True) as o:
        for h in (g, o, pickle.loads(pickle.dumps(f)), f.copy()):
            assert h.info.layout == "half" and h == f
            assert h.contains_many(absent) == answers
    # Filters of another layout do not combine with it.
    other = BloomFilter(100_000, 0.01, layout="split", shards=4, seed=7)
    with pytest.raises(abloom.ShapeMismatchError):
        f | other
    assert f != other
    assert (f | g).info.layout == "half"
    # Blocked kind only.
    with pytest.raises(abloom.InvalidArgumentError):
        BloomFilter(1000, kind="classic", layout="half")
    with pytest.raises(abloom.InvalidArgumentError):
        BloomFilter.plan(1000, kind="classic", layout="half")
    # A growing filter of the half layout: every stage is half.
    grow = BloomFilter(fpr=0.01, layout="half")
    grow.add_many(keys[:5000])
    assert (grow.info.layout, grow.info.k, grow.info.stages > 1) == ("half", 8, True)
    assert all(grow.contains_many(keys[:5000]))


def test_estimated_fpr_grows_with_the_fill() -> None:
    f = BloomFilter(10_000, 0.01)
    assert f.estimated_fpr == 0.0
    f.update(range(10_000))
    assert 0.002 < f.estimated_fpr < 0.02


def test_clear() -> None:
    f = BloomFilter(100)
    f.add("a")
    f.clear()
    assert "a" not in f and f.approx_len() == 0.0


def test_union_and_intersection() -> None:
    a, b = BloomFilter(1000, seed=1), BloomFilter(1000, seed=1)
    a.update(["a", "both"])
    b.update(["b", "both"])
    u = a | b
    assert all(k in u for k in ("a", "b", "both"))
    assert "a" not in b and "b" not in a  # the operands are unchanged
    i = a & b
    assert "both" in i and i.approx_len() < u.approx_len()
    c = a.copy()
    c |= b
    assert c == u
    c &= b
    assert "b" in c and "both" in c
    same = a
    same |= a
    assert same is a


def test_set_operations_refuse_other_shapes_and_types() -> None:
    a = BloomFilter(1000, seed=1)
    for other in (
        BloomFilter(1000, seed=2),
        BloomFilter(2000, seed=1),
        BloomFilter(1000, kind="classic", seed=1),
    ):
        with pytest.raises(abloom.ShapeMismatchError) as e:
            a | other
        assert isinstance(e.value, ValueError) and e.value.code == -5
        with pytest.raises(ValueError):
            a &= other
    with pytest.raises(TypeError):
        a | {"a"}  # type: ignore[operator]
    with pytest.raises(TypeError):
        a &= 3  # type: ignore[arg-type]


def test_equality_and_copies() -> None:
    a = BloomFilter(1000, seed=3)
    a.add("x")
    b = a.copy()
    assert a == b and a is not b
    b.add("y")
    assert a != b
    assert a != BloomFilter(1000, seed=4)
    assert (a == "x") is False
    assert copy.copy(a) == a and copy.deepcopy(a) == a
    with pytest.raises(TypeError):
        hash(a)


def test_bad_constructor_arguments() -> None:
    for capacity in (0,):
        with pytest.raises(abloom.InvalidArgumentError):
            BloomFilter(capacity)
    for capacity in (-1, 2**64):
        with pytest.raises(ValueError):
            BloomFilter(capacity)
    # (None is no bad capacity: it makes a growing filter, tests/test_growing.py.)
    for bad in (1.5, "10", True):
        with pytest.raises(TypeError):
            BloomFilter(bad)  # type: ignore[arg-type]
    for fpr in (0.0, 1.0, -0.1, 1.5, math.nan, math.inf):
        with pytest.raises(ValueError):
            BloomFilter(100, fpr)
    with pytest.raises(TypeError):
        BloomFilter(100, "0.1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"too large|range|large"):
        BloomFilter(2**62, 1e-9)  # absurd: far above the library's 256 TiB limit
    with pytest.raises(ValueError):
        BloomFilter(100, kind="cuckoo")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        BloomFilter(100, layout="zigzag")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        BloomFilter(100, kind="classic", layout="split")
    with pytest.raises(ValueError):
        BloomFilter(100, kind="classic", layout="half")
    with pytest.raises(ValueError, match="'default', 'distinct', 'split' or 'half'"):
        BloomFilter(100, layout="halves")  # type: ignore[arg-type]
    for shards in (3, -1, 2**20, 2**40):
        with pytest.raises(ValueError):
            BloomFilter(100, shards=shards)
    for seed in (-1, 2**64):
        with pytest.raises(ValueError):
            BloomFilter(100, seed=seed)
    with pytest.raises(TypeError):
        BloomFilter(100, seed="1")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        BloomFilter(100, 0.01, "blocked")  # type: ignore[call-arg]  # keyword-only
    with pytest.raises(ValueError):
        BloomFilter.plan(0)


def test_uninitialised_instance_is_refused() -> None:
    f = BloomFilter.__new__(BloomFilter)
    with pytest.raises(TypeError):
        "a" in f  # noqa: B015
    with pytest.raises(TypeError):
        f.add("a")
    with pytest.raises(TypeError), pytest.warns(RuntimeWarning, match="uninitialized"):
        f.copy()  # nanobind's own check, with its warning


def test_init_and_setstate_twice_are_refused() -> None:
    f = BloomFilter(100)
    f.add("a")
    with pytest.raises(TypeError), pytest.warns(RuntimeWarning, match="already-initialized"):
        f.__init__(200)  # type: ignore[misc]
    with pytest.raises(TypeError), pytest.warns(RuntimeWarning, match="already-initialized"):
        f.__setstate__(f.to_bytes())
    assert "a" in f and f.info.capacity == 100
    assert "Bloom filter" in (BloomFilter.__doc__ or "")
