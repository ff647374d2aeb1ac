"""The compiled kernels of :mod:`gaussqp.friction.compiled` (imported only through
:func:`gaussqp.friction.compiled.kernels`, and only when numba is installed). Module-level functions: numba
caches them on disk for every process (functions nested in another function are compiled again in each process)."""

from __future__ import annotations

import numpy as np

from ..linalg.jit import njit
from ..linalg.lapack_bindings import dgelsy as _dgelsy, dgetrf as _dgetrf, dgetrs as _dgetrs, dsyrk as _dsyrk


@njit
def _normal_and_tangent_norm(x, j, d):
    # block j of x: its normal entry and the norm of its tangential part (summed in order, as numpy sums d − 1 terms)
    s = 0.0
    for k in range(1, d):
        s += x[j * d + k] * x[j * d + k]
    return x[j * d], np.sqrt(s)


@njit
def _project(x, out, mu, j, d):
    # the projection of block j of x on K_μ into out (project_cone's three pieces)
    xn, nt = _normal_and_tangent_norm(x, j, d)
    if nt <= mu * xn and xn >= 0.0:
        for k in range(d):
            out[j * d + k] = x[j * d + k]
    elif mu * nt <= -xn:
        for k in range(d):
            out[j * d + k] = 0.0
    else:
        alpha = (xn + mu * nt) / (1.0 + mu * mu)
        safe = nt if nt > 0.0 else 1.0
        out[j * d] = alpha
        for k in range(1, d):
            out[j * d + k] = (mu * alpha / safe) * x[j * d + k]


@njit
def natural_maps(W, q, r, mu, rho, d):
    """``(φ_ρ, u, z, ‖φ_1‖)`` at ``r``: ``u = W r + q``, ``z = r − ρ(u + μ‖u_t‖e_n)``, ``φ_ρ = r − P_K(z)``,
    ``φ_1 = r − P_K(r − (u + μ‖u_t‖e_n))`` (Acary, Brémond, Huber 2018, eq. (12)); the operations of
    ``nonsmooth_newton._System.evaluate``. Arguments: W (N, N), q, r, ρ (N,), μ (m,) C-ordered float arrays, d."""
    u = W @ r + q
    phi, z, phi1 = maps_at(u, r, mu, rho, d)
    return phi, u, z, np.sqrt(phi1 @ phi1)


@njit
def maps_at(u, r, mu, rho, d):
    """``(φ_ρ, z, φ_1)`` at ``r`` with its velocity ``u`` given (a sparse W's product is SciPy's): the operations of
    :func:`natural_maps` after ``u = W r + q``. Arguments: u, r, ρ (N,), μ (m,) C-ordered float arrays, d."""
    N = u.size
    m = N // d
    z = np.empty(N)
    w = np.empty(N)  # r − s, the ρ = 1 map's argument
    for j in range(m):
        shift = mu[j] * _normal_and_tangent_norm(u, j, d)[1]
        for k in range(d):
            sk = u[j * d + k] + shift if k == 0 else u[j * d + k]  # no + 0.0: it would turn a −0.0 into +0.0
            z[j * d + k] = r[j * d + k] - rho[j * d + k] * sk
            w[j * d + k] = r[j * d + k] - sk
    pz = np.empty(N)
    pw = np.empty(N)
    for j in range(m):
        _project(z, pz, mu[j], j, d)
        _project(w, pw, mu[j], j, d)
    return r - pz, z, r - pw


@njit
def natural_map_unit(r, u, mu, d):
    """``φ_1 = r − P_K(r − (u + μ‖u_t‖e_n))`` block by block: the operations of
    :func:`gaussqp.friction.coulomb_law.natural_map` with ρ = 1 (the reported residual's map; Acary, Brémond,
    Huber 2018, eq. (12)). Arguments: r, u (N,), μ (m,) C-ordered float arrays, d."""
    N = r.size
    m = N // d
    w = np.empty(N)
    for j in range(m):
        shift = mu[j] * _normal_and_tangent_norm(u, j, d)[1]
        for k in range(d):
            w[j * d + k] = r[j * d + k] - (u[j * d + k] + shift if k == 0 else u[j * d + k])
    p = np.empty(N)
    for j in range(m):
        _project(w, p, mu[j], j, d)
    return r - p


@njit
def project_cone_blocks(x, mu, d):
    """``P_K(x)`` block by block: the operations of :func:`gaussqp.friction.coulomb_law.project_cone_numpy` (its three
    pieces, chosen in its order). Arguments: x (N,), μ (m,) C-ordered float arrays, d."""
    m = x.size // d
    out = np.empty(x.size)
    for j in range(m):
        _project(x, out, mu[j], j, d)
    return out


@njit
def natural_map_measures(r, u, q, mu, d):
    """What :func:`gaussqp.friction.coulomb_law.natural_map_residual` reads off ``(r, u)``, in its operations and
    order: ``(φ_1, ‖φ‖, ‖q‖, ‖r‖, ‖u‖, each contact's ‖φ_j‖, ‖Δu‖, each contact's ‖Δu_j‖)`` with ``φ_1`` by
    :func:`natural_map_unit` and each contact's velocity change ``‖Δu_j‖ = ‖(−φ_n + μ(‖u_t‖ − ‖u_t − φ_t‖), φ_t)‖``
    (:func:`gaussqp.friction.coulomb_law.velocity_change`). The stacked norms are BLAS dot products, as NumPy's
    ``norm`` of a vector; a contact's sums run in order, as NumPy sums its d ≤ 3 entries. Arguments: r, u (N,), q
    (N,) or empty, μ (m,) C-ordered float arrays, d."""
    phi = natural_map_unit(r, u, mu, d)
    m = r.size // d
    per = np.empty(m)
    for j in range(m):
        s = phi[j * d] * phi[j * d]
        for k in range(1, d):
            s += phi[j * d + k] * phi[j * d + k]
        per[j] = np.sqrt(s)
    dv = velocity_changes(phi, u, mu, d)
    qq = q @ q if q.size else 0.0
    return phi, np.sqrt(phi @ phi), np.sqrt(qq), np.sqrt(r @ r), np.sqrt(u @ u), per, np.sqrt(dv @ dv), dv


