"""DAQP (a dual active-set QP solver in C, a dependency of gaussqp): the small dense path of F1/F2.

The equilibrated program of :func:`gaussqp.formulations.gauss_qp.solve_acceleration_program` (tutorial (5), (15),
(27); the Gauss principle),

.. math:: \\min_x \\tfrac12 x^T P x + f^T x \\quad\\text{s.t.}\\quad E x + e = 0,\\; G x + g \\ge 0,

is handed to DAQP in its own form ``blower <= A x <= bupper`` with ``A = [E; G]``, the rows of ``E`` marked as
equalities (``sense`` 5), ``blower = [−e; −g]``, ``bupper = [−e; +∞]``. DAQP's multipliers satisfy
``P x + f + Aᵀy = 0`` with ``y < 0`` on an active lower bound, so the forces (the convention of the cvxpy path,
``M a + F = Jᵀλ``) are ``λ_eq = −y_E`` and ``λ_in = −y_G``. A dual active-set method ends on a *working set*: the
inequality rows with ``y_G ≠ 0``; it is returned as :attr:`FastAnswer.active` and handed to the judge's polish
(:func:`gaussqp.certificates.polish.polish`) instead of a guess; an answer already within round-off of that set's
KKT system is not polished again.

Used only when no solver is named, ``M ≻ 0`` (DAQP factors ``P``) and the problem is dense and small
(:data:`gaussqp.settings.FAST_QP_SIZE_MAX`); only exit flag 1 (optimal) is an answer: anything else — infeasible
(−1), cycling, iteration limit, a non-convex ``P``, an exception, the package absent — is ``failed`` and Clarabel's
direct path solves the program. Nothing here is believed: the judge checks every answer, and an answer it does not
certify is solved again by Clarabel (:meth:`gaussqp.formulations.base.Formulation.solve`).

Why DAQP and not ProxQP (proxsuite), both measured on the humanoid's QP (``benchmarks/control_rates.py``): DAQP
0.035 ms, ProxQP 0.22 ms, direct Clarabel 0.8 ms; DAQP's answer is the exact solution of the KKT system of its
working set (gap 5e-15 to the certified answer, ProxQP's 3e-11 at ``eps_abs`` 1e-9), and that working set is the
active set the certificates need; DAQP is one small C library with no dependency (proxsuite is a C++ build of Eigen,
simde and its own QP layers, a ~10× larger wheel).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .base import Backend

#: DAQP's exit flag of an optimal solution (its documentation: 1 optimal, 2 soft optimal, −1 infeasible, −2 cycling,
#: −3 unbounded, −4 iteration limit, −5 non-convex, −6 infeasible initial active set)
DAQP_OPTIMAL = 1


def _settings(tol):
    return {"primal_tol": tol.solver, "iter_limit": 1000}


DAQP = Backend(
    name="daqp",
    cvxpy_name="DAQP",
    module="daqp",
    pip="daqp (a dependency of gaussqp: pip install daqp)",
    supports=frozenset({"qp"}),
    settings=_settings,
)


@dataclass
class FastAnswer:
    """What :func:`solve_daqp` returns: gaussqp ``status`` ("solved" or "failed"), ``x`` and the multipliers of the
    equality and inequality rows in the cvxpy path's convention (None unless solved), ``active`` the inequality
    rows of DAQP's final working set (a boolean mask; None unless solved), and DAQP's report."""

    status: str
    x: np.ndarray | None
    y_eq: np.ndarray | None
    y_in: np.ndarray | None
    active: np.ndarray | None
    info: dict


def solve_daqp(
    P: np.ndarray, f: np.ndarray, E: np.ndarray, e: np.ndarray, G: np.ndarray, g: np.ndarray, settings: dict
) -> FastAnswer:
    """Solve ``min ½xᵀPx + fᵀx s.t. E x + e = 0, G x + g >= 0`` (dense, ``P ≻ 0``) with DAQP at ``settings``
    (:attr:`DAQP.settings`). Never raises for a solver failure or an absent package: it is a ``failed`` answer.

    Parameters
    ----------
    P : (n, n) symmetric positive definite
    f : (n,)
    E, e : (me, n), (me,) equality rows
    G, g : (mi, n), (mi,) inequality rows

    Returns
    -------
    FastAnswer
    """
    t0 = time.perf_counter()
    info: dict = {"backend": "daqp", "direct": True}
    me, mi = int(np.size(e)), int(np.size(g))
    n = int(np.size(f))
    try:
        import daqp

        A = np.ascontiguousarray(np.vstack([np.reshape(E, (me, n)), np.reshape(G, (mi, n))]), dtype=float)
        lo = np.concatenate([-np.asarray(e, dtype=float), -np.asarray(g, dtype=float)])
        hi = np.concatenate([-np.asarray(e, dtype=float), np.full(mi, np.inf)])
        sense = np.concatenate([np.full(me, 5), np.zeros(mi)]).astype(np.int32)
        x, _, flag, out = daqp.solve(
            np.array(P, dtype=float, order="C"), np.array(f, dtype=float), A, hi, lo, sense, **settings
        )
    except (ImportError, ValueError, ArithmeticError, RuntimeError, TypeError) as exc:  # Clarabel takes over
        info["error"] = f"{type(exc).__name__}: {exc}"
        info["time_total"] = time.perf_counter() - t0
        return FastAnswer("failed", None, None, None, None, info)
    info.update(
        {
            "status": int(flag),
            "time_solve": float(out.get("solve_time", 0.0)) + float(out.get("setup_time", 0.0)),
            "iterations": int(out.get("iterations", -1)),
        }
    )
    info["time_total"] = time.perf_counter() - t0
    x = np.asarray(x, dtype=float)
    y = np.asarray(out.get("lam"), dtype=float)
    if (
        flag != DAQP_OPTIMAL
        or x.shape != (n,)
        or y.shape != (me + mi,)
        or not (np.isfinite(x).all() and np.isfinite(y).all())
    ):
        return FastAnswer("failed", None, None, None, None, info)
    return FastAnswer("solved", x, -y[:me], -y[me:], y[me:] != 0.0, info)


__all__ = ["DAQP", "DAQP_OPTIMAL", "FastAnswer", "solve_daqp"]
