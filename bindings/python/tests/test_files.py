"""Files and bytes: the golden vectors, to_bytes/from_bytes, pickle, save/open, bad data, and a
file that the C library reads."""

from __future__ import annotations

import errno
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import pyabloom as abloom
from pyabloom import BloomFilter

# tests/vectors/README.md: name -> (kind, shards, seed, layout, k, blocks per shard,
# absent keys testing 1)
VECTORS = {
    # Written when the blocked default was distinct; rebuilt now with it asked for.
    "blocked_s1": ("blocked", 1, 0x0123456789ABCDEF, "distinct", 7, 9, 31),
    "blocked_s4": ("blocked", 4, 0xFEDCBA9876543210, "distinct", 8, 3, 5),
    "classic_s1": ("classic", 1, 0x00000000DEADBEEF, "default", 7, 9, 10),
    "classic_s4": ("classic", 4, 0x8000000000000001, "default", 9, 3, 1),
    "split_s1": ("blocked", 1, 0x5B117000000000A1, "split", 7, 9, 13),
    "split_s4": ("blocked", 4, 0xA100000000075B11, "split", 9, 3, 8),
    "half_s1": ("blocked", 1, 0x4A1F000000000A18, "half", 8, 10, 10),
    "half_s4": ("blocked", 4, 0x8A0000000000F1A4, "half", 8, 3, 8),
}
# The layout each vector's file records ("default": the library's choice, distinct for these).
RECORDED = {"distinct": "distinct", "default": "distinct", "split": "split", "half": "half"}
# The format's layout id (header bytes 20..24, little-endian) of each.
LAYOUT_IDS = {"distinct": 1, "split": 2, "half": 3}


def read_lines(p: Path) -> list[str]:
    return p.read_text(encoding="ascii").split("\n")[:-1]


@pytest.mark.parametrize("name", sorted(VECTORS))
@pytest.mark.parametrize("how", ["open", "open-verify", "open-copy", "from_bytes"])
def test_golden_vectors_read(vectors_dir: Path, name: str, how: str) -> None:
    kind, shards, seed, layout, k, blocks, positives = VECTORS[name]
    path = vectors_dir / f"{name}.abloom"
    if how == "from_bytes":
        f = BloomFilter.from_bytes(path.read_bytes())
    else:
        f = BloomFilter.open(
            path, mode="c" if how == "open-copy" else "r", verify=how == "open-verify"
        )
    with f:
        i = f.info
        assert (i.kind, i.shards, i.seed, i.k, i.blocks_per_shard) == (
            kind,
            shards,
            seed,
            k,
            blocks,
        )
        assert (i.capacity, i.target_fpr) == (450, 0.01)
        assert i.layout == RECORDED[layout]
        assert i.storage == ("owned" if how == "from_bytes" else "mapped")
        added = read_lines(vectors_dir / f"{name}.keys.txt")
        assert len(added) == 450 and all(key in f for key in added)
        assert f.contains_many(added) == [True] * 450
        absent = [line.split(" ", 1) for line in read_lines(vectors_dir / f"{name}.absent.txt")]
        assert [key in f for _, key in absent] == [a == "1" for a, _ in absent]
        assert sum(a == "1" for a, _ in absent) == positives


@pytest.mark.parametrize("name", sorted(VECTORS))
def test_golden_vectors_are_rebuilt_byte_for_byte(
    vectors_dir: Path, name: str, tmp_path: Path
) -> None:
    kind, shards, seed, layout, *_ = VECTORS[name]
    added = read_lines(vectors_dir / f"{name}.keys.txt")
    want = (vectors_dir / f"{name}.abloom").read_bytes()
    assert int.from_bytes(want[20:24], "little") == LAYOUT_IDS[RECORDED[layout]]
    one = BloomFilter(450, 0.01, kind=kind, shards=shards, seed=seed, layout=layout)  # type: ignore[arg-type]
    for key in added:
        one.add(key)
    assert one.to_bytes() == want
    many = BloomFilter(450, 0.01, kind=kind, shards=shards, seed=seed, layout=layout)  # type: ignore[arg-type]
    many.update(added)
    assert many.to_bytes() == want
    many.save(tmp_path / "v.abloom")
    assert (tmp_path / "v.abloom").read_bytes() == want


