"""Files exchanged with the abloom command (cli/): a filter the command builds from lines or from
--u64 ids opens here equal, bit for bit, to this binding's filter of the same keys; the command's
query prints exactly the keys this binding answers "maybe" for; and a filter saved here passes
the command's verify and query."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pyabloom as abloom


def run(cli: Path, stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The command's result; exit status 1 is query's "nothing matched", anything else fails."""
    done = subprocess.run(
        [str(cli), *args], input=stdin, capture_output=True, text=True, timeout=120
    )
    assert done.returncode in (0, 1), f"abloom {args} exited {done.returncode}: {done.stderr}"
    return done


def lines(keys: list[str]) -> str:
    return "".join(k + "\n" for k in keys)


def test_a_file_the_command_builds_opens_here(abloom_cli: Path, tmp_path: Path) -> None:
    present = [f"cli-key-{i}" for i in range(5000)]
    absent = [f"cli-absent-{i}" for i in range(20000)]
    path = tmp_path / "cli.abloom"
    built = run(
        abloom_cli,
        lines(present),
        "build",
        "-q",
        "-o",
        str(path),
        "--capacity",
        "5000",
        "--fpr",
        "0.01",
        "--seed",
        "42",
    )
    assert built.returncode == 0
    with abloom.BloomFilter.open(path, verify=True) as f:
        assert (f.info.capacity, f.info.seed) == (5000, 42)
        assert all(k in f for k in present)
        g = abloom.BloomFilter(5000, 0.01, seed=42)
        g.update(present)
        assert f == g, "the command's filter differs from this binding's of the same keys"
        ours = [k for k in absent if k in f]
        assert run(abloom_cli, lines(absent), "query", str(path)).stdout == lines(ours)
        assert 0 < len(ours) < 400, f"{len(ours)} false positives of 20000 at fpr 0.01"


def test_a_u64_file_the_command_builds_holds_python_ints(abloom_cli: Path, tmp_path: Path) -> None:
    ids = [0, 1, 255, 256, 1 << 32, (1 << 63) - 1, 1 << 63, (1 << 64) - 1]
    ids += [(i * 0x9E3779B97F4A7C15) % (1 << 64) for i in range(1000)]
    path = tmp_path / "ids.abloom"
    run(
        abloom_cli,
        "".join(f"{i}\n" for i in ids),
        "build",
        "-q",
        "--u64",
        "-o",
        str(path),
        "--capacity",
        "1008",
    )
    with abloom.BloomFilter.open(path, verify=True) as f:
        assert all(i in f for i in ids)  # an int key: its 8 little-endian bytes, as --u64's
        g = abloom.BloomFilter(1008, 0.01)
        g.update(ids)
        assert f == g, "the command's --u64 filter differs from this binding's of the same ints"


def test_a_file_saved_here_passes_the_command(abloom_cli: Path, tmp_path: Path) -> None:
    present = [f"python-key-{i}" for i in range(5000)]
    f = abloom.BloomFilter(5000, 0.01, shards=4)
    f.update(present)
    path = tmp_path / "python.abloom"
    f.save(path)
    assert run(abloom_cli, "", "verify", str(path)).returncode == 0
    assert run(abloom_cli, lines(present), "query", "--count", str(path)).stdout == "5000\n"
    none = run(abloom_cli, lines(present), "query", "--absent", str(path))
    assert (none.returncode, none.stdout) == (1, ""), "query --absent matched a key added here"
