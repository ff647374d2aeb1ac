"""The compiled kernels of :mod:`gaussqp.friction.compiled` (imported only through
:func:`gaussqp.friction.compiled.kernels`, and only when numba is installed). Module-level functions: numba
caches them on disk for every process (functions nested in another function are compiled again in each process)."""

from __future__ import annotations

import numba
import numpy as np


def njit(fn):
    """``numba.njit`` with numba's on-disk cache, or without it where numba finds no writable cache directory."""
    try:
        return numba.njit(cache=True, nogil=True)(fn)
    except RuntimeError:
        return numba.njit(nogil=True)(fn)


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
            sk = u[j * d + k] + (shift if k == 0 else 0.0)
            z[j * d + k] = r[j * d + k] - rho[j * d + k] * sk
            w[j * d + k] = r[j * d + k] - sk
    pz = np.empty(N)
    pw = np.empty(N)
    for j in range(m):
        _project(z, pz, mu[j], j, d)
        _project(w, pw, mu[j], j, d)
    return r - pz, z, r - pw


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
def projection_with_jacobian(z, mu, d):
    """``(P_K(z), P'(z))``: the projection of each block of ``z`` (N,) on ``K_μ`` (``coulomb_law.project_cone``) and
    its B-subdifferential element (m, d, d) (``nonsmooth_newton.cone_projection_jacobian``)."""
    m = z.size // d
    out = np.empty(z.size)
    P = np.zeros((m, d, d))
    for j in range(m):
        _project(z, out, mu[j], j, d)
        _projection_jacobian(z, P[j], mu[j], j, d)
    return out, P


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
