"""SCS (splitting conic solver; LP, QP, SOCP) through cvxpy, when installed."""

from .base import Backend


def _settings(tol):
    return {"eps_abs": max(tol.solver, 1e-9), "eps_rel": max(tol.solver, 1e-9), "max_iters": 200_000, "verbose": False}


SCS = Backend(
    name="scs", cvxpy_name="SCS", module="scs", pip="scs", supports=frozenset({"lp", "qp", "socp"}), settings=_settings
)
