"""Threads, and the closed state: a filter closed by one thread while others use it raises
ClosedError in them, never crashes."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import abloom
from abloom import BloomFilter


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
    assert repr(f) == "<abloom.BloomFilter (closed)>"
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
    assert f.writer_mode == "shared"
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
    for i in range(4):
        g.add_many(np.arange(i * 100_000, i * 100_000 + 60_000, dtype=np.uint64))
        g.update(f"x{i}:{j}" for j in range(20_000))
    assert f == g  # the same bits as one thread in the shared mode
    assert f.copy().writer_mode == "shared"  # the mode belongs to the handle
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
