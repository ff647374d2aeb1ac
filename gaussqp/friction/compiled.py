"""Compiled kernels of the dense semismooth Newton method (:mod:`gaussqp.friction.nonsmooth_newton`), optional.

The Newton method's work per iteration on a small dense problem (a robot's 10–50 contacts) is a few dozen NumPy
calls on arrays of a few hundred entries: the map ``φ_ρ`` and its certificate's ``φ_1`` (one product with W, two
cone projections), the blocks of the generalized Jacobian and the Newton matrix
``J = blockdiag(A) + blockdiag(B) W``. Their time is the calls', not the arithmetic's (~2 µs each, ~250 µs an
iteration on the humanoid's 42 unknowns). With ``numba`` installed (``pip install 'gaussqp[fast]'``) these three
steps run as compiled loops over the contacts, the same formulas in the same order of pieces:

- :func:`natural_maps`: ``u = W r + q``, ``s = u + μ‖u_t‖e_n``, ``z = r − ρ s``, ``φ_ρ = r − P_K(z)``,
  ``φ_1 = r − P_K(r − s)`` (Acary, Brémond, Huber 2018, eq. (12); :func:`gaussqp.friction.coulomb_law.project_cone`);
- :func:`jacobian_blocks`: ``P' = ∂P_K(z)`` (:func:`gaussqp.friction.nonsmooth_newton.cone_projection_jacobian`),
  ``D = ∂s/∂u`` (:func:`~gaussqp.friction.nonsmooth_newton.shift_jacobian`), ``A = I − P' + δP'D``, ``B = ρ P'D``,
  ``A₀ = I − P'``;
- :func:`newton_matrix`: ``J`` assembled densely;
- :func:`projection_with_jacobian`: ``P_K(z)`` and ``P'(z)`` block by block (F9's map,
  :meth:`gaussqp.friction.mixed_law.MixedSystem.evaluate`).

The linear solves stay with LAPACK (``getrf``/``getrs``). Nothing here decides anything: the NumPy functions are the
reference (``tests/friction/test_compiled_kernels.py`` checks these against them), the route's answer is judged on
its recomputed residual either way. Without numba :func:`kernels` is None and the NumPy path runs; the kernels are
compiled on first use and cached on disk (numba's ``cache=True``).
"""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import numpy as np


def _define(numba, cache: bool = True):
    """The kernels, compiled by ``numba.njit`` (defined here so that this module imports without numba); ``cache``:
    kept in numba's on-disk cache (beside this file, else in the user's cache directory)."""
    njit = numba.njit(cache=cache, nogil=True)

    @njit
    def _project(x, out, mu, j, d):
        # the projection of block j of x on K_μ into out (project_cone's three pieces)
        xn = x[j * d]
        s = 0.0
        for k in range(1, d):
            s += x[j * d + k] * x[j * d + k]
        nt = np.sqrt(s)
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
        N = q.size
        m = N // d
        u = W @ r + q
        z = np.empty(N)
        w = np.empty(N)  # r − s, the ρ = 1 map's argument
        for j in range(m):
            s = 0.0
            for k in range(1, d):
                s += u[j * d + k] * u[j * d + k]
            shift = mu[j] * np.sqrt(s)
            for k in range(d):
                sk = u[j * d + k] + (shift if k == 0 else 0.0)
                z[j * d + k] = r[j * d + k] - rho[j * d + k] * sk
                w[j * d + k] = r[j * d + k] - sk
        pz = np.empty(N)
        pw = np.empty(N)
        for j in range(m):
            _project(z, pz, mu[j], j, d)
            _project(w, pw, mu[j], j, d)
        phi = r - pz
        phi1 = r - pw
        return phi, u, z, np.sqrt(phi1 @ phi1)

    @njit
    def _projection_jacobian(z, P, mj, j, d):
        # P' at block j of z into P (cone_projection_jacobian's pieces)
        P[:, :] = 0.0
        zn = z[j * d]
        s = 0.0
        for k in range(1, d):
            s += z[j * d + k] * z[j * d + k]
        t = np.sqrt(s)
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
        m = z.size // d
        out = np.empty(z.size)
        P = np.zeros((m, d, d))
        for j in range(m):
            _project(z, out, mu[j], j, d)
            _projection_jacobian(z, P[j], mu[j], j, d)
        return out, P

    @njit
    def jacobian_blocks(u, z, mu, rho_c, delta, d):
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
            s = 0.0
            for k in range(1, d):
                s += u[j * d + k] * u[j * d + k]
            nt = np.sqrt(s)
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
    def newton_matrix(A, B, W):
        m, d, _ = A.shape
        N = m * d
        J = np.empty((N, N))
        for j in range(m):
            for a in range(d):
                row = j * d + a
                for c in range(N):
                    acc = 0.0
                    for k in range(d):
                        acc += B[j, a, k] * W[j * d + k, c]
                    J[row, c] = acc
                for b in range(d):
                    J[row, j * d + b] += A[j, a, b]
        return J

    return SimpleNamespace(
        natural_maps=natural_maps,
        jacobian_blocks=jacobian_blocks,
        newton_matrix=newton_matrix,
        projection_with_jacobian=projection_with_jacobian,
    )


def plain(x) -> np.ndarray:
    """``x`` as a writable C-ordered float array (a copy only when it is not one): the one argument type the kernels
    are compiled for."""
    if type(x) is np.ndarray and x.dtype == np.float64 and x.flags.c_contiguous and x.flags.writeable:
        return x  # the common case (the kernels' own outputs, fresh iterates), without numpy.require's checks
    return np.require(x, dtype=float, requirements=("C", "W"))


@lru_cache(maxsize=1)
def kernels() -> SimpleNamespace | None:
    """The compiled kernels (``natural_maps``, ``jacobian_blocks``, ``newton_matrix``, ``projection_with_jacobian``),
    or None without ``numba`` (the NumPy kernels then run)."""
    try:
        import numba
    except ImportError:
        return None
    try:
        return _define(numba)
    except RuntimeError:  # numba finds no writable cache directory: compiled in each process instead
        return _define(numba, cache=False)


__all__ = ["kernels", "plain"]
