"""Issue #25 item 6: every code fence of the README and docs/*.md is closed, so prose never renders as code (the
README's "``` If a" did not close its block: 245 lines, sliding friction to the end, rendered as code).

CommonMark: a closing fence is the fence alone on its line (no text after it); an opening fence's info string is
one word (the language). Fenced blocks inside list items are indented, so up to three leading spaces are allowed,
as CommonMark allows, plus the indentation of the list item."""

from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")


def fence_problems(text: str) -> list[str]:
    """Every unclosed block, closing fence with text after it, or opening fence with an info string of more than
    one word, as ``"line N: what"``."""
    problems, open_at, marker = [], None, ""
    for i, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if not m:
            continue
        fence, rest = m.group(2), m.group(3).strip()
        if open_at is None:
            if len(rest.split()) > 1:
                problems.append(f"line {i}: an opening fence with the info string {rest!r} (prose after a fence?)")
            open_at, marker = i, fence
        elif fence[0] == marker[0] and len(fence) >= len(marker):
            if rest:
                problems.append(
                    f"line {i}: text {rest[:20]!r} after a closing fence: the block opened at line "
                    f"{open_at} does not close here"
                )
            else:
                open_at = None
    if open_at is not None:
        problems.append(f"line {open_at}: the block opened here is never closed")
    return problems


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_fence_is_closed(path):
    assert fence_problems(path.read_text(encoding="utf-8")) == []


def test_the_checker_finds_the_issue_25_slip():
    assert fence_problems("```python\nx = 1\n``` If a\nprose\n") != []
    assert fence_problems("```python\nx = 1\n```\nIf a\nprose\n") == []