@njit
def block_norms(E, offsets):
    """Each block's 2-norm ``‖E[offsets[j]:offsets[j + 1]]‖`` (F9's per-contact residuals,
    :func:`gaussqp.formulations.coulomb_mixed.residuals`): a BLAS dot product each, as NumPy's ``norm`` of a vector.
    Arguments: E (N,) C-ordered float array, offsets (m + 1,) int64 array, increasing."""
    m = offsets.size - 1
    out = np.empty(m)
    for j in range(m):
        b = E[offsets[j] : offsets[j + 1]]
        out[j] = np.sqrt(b @ b)
    return out


@njit
def velocity_changes(phi, u, mu, d):
    """Each contact's ``‖Δu_j‖ = ‖(−φ_n + μ(‖u_t‖ − ‖u_t − φ_t‖), φ_t)‖``: the operations of
    :func:`gaussqp.friction.coulomb_law.velocity_change_numpy` in order (a contact's sums from its first term, as
    NumPy sums d − 1 ≤ 2 terms). Arguments: φ, u (N,), μ (m,) C-ordered float arrays, d."""
    m = phi.size // d
    dv = np.empty(m)
    for j in range(m):
        ut = 0.0
        wt = 0.0
        pt = 0.0
        for k in range(1, d):
            pk = phi[j * d + k]
            uk = u[j * d + k]
            ut += uk * uk
            wt += (uk - pk) * (uk - pk)
            pt += pk * pk
        dn = -phi[j * d] + mu[j] * (np.sqrt(ut) - np.sqrt(wt))
        dv[j] = np.sqrt(dn * dn + pt)
    return dv


@njit
def _projection_jacobian(z, P, mj, j, d):
    # P' at block j of z into P (cone_projection_jacobian's pieces)
    P[:, :] = 0.0
    zn, t = _normal_and_tangent_norm(z, j, d)
    if t <= mj * zn and zn >= 0.0:
        for k in range(d):
            P[k, k] = 1.0
    elif not (mj * t <= -zn):
        safe = t if t > 0.0 else 1.0
        c = 1.0 / (1.0 + mj * mj)
        alpha = c * (zn + mj * t)
        kk = mj * alpha / safe if t > 0.0 else 0.0
        P[0, 0] = c
        for a in range(1, d):
            ea = z[j * d + a] / safe
            P[0, a] = mj * c * ea
            P[a, 0] = mj * c * ea
            for b in range(1, d):
                eb = z[j * d + b] / safe
                eet = ea * eb
                P[a, b] = mj * mj * c * eet + kk * ((1.0 if a == b else 0.0) - eet)


@njit
def jacobian_blocks(u, z, mu, rho_c, delta, d):
    """``(A, B, A₀)`` (m, d, d) each: ``A = I − P' + δP'D``, ``B = ρ_j P'D``, ``A₀ = I − P'`` with ``P' = ∂P_K(z)`` and
    ``D = ∂(u + μ‖u_t‖e_n)/∂u``; the operations of ``nonsmooth_newton._System.jacobian_blocks``."""
    m = z.size // d
    A = np.zeros((m, d, d))
    B = np.zeros((m, d, d))
    A0 = np.zeros((m, d, d))
    P = np.zeros((d, d))
    D = np.zeros((d, d))
    for j in range(m):
        mj = mu[j]
        _projection_jacobian(z, P, mj, j, d)
        # D = ∂s/∂u at u_j (shift_jacobian)
        D[:, :] = 0.0
        for k in range(d):
            D[k, k] = 1.0
        nt = _normal_and_tangent_norm(u, j, d)[1]
        if nt > 0.0:
            for k in range(1, d):
                D[0, k] = (mj / nt) * u[j * d + k]
        for a in range(d):
            for b in range(d):
                pd = 0.0
                for k in range(d):
                    pd += P[a, k] * D[k, b]
                a0 = (1.0 if a == b else 0.0) - P[a, b]
                A0[j, a, b] = a0
                A[j, a, b] = a0 + delta * pd
                B[j, a, b] = pd * rho_c[j]
    return A, B, A0


@njit
def newton_matrix(W, u, z, mu, rho_c, delta, d):
    """``(J, A, B)``: the blocks of :func:`jacobian_blocks` and the dense Newton matrix ``J = blockdiag(A) +
    blockdiag(B) W``; the operations of ``nonsmooth_newton._System.solve`` before its factorization: each block row
    ``B_j W_j`` by BLAS's dgemm (as NumPy's batched product calls it for these (d, d) × (d, N) products), then ``A_j``
    added to the diagonal block. Arguments: W (N, N), u, z (N,), μ, ρ_c (m,) C-ordered float arrays, δ, d."""
    A, B, _ = jacobian_blocks(u, z, mu, rho_c, delta, d)
    return _block_matrix(W, A, B, d), A, B


@njit
def _block_matrix(W, A, B, d):
    """``blockdiag(A) + blockdiag(B) W`` (N, N) for blocks (m, d, d): each block row ``B_j W_j`` by BLAS's dgemm (as
    NumPy's batched product calls it for these (d, d) × (d, N) products), then ``A_j`` added to the diagonal block
    (every entry of it, zeros too, as NumPy's ``+=`` on the blocks)."""
    N = W.shape[0]
    m = N // d
    J = np.empty((N, N))
    for j in range(m):
        J[j * d : (j + 1) * d, :] = np.dot(np.ascontiguousarray(B[j]), np.ascontiguousarray(W[j * d : (j + 1) * d, :]))
        for a in range(d):
            for b in range(d):
                J[j * d + a, j * d + b] += A[j, a, b]
    return J


@njit
def csr_velocity(indptr, indices, data, r, q):
    """``u = W r + q`` for W in CSR arrays (duplicates summed): each row's products summed in storage order from 0.0,
    then ``q`` added: SciPy's ``csr_matvec`` (``W @ r``, which sums the same way) then NumPy's ``+ q``, the same numbers
    bit for bit. Arguments: ``indptr``, ``indices`` unsigned int arrays of one type (a signed index costs a test for
    a negative value at each read: 1.6x slower on a pile of 1,071 contacts), ``data``, r, q (N,) C-ordered floats."""
    N = indptr.size - 1
    u = np.empty(N)
    for i in range(N):
        s = 0.0
        for jj in range(indptr[i], indptr[i + 1]):
            s += data[jj] * r[indices[jj]]
        u[i] = s + q[i]
    return u


