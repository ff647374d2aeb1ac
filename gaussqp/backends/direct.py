"""The direct QP path: F1's and F2's program handed to Clarabel or OSQP without cvxpy.

The program of :func:`gaussqp.formulations.gauss_qp.solve_acceleration_program` (tutorial (5), (15), (27); the
Gauss principle) in the equilibrated variables,

.. math:: \\min_x \\tfrac12 x^T P x + f^T x \\quad\\text{s.t.}\\quad E x + e = 0,\\; G x + g \\ge 0,

is written in each solver's own standard form from the problem's blocks: Clarabel's ``A x + s = b``,
``s ∈ {0}^{m_e} × R_+^{m_i}`` with ``A = [E; −G]``, ``b = [−e; g]``; OSQP's ``l <= [E; G] x <= u``. ``P`` is
``S M S`` itself (upper triangle), not cvxpy's lifted ``½‖R x‖²`` (which makes the KKT matrix structurally dense).
The assembly's index arrays are kept per structure (sizes and sparsity patterns of P and A; dense blocks are given
with their full pattern so that another state of the same robot has the same structure); the solver object is new
for every solve, so that an answer depends on its problem alone (an updated object kept the previous
problem's state, and the same problem was ``inaccurate`` alone and ``solved`` after another of its structure).

Multipliers: Clarabel's ``P x + f + Aᵀz = 0`` gives ``λ_in = z_in``, ``λ_eq = −z_eq``; OSQP's ``P x + f + Aᵀy = 0``
with ``A = [E; G]`` gives ``λ_in = −y_G``, ``λ_eq = −y_E`` (the sign convention of the cvxpy path:
``M a + F = Jᵀλ``).

Only ``solved``, ``infeasible`` and ``unbounded`` answers are returned as they are; any other outcome (an
inaccurate answer, an iteration limit, a numerical error, an exception) is reported as ``failed`` so that the caller
falls back to the cvxpy program, which has its retries. Nothing here is believed: the judge
(:func:`gaussqp.certificates.judge.finalize`) checks every answer, and verifies an infeasible or unbounded claim
with its own Farkas vector or descent ray.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np
import scipy.sparse as sp

from ..linalg.dense import sparse_digest
from ..settings import DIRECT_PATTERN_CACHE, DIRECT_PATTERN_CACHE_N, Tolerance
from .base import Backend, ProgramCache, retry_presets, silence_c_stdout

#: kept for the public name only: no solver object is reused any more (see the module docstring)
SOLVERS = ProgramCache()

_CLARABEL_STATUS = {"Solved": "solved", "PrimalInfeasible": "infeasible", "DualInfeasible": "unbounded"}
_OSQP_STATUS = {"solved": "solved", "primal infeasible": "infeasible", "dual infeasible": "unbounded"}


@dataclass
class DirectAnswer:
    """What the direct path returns: gaussqp ``status``, ``x`` and the multipliers of the equality and inequality
    rows in the cvxpy path's convention (None unless solved), whether a cached solver object was updated, and the
    backend's report."""

    status: str
    x: np.ndarray | None
    y_eq: np.ndarray | None
    y_in: np.ndarray | None
    reused: bool
    info: dict


def _full_pattern(A) -> sp.csc_matrix:
    """``A`` as CSC with every entry of a dense block stored (a stable pattern), a sparse one as it is."""
    if sp.issparse(A):
        A = sp.csc_matrix(A, dtype=float)
        A.sort_indices()
        return A
    A = np.asarray(A, dtype=float)
    rows, cols = A.shape
    indptr = np.arange(0, rows * cols + 1, rows, dtype=np.int64) if rows else np.zeros(cols + 1, dtype=np.int64)
    indices = np.tile(np.arange(rows, dtype=np.int64), cols)
    return sp.csc_matrix((A.T.ravel().copy(), indices, indptr), shape=A.shape)


