"""The compiled pivoting of Lemke's method (:func:`gaussqp.linalg.lemke._pivot`), imported only through
:func:`gaussqp.linalg.lemke.compiled_pivots` and only when numba is installed (``pip install 'gaussqp[fast]'``).

:func:`pivots` is :func:`gaussqp.linalg.lemke._pivot_numpy` written as loops: the same revised form (``B⁻¹ = I + G Eᵀ``
over the rows pivoted so far, kept here as ``Gᵀ``, one row per pivoted row), the same ratio test with its tie rule
(ties within ``tie_tol`` go to z0's row), the same lexicographic tie-break on the rows of ``B⁻¹`` (the columns of the
pivoted rows compared in increasing order, a tied row outside them dropped at its own column), the same pivot
tolerance, with the same operations in the same order: the rank-1 update and the ratios are elementwise, and the
entering column's product ``G a_P`` is the same BLAS ``dgemv`` on the same column-major matrix (numba's ``np.dot`` on
``Gᵀ[:p].T``; NumPy's ``@`` on ``G[:, :p]``). Nothing is decided differently: ``tests/linalg/test_lemke_compiled.py``
checks status, pivots, basis, ``B⁻¹q`` and the last entering column bit for bit against the NumPy pivoting.

Module-level functions: numba caches them on disk for every process (functions nested in another function are
compiled again in each process).
"""

from __future__ import annotations

import numba
import numpy as np

#: status codes of :func:`pivots` (``lemke._pivot``'s status strings by index); ``FALLBACK``: an arithmetic case the
#: kernel does not decide (an empty set of tied rows, as NaN ratios give), left to the NumPy pivoting
SOLVED, RAY, MAX_ITER, FALLBACK = 0, 1, 2, -1


def njit(fn):
    """``numba.njit`` with numba's on-disk cache, or without it where numba finds no writable cache directory."""
    try:
        return numba.njit(cache=True, nogil=True)(fn)
    except RuntimeError:
        return numba.njit(nogil=True)(fn)


@njit
def _pivot_on(r, x, GT, cols, slot, p, rhs):
    # the pivot on row r with entering column x (lemke._pivot_numpy's `pivot`); returns the new number of pivoted rows
    k = rhs.size
    t = slot[r]
    if t < 0:  # row r becomes a pivot row: its row of Gᵀ is 0
        t = p
        slot[r] = p
        cols[p] = r
        p += 1
    rho = np.empty(p)  # row r of B⁻¹ on the pivoted rows' columns
    for s in range(p):
        rho[s] = GT[s, r]
    rho[t] += 1.0
    xr = x[r]
    theta = rhs[r] / xr
    for i in range(k):
        rhs[i] -= x[i] * theta
    rhs[r] = theta
    u = np.empty(k)  # (x - e_r) / x_r
    for i in range(k):
        u[i] = x[i] / xr
    u[r] -= 1.0 / xr
    for s in range(p):
        rs = rho[s]
        for i in range(k):
            GT[s, i] -= u[i] * rs
    return p


@njit
def _scan(V, alive, n_alive, start, stop, tie_tol):
    # lemke._lex_scan column by column: at each column the alive rows above the smallest + tolerance drop out
    n = alive.size
    c = start
    while n_alive > 1 and c < stop:
        m = np.inf
        nan = False
        for a in range(n):
            if alive[a]:
                v = V[a, c]
                if v != v:
                    nan = True
                elif v < m:
                    m = v
        if not nan:  # NumPy's min is NaN then, and no row exceeds a NaN threshold
            thr = m + tie_tol * max(1.0, abs(m))
            split = False
            for a in range(n):
                if alive[a] and V[a, c] > thr:
                    split = True
                    break
            if split:
                for a in range(n):
                    if alive[a] and V[a, c] > thr:
                        alive[a] = False
                        n_alive -= 1
        c += 1
    return n_alive


@njit
def _lex_break(GT, cols, slot, p, x, cand, tie_tol):
    # lemke._lex_break_revised: the lexicographic tie-break among the tied rows cand (increasing) on B⁻¹ = I + G Eᵀ
    n = cand.size
    alive = np.ones(n, dtype=np.bool_)
    n_alive = n
    order = np.argsort(cols[:p], kind="mergesort")
    pj = cols[:p][order]  # the pivoted rows' columns, increasing
    nf = 0
    fresh = np.empty(n, dtype=np.intp)  # tied rows outside the pivoted ones (positions in cand), increasing
    for a in range(n):
        if slot[cand[a]] < 0:
            fresh[nf] = a
            nf += 1
    V = np.empty((n, p))  # rows of B⁻¹ over the pivoted columns, divided by the entering column's entries
    for a in range(n):
        i = cand[a]
        for b in range(p):
            V[a, b] = GT[order[b], i] / x[i]
        t = slot[i]
        if t >= 0:  # B⁻¹[i, i] = G[i, slot_i] + 1
            b = np.searchsorted(pj, i)
            V[a, b] += 1.0 / x[i]
    start = 0
    f = 0
    while f < nf and n_alive > 1:
        stop = np.searchsorted(pj, cand[fresh[f]])  # the pivoted columns before this fresh row
        if start < stop:
            n_alive = _scan(V, alive, n_alive, start, stop, tie_tol)
        start = max(start, stop)
        while f < nf and np.searchsorted(pj, cand[fresh[f]]) == stop and n_alive > 1:
            a = fresh[f]
            if 1.0 / x[cand[a]] > tie_tol and alive[a]:
                alive[a] = False
                n_alive -= 1
            f += 1
    if start < p:
        n_alive = _scan(V, alive, n_alive, start, p, tie_tol)
    for a in range(n):
        if alive[a]:
            return cand[a]
    return -1


