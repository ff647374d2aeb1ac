"""Backend registry: conic/QP solvers reached through cvxpy.

Each backend module (``<name>_.py``, never shadowing the solver's own package) declares a
:class:`Backend` with its capabilities as data; the dict order of :data:`BACKENDS` is the
preference order. :func:`get_backend` raises an error that says what to install.
"""

from __future__ import annotations

import importlib.util

from ..errors import UnknownSolverError
from .base import Backend, run_cvxpy
from .clarabel_ import CLARABEL
from .osqp_ import OSQP
from .scs_ import SCS

BACKENDS: dict[str, Backend] = {b.name: b for b in (CLARABEL, OSQP, SCS)}


def installed(backend: Backend) -> bool:
    """True when the solver's Python package is importable and cvxpy sees it."""
    if importlib.util.find_spec(backend.module) is None:
        return False
    import cvxpy as cp

    return backend.cvxpy_name in cp.installed_solvers()


def get_backend(name: str | None, needs: str = "qp") -> Backend:
    """The backend called ``name`` (case-insensitive), or the first installed one that supports ``needs``."""
    if name is None:
        for b in BACKENDS.values():
            if needs in b.supports and installed(b):
                return b
        raise UnknownSolverError(f"no installed backend supports {needs}: pip install clarabel")
    key = name.lower()
    if key not in BACKENDS:
        raise UnknownSolverError(f"unknown solver {name!r}: use one of {', '.join(BACKENDS)}")
    b = BACKENDS[key]
    if not installed(b):
        raise UnknownSolverError(f"solver {b.name!r} is not installed: pip install {b.pip}")
    if needs not in b.supports:
        raise UnknownSolverError(f"solver {b.name!r} does not support {needs}: "
                                 f"use one of {', '.join(k for k, v in BACKENDS.items() if needs in v.supports)}")
    return b


__all__ = ["BACKENDS", "Backend", "get_backend", "installed", "run_cvxpy"]
