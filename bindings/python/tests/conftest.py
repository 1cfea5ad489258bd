"""Shared fixtures: the repository's golden vectors and the C file reader."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
VECTORS = ROOT / "tests" / "vectors"


@pytest.fixture(scope="session")
def vectors_dir() -> Path:
    assert (VECTORS / "blocked_s1.abloom").is_file(), f"no golden vectors in {VECTORS}"
    return VECTORS


WINDOWS = sys.platform == "win32"


@pytest.fixture(scope="session")
def c_file_reader(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/install/deb/file_reader.c built against libabloom: $ABLOOM_C_FILE_READER (ci.sh
    builds it once), or built here by build_c_reader.sh. On Windows it must be given (the release
    check, scripts/release/check-python.sh, cross-builds file_reader.exe with zig)."""
    given = os.environ.get("ABLOOM_C_FILE_READER")
    if given:
        return Path(given)
    assert not WINDOWS, "set ABLOOM_C_FILE_READER to a file_reader.exe (build_c_reader.sh is bash)"
    out = tmp_path_factory.mktemp("c-reader")
    subprocess.run(["bash", str(HERE / "build_c_reader.sh"), str(out)], check=True)
    return out / "file_reader"


@pytest.fixture(scope="session")
def abloom_cli(c_file_reader: Path) -> Path:
    """The abloom command (cli/), which build_c_reader.sh builds beside the C file reader
    (whichever way c_file_reader found it: ci.sh's, the release check's, or one built here)."""
    path = c_file_reader.parent / "cli" / ("abloom.exe" if WINDOWS else "abloom")
    assert path.is_file(), f"no abloom command at {path}"
    return path
