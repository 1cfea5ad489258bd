"""abloom.isa(): the kernel the engine runs, named as the C library names it."""

from __future__ import annotations

import os
import platform

import pyabloom as abloom


def test_isa_is_a_kernel_of_this_architecture() -> None:
    machine = platform.machine().lower()
    asked = os.environ.get("ABLOOM_ISA", "").strip().lower()
    if machine in ("aarch64", "arm64"):
        # Every aarch64 CPU has NEON: it runs unless scalar is asked for (x86 names are ignored).
        assert abloom.isa() == ("scalar" if asked == "scalar" else "neon")
    elif machine in ("x86_64", "amd64"):
        assert abloom.isa() in ("scalar", "avx2", "avx512")
    else:
        assert abloom.isa() == "scalar"
