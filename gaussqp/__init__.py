"""gaussqp: solve and certify the contact problem of multibody mechanics.

Quick start::

    import gaussqp
    p = gaussqp.problems.load("hyperstatic_block")
    sol = gaussqp.solve(p)
    sol.status, sol.acceleration, sol.unique
"""

from . import errors
from .certificates import CheckReport, check
from .dispatch import PREFERENCES, choose_formulation, solve
from .fileformat import FORMAT, dump, dumps, load, loads, load_npz, save_npz
from .formulations import FORMULATIONS, get_formulation, register
from .problem import Contact, ContactProblem, SystemClass
from .solution import Certificate, Solution
from .tolerances import PRESETS, Tolerance

__version__ = "0.1.0"

__all__ = [
    "Certificate", "CheckReport", "Contact", "ContactProblem", "FORMAT", "FORMULATIONS", "PREFERENCES",
    "PRESETS", "Solution", "SystemClass", "Tolerance", "check", "choose_formulation", "dump", "dumps",
    "errors", "get_formulation", "load", "load_npz", "loads", "register", "save_npz", "solve",
]
