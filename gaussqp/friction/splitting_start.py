"""A start for the mode-free Newton method from projected Gauss–Seidel sweeps: the contacts' modes found by splitting.

The problem is the local form ``u = W r + q`` with Coulomb's law in De Saxcé's form
(:mod:`gaussqp.friction.coulomb_law`): ``K_μ ∋ r ⟂ u + μ‖u_t‖e_n ∈ K_μ*``. A sweep visits the contacts in turn and
solves each one's law with the others' reactions frozen (the nonsmooth Gauss–Seidel method, Jean 1999; Acary, Brémond,
Huber 2018 §5, Siconos's NSGS): with ``b_i = q_i + Σ_{j≠i} W_ij r_j`` the local problem is ``u_i = W_ii r_i + b_i``,
solved approximately by :data:`~gaussqp.settings.COULOMB_SWEEPS_LOCAL_ITER` steps of the projected fixed point ``r_i ←
P_K(r_i − ρ_i (u_i + μ_i‖u_{i,t}‖e_n))`` with ``ρ_i = 1/‖W_ii‖₂`` (Acary, Brémond, Huber 2018, eq. (12), contact by
contact). Each sweep costs one pass over W's entries.

The sweeps converge slowly (linearly, with a rate near one on ill-conditioned piles), but they settle each contact's
piece of the law — sticking, sliding, or separated — without a merit function, so they are not caught where the Newton
method's globalization stalls: a 21-contact group of a quadruped scene (W of rank 53 for 63 unknowns) where the Newton
from every start and the proximal rounds stall near 4e-6, and where one Newton step from the point of 176 sweeps or
more reaches 1e-10 of ‖q‖ (1.7e-7 from 170; round-off from about 200). That step is the Newton method's own ``guess
step`` (:func:`gaussqp.friction.nonsmooth_newton.solve_newton` with ``max_iter=0``), tried after
:data:`~gaussqp.settings.COULOMB_SWEEPS_CHECKS` sweeps; the sweeps stop when it reaches
:data:`~gaussqp.settings.COULOMB_NN_ACCEPT_RTOL` or at the work budget
:data:`~gaussqp.settings.COULOMB_SWEEPS_WORK_MAX`. Without the compiled kernels the sweeps run in the Python reference,
~200 times slower, within :data:`~gaussqp.settings.COULOMB_SWEEPS_WORK_NUMPY_MAX`. The route then runs the Newton from
the last point (:func:`gaussqp.formulations.coulomb._solve_connected`, the schedule's ``"sweeps"`` pairs, after the
proximal rounds when those do not converge). Nothing here is a certificate: the point is a start, judged by the Newton
method's merit and then by the route's recomputed residual.

With numba installed, and once the routes load it (:func:`gaussqp.friction.compiled.kernels_when_worth`), the sweeps
run as one compiled call (:func:`gaussqp.friction.compiled_kernels.gauss_seidel_sweeps`);
:func:`gauss_seidel_sweeps_numpy` is its reference: the same operations in the same order, the same numbers bit for bit
(``tests/friction/test_splitting_start.py``).
"""

from __future__ import annotations

import math
import time

import numpy as np
import scipy.sparse as sp

from ..linalg.csr import canonical
from ..settings import (
    COULOMB_NN_ACCEPT_RTOL,
    COULOMB_SWEEPS_CHECKS,
    COULOMB_SWEEPS_LOCAL_ITER,
    COULOMB_SWEEPS_WORK_MAX,
    COULOMB_SWEEPS_WORK_NUMPY_MAX,
)
from .compiled import kernels_when_worth, spent_in_numpy
from .nonsmooth_newton import diagonal_blocks, solve_newton


