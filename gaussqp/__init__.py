"""gaussqp: solve and certify the contact problem of multibody mechanics.

Quick start::

    import gaussqp
    p = gaussqp.problems.load("hyperstatic_block")
    sol = gaussqp.solve(p)
    sol.status, sol.acceleration, sol.unique
"""

import os as _os
import sys as _sys


class _SourceProblems:
    """Finds ``gaussqp.problems`` in a source tree: the top-level ``problems/`` next to this ``gaussqp/``.

    An installed gaussqp holds the library as ``gaussqp/problems`` (pyproject's package-dir maps ``problems/`` in);
    a clone does not, so ``python`` run in its root (whose ``gaussqp/`` shadows the installed package) could not
    import it, and an editable install of another checkout would hand out that checkout's library. Installed at the
    front of ``sys.meta_path`` only when this package is a source tree; it answers for ``gaussqp.problems`` alone
    (its submodules are then found in its ``__path__``)."""

    def __init__(self, directory: str):
        self.directory = directory

    def find_spec(self, fullname, path=None, target=None):
        """The spec of ``gaussqp.problems`` in :attr:`directory`; None for any other module."""
        if fullname != __name__ + ".problems":
            return None
        import importlib.util

        return importlib.util.spec_from_file_location(
            fullname, _os.path.join(self.directory, "__init__.py"), submodule_search_locations=[self.directory]
        )


def _source_problems() -> str | None:
    """The source tree's ``problems/`` when this package is the ``gaussqp/`` of a source tree (no
    ``gaussqp/problems`` of its own, a ``problems/__init__.py`` and a ``pyproject.toml`` beside it), else None."""
    here = _os.path.dirname(_os.path.abspath(__file__))
    root = _os.path.dirname(here)
    library = _os.path.join(root, "problems")
    if (
        not _os.path.isdir(_os.path.join(here, "problems"))
        and _os.path.isfile(_os.path.join(library, "__init__.py"))
        and _os.path.isfile(_os.path.join(root, "pyproject.toml"))
    ):
        return library
    return None


_library = _source_problems()
if _library is not None and not any(isinstance(f, _SourceProblems) for f in _sys.meta_path):
    _sys.meta_path.insert(0, _SourceProblems(_library))

from . import errors  # noqa: E402
from .batch import Solver, solve_many
from .certificates.force_envelopes import ForceRanges
from .certificates.report import CheckReport, check
from .dispatch import PREFERENCES, choose_formulation, force_ranges, solve
from .io.gaussqp_format import FORMAT, dump, dumps, load, loads, load_npz, save_npz
from .formulations import FORMULATIONS, get_formulation, register
from .model.impact import ImpactProblem
from .model.local_problem import LocalContactProblem
from .model.problem import Contact, ContactProblem
from .model.system_class import SystemClass
from .results import Certificate, Solution, Status
from .settings import PRESETS, Tolerance
from .timestepping import ContactRows, MechanicalSystem, State, StepResult, solve_impact, step

__version__ = "0.1.0"

__all__ = [
    "Certificate",
    "CheckReport",
    "Contact",
    "ContactProblem",
    "ContactRows",
    "FORMAT",
    "FORMULATIONS",
    "ForceRanges",
    "ImpactProblem",
    "LocalContactProblem",
    "MechanicalSystem",
    "PREFERENCES",
    "PRESETS",
    "Solution",
    "State",
    "StepResult",
    "Status",
    "Solver",
    "SystemClass",
    "Tolerance",
    "check",
    "choose_formulation",
    "dump",
    "dumps",
    "errors",
    "force_ranges",
    "get_formulation",
    "impacts",
    "load",
    "load_npz",
    "loads",
    "register",
    "save_npz",
    "solve",
    "solve_impact",
    "solve_many",
    "step",
]


def __getattr__(name: str):
    """``gaussqp.problems`` (the shipped problem library) is imported on first use."""
    if name == "audit":
        import importlib

        return importlib.import_module(".audit", __name__)  # a callable module: gaussqp.audit(model, ...)
    if name == "problems":
        import importlib

        return importlib.import_module(".problems", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