@njit
def _search(
    W, indptr, indices, data, q, r, mu, rho, d, qn, phi, merit, merit_ref, step, target, armijo, backtrack, step_min
):
    # the backtracking of newton_iteration with W dense (indptr empty) or of line_search_csr with W in CSR arrays (W
    # empty): the maps of natural_maps after u = W r + q by W's own product
    scale = qn if qn > 0 else 1.0
    for kind in range(2):
        if kind == 1:
            s = -phi
        elif step.size == 0 or not np.all(np.isfinite(step)):  # no step, or J singular: its solve is not finite
            continue
        else:
            s = step
        t = 1.0
        while t >= step_min:
            rn = r + t * s
            if indptr.size:
                un = csr_velocity(indptr, indices, data, rn, q)
            else:
                un = W @ rn + q
            phin, zn, phi1 = maps_at(un, rn, mu, rho, d)
            resn = np.sqrt(phi1 @ phi1) / scale
            mn = np.dot(phin, phin)
            if mn <= merit_ref - 2 * armijo * t * merit or (kind == 0 and resn <= target):
                return kind, t, rn, phin, un, zn, resn, mn
            t *= backtrack
    return 2, 0.0, r, phi, phi, phi, 0.0, 0.0


_NO_INDEX = np.zeros(0, dtype=np.uint32)
_NO_DATA = np.zeros(0)
_NO_MATRIX = np.zeros((0, 0))


@njit
def line_search_csr(
    indptr, indices, data, q, r, mu, rho, d, qn, phi, merit, merit_ref, step, target, armijo, backtrack, step_min
):
    """The backtracking of the sparse Newton (``nonsmooth_newton._compiled_sparse_search``) along the Newton step ``step``
    (none when it is empty or has a non-finite entry), then along the projected step ``−φ_ρ``: the first ``t`` in ``1,
    β, β², … ≥ step_min`` with ``‖φ_ρ(r + t s)‖² <= merit_ref − 2σ t ‖φ_ρ(r)‖²`` (or, on the Newton step, a point within
    ``target``), the operations of ``nonsmooth_newton._search`` in the same order. W is given by its CSR arrays
    (``indptr``, ``indices`` unsigned int arrays of one type, ``data``; duplicates summed), whose product is
    :func:`csr_velocity` (SciPy's numbers). Returns ``(direction, t, r', φ_ρ, u, z, residual, merit)`` with direction
    0 (Newton), 1 (projected) or 2 (neither descends: the caller tries the merit's steepest descent)."""
    return _search(
        _NO_MATRIX,
        indptr,
        indices,
        data,
        q,
        r,
        mu,
        rho,
        d,
        qn,
        phi,
        merit,
        merit_ref,
        step,
        target,
        armijo,
        backtrack,
        step_min,
    )


@njit
def _getrf(A):
    """``(lu, piv, singular)``: LAPACK's ``getrf`` through SciPy's bindings on a column-ordered copy of ``A`` (N, N),
    N >= 1, as ``scipy.linalg.lapack.dgetrf(A)`` calls it; ``singular``: it met an exactly zero pivot."""
    N = A.shape[0]
    lu = A.T.copy().T  # a copy in LAPACK's column order, whatever A's: the factors overwrite it
    n = np.full(1, N, dtype=np.int32)
    piv = np.empty(N, dtype=np.int32)
    info = np.zeros(1, dtype=np.int32)
    _dgetrf(n.ctypes, n.ctypes, lu.ctypes, n.ctypes, piv.ctypes, info.ctypes)
    return lu, piv, info[0] > 0


@njit
def _getrs(lu, piv, rhs):
    """``A⁻¹ rhs`` from :func:`_getrf`'s factors by LAPACK's ``getrs`` on a copy of ``rhs`` (N,), as
    ``scipy.linalg.lapack.dgetrs(lu, piv, rhs)`` calls it (an exactly singular A gives non-finite entries)."""
    N = lu.shape[0]
    n = np.full(1, N, dtype=np.int32)
    one = np.ones(1, dtype=np.int32)
    info = np.zeros(1, dtype=np.int32)
    x = rhs.copy()
    trans = np.full(1, 78, dtype=np.uint8)  # 'N': A x = rhs
    _dgetrs(trans.ctypes, n.ctypes, one.ctypes, lu.ctypes, n.ctypes, piv.ctypes, x.ctypes, n.ctypes, info.ctypes)
    return x


@njit
def _getrf_getrs(A, rhs):
    """``(A⁻¹ rhs, singular)`` by LAPACK's ``getrf`` then ``getrs`` through SciPy's bindings (:func:`_getrf`,
    :func:`_getrs`), N >= 1; ``singular``: ``getrf`` met an exactly zero pivot (the solution then has non-finite
    entries)."""
    lu, piv, singular = _getrf(A)
    return _getrs(lu, piv, rhs), singular


@njit
def _refine_residual(J, dA, rhs, y, d):
    """``rhs − J y + blockdiag(dA) y``: the residual of ``J₀ = J − blockdiag(dA)`` at ``y`` in the operations of
    ``nonsmooth_newton._System.solve``'s ``res0`` (each block's product ``dA_j y_j`` by BLAS's dgemv, as NumPy's
    batched product of these (d, d) × (d, 1) blocks calls it)."""
    out = rhs - J @ y
    m = y.size // d
    for j in range(m):
        prod = np.dot(np.ascontiguousarray(dA[j]), np.ascontiguousarray(y[j * d : (j + 1) * d]))
        for a in range(d):
            out[j * d + a] = out[j * d + a] + prod[a]
    return out


@njit
def refined_solve(W, A, B, A0, rhs, d):
    """``(code, x)``: the dense ``nonsmooth_newton._System.solve(A, B, rhs, refine=A0)`` in its operations: ``J =
    blockdiag(A) + blockdiag(B) W`` (:func:`_block_matrix`), ``x = J⁻¹ rhs`` by one LU (:func:`_getrf`,
    :func:`_getrs`), then one step of refinement towards ``J₀ = blockdiag(A₀) + blockdiag(B) W`` with J's factors,
    kept when it lowers ``‖rhs − J₀ x‖`` (:func:`_refine_residual`). ``code``: 0 solved; 1 J has a non-finite entry
    (where ``lu_solver`` raises ValueError); 2 the solve is not finite (a singular J: the LinAlgError). Arguments: W
    (N, N), A, B, A₀ (m, d, d), rhs (N,) C-ordered float arrays, d."""
    J = _block_matrix(W, A, B, d)
    empty = np.zeros(0)
    if not np.all(np.isfinite(J)):
        return 1, empty
    lu, piv, _ = _getrf(J)
    x = _getrs(lu, piv, rhs)
    if not np.all(np.isfinite(x)):
        return 2, empty
    dA = A - A0
    r0 = _refine_residual(J, dA, rhs, x, d)
    x2 = x + _getrs(lu, piv, r0)
    if np.all(np.isfinite(x2)):
        r2 = _refine_residual(J, dA, rhs, x2, d)
        if r2 @ r2 < r0 @ r0:
            x = x2
    return 0, x


