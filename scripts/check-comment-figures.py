#!/usr/bin/env python3
"""No code comment quotes a measurement: timings and speed ratios live in bench/RESULTS.md.

    python3 scripts/check-comment-figures.py [FILE ...]   # default: the tracked sources below

A figure measured on one machine goes stale in the code that quotes it, and nobody re-measures a
comment. So a comment says why, and points to the measurement by section: bench/RESULTS.md (the
current figures) or bench/JOURNAL.md ("section title"). This check reads the comments of the
tracked C, C++, Go, Rust, Java and Python sources of core/, capi/, cli/, bindings/ and tests/
(bench/ and the bindings' bench/ folders are where measurements belong; generated files are left
out) and flags:

  - a number with a sub-millisecond unit (ns, us, µs): nothing in the code waits that long on
    purpose, so it is a measurement;
  - a speed ratio: "1.4-2x faster", "12% slower", "twice as fast";
  - an instruction or cycle count ("about 35 instructions per word"): cachegrind's, for one
    compiler on one CPU;
  - a measured duration: "took 0.23 s", "cost ~30 ns", "ran in 4 ms".

Parameters are not flagged (a retry schedule's "128 ms", a test's "5 s at most"): they are the
code's own numbers, not what a machine measured. Standard library only; exits 1 with one line
per hit.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("core", "capi", "cli", "bindings", "tests")
SUFFIXES = {".h", ".hpp", ".c", ".cpp", ".go", ".rs", ".java", ".py", ".pyi", ".scala"}
# Generated: the Go module's engine amalgamation and SWIG layer (their text is core/'s, checked).
GENERATED = (
    "bindings/go/internal/engine/",
    "bindings/go/internal/capi/abloom_wrap.c",
    "bindings/go/internal/capi/capi.go",
)

NUMBER = r"(?<![\w.-])[~≈]?\d[\d.,]*(?:\s*[-–]\s*\d[\d.,]*)?"
FIGURES = [
    ("a sub-millisecond time", re.compile(rf"{NUMBER}\s*(?:ns|us|µs)\b")),
    ("a speed ratio", re.compile(rf"{NUMBER}\s*(?:x|%|times)\s+(?:faster|slower)\b", re.I)),
    ("a speed ratio", re.compile(r"\b(?:twice|half)\s+as\s+(?:fast|slow)\b", re.I)),
    ("an instruction or cycle count", re.compile(rf"{NUMBER}\s+(?:instructions|cycles)\b")),
    (
        "a measured duration",
        re.compile(
            rf"\b(?:took|takes|cost|costs|ran in|runs in|measured)\s+(?:about\s+)?{NUMBER}\s*"
            r"(?:s|ms|sec|seconds?|minutes?)\b",
            re.I,
        ),
    ),
]


def python_comments(text: str) -> list[tuple[int, str]]:
    """A Python file's comments and docstrings (a string that is a statement of its own), by
    Python's own tokenizer: a '#' or a figure inside any other string is code, not a comment."""
    out: list[tuple[int, str]] = []
    starts = {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}
    previous = tokenize.NEWLINE
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
        elif tok.type == tokenize.STRING and previous in starts:
            out.extend((tok.start[0] + i, line) for i, line in enumerate(tok.string.splitlines()))
        if tok.type not in {tokenize.COMMENT, tokenize.NL}:
            previous = tok.type
    return out


def comment_lines(path: Path) -> list[tuple[int, str]]:
    """The comment text of each line (line comments, block comments, docstrings' lines)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix in {".py", ".pyi"}:
        return python_comments(text)
    out: list[tuple[int, str]] = []
    in_block = False
    for n, line in enumerate(text.splitlines(), 1):
        if in_block:
            out.append((n, line))
            if "*/" in line:
                in_block = False
            continue
        if "//" in line:
            out.append((n, line[line.index("//") :]))
        elif "/*" in line:
            out.append((n, line[line.index("/*") :]))
            in_block = "*/" not in line[line.index("/*") :]
    return out


def tracked() -> list[Path]:
    names = subprocess.run(
        ["git", "ls-files", "--", *FOLDERS], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.split()
    return [
        ROOT / n
        for n in names
        if Path(n).suffix in SUFFIXES
        and not n.startswith(GENERATED)
        and "/bench/" not in n
    ]


def main(argv: list[str]) -> int:
    files = [Path(a).resolve() for a in argv] if argv else tracked()
    hits = 0
    for path in files:
        for n, comment in comment_lines(path):
            for what, pattern in FIGURES:
                m = pattern.search(comment)
                if m:
                    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                    print(f"{rel}:{n}: {what} in a comment ({m.group(0)!r}): link bench/RESULTS.md instead")
                    hits += 1
                    break
    if hits:
        print(f"{hits} measured figure(s) in code comments")
        return 1
    print(f"check-comment-figures: {len(files)} files, no measured figure in a comment")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
