"""Result objects: :class:`Solution`, :class:`Certificate` and the residuals we recompute.

In the spirit of ``scipy.optimize.OptimizeResult`` and ``qpsolvers.Solution``: a solution
keeps its problem and recomputes its own residuals in the original variables (never
copied from a solver's report). Raw solver output goes in ``extras``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from .model.problem import ContactProblem
from .model.scales import data_scales, relative

# Statuses, grouped as cvxpy does.
SOLVED, INFEASIBLE, UNBOUNDED, INACCURATE, FAILED = "solved", "infeasible", "unbounded", "inaccurate", "failed"
STATUSES = (SOLVED, INFEASIBLE, UNBOUNDED, INACCURATE, FAILED)
SOLUTION_PRESENT = (SOLVED, INACCURATE)
INF_OR_UNB = (INFEASIBLE, UNBOUNDED)


@dataclass(frozen=True)
class Certificate:
    """A criterion evaluated on the data, with its source and consequence.

    ``holds`` is True/False, or None when the criterion does not apply (its premises
    fail; ``implies`` then says why). ``margin`` is signed: positive means the criterion
    holds with that slack, negative that it fails by that much.
    """

    id: str
    source: str
    holds: bool | None
    margin: float
    implies: str
    name: str = ""
    data: dict = field(default_factory=dict)

    def as_dict(self, with_data: bool = False) -> dict:
        d = {"id": self.id, "name": self.name, "source": self.source,
             "holds": None if self.holds is None else bool(self.holds),
             "margin": _json_float(self.margin), "implies": self.implies}
        if with_data and self.data:
            d["data"] = {k: _jsonable(v) for k, v in self.data.items()}
        return d


def _json_float(x):
    if x is None:
        return None
    x = float(x)
    if np.isnan(x):
        return None
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _jsonable(v):
    if isinstance(v, np.ndarray):
        return [_jsonable(x) for x in v.tolist()] if v.ndim else _json_float(v)
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (np.floating, float)):
        return _json_float(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    return v


def _mul(A, x):
    return np.asarray(A @ x).ravel()


def kkt_residuals(problem: ContactProblem, a: np.ndarray, lam_n: np.ndarray, lam_t: np.ndarray) -> dict:
    """Residuals of (a, λ) in the original variables, each row judged at its own scale from the data.

    The scales are those of :func:`gaussqp.model.scales.data_scales` (never the magnitude of the answer
    being judged, never the largest row alone). With ``g = J_n a + b``, ``r = M a + F - J_nᵀλ_n - J_tᵀλ_t``
    and the dimensionless multipliers ``λ̂_i = λ_i ‖(J S)_i‖∞ / force``:

    - dynamics: ``max_j |r_j| / (|M_j| S accel + |F_j| + (|J|ᵀ|λ|)_j)``
    - primal: ``max_i`` of ``|g_i|`` (bilateral), ``max(0, -g_i)`` (unilateral), ``|T_k a + c_k|``
      (sticking tangent rows), each divided by its row's scale ``|J_i| S accel + |b_i|``
    - dual: ``max_i max(0, -λ̂_i)`` over unilateral rows
    - complementarity: ``max_i min(|λ̂_i|, |g_i| / scale_i)`` over unilateral rows (the natural map)
    - sliding law (when there are sliding contacts): ``max_i ‖λ_t,i + μ_i |λ_n,i| s_i‖∞ ‖(J_n S)_i‖∞ / force``
      (tutorial (35)).

    Friction-cone checks of sticking contacts are separate certificates (``coulomb_cones``).
    """
    sc = data_scales(problem)
    lam_n = np.asarray(lam_n, dtype=float)
    lam_t_flat = np.asarray(lam_t, dtype=float).ravel()
    Jn, Jt = problem.J_n, problem.J_t
    gen = _mul(Jn.T, lam_n) if problem.m else np.zeros(problem.n)
    gen_abs = np.asarray(abs(Jn.T) @ np.abs(lam_n)).ravel() if problem.m else np.zeros(problem.n)
    if Jt.shape[0]:
        gen = gen + _mul(Jt.T, lam_t_flat)
        gen_abs = gen_abs + np.asarray(abs(Jt.T) @ np.abs(lam_t_flat)).ravel()
    r = _mul(problem.M, a) + problem.F - gen
    g = (_mul(Jn, a) + problem.normal_drift) if problem.m else np.zeros(0)
    B, U = problem.bilateral, problem.unilateral
    gh = relative(g, sc.normal_row) * np.sign(g)
    viol = [np.abs(gh[B]).max(initial=0.0), np.maximum(0.0, -gh[U]).max(initial=0.0)]
    rt = problem.tangent_rows(problem.sticking)
    if rt.size:
        ut = _mul(Jt[rt], a) + problem.tangent_drift[rt]
        viol.append(relative(ut, sc.tangent_row[rt]).max(initial=0.0))
    lam_hat = lam_n * sc.normal_weight / sc.force
    out = {
        "dynamics": float(relative(r, sc.dynamics_row + gen_abs).max(initial=0.0)),
        "primal": float(max(viol)),
        "dual": float(np.maximum(0.0, -lam_hat[U]).max(initial=0.0)),
        "complementarity": float(np.minimum(np.abs(lam_hat[U]), np.abs(gh[U])).max(initial=0.0)),
    }
    Sl = problem.sliding
    if len(Sl):
        lt = lam_t_flat.reshape(problem.m, -1)
        law = [np.abs(lt[i] + problem.friction[i] * abs(lam_n[i]) * problem.slip[i]).max() * sc.normal_weight[i]
               for i in Sl]
        out["sliding_law"] = float(max(law)) / sc.force
    return out


@dataclass
class Solution:
    """Outcome of one formulation on one problem.

    Attributes
    ----------
    status : one of ``solved, infeasible, unbounded, inaccurate, failed``
    acceleration : (n,) or None
    lambda_normal : (m,) normal multipliers in input order, or None
    lambda_tangent : (m, d-1) tangential multipliers (zero rows for frictionless contacts), or None
    generalized_force : (n,) ``J_nᵀλ_n + J_tᵀλ_t`` (equals ``M a + F`` at a solution)
    residuals : recomputed by :func:`kkt_residuals` (or of the certificate for inf/unb)
    certificates : list of :class:`Certificate` (structural and instance)
    unique : {"acceleration", "generalized_force", "multipliers"} -> bool | None
    crosscheck : report of the cross-check against another route, or None
    extras : raw solver output and intermediate matrices
    """

    problem: ContactProblem
    status: str
    formulation: str
    solver: str
    acceleration: np.ndarray | None = None
    lambda_normal: np.ndarray | None = None
    lambda_tangent: np.ndarray | None = None
    residuals: dict = field(default_factory=dict)
    certificates: list[Certificate] = field(default_factory=list)
    unique: dict = field(default_factory=lambda: {"acceleration": None, "generalized_force": None, "multipliers": None})
    crosscheck: dict | None = None
    times: dict = field(default_factory=dict)
    message: str = ""
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def success(self) -> bool:
        return self.status == SOLVED

    @property
    def generalized_force(self) -> np.ndarray | None:
        if self.lambda_normal is None:
            return None
        p = self.problem
        gen = np.asarray(p.J_n.T @ self.lambda_normal).ravel() if p.m else np.zeros(p.n)
        if p.J_t.shape[0] and self.lambda_tangent is not None:
            gen = gen + np.asarray(p.J_t.T @ self.lambda_tangent.ravel()).ravel()
        return gen

    def certificate(self, cid: str) -> Certificate | None:
        """The first certificate whose id is ``cid`` (or None)."""
        for c in self.certificates:
            if c.id == cid:
                return c
        return None

    def max_residual(self) -> float:
        return max(self.residuals.values()) if self.residuals else float("inf")

    @property
    def certified(self) -> bool:
        """True when the status is backed by a verified instance certificate and no cross-check disagreed.

        :func:`gaussqp.solve` keeps ``status == "solved"`` only for such answers (a failed residual or
        forward-error check, or a disagreeing route, makes it ``inaccurate``), so for a user the status
        alone is honest; ``certified`` also covers infeasible and unbounded verdicts."""
        if self.status == SOLVED:
            ok = self.certificate("kkt_residuals")
            fe = self.certificate("forward_error")
            base = ok is not None and bool(ok.holds) and (fe is None or bool(fe.holds))
        elif self.status == INFEASIBLE:
            c = (self.certificate("farkas") or self.certificate("coulomb_farkas")
                 or self.certificate("sliding_enumeration"))
            base = c is not None and bool(c.holds)
        elif self.status == UNBOUNDED:
            c = self.certificate("unbounded_ray")
            base = c is not None and bool(c.holds)
        else:
            base = False
        if self.crosscheck is not None and self.crosscheck.get("agree") is False:
            return False
        return base

    def as_dict(self) -> dict:
        """The JSON object printed by ``gaussqp solve --json``."""
        p = self.problem
        fr = p.modes != "frictionless"
        lam_t = []
        for i in range(p.m):
            lam_t.append([] if not fr[i] or self.lambda_tangent is None else _jsonable(self.lambda_tangent[i]))
        return {
            "problem": p.name,
            "status": self.status,
            "certified": self.certified,
            "formulation": self.formulation,
            "solver": self.solver,
            "acceleration": _jsonable(self.acceleration) if self.acceleration is not None else None,
            "lambda_normal": _jsonable(self.lambda_normal) if self.lambda_normal is not None else None,
            "lambda_tangent": lam_t if self.lambda_normal is not None else None,
            "generalized_force": _jsonable(self.generalized_force) if self.lambda_normal is not None else None,
            "residuals": {k: _json_float(v) for k, v in self.residuals.items()},
            "unique": _jsonable(dict(self.unique)),
            "certificates": [c.as_dict() for c in self.certificates],
            "crosscheck": _jsonable(self.crosscheck) if self.crosscheck is not None else None,
            **({"sticking": self.extras["sticking"].as_dict()} if "sticking" in self.extras else {}),
            **({"friction_bounds": [b.as_dict() for b in self.extras["friction_bounds"]]}
               if "friction_bounds" in self.extras else {}),
            **({"route": self.extras["route"]} if "route" in self.extras else {}),
            "times": {k: _json_float(v) for k, v in self.times.items()},
            "message": self.message,
        }

    def __repr__(self) -> str:
        return (f"Solution(status={self.status!r}, formulation={self.formulation!r}, solver={self.solver!r}, "
                f"max_residual={self.max_residual():.2e})")


def lambda_tangent_matrix(problem: ContactProblem, lam_t_flat: np.ndarray | None) -> np.ndarray:
    """Reshape a flat tangent multiplier vector (m (d-1),) to (m, d-1)."""
    d1 = problem.dimension - 1
    if lam_t_flat is None:
        return np.zeros((problem.m, d1))
    return np.asarray(lam_t_flat, dtype=float).reshape(problem.m, d1)


def assemble_multipliers(problem: ContactProblem, lam_eq: np.ndarray, lam_in: np.ndarray):
    """Map multipliers ordered as ``problem.equalities`` / ``problem.inequalities`` to (λ_n, λ_t)."""
    mb = len(problem.bilateral)
    lam_n = np.zeros(problem.m)
    lam_n[problem.bilateral] = lam_eq[:mb]
    lam_n[problem.unilateral] = lam_in
    lam_t = np.zeros(problem.m * (problem.dimension - 1))
    lam_t[problem.tangent_rows(problem.sticking)] = lam_eq[mb:]
    return lam_n, lambda_tangent_matrix(problem, lam_t)


def dense(A) -> np.ndarray:
    return A.toarray() if sp.issparse(A) else np.asarray(A)