def _upper(P) -> sp.csc_matrix:
    """The upper triangle of the symmetric ``P`` with a stable pattern (dense: every upper entry stored)."""
    if sp.issparse(P):
        U = sp.triu(sp.csc_matrix(P, dtype=float), format="csc")
        U.sort_indices()
        return U
    P = np.asarray(P, dtype=float)
    n = P.shape[0]
    rows, cols, indptr = _triangle_pattern(n)
    return sp.csc_matrix((P[rows, cols], rows.copy(), indptr.copy()), shape=(n, n))


@dataclass(frozen=True)
class _Assembled:
    """The data of :func:`solve_direct` in a solver's standard form: ``P``'s upper triangle and ``A``'s entries in
    CSC order (``U_data``, ``A_data``: what ``update`` takes), ``pattern``, a key of their sparsity patterns, and
    ``matrices()`` the CSC matrices themselves (built only for a new solver object)."""

    U_data: np.ndarray
    A_data: np.ndarray
    pattern: tuple
    matrices: Callable[[], tuple[sp.csc_matrix, sp.csc_matrix]]


def _triangle_pattern(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every entry of an ``n × n`` upper triangle in CSC order: its row and column (to gather it from a dense
    matrix) and the triangle's ``indptr``. Read-only; kept for the sizes of small systems (up to
    :data:`DIRECT_PATTERN_CACHE_N`, where assembling is a visible part of a solve)."""
    return (_kept_triangle_pattern if n <= DIRECT_PATTERN_CACHE_N else _new_triangle_pattern)(n)


def _new_triangle_pattern(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cols = np.repeat(np.arange(n, dtype=np.int64), np.arange(1, n + 1))
    rows = np.concatenate([np.arange(j + 1, dtype=np.int64) for j in range(n)]) if n else np.zeros(0, dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(np.arange(1, n + 1))]).astype(np.int64)
    for a in (rows, cols, indptr):
        a.flags.writeable = False
    return rows, cols, indptr


_kept_triangle_pattern = lru_cache(maxsize=DIRECT_PATTERN_CACHE)(_new_triangle_pattern)


def _assemble(P, E, G, sign_G: float) -> _Assembled:
    """``P``'s upper triangle and ``A = [E; sign_G · G]`` with a stable pattern. Dense blocks store every entry (so
    another state of the same robot has the same structure): their entries in CSC order are gathered without a sparse
    matrix (the triangle with cached index arrays, ``A`` column by column), which :func:`_upper` and
    :func:`_full_pattern` build only for a new solver object; sparse ones keep their own pattern."""
    if not any(sp.issparse(B) for B in (P, E, G)):
        P = np.asarray(P, dtype=float)
        n = P.shape[0]
        A = np.vstack([np.asarray(E, dtype=float).reshape(-1, n), sign_G * np.asarray(G, dtype=float).reshape(-1, n)])
        rows, cols, _ = _triangle_pattern(n)
        return _Assembled(P[rows, cols], A.T.ravel(), ("dense", n, A.shape[0]), lambda: (_upper(P), _full_pattern(A)))
    U = _upper(P)
    Eb, Gb = _full_pattern(E), _full_pattern(G)
    A = sp.vstack([Eb, sign_G * Gb], format="csc")
    A.sort_indices()
    return _Assembled(U.data, A.data, ("sparse", sparse_digest(U, A)), lambda: (U, A))


def solve_direct(
    backend: str, P, f: np.ndarray, E, e: np.ndarray, G, g: np.ndarray, tol: Tolerance, settings: dict
) -> DirectAnswer:
    """Solve ``min ½xᵀPx + fᵀx s.t. E x + e = 0, G x + g >= 0`` with ``backend`` (``"clarabel"`` or ``"osqp"``)
    called directly, at the backend's ``settings`` for ``tol`` (:attr:`gaussqp.backends.base.Backend.settings`,
    the same as the cvxpy path's). Never raises for a solver failure: it is a ``failed`` answer."""
    t0 = time.perf_counter()
    me, mi = int(np.size(e)), int(np.size(g))
    info: dict = {"backend": backend, "direct": True}
    try:
        if backend == "clarabel":
            ans = _clarabel(_assemble(P, E, G, -1.0), f, e, g, me, mi, tol, settings, info)
        elif backend == "osqp":
            ans = _osqp(_assemble(P, E, G, 1.0), f, e, g, me, mi, tol, settings, info)
        else:
            raise ValueError(f"no direct path for {backend!r}")
    except (ValueError, ArithmeticError, RuntimeError, TypeError) as exc:  # the cvxpy path takes over
        info["error"] = f"{type(exc).__name__}: {exc}"
        ans = DirectAnswer("failed", None, None, None, False, info)
    info["time_total"] = time.perf_counter() - t0
    return ans


