"""What a backend is, and the one place where cvxpy's ``solve`` is called."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import cvxpy as cp

from ..tolerances import Tolerance

# cvxpy status -> gaussqp status; anything else maps to "failed" (explicit fallback).
STATUS_MAP = {
    cp.OPTIMAL: "solved",
    cp.OPTIMAL_INACCURATE: "inaccurate",
    cp.INFEASIBLE: "infeasible",
    cp.INFEASIBLE_INACCURATE: "infeasible",
    cp.UNBOUNDED: "unbounded",
    cp.UNBOUNDED_INACCURATE: "unbounded",
}


@dataclass(frozen=True)
class Backend:
    """A solver reached through cvxpy, with its capabilities as data."""

    name: str
    cvxpy_name: str
    module: str
    pip: str
    supports: frozenset
    settings: Callable[[Tolerance], dict]


def run_cvxpy(prob: cp.Problem, backend: Backend, tol: Tolerance) -> tuple[str, dict]:
    """Solve ``prob`` with ``backend`` at tolerance ``tol``.

    Returns (gaussqp status, info). A backend exception is caught and reported as
    status "failed" with its message, so no backend exception leaks.
    """
    info: dict = {"backend": backend.name, "settings": backend.settings(tol)}
    t0 = time.perf_counter()
    try:
        prob.solve(solver=backend.cvxpy_name, **info["settings"])
    except (cp.error.SolverError, ValueError, ArithmeticError) as exc:
        info["error"] = f"{type(exc).__name__}: {exc}"
        info["time_total"] = time.perf_counter() - t0
        return "failed", info
    info["time_total"] = time.perf_counter() - t0
    info["cvxpy_status"] = prob.status
    stats = prob.solver_stats
    info["time_solve"] = getattr(stats, "solve_time", None)
    info["time_setup"] = getattr(stats, "setup_time", None)
    info["iterations"] = getattr(stats, "num_iters", None)
    return STATUS_MAP.get(prob.status, "failed"), info
