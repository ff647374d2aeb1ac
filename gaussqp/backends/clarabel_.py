"""Clarabel (interior point; LP, QP, SOCP) through cvxpy."""

from .base import Backend


def _settings(tol):
    return {
        "tol_gap_abs": tol.solver,
        "tol_gap_rel": tol.solver,
        "tol_feas": tol.solver,
        "tol_infeas_abs": tol.solver,
        "tol_infeas_rel": tol.solver,
        "tol_ktratio": 1e-7,
        "max_iter": 500,
        "verbose": False,
    }


CLARABEL = Backend(
    name="clarabel",
    cvxpy_name="CLARABEL",
    module="clarabel",
    pip="clarabel",
    supports=frozenset({"lp", "qp", "socp"}),
    settings=_settings,
)