def sweep_start(W, q: np.ndarray, mu: np.ndarray, dimension: int, system=None) -> tuple[np.ndarray | None, dict]:
    """The point of projected Gauss–Seidel sweeps from ``r = 0`` (module docstring), checked after each count of
    :data:`~gaussqp.settings.COULOMB_SWEEPS_CHECKS` sweeps by one Newton step, and a report of what was done.

    Parameters
    ----------
    W : (m·d, m·d) array or scipy.sparse matrix, any symmetry, possibly singular
    q : (m·d,) free velocity, blocks (normal, t1[, t2])
    mu : (m,) friction coefficients
    dimension : d >= 2
    system : the Newton method's set-up for these data (:func:`~gaussqp.friction.nonsmooth_newton.newton_system`),
        shared with the caller's runs, or None

    Returns
    -------
    r : (m·d,) array, or None when not one count of sweeps fits the budget (:data:`~gaussqp.settings.COULOMB_SWEEPS_WORK_MAX`,
        :data:`~gaussqp.settings.COULOMB_SWEEPS_WORK_NUMPY_MAX` without the compiled kernels)
    report : dict
        ``sweeps`` done, ``checks`` (sweeps, the Newton step's residual ÷‖q‖) and ``reason`` (``"a Newton step from
        the sweeps converged"``, ``"the checks done"``, ``"the work budget"``, or why none ran), ``work_per_sweep``
        and ``compiled`` (whether the compiled kernel ran).

    Raises
    ------
    ValueError
        W, q and μ of sizes that do not match (the route's data are validated before they get here).

    Notes
    -----
    Jean, "The non-smooth contact dynamics method", CMAME 177 (1999); Acary, Brémond, Huber, "On solving contact
    problems with Coulomb friction: formulations and numerical comparisons" (2018) §5 and eq. (12); issue #27 ("warm-started
    by a cheap splitting sweep").
    """
    q = np.asarray(q, dtype=float).ravel()
    mu = np.asarray(mu, dtype=float).ravel()
    d = int(dimension)
    N = q.size
    m = N // d
    if W.shape != (N, N) or N != m * d or mu.size != m:
        raise ValueError(
            f"sweep_start: W of shape {W.shape}, q of {N} entries, {mu.size} coefficients μ in blocks of {d}: give W "
            "(m·d, m·d), q (m·d,) and μ (m,)"
        )
    Wc = canonical(sp.csr_matrix(W, dtype=float))  # sorted, no repeated entry: the kernel reads the arrays
    diagonal = diagonal_blocks(Wc, m, d)
    norms = np.linalg.norm(diagonal, 2, axis=(1, 2)) if m else np.zeros(0)
    # ρ_i = 1/‖W_ii‖₂; a contact whose block is zero is not moved by its sweeps (ρ = 0)
    rho = np.zeros(m)
    np.divide(1.0, norms, out=rho, where=norms > 0)
    fast = kernels_when_worth()
    budget, name = (
        (COULOMB_SWEEPS_WORK_MAX, "COULOMB_SWEEPS_WORK_MAX")
        if fast is not None
        else (COULOMB_SWEEPS_WORK_NUMPY_MAX, "COULOMB_SWEEPS_WORK_NUMPY_MAX")
    )
    per_sweep = Wc.nnz + m * d * d * COULOMB_SWEEPS_LOCAL_ITER
    counts = [c for c in COULOMB_SWEEPS_CHECKS if c * per_sweep <= budget]
    report: dict = {"sweeps": 0, "checks": [], "work_per_sweep": int(per_sweep), "compiled": fast is not None}
    if not counts:
        report["reason"] = (
            f"not run: one count of sweeps ({COULOMB_SWEEPS_CHECKS[0]} × {per_sweep} entries) exceeds {name} = "
            f"{budget:g}"
        )
        return None, report
    sweep = fast.gauss_seidel_sweeps if fast is not None else gauss_seidel_sweeps_numpy
    indptr = np.asarray(Wc.indptr, dtype=np.int64)
    indices = np.asarray(Wc.indices, dtype=np.int64)
    data = np.ascontiguousarray(Wc.data, dtype=float)
    r = np.zeros(N)
    report["reason"] = "the checks done" if len(counts) == len(COULOMB_SWEEPS_CHECKS) else "the work budget"
    for count in counts:
        t0 = time.perf_counter()
        sweep(indptr, indices, data, q, mu, rho, diagonal, r, count - report["sweeps"], COULOMB_SWEEPS_LOCAL_ITER, d)
        if fast is None:
            spent_in_numpy(time.perf_counter() - t0)
        report["sweeps"] = count
        check = solve_newton(W, q, mu, d, r0=r, max_iter=0, guess_only=True, system=system)
        report["checks"].append((count, float(check.residual)))
        if check.residual <= COULOMB_NN_ACCEPT_RTOL:
            report["reason"] = "a Newton step from the sweeps converged"
            break
    return r, report


