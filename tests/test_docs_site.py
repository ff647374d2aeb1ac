"""The documentation site (issue #31): it builds with warnings as errors, a reader reaches every capability page in
two clicks, the API reference of ``gaussqp.solve`` is generated from its docstring, and the README's commands are
the CI's. The build needs the extra ``docs`` (mkdocs-material, mkdocstrings); without it those tests skip, saying
so."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest

tomllib = pytest.importorskip("tomllib", reason="reads pyproject.toml with tomllib (Python >= 3.11)")

ROOT = pathlib.Path(__file__).resolve().parents[1]
CAPABILITIES = [
    "guide/solve.md",
    "guide/friction.md",
    "guide/impacts.md",
    "guide/robots.md",
    "guide/audit.md",
    "guide/grasps.md",
    "guide/studies.md",
    "guide/fclib.md",
    "guide/file-format.md",
    "guide/cli.md",
]


def _nav() -> list:
    yaml = pytest.importorskip("yaml", reason="needs PyYAML (comes with the extra gaussqp[docs])")
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]


def _pages(nav, depth=1):
    """(page, depth) of every page in the nav: depth 1 is a top tab, 2 a page in a tab's section."""
    for item in nav:
        if isinstance(item, str):
            yield item, depth
        else:
            for value in item.values():
                if isinstance(value, str):
                    yield value, depth
                else:
                    yield from _pages(value, depth + 1)


def test_every_capability_page_is_two_clicks_from_home():
    pages = dict(_pages(_nav()))
    for page in CAPABILITIES + [
        "getting-started.md",
        "DESIGN.md",
        "design/theory.md",
        "api/index.md",
        "changelog.md",
        "benchmarks.md",
    ]:
        assert (ROOT / "docs" / page).is_file(), page
        assert pages.get(page, 99) <= 2, f"{page} is not in the nav within two clicks"
    home = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    for page in CAPABILITIES:  # and one click from the home page's table
        assert f"]({page})" in home, f"the home page does not link {page}"


def test_every_page_is_in_the_nav():
    listed = {p for p, _ in _pages(_nav())}
    on_disk = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert on_disk == listed, f"not in the nav: {sorted(on_disk - listed)}; missing: {sorted(listed - on_disk)}"


def test_the_site_builds_strict_and_documents_solve(tmp_path):
    pytest.importorskip("mkdocs", reason="needs mkdocs (the extra gaussqp[docs])")
    pytest.importorskip("mkdocstrings", reason="needs mkdocstrings (the extra gaussqp[docs])")
    pytest.importorskip("material", reason="needs mkdocs-material (the extra gaussqp[docs])")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    html = (tmp_path / "site" / "api" / "solve" / "index.html").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", " ", html[html.index('id="gaussqp.solve"') : html.index('id="gaussqp.check"')])
    for said in (
        "Solve the contact problem",
        "Parameters",
        "problem",
        "crosscheck",
        "Returns",
        "Solution",
        "Raises",
        "hyperstatic_block",
    ):
        assert said in text, said
    assert ":class:" not in text  # the Sphinx roles are rendered as names (scripts/mkdocs_hooks.py)


def test_readme_commands_are_the_ci():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", readme, flags=re.S).group(1).splitlines()
    assert len(block) == 2, block
    first, second = block
    assert first == "python3 -m venv .venv && .venv/bin/pip install -q . && .venv/bin/gaussqp solve rod_wall_guide"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert second == ci, "the README's test command is not .ci/run's"
    extras = re.search(r'pip install -q "\.\[([\w,]+)\]"', ci).group(1).split(",")
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert {"test", "docs", "release"} <= set(extras) <= set(declared)
    assert "mkdocs build --strict" in ci and "scripts/check_package.py" in ci


def test_the_version_is_written_once():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in meta["project"] and "version" in meta["project"]["dynamic"]
    assert meta["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "gaussqp.__version__"}
    import gaussqp

    assert re.fullmatch(r"\d+\.\d+\.\d+", gaussqp.__version__)
