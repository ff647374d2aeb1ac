"""Backend registry: conic/QP solvers reached through cvxpy.

Each backend module (``<name>_.py``, never shadowing the solver's own package) declares a
:class:`Backend` with its capabilities as data; the dict order of :data:`BACKENDS` is the
preference order. :func:`get_backend` raises an error that says what to install.

Every cvxpy program of gaussqp is solved through :func:`solve_program` (backend choice, then
:func:`~gaussqp.backends.base.run_cvxpy`: tolerances, verbosity, silencing of C output, timing,
status mapping, one retry at a looser preset).

Lazy imports: ``import gaussqp`` loads neither cvxpy (nor the scipy.stats it pulls in) nor a solver
package. One idiom throughout the package, plain function-level imports: a function that builds or solves a cvxpy
program starts with ``import cvxpy as cp``; likewise ``from scipy.optimize import linprog`` where an LP is solved,
``scipy.linalg``, ``scipy.sparse.linalg`` and ``scipy.sparse.csgraph`` where a factorization or a graph needs them,
and the importers' ``import mujoco`` / ``h5py`` (``gaussqp.io.pinocchio``, which users import to use Pinocchio,
imports it at its own import). A module that names cvxpy types in annotations imports cvxpy under
``if TYPE_CHECKING:`` only. The first call pays cvxpy's import once; later calls find it in ``sys.modules``.
:data:`BACKENDS` is plain data; :func:`installed` (and so :func:`get_backend`) imports cvxpy, since it asks
cvxpy which solvers it sees. ``tests/test_import_time.py`` checks what ``import gaussqp`` leaves unloaded.
"""

from __future__ import annotations

import functools
import importlib.util
from typing import TYPE_CHECKING

from ..errors import UnknownSolverError
from ..settings import Tolerance, get_tolerance
from .base import Backend, run_cvxpy
from .clarabel_ import CLARABEL
from .daqp_ import DAQP
from .osqp_ import OSQP
from .scs_ import SCS

if TYPE_CHECKING:  # annotations only
    import cvxpy as cp

BACKENDS: dict[str, Backend] = {b.name: b for b in (CLARABEL, OSQP, SCS)}

#: The small dense path: compiled QP solvers that F1/F2 call directly, never through cvxpy, on small dense
#: programs with ``M ≻ 0`` when no solver is named (:data:`gaussqp.settings.FAST_QP_SIZE_MAX`; DAQP is a dependency of gaussqp, and
#: without it these programs go to Clarabel). Not in :data:`BACKENDS`: ``solver=`` and the studies' routes name the cvxpy backends, and a fast
#: answer is only ever a first attempt that Clarabel replaces when it fails or is not certified.
FAST_BACKENDS: dict[str, Backend] = {DAQP.name: DAQP}


def installed(backend: Backend) -> bool:
    """True when the solver's Python package is importable and cvxpy sees it (asked once per process: cvxpy's
    ``installed_solvers`` tries to import every solver it knows, ~1 ms a call)."""
    return _installed(backend.module, backend.cvxpy_name)


@functools.lru_cache(maxsize=None)
def _installed(module: str, cvxpy_name: str) -> bool:
    if importlib.util.find_spec(module) is None:
        return False
    import cvxpy as cp

    return cvxpy_name in cp.installed_solvers()


@functools.lru_cache(maxsize=None)
def _importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def direct_backend(name: str | None, needs: str, allowed: tuple[str, ...]) -> Backend | None:
    """The backend a direct path (one that calls the solver without cvxpy) uses for ``name``, or None: the backend
    :func:`get_backend` would choose — ``name`` itself, or for None the first of :data:`BACKENDS` that supports
    ``needs`` and whose package is importable — when it is one of ``allowed``. Decided without importing cvxpy (its
    import is ~1 s of a fresh process), so a backend cvxpy does not see may still be called directly."""
    if name is None:
        b = next((b for b in BACKENDS.values() if needs in b.supports and _importable(b.module)), None)
    else:
        b = BACKENDS.get(name.lower())
    if b is None or b.name not in allowed or needs not in b.supports or not _importable(b.module):
        return None
    return b


def fast_backend(solver: str | None, allowed: tuple[str, ...]) -> Backend | None:
    """The first backend of :data:`FAST_BACKENDS` named in ``allowed`` whose package is importable, when no solver is
    named (``solver`` None); else None (a named solver is always the one used). Decided without importing it."""
    if solver is not None:
        return None
    return next((b for k, b in FAST_BACKENDS.items() if k in allowed and _importable(b.module)), None)


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
        raise UnknownSolverError(
            f"solver {b.name!r} does not support {needs}: "
            f"use one of {', '.join(k for k, v in BACKENDS.items() if needs in v.supports)}"
        )
    return b


def solve_program(
    prob: cp.Problem, solver: Backend | str | None, tol: Tolerance | str | None, needs: str = "qp"
) -> tuple[Backend, str, dict]:
    """Solve the cvxpy program ``prob``: the single path of every program in gaussqp.

    Parameters
    ----------
    prob : cvxpy.Problem
    solver : a :class:`Backend` already chosen (a caller solving many programs resolves it once), a backend
        name, or None for the first installed backend that supports ``needs``
    tol : a :class:`~gaussqp.settings.Tolerance` or the name of a preset
    needs : "qp" or "socp"

    Returns
    -------
    (backend, status, info) : the backend used, the gaussqp status string ("solved", "inaccurate",
        "infeasible", "unbounded" or "failed"; never an exception from the backend) and the
        backend's report (attempts, times, iterations).
    """
    backend = solver if isinstance(solver, Backend) else get_backend(solver, needs=needs)
    status, info = run_cvxpy(prob, backend, get_tolerance(tol))
    return backend, status, info


__all__ = [
    "BACKENDS",
    "Backend",
    "FAST_BACKENDS",
    "direct_backend",
    "fast_backend",
    "get_backend",
    "installed",
    "run_cvxpy",
    "solve_program",
]
