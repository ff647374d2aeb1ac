"""Polyhedral-cone decisions by LP plus rank tests (FORMULATIONS §3).

All LPs are solved with SciPy's HiGHS (``scipy.optimize.linprog``) and every answer is
re-verified in NumPy at the data's scale before it is believed. HiGHS drops matrix coefficients
below 1e-9 and works to feasibility tolerances of 1e-7, so no LP is handed the raw data: the cone
LPs run on the orthonormal factor ``U`` of ``B = U Σ Vᵀ`` (``y = V Σ⁻¹ x``, so ``B y = U x``, a
change of variables that keeps every decision and is perfectly conditioned), the Farkas LP on
row- and column-equilibrated data. An answer that fails its NumPy check is undecided: the cone
functions raise ``RuntimeError`` (never a decision), :func:`farkas_vector` returns None.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from .linalg import as_dense, normalize_rows, null_space, rank_and_null_space, smallest_singular_value


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


#: relative tolerance of the NumPy re-verification of every LP answer (each row at its own scale)
VERIFY_RTOL = 1e-9


def _equilibrate(A: np.ndarray, passes: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Row and column scalings ``(r, c)`` making ``diag(r) A diag(c)`` balanced: geometric-mean passes
    (each row, then each column, divided by the geometric mean of its smallest and largest nonzero
    magnitude) — which brings a coefficient that is tiny relative to its row *and* its column up to the
    others' size — then every column divided by its largest magnitude. Zero rows/columns keep 1."""
    m, n = A.shape
    r, c = np.ones(m), np.ones(n)
    absA = np.abs(A)
    nz = absA > 0
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


class _LPResult:
    """What the callers read of a ``linprog`` result, mapped back to the unscaled LP."""

    def __init__(self, status, message, x=None, fun=None, ineq=None, eq=None):
        self.status, self.message, self.x, self.fun = status, message, x, fun
        self.ineqlin = type("Marginals", (), {"marginals": ineq})()
        self.eqlin = type("Marginals", (), {"marginals": eq})()


def _lp(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=None):
    """``linprog(method="highs")`` on the equilibrated LP (:func:`_equilibrate` on the stacked constraint
    matrix, the objective scaled to max 1), its primal ``x``, value and duals mapped back."""
    c = np.asarray(c, dtype=float)
    n = c.size
    A_ub = np.zeros((0, n)) if A_ub is None else np.asarray(A_ub, dtype=float)
    A_eq = np.zeros((0, n)) if A_eq is None else np.asarray(A_eq, dtype=float)
    b_ub = np.zeros(0) if b_ub is None else np.asarray(b_ub, dtype=float)
    b_eq = np.zeros(0) if b_eq is None else np.asarray(b_eq, dtype=float)
    mu = A_ub.shape[0]
    r, col = _equilibrate(np.vstack([A_ub, A_eq]))
    alpha = float(np.abs(col * c).max(initial=0.0)) or 1.0
    bounds = [(None, None)] * n if bounds is None else bounds
    sb = [(None if lo is None else lo / cj, None if hi is None else hi / cj) for (lo, hi), cj in zip(bounds, col)]
    res = linprog(col * c / alpha,
                  A_ub=(r[:mu, None] * A_ub * col[None, :]) if mu else None, b_ub=r[:mu] * b_ub if mu else None,
                  A_eq=(r[mu:, None] * A_eq * col[None, :]) if A_eq.shape[0] else None,
                  b_eq=r[mu:] * b_eq if A_eq.shape[0] else None, bounds=sb, method="highs")
    if res.status != 0:
        return _LPResult(res.status, res.message)
    x = col * res.x
    ineq = alpha * r[:mu] * np.asarray(res.ineqlin.marginals) if mu else np.zeros(0)
    eq = alpha * r[mu:] * np.asarray(res.eqlin.marginals) if A_eq.shape[0] else np.zeros(0)
    return _LPResult(0, res.message, x, float(c @ x), ineq, eq)


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
    A = np.abs(ux) <= 1e-6 * float(np.abs(ux).max(initial=0.0))
    if not A.any():
        return x
    return x - np.linalg.lstsq(U[A], ux[A], rcond=None)[0]


def _rows_nonnegative(B: np.ndarray, W: np.ndarray, x: np.ndarray) -> bool:
    """``B y >= 0`` for ``y = W x``, row by row up to the round-off of each row, ``|B_i| |W| |x|``."""
    return bool(np.all(B @ (W @ x) >= -VERIFY_RTOL * (np.abs(B) @ (np.abs(W) @ np.abs(x)))))