def test_round_trips_and_pickle(tmp_path: Path) -> None:
    f = BloomFilter(5000, 0.001, kind="classic", shards=2, seed=123)
    f.update(range(3000))
    for g in (
        BloomFilter.from_bytes(f.to_bytes()),
        BloomFilter.from_bytes(bytearray(f.to_bytes())),
        BloomFilter.from_bytes(memoryview(f.to_bytes())),
        pickle.loads(pickle.dumps(f)),
        pickle.loads(pickle.dumps(f, protocol=2)),
    ):
        assert g == f and g.info.seed == 123 and 2999 in g
    f.save(tmp_path / "f.abloom")
    f.save(str(tmp_path / "g.abloom"))
    f.save(os.fsencode(tmp_path / "h.abloom"))
    for name in ("f", "g", "h"):
        with BloomFilter.open(tmp_path / f"{name}.abloom", verify=True) as m:
            assert m == f
            m2 = pickle.loads(pickle.dumps(m))  # a mapped filter pickles as its bytes
            assert m2 == f and m2.info.storage == "owned"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.abloom", "g.abloom", "h.abloom"]


def test_open_modes(tmp_path: Path) -> None:
    path = tmp_path / "f.abloom"
    f = BloomFilter(1000, seed=1)
    f.add("old")
    f.save(path)
    original = path.read_bytes()
    with BloomFilter.open(path) as r:
        assert r.info.read_only and "old" in r
        with pytest.raises(abloom.ReadOnlyError) as e:
            r.add("new")
        assert isinstance(e.value, TypeError)
        for write in (
            lambda: r.update(["x"]),
            r.clear,
            lambda: r.__ior__(f),
            lambda: r.test_and_add("old"),
        ):
            with pytest.raises(abloom.ReadOnlyError):
                write()
        c = r.copy()  # a copy is in memory and writable
        c.add("new")
        assert "new" in c
    with BloomFilter.open(path, mode="c") as cow:
        cow.add("cow")
        assert "cow" in cow and not cow.info.read_only
    assert path.read_bytes() == original
    with BloomFilter.open(path, mode="r+") as rw:
        rw.add("rw")
        rw.sync()
    with BloomFilter.open(path, verify=True) as again:
        assert "rw" in again and "old" in again
    with pytest.raises(ValueError, match="mode"):
        BloomFilter.open(path, mode="w")  # type: ignore[arg-type]


def test_open_and_save_file_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as e:
        BloomFilter.open(tmp_path / "missing.abloom")
    assert e.value.filename == str(tmp_path / "missing.abloom")
    with pytest.raises(IsADirectoryError):
        BloomFilter.open(tmp_path)
    with pytest.raises(TypeError):
        BloomFilter.open(3)  # type: ignore[arg-type]
    f = BloomFilter(100)
    with pytest.raises(FileNotFoundError):
        f.save(tmp_path / "no" / "dir.abloom")
    with pytest.raises(IsADirectoryError):
        f.save(tmp_path)
    (tmp_path / "empty.abloom").write_bytes(b"")
    with pytest.raises(abloom.TruncatedError):
        BloomFilter.open(tmp_path / "empty.abloom")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.abloom"]  # no temporary left


def corruptions(good: bytes) -> list[tuple[str, bytes, type[abloom.FormatError]]]:
    body = bytearray(good)
    body[200] ^= 0x01
    header = bytearray(good)
    header[40] ^= 0x01
    magic = bytearray(good)
    magic[0] ^= 0xFF
    return [
        ("empty", b"", abloom.TruncatedError),
        ("half a header", good[:64], abloom.TruncatedError),
        ("truncated body", good[:-64], abloom.TruncatedError),
        ("one byte short", good[:-1], abloom.TruncatedError),
        ("trailing bytes", good + b"\0" * 64, abloom.CorruptError),
        ("header bit", bytes(header), abloom.CorruptError),
        ("body bit", bytes(body), abloom.ChecksumError),
        ("magic", bytes(magic), abloom.BadMagicError),
        ("not a filter", b"hello world" * 20, abloom.BadMagicError),
    ]