def _clarabel(data: _Assembled, f, e, g, me, mi, tol, settings, info) -> DirectAnswer:
    import clarabel

    b = np.concatenate([-np.asarray(e, dtype=float), np.asarray(g, dtype=float)])

    def build():
        s = clarabel.DefaultSettings()
        for k, v in settings.items():
            setattr(s, k, v)
        s.presolve_enable = False  # data updates need it off (rows are never removed here anyway)
        s.input_sparse_dropzeros = False
        cones = ([clarabel.ZeroConeT(me)] if me else []) + ([clarabel.NonnegativeConeT(mi)] if mi else [])
        U, A = data.matrices()
        with silence_c_stdout():
            return clarabel.DefaultSolver(U, np.asarray(f, dtype=float), A, b, cones, s)

    # a new solver object per solve: an updated one keeps its previous state (equilibration, warm start), and
    # solve(p) must be a function of p alone (the same problem was 'inaccurate' alone and 'solved'
    # after another of its structure); what is kept per structure is the assembly's index arrays
    solver, reused = build(), False
    with silence_c_stdout():
        sol = solver.solve()
    status = _CLARABEL_STATUS.get(str(sol.status), "failed")
    info.update(
        {
            "status": str(sol.status),
            "time_solve": float(sol.solve_time),
            "iterations": int(sol.iterations),
            "compiled_program_reused": reused,
        }
    )
    if status != "solved":
        return DirectAnswer(status, None, None, None, reused, info)
    z = np.asarray(sol.z, dtype=float)
    return DirectAnswer(status, np.asarray(sol.x, dtype=float), -z[:me], z[me:], reused, info)


def _osqp(data: _Assembled, f, e, g, me, mi, tol, settings, info) -> DirectAnswer:
    import osqp

    lo = np.concatenate([-np.asarray(e, dtype=float), -np.asarray(g, dtype=float)])
    hi = np.concatenate([-np.asarray(e, dtype=float), np.full(mi, np.inf)])

    def build():
        m = osqp.OSQP()
        U, A = data.matrices()
        with silence_c_stdout():
            m.setup(U, np.asarray(f, dtype=float), A, lo, hi, **settings)
        return m

    solver, reused = build(), False  # a new object per solve, as for Clarabel: no warm start from another problem
    with silence_c_stdout():
        try:  # OSQP >= 1.0: say that a failure is a status, not an exception (its default will change)
            res = solver.solve(raise_error=False)
        except TypeError:  # older OSQP: no such argument, a failure is a status
            res = solver.solve()
    text = str(res.info.status).lower()
    status = _OSQP_STATUS.get(text, "failed")
    info.update(
        {
            "status": res.info.status,
            "time_solve": float(res.info.solve_time),
            "iterations": int(res.info.iter),
            "compiled_program_reused": reused,
        }
    )
    if status != "solved" or res.x is None:
        return DirectAnswer(status if status != "solved" else "failed", None, None, None, reused, info)
    y = np.asarray(res.y, dtype=float)
    return DirectAnswer(status, np.asarray(res.x, dtype=float), -y[:me], -y[me:], reused, info)


