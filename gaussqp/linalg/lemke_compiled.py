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
:func:`lemke_solved` runs the driver's common end in one call (the equilibration, the first run, the basis's LU solve
by LAPACK as SciPy's wrappers call it, the refinement and the check) and hands anything else back to the driver with
what it computed.

Module-level functions: numba caches them on disk for every process (functions nested in another function are
compiled again in each process).
"""

from __future__ import annotations

import numpy as np

from .jit import njit
from .lapack_bindings import dgecon, dgetrf, dgetrs

#: status codes of :func:`pivots` (``lemke._pivot``'s status strings by index); ``FALLBACK``: an arithmetic case the
#: kernel does not decide (an empty set of tied rows, as NaN ratios give), left to the NumPy pivoting
SOLVED, RAY, MAX_ITER, FALLBACK = 0, 1, 2, -1


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


@njit
def equilibrate(M, q, d, has_d):
    """The equilibrated LCP of :func:`gaussqp.linalg.lemke.lemke`: ``D = diag(M_ii)^{-1/2}`` (1 where ``M_ii <= 0``),
    ``M' = D M D``, ``q' = D q / s`` with ``s = max|D q|``, ``d' = D d / max(D d)`` (``d' = 1`` without ``d``); the
    NumPy operations in order. Returns ``(D, M', q', s, d', ok)``; ``ok`` is False (nothing decided) on data that are
    not all finite or when ``s`` is not positive."""
    k = q.size
    D = np.ones(k)
    Ms = np.empty((k, k))
    qs = np.empty(k)
    ds = np.ones(k)
    finite = np.isfinite(M).all() and np.isfinite(q).all() and (not has_d or np.isfinite(d).all())
    if not finite:
        return D, Ms, qs, 0.0, ds, False
    for i in range(k):
        if M[i, i] > 0:
            D[i] = 1.0 / np.sqrt(M[i, i])
    for i in range(k):
        for j in range(k):
            Ms[i, j] = D[i] * M[i, j] * D[j]
    s = 0.0
    for i in range(k):
        qs[i] = D[i] * q[i]
        s = max(s, abs(qs[i]))
    if not s > 0.0:
        return D, Ms, qs, s, ds, False
    for i in range(k):
        qs[i] = qs[i] / s
    if has_d:
        top = -np.inf
        for i in range(k):
            ds[i] = D[i] * d[i]
            top = max(top, ds[i])
        for i in range(k):
            ds[i] = ds[i] / top
    return D, Ms, qs, s, ds, True


@njit
def basis_system(M, q, basis, rhs):
    """The complementary basis's system of :func:`gaussqp.linalg.lemke._refine`: ``z`` read off the tableau (``B⁻¹q``
    on the rows of the basic ``z_j``, negative round-off clipped to 0 as ``numpy.maximum`` clips), the basic indices
    ``S``, ``M_SS`` (C-ordered) and ``-q_S``."""
    k = q.size
    z = np.zeros(k)
    n = 0
    for r in range(k):
        if basis[r] >= k and basis[r] < 2 * k:
            n += 1
    S = np.empty(n, dtype=np.intp)
    n = 0
    for r in range(k):
        j = basis[r] - k
        if 0 <= j < k:
            S[n] = j
            v = rhs[r]
            z[j] = v if (v > 0.0 or v != v) else 0.0  # numpy.maximum(-0.0, 0.0) is +0.0
            n += 1
    A = np.empty((n, n))
    b = np.empty(n)
    for a in range(n):
        b[a] = -q[S[a]]
        for c in range(n):
            A[a, c] = M[S[a], S[c]]
    return z, S, A, b


@njit
def _err(M, q, x):
    # _refine's err: the largest of max(0, -x), max(0, -w), |x w| with w = M x + q (NumPy's dgemv: the same bits)
    w = np.dot(M, x) + q
    e1 = 0.0
    e2 = 0.0
    e3 = 0.0
    for i in range(x.size):
        e1 = max(e1, max(0.0, -x[i]))
        e2 = max(e2, max(0.0, -w[i]))
        e3 = max(e3, abs(x[i] * w[i]))
    return max(e1, e2, e3)


@njit
def refined(M, q, z, S, zs, refine_tol, s, D):
    """The end of :func:`gaussqp.linalg.lemke._refine` and the unscaling of :func:`gaussqp.linalg.lemke.lemke`: the
    basis's solution ``zs`` replaces the tableau's ``z`` when it stays in the orthant (to ``-refine_tol``) and its
    largest violation is no larger; returns ``((s D) z, ok)``, ``ok`` False (nothing decided) when ``zs`` or a
    violation is not finite."""
    k = q.size
    out = np.empty(k)
    if S.size:
        if not np.isfinite(zs).all():
            return out, False
        cand = np.zeros(k)
        inside = True
        for a in range(S.size):
            cand[S[a]] = zs[a]
            if not zs[a] >= -refine_tol:
                inside = False
        if inside:
            ec = _err(M, q, cand)
            ez = _err(M, q, z)
            if not (np.isfinite(ec) and np.isfinite(ez)):
                return out, False
            if ec <= ez:
                for i in range(k):
                    v = cand[i]
                    z[i] = v if (v > 0.0 or v != v) else 0.0
    for i in range(k):
        out[i] = s * D[i] * z[i]
    return out, True


@njit
def verified(M, q, z):
    """``(w, violation, ok)``: ``w = M z + q`` and :func:`gaussqp.linalg.lemke.lcp_violation` of ``z`` without an
    entry uncertainty — the largest violation of ``z >= 0``, ``w >= 0``, ``z_i w_i = 0``, each row relative to its
    own scale ``|M_i||z| + |q_i|`` (a row of scale 0 violated by any nonzero violation) — with the NumPy operations
    in order (both products by the BLAS ``dgemv`` NumPy calls on a C-ordered ``M``); ``ok`` is False (nothing
    decided) when ``w`` or a scale is not finite."""
    k = q.size
    w = np.dot(M, z) + q
    scale = np.dot(np.abs(M), np.abs(z)) + np.abs(q)
    if not (np.isfinite(w).all() and np.isfinite(scale).all()):
        return w, 0.0, False
    viol = 0.0
    for i in range(k):
        bad = max(-w[i], 0.0)
        if z[i] > 0:
            bad = max(bad, abs(w[i]))
        if z[i] < 0:
            bad = np.inf
        if scale[i] > 0:
            rel = bad / scale[i]
        else:
            rel = np.inf if bad > 0 else 0.0
        viol = max(viol, rel)
    return w, viol, True


@njit
def _basis_lu_solve(A, b, rcond_min):
    """:func:`gaussqp.linalg.lemke._basis_solve` where its LU answers: LAPACK's ``dgetrf`` on ``A`` (column-major
    copy), ``dgecon`` in the 1-norm with ``anorm`` the largest column sum of ``|A|`` (NumPy's ``sum(axis=0)``: the rows
    added in order) and SciPy's workspace (``4N``, ``N``), and when the estimate is at least ``rcond_min``, ``dgetrs``;
    the calls of SciPy's wrappers. Returns ``(x, ok)``; ``ok`` False where the NumPy code would take the least-squares
    solution (a singular or ill-conditioned basis) or a call failed."""
    N = A.shape[0]
    col = np.zeros(N)
    for i in range(N):
        for j in range(N):
            col[j] += abs(A[i, j])
    anorm = np.full(1, col.max() if N else 0.0)
    lu = A.T.copy().T
    n = np.full(1, N, dtype=np.int32)
    one = np.ones(1, dtype=np.int32)
    piv = np.empty(max(N, 1), dtype=np.int32)
    info = np.zeros(1, dtype=np.int32)
    dgetrf(n.ctypes, n.ctypes, lu.ctypes, n.ctypes, piv.ctypes, info.ctypes)
    x = b.copy()
    if info[0] != 0:
        return x, False
    norm = np.full(1, 49, dtype=np.uint8)  # '1'
    rcond = np.zeros(1)
    work = np.empty(max(4 * N, 1))
    iwork = np.empty(max(N, 1), dtype=np.int32)
    dgecon(
        norm.ctypes, n.ctypes, lu.ctypes, n.ctypes, anorm.ctypes, rcond.ctypes, work.ctypes, iwork.ctypes, info.ctypes
    )
    if info[0] != 0 or not rcond[0] >= rcond_min:
        return x, False
    trans = np.full(1, 78, dtype=np.uint8)  # 'N'
    dgetrs(trans.ctypes, n.ctypes, one.ctypes, lu.ctypes, n.ctypes, piv.ctypes, x.ctypes, n.ctypes, info.ctypes)
    return x, info[0] == 0


@njit
def lemke_solved(M, q, max_iter, pivot_tol, tie_tol, refine_tol, rcond_min, verify_tol):
    """:func:`gaussqp.linalg.lemke.lemke` without a covering vector where its first pivoting run ends on a
    complementary basis that passes its checks, in one call: :func:`equilibrate`, :func:`pivots` (tie tolerance
    ``tie_tol``), :func:`basis_system`, the basis's LU solve (:func:`_basis_lu_solve`), :func:`refined` and
    :func:`verified` on the data, the operations of the NumPy driver in its order. Returns ``(ok, z, w, equilibrated,
    D, M', q', s, d', run)``: ``z``, ``w`` the answer when ``ok``; on every other outcome (data the kernels leave to
    NumPy, a ray, the pivot limit, a basis solved by least squares, a violation above ``verify_tol``) ``ok`` is False
    and the driver goes on from what was computed: the equilibrated data when ``equilibrated``, and ``run``, the first
    run's ``(status code, pivots, basis, B⁻¹q, entering column, entering)`` (:func:`pivots`)."""
    k = q.size
    D, Ms, qs, s, ds, equilibrated = equilibrate(M, q, q, False)
    run = (FALLBACK, 0, np.arange(k), qs, ds, -1)
    if not equilibrated:
        return False, qs, qs, False, D, Ms, qs, s, ds, run
    run = pivots(Ms, qs, ds, max_iter, pivot_tol, tie_tol)
    if run[0] != SOLVED:
        return False, qs, qs, True, D, Ms, qs, s, ds, run
    z, S, A, b = basis_system(Ms, qs, run[2], run[3])
    zs = b
    if S.size:
        zs, solved = _basis_lu_solve(A, b, rcond_min)
        if not solved:
            return False, qs, qs, True, D, Ms, qs, s, ds, run
    out, refined_ok = refined(Ms, qs, z, S, zs, refine_tol, s, D)
    if not refined_ok:
        return False, qs, qs, True, D, Ms, qs, s, ds, run
    w, viol, verified_ok = verified(M, q, out)
    return verified_ok and viol <= verify_tol, out, w, True, D, Ms, qs, s, ds, run
