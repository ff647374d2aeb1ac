"""Polyhedral-cone decisions by LP plus rank tests (docs/DESIGN.md §4.1).

All LPs are solved with SciPy's HiGHS (``scipy.optimize.linprog``) and every answer is
re-verified in NumPy at the data's scale before it is believed. HiGHS drops matrix coefficients
below 1e-9 and works to feasibility tolerances of 1e-7, so no LP is handed the raw data: the cone
LPs run on the orthonormal factor ``U`` of ``B = U Σ Vᵀ`` (``y = V Σ⁻¹ x``, so ``B y = U x``, a
change of variables that keeps every decision and is perfectly conditioned), the Farkas LP on
row- and column-equilibrated data. An answer that fails its NumPy check is undecided: the cone
functions raise ``UndecidedError`` (a ``RuntimeError``) (never a decision), :func:`farkas_vector` returns None.

Lazy imports (the idiom of :mod:`gaussqp.backends`): ``scipy.optimize`` is imported inside the functions
that use it, not when this module is imported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dense import as_dense, normalize_rows, null_space, rank_and_null_space, smallest_singular_value
from ..errors import UndecidedError
from ..settings import VERIFY_RTOL, ROUND_OFF, RAY_SUBSETS_MAX, EQUILIBRATION_PASSES, HIGHS_ACTIVE_RTOL, LP_VALUE_TOL


@dataclass(frozen=True)
class ConeTest:
    """Outcome of ``{v : E v = 0, G v >= 0} == {0}?``.

    ``trivial`` is the answer; ``margin`` is σ_min of ``G Z`` (Z an orthonormal basis of
    ker E) when the cone is trivial — how far the cone is from opening — and the negative
    LP value (or 0 for a lineality direction) when it is not; ``witness`` is a unit nonzero
    element of the cone when there is one.
    """

    trivial: bool
    margin: float
    witness: np.ndarray | None
    detail: str


def _equilibrate(A: np.ndarray, passes: int = EQUILIBRATION_PASSES) -> tuple[np.ndarray, np.ndarray]:
    """Row and column scalings ``(r, c)`` making ``diag(r) A diag(c)`` balanced: geometric-mean passes
    (each row, then each column, divided by the geometric mean of its smallest and largest nonzero
    magnitude) — which brings a coefficient that is tiny relative to its row *and* its column up to the
    others' size — then every column divided by its largest magnitude. Entries at round-off of the largest
    (``ROUND_OFF``) are left out of the statistics; rows/columns without any other keep 1."""
    m, n = A.shape
    r, c = np.ones(m), np.ones(n)
    absA = np.abs(A)
    nz = absA > ROUND_OFF * absA.max(initial=0.0)  # round-off entries do not steer the scaling
    if not nz.any():
        return r, c
    for _ in range(passes):
        S = absA * r[:, None] * c[None, :]
        big = np.where(nz, S, 0.0).max(axis=1)
        small = np.where(nz, S, np.inf).min(axis=1)
        r = r / np.where(big > 0, np.sqrt(big * np.where(np.isfinite(small), small, 1.0)), 1.0)
        S = absA * r[:, None] * c[None, :]
        big = np.where(nz, S, 0.0).max(axis=0)
        small = np.where(nz, S, np.inf).min(axis=0)
        c = c / np.where(big > 0, np.sqrt(big * np.where(np.isfinite(small), small, 1.0)), 1.0)
    big = (absA * r[:, None] * c[None, :]).max(axis=0)
    c = c / np.where(big > 0, big, 1.0)
    return r, c


def _lp(c, A_ub, b_ub, A_eq, b_eq, free: bool = False):
    """``linprog(method="highs")`` on the equilibrated LP (:func:`_equilibrate` on the stacked constraint
    matrix; variables free or ``>= 0``, bounds a column scaling leaves alone). Returns ``(x, active,
    message)``: the unscaled ``x`` (None when HiGHS fails) and the inequality rows with a nonzero dual
    (their sign pattern is all the callers use — the values are re-solved in NumPy)."""
    from scipy.optimize import linprog

    mu = A_ub.shape[0]
    r, col = _equilibrate(np.vstack([A_ub, A_eq]))
    cs = col * c
    res = linprog(
        cs / max(float(np.abs(cs).max()), np.finfo(float).tiny),
        A_ub=r[:mu, None] * A_ub * col,
        b_ub=r[:mu] * b_ub,
        A_eq=r[mu:, None] * A_eq * col,
        b_eq=r[mu:] * b_eq,
        bounds=(None, None) if free else (0, None),
        method="highs",
    )
    if res.status != 0:  # HiGHS failed on the equilibrated LP: the raw one (its answer is checked all the same)
        r, col = np.ones_like(r), np.ones_like(col)
        res = linprog(
            c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=(None, None) if free else (0, None), method="highs"
        )
    if res.status != 0:
        return None, None, res.message
    return col * res.x, np.asarray(res.ineqlin.marginals) < 0, res.message


def lp_dual_bound(
    res,
    c: np.ndarray,
    A_ub: np.ndarray,
    b_ub: np.ndarray,
    A_eq: np.ndarray | None = None,
    b_eq: np.ndarray | None = None,
    nonnegative: np.ndarray | None = None,
) -> float | None:
    """A lower bound on ``min cᵀx s.t. A_ub x <= b_ub, A_eq x = b_eq, x_i >= 0 (i in nonnegative)``, proven in
    NumPy from the duals HiGHS returned with ``res`` (``scipy.optimize.linprog``), or None when they prove nothing.

    With ``w = res.ineqlin.marginals`` (clipped to ``<= 0``) and ``u = res.eqlin.marginals``, the reduced cost
    ``r = c - A_ubᵀw - A_eqᵀu`` must vanish on every free variable and be ``>= 0`` on the nonnegative ones,
    each coordinate up to :data:`VERIFY_RTOL` times the magnitude of its own terms (``|c| + |A_ub|ᵀ|w| +
    |A_eq|ᵀ|u|``). Then for every feasible x, ``cᵀx = wᵀA_ub x + uᵀb_eq + rᵀx >= b_ubᵀw + b_eqᵀu`` (weak
    duality, scipy's sign convention: ``w = ∂ min / ∂ b_ub <= 0``). The LP's claimed optimum is never
    believed on its own."""
    if res is None or res.status != 0 or getattr(res, "ineqlin", None) is None:
        return None
    c = np.asarray(c, dtype=float)
    A_ub = np.asarray(A_ub, dtype=float).reshape(-1, c.size)
    w = np.minimum(np.asarray(res.ineqlin.marginals, dtype=float), 0.0)
    if w.size != A_ub.shape[0] or not np.all(np.isfinite(w)):
        return None
    r = c - A_ub.T @ w
    terms = np.abs(c) + np.abs(A_ub).T @ np.abs(w)
    bound = float(np.asarray(b_ub, dtype=float) @ w)
    if A_eq is not None and np.asarray(A_eq).size:
        A_eq = np.asarray(A_eq, dtype=float).reshape(-1, c.size)
        u = np.asarray(res.eqlin.marginals, dtype=float)
        if u.size != A_eq.shape[0] or not np.all(np.isfinite(u)):
            return None
        r = r - A_eq.T @ u
        terms = terms + np.abs(A_eq).T @ np.abs(u)
        bound += float(np.asarray(b_eq, dtype=float) @ u)
    tol = VERIFY_RTOL * terms
    nn = np.zeros(c.size, dtype=bool) if nonnegative is None else np.asarray(nonnegative, dtype=bool)
    ok = np.all(np.abs(r[~nn]) <= tol[~nn]) and np.all(r[nn] >= -tol[nn])
    return bound if ok else None


def _on_kernel(G: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """``B = G Z`` with the entries that are round-off of the product (``|B_ij| <= max(1e3, n)·eps·‖G_i‖``,
    Z orthonormal) set to 0: the LPs are equilibrated, which would otherwise blow them up to size 1."""
    B = G @ Z
    cut = max(ROUND_OFF, G.shape[1] * np.finfo(float).eps) * np.linalg.norm(G, axis=1)
    B[np.abs(B) <= cut[:, None]] = 0.0
    return B


def _orthonormal_coordinates(B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(U, W)`` with ``B = U Σ Vᵀ`` (thin SVD) and ``W = V Σ⁻¹``, so ``B (W x) = U x``: for ``B`` of full
    column rank the LP over ``y`` becomes an LP over ``x`` whose constraint matrix ``U`` has orthonormal
    columns — no coefficient HiGHS would drop, no ill-conditioning left for its tolerances (:func:`_lp`
    then equilibrates its rows and columns as for every LP)."""
    U, sv, Vt = np.linalg.svd(B, full_matrices=False)
    return U, Vt.T / sv[None, :]


def _project_active(U: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``x`` moved (minimum norm) onto ``U_A x = 0`` for the rows ``A`` that HiGHS left at its tolerance
    (``|U_i x| <= 1e-6 max|U x|``): removes the solver's 1e-7-level infeasibility so the check runs at
    round-off (a larger violation is left for the check to reject)."""
    ux = U @ x
    A = np.abs(ux) <= HIGHS_ACTIVE_RTOL * float(np.abs(ux).max(initial=0.0))
    if not A.any():
        return x
    return x - np.linalg.lstsq(U[A], ux[A], rcond=None)[0]


def _rows_nonnegative(B: np.ndarray, y: np.ndarray) -> bool:
    """``B y >= 0`` row by row up to the round-off of each row, ``ROUND_OFF ‖B_i‖ ‖y‖``."""
    return bool(np.all(B @ y >= -ROUND_OFF * np.linalg.norm(B, axis=1) * np.linalg.norm(y)))


def cone_is_trivial(E: np.ndarray, G: np.ndarray, n: int, *, kernel: np.ndarray | None = None) -> ConeTest:
    """Decide ``{v ∈ Rⁿ : E v = 0, G v >= 0} = {0}`` exactly: a rank test, then one LP.

    With Z a basis of ker E and ``B = G Z``: the cone is ``Z {y : B y >= 0}``. If ``B`` has a
    kernel the cone contains a line (not trivial). Otherwise ``y ↦ B y`` is injective and
    the cone is trivial iff ``max 1ᵀ B y s.t. 0 <= B y <= 1`` is 0. A nonzero value is believed
    with its witness checked row by row; the value 0 with a Stiemke vector ``λ > 0``, ``Bᵀλ = 0``
    checked column by column. Raises ``UndecidedError`` (a ``RuntimeError``) ("undecided") when neither check passes.
    ``kernel``: Z when the caller has it (orthonormal columns, ker of E with its rows normalized, the rank rule of
    :func:`gaussqp.linalg.dense.null_space`).
    """
    G = normalize_rows(as_dense(G).reshape(-1, n))
    # rows normalized: the reference s_max is ‖E‖₂ >= 1 (or E = 0)
    Z = kernel if kernel is not None else null_space(normalize_rows(as_dense(E).reshape(-1, n)))
    k = Z.shape[1]
    if k == 0:
        return ConeTest(True, float("inf"), None, "ker E = {0}")
    B = _on_kernel(G, Z)
    rank, K = rank_and_null_space(B, scale=1.0)  # one SVD, one cut: a rank deficit has a kernel vector
    if rank < k:
        v = Z @ K[:, 0]  # unit: Z and K have orthonormal columns
        return ConeTest(False, 0.0, v, "the cone contains a line (rank test)")
    U, W = _orthonormal_coordinates(B)
    m = B.shape[0]
    x, _, message = _lp(
        -U.sum(axis=0),
        np.vstack([-U, U]),
        np.concatenate([np.zeros(m), np.ones(m)]),
        np.zeros((0, k)),
        np.zeros(0),
        free=True,
    )
    if x is None:
        raise UndecidedError(f"cone LP failed (undecided): {message}")
    val = float(U.sum(axis=0) @ x)
    if val > LP_VALUE_TOL:
        y = W @ _project_active(U, x)
        if _is_witness(B, y):
            v = Z @ y
            return ConeTest(False, -val, v / np.linalg.norm(v), "LP found a nonzero cone element")
    else:
        # trivial: a Stiemke vector λ > 0 with Bᵀλ = 0 proves B y >= 0 ⇒ B y = 0 ⇒ y = 0 (full column rank)
        lam = _gordan_vector(U)
        if lam is not None:
            lam = _polish_stiemke(B, lam)
        if lam is not None and np.all(np.abs(B.T @ lam) <= VERIFY_RTOL * (np.abs(B).T @ lam)):
            return ConeTest(True, smallest_singular_value(B), None, "pointed and LP value 0")
    # HiGHS's answer failed its check (a cone thin at the solver's tolerances): the extreme rays decide
    y = _extreme_ray(B)
    if y is None:
        return ConeTest(True, smallest_singular_value(B), None, "pointed, no extreme ray (enumeration)")
    v = Z @ y
    return ConeTest(
        False,
        -float((B @ y / np.abs(B @ y).max()).sum()),
        v / np.linalg.norm(v),
        "an extreme ray of the cone (enumeration)",
    )


def _is_witness(B: np.ndarray, y: np.ndarray) -> bool:
    """``B y >= 0`` at each row's round-off and ``B y`` not itself round-off."""
    return _rows_nonnegative(B, y) and float((B @ y).max()) > VERIFY_RTOL * float(
        np.linalg.norm(B, axis=1).max() * np.linalg.norm(y)
    )


def _extreme_ray(B: np.ndarray) -> np.ndarray | None:
    """A nonzero ``y`` with ``B y >= 0`` (``B`` of full column rank k), or None when there is none.

    A pointed cone other than {0} has an extreme ray, which spans the kernel of ``k - 1`` linearly
    independent rows of ``B``: every such subset's kernel direction ±d is tried, checked row by row with
    :func:`_is_witness`. Raises ``UndecidedError`` (a ``RuntimeError``) (undecided) beyond :data:`RAY_SUBSETS_MAX` subsets."""
    from itertools import combinations
    from math import comb

    m, k = B.shape
    if comb(m, k - 1) > RAY_SUBSETS_MAX:
        raise UndecidedError(
            f"cone LP answer fails its check and {comb(m, k - 1)} row subsets are too many to enumerate (undecided)"
        )
    for S in combinations(range(m), k - 1):
        rank, N = rank_and_null_space(B[list(S)].reshape(k - 1, k), scale=1.0)
        if rank < k - 1:
            continue
        for d in (N[:, 0], -N[:, 0]):
            if _is_witness(B, d):
                return d
    return None


def _gordan_vector(U: np.ndarray) -> np.ndarray | None:
    """``λ > 0`` with ``Uᵀλ = 0`` (Stiemke: then ``U x >= 0`` only for ``U x = 0``), found as
    ``max s`` s.t. ``λ_i >= s >= 0``, ``Uᵀλ = 0``, ``1ᵀλ = 1``; None when HiGHS finds none."""
    m, k = U.shape
    A_ub = np.hstack([-np.eye(m), np.ones((m, 1))])  # s - λ_i <= 0
    A_eq = np.vstack([np.hstack([U.T, np.zeros((k, 1))]), np.concatenate([np.ones(m), [0.0]])[None, :]])
    x, _, _ = _lp(np.concatenate([np.zeros(m), [-1.0]]), A_ub, np.zeros(m), A_eq, np.concatenate([np.zeros(k), [1.0]]))
    return None if x is None else x[:m]  # its positivity is checked after :func:`_polish_stiemke`


def _polish_stiemke(B: np.ndarray, lam: np.ndarray) -> np.ndarray | None:
    """``λ`` re-solved so that ``Bᵀλ = 0`` holds at each column's round-off: the ``k`` smallest entries of
    ``λ`` (those a normwise solve gets wrong) are solved from ``B_Sᵀ λ_S = -B_Nᵀ λ_N`` by LU with the others
    fixed. None when that basis is singular or the solution is not positive."""
    k = B.shape[1]
    order = np.argsort(lam)
    S, N = order[:k], order[k:]
    try:
        lam_S = np.linalg.solve(B[S].T, -B[N].T @ lam[N])
    except np.linalg.LinAlgError:
        return None
    out = lam.copy()
    out[S] = lam_S
    return out if np.all(np.isfinite(out)) and out.min() > 0 else None


def min_linear_on_cone(E: np.ndarray, G: np.ndarray, f: np.ndarray, n: int) -> tuple[float, np.ndarray | None]:
    """min fᵀv over the cone ``{E v = 0, G v >= 0}`` normalized by ``1ᵀ G v = 1`` (pointed cones).

    Used for the variants "Fᵀv > 0 for all nonzero v in the cone" (singular Props 3(ii),
    4(ii), 6(ii)). Returns (value, argmin); a line in the cone returns ``-|fᵀv|`` for a line
    direction (the strict condition fails on one of ±v). The LP's value is believed only with its
    primal (rows of ``B y >= 0``, ``1ᵀB y = 1``) and dual (``λ >= 0``, no gap) checked in NumPy;
    raises ``UndecidedError`` (a ``RuntimeError``) ("undecided") otherwise.
    """
    En = normalize_rows(as_dense(E).reshape(-1, n))
    Gn = normalize_rows(as_dense(G).reshape(-1, n))
    Z = null_space(En)  # rows normalized: the reference s_max is ‖En‖₂ >= 1 (or En = 0)
    k = Z.shape[1]
    if k == 0:
        return float("inf"), None
    B = _on_kernel(Gn, Z)
    rank, K = rank_and_null_space(B, scale=1.0)  # one SVD, one cut: a rank deficit has a kernel vector
    if rank < k:
        v = Z @ K[:, 0]  # unit: Z and K have orthonormal columns
        fv = float(f @ v)
        return -abs(fv), (v if fv <= 0 else -v)
    fz = Z.T @ f
    U, W = _orthonormal_coordinates(B)
    g = W.T @ fz  # fzᵀ y = gᵀ x
    one = U.sum(axis=0)
    x_lp, A, message = _lp(g, -U, np.zeros(U.shape[0]), one[None, :], np.ones(1), free=True)
    if x_lp is None:
        raise UndecidedError(f"cone LP failed (undecided): {message}")
    # HiGHS's active set A (rows with a nonzero dual), the values re-solved in NumPy:
    # primal U_A x = 0, 1ᵀU x = 1; dual g = U_Aᵀλ_A + t Uᵀ1
    x = np.linalg.lstsq(np.vstack([U[A], one[None, :]]), np.concatenate([np.zeros(int(A.sum())), [1.0]]), rcond=None)[0]
    if not _rows_nonnegative(B, W @ x):
        x = x_lp
    sol = np.linalg.lstsq(np.hstack([U[A].T, one[:, None]]), g, rcond=None)[0]
    lam = np.zeros(U.shape[0])
    lam[A], t = sol[:-1], float(sol[-1])
    y = W @ x
    val = float(fz @ y)
    # primal: B y >= 0 row by row and 1ᵀB y = 1; dual: g = Uᵀλ + t Uᵀ1 with λ >= 0 and gᵀx = t (no gap)
    by = B @ y
    ok = (
        _rows_nonnegative(B, y)
        and abs(float(by.sum()) - 1.0)
        <= VERIFY_RTOL * max(1.0, float(np.linalg.norm(B, axis=1).sum() * np.linalg.norm(y)))
        and np.all(lam >= 0)
        and np.all(
            np.abs(g - U.T @ lam - t * one) <= VERIFY_RTOL * (np.abs(g) + np.abs(U).T @ lam + abs(t) * np.abs(one))
        )
        and abs(float(g @ x) - t) <= VERIFY_RTOL * max(float(np.abs(g) @ np.abs(x)), abs(t))
    )
    if not ok:
        raise UndecidedError("cone LP answer fails its primal/dual verification (undecided)")
    return val, Z @ y


def farkas_vector(E: np.ndarray, e: np.ndarray, G: np.ndarray, g: np.ndarray):
    """A Farkas vector proving ``{a : E a + e = 0, G a + g >= 0} = ∅``, or None.

    Finds ``y = (y_E free, y_G >= 0)`` with ``Eᵀy_E + Gᵀy_G = 0`` and ``eᵀy_E + gᵀy_G = -1``,
    minimizing ‖y‖₁. (If a were feasible, ``0 = yᵀ(J a) = yᵀ(J a + b) - yᵀb >= 1``.)
    The LP is equilibrated (:func:`_lp`); the vector is returned only if ``Jᵀy = 0`` holds per
    coordinate at its round-off ``(|J|ᵀ|y|)_j``, ``y_G >= 0`` and ``bᵀy < 0`` beyond its round-off
    (rescaled to ``bᵀy = -1``). None means "no verified vector", which is not a proof of feasibility.
    """
    E, G = as_dense(E), as_dense(G)
    pe, pg = E.shape[0], G.shape[0]
    if pe + pg == 0:
        return None
    J = np.vstack([E, G])
    b = np.concatenate([e, g])
    # variables: y_E = u - v (u, v >= 0), y_G >= 0 (the LP is equilibrated by _lp)
    A_eq = np.vstack([np.hstack([J[:pe].T, -J[:pe].T, J[pe:].T]), np.concatenate([b[:pe], -b[:pe], b[pe:]])[None, :]])
    b_eq = np.concatenate([np.zeros(J.shape[1]), [-1.0]])
    x, _, _ = _lp(np.ones(2 * pe + pg), np.zeros((0, 2 * pe + pg)), np.zeros(0), A_eq, b_eq)
    if x is None:
        return None
    y = np.concatenate([x[:pe] - x[pe : 2 * pe], x[2 * pe :]])
    # verified in the data: Jᵀy = 0 per coordinate at its round-off, bᵀy < 0 beyond its round-off, y_G >= 0
    by = float(b @ y)
    if not (
        np.all(np.isfinite(y))
        and np.all(y[pe:] >= 0)
        and np.all(np.abs(J.T @ y) <= VERIFY_RTOL * (np.abs(J).T @ np.abs(y)))
        and by < -VERIFY_RTOL * float(np.abs(b) @ np.abs(y))
    ):
        return None
    return y / -by


def unbounded_ray(R: np.ndarray, F: np.ndarray, E: np.ndarray, G: np.ndarray):
    """A ray ``v`` with ``M v = 0`` (``R v = 0``), ``E v = 0``, ``G v >= 0``, ``Fᵀv = -1``, or None.

    Along it ``½ aᵀMa + Fᵀa`` decreases without bound from any feasible point: the failure
    of C3(ii) (singular Props 3, 4, 6).
    """
    n = F.size
    Eall = np.vstack([normalize_rows(as_dense(R).reshape(-1, n)), normalize_rows(as_dense(E).reshape(-1, n))])
    Z = null_space(Eall)  # rows normalized: the reference s_max is ‖Eall‖₂ >= 1 (or Eall = 0)
    k = Z.shape[1]
    if k == 0:
        return None
    B = _on_kernel(as_dense(G).reshape(-1, n), Z)
    fz = Z.T @ F
    # y = u - w, min 1ᵀ(u + w) s.t. B(u - w) >= 0, fzᵀ(u - w) = -1
    x, _, _ = _lp(
        np.ones(2 * k), np.hstack([-B, B]), np.zeros(B.shape[0]), np.concatenate([fz, -fz])[None, :], -np.ones(1)
    )
    if x is None:
        return None
    return Z @ (x[:k] - x[k:])
