"""F1 — the Gauss-principle QP (valid for singular M and redundant rows).

.. math::

    \\min_a \\tfrac12 a^T M a + F^T a \\quad \\text{s.t.}\\quad
    J_b a + b_b = 0,\\; J_u a + b_u \\ge 0,\\; T_s a + c_s = 0 \\text{ (sticking rows)}

with ``M = RᵀR`` factored in NumPy so the objective is ``½‖R a‖² + Fᵀa`` (DPP: a problem
of the same structure re-solves without recompiling). Multipliers are the duals:
``λ_u = y_u`` and ``λ_b = -y_b`` in cvxpy's sign convention.

Notes
-----
tutorial (5), (15), (27) (Prop. 6: the MLCP (16) is equivalent to this program for any
rank of M); inertial (48), (56); singular (16), (21).

Lazy imports (the idiom of :mod:`gaussqp.backends`): cvxpy is imported inside the functions that use it,
not when this module is imported.
"""

from __future__ import annotations


import numpy as np
import scipy.sparse as sp

from ..linalg.dense import as_dense
from ..model.problem import ContactProblem
from ..model.system_class import SystemClass
from ..model.scales import data_scales
from ..results import SOLUTION_PRESENT, JudgeHints, Solution
from ..settings import DIRECT_QP_BACKENDS, FAST_QP_BACKENDS, FAST_QP_SIZE_MAX, PARAM_ENTRIES_MAX, Tolerance
from ..model.rows import assemble_multipliers
from ..backends import direct_backend, fast_backend, get_backend, solve_program
from ..backends.daqp_ import DAQP, solve_daqp
from ..backends.direct import solve_direct
from ..certificates.instance import multiplier_rows_independent
from .base import PROGRAMS, Formulation, common_reject


def _scale_rows_cols(A, rows: np.ndarray, cols: np.ndarray):
    """``diag(rows) A diag(cols)``, dense or sparse (a sparse one scaled entry by entry on a canonical CSR copy, as
    the two products with diagonal matrices would give, at a fraction of their cost)."""
    if sp.issparse(A):
        B = sp.csr_matrix(A, dtype=float, copy=True)
        B.sum_duplicates()
        B.data = (np.repeat(rows, np.diff(B.indptr)) * B.data) * cols[B.indices]
        return B
    return rows[:, None] * as_dense(A).reshape(rows.size, cols.size) * cols[None, :]


def _scale_cols(A, cols: np.ndarray):
    """``A diag(cols)``, dense or sparse."""
    if sp.issparse(A):
        return _scale_rows_cols(A, np.ones(A.shape[0]), cols)
    return as_dense(A).reshape(-1, cols.size) * cols[None, :]


def acceleration_program(n: int, r: int, me: int, mi: int, use_params: bool, data: dict | None = None, mass=None):
    """Build ``min ½‖R x‖² + fᵀx  s.t.  E x + e = 0, G x + g >= 0``.

    With ``use_params`` every datum is a cvxpy Parameter (DPP); otherwise ``data`` holds
    the constants (possibly scipy.sparse). With ``mass`` given, the quadratic term is
    ``½ quad_form(x, M)`` on the constant M instead (not DPP): the fallback used when a
    backend stalls on the cone reformulation cvxpy makes of ``½‖R x‖²``.
    Returns (problem, a, slots, eq_con, in_con).
    """
    import cvxpy as cp

    a = cp.Variable(n, name="a")
    if use_params:
        slots = {
            "R": cp.Parameter((r, n)) if r else None,
            "f": cp.Parameter(n),
            "E": cp.Parameter((me, n)) if me else None,
            "e": cp.Parameter(me) if me else None,
            "G": cp.Parameter((mi, n)) if mi else None,
            "g": cp.Parameter(mi) if mi else None,
        }
    else:
        slots = dict(data)
    obj = slots["f"] @ a
    if mass is not None:
        obj = obj + 0.5 * cp.quad_form(a, cp.psd_wrap(mass))
    elif r:
        obj = obj + 0.5 * cp.sum_squares(slots["R"] @ a)
    cons = []
    eq = in_ = None
    if me:
        eq = slots["E"] @ a + slots["e"] == 0
        cons.append(eq)
    if mi:
        in_ = slots["G"] @ a + slots["g"] >= 0
        cons.append(in_)
    return cp.Problem(cp.Minimize(obj), cons), a, slots, eq, in_