@njit
def stick_start(W, q, rho, rho_c, delta, d):
    """``(code, x, ‖W x + q‖)``: the dense start "every contact sticks" of ``nonsmooth_newton._System.stick_starts``
    at one regularization δ: :func:`refined_solve` with ``A = δI``, ``B = ρ_j I``, ``A₀ = 0`` and ``rhs = −ρ q`` (its
    refinement towards ``blockdiag(B) W x = −ρ q``, that is ``W x = −q``), the blocks built as NumPy builds them, and
    the acceptance norm. ``code``: :func:`refined_solve`'s. Arguments: W (N, N), q, ρ (N,), ρ_c (m,) C-ordered float
    arrays, δ, d."""
    N = q.size
    m = N // d
    A = np.zeros((m, d, d))
    B = np.zeros((m, d, d))
    for j in range(m):
        for a in range(d):
            for b in range(d):
                e = 1.0 if a == b else 0.0  # np.eye(d)
                B[j, a, b] = e * rho_c[j]
                A[j, a, b] = delta * e + 0.0
    rhs = np.empty(N)
    for i in range(N):
        rhs[i] = -rho[i] * q[i]
    code, x = refined_solve(W, A, B, np.zeros((m, d, d)), rhs, d)
    if code:
        return code, x, 0.0
    u = W @ x + q
    return 0, x, np.sqrt(u @ u)


@njit
def lu_solve(J, rhs):
    """``J⁻¹ rhs`` by one LU factorization with partial pivoting (:func:`_getrf_getrs`): the numbers of
    :func:`gaussqp.linalg.dense.lu_solver` bit for bit (an exactly singular J gives non-finite entries, as there). Empty
    when J has a non-finite entry (where ``lu_solver`` raises). Arguments: J (N, N), rhs (N,) C-ordered float arrays;
    N = 0 gives an empty solution."""
    if J.shape[0] == 0:
        return rhs.copy()
    if not np.all(np.isfinite(J)):
        return np.zeros(0)
    return _getrf_getrs(J, rhs)[0]


@njit
def newton_iteration(
    W, q, r, phi, u, z, mu, rho, rho_c, d, qn, delta, merit, merit_ref, target, armijo, backtrack, step_min
):
    """One iteration of the dense Newton method (``nonsmooth_newton._iterate``): the Newton matrix
    (:func:`newton_matrix`), its step ``J⁻¹(−φ_ρ)`` (:func:`lu_solve`), then the backtracking along it and along the
    projected step ``−φ_ρ`` (the first ``t`` in ``1, β, β², … ≥ step_min`` with ``‖φ_ρ(r + t s)‖² <= merit_ref − 2σ t
    ‖φ_ρ(r)‖²``, or, on the Newton step, a point within ``target``): the operations of ``_System.solve`` and
    ``nonsmooth_newton._search`` in the same order. A Newton step with a non-finite entry (J singular, or with
    non-finite entries) is no step. Returns ``(direction, t, r', φ_ρ, u, z, residual, merit, A, B)`` with direction 0
    (Newton), 1 (projected) or 2 (neither descends: the caller tries the merit's steepest descent, with the Jacobian's
    blocks ``A``, ``B``)."""
    J, A, B = newton_matrix(W, u, z, mu, rho_c, delta, d)
    step = lu_solve(J, -phi)
    kind, t, rn, phin, un, zn, resn, mn = _search(
        W,
        _NO_INDEX,
        _NO_INDEX,
        _NO_DATA,
        q,
        r,
        mu,
        rho,
        d,
        qn,
        phi,
        merit,
        merit_ref,
        step,
        target,
        armijo,
        backtrack,
        step_min,
    )
    return kind, t, rn, phin, un, zn, resn, mn, A, B


#: :func:`newton_loop`'s outcomes (``nonsmooth_newton._iterate``'s reasons, and a steepest descent to search)
LOOP_CONVERGED, LOOP_MAX_ITER, LOOP_STALLED, LOOP_DESCENT = 0, 1, 2, 3
#: :func:`newton_loop`'s rows of ``state``: the iterate, φ_ρ, u, z at it, the best iterate and its u
STATE_R, STATE_PHI, STATE_U, STATE_Z, STATE_BEST_R, STATE_BEST_U = 0, 1, 2, 3, 4, 5
#: ... its entries of ``values``: residual, merit, best residual, best merit (the stall test's), δ, the reference
VALUE_RES, VALUE_MERIT, VALUE_BEST_RES, VALUE_BEST_MERIT, VALUE_DELTA, VALUE_REF = 0, 1, 2, 3, 4, 5
#: ... and of ``counts``: iterations, iterations since the best merit fell, merits kept
COUNT_K, COUNT_SINCE, COUNT_KEPT = 0, 1, 2
#: ... and of ``consts``: Armijo's σ, the backtracking factor, the smallest step, δ's floor, the stall factor, the cycle
#: test's tolerance
CONST_ARMIJO, CONST_BACKTRACK, CONST_STEP_MIN, CONST_FLOOR, CONST_STALL_FACTOR, CONST_CYCLE_RTOL = 0, 1, 2, 3, 4, 5


@njit
def _cycling(recent, n, rtol):
    # nonsmooth_newton._cycling on the first n merits of recent
    if n < 4:
        return False
    a, b, c, e = recent[n - 4], recent[n - 3], recent[n - 2], recent[n - 1]
    return abs(e - b) <= rtol * (b if b > e else e) and abs(c - a) <= rtol * (a if a > c else c)