# ---------------------------------------------------------------------------------------------- conic programs
#: after the looser preset, Clarabel's inaccurate statuses as cvxpy reads them (cvxpy's ``CLARABEL.STATUS_MAP``:
#: ``AlmostSolved`` is optimal_inaccurate, and so on); :data:`_CLARABEL_STATUS` are the ones that end a program
_CONIC_INACCURATE = {
    "AlmostSolved": "inaccurate",
    "AlmostPrimalInfeasible": "infeasible",
    "AlmostDualInfeasible": "unbounded",
}


def triplets(A) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
    """(rows, cols, values, shape) of the nonzero entries of ``A`` (dense or scipy.sparse), row by row for a dense
    array (``np.nonzero``'s order, the order ``scipy.sparse.coo_matrix`` gives it) without building a sparse matrix
    (~5 µs against ~50 µs on a 27 × 27 mass matrix)."""
    if isinstance(A, np.ndarray) and A.ndim == 2:
        A = np.asarray(A)  # a np.matrix as a plain array (its A[r, c] is a row)
        r, c = np.nonzero(A)
        return r.astype(np.int64), c.astype(np.int64), np.asarray(A[r, c], dtype=float), A.shape
    C = sp.coo_matrix(A)
    return C.row.astype(np.int64), C.col.astype(np.int64), np.asarray(C.data, dtype=float), C.shape


def csc_from_triplets(rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, shape: tuple[int, int]) -> sp.csc_matrix:
    """The CSC matrix of the triplets, duplicates summed and indices sorted: the entries, their values and their
    storage order of ``csc_matrix((vals, (rows, cols)))`` then ``sort_indices()`` (its index arrays are int64 here),
    built directly from one stable sort when no entry repeats (that conversion and its checks cost ~80 µs on the
    verdict's programs); with repeated entries, that conversion itself (its order of summation)."""
    nrows, ncols = int(shape[0]), int(shape[1])
    if len(vals) == 0:
        return sp.csc_matrix(shape)
    order = np.lexsort((rows, cols))
    r, c, v = rows[order], cols[order], vals[order]
    if ((r[1:] == r[:-1]) & (c[1:] == c[:-1])).any():  # rare: scipy sums the duplicates (its order of summation)
        out = sp.csc_matrix((vals, (rows, cols)), shape=(nrows, ncols))
        out.sort_indices()
        return out
    indptr = np.searchsorted(c, np.arange(ncols + 1)).astype(np.int64)
    out = sp.csc_matrix((v, r.astype(np.int64), indptr), shape=(nrows, ncols))
    out.has_sorted_indices = True
    return out


@dataclass
class RowBlock:
    """Rows of a conic program's ``A`` as triplets (row numbers local to the block), their count, their cone
    (``"zero"``, ``"nonneg"`` or ``"soc"``, with the sizes of its second-order cones in ``soc``) and their ``b``
    (None: zero)."""

    rows: np.ndarray
    cols: np.ndarray
    vals: np.ndarray
    nrows: int
    cone: str = "nonneg"
    soc: tuple = ()
    b: np.ndarray | None = None

    @classmethod
    def of(cls, A, cone: str = "nonneg", b: np.ndarray | None = None, soc: tuple = ()) -> "RowBlock":
        """The rows of the matrix ``A`` (dense or scipy.sparse; its nonzero entries) as a block of ``cone``."""
        r, c, v, shape = triplets(A)
        return cls(r, c, v, shape[0], cone, soc, None if b is None else np.asarray(b, dtype=float))


@dataclass
class ConicResult:
    """gaussqp status of a conic program, Clarabel's own status, and ``x`` when solved or inaccurate; ``z`` is
    Clarabel's dual vector (rows in :func:`solve_conic`'s order) when a point or an infeasibility certificate came back
    (``Aᵀz + Px + q = 0``, ``z ∈ K*`` at a solution; ``Aᵀz = 0``, ``bᵀz < 0``, ``z ∈ K*`` for ``infeasible``). Nothing
    in it is believed: a caller that reads a proof off ``z`` verifies it in NumPy."""

    status: str
    raw: str
    x: np.ndarray | None
    z: np.ndarray | None = None