def solve_acceleration_program(
    problem: ContactProblem,
    name: str,
    shift: np.ndarray,
    f: np.ndarray,
    solver: str | None,
    tol: Tolerance,
    formulation: str,
    any_multipliers: bool = False,
) -> Solution:
    """Shared by F1 and F2: solve for ``x = a - shift`` (F1: shift 0, f = F; F2: shift = a_free, f = 0).

    The drifts are shifted accordingly (``e + E shift``, ``g + G shift``); the program is
    built once per structure and re-solved with new data (DPP); duals map to multipliers.

    The program is solved *equilibrated*: ``x = S x̃`` with the Jacobi scaling S of M,
    and every row divided by its weight ``w_i = ‖(J S)_i‖∞`` (:mod:`gaussqp.model.scales`), so a backend's
    absolute tolerances mean the same thing on every row, whatever its units. Multipliers map back
    as ``λ_i = λ̃_i / w_i``.

    ``any_multipliers``: any element of the multiplier set serves (a cross-check route, compared on the acceleration
    and ``Jᵀλ`` only): the small dense path is then also tried with dependent rows (:func:`fast_path_applies`).
    """
    fac = problem.mass_factor
    E, e = problem.equalities
    G, g = problem.inequalities
    n, r, me, mi = problem.n, fac.rank, E.shape[0], G.shape[0]
    use_params = not problem.sparse and n * (r + me + mi) <= PARAM_ENTRIES_MAX
    e = e + np.asarray(E @ shift).ravel() if me else e
    g = g + np.asarray(G @ shift).ravel() if mi else g
    sc = data_scales(problem)
    equilibrated = (sc.coordinate, sc.equality_weight, sc.inequality_weight)
    if fast_path_applies(problem, solver, any_multipliers):
        sol = _solve_fast(problem, shift, f, e, g, equilibrated, tol, formulation)
        if sol is not None:
            return sol
    direct = direct_backend(solver, "qp", DIRECT_QP_BACKENDS)  # decided without importing cvxpy
    if direct is not None:
        sol = _solve_direct(problem, direct, shift, f, e, g, equilibrated, tol, formulation)
        if sol is not None:
            return sol
    backend = get_backend(solver, needs="qp")
    # the equilibrated program first; if the backend stalls on both of its forms, the program as given
    # (an interior-point method can stall on one scaling of a degenerate problem and not on another)
    for attempt, (S, w_eq, w_in) in enumerate([equilibrated, (np.ones(n), np.ones(me), np.ones(mi))]):
        values = {
            "R": _scale_cols(fac.R, S),
            "f": S * f,
            "E": _scale_rows_cols(E, 1.0 / w_eq, S),
            "e": e / w_eq,
            "G": _scale_rows_cols(G, 1.0 / w_in, S),
            "g": g / w_in,
        }
        if use_params:
            (prob, a, slots, eq, in_), cached = PROGRAMS.get(
                (name, n, r, me, mi), lambda: acceleration_program(n, r, me, mi, True)
            )
            for k, v in values.items():
                if slots[k] is not None:
                    slots[k].value = as_dense(v).reshape(slots[k].shape)
        else:
            prob, a, slots, eq, in_ = acceleration_program(n, r, me, mi, False, values)
            cached = False
        backend, status, info = solve_program(prob, backend, tol)
        if status == "failed":
            prob, a, slots, eq, in_ = acceleration_program(
                n, r, me, mi, False, values, mass=_scale_rows_cols(problem.M, S, S)
            )
            backend, status, info = solve_program(prob, backend, tol)
            info["fallback"] = "quad_form on constant M after the DPP program stalled"
            cached = False
        if status != "failed":
            break
    if attempt:
        info["fallback"] = info.get("fallback", "") + "; unequilibrated program after the equilibrated one stalled"
    sol = Solution(
        problem=problem,
        status=status,
        formulation=formulation,
        solver=backend.name,
        extras={"backend": info, "compiled_program_reused": cached, "dpp": use_params},
    )
    sol.timing.detail = {"backend_total": info.get("time_total"), "backend_solve": info.get("time_solve")}
    if status in SOLUTION_PRESENT and a.value is not None:
        y_eq = -np.asarray(eq.dual_value).ravel() / w_eq if eq is not None else np.zeros(0)
        y_in = np.asarray(in_.dual_value).ravel() / w_in if in_ is not None else np.zeros(0)
        sol.acceleration = S * np.asarray(a.value).ravel() + shift
        sol.lambda_normal, sol.lambda_tangent = assemble_multipliers(problem, y_eq, y_in)
    elif status in SOLUTION_PRESENT:
        sol.status = "failed"
        sol.message = "backend returned no primal point"
    if "error" in info:
        sol.message = info["error"]
    return sol


def _solve_direct(
    problem: ContactProblem,
    backend,
    shift: np.ndarray,
    f: np.ndarray,
    e: np.ndarray,
    g: np.ndarray,
    scaling: tuple,
    tol: Tolerance,
    formulation: str,
) -> Solution | None:
    """The equilibrated program of :func:`solve_acceleration_program` through the direct path
    (:mod:`gaussqp.backends.direct`, ``P = S M S``), or None when it did not end solved, infeasible or unbounded
    (the cvxpy program then solves it)."""
    S, w_eq, w_in = scaling
    E, _ = problem.equalities
    G, _ = problem.inequalities
    ans = solve_direct(
        backend.name,
        _scale_rows_cols(problem.M, S, S),
        S * f,
        _scale_rows_cols(E, 1.0 / w_eq, S),
        e / w_eq,
        _scale_rows_cols(G, 1.0 / w_in, S),
        g / w_in,
        tol,
        backend.settings(tol),
    )
    if ans.status == "failed":
        return None
    sol = Solution(
        problem=problem,
        status=ans.status,
        formulation=formulation,
        solver=backend.name,
        extras={"backend": ans.info, "compiled_program_reused": ans.reused, "dpp": False, "direct": True},
    )
    sol.timing.detail = {"backend_total": ans.info.get("time_total"), "backend_solve": ans.info.get("time_solve")}
    if ans.x is not None:
        sol.acceleration = S * ans.x + shift
        sol.lambda_normal, sol.lambda_tangent = assemble_multipliers(problem, ans.y_eq / w_eq, ans.y_in / w_in)
    return sol