@njit
def _accepted(state, values, counts, recent, log, kind, t, consts, limits, stop_cycles):
    # the bookkeeping of an accepted iterate (already in state and values): the history's row, the best iterate, the
    # stall and cycle tests; LOOP_STALLED or -1 (go on)
    k = counts[COUNT_K]
    merit = values[VALUE_MERIT]
    recent[counts[COUNT_KEPT]] = merit
    counts[COUNT_KEPT] += 1
    log[k - 1, 0] = values[VALUE_RES]
    log[k - 1, 1] = t
    log[k - 1, 2] = kind
    log[k - 1, 3] = values[VALUE_DELTA]
    if values[VALUE_RES] < values[VALUE_BEST_RES]:
        values[VALUE_BEST_RES] = values[VALUE_RES]
        state[STATE_BEST_R, :] = state[STATE_R]
        state[STATE_BEST_U, :] = state[STATE_U]
    stall_factor, cycle_rtol, stall_iter, cycle_iter = (
        consts[CONST_STALL_FACTOR],
        consts[CONST_CYCLE_RTOL],
        limits[0],
        limits[1],
    )
    if merit <= stall_factor * values[VALUE_BEST_MERIT]:
        values[VALUE_BEST_MERIT] = merit
        counts[COUNT_SINCE] = 0
    else:
        counts[COUNT_SINCE] += 1
        since = counts[COUNT_SINCE]
        if since >= stall_iter or (
            stop_cycles and since >= cycle_iter and _cycling(recent, counts[COUNT_KEPT], cycle_rtol)
        ):
            return LOOP_STALLED
    return -1


@njit
def newton_loop(
    W,
    q,
    mu,
    rho,
    rho_c,
    d,
    qn,
    rq,
    target,
    max_iter,
    window,
    theta,
    stop_cycles,
    consts,
    limits,
    state,
    values,
    counts,
    recent,
    log,
    pending,
):
    """The iterations of the dense Newton method (``nonsmooth_newton._iterate``), the operations of its NumPy loop in
    the same order: ``δ = max(δ_floor, θ min(1, ‖φ_ρ‖/‖ρq‖))``, the reference ``max`` of the last ``window`` merits
    (Grippo–Lampariello–Lucidi), :func:`newton_iteration`, then the best iterate, the stall test (the best merit not
    divided by ``1/stall_factor`` in ``stall_iter`` iterations) and, with ``stop_cycles``, the cycle test
    (``nonsmooth_newton._cycling``). It works in place on ``state`` (6, N: r, φ_ρ, u, z, the best r and its u),
    ``values`` (residual, merit, best residual, best merit, δ, reference), ``counts`` (iterations, iterations since the
    best merit, merits kept), ``recent`` (the merits, ``max_iter + 1``) and ``log`` (``max_iter`` rows: residual, step,
    direction, δ of each iteration). ``consts``: Armijo's σ, the backtracking factor, the smallest step, δ's floor, the
    stall factor, the cycle test's tolerance; ``limits``: the stall and the cycle iterations. ``pending >= 0``: the
    caller has just accepted a steepest-descent step of that length (written into ``state`` and ``values``), booked
    first. Returns ``(outcome, A, B)``: :data:`LOOP_CONVERGED`, :data:`LOOP_MAX_ITER`, :data:`LOOP_STALLED`, or
    :data:`LOOP_DESCENT` (neither the Newton nor the projected step descends: the caller searches the steepest descent
    with the Jacobian's blocks ``A``, ``B`` and calls again)."""
    armijo, backtrack, step_min, floor = (
        consts[CONST_ARMIJO],
        consts[CONST_BACKTRACK],
        consts[CONST_STEP_MIN],
        consts[CONST_FLOOR],
    )
    A = np.zeros((0, d, d))
    B = np.zeros((0, d, d))
    if pending >= 0.0:
        out = _accepted(state, values, counts, recent, log, 2, pending, consts, limits, stop_cycles)
        if out >= 0:
            return out, A, B
    while True:
        if values[VALUE_RES] <= target:
            return LOOP_CONVERGED, A, B
        if counts[COUNT_K] >= max_iter:
            return LOOP_MAX_ITER, A, B
        counts[COUNT_K] += 1
        phi = state[STATE_PHI]
        x = np.sqrt(np.dot(phi, phi)) / rq  # ‖φ_ρ‖ / ‖ρq‖ (NumPy's norm: the square root of BLAS's dot)
        delta = theta * (x if x < 1.0 else 1.0)
        delta = delta if delta > floor else floor
        n = counts[COUNT_KEPT]
        first = n - window if n > window else 0
        ref = recent[first]
        for i in range(first + 1, n):
            if recent[i] > ref:
                ref = recent[i]
        values[VALUE_DELTA] = delta
        values[VALUE_REF] = ref
        kind, t, rn, phin, un, zn, resn, mn, A, B = newton_iteration(
            W,
            q,
            state[STATE_R],
            phi,
            state[STATE_U],
            state[STATE_Z],
            mu,
            rho,
            rho_c,
            d,
            qn,
            delta,
            values[VALUE_MERIT],
            ref,
            target,
            armijo,
            backtrack,
            step_min,
        )
        if kind == 2:
            return LOOP_DESCENT, A, B
        state[STATE_R, :] = rn
        state[STATE_PHI, :] = phin
        state[STATE_U, :] = un
        state[STATE_Z, :] = zn
        values[VALUE_RES] = resn
        values[VALUE_MERIT] = mn
        out = _accepted(state, values, counts, recent, log, kind, t, consts, limits, stop_cycles)
        if out >= 0:
            return out, A, B


@njit
def mixed_coulomb_rows(lam_n, lam_t, un, ut, C, ls, us, mu, DU, rows, ncols, tcols, E, Jac, values, jacobian):
    """F9's coulomb contacts ``C``: their rows ``λ̃ − P_K(λ̃ − (ũ + μ‖ũ_t‖ e_n))`` of ``E`` (when ``values``) and of its
    Jacobian (when ``jacobian``), written in place at ``rows`` (k·d,), the normal columns ``ncols`` (k,) and the
    tangential ones ``tcols`` (k, d − 1); the operations of ``mixed_law.MixedSystem._coulomb_rows`` in order.
    ``lam_t``, ``ut`` (m, d − 1); ``ls``, ``us``, ``mu`` (k,): the contacts' scales and friction; ``DU`` (m, d, n)."""
    d = ut.shape[1] + 1
    n = DU.shape[2]
    z = np.empty(d)
    lam = np.empty(d)
    proj = np.empty(d)
    P = np.zeros((d, d))
    D = np.zeros((d, d))
    PD = np.zeros((d, d))
    for idx in range(C.size):
        i = C[idx]
        lam[0] = lam_n[i] / ls[idx]
        for k in range(1, d):
            lam[k] = lam_t[i, k - 1] / ls[idx]
        s = 0.0
        for k in range(1, d):
            utk = ut[i, k - 1] / us[idx]
            s += utk * utk
            z[k] = lam[k] - utk
        nut = np.sqrt(s)
        z[0] = lam[0] - un[i] / us[idx]
        z[0] -= mu[idx] * nut
        _project(z, proj, mu[idx], 0, d)
        r0 = rows[idx * d]
        if values:
            for k in range(d):
                E[r0 + k] = lam[k] - proj[k]
        if not jacobian:
            continue
        _projection_jacobian(z, P, mu[idx], 0, d)
        D[:, :] = 0.0
        for k in range(d):
            D[k, k] = 1.0
        if nut > 0.0:
            for k in range(1, d):
                D[0, k] = (mu[idx] / nut) * (ut[i, k - 1] / us[idx])
        for a in range(d):
            for b in range(d):
                pd = 0.0
                for k in range(d):
                    pd += P[a, k] * D[k, b]
                PD[a, b] = pd
        Jd = np.dot(PD, DU[i])  # NumPy's batched matmul calls BLAS's dgemm for these (d, d) × (d, n) products
        for a in range(d):
            for j in range(n):
                Jac[r0 + a, j] = Jd[a, j]
            Jac[r0 + a, ncols[idx]] = (1.0 if a == 0 else 0.0) - P[a, 0]
            for k in range(1, d):
                Jac[r0 + a, tcols[idx, k - 1]] = (1.0 if a == k else 0.0) - P[a, k]


