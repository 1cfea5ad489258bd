"""Threads, and the closed state: a filter closed by one thread while others use it raises
ClosedError in them, never crashes."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import pyabloom as abloom
from pyabloom import BloomFilter


def run_threads(n: int, target: Callable[[int], None]) -> None:
    errors: list[BaseException] = []

    def wrap(i: int) -> None:
        try:
            target(i)
        except BaseException as e:  # reported below, in the main thread
            errors.append(e)

    threads = [threading.Thread(target=wrap, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def test_concurrent_adds_lose_nothing() -> None:
    f = BloomFilter(400_000, seed=2)

    def work(i: int) -> None:
        base = i * 100_000
        f.add_many(np.arange(base, base + 50_000, dtype=np.uint64))  # GIL released
        f.update(f"t{i}:{j}" for j in range(20_000))
        for j in range(base + 50_000, base + 60_000):
            f.add(j)

    run_threads(4, work)
    for i in range(4):
        base = i * 100_000
        assert f.contains_many(np.arange(base, base + 60_000, dtype=np.uint64)).all()
        assert all(f.contains_many([f"t{i}:{j}" for j in range(20_000)]))


def close_under_use() -> None:
    f = BloomFilter(1_000_000, seed=3)
    keys = np.arange(200_000, dtype=np.uint64)
    started = threading.Barrier(5)
    closed_seen: list[int] = []

    def user(i: int) -> None:
        started.wait()
        calls: list[Callable[[], Any]] = [
            lambda: f.add_many(keys),
            lambda: f.contains_many(keys),
            lambda: f.to_bytes(),
            lambda: f.approx_len(),
        ]
        try:
            while True:
                calls[i % 4]()
                _ = i in f
        except abloom.ClosedError:
            closed_seen.append(i)

    threads = [threading.Thread(target=user, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    started.wait()
    f.close()
    for t in threads:
        t.join()
    assert sorted(closed_seen) == [0, 1, 2, 3]
    assert f.closed


def test_close_while_other_threads_use_it() -> None:
    for _ in range(5):
        close_under_use()


def every_call(f: BloomFilter, tmp_path: Path) -> list[Callable[[], object]]:
    g = BloomFilter(100)
    return [
        lambda: f.add("a"),
        lambda: f.test_and_add("a"),
        lambda: f.hash("a"),
        lambda: "a" in f,
        lambda: f.update(["a"]),
        lambda: f.add_many(["a"]),
        lambda: f.contains_many(["a"]),
        lambda: f.add_many(np.arange(3, dtype=np.uint64)),
        lambda: f | g,
        lambda: g | f,
        lambda: f & g,
        lambda: f.__ior__(g),
        lambda: g.__iand__(f),
        lambda: f == g,
        lambda: g == f,
        f.copy,
        f.clear,
        f.approx_len,
        lambda: f.approx_items,
        lambda: f.estimated_fpr,
        lambda: f.info,
        f.to_bytes,
        lambda: f.save(tmp_path / "x.abloom"),
        f.sync,
        lambda: f.writer_mode,
        lambda: f.__getstate__(),
    ]


def test_every_call_on_a_closed_filter_raises(tmp_path: Path) -> None:
    f = BloomFilter(100)
    calls = every_call(f, tmp_path)
    with f as same:
        assert same is f and not f.closed
    assert f.closed
    f.close()  # twice is fine
    assert repr(f) == "<pyabloom.BloomFilter (closed)>"
    for call in calls:
        with pytest.raises(abloom.ClosedError, match="closed") as e:
            call()
        assert isinstance(e.value, ValueError)
    assert not (tmp_path / "x.abloom").exists()


def test_mapped_filter_close_unmaps_and_keeps_the_file(tmp_path: Path) -> None:
    path = tmp_path / "m.abloom"
    f = BloomFilter(1000)
    f.add("k")
    f.save(path)
    m = BloomFilter.open(path, mode="r+")
    m.add("k2")
    m.close()  # syncs
    with pytest.raises(abloom.ClosedError):
        "k" in m  # noqa: B015
    with BloomFilter.open(path, verify=True) as again:
        assert "k2" in again


def test_exclusive_writer_mode_loses_nothing_under_threads() -> None:
    f = BloomFilter(600_000, seed=4)
    assert f.writer_mode == "auto"
    f.writer_mode = "exclusive"
    assert f.writer_mode == "exclusive"

    def work(i: int) -> None:
        base = i * 100_000
        f.add_many(np.arange(base, base + 50_000, dtype=np.uint64))  # GIL released
        f.update(f"x{i}:{j}" for j in range(20_000))
        for j in range(base + 50_000, base + 60_000):
            f.add(j)  # waits while another thread's batch writes
        f.__ior__(BloomFilter(600_000, seed=4))  # a GIL-free write too

    run_threads(4, work)
    for i in range(4):
        base = i * 100_000
        assert f.contains_many(np.arange(base, base + 60_000, dtype=np.uint64)).all()
        assert all(f.contains_many([f"x{i}:{j}" for j in range(20_000)]))
    g = BloomFilter(600_000, seed=4)
    g.writer_mode = "shared"
    for i in range(4):
        g.add_many(np.arange(i * 100_000, i * 100_000 + 60_000, dtype=np.uint64))
        g.update(f"x{i}:{j}" for j in range(20_000))
    assert f == g  # the same bits as one thread in the shared mode
    assert f.copy().writer_mode == "auto"  # the mode belongs to the handle
    f.writer_mode = "shared"
    assert f.writer_mode == "shared"
    with pytest.raises(ValueError, match="writer_mode"):
        f.writer_mode = "solo"  # type: ignore[assignment]
    f.close()
    with pytest.raises(abloom.ClosedError):
        f.writer_mode = "exclusive"
    with pytest.raises(abloom.ClosedError):
        _ = f.writer_mode


def test_exclusive_mode_close_under_use() -> None:
    f = BloomFilter(1_000_000, seed=3)
    f.writer_mode = "exclusive"
    keys = np.arange(100_000, dtype=np.uint64)
    stop: list[int] = []

    def user(i: int) -> None:
        try:
            while True:
                f.add_many(keys) if i % 2 else f.add(i)
        except abloom.ClosedError:
            stop.append(i)

    threads = [threading.Thread(target=user, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    f.close()
    for t in threads:
        t.join()
    assert sorted(stop) == [0, 1, 2, 3]


def state(f: BloomFilter) -> str:
    """How writes run now ("exclusive" or "shared"), read afresh (mypy would narrow a property)."""
    return f._writer_state


def test_auto_mode_is_exclusive_for_one_writing_thread() -> None:
    f = BloomFilter(200_000, seed=9)
    assert (f.writer_mode, state(f)) == ("auto", "exclusive")
    keys = np.arange(50_000, dtype=np.uint64)

    def load() -> None:  # one worker thread does every write: it becomes the owner
        f.add_many(keys)
        f.update(f"s{j}" for j in range(10_000))
        for j in range(1_000):
            f.add(f"one{j}")
        f.__ior__(BloomFilter(200_000, seed=9))

    run_threads(1, lambda _: load())
    assert state(f) == "exclusive"
    assert f.contains_many(keys).all()
    assert all(
        f.contains_many([f"s{j}" for j in range(10_000)] + [f"one{j}" for j in range(1_000)])
    )
    g = BloomFilter(200_000, seed=9, layout="default")
    g.writer_mode = "shared"
    g.add_many(keys)
    g.update(f"s{j}" for j in range(10_000))
    g.update(f"one{j}" for j in range(1_000))
    assert f == g  # plain stores set the same bits
    # Reading from other threads keeps it exclusive; only a second writer switches it.
    run_threads(3, lambda _: f.contains_many(keys))
    assert state(f) == "exclusive"
    f.add("from the main thread")  # a second writing thread
    assert (f.writer_mode, state(f)) == ("auto", "shared")
    f.add("again")
    assert state(f) == "shared"  # for good
    f.writer_mode = "auto"  # a fresh start: the next writer owns it
    assert state(f) == "exclusive"
    f.add("mine now")
    assert state(f) == "exclusive"


def test_auto_mode_switches_under_concurrent_writers_and_loses_nothing() -> None:
    # Four threads write at once from the start: the first becomes the owner, the others switch
    # the filter to shared while its batches run. No key may be lost on the way.
    f = BloomFilter(1_000_000, seed=12)
    chunk = np.arange(300_000, dtype=np.uint64)

    def work(i: int) -> None:
        base = np.uint64(i * 1_000_000)
        for r in range(3):
            f.add_many(chunk + base + np.uint64(r * 300_000))  # GIL released, 65536-key chunks
            for j in range(2_000):
                f.add(f"t{i}:{r}:{j}")
        f.update(f"u{i}:{j}" for j in range(20_000))

    run_threads(4, work)
    assert state(f) == "shared"
    for i in range(4):
        base = np.uint64(i * 1_000_000)
        assert f.contains_many(np.arange(900_000, dtype=np.uint64) + base).all()
        assert all(f.contains_many([f"t{i}:{r}:{j}" for r in range(3) for j in range(2_000)]))
        assert all(f.contains_many([f"u{i}:{j}" for j in range(20_000)]))


def test_auto_mode_never_writes_plain_stores_to_a_read_write_file(tmp_path: Path) -> None:
    path = tmp_path / "rw.abloom"
    BloomFilter(1000).save(path)
    with BloomFilter.open(path, mode="r+") as rw:
        assert (rw.writer_mode, state(rw)) == ("auto", "shared")
        rw.add("k")
        rw.writer_mode = "auto"
        assert state(rw) == "shared"
    with BloomFilter.open(path, mode="c") as cow:  # a private copy: exclusive is safe
        assert state(cow) == "exclusive"
    with BloomFilter.open(path) as r:
        assert "k" in r
