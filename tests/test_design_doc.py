"""docs/DESIGN.md stays true to the code (issue #10).

Every code reference written `` `path.py::name` `` (under ``gaussqp/`` or ``problems/``) must name an
existing file that defines ``name`` at top level (a class, a function or an assignment), every
registered formulation must be mentioned, and every certificate id the code creates must appear.
Pure ``ast``: nothing of gaussqp is imported.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "docs" / "DESIGN.md"

#: `gaussqp/linalg/lemke.py::lemke`, `problems/examples.py::hyperstatic_block`
REFERENCE = re.compile(r"`((?:gaussqp|problems)/[A-Za-z0-9_/]+\.py)::([A-Za-z_][A-Za-z0-9_]*)`")

#: the registry names (FacetizedQP builds its two names at run time, so they are listed here too)
FORMULATION_NAMES = (
    "gauss_qp",
    "projected_acceleration",
    "projected_eliminated",
    "delassus_qp",
    "lcp_lemke",
    "sticking_lcp",
    "bilateral_kkt",
    "sticking_socp",
    "facetized_inner",
    "facetized_outer",
    "sliding_lcp",
    "sliding_fixed_point",
    "sliding_enumeration",
    "coulomb_enumeration",
    "coulomb_enumeration_inner",
    "coulomb_enumeration_outer",
)


def _text() -> str:
    return DESIGN.read_text(encoding="utf-8")


def _references() -> list[tuple[str, str]]:
    return sorted(set(REFERENCE.findall(_text())))


def _targets(node: ast.AST) -> set[str]:
    """Names bound by an assignment target (``a = ``, ``a, b = ``, ``a: int = ``)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, (ast.Tuple, ast.List)):
        return set().union(*(_targets(e) for e in node.elts)) if node.elts else set()
    return set()


def _top_level(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                names |= _targets(t)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            names |= _targets(node.target)
        elif isinstance(node, ast.If):  # e.g. a definition under ``if TYPE_CHECKING`` / a version test
            names |= _top_level(node.body) | _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            names |= _top_level(node.body) | _top_level(node.orelse) | _top_level(node.finalbody)
            for h in node.handlers:
                names |= _top_level(h.body)
    return names


@lru_cache(maxsize=None)
def _defined(path: str) -> frozenset[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"), filename=path)
    return frozenset(_top_level(tree.body))


def _missing() -> list[str]:
    out = []
    for path, name in _references():
        if not (ROOT / path).is_file():
            out.append(f"{path}::{name} (no such file)")
        elif name not in _defined(path):
            out.append(f"{path}::{name} (not defined at top level)")
    return out


def _registered_names() -> set[str]:
    """``name = "..."`` class attributes of the formulation modules, plus the fixed list."""
    names = set(FORMULATION_NAMES)
    for f in sorted((ROOT / "gaussqp" / "formulations").glob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if (
                        isinstance(stmt, ast.Assign)
                        and any(isinstance(t, ast.Name) and t.id == "name" for t in stmt.targets)
                        and isinstance(stmt.value, ast.Constant)
                        and isinstance(stmt.value.value, str)
                        and stmt.value.value
                    ):
                        names.add(stmt.value.value)
    return names


def _certificate_ids() -> set[str]:
    """Literal ids of every ``Certificate(...)`` the package creates (``id=`` or the first argument)."""
    ids = set()
    for f in sorted((ROOT / "gaussqp").rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Certificate"
            ):
                continue
            arg = next((k.value for k in node.keywords if k.arg == "id"), node.args[0] if node.args else None)
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                ids.add(arg.value)
    return ids


def test_design_doc_exists_and_has_references():
    assert DESIGN.is_file(), "docs/DESIGN.md is missing"
    refs = _references()
    assert len(refs) > 100, f"only {len(refs)} code references found: is the `path.py::name` syntax intact?"


def test_every_code_reference_resolves():
    missing = _missing()
    assert not missing, "DESIGN.md names code that does not exist:\n  " + "\n  ".join(missing)


@pytest.mark.parametrize("name", sorted(set(FORMULATION_NAMES)))
def test_every_registered_formulation_is_mentioned(name):
    assert f"`{name}`" in _text(), f"formulation {name!r} is not mentioned in DESIGN.md"


def test_formulations_found_in_the_code_are_mentioned():
    text = _text()
    absent = sorted(n for n in _registered_names() if f"`{n}`" not in text)
    assert not absent, f"formulations missing from DESIGN.md: {absent}"


def test_every_certificate_id_is_mentioned():
    text = _text()
    ids = _certificate_ids()
    assert ids, "no Certificate(...) found: has the class been renamed?"
    absent = sorted(i for i in ids if f"`{i}`" not in text)
    assert not absent, f"certificate ids missing from DESIGN.md: {absent}"


def test_old_formulations_md_sections_are_mapped():
    """The table that redirects the old ``FORMULATIONS.md §k`` citations covers §1-§5."""
    text = _text()
    for k in range(1, 6):
        assert re.search(rf"`FORMULATIONS(\.md)? §{k}", text), f"no redirection for FORMULATIONS §{k}"