@njit
def mixed_simple_rows(lam_n, un, I, bilateral, ls, us, DU, rows, E, Jac, values, jacobian):
    """F9's frictionless (or told sliding) contacts ``I``, one row each at ``rows``: ``ũ_n`` for a bilateral one,
    ``λ̃_n − max(0, λ̃_n − ũ_n)`` for a unilateral one, in ``E`` (when ``values``) and its Jacobian (when ``jacobian``),
    in place; the operations of ``mixed_law.MixedSystem._contact`` for those kinds."""
    n = DU.shape[2]
    for idx in range(I.size):
        i = I[idx]
        r = rows[idx]
        un_ = un[i] / us[idx]
        if bilateral[idx]:
            if values:
                E[r] = un_
            if jacobian:
                for j in range(n):
                    Jac[r, j] = DU[i, 0, j]
            continue
        ln = lam_n[i] / ls[idx]
        z = ln - un_
        if values:
            E[r] = ln - (z if z > 0.0 else 0.0)
        if jacobian:
            if z > 0.0:
                for j in range(n):
                    Jac[r, j] = DU[i, 0, j]
            else:
                Jac[r, n + i] = 1.0


@njit
def mixed_state(x, a_scale, lam_scale, cone, cone_t, N, b, T, c):
    """F9's unknowns ``x`` in the problem's units and the contact velocities: ``(a, λ_n, λ_t, u_n, u_t)``, the
    operations of ``mixed_law.MixedSystem.split`` and ``velocities`` in order (the products by BLAS's dgemv, as
    NumPy's). ``cone`` (k,): the contacts with tangential unknowns, ``cone_t`` (k·(d − 1),): their places in ``x``."""
    n = a_scale.size
    m = lam_scale.size
    d1 = T.shape[0] // m
    a = a_scale * x[:n]
    lam_n = lam_scale * x[n : n + m]
    lam_t = np.zeros((m, d1))
    for idx in range(cone.size):
        i = cone[idx]
        for k in range(d1):
            lam_t[i, k] = lam_scale[i] * x[cone_t[idx * d1 + k]]
    un = np.dot(N, a) + b
    ut = (np.dot(T, a) + c).reshape(m, d1)
    return a, lam_n, lam_t, un, ut


@njit
def mixed_dynamics(M, F, N, T, a, lam_n, lam_t, sliding, slide_dir, dyn_scale):
    """F9's dynamics rows ``(M a + F + g − J_nᵀλ_n − J_tᵀλ_t) / scale`` with the told sliding friction
    ``g = Σ |λ_n,i| μ_i T_iᵀ s_i`` (``sliding`` (k,), ``slide_dir`` (k, n)); the operations of
    ``mixed_law.MixedSystem.dynamics`` in order."""
    g = np.zeros(a.size)
    for idx in range(sliding.size):
        g += abs(lam_n[sliding[idx]]) * slide_dir[idx]
    return (np.dot(M, a) + F + g - np.dot(N.T, lam_n) - np.dot(T.T, lam_t.ravel())) / dyn_scale


@njit
def gelsy_lstsq(A, rhs, rcond):
    """The minimum-norm least-squares solution of ``A x ≈ rhs`` by LAPACK's ``gelsy`` through SciPy's bindings, called
    as ``scipy.linalg.lstsq(A, rhs, cond=rcond, lapack_driver="gelsy")`` calls it (a column-ordered copy of A, the
    right-hand side padded to ``max(m, n)`` rows, every column free to pivot, the workspace LAPACK asks for): the
    numbers of :func:`gaussqp.linalg.dense.min_norm_lstsq` bit for bit. A (m, n) with m, n >= 1, rhs (m,)."""
    m, n = A.shape
    a = A.T.copy().T  # LAPACK's column order, a copy: the factors overwrite it
    ldb = max(m, n)
    b = np.zeros(ldb)
    b[:m] = rhs
    jpvt = np.zeros(n, dtype=np.int32)
    m_ = np.full(1, m, dtype=np.int32)
    n_ = np.full(1, n, dtype=np.int32)
    one = np.ones(1, dtype=np.int32)
    ldb_ = np.full(1, ldb, dtype=np.int32)
    rc = np.full(1, rcond)
    rank = np.zeros(1, dtype=np.int32)
    info = np.zeros(1, dtype=np.int32)
    work = np.zeros(1)
    lwork = np.full(1, -1, dtype=np.int32)  # the workspace query first, as SciPy's ``gelsy_lwork``
    _dgelsy(
        m_.ctypes, n_.ctypes, one.ctypes, a.ctypes, m_.ctypes, b.ctypes, ldb_.ctypes, jpvt.ctypes, rc.ctypes,
        rank.ctypes, work.ctypes, lwork.ctypes, info.ctypes,
    )  # fmt: skip
    lwork[0] = np.int32(work[0])
    work = np.zeros(max(lwork[0], 1))
    _dgelsy(
        m_.ctypes, n_.ctypes, one.ctypes, a.ctypes, m_.ctypes, b.ctypes, ldb_.ctypes, jpvt.ctypes, rc.ctypes,
        rank.ctypes, work.ctypes, lwork.ctypes, info.ctypes,
    )  # fmt: skip
    return b[:n].copy()


