"""Lemke's complementary pivoting for the LCP ``0 <= z ⟂ w = M z + q >= 0``.

Our own implementation (the LCP route F3 must not depend on a third-party LCP code):

- all decisions on the equilibrated LCP ``M' = D M D`` (``D = diag(M_ii)^{-1/2}``, unit
  diagonal), ``q' = D q / max|D q|``, with the covering vector ``d' = 1`` there (a user ``d``
  is mapped to ``D d``): the covering vector is *not* scaled with ``M``, so the pivot path,
  the pivot tolerance and the ratio ties are the same whatever the units of each row;
- artificial variable ``z0``: ``w' = q' + d' z0 + M' z'``;
- lexicographic minimum-ratio test (rows of the basis inverse as tie-breakers), which
  prevents cycling on degenerate problems (Cottle, Pang & Stone, *The Linear
  Complementarity Problem*, §4.4 and §4.9);
- when the minimum ratio is attained (up to ``tie_tol``) by the row of ``z0``, ``z0`` leaves:
  on degenerate problems (redundant contact rows make ``M`` singular and the ratio test tie)
  taking another row first drives the tableau into round-off entries and a false ray;
- the final complementary basis is re-solved directly to remove tableau round-off;
- nothing is believed unverified: ``"solved"`` needs every row of the original ``(w, z)`` to pass
  at its own scale ``|M_i||z| + |q_i|`` (:func:`lcp_violation`); ``"ray"`` needs the secondary
  ray's ``z`` part to be a Farkas vector ``y >= 0, Mᵀy <= 0, qᵀy < 0`` up to the round-off of each
  column (:func:`farkas_violation`) — when ``M`` is copositive-plus (e.g. symmetric PSD, as every
  Delassus matrix is) a secondary ray is one in exact arithmetic (Cottle–Pang–Stone Thm 4.4.13).
  A run whose end fails its check is repeated with exact ties only (``tie_tol = 0``); if that
  fails too the status is ``"failed"`` (never a false solution or a false ray).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..settings import (LEMKE_PIVOT_TOL, LEMKE_PIVOTS_BASE, LEMKE_PIVOTS_PER_ROW, LEMKE_REFINE_TOL,
                        LEMKE_TIE_TOL, LEMKE_VERIFY_RTOL, ROUND_OFF)


@dataclass
class LemkeResult:
    z: np.ndarray | None
    w: np.ndarray | None
    status: str  # "solved" | "ray" | "max_iter" | "failed"
    iterations: int
    message: str = ""
    #: on status "ray": the verified Farkas vector ``y >= 0``, ``Mᵀy <= 0``, ``qᵀy < 0`` (original units)
    ray: np.ndarray | None = None

    @property
    def success(self) -> bool:
        return self.status == "solved"


def lemke(M: np.ndarray, q: np.ndarray, d: np.ndarray | None = None, max_iter: int | None = None,
          pivot_tol: float = LEMKE_PIVOT_TOL, tie_tol: float = LEMKE_TIE_TOL,
          verify_tol: float = LEMKE_VERIFY_RTOL) -> LemkeResult:
    """Solve LCP(q, M) by Lemke's method with lexicographic anti-cycling.

    Parameters
    ----------
    M : (k, k) matrix
    q : (k,) vector
    d : (k,) covering vector, strictly positive, in the units of ``q`` (default: ones in the
        equilibrated problem, i.e. ``d_i = sqrt(M_ii)·max|q_j/sqrt(M_jj)|``)
    max_iter : pivot limit per pivoting run (default ``50 k + 100``)
    pivot_tol : entries of the entering column below ``pivot_tol * scale`` do not block
    tie_tol : relative tolerance under which two ratios of the ratio test count as tied
    verify_tol : row-wise relative tolerance of the final check of ``(w, z)`` or of the ray

    Returns
    -------
    LemkeResult with ``z``, ``w = M z + q`` and the status: ``"solved"`` only when every row
    passes :func:`lcp_violation` <= ``verify_tol`` at its own scale; ``"ray"`` only with a
    Farkas vector that passes :func:`farkas_violation` <= ``verify_tol``; ``"failed"`` when
    neither check passes (after a second run with exact ties only); ``"max_iter"``.
    """
    M = np.asarray(M, dtype=float)
    q = np.asarray(q, dtype=float).ravel()
    k = q.size
    if M.shape != (k, k):
        raise ValueError(f"M has shape {M.shape}, expected ({k}, {k})")
    if k == 0 or np.all(q >= 0):
        z = np.zeros(k)
        return LemkeResult(z=z, w=q.copy(), status="solved", iterations=0, message="q >= 0: z = 0")
    if d is not None:
        d = np.asarray(d, dtype=float).ravel()
        if np.any(d <= 0):
            raise ValueError("covering vector d must be strictly positive")
    # Equilibrated LCP: z = s D z', w = s D⁻¹ w', M' = D M D (unit diagonal), q' = D q / s with
    # max|q'| = 1, covering vector d' = 1 (or D d normalized). Positive diagonal scalings map the
    # pivot path of one onto the other, so every tolerance below is taken on the equilibrated
    # problem, the same for each row whatever its units.
    diag = np.diag(M).copy()
    D = np.where(diag > 0, 1.0 / np.sqrt(np.where(diag > 0, diag, 1.0)), 1.0)
    Ms = D[:, None] * M * D[None, :]
    qs = D * q
    s = float(np.abs(qs).max())
    qs = qs / s
    ds = np.ones(k) if d is None else D * d
    ds = ds / ds.max()
    max_iter = LEMKE_PIVOTS_PER_ROW * k + LEMKE_PIVOTS_BASE if max_iter is None else max_iter
    total, message = 0, ""
    for tt in dict.fromkeys((tie_tol, 0.0)):  # a second run decides ties exactly
        status, it, basis, T, entering = _pivot(Ms, qs, ds, max_iter, pivot_tol, tt)
        total += it
        if status == "max_iter":
            return LemkeResult(z=None, w=None, status="max_iter", iterations=total,
                               message=f"no termination within {max_iter} pivots")
        if status == "solved":
            z = s * D * _refine(Ms, qs, basis, T, k)
            w = M @ z + q
            viol = lcp_violation(M, q, z)
            if viol <= verify_tol:
                return LemkeResult(z=z, w=w, status="solved", iterations=total)
            message = f"complementary basis fails the row-wise check (violation {viol:.1e})"
        else:
            y = D * _ray_direction(basis, T, entering, k)
            viol = farkas_violation(M, q, y)
            if viol <= verify_tol:
                return LemkeResult(z=None, w=None, status="ray", iterations=total, ray=y,
                                   message=f"ray termination on entering variable {_name(entering, k)}")
            message = (f"ray termination on entering variable {_name(entering, k)}, but the ray is not "
                       f"a Farkas vector (violation {viol:.1e})")
    return LemkeResult(z=None, w=None, status="failed", iterations=total, message=message)


def lcp_violation(M: np.ndarray, q: np.ndarray, z: np.ndarray) -> float:
    """Largest violation of ``z >= 0``, ``w = M z + q >= 0``, ``z_i w_i = 0``, each row relative to its own
    scale ``|M_i| |z| + |q_i|`` (a row of scale 0 is violated by any nonzero ``w_i``)."""
    z = np.asarray(z, dtype=float)
    w = M @ z + q
    scale = np.abs(M) @ np.abs(z) + np.abs(q)
    bad = np.maximum(np.maximum(-w, 0.0), np.where(z > 0, np.abs(w), 0.0))
    bad = np.maximum(bad, np.where(z < 0, np.inf, 0.0))
    rel = np.divide(bad, scale, out=np.where(bad > 0, np.inf, 0.0), where=scale > 0)
    return float(rel.max(initial=0.0))


def farkas_violation(M: np.ndarray, q: np.ndarray, y: np.ndarray) -> float:
    """How far ``y`` is from proving ``{z >= 0 : M z + q >= 0} = ∅``: if z were feasible,
    ``0 <= yᵀ(M z + q) = zᵀ(Mᵀy) + qᵀy``, impossible when ``y >= 0``, ``Mᵀy <= 0`` and ``qᵀy < 0``.

    Returns the largest positive ``(Mᵀy)_j`` relative to its own column scale ``(|M|ᵀ y)_j``;
    ``inf`` when ``y`` is empty, not finite, has a negative entry or is zero, or when ``qᵀy`` is not
    negative beyond its own round-off (``1e3·eps·|q|ᵀy``)."""
    y = np.asarray(y, dtype=float)
    if y.size == 0 or not np.all(np.isfinite(y)) or np.any(y < 0) or not np.any(y > 0):
        return float("inf")
    qy, qscale = float(q @ y), float(np.abs(q) @ y)
    col = M.T @ y
    rel = np.divide(col, np.abs(M).T @ y, out=np.zeros_like(col), where=col > 0)
    # the certificate must beat the round-off of qᵀy itself
    return float(max(rel.max(initial=0.0), 0.0 if -qy > ROUND_OFF * qscale else np.inf))


def _pivot(M, q, d, max_iter, pivot_tol, tie_tol):
    """Lemke's pivoting on the (equilibrated) data: (status, pivots, basis, tableau, last entering)."""
    k = q.size
    # Tableau [B⁻¹ | B⁻¹(-M) | B⁻¹(-d) | B⁻¹ q]; columns 0..k-1 (w) hold B⁻¹ throughout.
    Z0 = 2 * k
    T = np.hstack([np.eye(k), -M, -d[:, None], q[:, None]])
    basis = np.arange(k)
    scale = max(1.0, float(np.abs(M).max()))  # d is normalized to max 1
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
            return "ray", it, basis, T, entering
        r = _lex_min_ratio(T, col, rows, basis, Z0, k, tie_tol)
        pivot(r, entering)
        leaving = basis[r]
        basis[r] = entering
        if leaving == Z0:
            return "solved", it, basis, T, entering
        entering = leaving + k if leaving < k else leaving - k
    return "max_iter", max_iter, basis, T, entering


def _ray_direction(basis, T, entering, k) -> np.ndarray:
    """The z part of the ray ``x_B = T[:, -1] - t T[:, entering]``, ``x_entering = t`` (negative round-off
    clipped to 0: the verification judges the clipped vector)."""
    y = np.zeros(k)
    for r, j in enumerate(basis):
        if k <= j < 2 * k:
            y[j - k] = max(-T[r, entering], 0.0)
    if entering >= k:  # (z0 never re-enters)
        y[entering - k] = 1.0
    return y


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
    for r, j in enumerate(basis):  # z0 (index 2k) has left the basis
        if j >= k:
            z[j - k] = max(T[r, -1], 0.0)
    S = np.array([j - k for j in basis if j >= k], dtype=int)
    if S.size:
        zs, *_ = np.linalg.lstsq(M[np.ix_(S, S)], -q[S], rcond=None)
        cand = np.zeros(k)
        cand[S] = zs
        def err(x):
            w = M @ x + q
            return max(np.maximum(0, -x).max(initial=0), np.maximum(0, -w).max(initial=0),
                       np.abs(x * w).max(initial=0))
        if np.all(zs >= -LEMKE_REFINE_TOL) and err(cand) <= err(z):
            z = np.maximum(cand, 0.0)
    return z
