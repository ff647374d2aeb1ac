"""The documentation's text for the tests that run its examples: the README and every page of the site (docs/).

``section(heading)`` finds a section by the text of its heading, wherever it lives (the README or a page: issue #31
moved most of the README into the site), and returns it up to the next heading of the same or a higher level.
``blocks(path)`` yields the fenced code blocks of a file with their language and line."""

from __future__ import annotations

import pathlib
import re
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
HEADING = re.compile(r"^(#{1,6}) (.*)$")
FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")


def _outside_fences(lines: list[str]) -> list[bool]:
    """For each line, whether it is prose (not inside a fenced block, nor a fence itself)."""
    out, fence = [], ""
    for line in lines:
        m = FENCE.match(line)
        if m and not fence:
            fence = m.group(1)
            out.append(False)
        elif m and fence and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
            fence = ""
            out.append(False)
        else:
            out.append(not fence)
    return out


def section(heading: str) -> str:
    """The section whose heading starts with ``heading`` (the first found in the README, then the pages), with
    its heading line, up to the next heading of the same or a higher level."""
    for path in PAGES:
        lines = path.read_text(encoding="utf-8").splitlines()
        prose = _outside_fences(lines)
        for i, line in enumerate(lines):
            m = HEADING.match(line)
            if prose[i] and m and m.group(2).startswith(heading):
                level, j = len(m.group(1)), i + 1
                while j < len(lines):
                    n = HEADING.match(lines[j])
                    if prose[j] and n and len(n.group(1)) <= level:
                        break
                    j += 1
                return "\n".join(lines[i:j]) + "\n"
    raise AssertionError(f"no section {heading!r} in the README or in docs/")


@dataclass
class Block:
    path: pathlib.Path
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    after: str  # the prose between this block and the next one

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path: pathlib.Path) -> list[Block]:
    """The fenced blocks of ``path`` at the start of a line (not inside a list item), in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang, j = m.group(1), m.group(2).strip(), i + 1
        while j < len(lines) and not (lines[j].startswith(fence) and not lines[j][len(fence) :].strip()):
            j += 1
        found.append(Block(path, i + 1, lang, "\n".join(lines[i + 1 : j]) + "\n", ""))
        k = j + 1
        while k < len(lines) and not FENCE.match(lines[k]):
            k += 1
        found[-1].after = "\n".join(lines[j + 1 : k])
        i = j + 1
    return found
