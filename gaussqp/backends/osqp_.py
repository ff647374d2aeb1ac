"""OSQP (ADMM; LP, QP) through cvxpy, with solution polishing and tight tolerances.

OSQP's default ``eps_abs = eps_rel = 1e-3`` is far too loose for certificates; the
presets of :mod:`gaussqp.settings` are used instead.
"""

from importlib.metadata import PackageNotFoundError, version

from .base import Backend


def _polish_key() -> str:
    try:
        major = int(version("osqp").split(".")[0])
    except (PackageNotFoundError, ValueError):
        major = 1
    return "polishing" if major >= 1 else "polish"


def _settings(tol):
    return {
        "eps_abs": tol.solver,
        "eps_rel": tol.solver,
        "eps_prim_inf": 1e-9,
        "eps_dual_inf": 1e-9,
        "max_iter": 200_000,
        _polish_key(): True,
        "verbose": False,
    }


OSQP = Backend(
    name="osqp", cvxpy_name="OSQP", module="osqp", pip="osqp", supports=frozenset({"lp", "qp"}), settings=_settings
)
