"""The compiled kernel of :func:`gaussqp.model.scales.data_scales` on a dense problem with M ≻ 0 (imported only by
:mod:`gaussqp.model.scales`, and only with numba installed).

:func:`row_scales` is :func:`gaussqp.model.scales._numpy_scales` written as loops, with the same operations in the same
order (the products by :func:`gaussqp.linalg.jit.matvec`, NumPy's BLAS calls on the same layouts; the largest entries of
nonnegative numbers, where the order does not matter; Python's ``max`` where the NumPy code takes it), so the same
numbers bit for bit (``tests/model/test_compiled_scales.py``).
"""

from __future__ import annotations

import numpy as np

from ..linalg.jit import matvec, njit, python_max


@njit
def _row_inf_norms(A, s):
    """``(|A| * s).max(axis=1, initial=0.0)``."""
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        v = 0.0
        for j in range(A.shape[1]):
            x = abs(A[i, j]) * s[j]
            if v != v:
                break
            if x != x or x > v:
                v = x
        out[i] = v
    return out


@njit
def _abs_max(x):
    """``float(np.abs(x).max(initial=0.0))``."""
    v = 0.0
    for i in range(x.size):
        y = abs(x[i])
        if v != v:
            break
        if y != y or y > v:
            v = y
    return v


@njit
def _ratios(num, den):
    """``np.divide(num, den, out=np.zeros_like(num), where=den > 0)``."""
    out = np.zeros(num.size)
    for i in range(num.size):
        if den[i] > 0:
            out[i] = num[i] / den[i]
    return out


@njit
def row_scales(M, F, Jn, b, Jt, c, s, R, w, lam_max):
    """``(wn, wt, free, accel, force, normal_row, tangent_row, dynamics_row, work)`` of a dense problem with M ≻ 0
    (``R``, ``w``, ``s``: its mass factor, the eigenvalues of ``M̃`` and the Jacobi scaling; ``b``, ``c``: the drifts'
    magnitudes; ``lam_max``: ``M̃``'s largest eigenvalue), as :func:`gaussqp.model.scales._numpy_scales` computes them."""
    m, k = Jn.shape[0], Jt.shape[0]
    wn = _row_inf_norms(Jn, s) if m else np.zeros(0)
    wt = _row_inf_norms(Jt, s) if k else np.zeros(0)
    drift_n = _abs_max(_ratios(b, wn))
    drift_t = _abs_max(_ratios(c, wt))
    free = 0.0
    if np.any(F != 0.0):
        Rs = R * s.reshape(1, -1)
        y = matvec(Rs, s * F) / (w * w)
        free = _abs_max(matvec(Rs.T, y))
    accel = python_max(python_max(free, drift_n), drift_t)
    force = python_max(_abs_max(s * F), python_max(lam_max, 1.0) * accel)
    if accel == 0.0 and force == 0.0:  # no load, no drift: the answer is zero; any unit judges it
        accel = 1.0
        force = 1.0
    elif force == 0.0:
        force = accel
    elif accel == 0.0:
        accel = force
    acc = s * accel
    normal_row = matvec(np.abs(Jn), acc) + b if m else np.zeros(0)
    tangent_row = matvec(np.abs(Jt), acc) + c if k else np.zeros(0)
    lam_n = np.zeros(m)
    for i in range(m):
        if wn[i] > 0:
            lam_n[i] = force / wn[i]
    lam_t = np.zeros(k)
    for i in range(k):
        if wt[i] > 0:
            lam_t[i] = force / wt[i]
    mass_terms = matvec(np.abs(M), acc)
    F_abs = np.abs(F)
    work = np.dot(acc, mass_terms) + np.dot(F_abs, acc)
    work = work + (np.dot(lam_n, b) if m else 0.0)
    work = work + (np.dot(lam_t, c) if k else 0.0)
    dynamics_row = mass_terms + F_abs
    dynamics_row = dynamics_row + (matvec(np.abs(Jn).T, lam_n) if m else np.zeros(dynamics_row.size))
    dynamics_row = dynamics_row + (matvec(np.abs(Jt).T, lam_t) if k else np.zeros(dynamics_row.size))
    return wn, wt, free, accel, force, normal_row, tangent_row, dynamics_row, work
