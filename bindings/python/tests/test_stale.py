"""Stale files: a read-write writer that never synced (killed) leaves its file marked stale.
Checked reads raise StaleError (not a FormatError), O(1) opens work and say info.stale, and
abloom.seal() seals the file, or refuses a corrupt one without writing it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import pyabloom as abloom
from pyabloom import BloomFilter

KEYS = [f"key-{i}" for i in range(600)]


def make_stale(tmp_path: Path) -> Path:
    """The bytes a killed writer leaves: a copy taken while an 'r+' filter has unsynced adds."""
    intact = tmp_path / "intact.abloom"
    f = BloomFilter(2000, 0.01)
    for k in KEYS[:300]:
        f.add(k)
    f.save(intact)
    stale = tmp_path / "stale.abloom"
    with BloomFilter.open(intact, "r+") as rw:
        assert not rw.info.stale
        for k in KEYS[300:]:
            rw.add(k)
        shutil.copyfile(intact, stale)
    return stale


def test_stale_reads(tmp_path: Path) -> None:
    stale = make_stale(tmp_path)
    with pytest.raises(abloom.StaleError) as e:
        BloomFilter.open(stale, verify=True)
    assert not isinstance(e.value, abloom.FormatError)
    assert e.value.code == -17
    assert "stale" in str(e.value)
    with pytest.raises(abloom.StaleError):
        BloomFilter.from_bytes(stale.read_bytes())
    for mode in ("r", "c"):
        with BloomFilter.open(stale, mode) as m:
            assert m.info.stale
            assert all(k in m for k in KEYS)
    with BloomFilter.open(stale, "r+") as rw:
        assert rw.info.stale  # found stale; its close seals it
    with BloomFilter.open(stale, verify=True) as m:
        assert not m.info.stale
    assert not BloomFilter(10, 0.01).info.stale


def test_seal(tmp_path: Path) -> None:
    stale = make_stale(tmp_path)
    abloom.seal(stale)
    with BloomFilter.open(stale, verify=True) as m:
        assert not m.info.stale
        assert all(k in m for k in KEYS)
    sealed = stale.read_bytes()
    abloom.seal(str(stale))  # nothing to do
    assert stale.read_bytes() == sealed

    bad = bytearray(sealed)
    bad[200] ^= 0x08
    stale.write_bytes(bytes(bad))
    with pytest.raises(abloom.ChecksumError):
        abloom.seal(stale)
    assert stale.read_bytes() == bytes(bad)

    with pytest.raises(FileNotFoundError):
        abloom.seal(tmp_path / "missing.abloom")
    text = tmp_path / "text.abloom"
    text.write_bytes(b"x" * 200)
    with pytest.raises(abloom.BadMagicError):
        abloom.seal(text)
