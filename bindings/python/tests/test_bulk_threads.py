"""The batch calls' threads (BloomFilter.threads, abloom.MAX_THREADS): bad counts refused, where
each filter starts, and batches above the C library's split threshold (65536 keys) giving the
single-threaded answers and bits on 4 threads."""

from __future__ import annotations

import array
import copy
import pickle
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import pyabloom as abloom
from pyabloom import BloomFilter, ClosedError

# Above the C library's threshold for splitting a call (65536 keys).
N = 70_000


def test_max_threads() -> None:
    assert abloom.MAX_THREADS == 256
    assert "MAX_THREADS" in abloom.__all__


def test_threads_reads_back_and_refuses_bad_counts() -> None:
    f = BloomFilter(1000)
    assert f.threads == 1  # the constructor has no option: one thread
    for n, want in [(4, 4), (0, 1), (abloom.MAX_THREADS, abloom.MAX_THREADS), (1, 1), (3, 3)]:
        f.threads = n
        assert f.threads == want, n
    bad: list[tuple[Any, type[Exception]]] = [
        (abloom.MAX_THREADS + 1, ValueError),
        (1000, ValueError),
        (2**32 + 4, ValueError),  # would be 4 if it were cut to 32 bits
        (2**64, ValueError),
        (-1, ValueError),
        (True, TypeError),
        (4.0, TypeError),
        ("4", TypeError),
        (None, TypeError),
    ]
    for n, exc in bad:
        with pytest.raises(exc):
            f.threads = n
        assert f.threads == 3, f"a refused count {n!r} changed the count"


def test_too_many_threads_message() -> None:
    f = BloomFilter(1000)
    with pytest.raises(ValueError, match=r"threads must be in 0\.\.256, not 257"):
        f.threads = 257


def test_copies_keep_the_count_and_their_own() -> None:
    f = BloomFilter(1000, seed=1)
    g = BloomFilter(1000, seed=1)
    f.threads = 7
    copies = [f.copy(), copy.copy(f), copy.deepcopy(f), f | g, f & g]
    for c in copies:
        assert c.threads == 7
    copies[0].threads = 1
    assert f.threads == 7 and copies[1].threads == 7
    f |= g  # in place: the same object, the same count
    assert f.threads == 7


def test_read_and_opened_filters_start_at_one_thread(tmp_path: Path) -> None:
    f = BloomFilter(1000, seed=3)
    f.add("a")
    f.threads = 4
    g = BloomFilter(1000, seed=3)
    g.add("a")
    data = f.to_bytes()
    assert data == g.to_bytes()  # the count is not in the bytes
    path = tmp_path / "f.abloom"
    f.save(path)
    loaded = [
        BloomFilter.from_bytes(data),
        pickle.loads(pickle.dumps(f)),
        BloomFilter.open(path),
        BloomFilter.open(path, "c", verify=True),
        BloomFilter.open(path, "r+"),
    ]
    for h in loaded:
        with h:
            assert h.threads == 1, h
            assert "a" in h
            h.threads = 4  # read-only filters take a count too (for their batch tests)
            assert h.threads == 4


def long_key(i: int) -> bytes:
    """Keys of 2048 bytes or more are hashed later, with the GIL released (HashBatch)."""
    return b"L%d-" % i + b"x" * 3000