@njit
def _gesv(A, rhs):
    """``(A⁻¹ rhs, True)`` by :func:`_getrf_getrs`, or ``(rhs, False)`` when ``getrf`` finds an exactly zero pivot: the
    calls of :func:`gaussqp.linalg.dense.gesv`, the Python loop's (NumPy's own ``solve`` calls another LAPACK build)."""
    x, singular = _getrf_getrs(A, rhs)
    if singular:
        return rhs, False
    return x, True


@njit
def gram(J):
    """``JᵀJ`` as :func:`gaussqp.linalg.dense.gram` computes it (the Python loop's; NumPy's ``J.T @ J`` makes the same
    ``syrk`` call from another BLAS build) for a C-ordered ``J`` (k, N): BLAS's ``syrk`` on one triangle (row-major
    upper, i.e. column-major lower of ``J``'s buffer read as ``Jᵀ``), then the triangle mirrored."""
    k, N = J.shape
    C = np.zeros((N, N))
    if N == 0:
        return C
    A = np.ascontiguousarray(J)
    uplo = np.full(1, 76, dtype=np.uint8)  # 'L' (column-major) = upper (row-major)
    trans = np.full(1, 78, dtype=np.uint8)  # 'N': (Jᵀ read column-major) times its transpose
    n_ = np.full(1, N, dtype=np.int32)
    k_ = np.full(1, k, dtype=np.int32)
    alpha = np.ones(1)
    beta = np.zeros(1)
    _dsyrk(uplo.ctypes, trans.ctypes, n_.ctypes, k_.ctypes, alpha.ctypes, A.ctypes, n_.ctypes, beta.ctypes, C.ctypes,
           n_.ctypes)  # fmt: skip
    for i in range(N):
        for j in range(i + 1, N):
            C[j, i] = C[i, j]
    return C


@njit
def mixed_evaluate(x, values, jacobian, ev):
    """F9's map ``E(x)`` (when ``values``) and its Jacobian (when ``jacobian``; else an empty array) on a system of
    coulomb, frictionless and told sliding contacts only: the operations of ``mixed_law.MixedSystem._evaluate`` with
    its compiled kernels, in order. ``ev``: the system's data (``MixedSystem.loop_data``)."""
    a_sc, l_sc, cone, cone_t, N, b, T, c, M, F, sliding, slide, dyn = ev[0]
    I, bil, ils, ius, irows = ev[1]
    C, cls, cus, cmu, crows, cncols, ctcols = ev[2]
    DU, dynjac, total, size = ev[3], ev[4], ev[5], ev[6]
    n = a_sc.size
    a, lam_n, lam_t, un, ut = mixed_state(x, a_sc, l_sc, cone, cone_t, N, b, T, c)
    E = np.empty(total)
    if values:
        E[:n] = mixed_dynamics(M, F, N, T, a, lam_n, lam_t, sliding, slide, dyn)
    Jac = np.zeros((total, size)) if jacobian else np.zeros((0, 0))
    if jacobian:
        Jac[:n] = dynjac
        for idx in range(sliding.size):  # the told sliding friction's column per unit |λ_n|
            i = sliding[idx]
            s = np.sign(lam_n[i])
            for j in range(n):
                Jac[j, n + i] = ((-N[i, j] + s * slide[idx, j]) * l_sc[i]) / dyn[j]
    if I.size:
        mixed_simple_rows(lam_n, un, I, bil, ils, ius, DU, irows, E, Jac, True, jacobian)
    if C.size:
        mixed_coulomb_rows(lam_n, lam_t, un, ut, C, cls, cus, cmu, DU, crows, cncols, ctcols, E, Jac, values, jacobian)
    return E, Jac


#: :func:`mixed_newton_loop`'s ending: converged (or the iterations spent), the work budget refused a step, no descent
MIXED_DONE, MIXED_BUDGET, MIXED_NO_DESCENT = 0, 1, 2


@njit
def mixed_newton_loop(x0, target, iter_max, consts, budget, ev):
    """F9's Newton stage (``coulomb_mixed._newton``), the operations of its NumPy loop in the same order: the plain
    least-squares Newton step (:func:`gelsy_lstsq`), kept when it lowers the merit ``‖E‖²`` by Armijo's factor, else the
    Levenberg–Marquardt step ``(JᵀJ + θ‖E‖ I) δ = −JᵀE`` (:func:`_gesv`; the plain step when that matrix is exactly
    singular) with backtracking, θ halved after a full step and doubled otherwise. ``consts``: θ₀, Armijo's σ, the
    backtracking factor, the smallest step, the least-squares ``rcond``. ``budget`` (in place): ``[on, limit, step,
    spent, exhausted]`` (one step spent per iteration, as ``WorkBudget.spend``). Returns ``(best x, k, residuals,
    steps, count, ending)``: the iterations' residuals and accepted steps (0 when none was accepted) of the history,
    their count, and :data:`MIXED_DONE`, :data:`MIXED_BUDGET` or :data:`MIXED_NO_DESCENT`."""
    theta, armijo, backtrack, step_min, rcond = consts[0], consts[1], consts[2], consts[3], consts[4]
    x = x0.copy()
    E, Jac = mixed_evaluate(x, True, True, ev)
    best_res = np.max(np.abs(E)) if E.size else 0.0
    best_x = x.copy()
    N = x.size
    res_log = np.zeros(iter_max)
    step_log = np.zeros(iter_max)
    count = 0
    ending = MIXED_DONE
    k = 0
    for it in range(1, iter_max + 1):
        k = it
        res = np.max(np.abs(E)) if E.size else 0.0
        if res < best_res:
            best_res = res
            best_x = x.copy()
        if res <= target:
            k -= 1
            break
        if budget[0] > 0.0:
            if budget[4] > 0.0 or budget[3] + budget[2] > budget[1]:
                budget[4] = 1.0
                res_log[count] = res
                count += 1
                ending = MIXED_BUDGET
                k -= 1
                break
            budget[3] += budget[2]
        merit = np.dot(E, E)
        accepted = False
        t = 1.0
        if np.all(np.isfinite(Jac)) and np.all(np.isfinite(E)):
            full = gelsy_lstsq(Jac, -E, rcond)
        else:
            full = np.full(N, np.nan)
        if np.all(np.isfinite(full)):
            E_new = mixed_evaluate(x + full, True, False, ev)[0]
            if np.dot(E_new, E_new) <= (1 - 2 * armijo) * merit:
                x = x + full
                E = E_new
                accepted = True
                t = 1.0
                Jac = mixed_evaluate(x, False, True, ev)[1]
        if not accepted:
            lam = theta * np.sqrt(merit)
            step, ok = _gesv(gram(Jac) + lam * np.eye(N), -np.dot(Jac.T, E))
            if not ok:
                step = full
            t = 1.0
            if np.all(np.isfinite(step)):
                while t >= step_min:
                    E_new = mixed_evaluate(x + t * step, True, False, ev)[0]
                    if np.dot(E_new, E_new) <= (1 - 2 * armijo * t) * merit:
                        x = x + t * step
                        E = E_new
                        accepted = True
                        Jac = mixed_evaluate(x, False, True, ev)[1]
                        break
                    t *= backtrack
            theta = theta * backtrack if t == 1 else theta / backtrack
        res_log[count] = res
        step_log[count] = t if accepted else 0.0
        count += 1
        if not accepted:
            ending = MIXED_NO_DESCENT
            break
    res = np.max(np.abs(E)) if E.size else 0.0
    if res < best_res:
        best_x = x.copy()
    return best_x, k, res_log, step_log, count, ending