def cone_is_trivial(E: np.ndarray, G: np.ndarray, n: int) -> ConeTest:
    """Decide ``{v ∈ Rⁿ : E v = 0, G v >= 0} = {0}`` exactly: a rank test, then one LP.

    With Z a basis of ker E and ``B = G Z``: the cone is ``Z {y : B y >= 0}``. If ``B`` has a
    kernel the cone contains a line (not trivial). Otherwise ``y ↦ B y`` is injective and
    the cone is trivial iff ``max 1ᵀ B y s.t. 0 <= B y <= 1`` is 0. A nonzero value is believed
    with its witness checked row by row; the value 0 with a Stiemke vector ``λ > 0``, ``Bᵀλ = 0``
    checked column by column. Raises ``RuntimeError`` ("undecided") when neither check passes.
    """
    E = normalize_rows(as_dense(E).reshape(-1, n))
    G = normalize_rows(as_dense(G).reshape(-1, n))
    Z = null_space(E, scale=max(1.0, float(np.linalg.norm(E, 2)) if E.size else 1.0))
    k = Z.shape[1]
    if k == 0:
        return ConeTest(True, float("inf"), None, "ker E = {0}")
    B = G @ Z
    rank, K = rank_and_null_space(B, scale=1.0)  # one SVD, one cut: a rank deficit has a kernel vector
    if rank < k:
        v = Z @ K[:, 0]
        return ConeTest(False, 0.0, v / np.linalg.norm(v), "the cone contains a line (rank test)")
    U, W = _orthonormal_coordinates(B)
    m = B.shape[0]
    res = _lp(-U.sum(axis=0), A_ub=np.vstack([-U, U]), b_ub=np.concatenate([np.zeros(m), np.ones(m)]),
              bounds=[(None, None)] * k)
    if res.status != 0:
        raise RuntimeError(f"cone LP failed (undecided): {res.message}")
    val = -float(res.fun)
    if val > 1e-9:
        x = _project_active(U, res.x)
        y = W @ x
        v = Z @ y
        # a witness: B y >= 0 at round-off of each row, and B y not round-off itself
        if _rows_nonnegative(B, W, x) and float((B @ y).max()) > VERIFY_RTOL * float((np.abs(B) @ (np.abs(W) @ np.abs(x))).max()):
            return ConeTest(False, -val, v / np.linalg.norm(v), "LP found a nonzero cone element")
        raise RuntimeError(f"cone LP found a witness that fails verification (undecided), LP value {val:.3g}")
    # trivial: a Stiemke vector λ > 0 with Bᵀλ = 0 proves B y >= 0 ⇒ B y = 0 ⇒ y = 0 (full column rank)
    lam = _gordan_vector(U)
    if lam is not None:
        lam = _polish_stiemke(B, lam)
    if lam is None or not np.all(np.abs(B.T @ lam) <= VERIFY_RTOL * (np.abs(B).T @ lam)):
        raise RuntimeError("cone LP value 0 but no verified vector λ > 0 with Bᵀλ = 0 (undecided)")
    return ConeTest(True, smallest_singular_value(B), None, "pointed and LP value 0")


