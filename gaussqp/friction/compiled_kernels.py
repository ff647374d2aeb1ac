"""The compiled kernels of :mod:`gaussqp.friction.compiled` (imported only through
:func:`gaussqp.friction.compiled.kernels`, and only when numba is installed). Module-level functions: numba
caches them on disk for every process (functions nested in another function are compiled again in each process)."""

from __future__ import annotations

import numpy as np

from ..linalg.jit import njit


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
    N = z.size
    m = N // d
    J = np.empty((N, N))
    for j in range(m):
        J[j * d : (j + 1) * d, :] = np.dot(np.ascontiguousarray(B[j]), np.ascontiguousarray(W[j * d : (j + 1) * d, :]))
        for a in range(d):
            for b in range(d):
                J[j * d + a, j * d + b] += A[j, a, b]
    return J, A, B


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
    # the backtracking of line_search with W dense (indptr empty) or in CSR arrays (W empty): the maps of
    # natural_maps after u = W r + q by W's own product
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
def line_search(W, q, r, mu, rho, d, qn, phi, merit, merit_ref, step, target, armijo, backtrack, step_min):
    """The backtracking of ``nonsmooth_newton._iterate`` along the Newton step ``step`` (none when it is empty), then
    along the projected step ``−φ_ρ``: the first ``t`` in ``1, β, β², … ≥ step_min`` with ``‖φ_ρ(r + t s)‖² <=
    merit_ref − 2σ t ‖φ_ρ(r)‖²`` (or, on the Newton step, a point within ``target``), the same operations in the same
    order; a Newton step with a non-finite entry (an exactly singular J's solve) is no step. Returns ``(direction, t, r',
    φ_ρ, u, z, residual, merit)`` with direction 0 (Newton), 1 (projected) or 2 (neither descends: the caller tries the
    merit's steepest descent)."""
    return _search(
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


@njit
def line_search_csr(
    indptr, indices, data, q, r, mu, rho, d, qn, phi, merit, merit_ref, step, target, armijo, backtrack, step_min
):
    """:func:`line_search` for a sparse W given by its CSR arrays (``indptr``, ``indices`` unsigned int arrays of one
    type, ``data``; duplicates summed), whose product is :func:`csr_velocity` (SciPy's numbers): the sparse Newton's
    backtracking (``nonsmooth_newton._compiled_sparse_search``), the operations of ``nonsmooth_newton._search`` in the
    same order."""
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
