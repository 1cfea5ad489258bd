"""The Python code blocks of the READMEs (bindings/python/README.md, and the Python block of
the repository's README.md), line for line, with the names they assume and checks of what they
do in between: scripts/check-readme-blocks.py fails when a README line is missing here."""

from __future__ import annotations

from pathlib import Path

import pytest

import pyabloom
from pyabloom import BloomFilter


def test_quick_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """bindings/python/README.md's first block; it saves to a relative path."""
    monkeypatch.chdir(tmp_path)
    urls = (f"https://example.com/{i}" for i in range(10_000))
    candidates = ["https://example.com/7", "https://example.org/7"]

    f = BloomFilter(10_000_000, 0.01)  # capacity, target false-positive rate
    f.add("alice:bob")
    print("alice:bob" in f)  # True
    print("carol:dan" in f)  # False (or, 1% of the time, True)
    f.update(urls)  # any iterable; batches, GIL released
    hits = f.contains_many(candidates)  # list[bool]; a NumPy bool array for a NumPy array
    assert hits == [True, False]
    f.save("seen.abloom")
    g = BloomFilter.open("seen.abloom")  # O(1), mmap, read-only
    assert "https://example.com/9999" in g and g == f
    assert capsys.readouterr().out == "True\nFalse\n"
    g.close()
    f.close()


def test_repository_readme() -> None:
    """The Python block of the repository's README.md ("Bindings")."""
    keys = [b"alice:bob", b"carol:dan"]
    with pyabloom.BloomFilter(1_000_000, 0.01) as f:  # Python: pip install ./bindings/python
        f.add("alice:bob")
        maybe = "alice:bob" in f
        hits = f.contains_many(keys)  # one C call per 65536 keys, GIL released
    assert maybe and hits == [True, False]
