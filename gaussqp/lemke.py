"""Lemke's complementary pivoting for the LCP ``0 <= z ⟂ w = M z + q >= 0``.

Our own implementation (the LCP route F3 must not depend on a third-party LCP code):

- covering vector ``d > 0`` (default all ones) and artificial variable ``z0``:
  ``w = q + d z0 + M z``;
- lexicographic minimum-ratio test (rows of the basis inverse as tie-breakers), which
  prevents cycling on degenerate problems (Cottle, Pang & Stone, *The Linear
  Complementarity Problem*, §4.4 and §4.9);
- ray termination is reported as such (status ``"ray"``). When ``M`` is copositive-plus
  (e.g. symmetric PSD, as every Delassus matrix is) ray termination proves that the LCP
  has no feasible point (Cottle–Pang–Stone Thm 4.4.13);
- symmetric diagonal scaling ``z = D z'``, ``D = diag(M_ii)^{-1/2}`` (an equivalent LCP with
  unit diagonal), so that the tolerances below are relative to a well-scaled tableau;
- when the minimum ratio is attained (up to ``tie_tol``) by the row of ``z0``, ``z0`` leaves:
  on degenerate problems (redundant contact rows make ``M`` singular and the ratio test tie)
  taking another row first drives the tableau into round-off entries and a false ray;
- the final complementary basis is re-solved directly to remove tableau round-off.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class LemkeResult:
    z: np.ndarray | None
    w: np.ndarray | None
    status: str  # "solved" | "ray" | "max_iter"
    iterations: int
    message: str = ""

    @property
    def success(self) -> bool:
        return self.status == "solved"


def lemke(M: np.ndarray, q: np.ndarray, d: np.ndarray | None = None, max_iter: int | None = None,
          pivot_tol: float = 1e-12, tie_tol: float = 1e-9) -> LemkeResult:
    """Solve LCP(q, M) by Lemke's method with lexicographic anti-cycling.

    Parameters
    ----------
    M : (k, k) matrix
    q : (k,) vector
    d : (k,) covering vector, strictly positive (default ones)
    max_iter : pivot limit (default ``50 k + 100``)
    pivot_tol : entries of the entering column below ``pivot_tol * scale`` do not block
    tie_tol : relative tolerance under which two ratios of the ratio test count as tied

    Returns
    -------
    LemkeResult with ``z``, ``w = M z + q`` and the status.
    """
    M = np.asarray(M, dtype=float)
    q = np.asarray(q, dtype=float).ravel()
    k = q.size
    if M.shape != (k, k):
        raise ValueError(f"M has shape {M.shape}, expected ({k}, {k})")
    if k == 0 or np.all(q >= 0):
        z = np.zeros(k)
        return LemkeResult(z=z, w=q.copy(), status="solved", iterations=0, message="q >= 0: z = 0")
    d = np.ones(k) if d is None else np.asarray(d, dtype=float).ravel()
    if np.any(d <= 0):
        raise ValueError("covering vector d must be strictly positive")
    M_orig, q_orig = M, q
    diag = np.diag(M).copy()
    D = np.where(diag > 0, 1.0 / np.sqrt(np.where(diag > 0, diag, 1.0)), 1.0)
    M = D[:, None] * M * D[None, :]
    q = D * q
    d = D * d
    max_iter = 50 * k + 100 if max_iter is None else max_iter
    # Tableau [B⁻¹ | B⁻¹(-M) | B⁻¹(-d) | B⁻¹ q]; columns 0..k-1 (w) hold B⁻¹ throughout.
    Z0 = 2 * k
    T = np.hstack([np.eye(k), -M, -d[:, None], q[:, None]])
    basis = np.arange(k)
    scale = max(1.0, float(np.abs(M).max(initial=0)), float(d.max()))
    tol = pivot_tol * scale

    def pivot(r: int, c: int) -> None:
        T[r] /= T[r, c]
        col = T[:, c].copy()
        col[r] = 0.0
        T[:] -= np.outer(col, T[r])

    r = int(np.argmin(q / d))
    pivot(r, Z0)
    leaving = basis[r]
    basis[r] = Z0
    entering = leaving + k  # complement of w_r is z_r
    for it in range(1, max_iter + 1):
        col = T[:, entering]
        rows = np.flatnonzero(col > tol)
        if rows.size == 0:
            return LemkeResult(z=None, w=None, status="ray", iterations=it,
                               message=f"ray termination on entering variable {_name(entering, k)}")
        r = _lex_min_ratio(T, col, rows, basis, Z0, k, tie_tol)
        pivot(r, entering)
        leaving = basis[r]
        basis[r] = entering
        if leaving == Z0:
            z = D * _refine(M, q, basis, T, k)
            return LemkeResult(z=z, w=M_orig @ z + q_orig, status="solved", iterations=it)
        entering = leaving + k if leaving < k else leaving - k
    return LemkeResult(z=None, w=None, status="max_iter", iterations=max_iter,
                       message=f"no termination within {max_iter} pivots")


def _name(j: int, k: int) -> str:
    return f"w{j}" if j < k else (f"z{j - k}" if j < 2 * k else "z0")


def _lex_min_ratio(T, col, rows, basis, Z0, k, tie_tol) -> int:
    ratios = T[rows, -1] / col[rows]
    best = ratios.min()
    cand = rows[ratios <= best + tie_tol * max(1.0, abs(best))]
    if cand.size > 1:
        z0_rows = cand[basis[cand] == Z0]
        if z0_rows.size:
            return int(z0_rows[0])
        # lexicographic tie-break on rows of B⁻¹ divided by the pivot column
        for j in range(k):
            vals = T[cand, j] / col[cand]
            m = vals.min()
            cand = cand[vals <= m + tie_tol * max(1.0, abs(m))]
            if cand.size == 1:
                break
    return int(cand[0])


def _refine(M, q, basis, T, k) -> np.ndarray:
    """z from the tableau, then re-solved on the complementary basis (z_B from M_BB z_B = -q_B)."""
    z = np.zeros(k)
    for r, j in enumerate(basis):
        if k <= j < 2 * k:
            z[j - k] = max(T[r, -1], 0.0)
    S = np.array([j - k for j in basis if k <= j < 2 * k], dtype=int)
    if S.size:
        zs, *_ = np.linalg.lstsq(M[np.ix_(S, S)], -q[S], rcond=None)
        cand = np.zeros(k)
        cand[S] = zs
        def err(x):
            w = M @ x + q
            return max(np.maximum(0, -x).max(initial=0), np.maximum(0, -w).max(initial=0),
                       np.abs(x * w).max(initial=0))
        if np.all(zs >= -1e-12) and err(cand) <= err(z):
            z = np.maximum(cand, 0.0)
    return z