@njit
def carried_blocks(cos, Tn, To, old, cmin):
    """``(out, hits)``: the operations of ``formulations.coulomb.carried_blocks_numpy`` (its reference) in one call.
    Each new contact i takes the reaction ``old_j`` of the old contact j of largest normal-row cosine ``cos[i, j] ≥
    cmin``, greedy by cosine (ties in index order: a stable sort), each old contact used once; its tangential part
    solves ``(T_i T_iᵀ) x = T_i (T_jᵀ r_t,j)`` with ``T_i = Tn[i]``, ``T_j = To[j]``. The Gram entries and right-hand
    sides by BLAS's ddot (one tangent row) or dgemv (two), as NumPy's products of the same C-ordered blocks make them.
    Arguments: cos (mn, mo), Tn (mn, t, n), To (mo, t, n), old (mo, d) C-ordered float arrays (t = d − 1 of 1 or 2,
    or 0: no tangential part carried; the caller runs the NumPy code for more tangent rows), cmin a float."""
    mn, mo = cos.shape
    d = old.shape[1]
    t = Tn.shape[1]
    flat = np.empty(mn * mo, dtype=np.int64)
    vals = np.empty(mn * mo)
    count = 0
    for i in range(mn):
        for j in range(mo):
            c = cos[i, j]
            if c >= cmin:
                flat[count] = i * mo + j
                vals[count] = -c
                count += 1
    order = np.argsort(vals[:count], kind="mergesort")
    src = np.full(mn, -1, dtype=np.int64)
    used = np.zeros(mo, dtype=np.bool_)
    for k in range(count):
        i, j = divmod(flat[order[k]], mo)
        if src[i] < 0 and not used[j]:
            src[i] = j
            used[j] = True
    out = np.zeros((mn, d))
    hits = 0
    eps = np.finfo(np.float64).eps
    for i in range(mn):
        j = src[i]
        if j < 0:
            continue
        hits += 1
        out[i, 0] = old[j, 0]
        if t == 0:
            continue
        f = old[j, 1] * To[j, 0]
        for s in range(1, t):
            f = f + old[j, 1 + s] * To[j, s]
        Ti = Tn[i]
        if t == 1:
            g = np.dot(Ti[0], Ti[0])
            b = np.dot(Ti[0], f)
            out[i, 1] = b / g if abs(g) > eps * abs(g) else 0.0
        else:
            rhs = np.dot(Ti, f)
            c0 = np.dot(Ti, Ti[0])
            c1 = np.dot(Ti, Ti[1])
            a, c, g10, e = c0[0], c1[0], c0[1], c1[1]
            det = a * e - c * g10
            inv = 1.0 / det if abs(det) > eps * ((a + e) * (a + e)) else 0.0
            out[i, 1] = (e * rhs[0] - c * rhs[1]) * inv
            out[i, 2] = (a * rhs[1] - g10 * rhs[0]) * inv
    return out, hits


@njit
def gauss_seidel_sweeps(indptr, indices, data, q, mu, rho, diagonal, r, sweeps, local_iter, d):
    """``sweeps`` projected Gauss–Seidel sweeps on ``r`` in place: the operations of
    :func:`gaussqp.friction.splitting_start.gauss_seidel_sweeps_numpy` (its reference) in its order. Arguments: W in
    canonical CSR arrays (``indptr``, ``indices`` int64, ``data``), q (m·d,), μ and ρ (m,), ``diagonal`` (m, d, d) W's
    diagonal blocks, r (m·d,) C-ordered floats; ``sweeps``, ``local_iter``, d ints."""
    m = mu.size
    b = np.empty(d)
    x = np.empty(d)
    u = np.empty(d)
    y = np.empty(d)
    for _ in range(sweeps):
        for i in range(m):
            o = i * d
            for k in range(d):
                s = 0.0
                for jj in range(indptr[o + k], indptr[o + k + 1]):
                    s += data[jj] * r[indices[jj]]
                t = s + q[o + k]
                for col in range(d):
                    t -= diagonal[i, k, col] * r[o + col]
                b[k] = t
                x[k] = r[o + k]
            rho_i = rho[i]
            mu_i = mu[i]
            for _ in range(local_iter):
                for k in range(d):
                    t = b[k]
                    for col in range(d):
                        t += diagonal[i, k, col] * x[col]
                    u[k] = t
                tn = 0.0
                for k in range(1, d):
                    tn += u[k] * u[k]
                y[0] = x[0] - rho_i * (u[0] + mu_i * np.sqrt(tn))
                for k in range(1, d):
                    y[k] = x[k] - rho_i * u[k]
                same = True
                # the projection of y on K_μ into x (project_cone's three pieces), noting whether x changes
                nt2 = 0.0
                for k in range(1, d):
                    nt2 += y[k] * y[k]
                yn = y[0]
                nt = np.sqrt(nt2)
                if nt <= mu_i * yn and yn >= 0.0:
                    for k in range(d):
                        same = same and y[k] == x[k]
                        x[k] = y[k]
                elif mu_i * nt <= -yn:
                    for k in range(d):
                        same = same and x[k] == 0.0
                        x[k] = 0.0
                else:
                    alpha = (yn + mu_i * nt) / (1.0 + mu_i * mu_i)
                    safe = nt if nt > 0.0 else 1.0
                    same = same and x[0] == alpha
                    x[0] = alpha
                    for k in range(1, d):
                        v = (mu_i * alpha / safe) * y[k]
                        same = same and x[k] == v
                        x[k] = v
                if same:
                    break
            for k in range(d):
                r[o + k] = x[k]
