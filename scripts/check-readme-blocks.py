#!/usr/bin/env python3
"""Every fenced block of every README, and of docs/*.md, is either run by CI or plainly marked as
not run.

    python3 scripts/check-readme-blocks.py [FILE ...]   # default: every tracked README.md and docs/*.md

The line just before each opening fence must be one of these markers:

  <!-- tested: PATH -->     PATH (from the repository root) is a test or example that CI
                            builds and runs, and it holds the block: every non-blank line of the
                            block appears in PATH in the same order (blanks at either end
                            dropped, runs of blanks inside made one space) (the test may put lines of its own between them: the
                            declarations a snippet assumes, the asserts on what it prints).
  <!-- untested: WHY -->    not run by CI as written (commands for the reader's machine, a
                            cluster job, a config excerpt), and WHY says so. A block of program
                            code (c, go, java, rust, python) marked so must also say it to the
                            reader: its first line is a comment with the word "fragment".

So a README example cannot drift from code that compiles and runs: change one and this check, or
the test, fails. Copies rather than doc tests, because the README is read on the forge as it is:
rustdoc's hidden lines and Go's Example output comments would show there, and Java and Python
have no doc-test runner that CI already uses. Standard library only; exits 1 with one line per
problem.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(\s*)(```+)\s*([\w+-]*)")
MARKER = re.compile(r"^<!--\s*(tested|untested):\s*(.*?)\s*-->\s*$")
CODE = {"c", "go", "java", "rust", "python"}
COMMENT = {"c": ("//", "/*"), "go": ("//",), "java": ("//",), "rust": ("//",), "python": ("#",)}


@dataclass
class Block:
    readme: Path
    line: int  # 1-based line of the opening fence
    lang: str
    marker: str  # the line before the fence
    body: list[str]


def blocks(readme: Path) -> list[Block]:
    """The fenced blocks of a Markdown file (``` fences, any indentation)."""
    lines = readme.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence = m.group(2)
        start = i
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            i += 1
        if i == len(lines):
            raise SystemExit(f"{readme}:{start + 1}: a code fence is never closed")
        marker = lines[start - 1].strip() if start > 0 else ""
        found.append(Block(readme, start + 1, m.group(3).lower(), marker, lines[start + 1 : i]))
        i += 1
    return found


def stripped(lines: list[str]) -> list[str]:
    """The non-blank lines, each with its runs of blanks made one space (so a README may align
    its comments in columns, and a formatter may not)."""
    return [" ".join(s.split()) for s in lines if s.strip()]


def contained(needle: list[str], haystack: list[str]) -> str | None:
    """None if needle is a subsequence of haystack, else the first line of needle not found."""
    at = 0
    for line in needle:
        while at < len(haystack) and haystack[at] != line:
            at += 1
        if at == len(haystack):
            return line
        at += 1
    return None


def check(block: Block) -> str | None:
    where = f"{block.readme.relative_to(ROOT)}:{block.line}"
    m = MARKER.match(block.marker)
    if not m:
        return (
            f"{where}: no marker before this block: put <!-- tested: PATH --> or"
            " <!-- untested: WHY --> on the line before the fence"
        )
    kind, arg = m.groups()
    body = stripped(block.body)
    if not arg:
        return f"{where}: the {kind} marker needs a {'path' if kind == 'tested' else 'reason'}"
    if kind == "untested":
        if block.lang in CODE:
            first = body[0] if body else ""
            if not (first.startswith(COMMENT[block.lang]) and "fragment" in first.lower()):
                return (
                    f"{where}: an untested {block.lang} block must say so to the reader: its"
                    " first line is a comment with the word 'fragment'"
                )
        return None
    path = ROOT / arg
    if not path.is_file():
        return f"{where}: tested by {arg}, which does not exist"
    missing = contained(body, stripped(path.read_text(encoding="utf-8").splitlines()))
    if missing is not None:
        return f"{where}: {arg} does not hold this block; from this line on it differs: {missing}"
    return None


def tracked_readmes() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*README.md", "docs/*.md"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [ROOT / p for p in out.split()]


def main(argv: list[str]) -> int:
    readmes = [Path(a).resolve() for a in argv] or tracked_readmes()
    problems: list[str] = []
    total = 0
    tested = 0
    for readme in readmes:
        for block in blocks(readme):
            total += 1
            problem = check(block)
            if problem:
                problems.append(problem)
            elif block.marker.startswith("<!-- tested"):
                tested += 1
    for p in problems:
        print(p)
    print(
        f"check-readme-blocks: {len(readmes)} files, {total} blocks, {tested} held by tests,"
        f" {total - tested - len(problems)} marked untested, {len(problems)} problems"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