def gauss_seidel_sweeps_numpy(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    q: np.ndarray,
    mu: np.ndarray,
    rho: np.ndarray,
    diagonal: np.ndarray,
    r: np.ndarray,
    sweeps: int,
    local_iter: int,
    d: int,
) -> None:
    """``sweeps`` projected Gauss–Seidel sweeps on ``r`` in place (module docstring): the reference of the compiled
    kernel :func:`gaussqp.friction.compiled_kernels.gauss_seidel_sweeps`, scalar by scalar in its order.

    For contact i: each of its rows' ``(W r)_k`` summed over the row's stored entries in storage order from 0.0,
    ``b_k = ((W r)_k + q_k) − Σ_l W_ii[k, l] r_l`` (l in order); then ``local_iter`` steps (fewer when one changes
    nothing) of ``u = W_ii x + b``, ``s = u + μ‖u_t‖e_n``, ``x ← P_K(x − ρ_i s)``
    (:func:`gaussqp.friction.coulomb_law.project_cone`'s three pieces); then ``r_i ← x``.

    Parameters
    ----------
    indptr, indices, data : W in canonical CSR arrays (int64, int64, float)
    q : (m·d,) ; mu, rho : (m,) ; diagonal : (m, d, d) W's diagonal blocks
        (:func:`gaussqp.friction.nonsmooth_newton.diagonal_blocks`)
    r : (m·d,) the point, overwritten
    sweeps, local_iter, d : ints
    """
    m = mu.size
    b = [0.0] * d
    x = [0.0] * d
    u = [0.0] * d
    for _ in range(sweeps):
        for i in range(m):
            o = i * d
            D = diagonal[i]
            for k in range(d):
                s = 0.0
                for jj in range(indptr[o + k], indptr[o + k + 1]):
                    s += data[jj] * r[indices[jj]]
                t = s + q[o + k]
                for col in range(d):
                    t -= D[k, col] * r[o + col]
                b[k] = t
                x[k] = float(r[o + k])
            rho_i = float(rho[i])
            mu_i = float(mu[i])
            for _ in range(local_iter):
                for k in range(d):
                    t = b[k]
                    for col in range(d):
                        t += D[k, col] * x[col]
                    u[k] = t
                tn = 0.0
                for k in range(1, d):
                    tn += u[k] * u[k]
                y0 = x[0] - rho_i * (u[0] + mu_i * math.sqrt(tn))
                y = [y0] + [x[k] - rho_i * u[k] for k in range(1, d)]
                z = _project_block(y, mu_i, d)
                same = z == x
                x = z
                if same:
                    break
            for k in range(d):
                r[o + k] = x[k]


def _project_block(y: list, mu: float, d: int) -> list:
    """The projection of one block on ``K_μ``: :func:`gaussqp.friction.coulomb_law.project_cone`'s pieces, as the
    compiled ``_project`` computes them."""
    nt2 = 0.0
    for k in range(1, d):
        nt2 += y[k] * y[k]
    yn, nt = y[0], math.sqrt(nt2)
    if nt <= mu * yn and yn >= 0.0:
        return list(y)
    if mu * nt <= -yn:
        return [0.0] * d
    alpha = (yn + mu * nt) / (1.0 + mu * mu)
    safe = nt if nt > 0.0 else 1.0
    return [alpha] + [(mu * alpha / safe) * y[k] for k in range(1, d)]


__all__ = ["gauss_seidel_sweeps_numpy", "sweep_start"]
