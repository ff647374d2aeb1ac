"""gaussqp: solve and certify the contact problem of multibody mechanics.

Quick start::

    import gaussqp
    p = gaussqp.problems.load("hyperstatic_block")
    sol = gaussqp.solve(p)
    sol.status, sol.acceleration, sol.unique
"""

from . import errors
from .batch import Solver, solve_many
from .certificates.report import CheckReport, check
from .dispatch import PREFERENCES, choose_formulation, solve
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
    "Certificate", "CheckReport", "Contact", "ContactProblem", "ContactRows", "FORMAT", "FORMULATIONS",
    "ImpactProblem", "LocalContactProblem", "MechanicalSystem", "PREFERENCES", "PRESETS", "Solution", "State", "StepResult", "Status",
    "Solver", "SystemClass", "Tolerance", "check", "choose_formulation", "dump", "dumps", "errors", "get_formulation",
    "impacts", "load", "load_npz", "loads", "register", "save_npz", "solve", "solve_impact", "solve_many", "step",
]


def __getattr__(name: str):
    """``gaussqp.problems`` (the shipped problem library) is imported on first use."""
    if name == "problems":
        import importlib

        return importlib.import_module(".problems", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
