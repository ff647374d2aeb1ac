"""The formulation registry (docs/DESIGN.md §3): name -> formulation object.

Apart from the package's ``__init__`` (which fills it) so that a formulation that runs another by name (F4's
two-stage route runs F1) imports the registry without importing the package that imports it: no import cycle.
"""

from __future__ import annotations

from ..errors import UnknownFormulationError
from .base import Formulation

FORMULATIONS: dict[str, Formulation] = {}


def register(f: Formulation) -> Formulation:
    """Add ``f`` to the registry under ``f.name``."""
    FORMULATIONS[f.name] = f
    return f


def get_formulation(name: str) -> Formulation:
    if name not in FORMULATIONS:
        raise UnknownFormulationError(f"unknown formulation {name!r}: use one of {', '.join(FORMULATIONS)}")
    return FORMULATIONS[name]