def _gordan_vector(U: np.ndarray) -> np.ndarray | None:
    """``λ > 0`` with ``Uᵀλ = 0`` (Stiemke: then ``U x >= 0`` only for ``U x = 0``), found as
    ``max min_i λ_i`` s.t. ``Uᵀλ = 0``, ``1ᵀλ = 1``; None when HiGHS finds none with ``min λ > 0``."""
    m, k = U.shape
    A_ub = np.hstack([-np.eye(m), np.ones((m, 1))])  # s - λ_i <= 0
    A_eq = np.vstack([np.hstack([U.T, np.zeros((k, 1))]), np.concatenate([np.ones(m), [0.0]])[None, :]])
    res = _lp(np.concatenate([np.zeros(m), [-1.0]]), A_ub=A_ub, b_ub=np.zeros(m), A_eq=A_eq,
              b_eq=np.concatenate([np.zeros(k), [1.0]]), bounds=[(0, None)] * m + [(None, 1.0)])
    if res.status != 0:
        return None
    lam = res.x[:m] - U @ (U.T @ res.x[:m])  # exact projection onto ker Uᵀ (U has orthonormal columns)
    return lam if lam.min() > 0 else None


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
    raises ``RuntimeError`` ("undecided") otherwise.
    """
    En = normalize_rows(as_dense(E).reshape(-1, n))
    Gn = normalize_rows(as_dense(G).reshape(-1, n))
    Z = null_space(En, scale=max(1.0, float(np.linalg.norm(En, 2)) if En.size else 1.0))
    k = Z.shape[1]
    if k == 0:
        return float("inf"), None
    B = Gn @ Z
    rank, K = rank_and_null_space(B, scale=1.0)  # one SVD, one cut: a rank deficit has a kernel vector
    if rank < k:
        v = Z @ K[:, 0]
        v = v / np.linalg.norm(v)
        fv = float(f @ v)
        return -abs(fv), (v if fv <= 0 else -v)
    fz = Z.T @ f
    U, W = _orthonormal_coordinates(B)
    g = W.T @ fz  # fzᵀ y = gᵀ x
    gs = float(np.abs(g).max())
    res = _lp(g, A_ub=-U, b_ub=np.zeros(U.shape[0]), A_eq=U.sum(axis=0)[None, :], b_eq=[1.0],
              bounds=[(None, None)] * k)
    if res.status != 0:
        raise RuntimeError(f"cone LP failed (undecided): {res.message}")
    # HiGHS's answer polished on its active set: primal U_A x = 0, 1ᵀU x = 1; dual g = U_Aᵀλ_A + t Uᵀ1
    lam = -res.ineqlin.marginals
    t = float(res.eqlin.marginals[0])
    A = lam > 1e-9 * float(np.abs(lam).max(initial=0.0))
    one = U.sum(axis=0)
    x = np.linalg.lstsq(np.vstack([U[A], one[None, :]]), np.concatenate([np.zeros(int(A.sum())), [1.0]]),
                        rcond=None)[0]
    if not _rows_nonnegative(B, W, x):
        x = res.x
    sol = np.linalg.lstsq(np.hstack([U[A].T, one[:, None]]), g, rcond=None)[0]
    if np.all(sol[:-1] >= 0):
        lam = np.zeros_like(lam)
        lam[A], t = sol[:-1], float(sol[-1])
    y = W @ x
    val = float(fz @ y)
    # primal: B y >= 0 row by row and 1ᵀB y = 1; dual: g = Uᵀλ + t Uᵀ1 with λ >= 0 and gᵀx = t (no gap)
    by = B @ y
    ok = (_rows_nonnegative(B, W, x)
          and abs(float(by.sum()) - 1.0) <= VERIFY_RTOL * max(1.0, float((np.abs(B) @ (np.abs(W) @ np.abs(x))).sum()))
          and np.all(lam >= -VERIFY_RTOL * (gs + abs(t)))
          and np.all(np.abs(g - U.T @ np.maximum(lam, 0.0) - t * U.sum(axis=0))
                     <= VERIFY_RTOL * (gs + np.abs(U).T @ np.abs(lam) + abs(t) * np.abs(U).sum(axis=0)))
          and abs(float(g @ x) - t) <= VERIFY_RTOL * max(float(np.abs(g) @ np.abs(x)), abs(t), 1e-300))
    if not ok:
        raise RuntimeError("cone LP answer fails its primal/dual verification (undecided)")
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
    A_eq = np.vstack([np.hstack([J[:pe].T, -J[:pe].T, J[pe:].T]),
                      np.concatenate([b[:pe], -b[:pe], b[pe:]])[None, :]])
    b_eq = np.concatenate([np.zeros(J.shape[1]), [-1.0]])
    res = _lp(np.ones(2 * pe + pg), A_eq=A_eq, b_eq=b_eq, bounds=[(0, None)] * (2 * pe + pg))
    if res.status != 0:
        return None
    x = res.x
    y = np.concatenate([x[:pe] - x[pe:2 * pe], x[2 * pe:]])
    # verified in the data: Jᵀy = 0 per coordinate at its round-off, bᵀy < 0 beyond its round-off, y_G >= 0
    by = float(b @ y)
    if not (np.all(np.isfinite(y)) and np.all(y[pe:] >= 0)
            and np.all(np.abs(J.T @ y) <= VERIFY_RTOL * (np.abs(J).T @ np.abs(y)))
            and by < -VERIFY_RTOL * float(np.abs(b) @ np.abs(y))):
        return None
    return y / -by


def unbounded_ray(R: np.ndarray, F: np.ndarray, E: np.ndarray, G: np.ndarray):
    """A ray ``v`` with ``M v = 0`` (``R v = 0``), ``E v = 0``, ``G v >= 0``, ``Fᵀv = -1``, or None.

    Along it ``½ aᵀMa + Fᵀa`` decreases without bound from any feasible point: the failure
    of C3(ii) (singular Props 3, 4, 6).
    """
    n = F.size
    Eall = np.vstack([normalize_rows(as_dense(R).reshape(-1, n)), normalize_rows(as_dense(E).reshape(-1, n))])
    Z = null_space(Eall, scale=max(1.0, float(np.linalg.norm(Eall, 2)) if Eall.size else 1.0))
    k = Z.shape[1]
    if k == 0:
        return None
    B = as_dense(G).reshape(-1, n) @ Z
    fz = Z.T @ F
    # y = u - w, min 1ᵀ(u + w) s.t. B(u - w) >= 0, fzᵀ(u - w) = -1
    res = _lp(np.ones(2 * k), A_ub=np.hstack([-B, B]) if B.shape[0] else None,
              b_ub=np.zeros(B.shape[0]) if B.shape[0] else None,
              A_eq=np.concatenate([fz, -fz])[None, :], b_eq=[-1.0], bounds=[(0, None)] * (2 * k))
    if res.status != 0:
        return None
    return Z @ (res.x[:k] - res.x[k:])
