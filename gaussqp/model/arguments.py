"""The arguments of the public entry points (:func:`gaussqp.solve`, :func:`gaussqp.check`) checked before any
work: a problem that is not one, a flag that is not a bool, a name that is not a string get a typed error naming
the argument and the fix, never an ``AttributeError`` from deep inside or a silently truthy ``"yes"``.
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import WrongTypeError
from .local_problem import LocalContactProblem
from .problem import ContactProblem
from .validation import short_repr

#: what to do with something that is not a problem
PROBLEM_FIX = (
    "give a gaussqp.ContactProblem: gaussqp.problems.load(name) for a shipped problem (`gaussqp list` "
    "names them), gaussqp.load(path) for a gaussqp/1 file, gaussqp.ContactProblem(M, F, contacts) "
    "to build one"
)


def check_problem(problem, field: str = "problem", *, local: bool = True):
    """``problem`` itself when it is a :class:`~gaussqp.ContactProblem` (or, with ``local``, a
    :class:`~gaussqp.LocalContactProblem`), else a typed error saying how to get one.

    Parameters
    ----------
    problem : object
        The argument to check.
    field : str
        Its name in the error message.
    local : bool
        Whether a local (Delassus) problem ``u = W r + q`` is accepted too.

    Returns
    -------
    ContactProblem or LocalContactProblem
        ``problem``, unchanged.

    Raises
    ------
    WrongTypeError
        For anything else; a string says how to load the shipped problem or the file it may name.
    """
    if isinstance(problem, ContactProblem) or (local and isinstance(problem, LocalContactProblem)):
        return problem
    if isinstance(problem, LocalContactProblem):
        raise WrongTypeError(
            field,
            "is a LocalContactProblem (u = W r + q): it has no mass matrix or rows to certify",
            "solve it with gaussqp.solve(problem); give a gaussqp.ContactProblem here",
        )
    if isinstance(problem, (str, os.PathLike)):
        name = os.fspath(problem)
        raise WrongTypeError(
            field,
            f"is the string {short_repr(name)}, not a problem",
            f"load it first: gaussqp.problems.load({name!r}) for a shipped problem, "
            f"gaussqp.load({name!r}) for a file (the CLI takes either: gaussqp solve {name})",
        )
    raise WrongTypeError(field, f"is {short_repr(problem)} (a {type(problem).__name__}), not a problem", PROBLEM_FIX)


def check_flag(value, field: str) -> bool:
    """``value`` as a bool when it is one (Python's or NumPy's), else a :class:`~gaussqp.errors.WrongTypeError`:
    ``"yes"``, ``0`` or ``None`` are not read as a truth value.

    Parameters
    ----------
    value : object
        The argument to check.
    field : str
        Its name in the error message.

    Returns
    -------
    bool
    """
    if not isinstance(value, (bool, np.bool_)):
        raise WrongTypeError(
            field, f"is {short_repr(value)} (a {type(value).__name__}), not a bool", "give True or False"
        )
    return bool(value)


def check_solve_arguments(problem, formulation, solver, crosscheck, certify) -> None:
    """The arguments of :func:`gaussqp.solve` whose type the later steps take for granted.

    Parameters
    ----------
    problem : object
        Must be a ContactProblem or a LocalContactProblem.
    formulation : object
        Must be a string ("auto" or a registered name; the name itself is checked by the registry).
    solver : object
        None or a string (the backend's name, checked by the backends).
    crosscheck, certify : object
        Must be bools.

    Raises
    ------
    WrongTypeError
        Naming the first argument of the wrong type and what to give instead.
    """
    check_problem(problem)
    if not isinstance(formulation, str):
        raise WrongTypeError(
            "formulation",
            f"is {short_repr(formulation)} (a {type(formulation).__name__}), not a string",
            "give 'auto' or a registered formulation name (gaussqp.FORMULATIONS)",
        )
    if solver is not None and not isinstance(solver, str):
        raise WrongTypeError(
            "solver",
            f"is {short_repr(solver)} (a {type(solver).__name__}), not a string",
            "give None (the first installed backend) or a backend name: 'clarabel', 'osqp', 'scs'",
        )
    check_flag(crosscheck, "crosscheck")
    check_flag(certify, "certify")