def run(threads: int, **shape: Any) -> tuple[list[int], list[list[bool]], bytes]:
    """Every batch form on `threads` threads: keys new, answers, the bits."""
    strs = [f"str-{i}" for i in range(N)]
    blobs = tuple(f"blob-{i}".encode() if i % 10 else long_key(i) for i in range(N))
    ints = np.arange(1, N + 1, dtype=np.uint64) * np.uint64(7919)
    arr = array.array("q", range(10**9, 10**9 + N))

    def gen(start: int) -> Iterator[str]:
        return (f"gen-{i}" for i in range(start, start + N))

    f = BloomFilter(8 * N, 0.01, seed=11, **shape)
    f.threads = threads
    g = BloomFilter(8 * N, 0.01, seed=11, **shape)
    g.threads = threads
    added = [
        f.add_many(strs),
        f.add_many(blobs),
        f.add_many(ints),
        f.add_many(arr),
        f.add_many(gen(0)),
        f.add_many([f"str-{i}" for i in range(N // 2, N // 2 + N)]),  # half there already
    ]
    # g holds the first half of each probe below (the second half of the blobs'), so that the
    # other half is absent from it.
    g.update(strs, blobs[: N // 2], gen(0))
    g.add_many(ints[: N // 2])
    g.add_many(arr[: N // 2])
    answers: list[list[bool]] = []
    for h in (f, g):
        answers.append(h.contains_many([f"str-{i}" for i in range(N // 2, N // 2 + N)]))
        answers.append(h.contains_many(blobs[N // 2 :] + blobs[: N // 2]))
        answers.append(h.contains_many(ints).tolist())
        answers.append(h.contains_many(arr))
        answers.append(h.contains_many(list(gen(N // 2))))
    for i in (5, 7, 8, 9):
        assert all(answers[i][: N // 2]), f"a false negative in answers {i}"
    assert all(answers[6][N - N // 2 :]), "a false negative in answers 6"
    return added, answers, f.to_bytes()


@pytest.mark.parametrize(
    "shape",
    [
        {"layout": "split"},
        {"layout": "split", "shards": 8},
        {"layout": "distinct"},
        {"layout": "half", "shards": 4},
        {"kind": "classic", "shards": 8},
    ],
    ids=["split", "split-8-shards", "distinct", "half-4-shards", "classic-8-shards"],
)
def test_four_threads_give_the_single_threaded_answers_and_bits(shape: dict[str, Any]) -> None:
    added1, answers1, bytes1 = run(1, **shape)
    added4, answers4, bytes4 = run(4, **shape)
    assert added1 == added4
    assert added1[0] >= N * 99 // 100 and added1[5] <= N // 2 + 200, added1
    for i, (a1, a4) in enumerate(zip(answers1, answers4)):
        assert a1 == a4, f"answers {i} differ"
    assert sum(answers1[0]) >= N // 2
    assert bytes1 == bytes4


def test_an_opened_filter_given_threads_answers_the_same(tmp_path: Path) -> None:
    f = BloomFilter(2 * N)
    f.add_many([f"k{i}" for i in range(N)])
    path = tmp_path / "f.abloom"
    f.save(path)
    probe = [f"k{i}" for i in range(N // 2, N // 2 + N)]
    with BloomFilter.open(path) as o:
        one = o.contains_many(probe)
        o.threads = 4
        four = o.contains_many(probe)
        assert one == four and sum(one) >= N // 2
        with pytest.raises(abloom.ReadOnlyError):
            o.add_many(probe)


def test_threads_set_while_other_threads_run_batches() -> None:
    f = BloomFilter(3 * N, seed=4)
    reference = BloomFilter(3 * N, seed=4)
    batches = [[f"t{t}-{i}" for i in range(N)] for t in range(2)]
    for b in batches:
        reference.add_many(b)
    stop = threading.Event()
    errors: list[BaseException] = []

    def setter() -> None:
        try:
            i = 0
            while not stop.is_set():
                f.threads = i % 5
                assert 1 <= f.threads <= 4
                i += 1
        except BaseException as e:
            errors.append(e)

    def worker(b: list[str]) -> None:
        try:
            for _ in range(3):
                f.add_many(b)
                assert all(f.contains_many(b))
        except BaseException as e:
            errors.append(e)

    s = threading.Thread(target=setter)
    workers = [threading.Thread(target=worker, args=(b,)) for b in batches]
    s.start()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    stop.set()
    s.join()
    if errors:
        raise errors[0]
    assert f == reference


def test_threads_after_close() -> None:
    f = BloomFilter(1000)
    f.close()
    with pytest.raises(ClosedError):
        _ = f.threads
    with pytest.raises(ClosedError):
        f.threads = 4
    with pytest.raises(ClosedError):  # closed is told before a bad count
        f.threads = abloom.MAX_THREADS + 1