def fast_path_applies(problem: ContactProblem, solver: str | None, any_multipliers: bool = False) -> bool:
    """True when :func:`solve_acceleration_program` first tries the small dense path: no solver named, a
    fast backend installed (:data:`gaussqp.backends.FAST_BACKENDS`), ``M ≻ 0`` (its factor has full rank), every
    block dense, ``n + m_E + m_G <= FAST_QP_SIZE_MAX`` (:mod:`gaussqp.settings`), and independent multiplier rows
    ``[E; G]`` (:func:`~gaussqp.certificates.instance.multiplier_rows_independent`: never more rows than coordinates,
    else their rank on each row's own scale, kept per problem: C2 and the uniqueness decisions ask it too). With dependent rows the multipliers may form a set, of
    which an interior-point method returns the central element (gaussqp's answer so far) and an active-set method a
    vertex: both certified, but not the same answer; those problems stay with Clarabel. Decided on the data (the
    structure, the mass factor, the rows), never on an answer.

    With ``any_multipliers`` (a cross-check route: the comparison reads the acceleration and ``Jᵀλ``, unique when
    ``M ≻ 0``, never λ itself) the rows may be dependent: any certified element of the multiplier set serves, and an
    answer of DAQP the judge does not certify is solved again by Clarabel as on the path above."""
    if solver is not None or problem.sparse or problem.mass_factor.rank < problem.n:
        return False
    rows = problem.equalities[0].shape[0] + problem.inequalities[0].shape[0]
    if problem.n + rows > FAST_QP_SIZE_MAX or fast_backend(solver, FAST_QP_BACKENDS) is None:
        return False
    return any_multipliers or multiplier_rows_independent(problem)


def _solve_fast(
    problem: ContactProblem,
    shift: np.ndarray,
    f: np.ndarray,
    e: np.ndarray,
    g: np.ndarray,
    scaling: tuple,
    tol: Tolerance,
    formulation: str,
) -> Solution | None:
    """The equilibrated program of :func:`solve_acceleration_program` (``P = S M S``, rows divided by their weights)
    through DAQP (:func:`gaussqp.backends.daqp_.solve_daqp`), or None when DAQP did not end optimal (Clarabel's
    direct path then solves it). The answer carries DAQP's working set for the polish (``hints.active_set``) and
    ``extras["fast_path"]``, by which :meth:`~gaussqp.formulations.base.Formulation.solve` knows to solve again with
    Clarabel when the judge does not certify it."""
    S, w_eq, w_in = scaling
    E, _ = problem.equalities
    G, _ = problem.inequalities
    ans = solve_daqp(
        as_dense(_scale_rows_cols(problem.M, S, S)),
        S * f,
        as_dense(_scale_rows_cols(E, 1.0 / w_eq, S)),
        e / w_eq,
        as_dense(_scale_rows_cols(G, 1.0 / w_in, S)),
        g / w_in,
        DAQP.settings(tol),
    )
    if ans.status != "solved" or ans.x is None or ans.y_eq is None or ans.y_in is None:
        return None
    sol = Solution(
        problem=problem,
        status=ans.status,
        formulation=formulation,
        solver=DAQP.name,
        extras={"backend": ans.info, "compiled_program_reused": False, "dpp": False, "direct": True, "fast_path": True},
        hints=JudgeHints(active_set=ans.active),
    )
    sol.timing.detail = {"backend_total": ans.info.get("time_total"), "backend_solve": ans.info.get("time_solve")}
    sol.acceleration = S * ans.x + shift
    sol.lambda_normal, sol.lambda_tangent = assemble_multipliers(problem, ans.y_eq / w_eq, ans.y_in / w_in)
    return sol


class GaussQP(Formulation):
    name = "gauss_qp"
    id = "F1"
    crosscheck = "generic"
    title = "Gauss-principle QP"
    source = "tutorial (5)(15)(27); inertial (48)(56); singular (16)(21)"
    valid_when = "M ⪰ 0 of any rank, redundant rows allowed; frictionless or sticking (as equalities)"

    def accepts(self, problem: ContactProblem, cls: SystemClass) -> tuple[bool, str]:
        return common_reject(problem, cls, need_definite=False)

    def _solve(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        return solve_acceleration_program(
            problem, "acceleration", np.zeros(problem.n), np.array(problem.F), solver, tol, self.name
        )

    def _solve_compared(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        """:meth:`_solve` for a cross-check route: any element of the multiplier set (DAQP's vertex where the rows
        are dependent; :func:`fast_path_applies`)."""
        return solve_acceleration_program(
            problem, "acceleration", np.zeros(problem.n), np.array(problem.F), solver, tol, self.name, True
        )