@njit
def pivots(M, q, d, max_iter, pivot_tol, tie_tol):
    """Lemke's pivoting on the equilibrated LCP ``w = q + d z0 + M z`` (Cottle, Pang & Stone §4.4, with the
    lexicographic rule of §4.9): ``(status code, pivots, basis, B⁻¹q, entering column, entering)``, the operations of
    :func:`gaussqp.linalg.lemke._pivot_numpy`. Arguments: M (k, k), q, d (k,) C-ordered float arrays; the status codes
    are :data:`SOLVED`, :data:`RAY`, :data:`MAX_ITER` and :data:`FALLBACK`."""
    k = q.size
    Z0 = 2 * k
    if not (np.isfinite(M).all() and np.isfinite(q).all() and np.isfinite(d).all()):
        return FALLBACK, 0, np.arange(k), q.copy(), d.copy(), -1
    negMT = np.empty((k, k))  # row j: the column of z_j in [I | -M | -d]
    for i in range(k):
        for j in range(k):
            negMT[j, i] = -M[i, j]
    negd = -d
    GT = np.zeros((k, k))  # GT[t] = B⁻¹ e_{cols[t]} - e_{cols[t]}, t < p
    cols = np.zeros(k, dtype=np.intp)
    slot = np.full(k, -1, dtype=np.intp)
    p = 0
    rhs = q.copy()
    basis = np.arange(k)
    scale = max(1.0, np.abs(M).max())
    tol = pivot_tol * scale
    r = np.argmin(q / d)
    x = negd.copy()
    p = _pivot_on(r, x, GT, cols, slot, p, rhs)
    leaving = basis[r]
    basis[r] = Z0
    entering = leaving + k
    aP = np.empty(k)
    rows = np.empty(k, dtype=np.intp)
    ratios = np.empty(k)
    for it in range(1, max_iter + 1):
        if entering >= k:
            a = negMT[entering - k] if entering < Z0 else negd
            if p:
                for s in range(p):
                    aP[s] = a[cols[s]]
                x = np.dot(GT[:p].T, aP[:p])  # BLAS dgemv on the column-major G[:, :p], as NumPy's `@`
                x += a
            else:
                x = a.copy()
        else:
            t = slot[entering]
            x = GT[t].copy() if t >= 0 else np.zeros(k)
            x[entering] += 1.0
        nr = 0
        for i in range(k):
            if x[i] > tol:
                rows[nr] = i
                nr += 1
        if nr == 0:
            return RAY, it, basis, rhs, x, entering
        best = np.inf
        nan = False
        for j in range(nr):
            ratios[j] = rhs[rows[j]] / x[rows[j]]
            if ratios[j] != ratios[j]:
                nan = True
            elif ratios[j] < best:
                best = ratios[j]
        if nan:
            return FALLBACK, it, basis, rhs, x, entering
        thr = best + tie_tol * max(1.0, abs(best))
        nc = 0
        cand = np.empty(nr, dtype=np.intp)
        z0_row = -1
        for j in range(nr):
            if ratios[j] <= thr:
                cand[nc] = rows[j]
                if z0_row < 0 and basis[rows[j]] == Z0:
                    z0_row = rows[j]
                nc += 1
        if nc == 0:
            return FALLBACK, it, basis, rhs, x, entering
        if nc == 1:
            r = cand[0]
        elif z0_row >= 0:
            r = z0_row
        else:
            r = _lex_break(GT, cols, slot, p, x, cand[:nc], tie_tol)
            if r < 0:
                return FALLBACK, it, basis, rhs, x, entering
        p = _pivot_on(r, x, GT, cols, slot, p, rhs)
        leaving = basis[r]
        basis[r] = entering
        if leaving == Z0:
            return SOLVED, it, basis, rhs, x, entering
        entering = leaving + k if leaving < k else leaving - k
    return MAX_ITER, max_iter, basis, rhs, x, entering