def conic_presets(backend: Backend, tol: Tolerance) -> list[dict]:
    """The backend's settings for ``tol`` and for the next looser preset, the retry of
    :func:`gaussqp.backends.base.retry_presets` that every solve path makes; :func:`solve_conic`'s ``presets``."""
    return [backend.settings(t) for t in retry_presets(tol)]


def solve_conic(P, q: np.ndarray, blocks: list[RowBlock], ncols: int, presets: list[dict]) -> ConicResult:
    """``min ½xᵀPx + qᵀx`` s.t. ``A x + s = b``, ``s ∈ K`` with Clarabel, the rows given as :class:`RowBlock`
    (put in the order zero, nonnegative, second-order cones that Clarabel's cone list follows).

    ``P``: upper-triangular CSC or None (an LP/SOCP); ``presets``: Clarabel's settings for the tolerance and then
    for the next looser preset. ``Solved``, ``PrimalInfeasible``, ``DualInfeasible`` end the program at the first
    preset that reaches one; otherwise the last preset's status is read as cvxpy reads it (``AlmostSolved`` →
    ``inaccurate``, ``AlmostPrimalInfeasible`` → ``infeasible``, ``AlmostDualInfeasible`` → ``unbounded``, anything
    else or a Clarabel exception → ``failed``, which callers answer with their cvxpy program)."""
    import clarabel

    order = {"zero": 0, "nonneg": 1, "soc": 2}
    blocks = sorted(blocks, key=lambda B: order[B.cone])  # stable: the caller's order within a cone kind
    offsets = np.cumsum([0] + [B.nrows for B in blocks])
    rows = np.concatenate([B.rows + o for B, o in zip(blocks, offsets)]) if blocks else np.zeros(0, dtype=np.int64)
    cols = np.concatenate([B.cols for B in blocks]) if blocks else np.zeros(0, dtype=np.int64)
    vals = np.concatenate([B.vals for B in blocks]) if blocks else np.zeros(0)
    keep = vals != 0.0
    A = csc_from_triplets(rows[keep], cols[keep], vals[keep], (int(offsets[-1]), ncols))
    b = (
        np.concatenate([np.zeros(B.nrows) if B.b is None else np.asarray(B.b, dtype=float) for B in blocks])
        if blocks
        else np.zeros(0)
    )
    nz = sum(B.nrows for B in blocks if B.cone == "zero")
    nn = sum(B.nrows for B in blocks if B.cone == "nonneg")
    cones = (
        ([clarabel.ZeroConeT(nz)] if nz else [])
        + ([clarabel.NonnegativeConeT(nn)] if nn else [])
        + [clarabel.SecondOrderConeT(int(h)) for B in blocks if B.cone == "soc" for h in B.soc]
    )
    P = sp.csc_matrix((ncols, ncols)) if P is None else P
    raw = "not run"
    for settings in presets:
        s = clarabel.DefaultSettings()
        for name, v in settings.items():
            setattr(s, name, v)
        try:
            with silence_c_stdout():
                sol = clarabel.DefaultSolver(P, np.asarray(q, dtype=float), A, b, cones, s).solve()
        except (ValueError, ArithmeticError, RuntimeError, TypeError) as exc:
            return ConicResult("failed", f"{type(exc).__name__}: {exc}", None)
        raw = str(sol.status)
        if raw in _CLARABEL_STATUS:
            break
    status = _CLARABEL_STATUS.get(raw) or _CONIC_INACCURATE.get(raw, "failed")
    # a point comes with "solved" and, as through cvxpy, with "inaccurate" (the caller's own checks judge it)
    point = status in ("solved", "inaccurate")
    return ConicResult(
        status,
        raw,
        np.asarray(sol.x, dtype=float) if point else None,
        np.asarray(sol.z, dtype=float) if point or status == "infeasible" else None,
    )


__all__ = [
    "ConicResult",
    "DirectAnswer",
    "RowBlock",
    "SOLVERS",
    "conic_presets",
    "csc_from_triplets",
    "solve_conic",
    "solve_direct",
    "triplets",
]
