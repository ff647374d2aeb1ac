"""An exact oracle for frictionless contact problems with a definite mass matrix.

Independent of gaussqp's code: plain Python rationals (:class:`fractions.Fraction`), no
floating point, no solver. Every float of the problem's data is an exact rational, so the
answer is the exact solution of the problem *as stored*, however badly scaled.

For ``M ≻ 0`` the Gauss principle QP ``min ½aᵀMa + Fᵀa`` s.t. ``E a + e = 0``,
``G a + g >= 0`` has a unique minimizer a*. For each subset A of the inequality rows, the
minimizer on the affine set ``{E a + e = 0, G_A a + g_A = 0}`` is computed exactly (dependent
rows reduced exactly, an inconsistent set skipped); a* is the feasible candidate of least
objective (a* is a candidate: the one of its own active set; every candidate is feasible).
No multiplier signs are needed, so redundant rows and degenerate activity are handled.
The exponential enumeration limits it to a handful of inequality rows.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np


def _q(x) -> Fraction:
    return Fraction(float(x))


def _mat(A) -> list[list[Fraction]]:
    A = np.asarray(A.toarray() if hasattr(A, "toarray") else A, dtype=float)
    return [[_q(v) for v in row] for row in A.reshape(A.shape[0], -1)]


def _solve(A: list[list[Fraction]], b: list[Fraction]) -> list[Fraction]:
    """Exact Gauss-Jordan solve of a nonsingular square system."""
    n = len(A)
    aug = [row[:] + [b[i]] for i, row in enumerate(A)]
    for c in range(n):
        p = next(r for r in range(c, n) if aug[r][c] != 0)
        aug[c], aug[p] = aug[p], aug[c]
        piv = aug[c][c]
        aug[c] = [v / piv for v in aug[c]]
        for r in range(n):
            if r != c and aug[r][c] != 0:
                f = aug[r][c]
                aug[r] = [v - f * w for v, w in zip(aug[r], aug[c])]
    return [aug[i][n] for i in range(n)]


def _independent_rows(rows: list[list[Fraction]], rhs: list[Fraction]):
    """An exactly independent subset of ``rows`` spanning them, or None if ``rows a = rhs`` is inconsistent."""
    basis: list[tuple[list[Fraction], Fraction, int]] = []  # reduced row, reduced rhs, pivot column
    keep = []
    for k, (r, v) in enumerate(zip(rows, rhs)):
        r, v = r[:], v
        for br, bv, pc in basis:
            if r[pc] != 0:
                f = r[pc] / br[pc]
                r = [x - f * y for x, y in zip(r, br)]
                v = v - f * bv
        pc = next((j for j, x in enumerate(r) if x != 0), None)
        if pc is None:
            if v != 0:
                return None
            continue
        basis.append((r, v, pc))
        keep.append(k)
    return keep


def _face_minimizer(M, F, rows, rhs):
    """argmin ½aᵀMa + Fᵀa on {rows a = rhs} (exact), or None if the set is empty."""
    n = len(M)
    keep = _independent_rows(rows, rhs)
    if keep is None:
        return None
    R = [rows[k] for k in keep]
    r = [rhs[k] for k in keep]
    k = len(R)
    K = [M[i][:] + [-R[j][i] for j in range(k)] for i in range(n)]
    K += [R[j][:] + [Fraction(0)] * k for j in range(k)]
    z = _solve(K, [-f for f in F] + r)
    return z[:n]


def exact_frictionless(M, F, E, e, G, g, max_rows: int = 6):
    """Exact a* of the frictionless problem with ``M ≻ 0`` (see the module docstring).

    Returns ``(a, generalized_force)`` as Fraction lists (``M a* + F``), or None when the
    constraint set is empty. Raises ValueError above ``max_rows`` inequality rows.
    """
    Mq, Fq = _mat(M), [_q(x) for x in F]
    Eq, eq = (_mat(E) if np.size(E) else []), [_q(x) for x in np.ravel(e)]
    Gq, gq = (_mat(G) if np.size(G) else []), [_q(x) for x in np.ravel(g)]
    n, p = len(Mq), len(Gq)
    if p > max_rows:
        raise ValueError(f"{p} inequality rows: the exact enumeration stops at {max_rows}")
    best, best_val = None, None
    for size in range(p + 1):
        for A in combinations(range(p), size):
            rows = Eq + [Gq[i] for i in A]
            rhs = [-x for x in eq] + [-gq[i] for i in A]
            a = _face_minimizer(Mq, Fq, rows, rhs)
            if a is None:
                continue
            if any(sum(Gq[i][j] * a[j] for j in range(n)) + gq[i] < 0 for i in range(p)):
                continue
            val = sum(a[i] * (Fraction(1, 2) * sum(Mq[i][j] * a[j] for j in range(n)) + Fq[i]) for i in range(n))
            if best_val is None or val < best_val:
                best, best_val = a, val
    if best is None:
        return None
    gen = [sum(Mq[i][j] * best[j] for j in range(n)) + Fq[i] for i in range(n)]
    return best, gen


def energy_gap(M, a_ref: list[Fraction], a: np.ndarray) -> float:
    """``‖a - a_ref‖_M`` computed exactly (a unit-invariant distance), as a float."""
    Mq = _mat(M)
    d = [_q(x) - y for x, y in zip(a, a_ref)]
    n = len(d)
    return float(sum(d[i] * Mq[i][j] * d[j] for i in range(n) for j in range(n))) ** 0.5


def dual_energy_gap(M, f_ref: list[Fraction], f: np.ndarray) -> float:
    """``‖f - f_ref‖_{M⁻¹}`` computed exactly (the generalized-force distance), as a float."""
    Mq = _mat(M)
    d = [_q(x) - y for x, y in zip(f, f_ref)]
    x = _solve(Mq, d)
    return float(sum(di * xi for di, xi in zip(d, x))) ** 0.5


def energy_scale(M, F, a_ref: list[Fraction]) -> float:
    """``max(‖a_ref‖_M, ‖F‖_{M⁻¹})``: the scale the gaps are relative to."""
    Mq = _mat(M)
    n = len(Mq)
    na = float(sum(a_ref[i] * Mq[i][j] * a_ref[j] for i in range(n) for j in range(n))) ** 0.5
    Fq = [_q(x) for x in F]
    x = _solve(Mq, Fq)
    nf = float(sum(fi * xi for fi, xi in zip(Fq, x))) ** 0.5
    return max(na, nf, 1e-300)


def exact_kkt(M, F, J, b, bilateral, active):
    """The exact solution of the stored data on a given active set: ``M a + F = J_Aᵀ λ_A``, ``J_A a + b_A = 0``
    (rows ``A`` = ``active``), solved in rationals; other rows' multipliers are 0.

    Returns ``(a, lam, consistent)`` as Fraction lists, with ``consistent`` True when the point is the solution of
    the contact problem (``λ_i >= 0`` on the active unilateral rows, ``J_i a + b_i >= 0`` on the others), or None
    when the active rows' KKT matrix is singular (dependent rows: the multipliers are not unique)."""
    Mq, Jq = _mat(M), _mat(J)
    n, m = len(Mq), len(Jq)
    A = [i for i in range(m) if active[i]]
    k = len(A)
    K = [Mq[i][:] + [-Jq[r][i] for r in A] for i in range(n)] + [Jq[r][:] + [Fraction(0)] * k for r in A]
    rhs = [-_q(F[i]) for i in range(n)] + [-_q(b[r]) for r in A]
    try:
        z = _solve(K, rhs)
    except StopIteration:  # a zero pivot column: singular
        return None
    a = z[:n]
    lam = [Fraction(0)] * m
    for j, r in enumerate(A):
        lam[r] = z[n + j]
    consistent = True
    for i in range(m):
        if bilateral[i]:
            continue
        slack = sum(Jq[i][j] * a[j] for j in range(n)) + _q(b[i])
        if (active[i] and lam[i] < 0) or (not active[i] and slack < 0):
            consistent = False
    return a, lam, consistent