def test_corrupt_and_truncated_bytes_and_files(tmp_path: Path) -> None:
    f = BloomFilter(1000, seed=9)
    f.update(range(500))
    good = f.to_bytes()
    for what, data, exc in corruptions(good):
        with pytest.raises(exc) as e:
            BloomFilter.from_bytes(data)
        assert isinstance(e.value, ValueError) and e.value.code < 0, what
        path = tmp_path / "bad.abloom"
        path.write_bytes(data)
        if exc is abloom.ChecksumError:  # the O(1) open reads the header only
            with BloomFilter.open(path) as m:
                assert m.info.bits == f.info.bits
        else:
            with pytest.raises(exc):
                BloomFilter.open(path)
        with pytest.raises(exc):
            BloomFilter.open(path, verify=True)
    with pytest.raises(TypeError):
        BloomFilter.from_bytes("a str")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        BloomFilter.from_bytes(None)  # type: ignore[arg-type]
    with pytest.raises(abloom.FormatError):
        pickle.loads(pickle.dumps(f).replace(good[200:216], bytes(16)))


def test_save_over_a_file_this_process_has_mapped(tmp_path: Path) -> None:
    # capi/abloom.h, abloom_save: on Linux and macOS the rename replaces the file and the mapped
    # filter keeps its old bits. Windows may refuse to replace a mapped file (wine 8 always does:
    # it lacks FileRenameInfoEx): then, after about a second of retries, EBUSY, both files whole
    # and no temporary file left. Only Windows may refuse.
    path = tmp_path / "f.abloom"
    old = BloomFilter(1000, seed=1)
    old.update(f"old-{i}" for i in range(500))
    old.save(path)
    new = BloomFilter(1000, seed=1)
    new.update(f"new-{i}" for i in range(500))
    with BloomFilter.open(path) as mapped:
        try:
            new.save(path)
            replaced = True
        except OSError as e:
            assert sys.platform == "win32", f"only Windows may refuse: {e!r}"
            assert e.errno == errno.EBUSY, e
            replaced = False
        assert mapped == old
    with BloomFilter.open(path, verify=True) as again:
        assert again == (new if replaced else old)
    assert [p.name for p in tmp_path.iterdir()] == ["f.abloom"]  # no temporary left
    if sys.platform == "win32":  # saved again once no filter maps it
        new.save(path)
        with BloomFilter.open(path, verify=True) as again:
            assert again == new


def test_a_c_program_reads_a_python_file(c_file_reader: Path, tmp_path: Path) -> None:
    # tests/install/deb/file_reader.c: opens with the checksum verified, checks every listed key
    # is present and that unlisted keys are mostly absent.
    keys = [f"python:{i}:ключ" for i in range(20_000)]
    f = BloomFilter(20_000, 0.01, seed=0x5EED)
    f.update(keys)
    f.save(tmp_path / "python.abloom")
    (tmp_path / "python.keys.txt").write_text("".join(k + "\n" for k in keys), encoding="utf-8")
    out = subprocess.run(
        [str(c_file_reader), str(tmp_path / "python.abloom"), str(tmp_path / "python.keys.txt")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr


CORPUS = Path(__file__).resolve().parents[3] / "tests" / "fuzz" / "corpus"


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.abloom")))
def test_fuzz_seed_corpus(name: str) -> None:
    # tests/fuzz/corpus (tests/fuzz/make_corpus.c): hand-made valid and invalid files.
    data = (CORPUS / name).read_bytes()
    if name.startswith("valid-stale-") or name == "invalid-stale-flag.abloom":
        # Left "checksum stale" by a read-write mapping that was not synced (or the flag set,
        # checksums recomputed): opens in O(1), but every full check says stale, not corrupt.
        with BloomFilter.open(CORPUS / name) as m:
            assert m.info.bits > 0
            assert m.info.stale
        with pytest.raises(abloom.StaleError) as e:
            BloomFilter.from_bytes(data)
        assert not isinstance(e.value, abloom.FormatError)
        with pytest.raises(abloom.StaleError):
            BloomFilter.open(CORPUS / name, verify=True)
    elif name.startswith("valid-"):
        f = BloomFilter.from_bytes(data)
        assert BloomFilter.from_bytes(f.to_bytes()) == f
        with BloomFilter.open(CORPUS / name, verify=True) as m:
            assert m == f
    else:
        assert name.startswith("invalid-")
        with pytest.raises(abloom.FormatError):
            BloomFilter.from_bytes(data)
        with pytest.raises(abloom.FormatError):
            BloomFilter.open(CORPUS / name, verify=True)
