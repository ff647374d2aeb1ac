"""The problem library: the papers' worked examples and generated families.

Installed as ``gaussqp.problems``. Shipped problems are ``data/<name>.json`` files written
by the builders of :mod:`.examples` at their default parameters (``python -m
gaussqp.problems`` regenerates them; a test checks they match the builders).
"""

from __future__ import annotations

from pathlib import Path

from gaussqp.errors import FileFormatError
from gaussqp.fileformat import dump, load as _load_file
from gaussqp.problem import ContactProblem

from . import families
from .examples import EXAMPLES as _FRICTIONLESS
from .sliding_examples import EXAMPLES as _SLIDING
from .sticking_examples import EXAMPLES as _STICKING

#: every example builder, by name (frictionless examples, the sticking paper's, the tutorial's sliding ones)
EXAMPLES = {**_FRICTIONLESS, **_STICKING, **_SLIDING}

DATA = Path(__file__).resolve().parent / "data"


def names() -> list[str]:
    """Names of the shipped problems."""
    return sorted(p.stem for p in DATA.glob("*.json"))


def path(name: str) -> Path:
    return DATA / f"{name}.json"


def load(name: str) -> ContactProblem:
    """Load a shipped problem by name."""
    p = path(name)
    if not p.exists():
        raise FileFormatError("problem", f"{name!r} is not a shipped problem",
                              f"use one of {', '.join(names())} (gaussqp list)")
    return _load_file(p)


def build(name: str, **params) -> ContactProblem:
    """Build an example with non-default parameters."""
    if name not in EXAMPLES:
        raise FileFormatError("problem", f"{name!r} has no builder", f"use one of {', '.join(EXAMPLES)}")
    return EXAMPLES[name](**params)


def regenerate() -> list[Path]:
    """Write data/<name>.json for every example builder at default parameters."""
    out = []
    for name, builder in EXAMPLES.items():
        dump(builder(), path(name))
        out.append(path(name))
    return out


__all__ = ["DATA", "EXAMPLES", "build", "families", "load", "names", "path", "regenerate"]
