#!/usr/bin/env python3
"""scripts/check-comment-figures.py finds what it must and nothing else: each kind of measured
figure in a comment of each language is a hit, with the line it is on; figures in code (Python
strings that are not docstrings among it), the code's own parameters and names that hold digits
(AVX-512, x86-64) are not. Exits 1 on the
first wrong answer. Standard library only.

    python3 tests/tools/check_comment_figures_test.py SCRIPT
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path


def load(script: Path):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("check_comment_figures", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# (file name, text, the 1-based lines that must be hits)
CASES = [
    ("timing.cpp", "int x;  // that walk cost ~30 ns per call\n", [1]),
    ("ratio.go", "// Plain stores make adds 1.4-2x faster.\nvar x = 2\n", [1]),
    ("percent.java", "/**\n * measured 12% faster for short keys\n */\nint x;\n", [2]),
    ("took.hpp", "// `query --count` took 0.23 s with the copy\n", [1]),
    ("count.rs", "/// a loop of about 35 instructions per word\nfn f() {}\n", [1]),
    ("twice.c", "/* the walk was twice as slow */\n", [1]),
    ("doc.py", '"""Module.\n\nThe copy ran in 4 ms.\n"""\nx = 1\n', [3]),
    ("hash.py", "x = 1  # 3x slower than the C call\n", [1]),
    # Not measurements: names with digits, parameters, figures outside comments.
    ("names.cpp", "// the AVX-512 instructions and the AVX2 kernel, on x86-64\n", []),
    ("params.cpp", "// Waits of 1, 2, 4, ... 128 ms, then 128 ms: a retry schedule.\n", []),
    ("code.cpp", 'const char* s = "2x faster";  // the label\nint ns = 30;\n', []),
    ("limits.go", "// waitFreed runs garbage collections (5 s at most).\n", []),
    # Python: a string that is not a docstring is code, '#' and figures in it included.
    ("strings.py", 'x = ("3x slower", "# 2x faster")\ny = [\n    "took 4 s",\n]\n', []),
]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    checker = load(Path(argv[0]))
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, text, want in CASES:
            path = Path(tmp) / name
            path.write_text(text, encoding="utf-8")
            got = [
                n
                for n, comment in checker.comment_lines(path)
                if any(p.search(comment) for _, p in checker.FIGURES)
            ]
            if got != want:
                print(f"FAIL {name}: hits on lines {got}, expected {want}")
                failures += 1
        # The command itself: exit 1 with a hit, 0 without.
        hit = checker.main([str(Path(tmp) / "timing.cpp")])
        clean = checker.main([str(Path(tmp) / "names.cpp")])
        if (hit, clean) != (1, 0):
            print(f"FAIL exit codes: {hit} with a hit, {clean} without (expected 1 and 0)")
            failures += 1
    if failures:
        return 1
    print(f"check_comment_figures_test: {len(CASES)} cases and the exit codes: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
